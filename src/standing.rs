//! `fix_standing(fix_id)`: how far a fix is to be trusted and how it
//! ranks, as one row: `own`, `support`, `against`, `sessions`, `uses`,
//! `advisable`. The rule is `sql/search/fix_standing.sql`, written once;
//! kb_search's candidates and every hook that tells a fix read it through
//! this table function (`JOIN fix_standing(f.id) AS s`), so that what may
//! be told, and in which order, is decided in one place.

use std::ffi::c_int;

use crate::sqlite::ffi::{Connection, StatementCache, Value};
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
            let mut rows = Vec::new();
            while stmt.step()? {
                rows.push((0..COLUMNS).map(|i| stmt.column(i)).collect());
            }
            Ok(rows)
        })
    }
}
