//! `kb_search(query)`: the best past resolution for an already-normalised
//! error, found by the strong-signal shortcut: the cheapest stage that
//! answers wins.
//!
//! 1. exact: `error_normalized = query` (unique index);
//! 2. prefix: rows starting with the query's first 30 characters (ASCII
//!    case-insensitive, as SQL `LIKE` without wildcards), whose length is
//!    close to the query's (a range scan on a NOCASE index);
//! 3. vector: nearest neighbours of the query's embedding (see `embed`).
//!
//! Only rows with a resolution are returned. The search is read-only (the
//! caller records a hit) and never raises: a stage that fails, because a
//! table or the model is missing, counts as "no match".

use std::ffi::c_int;

use sqlite_loadable::prelude::*;
use sqlite_loadable::table::{BestIndexError, ConstraintOperator, IndexInfo, VTab, VTabArguments, VTabCursor};
use sqlite_loadable::{api, Result};

use crate::sqlite::{Statement, Value};

/// How many leading characters (UTF-16 units, as JavaScript's `slice`) of
/// the query a prefix match must share.
pub const PREFIX_UNITS: usize = 30;
/// A prefix match counts only when `length_ratio(query, row) >= 0.7`.
pub const MIN_PREFIX_LENGTH_RATIO: f64 = 0.7;

/// The stage queries. Each returns the `error_kb` columns in the order
/// kb_search returns them (KB_COLUMN_COUNT of them).
const EXACT_SQL: &str = include_str!("../sql/search/exact.sql");
const PREFIX_SQL: &str = include_str!("../sql/search/prefix.sql");
const KB_COLUMN_COUNT: usize = 9;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    Exact,
    Prefix,
}

impl Stage {
    pub fn name(self) -> &'static str {
        match self {
            Stage::Exact => "exact",
            Stage::Prefix => "prefix",
        }
    }
}

/// A matching `error_kb` row and how it was found.
#[derive(Debug, Clone)]
pub struct Hit {
    pub row: Vec<Value>,
    pub stage: Stage,
    /// Vector distance; `None` for the text stages.
    pub distance: Option<f64>,
}

type StageFn = fn(*mut sqlite3, &str) -> std::result::Result<Option<Hit>, String>;

/// The stages, cheapest first.
const STAGES: &[StageFn] = &[exact_match, prefix_match];

/// The best hit for `query`, or `None`. Never fails: a stage that errors
/// (no table yet, an old schema) is passed over like a stage that misses.
pub fn best_match(db: *mut sqlite3, query: &str) -> Option<Hit> {
    STAGES.iter().find_map(|stage| stage(db, query).ok().flatten())
}

fn exact_match(db: *mut sqlite3, query: &str) -> std::result::Result<Option<Hit>, String> {
    let mut stmt = Statement::prepare(db, EXACT_SQL)?;
    stmt.bind_text(1, query)?;
    first_hit(stmt, Stage::Exact)
}

fn prefix_match(db: *mut sqlite3, query: &str) -> std::result::Result<Option<Hit>, String> {
    let prefix = query_prefix(query);
    if prefix.is_empty() {
        // Every row would be a candidate and none can pass the ratio.
        return Ok(None);
    }
    // The range [prefix, prefix || 0xFF) under NOCASE; see prefix.sql.
    let mut upper = prefix.as_bytes().to_vec();
    upper.push(0xFF);
    let mut stmt = Statement::prepare(db, PREFIX_SQL)?;
    stmt.bind_text(1, prefix)?;
    stmt.bind_text_bytes(2, &upper)?;
    stmt.bind_text(3, query)?;
    stmt.bind_double(4, MIN_PREFIX_LENGTH_RATIO)?;
    first_hit(stmt, Stage::Prefix)
}

/// The first `PREFIX_UNITS` UTF-16 units of the query, as JavaScript's
/// `slice(0, 30)`, except that an astral character cut in half is left out
/// whole, so the prefix stays valid text.
fn query_prefix(query: &str) -> &str {
    let mut units = 0;
    for (at, c) in query.char_indices() {
        units += c.len_utf16();
        if units > PREFIX_UNITS {
            return &query[..at];
        }
    }
    query
}

fn first_hit(mut stmt: Statement, stage: Stage) -> std::result::Result<Option<Hit>, String> {
    if !stmt.step()? {
        return Ok(None);
    }
    let row = (0..KB_COLUMN_COUNT as c_int).map(|i| stmt.column(i)).collect();
    Ok(Some(Hit { row, stage, distance: None }))
}

// ---- the table-valued function -------------------------------------------

const TABLE_SCHEMA: &str = "CREATE TABLE x(id, ts, error_normalized, error_raw, resolution, \
     resolved_by, tool_sequence, use_count, last_used, stage, distance, query HIDDEN)";
const STAGE_COLUMN: c_int = KB_COLUMN_COUNT as c_int;
const DISTANCE_COLUMN: c_int = STAGE_COLUMN + 1;
const QUERY_COLUMN: c_int = DISTANCE_COLUMN + 1;
/// idxNum telling xFilter that the query argument is present.
const HAS_QUERY: c_int = 1;

#[repr(C)]
pub struct KbSearchTable {
    /// Must come first: SQLite sees this struct as a `sqlite3_vtab`.
    base: sqlite3_vtab,
    db: *mut sqlite3,
}

impl<'vtab> VTab<'vtab> for KbSearchTable {
    type Aux = ();
    type Cursor = KbSearchCursor;

    fn connect(db: *mut sqlite3, _aux: Option<&()>, _args: VTabArguments) -> Result<(String, Self)> {
        // SAFETY: an all-zero sqlite3_vtab is its documented initial state.
        let base = unsafe { std::mem::zeroed() };
        Ok((TABLE_SCHEMA.to_owned(), KbSearchTable { base, db }))
    }

    fn best_index(&self, mut info: IndexInfo) -> std::result::Result<(), BestIndexError> {
        let mut has_query = false;
        for mut constraint in info.constraints() {
            if constraint.column_idx() == QUERY_COLUMN && constraint.op() == Some(ConstraintOperator::EQ) {
                if !constraint.usable() {
                    return Err(BestIndexError::Constraint);
                }
                constraint.set_argv_index(1);
                constraint.set_omit(true);
                has_query = true;
            }
        }
        info.set_idxnum(if has_query { HAS_QUERY } else { 0 });
        info.set_estimated_cost(1.0);
        info.set_estimated_rows(1);
        Ok(())
    }

    fn open(&'vtab mut self) -> Result<KbSearchCursor> {
        // SAFETY: as in connect.
        let base = unsafe { std::mem::zeroed() };
        Ok(KbSearchCursor { base, db: self.db, hit: None })
    }
}

#[repr(C)]
pub struct KbSearchCursor {
    /// Must come first: SQLite sees this struct as a `sqlite3_vtab_cursor`.
    base: sqlite3_vtab_cursor,
    db: *mut sqlite3,
    hit: Option<Hit>,
}

impl VTabCursor for KbSearchCursor {
    fn filter(&mut self, idx_num: c_int, _idx_str: Option<&str>, values: &[*mut sqlite3_value]) -> Result<()> {
        self.hit = None;
        let query = match (idx_num, values.first()) {
            (HAS_QUERY, Some(value)) => crate::sqlite::value_bytes(value).map(String::from_utf8_lossy),
            _ => None,
        };
        if let Some(query) = query {
            let db = self.db;
            // A panic here would abort the host process: contain it, and
            // answer "no row" as for any other failure of the search.
            self.hit = std::panic::catch_unwind(|| best_match(db, &query)).unwrap_or(None);
        }
        Ok(())
    }

    fn next(&mut self) -> Result<()> {
        self.hit = None;
        Ok(())
    }

    fn eof(&self) -> bool {
        self.hit.is_none()
    }

    fn column(&self, ctx: *mut sqlite3_context, i: c_int) -> Result<()> {
        let Some(hit) = &self.hit else { return Ok(()) };
        match i {
            STAGE_COLUMN => api::result_text(ctx, hit.stage.name())?,
            DISTANCE_COLUMN => match hit.distance {
                Some(d) => api::result_double(ctx, d),
                None => api::result_null(ctx),
            },
            i if (0..STAGE_COLUMN).contains(&i) => result_value(ctx, &hit.row[i as usize])?,
            _ => api::result_null(ctx),
        }
        Ok(())
    }

    fn rowid(&self) -> Result<i64> {
        Ok(match self.hit.as_ref().map(|h| &h.row[0]) {
            Some(Value::Integer(id)) => *id,
            _ => 0,
        })
    }
}

fn result_value(ctx: *mut sqlite3_context, value: &Value) -> Result<()> {
    match value {
        Value::Null => api::result_null(ctx),
        Value::Integer(n) => api::result_int64(ctx, *n),
        Value::Real(x) => api::result_double(ctx, *x),
        Value::Text(s) => api::result_text(ctx, s)?,
        Value::Blob(b) => api::result_blob(ctx, b),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_is_thirty_utf16_units_without_a_split_character() {
        assert_eq!(query_prefix(&"a".repeat(40)), "a".repeat(30));
        assert_eq!(query_prefix("short"), "short");
        let split = format!("{}😀tail", "a".repeat(29));
        assert_eq!(query_prefix(&split), "a".repeat(29));
        let literal = format!("{}\u{FFFD}tail", "a".repeat(29));
        assert_eq!(query_prefix(&literal), format!("{}\u{FFFD}", "a".repeat(29)));
    }
}
