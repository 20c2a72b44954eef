//! What may be told, decided in one place, as two table functions:
//!
//! - `fix_standing(fix_id)`: how far a fix is to be trusted and how it
//!   ranks, as one row: `own`, `support`, `against`, `sessions`, `uses`,
//!   `advisable` (`sql/search/fix_standing.sql`);
//! - `tellable(errors, session_id, agent_id, project)`: the fixes of
//!   some errors that may be told to this agent now, best first: advised by
//!   fix_standing, not told to it in this session, not applied by it
//!   itself, this project's first (`sql/search/tellable.sql`).
//!
//! kb_search's candidates and every hook that tells a fix read `tellable`,
//! so that what may be told, and in which order, is written once.

use std::ffi::c_int;

use crate::sqlite::ffi::{Connection, Statement, StatementCache, Value};
use crate::sqlite::table_function::TableFunction;

const STANDING_SQL: &str = include_str!("../sql/search/fix_standing.sql");
const COLUMNS: c_int = 7;

pub struct FixStanding;

impl TableFunction for FixStanding {
    const NAME: &'static str = "fix_standing";
    const SCHEMA: &'static str =
        "CREATE TABLE x(fix_id, own, support, against, sessions, uses, advisable, fix HIDDEN)";
    const COLUMNS: c_int = COLUMNS;
    const ARGUMENTS: c_int = 1;
    const REQUIRED: c_int = 1;
    const NEVER_RAISES: bool = false;

    fn rows(
        db: Connection,
        statements: &mut StatementCache,
        arguments: &[Option<&[u8]>],
    ) -> std::result::Result<Vec<Vec<Value>>, String> {
        let Some(id) = arguments[0].and_then(|a| std::str::from_utf8(a).ok()?.trim().parse::<i64>().ok()) else {
            return Ok(Vec::new());
        };
        statements.with(db, STANDING_SQL, |stmt| {
            stmt.bind_int64(1, id)?;
            all_rows(stmt, COLUMNS)
        })
    }
}

const TELLABLE_SQL: &str = include_str!("../sql/search/tellable.sql");
const TELLABLE_COLUMNS: c_int = 15;

pub struct Tellable;

impl TableFunction for Tellable {
    const NAME: &'static str = "tellable";
    const SCHEMA: &'static str = "CREATE TABLE x(error_kb_id, fix_id, uid, fix_key, resolution, headline, origin, \
         this_project, elsewhere, own, support, sessions, uses, ts, rank, errors HIDDEN, session_id HIDDEN, \
         agent_id HIDDEN, project HIDDEN)";
    const COLUMNS: c_int = TELLABLE_COLUMNS;
    const ARGUMENTS: c_int = 4;
    const REQUIRED: c_int = 1;
    const NEVER_RAISES: bool = false;

    fn rows(
        db: Connection,
        statements: &mut StatementCache,
        arguments: &[Option<&[u8]>],
    ) -> std::result::Result<Vec<Vec<Value>>, String> {
        // one id, or a JSON array of them
        let Some(errors) = arguments[0].and_then(|a| std::str::from_utf8(a).ok()).map(str::trim) else {
            return Ok(Vec::new());
        };
        let errors = match errors.parse::<i64>() {
            Ok(id) => format!("[{id}]"),
            Err(_) => errors.to_owned(),
        };
        let argument = |i: usize| arguments.get(i).copied().flatten();
        statements.with(db, TELLABLE_SQL, |stmt| {
            stmt.bind_text(1, &errors)?;
            stmt.bind_optional_text(2, argument(1))?;
            stmt.bind_optional_text(3, argument(2))?;
            stmt.bind_optional_text(4, argument(3))?;
            // the query's columns but the last, `rank`: its row's place
            let mut rows = all_rows(stmt, TELLABLE_COLUMNS - 1)?;
            for (place, row) in rows.iter_mut().enumerate() {
                row.push(Value::Integer(place as i64 + 1));
            }
            Ok(rows)
        })
    }
}

/// Every row the statement gives, its first `columns` columns.
fn all_rows(stmt: &mut Statement, columns: c_int) -> std::result::Result<Vec<Vec<Value>>, String> {
    let mut rows = Vec::new();
    while stmt.step()? {
        rows.push((0..columns).map(|i| stmt.column(i)).collect());
    }
    Ok(rows)
}
