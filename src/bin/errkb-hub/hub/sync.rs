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
//!   A sync applies every row its snapshot shows at or above the cursor,
//!   and moves the cursor only to the oldest transaction still running
//!   then: rows of transactions that were running are received by a later
//!   sync, and rows applied twice change nothing.
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
        let tx = c.transaction().await.described()?;
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

/// Everything written after the cursor, in the order it was written (a
/// transaction's claims, fixes, counts, retractions, removals; within
/// them by uid and member), each text only when it is within the limits
/// (a row past them comes as `oversized`, its texts left on the hub: what
/// is held in memory is bounded whatever the hub holds). $1: the cursor's
/// transaction; $5, $6, $7: where in that transaction the last round
/// stopped (rank, uid, member; rank -1: before its first row). $2: this
/// replica (its own rows are not received back); $3, $4: the limits on a
/// fix's resolution and on a whole row.
const RECEIVE_SQL: &str = "\
SELECT kind, xid::text, rank, k1, k2, uid, member, replica, project, error_key, signature, headline, resolution,
       sent_at, learned, sessions, advised, helped, failed
FROM (
  SELECT 0 AS rank, CASE WHEN fits THEN 'claim' ELSE 'oversized' END AS kind, xid, k1, k2,
         CASE WHEN fits THEN NULL END AS uid, CASE WHEN fits THEN member END AS member,
         CASE WHEN fits THEN replica END AS replica, NULL::text AS project,
         NULL::text AS error_key, NULL::text AS signature, NULL::text AS headline, NULL::text AS resolution,
         NULL::text AS sent_at, NULL::bigint AS learned, NULL::bigint AS sessions, NULL::bigint AS advised,
         NULL::bigint AS helped, NULL::bigint AS failed
  FROM (SELECT *, left(replica, 64) AS k1, left(member, 256) AS k2,
               octet_length(replica) <= 64 AND octet_length(member) <= 256 AS fits
        FROM errkb.replica_claims WHERE xid >= $1::text::xid8) AS c
  UNION ALL
  SELECT 1, CASE WHEN fits THEN 'fix' ELSE 'oversized' END, xid, k1, k2,
         CASE WHEN fits THEN uid END, CASE WHEN fits THEN member END, CASE WHEN fits THEN replica END,
         CASE WHEN fits THEN project END, CASE WHEN fits THEN error_key END, CASE WHEN fits THEN signature END,
         CASE WHEN fits THEN headline END, CASE WHEN fits THEN resolution::text END,
         CASE WHEN fits AND isfinite(sent_at)
              THEN to_char(sent_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"') END,
         NULL, NULL, NULL, NULL, NULL
  FROM (SELECT *, left(uid, 64) AS k1, left(member, 256) AS k2,
               octet_length(uid) <= 64 AND octet_length(member) <= 256 AND octet_length(replica) <= 64
               AND octet_length(project) <= 400 AND octet_length(error_key) <= 1000
               AND octet_length(signature) <= 2000 AND octet_length(headline) <= 2000
               AND octet_length(fix_key) <= 4000 AND octet_length(resolution::text) <= $3
               AND octet_length(resolution::text) + octet_length(headline) + octet_length(signature)
                   + octet_length(error_key) + octet_length(project) + octet_length(fix_key) <= $4 AS fits
        FROM errkb.fixes WHERE xid >= $1::text::xid8 AND replica IS DISTINCT FROM $2) AS f
  UNION ALL
  SELECT 2, CASE WHEN fits THEN 'counts' ELSE 'oversized' END, xid, k1, k2,
         CASE WHEN fits THEN uid END, CASE WHEN fits THEN member END, CASE WHEN fits THEN replica END,
         NULL, NULL, NULL, NULL, NULL, NULL, learned, sessions, advised, helped, failed
  FROM (SELECT *, left(uid, 64) AS k1, left(member, 256) || '/' || left(replica, 64) AS k2,
               octet_length(uid) <= 64 AND octet_length(member) <= 256 AND octet_length(replica) <= 64 AS fits
        FROM errkb.counts WHERE xid >= $1::text::xid8 AND replica IS DISTINCT FROM $2) AS n
  UNION ALL
  SELECT 3, CASE WHEN fits THEN 'retraction' ELSE 'oversized' END, xid, k1, k2,
         CASE WHEN fits THEN uid END, CASE WHEN fits THEN member END,
         NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL
  FROM (SELECT *, left(uid, 64) AS k1, left(member, 256) AS k2,
               octet_length(uid) <= 64 AND octet_length(member) <= 256 AS fits
        FROM errkb.retractions WHERE xid >= $1::text::xid8) AS r
  UNION ALL
  SELECT 4, CASE WHEN fits THEN 'removal' ELSE 'oversized' END, xid, '', k2,
         NULL, CASE WHEN fits THEN member END,
         NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL
  FROM (SELECT *, left(member, 256) AS k2, octet_length(member) <= 256 AS fits
        FROM errkb.removed_members WHERE xid >= $1::text::xid8) AS m
) AS written
WHERE xid > $1::text::xid8 OR (rank, k1, k2) > ($5::int, $6::text, $7::text)
ORDER BY xid, rank, k1, k2";

/// Where receiving goes on from: every row of a transaction below `xid`
/// was received, and of the rows of `xid` those up to `after` (rank, uid,
/// member), when a round stopped inside it. Kept as text in hub_state:
/// `xid` or `xid rank uid member`.
#[derive(Debug, Clone, PartialEq)]
struct Cursor {
    xid: u64,
    after: (i32, String, String),
}

impl Cursor {
    fn parse(text: &str) -> Cursor {
        let mut parts = text.splitn(4, ' ');
        let xid = parts.next().and_then(|x| x.parse().ok()).unwrap_or(0);
        let after = match (parts.next().and_then(|r| r.parse().ok()), parts.next(), parts.next()) {
            (Some(rank), Some(k1), Some(k2)) => (rank, unhex(k1), unhex(k2)),
            _ => (-1, String::new(), String::new()),
        };
        Cursor { xid, after }
    }

    fn text(&self) -> String {
        if self.after.0 < 0 {
            self.xid.to_string()
        } else {
            format!("{} {} {} {}", self.xid, self.after.0, hex(&self.after.1), hex(&self.after.2))
        }
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
fn check(row: &Row) -> (Cursor, Incoming) {
    let place = Cursor {
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

/// Receive in rounds: each reads at most ROUND_ROWS rows in one snapshot
/// and goes on right after what it applied, so that a hub with more than
/// one round can hold (a member's flood of small rows) is received over
/// several rounds, within the time a sync has, instead of never.
///
/// Two places are kept apart: where the next round reads from, and the
/// cursor kept for the next sync. They part when a round stops past a
/// transaction that was still running (its rows may commit behind where
/// reading goes on): the rounds of this sync go on reading, and the kept
/// cursor stays before that transaction, so the next sync reads its rows.
/// Were both the same, such a round would start over from the running
/// transaction each time, and read the same rows for as long as it runs.
fn receive(conn: &Connection, hub: &mut Hub, state: &State, selection: &Selection, report: &mut Report) -> Result<()> {
    let started = Instant::now();
    let mut reading = Cursor::parse(&state.cursor);
    let mut kept = reading.clone();
    let mut applier = Applier::new(conn, selection)?;
    loop {
        let round = receive_round(hub, state, &reading, &mut applier, report)?;
        applier.commit()?;
        if kept == reading {
            kept = round.kept;
        }
        reading = round.next;
        if round.complete || started.elapsed() > RECEIVE_TIME {
            applier.finish(report)?;
            report.more_waits = !round.complete;
            State::record_success(conn, &kept.text(), round.complete)?;
            return Ok(());
        }
        // (what a round applied stays applied: its cursor is kept)
        State::record_success(conn, &kept.text(), false)?;
    }
}

/// What one round of receiving did.
struct Round {
    /// Where the next round reads from.
    next: Cursor,
    /// Every row before this was received and is final.
    kept: Cursor,
    /// The snapshot's rows were all read.
    complete: bool,
}

/// One round: the rows after `cursor` in one snapshot of the hub, at most
/// ROUND_ROWS of them (or MAX_SYNC_BYTES of fix text), applied.
fn receive_round(
    hub: &mut Hub,
    state: &State,
    cursor: &Cursor,
    applier: &mut Applier<'_>,
    report: &mut Report,
) -> Result<Round> {
    let replica = state.replica.clone();
    let limits = (MAX_RESOLUTION_BYTES as i32, MAX_ROW_BYTES as i32);
    hub.with(async |c| {
        let tx = c
            .build_transaction()
            .isolation_level(tokio_postgres::IsolationLevel::RepeatableRead)
            .read_only(true)
            .start()
            .await
            .described()?;
        // The snapshot: every row it shows after the cursor is applied; the
        // transactions it saw running (ours or another database's: it
        // cannot tell) have rows a later round reads, so the cursor never
        // passes the oldest of them.
        let horizon: u64 = tx
            .query_one(
                "SELECT coalesce((SELECT x::text FROM pg_snapshot_xip(pg_current_snapshot()) AS x ORDER BY x LIMIT 1), \
                                 pg_snapshot_xmax(pg_current_snapshot())::text)",
                &[],
            )
            .await
            .described()?
            .get::<_, String>(0)
            .parse()
            .context("the hub gave a transaction id that is not a number")?;
        let statement = tx.prepare(RECEIVE_SQL).await.described()?;
        let from = cursor.xid.to_string();
        let portal = tx
            .bind(
                &statement,
                &[&from, &replica, &limits.0, &limits.1, &cursor.after.0, &cursor.after.1, &cursor.after.2],
            )
            .await
            .described()?;
        let mut rows_read = 0usize;
        let mut bytes_read = 0usize;
        let mut stopped: Option<Cursor> = None;
        'fetch: loop {
            let rows = tx.query_portal(&portal, FETCH_BATCH).await.described()?;
            let last = rows.len() < FETCH_BATCH as usize;
            for row in &rows {
                let (place, item) = check(row);
                if let Incoming::Fix(p) = &item {
                    bytes_read += p.get("resolution").map_or(0, str::len);
                }
                applier.apply(item, report)?;
                rows_read += 1;
                if rows_read >= ROUND_ROWS || bytes_read >= MAX_SYNC_BYTES {
                    stopped = Some(place);
                    break 'fetch;
                }
            }
            if last {
                break;
            }
        }
        tx.commit().await.described()?;
        let from_horizon = Cursor { xid: horizon.max(cursor.xid), after: (-1, String::new(), String::new()) };
        Ok(match stopped {
            // inside what is final: go on right after it, and keep it
            Some(place) if place.xid < horizon => Round { kept: place.clone(), next: place, complete: false },
            // past a transaction that may still commit rows behind: go
            // on reading, but keep the cursor before that transaction
            Some(place) => Round { next: place, kept: from_horizon, complete: false },
            None => Round { next: from_horizon.clone(), kept: from_horizon, complete: true },
        })
    })
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
                    self.fix.run(conn, &p)?;
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
                    self.counts.run(conn, &p)?;
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
                self.withdrawal.run(conn, &p)?;
                self.changed = true;
                report.received_retractions += 1;
            }
            Incoming::Removal(member) => {
                let mut p = Params::default();
                p.set("member", member);
                self.removal.run(conn, &p)?;
                self.changed = true;
                report.removed_members += 1;
            }
            Incoming::Claim(replica, member) => {
                let mut p = Params::default();
                p.set("replica", replica);
                p.set("member", member);
                self.claim.run(conn, &p)?;
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
                drop.run(&tx, &p)?;
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
        for cursor in [
            Cursor { xid: 900, after: (-1, String::new(), String::new()) },
            Cursor { xid: 900, after: (1, "a".repeat(32), "alice smith".into()) },
            Cursor { xid: 7, after: (4, String::new(), "x/y".into()) },
        ] {
            assert_eq!(Cursor::parse(&cursor.text()), cursor);
        }
        assert_eq!(Cursor::parse("0").xid, 0);
        assert_eq!(Cursor::parse("garbage").xid, 0);
    }
}
