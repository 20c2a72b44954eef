//! The protocol: send what the hub lacks, then receive what was written
//! since the cursor. Why it neither loses nor double-counts:
//!
//! - **Stable ids.** A fix is its `uid` on the laptop that sent it; the hub
//!   keeps one row per fix and member, so a resend changes nothing.
//! - **Counts are per member and laptop, and only grow.** Each laptop
//!   sends its own running totals of each fix; the hub and every receiver
//!   keep the larger of old and new. A resend, a sync killed half-way and
//!   sent again, or two syncs of one laptop at once leave the same numbers.
//! - **Sending is one hub transaction**, marked as sent locally only after
//!   it committed: a sync killed before the mark sends the same again.
//! - **The receive cursor follows commits, not ids** (sql/hub/schema.sql).
//!   A sync applies every row its snapshot shows after the cursor, and
//!   keeps in the cursor the transactions it saw still running below where
//!   it stopped ([`Cursor`]): their rows are received once they have
//!   ended, and rows applied twice change nothing.
//!
//! And why no member can turn the hub against another (the server side is
//! sql/hub/schema.sql's row-level security):
//!
//! - every row received is checked before it is stored ([`check_fix`]):
//!   text that is not UTF-8, a timestamp that is not finite, a resolution
//!   that is not a fix's JSON, or a size past the limits is refused,
//!   counted and kept in `hub_refused` (status and doctor show it), never
//!   a stop of the sync;
//! - a fix is named here by its content, not the sender's uid, and kept
//!   with the member who sent it; counts are kept per member, so a fix
//!   ranks by how many members stand behind it;
//! - received rows are read in batches from a cursor of the hub (memory
//!   stays bounded whatever the hub holds) and applied in short local
//!   transactions.

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use rusqlite::{Connection, OptionalExtension, Transaction, TransactionBehavior};
use tokio_postgres::Row;

use super::client::{Described, Hub};
use super::project::{Remotes, Selection};
use errkb::runtime::counted;
use errkb::runtime::script::{self, Params};

/// The hub schema version this errkb speaks (sql/hub/schema.sql's).
pub const HUB_SCHEMA_VERSION: i64 = 2;
pub const HUB_SCHEMA_SQL: &str = include_str!("../../../../sql/hub/schema.sql");
const OUTBOX_SQL: &str = include_str!("../../../../sql/hub/outbox.sql");
const RECEIVE_FIX_SQL: &str = include_str!("../../../../sql/hub/receive_fix.sql");
const RECEIVE_COUNTS_SQL: &str = include_str!("../../../../sql/hub/receive_counts.sql");
const RECEIVE_WITHDRAWAL_SQL: &str = include_str!("../../../../sql/hub/receive_withdrawal.sql");
const RECEIVE_REMOVAL_SQL: &str = include_str!("../../../../sql/hub/receive_removal.sql");
const RECEIVE_CLAIM_SQL: &str = include_str!("../../../../sql/hub/receive_claim.sql");
const UNSUPPORTED_SQL: &str = include_str!("../../../../sql/hub/unsupported.sql");
const STANDING_SQL: &str = include_str!("../../../../sql/hub/team_standing.sql");
pub const RETRACT_SQL: &str = include_str!("../../../../sql/hub/retract.sql");
pub const DROP_FIX_SQL: &str = include_str!("../../../../sql/hub/drop_fix.sql");

/// Rows per statement sent to the hub.
const SEND_CHUNK: usize = 5_000;
/// Rows fetched from the hub at a time: what a sync holds in memory is at
/// most this many rows of at most `MAX_ROW_BYTES` each.
const FETCH_BATCH: i32 = 500;
/// Limits on what is received, per field and per row: nothing errkb sends
/// comes near them, and a row past them is not a fix. (The hub refuses
/// larger rows too; these hold whatever it has.)
const MAX_RESOLUTION_BYTES: usize = 64 * 1024;
const MAX_ROW_BYTES: usize = 72 * 1024;
/// Limits per text field of a received fix, in bytes.
const FIELD_LIMITS: [(&str, usize); 7] = [
    ("uid", 64),
    ("member", 256),
    ("replica", 64),
    ("project", 400),
    ("error_key", 1_000),
    ("signature", 2_000),
    ("headline", 2_000),
];
/// Per round of receiving: at most this many rows, or this much fix text,
/// in one snapshot; a sync goes on in further rounds for RECEIVE_TIME at
/// most, then says more waits (the next sync goes on from there).
const ROUND_ROWS: usize = 20_000;
const MAX_SYNC_BYTES: usize = 64 * 1024 * 1024;
const RECEIVE_TIME: Duration = Duration::from_secs(30);
/// A teammate's fixes kept on this laptop, at most: one member cannot fill
/// everyone's disk.
const MAX_FIXES_PER_MEMBER: i64 = 10_000;
/// Laptops of one member whose counts are kept here, at most: counts are
/// per laptop, and a member could name any number of them.
const MAX_REPLICAS_PER_MEMBER: usize = 20;
/// Refused rows kept for status and doctor.
const REFUSED_KEPT: i64 = 1_000;
/// Local write transactions while receiving last about this long, with a
/// gap after each, so that hooks writing meanwhile get in (as learn does).
const APPLY_BATCH: Duration = Duration::from_millis(10);
const APPLY_GAP: Duration = Duration::from_millis(3);

/// This database's place among the team's replicas (`hub_state`).
#[derive(Debug, Clone)]
pub struct State {
    pub replica: String,
    pub hub: String,
    pub cursor: String,
    pub last_sync: Option<String>,
    pub last_error: Option<String>,
    pub failures: i64,
    pub next_try: Option<String>,
}

impl State {
    pub fn load(conn: &Connection) -> Result<Option<State>> {
        Ok(conn
            .query_row(
                "SELECT replica, hub, cursor, last_sync, last_error, failures, next_try FROM hub_state",
                [],
                |r| {
                    Ok(State {
                        replica: r.get(0)?,
                        hub: r.get(1)?,
                        cursor: r.get(2)?,
                        last_sync: r.get(3)?,
                        last_error: r.get(4)?,
                        failures: r.get(5)?,
                        next_try: r.get(6)?,
                    })
                },
            )
            .optional()?)
    }

    /// Follow `hub` from now on: a new replica id the first time; another
    /// hub than before starts over (its cursor, what it was sent).
    pub fn join(conn: &Connection, hub: &str) -> Result<State> {
        match State::load(conn)? {
            Some(state) if state.hub == hub => return Ok(state),
            Some(_) => {
                conn.execute_batch("DELETE FROM hub_sent; UPDATE hub_state SET cursor = '0', failures = 0, next_try = NULL, last_error = NULL;")?;
                conn.execute("UPDATE hub_state SET hub = ?1", [hub])?;
            }
            None => {
                conn.execute(
                    "INSERT INTO hub_state (one, replica, hub) VALUES (1, ?1, ?2)",
                    rusqlite::params![new_replica_id()?, hub],
                )?;
            }
        }
        Ok(State::load(conn)?.expect("written above"))
    }

    /// Whether a background sync should try now (after failures, later and later).
    pub fn due(&self) -> bool {
        self.next_try
            .as_deref()
            .is_none_or(|t| t <= errkb::clock::now_millis().as_str())
    }

    fn record_success(conn: &Connection, cursor: &str, complete: bool) -> Result<()> {
        conn.execute(
            "UPDATE hub_state SET cursor = ?1, last_sync = utc_now(), last_error = ?2, failures = 0, next_try = NULL",
            rusqlite::params![
                cursor,
                (!complete).then_some("more waits on the hub: the next sync receives it")
            ],
        )?;
        Ok(())
    }

    /// A failed sync: said in hub_state, and the next background try put
    /// off: 1 minute, doubling to 6 hours.
    pub fn record_failure(conn: &Connection, error: &str) -> Result<()> {
        let failures: i64 = conn
            .query_row("SELECT failures FROM hub_state", [], |r| r.get(0))
            .optional()?
            .unwrap_or(0);
        let wait = Duration::from_secs(60u64.saturating_mul(1 << failures.clamp(0, 9)).min(6 * 3600));
        let next = errkb::clock::millis(std::time::SystemTime::now() + wait);
        conn.execute(
            "UPDATE hub_state SET last_error = ?1, failures = failures + 1, next_try = ?2",
            rusqlite::params![error, next],
        )?;
        Ok(())
    }
}

/// 128 random bits, hex.
fn new_replica_id() -> Result<String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| anyhow::anyhow!("no randomness for a replica id: {e}"))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// The encoding of the hub's database: errkb needs UTF8 (SQL_ASCII
/// stores any bytes, and a row of them could fail every laptop's sync).
pub async fn database_encoding(c: &impl tokio_postgres::GenericClient) -> Result<String> {
    Ok(c
        .query_one("SELECT pg_encoding_to_char(encoding) FROM pg_database WHERE datname = current_database()", &[])
        .await
        .described()?
        .get(0))
}

/// The schema version the hub's `errkb.meta` holds; None when there is no
/// hub in the database yet.
pub async fn stored_schema_version(c: &impl tokio_postgres::GenericClient) -> Result<Option<String>> {
    let exists = c
        .query_one("SELECT to_regclass('errkb.meta') IS NOT NULL", &[])
        .await
        .described()?
        .get::<_, bool>(0);
    if !exists {
        return Ok(None);
    }
    let row = c
        .query_opt("SELECT value FROM errkb.meta WHERE key = 'schema_version'", &[])
        .await
        .described()?;
    Ok(row.and_then(|r| r.try_get(0).ok()))
}

/// The hub's schema version, and a clear error when this errkb cannot
/// speak it.
pub fn check_hub_schema(hub: &mut Hub) -> Result<i64> {
    let user = hub.info.user.clone();
    let version: Option<String> = hub.with(async |c| {
        // a hub whose text is not UTF-8 can hold rows that fail every query
        let encoding = database_encoding(c).await?;
        if encoding != "UTF8" {
            return Err(anyhow::anyhow!(
                "the hub's database has encoding {encoding}; errkb needs UTF8 (its owner makes one with \
                 CREATE DATABASE … ENCODING 'UTF8' TEMPLATE template0 and runs errkb hub init on it): \
                 nothing was sent or received"
            ));
        }
        stored_schema_version(c).await
    })
    .map_err(|e| no_access(e, &user))?;
    let Some(version) = version else {
        bail!(
            "{} has no errkb hub yet: run errkb hub init {} (as the database's owner)",
            hub.info.display,
            hub.info.display
        );
    };
    let version: i64 = version.parse().context("the hub's schema version is not a number")?;
    if version > HUB_SCHEMA_VERSION {
        bail!(
            "the hub at {} has schema {version}, newer than this errkb knows ({HUB_SCHEMA_VERSION}): \
             update errkb on this machine (nothing was sent or received)",
            hub.info.display
        );
    }
    if version < HUB_SCHEMA_VERSION {
        bail!(
            "the hub at {} has schema {version}; this errkb needs {HUB_SCHEMA_VERSION}: \
             run errkb hub init {} as the database's owner to upgrade it (its rows are kept)",
            hub.info.display,
            hub.info.display
        );
    }
    Ok(version)
}

#[derive(Debug, Default)]
pub struct Report {
    pub member: String,
    pub sent_fixes: usize,
    pub sent_counts: usize,
    pub sent_retractions: usize,
    pub received_fixes: usize,
    pub received_counts: usize,
    pub received_retractions: usize,
    pub removed_members: usize,
    /// Rows received that were not stored: malformed or oversized (kept in
    /// hub_refused).
    pub refused: usize,
    pub not_shared: usize,
    /// The per-sync limit stopped this sync: more waits on the hub.
    pub more_waits: bool,
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "sent {}, {}, {}; received {}, {}, {}",
            counted(self.sent_fixes, "fix", "fixes"),
            counted(self.sent_counts, "count", "counts"),
            counted(self.sent_retractions, "retraction", "retractions"),
            counted(self.received_fixes, "fix", "fixes"),
            counted(self.received_counts, "count", "counts"),
            counted(self.received_retractions, "retraction", "retractions")
        )?;
        if self.removed_members > 0 {
            let members = counted(self.removed_members, "removed member's", "removed members'");
            write!(f, "; {members} fixes dropped")?;
        }
        if self.refused > 0 {
            write!(
                f,
                "; {} refused (malformed or oversized: errkb hub status lists them)",
                counted(self.refused, "received row", "received rows")
            )?;
        }
        if self.more_waits {
            write!(f, "; more waits on the hub: run errkb sync again")?;
        }
        Ok(())
    }
}

/// One item of the outbox.
enum Outgoing {
    Fix {
        fix_id: i64,
        uid: String,
        project: String,
        error_key: String,
        signature: String,
        headline: String,
        resolution: String,
        fix_key: String,
    },
    Counts {
        fix_id: i64,
        uid: String,
        counts: [i64; 5],
    },
    Retraction {
        uid: String,
    },
}

/// What is waiting to be sent: (fixes, counts, retractions) of shared projects.
pub fn waiting(conn: &Connection, selection: &Selection) -> Result<(usize, usize, usize)> {
    let (items, _) = outbox(conn, selection)?;
    let mut n = (0, 0, 0);
    for item in items {
        match item {
            Outgoing::Fix { .. } => n.0 += 1,
            Outgoing::Counts { .. } => n.1 += 1,
            Outgoing::Retraction { .. } => n.2 += 1,
        }
    }
    Ok(n)
}

/// The outbox, of shared projects only (and how many were not shared).
fn outbox(conn: &Connection, selection: &Selection) -> Result<(Vec<Outgoing>, usize)> {
    let mut remotes = Remotes::default();
    let mut stmt = conn.prepare(OUTBOX_SQL)?;
    let mut rows = stmt.query([])?;
    let mut items = Vec::new();
    let mut not_shared = 0;
    while let Some(row) = rows.next()? {
        let kind: String = row.get(0)?;
        if kind == "retraction" {
            items.push(Outgoing::Retraction { uid: row.get(2)? });
            continue;
        }
        let project: String = row.get(3)?;
        let Some(remote) = remotes.of(&project).filter(|r| selection.shares(r, Some(&project))) else {
            not_shared += 1;
            continue;
        };
        let fix_id: i64 = row.get(1)?;
        let uid: String = row.get(2)?;
        if kind == "fix" {
            let folder = remotes.top_level(&project);
            let outgoing = |text: String| super::outgoing::text(&text, folder.as_deref());
            items.push(Outgoing::Fix {
                fix_id,
                uid,
                project: remote,
                error_key: outgoing(row.get(4)?),
                signature: outgoing(row.get(5)?),
                headline: outgoing(row.get(6)?),
                resolution: super::outgoing::json(&row.get::<_, String>(7)?, folder.as_deref()),
                fix_key: row.get(8)?,
            });
        } else {
            let counts = [row.get(4)?, row.get(5)?, row.get(6)?, row.get(7)?, row.get(8)?];
            items.push(Outgoing::Counts { fix_id, uid, counts });
        }
    }
    Ok((items, not_shared))
}

/// A refusal from the server means this login is not (or no longer) a
/// member; say so instead of quoting PostgreSQL.
fn no_access(e: anyhow::Error, user: &str) -> anyhow::Error {
    if format!("{e:#}").contains("permission denied") {
        anyhow::anyhow!(
            "{user} cannot use the hub: the hub's owner removed {user} from the team, or the login is not \
             in errkb_member (nothing was sent or received; errkb hub leave stops syncing, what was \
             received stays)"
        )
    } else {
        e
    }
}

/// Who this laptop is on the hub: its login, as the server knows it. A
/// login the owner removed, or that has no access, is told so.
fn introduce(hub: &mut Hub) -> Result<String> {
    let (member, may_write) = hub
        .with(async |c| {
            let row = c
                .query_one("SELECT session_user::text, errkb.may_write()", &[])
                .await
                .described()?;
            Ok((row.get::<_, String>(0), row.get::<_, bool>(1)))
        })
        .map_err(|e| no_access(e, &hub.info.user))?;
    if !may_write {
        bail!(
            "the hub's owner removed {member} from the team: nothing was sent or received \
             (errkb hub leave stops syncing; what was received stays)"
        );
    }
    Ok(member)
}

/// Send, then receive. The caller has checked the hub's schema and holds
/// the sync lock.
pub fn sync(conn: &Connection, hub: &mut Hub, state: &State, selection: &Selection) -> Result<Report> {
    let mut report = Report {
        member: introduce(hub)?,
        ..Report::default()
    };
    send(conn, hub, state, selection, &mut report)?;
    receive(conn, hub, state, selection, &mut report)?;
    Ok(report)
}

fn send(conn: &Connection, hub: &mut Hub, state: &State, selection: &Selection, report: &mut Report) -> Result<()> {
    let (items, not_shared) = outbox(conn, selection)?;
    report.not_shared = not_shared;
    if items.is_empty() {
        return Ok(());
    }
    let mut fixes = Vec::new();
    let mut counts = Vec::new();
    let mut retractions = Vec::new();
    for item in &items {
        match item {
            Outgoing::Fix { .. } => fixes.push(item),
            Outgoing::Counts { .. } => counts.push(item),
            Outgoing::Retraction { uid } => retractions.push(uid.clone()),
        }
    }
    let replica = state.replica.clone();
    hub.with(async |c| {
        // (READ COMMITTED whatever the server's default: the hub's bound on
        // a member's fixes counts what its other transactions committed)
        let tx = c
            .build_transaction()
            .isolation_level(tokio_postgres::IsolationLevel::ReadCommitted)
            .start()
            .await
            .described()?;
        for chunk in fixes.chunks(SEND_CHUNK) {
            let mut cols: [Vec<&str>; 7] = Default::default();
            for item in chunk {
                if let Outgoing::Fix {
                    uid,
                    project,
                    error_key,
                    signature,
                    headline,
                    resolution,
                    fix_key,
                    ..
                } = item
                {
                    for (col, value) in cols
                        .iter_mut()
                        .zip([uid, project, error_key, signature, headline, resolution, fix_key])
                    {
                        col.push(value.as_str());
                    }
                }
            }
            // (the server stamps member, time and transaction; a fix this
            // member retracted, or one retracted for everyone, is not sent)
            tx.execute(
                "INSERT INTO errkb.fixes (uid, replica, project, error_key, signature, headline, resolution, fix_key) \
                 SELECT u.uid, $8, u.project, u.error_key, u.signature, u.headline, u.resolution::jsonb, u.fix_key \
                 FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[]) \
                      AS u(uid, project, error_key, signature, headline, resolution, fix_key) \
                 WHERE NOT errkb.is_retracted(u.uid, session_user) \
                 ON CONFLICT (uid, member) DO NOTHING",
                &[
                    &cols[0], &cols[1], &cols[2], &cols[3], &cols[4], &cols[5], &cols[6], &replica,
                ],
            )
            .await
            .described()?;
        }
        for chunk in counts.chunks(SEND_CHUNK) {
            let mut uids = Vec::new();
            let mut columns: [Vec<i64>; 5] = Default::default();
            for item in chunk {
                if let Outgoing::Counts { uid, counts, .. } = item {
                    uids.push(uid.as_str());
                    for (col, n) in columns.iter_mut().zip(counts) {
                        col.push((*n).clamp(0, 1_000_000));
                    }
                }
            }
            // (through errkb.send_counts: a member has no UPDATE of its own)
            tx.query_one(
                "SELECT errkb.send_counts($1::text[], $7, $2::bigint[], $3::bigint[], $4::bigint[], \
                                          $5::bigint[], $6::bigint[])",
                &[
                    &uids,
                    &columns[0],
                    &columns[1],
                    &columns[2],
                    &columns[3],
                    &columns[4],
                    &replica,
                ],
            )
            .await
            .described()?;
        }
        if !retractions.is_empty() {
            // `errkb forget` withdraws this member's own copy: the hub
            // refuses it from this member from now on, and every laptop
            // drops what this member sent of it. (A fix retracted for
            // everyone is the owner's: errkb hub retract.)
            tx.query_one("SELECT errkb.withdraw($1::text[])", &[&retractions])
                .await
                .described()?;
        }
        tx.commit().await.described()
    })?;
    // The hub has it all: mark it, in one local transaction.
    let mark = conn.unchecked_transaction()?;
    for item in &items {
        match item {
            Outgoing::Fix { fix_id, .. } => {
                mark.execute("INSERT OR IGNORE INTO hub_sent (fix_id) VALUES (?1)", [fix_id])?;
                report.sent_fixes += 1;
            }
            Outgoing::Counts { fix_id, counts, .. } => {
                mark.execute(
                    "INSERT INTO hub_sent (fix_id, learned, sessions, advised, helped, failed) \
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT(fix_id) DO UPDATE SET \
                     learned = excluded.learned, sessions = excluded.sessions, advised = excluded.advised, \
                     helped = excluded.helped, failed = excluded.failed",
                    rusqlite::params![fix_id, counts[0], counts[1], counts[2], counts[3], counts[4]],
                )?;
                report.sent_counts += 1;
            }
            Outgoing::Retraction { uid } => {
                mark.execute("UPDATE retracted_fixes SET sent = 1 WHERE uid = ?1", [uid])?;
                report.sent_retractions += 1;
            }
        }
    }
    mark.commit()?;
    Ok(())
}

/// What is received, one table each, in the order a transaction's rows are
/// applied (`rank`: claims, fixes, counts, retractions, removals; within a
/// table by its keys k1 and k2, uid and member). Each query reads its table
/// in (xid, k1, k2) order along an index on exactly those
/// (sql/hub/schema.sql), so its first rows come at once however many
/// follow; [`read_in_order`] merges the five by (xid, rank). (One query
/// over their union would sort every row after the cursor before giving
/// the first: a member's one insert of millions of rows made every round
/// time out.) A text is sent only when the row is within the limits; a
/// row past them comes as `oversized`, its texts left on the hub, so what
/// is held in memory is bounded whatever the hub holds. Where reading
/// starts is added by [`Source::query`].
struct Source {
    rank: i32,
    /// The order after xid: what the table's index holds.
    keys: &'static str,
    /// Rows this laptop sent are not received back.
    own_excluded: bool,
    select: &'static str,
}

const SOURCES: [Source; 5] = [
    Source {
        rank: 0,
        keys: "k1, k2",
        own_excluded: false,
        select: "\
SELECT CASE WHEN fits THEN 'claim' ELSE 'oversized' END AS kind, xid::text AS xid_text, 0 AS rank, k1, k2,
       NULL::text AS uid, CASE WHEN fits THEN member END AS member, CASE WHEN fits THEN replica END AS replica,
       NULL::text AS project, NULL::text AS error_key, NULL::text AS signature, NULL::text AS headline,
       NULL::text AS resolution, NULL::text AS sent_at, NULL::bigint AS learned, NULL::bigint AS sessions,
       NULL::bigint AS advised, NULL::bigint AS helped, NULL::bigint AS failed
FROM (SELECT *, left(replica, 64) AS k1, left(member, 256) AS k2,
             octet_length(replica) <= 64 AND octet_length(member) <= 256 AS fits
      FROM errkb.replica_claims) AS t",
    },
    Source {
        rank: 1,
        keys: "k1, k2",
        own_excluded: true,
        select: "\
SELECT CASE WHEN fits THEN 'fix' ELSE 'oversized' END AS kind, xid::text AS xid_text, 1 AS rank, k1, k2,
       CASE WHEN fits THEN uid END, CASE WHEN fits THEN member END, CASE WHEN fits THEN replica END,
       CASE WHEN fits THEN project END, CASE WHEN fits THEN error_key END, CASE WHEN fits THEN signature END,
       CASE WHEN fits THEN headline END, CASE WHEN fits THEN resolution::text END,
       CASE WHEN fits AND isfinite(sent_at)
            THEN to_char(sent_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"') END,
       NULL::bigint, NULL::bigint, NULL::bigint, NULL::bigint, NULL::bigint
FROM (SELECT *, left(uid, 64) AS k1, left(member, 256) AS k2,
             octet_length(uid) <= 64 AND octet_length(member) <= 256 AND octet_length(replica) <= 64
             AND octet_length(project) <= 400 AND octet_length(error_key) <= 1000
             AND octet_length(signature) <= 2000 AND octet_length(headline) <= 2000
             AND octet_length(fix_key) <= 4000 AND octet_length(resolution::text) <= {resolution_limit}
             AND octet_length(resolution::text) + octet_length(headline) + octet_length(signature)
                 + octet_length(error_key) + octet_length(project) + octet_length(fix_key) <= {row_limit} AS fits
      FROM errkb.fixes) AS t",
    },
    Source {
        rank: 2,
        keys: "k1, k2",
        own_excluded: true,
        select: "\
SELECT CASE WHEN fits THEN 'counts' ELSE 'oversized' END AS kind, xid::text AS xid_text, 2 AS rank, k1, k2,
       CASE WHEN fits THEN uid END, CASE WHEN fits THEN member END, CASE WHEN fits THEN replica END,
       NULL::text, NULL::text, NULL::text, NULL::text, NULL::text, NULL::text,
       learned, sessions, advised, helped, failed
FROM (SELECT *, left(uid, 64) AS k1, left(member, 256) || '/' || left(replica, 64) AS k2,
             octet_length(uid) <= 64 AND octet_length(member) <= 256 AND octet_length(replica) <= 64 AS fits
      FROM errkb.counts) AS t",
    },
    Source {
        rank: 3,
        keys: "k1, k2",
        own_excluded: false,
        select: "\
SELECT CASE WHEN fits THEN 'retraction' ELSE 'oversized' END AS kind, xid::text AS xid_text, 3 AS rank, k1, k2,
       CASE WHEN fits THEN uid END, CASE WHEN fits THEN member END, NULL::text,
       NULL::text, NULL::text, NULL::text, NULL::text, NULL::text, NULL::text,
       NULL::bigint, NULL::bigint, NULL::bigint, NULL::bigint, NULL::bigint
FROM (SELECT *, left(uid, 64) AS k1, left(member, 256) AS k2,
             octet_length(uid) <= 64 AND octet_length(member) <= 256 AS fits
      FROM errkb.retractions) AS t",
    },
    Source {
        rank: 4,
        keys: "k2",
        own_excluded: false,
        select: "\
SELECT CASE WHEN fits THEN 'removal' ELSE 'oversized' END AS kind, xid::text AS xid_text, 4 AS rank, ''::text, k2,
       NULL::text, CASE WHEN fits THEN member END, NULL::text,
       NULL::text, NULL::text, NULL::text, NULL::text, NULL::text, NULL::text,
       NULL::bigint, NULL::bigint, NULL::bigint, NULL::bigint, NULL::bigint
FROM (SELECT *, left(member, 256) AS k2, octet_length(member) <= 256 AS fits
      FROM errkb.removed_members) AS t",
    },
];

impl Source {
    /// The query for this table's rows that `reading` asks for, at most
    /// ROUND_ROWS of them, and its parameters (all text); None when no row
    /// of this table can be among them. (A round reads no more than
    /// ROUND_ROWS rows in all, so a table's reader never runs out at its
    /// LIMIT before the round's budget does.)
    fn query(&self, reading: &Reading<'_>, replica: &str) -> Option<(String, Vec<String>)> {
        let (mut params, mut bound) = match reading {
            Reading::Among(xids) => {
                let list = xids.iter().map(u64::to_string).collect::<Vec<_>>().join(",");
                (vec![format!("{{{list}}}")], "xid = ANY($1::text::xid8[])".to_owned())
            }
            Reading::After(from) | Reading::Within(from) => {
                let only_xid = matches!(reading, Reading::Within(_));
                let mut params = vec![from.xid.to_string()];
                let xid = "$1::text::xid8";
                let (rank, k1, k2) = &from.after;
                let mut bound = if self.rank < *rank {
                    if only_xid {
                        return None;
                    }
                    format!("xid > {xid}")
                } else if self.rank > *rank {
                    format!("xid >= {xid}")
                } else if self.keys == "k2" {
                    params.push(k2.clone());
                    format!("(xid, k2) > ({xid}, $2::text)")
                } else {
                    params.extend([k1.clone(), k2.clone()]);
                    format!("(xid, k1, k2) > ({xid}, $2::text, $3::text)")
                };
                if only_xid {
                    bound.push_str(&format!(" AND xid = {xid}"));
                }
                (params, bound)
            }
        };
        if self.own_excluded {
            params.push(replica.to_owned());
            bound.push_str(&format!(" AND replica IS DISTINCT FROM ${}::text", params.len()));
        }
        let select = self
            .select
            .replace("{resolution_limit}", &MAX_RESOLUTION_BYTES.to_string())
            .replace("{row_limit}", &MAX_ROW_BYTES.to_string());
        let sql = format!("{select}\nWHERE {bound}\nORDER BY xid, {} LIMIT {ROUND_ROWS}", self.keys);
        Some((sql, params))
    }
}

/// A place in the order of receiving: the rows of transaction `xid` up to
/// `after` (rank, k1, k2; rank -1: before its first row).
#[derive(Debug, Clone, PartialEq)]
struct Place {
    xid: u64,
    after: (i32, String, String),
}

impl Place {
    fn before(xid: u64) -> Place {
        Place { xid, after: (-1, String::new(), String::new()) }
    }

    /// A transaction's rows come after this place.
    fn precedes(&self, xid: u64) -> bool {
        xid > self.xid || (xid == self.xid && self.after.0 < 0)
    }

    fn parse(text: &str) -> Place {
        let mut parts = text.splitn(4, ' ');
        let xid = parts.next().and_then(|x| x.parse().ok()).unwrap_or(0);
        match (parts.next().and_then(|r| r.parse().ok()), parts.next(), parts.next()) {
            (Some(rank), Some(k1), Some(k2)) => Place { xid, after: (rank, unhex(k1), unhex(k2)) },
            _ => Place::before(xid),
        }
    }

    fn text(&self) -> String {
        if self.after.0 < 0 {
            self.xid.to_string()
        } else {
            format!("{} {} {} {}", self.xid, self.after.0, hex(&self.after.1), hex(&self.after.2))
        }
    }
}

/// What a read asks for, in the order of receiving: the rows after a
/// place; those of one transaction after a place; or all the rows of
/// some transactions (open ones that have ended).
enum Reading<'a> {
    After(&'a Place),
    Within(&'a Place),
    Among(&'a [u64]),
}

/// Where receiving goes on from: every row up to `at` was received, but
/// for the rows of `open`: transactions that were still running when
/// reading passed them (a transaction id is taken before its commit, so
/// its rows can become visible after later ones), each with what of it was
/// read. A transaction that ends is read at the next round, and leaves
/// `open`. Kept as text in hub_state: the places, `;` between.
///
/// (Were the cursor kept before the oldest running transaction instead, a
/// member holding one open while flooding the hub would make every sync
/// read the same flood again, and never reach what follows it.) `open`
/// holds at most as many transactions as the server can run at once (its
/// connections and prepared transactions); `at` never moves back.
#[derive(Debug, Clone, PartialEq)]
struct Cursor {
    at: Place,
    open: Vec<Place>,
}

impl Cursor {
    fn parse(text: &str) -> Cursor {
        let mut places = text.split(';').map(Place::parse);
        let at = places.next().unwrap_or(Place::before(0));
        Cursor { at, open: places.collect() }
    }

    fn text(&self) -> String {
        std::iter::once(&self.at).chain(&self.open).map(Place::text).collect::<Vec<_>>().join(";")
    }
}

/// A text as hex digits (a cursor's keys may hold spaces), and back.
fn hex(text: &str) -> String {
    if text.is_empty() {
        return "-".into();
    }
    text.bytes().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> String {
    if text == "-" {
        return String::new();
    }
    let bytes: Vec<u8> = (0..text.len() / 2)
        .filter_map(|i| u8::from_str_radix(text.get(2 * i..2 * i + 2)?, 16).ok())
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// A row received from the hub, checked.
enum Incoming {
    Fix(Params),
    Counts(Params),
    /// A member's copy withdrawn (hub uid, member), or everyone's (member '').
    Retraction(String, String),
    Removal(String),
    Claim(String, String),
    Refused { member: Option<String>, uid: Option<String>, reason: String },
}

/// A received row as what it is, or why it is refused, and where it stands
/// in the order of receiving. Never panics on what the hub holds: every
/// column is read as what it may be.
fn check(row: &Row) -> (Place, Incoming) {
    let place = Place {
        xid: row
            .try_get::<_, Option<String>>(1)
            .ok()
            .flatten()
            .and_then(|x| x.parse().ok())
            .unwrap_or(0),
        after: (
            row.try_get::<_, Option<i32>>(2).ok().flatten().unwrap_or(0),
            row.try_get::<_, Option<String>>(3).ok().flatten().unwrap_or_default(),
            row.try_get::<_, Option<String>>(4).ok().flatten().unwrap_or_default(),
        ),
    };
    let text = |i: usize| -> std::result::Result<Option<String>, String> {
        row.try_get::<_, Option<String>>(i)
            .map_err(|_| format!("column {} is not UTF-8 text", row.columns()[i].name()))
    };
    let kind = match text(0) {
        Ok(Some(kind)) => kind,
        _ => return (place, refused(None, None, "a row of an unknown kind")),
    };
    // (for what is refused: the row's keys as ordered, cut to size)
    let member = text(6).ok().flatten().or_else(|| text(4).ok().flatten());
    let uid = text(5).ok().flatten().or_else(|| text(3).ok().flatten().filter(|k| !k.is_empty()));
    let item = match kind.as_str() {
        "fix" => check_fix(row).unwrap_or_else(|reason| refused(member, uid, &reason)),
        "oversized" => refused(member, uid, "a row larger than its limits"),
        "counts" => match (|| -> std::result::Result<Params, String> {
            let mut p = Params::default();
            p.set("hub_uid", required(text(5)?, "uid", 64)?);
            p.set("member", required(text(6)?, "member", 256)?);
            p.set("replica", required(text(7)?, "replica", 64)?);
            for (i, name) in ["learned", "sessions", "advised", "helped", "failed"].iter().enumerate() {
                let n: i64 = row
                    .try_get::<_, Option<i64>>(14 + i)
                    .ok()
                    .flatten()
                    .ok_or_else(|| format!("{name} is not a number"))?;
                p.set(name, n.clamp(0, 1_000_000).to_string());
            }
            Ok(p)
        })() {
            Ok(p) => Incoming::Counts(p),
            Err(reason) => refused(member, uid, &reason),
        },
        "retraction" => match (text(5), text(6)) {
            (Ok(Some(uid)), Ok(Some(member))) if uid.len() <= 64 && member.len() <= 256 => {
                Incoming::Retraction(uid, member)
            }
            _ => refused(member, uid, "a retraction without a uid or member"),
        },
        "removal" => match text(6) {
            Ok(Some(member)) if member.len() <= 256 => Incoming::Removal(member),
            _ => refused(None, None, "a removal without a member"),
        },
        "claim" => match (text(7), text(6)) {
            (Ok(Some(replica)), Ok(Some(member))) if replica.len() <= 64 && member.len() <= 256 => {
                Incoming::Claim(replica, member)
            }
            _ => refused(member, None, "an assignment without a replica or member"),
        },
        _ => refused(member, uid, "a row of an unknown kind"),
    };
    (place, item)
}

fn refused(member: Option<String>, uid: Option<String>, reason: &str) -> Incoming {
    Incoming::Refused {
        member,
        uid,
        reason: reason.to_owned(),
    }
}

/// A text field that must be there, within its limit.
fn required(value: Option<String>, name: &str, limit: usize) -> std::result::Result<String, String> {
    let value = value.ok_or_else(|| format!("{name} is missing"))?;
    if value.len() > limit {
        return Err(format!("{name} is longer than {limit} bytes"));
    }
    Ok(value)
}

/// A received fix, checked field by field: UTF-8 text within each field's
/// limit, a uid of 32 hex digits, a finite time, and a resolution that is
/// a fix's JSON (an object whose known fields have their types).
fn check_fix(row: &Row) -> std::result::Result<Incoming, String> {
    let mut p = Params::default();
    let mut total = 0;
    for (i, (name, limit)) in (5..).zip(FIELD_LIMITS) {
        let value: Option<String> = row
            .try_get(i)
            .map_err(|_| format!("{name} is not UTF-8 text"))?;
        let value = required(value, name, limit)?;
        total += value.len();
        p.set(if name == "uid" { "hub_uid" } else { name }, value);
    }
    // a laptop sends only a project's normalised remote: anything else (an
    // empty one would rank as every project's; free text would be named
    // in errkb's own voice) is not one
    let project = p.get("project").unwrap_or_default();
    if errkb::project::normalize_remote(&format!("https://{project}")).as_deref() != Some(project) {
        return Err("a project that is not a normalised git remote".into());
    }
    let uid = p.get("hub_uid").unwrap_or_default();
    if uid.len() != 32 || !uid.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
        return Err("a uid that is not 32 hex digits".into());
    }
    let resolution: String = row
        .try_get::<_, Option<String>>(12)
        .map_err(|_| "the resolution is not UTF-8 text".to_string())?
        .ok_or("the resolution is missing")?;
    total += resolution.len();
    if resolution.len() > MAX_RESOLUTION_BYTES || total > MAX_ROW_BYTES {
        return Err("a fix larger than 64 KB".into());
    }
    check_resolution(&resolution)?;
    p.set("resolution", resolution);
    let sent_at: Option<String> = row.try_get(13).map_err(|_| "the time is not text".to_string())?;
    let sent_at = sent_at.ok_or("a time that is not finite")?;
    if !looks_like_time(&sent_at) {
        return Err("a time out of range".into());
    }
    p.set("ts", sent_at);
    Ok(Incoming::Fix(p))
}

/// A fix's JSON: an object, with `resolvedBy` and `tool` as strings, and
/// the fields errkb reads of the types it reads them as (or null).
fn check_resolution(text: &str) -> std::result::Result<(), String> {
    use serde_json::Value;
    let value: Value = serde_json::from_str(text).map_err(|_| "the resolution is not JSON".to_string())?;
    let Value::Object(fields) = value else {
        return Err("the resolution is not a JSON object".into());
    };
    for required in ["resolvedBy", "tool"] {
        if !fields.get(required).is_some_and(Value::is_string) {
            return Err(format!("the resolution has no {required}"));
        }
    }
    for (name, value) in fields.iter().filter(|(_, v)| !v.is_null()) {
        let ok = match name.as_str() {
            "resolvedBy" | "tool" | "command" | "file" | "errorRaw" | "sessionId" => value.is_string(),
            "toolSequence" | "commands" | "changed" | "writes" => {
                value.as_array().is_some_and(|items| items.iter().all(Value::is_string))
            }
            "edits" => value.as_array().is_some_and(|items| {
                items.iter().all(|e| {
                    e.as_object()
                        .is_some_and(|e| e.values().all(|v| v.is_string() || v.is_null()))
                })
            }),
            _ => !value.is_object() || value.to_string().len() <= 4096,
        };
        if !ok {
            return Err(format!("the resolution's {name} is not of its type"));
        }
    }
    Ok(())
}

/// `YYYY-MM-DDTHH:MM:SS.mmmZ` in years 1970–9999.
fn looks_like_time(ts: &str) -> bool {
    let b = ts.as_bytes();
    b.len() == 24
        && b[4] == b'-'
        && b[10] == b'T'
        && b[23] == b'Z'
        && ts[..4].parse::<u32>().is_ok_and(|y| (1970..=9999).contains(&y))
}

/// Receive in rounds: each reads at most ROUND_ROWS rows (or
/// MAX_SYNC_BYTES of fix text) in one snapshot, applies them, and keeps
/// the cursor right after them, so that a hub with more than one round can
/// hold (a member's flood of rows) is received over several rounds and
/// syncs, instead of never.
fn receive(conn: &Connection, hub: &mut Hub, state: &State, selection: &Selection, report: &mut Report) -> Result<()> {
    let started = Instant::now();
    let mut cursor = Cursor::parse(&state.cursor);
    let mut applier = Applier::new(conn, selection)?;
    loop {
        let complete;
        (cursor, complete) = receive_round(hub, state, &cursor, &mut applier, report)?;
        applier.commit()?;
        if complete || started.elapsed() > RECEIVE_TIME {
            applier.finish(report)?;
            report.more_waits = !complete;
            State::record_success(conn, &cursor.text(), complete)?;
            return Ok(());
        }
        // (what a round applied stays applied: its cursor is kept)
        State::record_success(conn, &cursor.text(), false)?;
    }
}

/// How much one round may still read.
struct Budget {
    rows: usize,
    bytes: usize,
}

/// One round in one snapshot of the hub: first the open transactions that
/// have ended since, then the rows after the cursor; every row applied.
/// The cursor after it, and whether the snapshot was read to its end.
fn receive_round(
    hub: &mut Hub,
    state: &State,
    cursor: &Cursor,
    applier: &mut Applier<'_>,
    report: &mut Report,
) -> Result<(Cursor, bool)> {
    let replica = state.replica.clone();
    hub.with(async |c| {
        let tx = c
            .build_transaction()
            .isolation_level(tokio_postgres::IsolationLevel::RepeatableRead)
            .read_only(true)
            .start()
            .await
            .described()?;
        // The snapshot: below xmax, every transaction has ended but those
        // still running (ours or another database's: it cannot tell).
        let snapshot = tx
            .query_one(
                "SELECT pg_snapshot_xmax(pg_current_snapshot())::text, \
                        ARRAY(SELECT x::text FROM pg_snapshot_xip(pg_current_snapshot()) AS x)",
                &[],
            )
            .await
            .described()?;
        let number = |text: &str| -> Result<u64> {
            text.parse().context("the hub gave a transaction id that is not a number")
        };
        let xmax = number(&snapshot.get::<_, String>(0))?;
        let running: HashSet<u64> = snapshot
            .get::<_, Vec<String>>(1)
            .iter()
            .map(|x| number(x))
            .collect::<Result<_>>()?;
        let mut budget = Budget { rows: ROUND_ROWS, bytes: MAX_SYNC_BYTES };
        // the open transactions that have ended since: one read partly
        // read first, then all the others in one read
        let (ended, mut open): (Vec<Place>, Vec<Place>) =
            cursor.open.iter().cloned().partition(|p| !running.contains(&p.xid));
        let (partly, whole): (Vec<Place>, Vec<Place>) = ended.into_iter().partition(|p| p.after.0 >= 0);
        let mut whole: Vec<u64> = whole.iter().map(|p| p.xid).collect();
        for (i, place) in partly.iter().enumerate() {
            if let Some(stop) = read_in_order(&tx, &Reading::Within(place), &replica, &mut budget, applier, report).await? {
                open.push(stop);
                open.extend(partly[i + 1..].iter().cloned());
                open.extend(whole.iter().copied().map(Place::before));
                open.sort_by_key(|p| p.xid);
                tx.commit().await.described()?;
                return Ok((Cursor { at: cursor.at.clone(), open }, false));
            }
        }
        whole.sort_unstable();
        if !whole.is_empty() {
            if let Some(stop) = read_in_order(&tx, &Reading::Among(&whole), &replica, &mut budget, applier, report).await? {
                open.extend(whole.iter().copied().filter(|x| *x > stop.xid).map(Place::before));
                open.push(stop);
                open.sort_by_key(|p| p.xid);
                tx.commit().await.described()?;
                return Ok((Cursor { at: cursor.at.clone(), open }, false));
            }
        }
        let stop = read_in_order(&tx, &Reading::After(&cursor.at), &replica, &mut budget, applier, report).await?;
        tx.commit().await.described()?;
        let at = stop.clone().unwrap_or(Place::before(xmax.max(cursor.at.xid)));
        // what was still running between the old place and the new: its
        // rows are read when it has ended
        let mut passed: Vec<u64> = running.into_iter().filter(|x| cursor.at.precedes(*x) && *x < at.xid).collect();
        passed.sort_unstable();
        open.extend(passed.into_iter().map(Place::before));
        open.sort_by_key(|p| p.xid);
        Ok((Cursor { at, open }, stop.is_none()))
    })
}

/// One table's rows, fetched FETCH_BATCH at a time.
struct Reader {
    rank: i32,
    portal: tokio_postgres::Portal,
    rows: std::collections::VecDeque<Row>,
    done: bool,
}

/// Apply the rows `reading` asks for in the order of receiving, until the
/// budget is spent: the place of the last row applied then, or None when
/// all were applied.
async fn read_in_order(
    tx: &tokio_postgres::Transaction<'_>,
    reading: &Reading<'_>,
    replica: &str,
    budget: &mut Budget,
    applier: &mut Applier<'_>,
    report: &mut Report,
) -> Result<Option<Place>> {
    let mut readers = Vec::new();
    for source in &SOURCES {
        let Some((sql, params)) = source.query(reading, replica) else { continue };
        let statement = tx.prepare(&sql).await.described()?;
        let params: Vec<&(dyn tokio_postgres::types::ToSql + Sync)> =
            params.iter().map(|p| p as &(dyn tokio_postgres::types::ToSql + Sync)).collect();
        let portal = tx.bind(&statement, &params).await.described()?;
        readers.push(Reader { rank: source.rank, portal, rows: Default::default(), done: false });
    }
    let xid_of = |row: &Row| -> u64 {
        row.try_get::<_, Option<String>>(1).ok().flatten().and_then(|x| x.parse().ok()).unwrap_or(0)
    };
    loop {
        for reader in readers.iter_mut().filter(|r| r.rows.is_empty() && !r.done) {
            let rows = tx.query_portal(&reader.portal, FETCH_BATCH).await.described()?;
            reader.done = rows.len() < FETCH_BATCH as usize;
            reader.rows.extend(rows);
        }
        let Some(next) = readers
            .iter_mut()
            .filter_map(|r| Some(((xid_of(r.rows.front()?), r.rank), r)))
            .min_by_key(|(key, _)| *key)
            .and_then(|(_, r)| r.rows.pop_front())
        else {
            return Ok(None);
        };
        let (place, item) = check(&next);
        if let Incoming::Fix(p) = &item {
            budget.bytes = budget.bytes.saturating_sub(p.get("resolution").map_or(0, str::len));
        }
        applier.apply(item, report)?;
        budget.rows -= 1;
        if budget.rows == 0 || budget.bytes == 0 {
            return Ok(Some(place));
        }
    }
}

/// Stores what is received, in short write transactions.
struct Applier<'c> {
    conn: &'c Connection,
    selection: &'c Selection,
    fix: script::Repeated,
    counts: script::Repeated,
    withdrawal: script::Repeated,
    removal: script::Repeated,
    claim: script::Repeated,
    batch: Option<Instant>,
    fixes_before: i64,
    /// Anything of the team's applied: its standing is made again.
    changed: bool,
    /// Hub uids retracted for everyone in this sync, done once each.
    retracted: HashSet<String>,
    /// How many fixes each member has here (MAX_FIXES_PER_MEMBER).
    per_member: HashMap<String, i64>,
    /// The laptops each member has counts from here (MAX_REPLICAS_PER_MEMBER).
    replicas: HashMap<String, HashSet<String>>,
}

impl<'c> Applier<'c> {
    fn new(conn: &'c Connection, selection: &'c Selection) -> Result<Self> {
        let per_member = conn
            .prepare("SELECT member, count(*) FROM team_fixes GROUP BY member")?
            .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))?
            .collect::<rusqlite::Result<_>>()?;
        let mut replicas: HashMap<String, HashSet<String>> = HashMap::new();
        for laptop in conn
            .prepare("SELECT DISTINCT member, replica FROM team_counts")?
            .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))?
        {
            let (member, replica) = laptop?;
            replicas.entry(member).or_default().insert(replica);
        }
        Ok(Applier {
            conn,
            selection,
            fix: script::Repeated::new(RECEIVE_FIX_SQL, "hub"),
            counts: script::Repeated::new(RECEIVE_COUNTS_SQL, "hub"),
            withdrawal: script::Repeated::new(RECEIVE_WITHDRAWAL_SQL, "hub"),
            removal: script::Repeated::new(RECEIVE_REMOVAL_SQL, "hub"),
            claim: script::Repeated::new(RECEIVE_CLAIM_SQL, "hub"),
            batch: None,
            fixes_before: team_fix_count(conn)?,
            changed: false,
            retracted: HashSet::new(),
            per_member,
            replicas,
        })
    }

    /// The batch under way committed (the end of a round).
    fn commit(&mut self) -> Result<()> {
        if self.batch.take().is_some() {
            self.conn.execute_batch("COMMIT")?;
        }
        Ok(())
    }

    fn apply(&mut self, item: Incoming, report: &mut Report) -> Result<()> {
        let conn = self.conn;
        if self.batch.is_none() {
            conn.execute_batch("BEGIN IMMEDIATE")?;
            self.batch = Some(Instant::now());
        }
        match item {
            Incoming::Fix(p) => {
                let member = p.get("member").unwrap_or_default().to_owned();
                let held = self.per_member.get(&member).copied().unwrap_or(0);
                if !self.selection.shares(p.get("project").unwrap_or_default(), None) {
                    report.not_shared += 1;
                } else if held >= MAX_FIXES_PER_MEMBER {
                    let reason = format!("more than {MAX_FIXES_PER_MEMBER} fixes from one member");
                    record_refused(conn, Some(&member), p.get("hub_uid"), &reason)?;
                    report.refused += 1;
                } else {
                    // (counted only when stored: a resend, a retracted or
                    // withdrawn copy does not use up the member's room)
                    let copies = |conn: &Connection| -> Result<i64> {
                        Ok(conn.query_row(
                            "SELECT count(*) FROM team_fixes WHERE hub_uid = ?1 AND member = ?2",
                            rusqlite::params![p.get("hub_uid"), member],
                            |r| r.get(0),
                        )?)
                    };
                    let before = copies(conn)?;
                    self.fix.run(conn, &p, &mut std::io::sink())?;
                    let stored = copies(conn)? - before;
                    if stored > 0 {
                        *self.per_member.entry(member).or_insert(0) += stored;
                    }
                    self.changed = true;
                }
            }
            Incoming::Counts(p) => {
                let member = p.get("member").unwrap_or_default().to_owned();
                let replica = p.get("replica").unwrap_or_default().to_owned();
                let laptops = self.replicas.entry(member.clone()).or_default();
                if !laptops.contains(&replica) && laptops.len() >= MAX_REPLICAS_PER_MEMBER {
                    let reason = format!("counts from more than {MAX_REPLICAS_PER_MEMBER} laptops of one member");
                    record_refused(conn, Some(&member), p.get("hub_uid"), &reason)?;
                    report.refused += 1;
                } else {
                    laptops.insert(replica);
                    self.counts.run(conn, &p, &mut std::io::sink())?;
                    self.changed = true;
                    report.received_counts += 1;
                }
            }
            Incoming::Retraction(uid, member) if member.is_empty() => {
                self.changed = true;
                if self.retracted.insert(uid.clone()) {
                    retract_everywhere(conn, &uid)?;
                    report.received_retractions += 1;
                }
            }
            Incoming::Retraction(uid, member) => {
                let mut p = Params::default();
                p.set("hub_uid", uid);
                p.set("member", member);
                self.withdrawal.run(conn, &p, &mut std::io::sink())?;
                self.changed = true;
                report.received_retractions += 1;
            }
            Incoming::Removal(member) => {
                let mut p = Params::default();
                p.set("member", member);
                self.removal.run(conn, &p, &mut std::io::sink())?;
                self.changed = true;
                report.removed_members += 1;
            }
            Incoming::Claim(replica, member) => {
                let mut p = Params::default();
                p.set("replica", replica);
                p.set("member", member);
                self.claim.run(conn, &p, &mut std::io::sink())?;
                self.changed = true;
            }
            Incoming::Refused { member, uid, reason } => {
                record_refused(conn, member.as_deref(), uid.as_deref(), &reason)?;
                report.refused += 1;
            }
        }
        if self.batch.is_some_and(|t| t.elapsed() >= APPLY_BATCH) {
            conn.execute_batch("COMMIT")?;
            self.batch = None;
            std::thread::sleep(APPLY_GAP);
        }
        Ok(())
    }

    /// The last batch committed; the team's fixes nobody stands behind any
    /// more removed; what the team says of each fix made again; what was
    /// refused trimmed to the newest rows.
    fn finish(mut self, report: &mut Report) -> Result<()> {
        let conn = self.conn;
        self.commit()?;
        let tx = Transaction::new_unchecked(conn, TransactionBehavior::Immediate)?;
        if self.changed {
            let orphans: Vec<String> = tx
                .prepare(UNSUPPORTED_SQL)?
                .query_map([], |r| r.get(0))?
                .collect::<rusqlite::Result<_>>()?;
            let mut drop = script::Repeated::new(DROP_FIX_SQL, "hub");
            for uid in orphans {
                let mut p = Params::default();
                p.set("uid", uid);
                drop.run(&tx, &p, &mut std::io::sink())?;
            }
            tx.execute_batch(STANDING_SQL)?;
        }
        tx.execute(
            "DELETE FROM hub_refused WHERE id <= (SELECT max(id) FROM hub_refused) - ?1",
            [REFUSED_KEPT],
        )?;
        tx.commit()?;
        report.received_fixes = (team_fix_count(conn)? - self.fixes_before).max(0) as usize;
        Ok(())
    }
}

/// A received row that was not stored, kept for status and doctor (its
/// texts made inert and cut: a hostile row's escapes never reach a
/// terminal).
fn record_refused(conn: &Connection, member: Option<&str>, uid: Option<&str>, reason: &str) -> Result<()> {
    let clean = |text: &str, bytes: usize| truncate(&errkb::text::redact::redact_private(text), bytes);
    conn.execute(
        "INSERT INTO hub_refused (ts, member, hub_uid, reason) VALUES (utc_now(), ?1, ?2, ?3)",
        rusqlite::params![member.map(|m| clean(m, 256)), uid.map(|u| clean(u, 64)), clean(reason, 300)],
    )?;
    Ok(())
}

fn team_fix_count(conn: &Connection) -> Result<i64> {
    Ok(conn.query_row("SELECT count(*) FROM team_fixes", [], |r| r.get(0))?)
}

fn truncate(text: &str, bytes: usize) -> String {
    let mut end = text.len().min(bytes);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_owned()
}

/// A retraction for everyone (by the hub's owner): the fix, whatever this
/// machine calls it, is retracted here too and never learned, received or
/// advised again.
fn retract_everywhere(conn: &Connection, hub_uid: &str) -> Result<()> {
    let mut uids: Vec<String> = conn
        .prepare(
            "SELECT uid FROM fixes WHERE uid = ?1 \
             UNION SELECT f.uid FROM team_fixes AS t JOIN fixes AS f ON f.id = t.fix_id WHERE t.hub_uid = ?1",
        )?
        .query_map([hub_uid], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    if !uids.iter().any(|u| u == hub_uid) {
        uids.push(hub_uid.to_owned());
    }
    for uid in uids {
        let mut p = Params::default();
        p.set("uid", uid);
        p.set("sent", "1");
        script::run(conn, RETRACT_SQL, &p, &mut std::io::sink())?;
        script::run(conn, DROP_FIX_SQL, &p, &mut std::io::sink())?;
    }
    Ok(())
}

/// A fix here, by its id (errkb search --json shows it) or its uid: its
/// uid (a hash of its content), and the copies its senders gave the hub
/// (uid and member each).
pub fn fix_copies(conn: &Connection, fix: &str) -> Result<(String, Vec<(String, String)>)> {
    let uid: Option<String> = conn
        .query_row(
            "SELECT uid FROM fixes WHERE CAST(id AS TEXT) = ?1 OR uid = ?1",
            [fix],
            |r| r.get(0),
        )
        .optional()?;
    let Some(uid) = uid else {
        bail!("no fix {fix} here (errkb search --json shows a fix's id)");
    };
    let copies: Vec<(String, String)> = conn
        .prepare(
            "SELECT DISTINCT t.hub_uid, t.member FROM team_fixes AS t JOIN fixes AS f ON f.id = t.fix_id \
             WHERE f.uid = ?1",
        )?
        .query_map([&uid], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    Ok((uid, copies))
}

/// `errkb forget FIX`: the fix retracted here now (never learned, received
/// or advised again), and this member's copy withdrawn from the hub at the
/// next sync. Returns its uid.
pub fn forget(conn: &Connection, fix: &str) -> Result<String> {
    let (uid, _) = fix_copies(conn, fix)?;
    let mut p = Params::default();
    p.set("uid", uid.clone());
    p.set("sent", "0");
    // (a transaction rolls back when dropped uncommitted)
    let tx = Transaction::new_unchecked(conn, TransactionBehavior::Immediate)?;
    script::run(&tx, RETRACT_SQL, &p, &mut std::io::sink())?;
    script::run(&tx, DROP_FIX_SQL, &p, &mut std::io::sink())?;
    tx.commit()?;
    Ok(uid)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_resolution_must_be_a_fixs_json() {
        assert!(check_resolution(r#"{"resolvedBy":"success_after_error","tool":"Bash","command":"make"}"#).is_ok());
        assert!(check_resolution(r#"{"resolvedBy":"x","tool":"Bash","commands":["a","b"],"edits":[{"file":"a","before":"x","after":null}]}"#).is_ok());
        for bad in [
            "[]",
            "not json",
            r#"{"tool":"Bash"}"#,
            r#"{"resolvedBy":1,"tool":"Bash"}"#,
            r#"{"resolvedBy":"x","tool":"Bash","commands":"rm -rf /"}"#,
            r#"{"resolvedBy":"x","tool":"Bash","commands":[{"a":1}]}"#,
            r#"{"resolvedBy":"x","tool":"Bash","edits":[["a"]]}"#,
        ] {
            assert!(check_resolution(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn times_are_checked() {
        assert!(looks_like_time("2026-11-27T09:00:00.123Z"));
        for bad in ["", "infinity", "294276-01-01T00:00:00.000Z", "0001-01-01T00:00:00.000Z", "2026-11-27"] {
            assert!(!looks_like_time(bad), "{bad}");
        }
    }

    #[test]
    fn a_cursor_is_kept_as_text() {
        let places = [
            Place::before(900),
            Place { xid: 900, after: (1, "a".repeat(32), "alice smith".into()) },
            Place { xid: 7, after: (4, String::new(), "x/y;z".into()) },
        ];
        for place in &places {
            assert_eq!(Place::parse(&place.text()), *place);
        }
        let cursor = Cursor { at: places[1].clone(), open: vec![places[2].clone(), Place::before(5)] };
        assert_eq!(Cursor::parse(&cursor.text()), cursor);
        // a cursor kept by an older errkb: one place
        assert_eq!(Cursor::parse("900"), Cursor { at: Place::before(900), open: Vec::new() });
        assert_eq!(Cursor::parse("0").at.xid, 0);
        assert_eq!(Cursor::parse("garbage").at.xid, 0);
    }

    #[test]
    fn a_running_transaction_at_the_place_read_from_is_after_it() {
        assert!(Place::before(900).precedes(900));
        assert!(!Place { xid: 900, after: (0, String::new(), String::new()) }.precedes(900));
        assert!(Place { xid: 900, after: (0, String::new(), String::new()) }.precedes(901));
        assert!(!Place::before(900).precedes(899));
    }
}
