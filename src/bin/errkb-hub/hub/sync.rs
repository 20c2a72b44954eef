//! The protocol: send what the hub lacks, then receive what was written
//! since the cursor. Why it neither loses nor double-counts:
//!
//! - **Stable ids.** A fix is its `uid` everywhere; the hub keeps the first
//!   row sent for a uid and ignores the rest, so a resend, or the same fix
//!   learned on two laptops, is one row.
//! - **Counts are per replica and only grow.** Each replica sends its own
//!   running totals of each fix; the hub and every receiver keep the larger
//!   of old and new, and a fix's count is the sum over replicas. A resend,
//!   a sync killed half-way and sent again, or two syncs of one replica at
//!   once leave the same numbers.
//! - **Sending is one hub transaction**, marked as sent locally only after
//!   it committed: a sync killed before the mark sends the same again.
//! - **The receive cursor follows commits, not ids**: see
//!   sql/hub/schema.sql. What is received is applied idempotently, and the
//!   cursor moves only after all of it is stored, so a sync killed half-way
//!   receives it again.

use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use rusqlite::{Connection, OptionalExtension, Transaction, TransactionBehavior};

use super::client::{Described, Hub};
use super::project::{Remotes, Selection};
use crate::runtime::script::{self, Params};

/// The hub schema version this errkb speaks (sql/hub/schema.sql's).
pub const HUB_SCHEMA_VERSION: i64 = 1;
pub const HUB_SCHEMA_SQL: &str = include_str!("../../../../sql/hub/schema.sql");
pub const HUB_GRANTS_SQL: &str = include_str!("../../../../sql/hub/grants.sql");
const OUTBOX_SQL: &str = include_str!("../../../../sql/hub/outbox.sql");
const RECEIVE_FIX_SQL: &str = include_str!("../../../../sql/hub/receive_fix.sql");
const RECEIVE_COUNTS_SQL: &str = include_str!("../../../../sql/hub/receive_counts.sql");
pub const FORGET_SQL: &str = include_str!("../../../../sql/hub/forget.sql");

/// A received fix's fields, in the order the receiving query selects them
/// (sql/hub/receive_fix.sql's parameters).
const RECEIVED_FIX_FIELDS: [&str; 7] = [
    "uid",
    "project",
    "error_key",
    "signature",
    "headline",
    "resolution",
    "ts",
];
/// Rows per statement sent to the hub.
const SEND_CHUNK: usize = 5_000;
/// Texts larger than this, received from the hub, are refused: nothing
/// errkb writes comes near it, and a row that does is not a fix.
const MAX_RESOLUTION_BYTES: usize = 64 * 1024;
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

    fn record_success(conn: &Connection, cursor: &str) -> Result<()> {
        conn.execute(
            "UPDATE hub_state SET cursor = ?1, last_sync = utc_now(), last_error = NULL, failures = 0, next_try = NULL",
            [cursor],
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

/// The hub's schema version, and a clear error when this errkb cannot
/// speak it.
pub fn check_hub_schema(hub: &mut Hub) -> Result<i64> {
    let version: Option<String> = hub.with(None, async |c| {
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
        Ok(row.map(|r| r.get(0)))
    })?;
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
             run errkb hub init {} as the database's owner to upgrade it",
            hub.info.display,
            hub.info.display
        );
    }
    Ok(version)
}

#[derive(Debug, Default)]
pub struct Report {
    pub sent_fixes: usize,
    pub sent_counts: usize,
    pub sent_retractions: usize,
    pub received_fixes: usize,
    pub received_counts: usize,
    pub received_retractions: usize,
    /// Rows received that were not stored: retracted, unshared projects,
    /// malformed or oversized.
    pub refused: usize,
    pub not_shared: usize,
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "sent {} fixes, {} counts, {} retractions; received {} fixes, {} counts, {} retractions",
            self.sent_fixes,
            self.sent_counts,
            self.sent_retractions,
            self.received_fixes,
            self.received_counts,
            self.received_retractions
        )?;
        if self.refused > 0 {
            write!(f, "; {} received rows refused (malformed or oversized)", self.refused)?;
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
            let local = super::project::folder(&project);
            let relative = |text: String| relative_to_project(&text, &project, local.as_deref());
            items.push(Outgoing::Fix {
                fix_id,
                uid,
                project: remote,
                error_key: outgoing_text(row.get(4)?),
                signature: outgoing_text(row.get(5)?),
                headline: relative(outgoing_text(row.get(6)?)),
                resolution: relative(outgoing_text(row.get(7)?)),
                fix_key: row.get(8)?,
            });
        } else {
            let counts = [row.get(4)?, row.get(5)?, row.get(6)?, row.get(7)?, row.get(8)?];
            items.push(Outgoing::Counts { fix_id, uid, counts });
        }
    }
    Ok((items, not_shared))
}

/// Secrets and the home folder out, again, before anything leaves.
fn outgoing_text(text: String) -> String {
    errkb::text::redact::redact_private(&errkb::text::redact::redact_secrets(&text)).into_owned()
}

/// Paths inside the project made relative: the project's folder, as
/// stored (`~/work/shop`) or in full, is dropped from the front of a path.
fn relative_to_project(text: &str, project: &str, folder: Option<&std::path::Path>) -> String {
    let mut out = text.to_owned();
    let mut prefixes = vec![project.to_owned()];
    if let Some(folder) = folder {
        prefixes.push(folder.display().to_string());
    }
    for prefix in prefixes.iter().filter(|p| p.len() > 1) {
        out = out.replace(&format!("{prefix}/"), "");
    }
    out
}

/// Send, then receive. The caller has checked the hub's schema.
pub fn sync(conn: &Connection, hub: &mut Hub, state: &State, selection: &Selection) -> Result<Report> {
    let mut report = Report::default();
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
    hub.with(Some(Duration::from_secs(300)), async |c| {
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
            tx.execute(
                "INSERT INTO errkb.fixes (uid, project, error_key, signature, headline, resolution, fix_key, sent_by) \
                 SELECT u.uid, u.project, u.error_key, u.signature, u.headline, u.resolution::jsonb, u.fix_key, $8 \
                 FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[]) \
                      AS u(uid, project, error_key, signature, headline, resolution, fix_key) \
                 WHERE NOT EXISTS (SELECT 1 FROM errkb.retractions AS r WHERE r.uid = u.uid) \
                 ON CONFLICT (uid) DO NOTHING",
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
                        col.push(*n);
                    }
                }
            }
            tx.execute(
                "INSERT INTO errkb.counts (uid, replica, learned, sessions, advised, helped, failed) \
                 SELECT u.uid, $7, u.learned, u.sessions, u.advised, u.helped, u.failed \
                 FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[]) \
                      AS u(uid, learned, sessions, advised, helped, failed) \
                 WHERE EXISTS (SELECT 1 FROM errkb.fixes AS f WHERE f.uid = u.uid) \
                 ON CONFLICT (uid, replica) DO UPDATE SET \
                   learned = greatest(errkb.counts.learned, excluded.learned), \
                   sessions = greatest(errkb.counts.sessions, excluded.sessions), \
                   advised = greatest(errkb.counts.advised, excluded.advised), \
                   helped = greatest(errkb.counts.helped, excluded.helped), \
                   failed = greatest(errkb.counts.failed, excluded.failed), \
                   xid = pg_current_xact_id() \
                 WHERE excluded.learned > errkb.counts.learned OR excluded.sessions > errkb.counts.sessions \
                    OR excluded.advised > errkb.counts.advised OR excluded.helped > errkb.counts.helped \
                    OR excluded.failed > errkb.counts.failed",
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
            tx.execute(
                "INSERT INTO errkb.retractions (uid, replica) SELECT u, $2 FROM unnest($1::text[]) AS u \
                 ON CONFLICT (uid) DO NOTHING",
                &[&retractions, &replica],
            )
            .await
            .described()?;
            tx.execute("DELETE FROM errkb.counts WHERE uid = ANY($1)", &[&retractions])
                .await
                .described()?;
            tx.execute("DELETE FROM errkb.fixes WHERE uid = ANY($1)", &[&retractions])
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

/// A row received from the hub, before it is checked and stored.
enum Incoming {
    Fix(Params),
    Counts(Params),
    Retraction(String),
}

fn receive(conn: &Connection, hub: &mut Hub, state: &State, selection: &Selection, report: &mut Report) -> Result<()> {
    let cursor = state.cursor.clone();
    let replica = state.replica.clone();
    let (rows, next_cursor) = hub.with(Some(Duration::from_secs(600)), async |c| {
        let tx = c
            .build_transaction()
            .isolation_level(tokio_postgres::IsolationLevel::RepeatableRead)
            .read_only(true)
            .start()
            .await
            .described()?;
        // Every transaction below the snapshot's xmin has ended: rows it
        // wrote are final and visible now; anything still to come lands at
        // or above it.
        let xmin: String = tx
            .query_one("SELECT pg_snapshot_xmin(pg_current_snapshot())::text", &[])
            .await
            .described()?
            .get(0);
        let mut rows = Vec::new();
        for row in tx
            .query(
                "SELECT uid, project, error_key, signature, headline, resolution::text, \
                        to_char(sent_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"') \
                 FROM errkb.fixes WHERE xid >= $1::text::xid8 AND xid < $2::text::xid8 ORDER BY xid",
                &[&cursor, &xmin],
            )
            .await
            .described()?
        {
            let mut p = Params::default();
            for (i, name) in RECEIVED_FIX_FIELDS.iter().enumerate() {
                p.set(name, row.get::<_, String>(i));
            }
            rows.push(Incoming::Fix(p));
        }
        for row in tx
            .query(
                "SELECT uid, replica, learned, sessions, advised, helped, failed FROM errkb.counts \
                 WHERE xid >= $1::text::xid8 AND xid < $2::text::xid8 AND replica <> $3 ORDER BY xid",
                &[&cursor, &xmin, &replica],
            )
            .await
            .described()?
        {
            let mut p = Params::default();
            p.set("uid", row.get::<_, String>(0));
            p.set("replica", row.get::<_, String>(1));
            for (i, name) in ["learned", "sessions", "advised", "helped", "failed"]
                .iter()
                .enumerate()
            {
                p.set(name, row.get::<_, i64>(i + 2).to_string());
            }
            rows.push(Incoming::Counts(p));
        }
        for row in tx
            .query(
                "SELECT uid FROM errkb.retractions WHERE xid >= $1::text::xid8 AND xid < $2::text::xid8 ORDER BY xid",
                &[&cursor, &xmin],
            )
            .await
            .described()?
        {
            rows.push(Incoming::Retraction(row.get(0)));
        }
        tx.commit().await.described()?;
        Ok((rows, xmin))
    })?;
    apply(conn, rows, selection, report)?;
    State::record_success(conn, &next_cursor)?;
    Ok(())
}

/// Store what was received, in short write transactions.
fn apply(conn: &Connection, rows: Vec<Incoming>, selection: &Selection, report: &mut Report) -> Result<()> {
    let mut fix_script = script::Repeated::new(RECEIVE_FIX_SQL, "hub");
    let mut counts_script = script::Repeated::new(RECEIVE_COUNTS_SQL, "hub");
    let mut forget_script = script::Repeated::new(FORGET_SQL, "hub");
    let mut batch: Option<Instant> = None;
    let fixes_before: i64 = conn.query_row("SELECT count(*) FROM fixes WHERE origin = 'team'", [], |r| r.get(0))?;
    for row in rows {
        if batch.is_none() {
            conn.execute_batch("BEGIN IMMEDIATE")?;
            batch = Some(Instant::now());
        }
        match row {
            Incoming::Fix(p) => {
                let uid = p.get("uid").unwrap_or_default();
                let resolution = p.get("resolution").unwrap_or_default();
                let project = p.get("project").unwrap_or_default();
                let well_formed = uid.len() == 32 && uid.bytes().all(|b| b.is_ascii_hexdigit());
                let total: usize = RECEIVED_FIX_FIELDS.iter().map(|k| p.get(k).map_or(0, str::len)).sum();
                if !well_formed || resolution.len() > MAX_RESOLUTION_BYTES || total > 2 * MAX_RESOLUTION_BYTES {
                    report.refused += 1;
                } else if !selection.shares(project, None) {
                    report.not_shared += 1;
                } else {
                    fix_script.run(conn, &p)?;
                }
            }
            Incoming::Counts(p) => {
                counts_script.run(conn, &p)?;
                report.received_counts += 1;
            }
            Incoming::Retraction(uid) => {
                let mut p = Params::default();
                p.set("uid", uid);
                p.set("sent", "1");
                forget_script.run(conn, &p)?;
                report.received_retractions += 1;
            }
        }
        if batch.is_some_and(|t| t.elapsed() >= APPLY_BATCH) {
            conn.execute_batch("COMMIT")?;
            batch = None;
            std::thread::sleep(APPLY_GAP);
        }
    }
    if batch.is_some() {
        conn.execute_batch("COMMIT")?;
    }
    let fixes_after: i64 = conn.query_row("SELECT count(*) FROM fixes WHERE origin = 'team'", [], |r| r.get(0))?;
    report.received_fixes = (fixes_after - fixes_before).max(0) as usize;
    Ok(())
}

/// `errkb forget FIX`: the fix (its id here, or its uid) retracted locally
/// now, and for the team at the next sync. Returns its uid.
pub fn forget(conn: &Connection, fix: &str) -> Result<String> {
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
    let mut p = Params::default();
    p.set("uid", uid.clone());
    p.set("sent", "0");
    // (a transaction rolls back when dropped uncommitted)
    let tx = Transaction::new_unchecked(conn, TransactionBehavior::Immediate)?;
    script::run(&tx, FORGET_SQL, &p, &mut std::io::sink())?;
    tx.commit()?;
    Ok(uid)
}
