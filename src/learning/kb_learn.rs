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
//! It takes INSERTs only, and reads as empty (`sqlite::insert_table`).

use std::ffi::c_int;

use crate::sqlite::ffi::{Connection, Statement};
use crate::sqlite::insert_table::{InsertTarget, Row};

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

pub struct KbLearn {
    db: Connection,
    /// Prepared on the first INSERT, kept while the connection lasts.
    steps: Option<Vec<Step>>,
}

impl KbLearn {
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
    fn learn(&mut self, row: &Row) -> std::result::Result<(), String> {
        if self.steps.is_none() {
            self.steps = Some(self.prepare()?);
        }
        for step in self.steps.iter_mut().flatten() {
            for &(index, column) in &step.bindings {
                row.bind_to(column, &mut step.statement, index)?;
            }
            step.statement.execute()?;
        }
        Ok(())
    }
}

impl InsertTarget for KbLearn {
    const NAME: &'static str = "kb_learn";
    const SCHEMA: &'static str = TABLE_SCHEMA;

    fn new(db: Connection) -> Self {
        KbLearn { db, steps: None }
    }

    fn insert(&mut self, row: &Row) -> std::result::Result<(), String> {
        self.learn(row)
    }
}
