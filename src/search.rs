//! `kb_search(query)`: the best past resolution for an already-normalised
//! error, found by the strong-signal shortcut: the cheapest stage that
//! answers wins.
//!
//! 1. exact: `error_normalized = query` (unique index);
//! 2. prefix: rows starting with the query's first 30 characters (ASCII
//!    case-insensitive, as SQL `LIKE` without wildcards), whose length is
//!    close to the query's (idx_error_kb_prefix);
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

/// How many leading characters (code points, as SQLite's `substr` and
/// `LIKE` count them) of the query a prefix match must share. Also written
/// into idx_error_kb_prefix and the prefix queries.
pub const PREFIX_CHARS: usize = 30;
/// A prefix match counts only when `length_ratio(query, row) >= 0.7`.
pub const MIN_PREFIX_LENGTH_RATIO: f64 = 0.7;

/// Vector stage thresholds, on vec0's default L2 distance between unit
/// vectors (L2² = 2 − 2·cosine, so L2 0.76 ≈ cosine similarity 0.71 and
/// L2 0.85 ≈ 0.64). The original system called them "cosine distance" but
/// tuned them on L2.
/// Nearer than this: a match.
pub const MATCH_DISTANCE: f64 = 0.76;
/// Nearer than this (but not MATCH_DISTANCE): a match only if the texts
/// also share a keyword.
pub const KEYWORD_CHECK_DISTANCE: f64 = 0.85;

/// The stage queries. Each returns the `error_kb` columns in the order
/// kb_search returns them (KB_COLUMN_COUNT of them).
const EXACT_SQL: &str = include_str!("../sql/search/exact.sql");
const PREFIX_SQL: &str = include_str!("../sql/search/prefix.sql");
const SHORT_PREFIX_SQL: &str = include_str!("../sql/search/prefix_short.sql");
const VECTOR_SQL: &str = include_str!("../sql/search/vector.sql");
const KB_COLUMN_COUNT: usize = 9;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    Exact,
    Prefix,
    Vector,
}

impl Stage {
    pub fn name(self) -> &'static str {
        match self {
            Stage::Exact => "exact",
            Stage::Prefix => "prefix",
            Stage::Vector => "vector",
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
const STAGES: &[StageFn] = &[exact_match, prefix_match, vector_match];

/// The best hit for `query`, or `None`. Never fails: a stage that errors
/// (no table yet, no model) is passed over like a stage that misses. With
/// `ERRKB_TRACE` set, each stage's outcome is written to stderr, to answer
/// "why did this not match?".
pub fn best_match(db: *mut sqlite3, query: &str) -> Option<Hit> {
    let trace = std::env::var_os("ERRKB_TRACE").is_some();
    STAGES.iter().find_map(|stage| match stage(db, query) {
        Ok(hit) => hit,
        Err(e) => {
            if trace {
                eprintln!("kb_search: stage failed: {e}");
            }
            *LAST_FAILURE.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
            None
        }
    })
}

/// The last stage failure kb_search passed over, for the hooks to log
/// (`errkb_last_search_error()` reads and clears it).
static LAST_FAILURE: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);

pub fn take_last_failure() -> Option<String> {
    LAST_FAILURE.lock().unwrap_or_else(|p| p.into_inner()).take()
}

fn exact_match(db: *mut sqlite3, query: &str) -> std::result::Result<Option<Hit>, String> {
    let mut stmt = Statement::prepare(db, EXACT_SQL)?;
    stmt.bind_text(1, query)?;
    first_hit(stmt, Stage::Exact)
}

fn prefix_match(db: *mut sqlite3, query: &str) -> std::result::Result<Option<Hit>, String> {
    if query.is_empty() {
        // Every row would be a candidate and none can pass the ratio.
        return Ok(None);
    }
    // Byte offset just past the first PREFIX_CHARS characters, if the query has that many.
    let head_end = query
        .char_indices()
        .map(|(at, _)| at)
        .chain([query.len()])
        .nth(PREFIX_CHARS);
    let mut stmt = match head_end {
        Some(end) => {
            let mut stmt = Statement::prepare(db, PREFIX_SQL)?;
            stmt.bind_text(1, &query[..end])?;
            stmt.bind_text(2, query)?;
            stmt
        }
        None => {
            let mut upper = query.as_bytes().to_vec();
            upper.push(0xFF);
            let mut stmt = Statement::prepare(db, SHORT_PREFIX_SQL)?;
            stmt.bind_text(1, query)?;
            stmt.bind_text_bytes(2, &upper)?;
            stmt
        }
    };
    stmt.bind_double(3, MIN_PREFIX_LENGTH_RATIO)?;
    first_hit(stmt, Stage::Prefix)
}

fn vector_match(db: *mut sqlite3, query: &str) -> std::result::Result<Option<Hit>, String> {
    // Cheap checks first: no vector table, or an empty one, needs no model.
    let mut any = Statement::prepare(db, "SELECT 1 FROM vec_error_kb LIMIT 1")?;
    if !any.step()? {
        return Ok(None);
    }
    let Some(vector) = crate::embed::with_embedder(|e| e.embed(&[query]))?.pop().flatten() else {
        return Ok(None);
    };
    let mut stmt = Statement::prepare(db, VECTOR_SQL)?;
    stmt.bind_blob(1, &crate::embed::to_blob(&vector))?;
    let Some(mut hit) = first_hit(stmt, Stage::Vector)? else {
        return Ok(None);
    };
    let distance = hit.distance.take().unwrap_or(f64::INFINITY);
    let key = hit.row[2].as_text().unwrap_or_default();
    Ok(vector_accepts(distance, query, key).then_some(Hit {
        distance: Some(distance),
        ..hit
    }))
}

/// Whether the nearest row at `distance` is a match for `query`.
pub fn vector_accepts(distance: f64, query: &str, key: &str) -> bool {
    if distance < MATCH_DISTANCE {
        true
    } else if distance < KEYWORD_CHECK_DISTANCE {
        crate::similarity::keyword_overlap(query, key) >= 1
    } else {
        false
    }
}

fn first_hit(mut stmt: Statement, stage: Stage) -> std::result::Result<Option<Hit>, String> {
    if !stmt.step()? {
        return Ok(None);
    }
    let row = (0..KB_COLUMN_COUNT as c_int).map(|i| stmt.column(i)).collect();
    // The vector stage's query has the distance after the row's columns.
    let distance = match stmt.column(KB_COLUMN_COUNT as c_int) {
        Value::Real(d) => Some(d),
        _ => None,
    };
    Ok(Some(Hit { row, stage, distance }))
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
        let has_query = pass_argument(&info, QUERY_COLUMN)?;
        info.set_idxnum(if has_query { HAS_QUERY } else { 0 });
        info.set_estimated_cost(1.0);
        info.set_estimated_rows(1);
        Ok(())
    }

    fn open(&'vtab mut self) -> Result<KbSearchCursor> {
        // SAFETY: as in connect.
        let base = unsafe { std::mem::zeroed() };
        Ok(KbSearchCursor {
            base,
            db: self.db,
            hit: None,
        })
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

/// A table function's argument is an `=` constraint on a hidden column:
/// hand it to xFilter as its first value. Whether there was one.
pub fn pass_argument(info: &IndexInfo, column: c_int) -> std::result::Result<bool, BestIndexError> {
    let mut found = false;
    for mut constraint in info.constraints() {
        if constraint.column_idx() == column && constraint.op() == Some(ConstraintOperator::EQ) {
            if !constraint.usable() {
                return Err(BestIndexError::Constraint);
            }
            constraint.set_argv_index(1);
            constraint.set_omit(true);
            found = true;
        }
    }
    Ok(found)
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
    fn vector_thresholds_on_both_sides() {
        let (q, shares, unrelated) = ("module not found", "cannot resolve module", "permission denied");
        assert!(vector_accepts(0.7599, q, unrelated));
        assert!(!vector_accepts(0.7600, q, unrelated));
        assert!(vector_accepts(0.7600, q, shares));
        assert!(vector_accepts(0.8499, q, shares));
        assert!(!vector_accepts(0.8500, q, shares));
        assert!(!vector_accepts(f64::INFINITY, q, shares));
    }
}
