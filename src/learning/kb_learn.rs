//! `kb_learn`: the table every writer of learned fixes inserts into.
//!
//! `INSERT INTO kb_learn (ts, error_raw, error_key, signature, headline,
//! resolution, resolved_by, tool_sequence) …` runs the statements of
//! `sql/kb_learn.sql` for each row, the row's columns bound as their
//! parameters: the UPSERT on `error_kb`, the signature, the fix
//! among the error's fixes, the file names. The hooks, `errkb record` and
//! `errkb learn` all write here, so learning lives in one place.
//!
//! A table of the extension (an eponymous virtual table), not a view with
//! an INSTEAD OF trigger: nothing is added to the schema, and a connection
//! compiles the four statements once, the first time it learns. A TEMP
//! trigger had to be made, and compiled into the inserting statement, by
//! every process that learns: 1.5 of the 4.2 million instructions of a
//! hook that learns a fix.
//!
//! It takes INSERTs only, and reads as empty. It is WITHOUT ROWID, so an
//! INSERT can name no rowid; its PRIMARY KEY is only there because SQLite
//! requires one (a single column) of such a table, and constrains nothing.

use std::ffi::c_int;

use sqlite_loadable::prelude::*;
use sqlite_loadable::table::{
    BestIndexError, IndexInfo, UpdateOperation, VTab, VTabArguments, VTabCursor, VTabWriteable,
};
use sqlite_loadable::{Error, Result};

use crate::sql_api::ffi::Statement;

const LEARN_SQL: &str = include_str!("../../sql/kb_learn.sql");

/// The columns, in order: each is bound to the statements' parameter of
/// the same name (`:ts` …).
const COLUMNS: [&str; 14] = [
    "ts",
    "error_raw",
    "error_key",
    "signature",
    "headline",
    "resolution",
    "resolved_by",
    "tool_sequence",
    "weak",
    "project",
    "session_id",
    "event_id",
    "success_event_id",
    "steps",
];
const TABLE_SCHEMA: &str = "CREATE TABLE x(ts, error_raw, error_key, signature, headline, resolution, \
     resolved_by, tool_sequence, weak, project, session_id, event_id, success_event_id, steps, \
     PRIMARY KEY (error_raw)) WITHOUT ROWID";

/// A statement of `sql/kb_learn.sql` and, for each of its parameters, the
/// column bound to it.
struct Step {
    statement: Statement,
    bindings: Vec<(c_int, usize)>,
}

#[repr(C)]
pub struct KbLearnTable {
    /// Must come first: SQLite sees this struct as a `sqlite3_vtab`.
    base: sqlite3_vtab,
    db: *mut sqlite3,
    /// Prepared on the first INSERT, kept while the connection lasts.
    steps: Option<Vec<Step>>,
}

impl KbLearnTable {
    fn prepare(&self) -> std::result::Result<Vec<Step>, String> {
        Statement::prepare_all(self.db, LEARN_SQL)?
            .into_iter()
            .map(|statement| {
                let bindings = statement
                    .parameter_names()
                    .into_iter()
                    .zip(1..)
                    .map(|(name, index)| {
                        let name = name.unwrap_or_default();
                        let column = COLUMNS
                            .iter()
                            .position(|c| name.get(1..) == Some(c))
                            .ok_or_else(|| format!("kb_learn.sql names no column of kb_learn: {name}"))?;
                        Ok((index, column))
                    })
                    .collect::<std::result::Result<_, String>>()?;
                Ok(Step { statement, bindings })
            })
            .collect()
    }

    /// Learn one row.
    fn learn(&mut self, values: &[*mut sqlite3_value]) -> std::result::Result<(), String> {
        if self.steps.is_none() {
            self.steps = Some(self.prepare()?);
        }
        for step in self.steps.iter_mut().flatten() {
            for &(index, column) in &step.bindings {
                let value = values.get(column).copied().ok_or("a column is missing")?;
                step.statement.bind_value(index, value)?;
            }
            step.statement.execute()?;
        }
        Ok(())
    }

    /// SQLite reports a virtual table's error from its `zErrMsg`.
    fn fail(&mut self, message: String) -> Error {
        let message = format!("kb_learn: {message}");
        if let Ok(copy) = sqlite_loadable::api::mprintf(&message) {
            // SAFETY: SQLite frees zErrMsg (sqlite3_free) when it takes the
            // message after the failed call, and leaves it null again.
            self.base.zErrMsg = copy;
        }
        Error::new_message(message)
    }
}

impl<'vtab> VTab<'vtab> for KbLearnTable {
    type Aux = ();
    type Cursor = KbLearnCursor;

    fn connect(db: *mut sqlite3, _aux: Option<&()>, _args: VTabArguments) -> Result<(String, Self)> {
        // SAFETY: an all-zero sqlite3_vtab is its documented initial state.
        let base = unsafe { std::mem::zeroed() };
        Ok((TABLE_SCHEMA.to_owned(), KbLearnTable { base, db, steps: None }))
    }

    fn best_index(&self, mut info: IndexInfo) -> std::result::Result<(), BestIndexError> {
        info.set_estimated_cost(1.0);
        info.set_estimated_rows(0);
        Ok(())
    }

    fn open(&'vtab mut self) -> Result<KbLearnCursor> {
        // SAFETY: as in connect.
        let base = unsafe { std::mem::zeroed() };
        Ok(KbLearnCursor { base })
    }
}

impl<'vtab> VTabWriteable<'vtab> for KbLearnTable {
    fn update(&'vtab mut self, operation: UpdateOperation, _p_rowid: *mut i64) -> Result<()> {
        let UpdateOperation::Insert { values, .. } = operation else {
            // unreachable: the table has no rows to update or delete
            return Err(self.fail("takes INSERTs only".to_owned()));
        };
        // A panic would abort the host process: contain it.
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.learn(values)))
            .unwrap_or_else(|_| Err("internal error".to_owned()));
        outcome.map_err(|message| self.fail(message))
    }
}

/// Reading kb_learn gives no rows.
#[repr(C)]
pub struct KbLearnCursor {
    /// Must come first: SQLite sees this struct as a `sqlite3_vtab_cursor`.
    base: sqlite3_vtab_cursor,
}

impl VTabCursor for KbLearnCursor {
    fn filter(&mut self, _idx_num: c_int, _idx_str: Option<&str>, _values: &[*mut sqlite3_value]) -> Result<()> {
        Ok(())
    }

    fn next(&mut self) -> Result<()> {
        Ok(())
    }

    fn eof(&self) -> bool {
        true
    }

    fn column(&self, _ctx: *mut sqlite3_context, _i: c_int) -> Result<()> {
        Ok(())
    }

    fn rowid(&self) -> Result<i64> {
        Ok(0)
    }
}
