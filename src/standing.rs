//! What may be told, decided in one place, as two table functions:
//!
//! - `fix_standing(fix_id)`: how far a fix is to be trusted and how it
//!   ranks, as one row: `own`, `support`, `against`, `sessions`, `uses`,
//!   `advisable` (the rule: `Counts::standing`; what it is made of:
//!   `sql/search/fix_standing.sql`);
//! - `tellable(errors, session_id, agent_id, project)`: the fixes of
//!   some errors that may be told to this agent now, best first: advisable
//!   by the same rule, not told to it in this session, not applied by it
//!   itself, this machine's own first, then this project's
//!   (`Advised::order`; `sql/search/tellable.sql` reads the fixes,
//!   `told.sql` what was told and `applied.sql` what was applied).
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
    /// A count or mark errkb never writes (a negative count, a real, a
    /// text, a NULL in a row that is there): a hand-edited database. Such
    /// a fix is not advised: what its numbers say is not known.
    pub malformed: bool,
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
            advisable: !self.malformed && !self.weak && !failed_here && against <= support,
        }
    }

    /// The counts in the statement's columns `at` and on (fix_standing.sql's
    /// order). errkb writes whole numbers of 0 and more, and 0 or 1 for
    /// `weak`; anything else marks the counts malformed (and reads as 0).
    fn read(stmt: &Statement, at: c_int) -> Counts {
        let mut malformed = false;
        let mut int = |i: c_int| match stmt.column(at + i) {
            Value::Integer(n) if n >= 0 => n,
            _ => {
                malformed = true;
                0
            }
        };
        let weak = int(0) != 0;
        // (a table's row is there when its first column is: all are NOT NULL)
        let present = |i: c_int| !matches!(stmt.column(at + i), Value::Null);
        let (has_local, has_team) = (present(1), present(6));
        let local = has_local.then(|| LocalCounts {
            learned: int(1),
            helped: int(2),
            failed: int(3),
            sessions: int(4),
            advised: int(5),
        });
        let team = has_team.then(|| TeamCounts {
            votes_for: int(6),
            votes_against: int(7),
            members: int(8),
            users: int(9),
        });
        Counts { weak, malformed, local, team }
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
/// columns). Its first seven, up to `origin`, are tellable's own first
/// seven (`column`).
const FIX_ID: c_int = column::FIX_ID as c_int;
const UID: c_int = column::UID as c_int;
const FIX_KEY: c_int = column::FIX_KEY as c_int;
const ORIGIN: c_int = column::ORIGIN as c_int;
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
    /// Its time, as stored (compared as SQL compares values).
    ts: Option<Key>,
    fix_id: Option<Key>,
    uid: Option<Key>,
    fix_key: Option<Key>,
}

impl Advised {
    /// The fix in tellable.sql's current row, when it is advisable.
    fn read(stmt: &Statement) -> Option<Advised> {
        // an older writer's row (no `fixes` row, so no fix id) is its own,
        // unweighed fix; its uses are its own count, as stored (one that is
        // not a whole number ranks last)
        let legacy = stmt.column(FIX_ID) == Value::Null;
        let legacy_uses = stmt.column(LEGACY_USES);
        let standing = if legacy {
            let uses = match legacy_uses {
                Value::Integer(n) => n,
                _ => i64::MIN,
            };
            Standing { own: true, support: 0, against: 0, sessions: 0, uses, advisable: true }
        } else {
            Counts::read(stmt, COUNTS).standing()
        };
        if !standing.advisable {
            return None;
        }
        let any_project = stmt.column(ANY_PROJECT);
        let here = matches!(stmt.column(HERE), Value::Integer(n) if n != 0);
        let this_project = here || any_project == Value::Null;
        let mut row: Vec<Value> = (0..=ORIGIN).map(|i| stmt.column(i)).collect();
        row.extend([
            Value::Integer(this_project as i64),
            if this_project { Value::Null } else { any_project },
            Value::Integer(standing.own as i64),
            Value::Integer(standing.support),
            Value::Integer(standing.sessions),
            if legacy { legacy_uses } else { Value::Integer(standing.uses) },
            stmt.column(TS),
        ]);
        Some(Advised {
            row,
            last_used: stmt.column(LAST_USED),
            standing,
            this_project,
            ts: key(stmt, TS),
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

/// Two values in SQL's order: NULL, then numbers (an integer and a real
/// compared exactly), then texts by their bytes, then blobs. A total order,
/// as sorting needs.
fn sql_order(a: &Option<Key>, b: &Option<Key>) -> Ordering {
    fn class(v: &Option<Key>) -> u8 {
        match v {
            None | Some(Key::Other(Value::Null)) => 0,
            Some(Key::Other(Value::Integer(_) | Value::Real(_))) => 1,
            Some(Key::Text(_) | Key::Other(Value::Text(_))) => 2,
            Some(Key::Other(Value::Blob(_))) => 3,
        }
    }
    match (a, b) {
        (Some(Key::Text(x)), Some(Key::Text(y))) => x.cmp(y),
        (Some(Key::Other(Value::Blob(x))), Some(Key::Other(Value::Blob(y)))) => x.cmp(y),
        (Some(Key::Other(x)), Some(Key::Other(y))) if class(a) == 1 && class(b) == 1 => numbers(x, y),
        _ => class(a).cmp(&class(b)),
    }
}

/// Two numbers compared exactly (an integer past 2^53 is not rounded to a
/// real first); NaN, which SQLite never stores, before every other.
fn numbers(a: &Value, b: &Value) -> Ordering {
    fn integer_and_real(i: i64, r: f64) -> Ordering {
        if r.is_nan() {
            Ordering::Greater
        } else if r >= 9_223_372_036_854_775_808.0 {
            Ordering::Less
        } else if r < -9_223_372_036_854_775_808.0 {
            Ordering::Greater
        } else {
            // (r's whole part is an i64 exactly, within those bounds)
            let whole = r.trunc();
            i.cmp(&(whole as i64)).then_with(|| 0.0_f64.partial_cmp(&(r - whole)).unwrap_or(Ordering::Equal))
        }
    }
    match (a, b) {
        (Value::Integer(x), Value::Integer(y)) => x.cmp(y),
        (Value::Integer(x), Value::Real(y)) => integer_and_real(*x, *y),
        (Value::Real(x), Value::Integer(y)) => integer_and_real(*y, *x).reverse(),
        (Value::Real(x), Value::Real(y)) => match (x.is_nan(), y.is_nan()) {
            (false, false) => x.partial_cmp(y).unwrap_or(Ordering::Equal),
            (a_nan, b_nan) => b_nan.cmp(&a_nan),
        },
        _ => Ordering::Equal,
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
            malformed: false,
            local: Some(LocalCounts { learned: i64::MAX, helped: i64::MAX, failed: 0, sessions: i64::MAX, advised: 1 }),
            team: Some(TeamCounts { votes_for: i64::MAX, votes_against: 0, members: 1, users: i64::MAX }),
        };
        let s = huge.standing();
        assert!(s.own && s.advisable);
        assert_eq!((s.support, s.sessions, s.uses), (i64::MAX, i64::MAX, i64::MAX));
    }

    #[test]
    fn a_fix_whose_counts_errkb_never_writes_is_not_advised() {
        let fine = Counts {
            local: Some(LocalCounts { learned: 1, ..Default::default() }),
            ..Default::default()
        };
        assert!(fine.standing().advisable);
        let odd = Counts { malformed: true, ..fine };
        assert!(!odd.standing().advisable);
    }

    #[test]
    fn values_are_ordered_as_sql_orders_them_and_totally() {
        let int = |n: i64| Some(Key::Other(Value::Integer(n)));
        let real = |r: f64| Some(Key::Other(Value::Real(r)));
        let text = |t: &[u8]| Some(Key::Text(t.to_vec()));
        // 2^53 + 1 is more than the real 2^53, which equals the integer 2^53
        assert_eq!(sql_order(&int((1 << 53) + 1), &real(9_007_199_254_740_992.0)), Ordering::Greater);
        assert_eq!(sql_order(&int(1 << 53), &real(9_007_199_254_740_992.0)), Ordering::Equal);
        assert_eq!(sql_order(&int(2), &real(2.5)), Ordering::Less);
        assert_eq!(sql_order(&int(-3), &real(-2.5)), Ordering::Less);
        assert_eq!(sql_order(&int(i64::MAX), &real(1e19)), Ordering::Less);
        assert_eq!(sql_order(&None, &int(i64::MIN)), Ordering::Less);
        assert_eq!(sql_order(&real(1e300), &text(b"")), Ordering::Less);
        // texts by their bytes, not a lossy reading of them
        assert_eq!(sql_order(&text(b"a\xff"), &text(b"a\xef\xbf\xbe")), Ordering::Greater);
        // sorting mixed values never finds the order inconsistent
        let mut values = Vec::new();
        for i in 0..200_i64 {
            values.push(match i % 4 {
                0 => int((1 << 53) + (i % 3)),
                1 => real(9_007_199_254_740_992.0 + (i % 5) as f64),
                2 => text(&[b'a', (i % 256) as u8]),
                _ => None,
            });
        }
        values.sort_by(sql_order);
        assert!(values.windows(2).all(|w| sql_order(&w[0], &w[1]) != Ordering::Greater));
    }
}
