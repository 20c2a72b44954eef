//! What may be told, decided in one place, as two table functions:
//!
//! - `fix_standing(fix_id)`: how far a fix is to be trusted and how it
//!   ranks, as one row: `own`, `support`, `against`, `sessions`, `uses`,
//!   `advisable` (`sql/search/fix_standing.sql`);
//! - `tellable(errors, session_id, agent_id, project)`: the fixes of
//!   some errors that may be told to this agent now, best first: advised by
//!   fix_standing, not told to it in this session, not applied by it
//!   itself, this project's first (`sql/search/tellable.sql` gives the
//!   advised fixes in order; what was told, `told.sql`, and applied,
//!   `applied.sql`, are read apart and taken out here).
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
const TOLD_SQL: &str = include_str!("../sql/search/told.sql");
const APPLIED_SQL: &str = include_str!("../sql/search/applied.sql");
const TELLABLE_COLUMNS: c_int = 15;
/// Where tellable.sql gives a fix's id, uid and content.
const FIX_ID: c_int = 1;
const UID: c_int = 2;
const FIX_KEY: c_int = 3;

/// A fix tellable.sql advises: its row, and what is compared with the
/// fixes told and applied (see `Key`).
struct Advised {
    row: Vec<Value>,
    fix_id: Option<Key>,
    uid: Option<Key>,
    fix_key: Option<Key>,
}

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
        // the advised fixes, in the rule's order (the query's columns but
        // the last, `rank`), each with its uid and content as keys
        let mut rows = statements.with(db, TELLABLE_SQL, |stmt| {
            stmt.bind_text(1, &errors)?;
            stmt.bind_optional_text(2, argument(3))?;
            let mut rows = Vec::new();
            while stmt.step()? {
                rows.push(Advised {
                    row: (0..TELLABLE_COLUMNS - 1).map(|i| stmt.column(i)).collect(),
                    fix_id: key(stmt, FIX_ID),
                    uid: key(stmt, UID),
                    fix_key: key(stmt, FIX_KEY),
                });
            }
            Ok(rows)
        })?;
        // less what this agent was told or applied in this session; no
        // session: nothing has been told (a search from the shell)
        if let (Some(session), false) = (argument(1), rows.is_empty()) {
            let agent = argument(2).unwrap_or_default();
            // (equal as SQL's `=` is: NULL equals nothing)
            let same = |a: &Option<Key>, b: &Option<Key>| a.is_some() && a == b;
            let told = statements.with(db, TOLD_SQL, |stmt| {
                stmt.bind_text_bytes(1, session)?;
                stmt.bind_text_bytes(2, agent)?;
                let mut told = Vec::new();
                while stmt.step()? {
                    told.push((key(stmt, 0), key(stmt, 1)));
                }
                Ok(told)
            })?;
            rows.retain(|fix| !told.iter().any(|(uid, key)| same(uid, &fix.uid) || same(key, &fix.fix_key)));
            // (what is applied is read only when something is left to tell)
            if !rows.is_empty() {
                let applied = statements.with(db, APPLIED_SQL, |stmt| {
                    stmt.bind_text_bytes(1, session)?;
                    let mut applied = Vec::new();
                    while stmt.step()? {
                        applied.push((key(stmt, 0), key(stmt, 1), key(stmt, 2)));
                    }
                    Ok(applied)
                })?;
                let agent = Some(Key::Text(agent.to_vec()));
                rows.retain(|fix| {
                    !applied.iter().any(|(id, key, by)| {
                        *by == agent && (same(id, &fix.fix_id) || same(key, &fix.fix_key))
                    })
                });
            }
        }
        let mut rows: Vec<Vec<Value>> = rows.into_iter().map(|fix| fix.row).collect();
        // its rank: the row's place
        for (place, row) in rows.iter_mut().enumerate() {
            row.push(Value::Integer(place as i64 + 1));
        }
        Ok(rows)
    }
}

/// A value as SQL's `=` compares it without affinity: text by its bytes
/// exactly (read lossily, two different invalid sequences would both be
/// U+FFFD, and equal), anything else as read; None for NULL.
#[derive(PartialEq)]
enum Key {
    Text(Vec<u8>),
    Other(Value),
}

fn key(stmt: &Statement, i: c_int) -> Option<Key> {
    match stmt.column_text_bytes(i) {
        Some(bytes) => Some(Key::Text(bytes.to_vec())),
        None => match stmt.column(i) {
            Value::Null => None,
            value => Some(Key::Other(value)),
        },
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
