//! What may be told, decided in one place, as two table functions:
//!
//! - `fix_standing(fix_id)`: how far a fix is to be trusted and how it
//!   ranks, as one row: `own`, `support`, `against`, `sessions`, `uses`,
//!   `advisable` (the rule: `Counts::standing`; what it is made of:
//!   `sql/search/fix_standing.sql`);
//! - `tellable(errors, session_id, agent_id, project)`: the fixes of
//!   some errors that may be told to this agent now, best first: advisable
//!   by the same rule, not told to it in this session, not applied by it
//!   itself, this machine's own first, then this project's (`ORDER` here;
//!   `sql/search/tellable.sql` reads the fixes, `told.sql` what was told
//!   and `applied.sql` what was applied).
//!
//! kb_search's candidates and every hook that tells a fix read `tellable`,
//! so that what may be told, and in which order, is written once. The rule
//! and the order are Rust, not SQL: every hook that tells something
//! compiles the statements it reads, and SQLite compiled the rule's
//! expressions and the sort in about three times the time of the plain
//! reads they replace (DESIGN.md).

use std::cmp::Ordering;
use std::ffi::c_int;

use crate::sqlite::ffi::{Connection, Statement, StatementCache, Value};
use crate::sqlite::table_function::TableFunction;

const STANDING_SQL: &str = include_str!("../sql/search/fix_standing.sql");
const COLUMNS: c_int = 7;

/// What a fix's standing is made of (fix_standing.sql's columns, and
/// tellable.sql's from `weak` on).
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Counts {
    /// The same command passed with nothing changed: never advised.
    pub weak: bool,
    /// This machine's counts (fix_counts, replica ''), when it has any.
    pub local: Option<LocalCounts>,
    /// The team's (team_standing), when the hub said anything of it.
    pub team: Option<TeamCounts>,
}

#[derive(Debug, Default, Clone, PartialEq)]
pub struct LocalCounts {
    pub learned: i64,
    pub helped: i64,
    pub failed: i64,
    pub sessions: i64,
    pub advised: i64,
}

#[derive(Debug, Default, Clone, PartialEq)]
pub struct TeamCounts {
    pub votes_for: i64,
    pub votes_against: i64,
    pub members: i64,
    pub users: i64,
}

/// How far a fix is to be trusted, and how it ranks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Standing {
    /// This machine learned it or was helped by it.
    pub own: bool,
    /// Voices for it: this machine's, and each teammate's.
    pub support: i64,
    /// Voices against it.
    pub against: i64,
    /// Distinct sessions it was learned in here, and each teammate that
    /// learned it.
    pub sessions: i64,
    /// Times it was learned or told here, and each teammate that did.
    pub uses: i64,
    /// It may be told.
    pub advisable: bool,
}

impl Counts {
    /// The rule, the one place it is written: this machine's own
    /// experience is one voice, each teammate one more (team_standing, one
    /// voice per member whatever its numbers). A fix is advised while no
    /// more voices are against it than for it, never when weak, and never
    /// here once it failed here more often than it worked. So no one member
    /// can bury a fix another stands behind, or raise its own above this
    /// machine's (which ranks first: `own`).
    pub fn standing(&self) -> Standing {
        let team = self.team.clone().unwrap_or_default();
        let (own, for_here, failed_here, sessions, uses) = match &self.local {
            Some(c) => {
                let worked = c.learned.saturating_add(c.helped);
                (
                    c.learned > 0 || c.helped > 0,
                    worked > 0 && c.failed <= worked,
                    c.failed > worked,
                    c.sessions,
                    c.learned.saturating_add(c.advised),
                )
            }
            None => (false, false, false, 0, 0),
        };
        let support = team.votes_for.saturating_add(for_here as i64);
        let against = team.votes_against.saturating_add(failed_here as i64);
        Standing {
            own,
            support,
            against,
            sessions: sessions.saturating_add(team.members),
            uses: uses.saturating_add(team.users),
            advisable: !self.weak && !failed_here && against <= support,
        }
    }

    /// The counts in the statement's columns `at` and on (fix_standing.sql's
    /// order). A count is read as SQLite reads a number from a value.
    fn read(stmt: &Statement, at: c_int) -> Counts {
        let int = |i: c_int| number(&stmt.column(at + i));
        let present = |i: c_int| !matches!(stmt.column(at + i), Value::Null);
        Counts {
            weak: int(0).is_some_and(|n| n != 0),
            local: present(1).then(|| LocalCounts {
                learned: int(1).unwrap_or(0),
                helped: int(2).unwrap_or(0),
                failed: int(3).unwrap_or(0),
                sessions: int(4).unwrap_or(0),
                advised: int(5).unwrap_or(0),
            }),
            team: present(6).then(|| TeamCounts {
                votes_for: int(6).unwrap_or(0),
                votes_against: int(7).unwrap_or(0),
                members: int(8).unwrap_or(0),
                users: int(9).unwrap_or(0),
            }),
        }
    }
}

/// A value as a whole number (the columns are INTEGER; a real is cut, a
/// text that is not a number is 0, as in SQLite's arithmetic); None: NULL.
fn number(value: &Value) -> Option<i64> {
    match value {
        Value::Null => None,
        Value::Integer(n) => Some(*n),
        Value::Real(r) => Some(*r as i64),
        Value::Text(t) => Some(leading_integer(t)),
        Value::Blob(_) => Some(0),
    }
}

/// The whole number a text starts with (`12abc` → 12, `abc` → 0).
fn leading_integer(text: &str) -> i64 {
    let t = text.trim_start();
    let (sign, digits) = match t.as_bytes().first() {
        Some(b'-') => (-1, &t[1..]),
        Some(b'+') => (1, &t[1..]),
        _ => (1, t),
    };
    let end = digits.bytes().take_while(u8::is_ascii_digit).count();
    match digits[..end].parse::<i64>() {
        Ok(n) => n * sign,
        // (more digits than a whole number holds: as large as one can be)
        Err(_) if end > 0 => i64::MAX * sign,
        Err(_) => 0,
    }
}

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
            let mut rows = Vec::new();
            stmt.bind_int64(1, id)?;
            while stmt.step()? {
                let s = Counts::read(stmt, 0).standing();
                rows.push(vec![
                    Value::Integer(id),
                    Value::Integer(s.own as i64),
                    Value::Integer(s.support),
                    Value::Integer(s.against),
                    Value::Integer(s.sessions),
                    Value::Integer(s.uses),
                    Value::Integer(s.advisable as i64),
                ]);
            }
            Ok(rows)
        })
    }
}

const TELLABLE_SQL: &str = include_str!("../sql/search/tellable.sql");
const TOLD_SQL: &str = include_str!("../sql/search/told.sql");
const APPLIED_SQL: &str = include_str!("../sql/search/applied.sql");
const TELLABLE_COLUMNS: c_int = 15;
/// Where tellable.sql gives a fix's id, uid, content, time, where it was
/// learned, an old writer's row's uses, and its counts (fix_standing.sql's
/// columns).
const FIX_ID: c_int = 1;
const UID: c_int = 2;
const FIX_KEY: c_int = 3;
/// (the columns up to `origin` are tellable's own first seven)
const ORIGIN: c_int = 6;
const TS: c_int = 7;
const ANY_PROJECT: c_int = 8;
const HERE: c_int = 9;
const LEGACY_USES: c_int = 10;
const COUNTS: c_int = 11;
/// (after the counts: when the fix was last told, for kb_search)
const LAST_USED: c_int = COUNTS + 10;

/// Where a row of tellable (`Advised::row`) has each column.
pub mod column {
    pub const ERROR_KB_ID: usize = 0;
    pub const FIX_ID: usize = 1;
    pub const UID: usize = 2;
    pub const FIX_KEY: usize = 3;
    pub const RESOLUTION: usize = 4;
    pub const HEADLINE: usize = 5;
    pub const ORIGIN: usize = 6;
    pub const ELSEWHERE: usize = 8;
    pub const USES: usize = 12;
    pub const RANK: usize = 14;
}

/// A fix that may be advised: its row as tellable gives it (`rank` is
/// added last), when it was last told, how it ranks, and what is compared
/// with the fixes told and applied (see `Key`).
pub struct Advised {
    /// tellable's columns (`TELLABLE_COLUMNS`, `Tellable::SCHEMA`).
    pub row: Vec<Value>,
    /// The fix's own `last_used` (NULL for an older writer's row).
    pub last_used: Value,
    standing: Standing,
    this_project: bool,
    ts: Value,
    fix_id: Option<Key>,
    uid: Option<Key>,
    fix_key: Option<Key>,
}

impl Advised {
    /// The fix in tellable.sql's current row, when it is advisable.
    fn read(stmt: &Statement) -> Option<Advised> {
        let legacy_uses = stmt.column(LEGACY_USES);
        let standing = match number(&legacy_uses) {
            // an old writer's row is its own, unweighed fix
            Some(uses) => Standing { own: true, support: 0, against: 0, sessions: 0, uses, advisable: true },
            None => Counts::read(stmt, COUNTS).standing(),
        };
        if !standing.advisable {
            return None;
        }
        let any_project = stmt.column(ANY_PROJECT);
        let here = number(&stmt.column(HERE)).is_some_and(|n| n != 0);
        let this_project = here || any_project == Value::Null;
        let ts = stmt.column(TS);
        let mut row: Vec<Value> = (0..=ORIGIN).map(|i| stmt.column(i)).collect();
        row.extend([
            Value::Integer(this_project as i64),
            if this_project { Value::Null } else { any_project },
            Value::Integer(standing.own as i64),
            Value::Integer(standing.support),
            Value::Integer(standing.sessions),
            Value::Integer(standing.uses),
            ts.clone(),
        ]);
        Some(Advised {
            row,
            last_used: stmt.column(LAST_USED),
            standing,
            this_project,
            ts,
            fix_id: key(stmt, FIX_ID),
            uid: key(stmt, UID),
            fix_key: key(stmt, FIX_KEY),
        })
    }

    /// The order, everywhere: this machine's own fixes first (a teammate's
    /// never ranks before them, whatever project it says it was for), among
    /// them those learned in this project first; then the voices for it,
    /// sessions, uses, the newest. (kb_search puts how close the fix's
    /// original error is to the query before all of them.)
    fn order(a: &Advised, b: &Advised) -> Ordering {
        let (x, y) = (&a.standing, &b.standing);
        (y.own, b.this_project, y.support, y.sessions, y.uses)
            .cmp(&(x.own, a.this_project, x.support, x.sessions, x.uses))
            .then_with(|| sql_order(&b.ts, &a.ts))
    }
}

/// Two values in SQL's order (NULL, then numbers, then texts by their
/// bytes, then blobs).
fn sql_order(a: &Value, b: &Value) -> Ordering {
    fn class(v: &Value) -> u8 {
        match v {
            Value::Null => 0,
            Value::Integer(_) | Value::Real(_) => 1,
            Value::Text(_) => 2,
            Value::Blob(_) => 3,
        }
    }
    match (a, b) {
        (Value::Integer(x), Value::Integer(y)) => x.cmp(y),
        (Value::Integer(_) | Value::Real(_), Value::Integer(_) | Value::Real(_)) => {
            let real = |v: &Value| match v {
                Value::Integer(n) => *n as f64,
                Value::Real(r) => *r,
                _ => 0.0,
            };
            real(a).total_cmp(&real(b))
        }
        (Value::Text(x), Value::Text(y)) => x.as_bytes().cmp(y.as_bytes()),
        (Value::Blob(x), Value::Blob(y)) => x.cmp(y),
        _ => class(a).cmp(&class(b)),
    }
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
        let fixes = tellable(db, statements, &errors, argument(1), argument(2), argument(3))?;
        Ok(fixes.into_iter().map(|fix| fix.row).collect())
    }
}

/// The fixes of the error_kb rows `errors` (a JSON array of their ids)
/// that may be told to the agent `agent` (None: the main agent) of
/// `session` now, this project's (`project`) first: tellable's rows, best
/// first, each numbered with its rank. No session: nothing has been told
/// (a search from the shell).
pub fn tellable(
    db: Connection,
    statements: &mut StatementCache,
    errors: &str,
    session: Option<&[u8]>,
    agent: Option<&[u8]>,
    project: Option<&[u8]>,
) -> std::result::Result<Vec<Advised>, String> {
    // the advisable fixes, in the rule's order, each with its uid and
    // content as keys
    let mut rows = statements.with(db, TELLABLE_SQL, |stmt| {
        stmt.bind_text(1, errors)?;
        stmt.bind_optional_text(2, project)?;
        let mut rows = Vec::new();
        while stmt.step()? {
            rows.extend(Advised::read(stmt));
        }
        Ok(rows)
    })?;
    rows.sort_by(Advised::order);
    // less what this agent was told or applied in this session
    if let (Some(session), false) = (session, rows.is_empty()) {
        let agent = agent.unwrap_or_default();
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
                !applied
                    .iter()
                    .any(|(id, key, by)| *by == agent && (same(id, &fix.fix_id) || same(key, &fix.fix_key)))
            });
        }
    }
    // its rank: the row's place
    for (place, fix) in rows.iter_mut().enumerate() {
        fix.row.push(Value::Integer(place as i64 + 1));
    }
    Ok(rows)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_at_the_limits_of_a_number_weigh_without_overflow() {
        let huge = Counts {
            weak: false,
            local: Some(LocalCounts { learned: i64::MAX, helped: i64::MAX, failed: 0, sessions: i64::MAX, advised: 1 }),
            team: Some(TeamCounts { votes_for: i64::MAX, votes_against: 0, members: 1, users: i64::MAX }),
        };
        let s = huge.standing();
        assert!(s.own && s.advisable);
        assert_eq!((s.support, s.sessions, s.uses), (i64::MAX, i64::MAX, i64::MAX));
    }

    #[test]
    fn a_count_is_read_as_sqlites_arithmetic_reads_a_number() {
        assert_eq!(number(&Value::Text("12abc".into())), Some(12));
        assert_eq!(number(&Value::Text(" -3".into())), Some(-3));
        assert_eq!(number(&Value::Text("abc".into())), Some(0));
        assert_eq!(number(&Value::Text("99999999999999999999".into())), Some(i64::MAX));
        assert_eq!(number(&Value::Real(2.9)), Some(2));
        assert_eq!(number(&Value::Null), None);
    }
}
