//! `errkb embed`: the batch embedding job. Runs sql/jobs/embed_batch.sql
//! until every error_kb row without a vector has been tried once. Safe to
//! stop at any point (each batch commits on its own) and to run while hooks
//! write; a lock file keeps two jobs from running at once.

use std::fs::File;
use std::io::IsTerminal;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use rusqlite::Connection;

use crate::runtime::script::{self, Params};

const EMBED_BATCH_SQL: &str = include_str!("../../../../sql/jobs/embed_batch.sql");
/// Rows per batch: one model run each (the most embed_batch takes).
const BATCH: usize = errkb::embedding::embed::MAX_BATCH;

#[derive(Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub embedded: u64,
    pub skipped: u64,
}

pub enum Outcome {
    Ran(Summary),
    /// Another job holds the lock; this one did nothing.
    AlreadyRunning,
}

/// The lock file beside the database; held (flock) for the whole run.
pub fn lock_path(db: &Path) -> PathBuf {
    let mut name = db.as_os_str().to_owned();
    name.push(".embed.lock");
    PathBuf::from(name)
}

pub fn run(conn: &Connection, db: &Path) -> Result<Outcome> {
    let lock = File::create(lock_path(db)).context("cannot create the job's lock file")?;
    // SAFETY: flock on a file descriptor we own; released when `lock` closes.
    if unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
        return Ok(Outcome::AlreadyRunning);
    }
    let todo: i64 = conn.query_row(
        // vec_error_kb_rowids: sqlite-vec's id table (see embed_batch.sql).
        "SELECT count(*) FROM error_kb AS kb WHERE NOT EXISTS \
         (SELECT 1 FROM vec_error_kb_rowids AS v WHERE v.rowid = kb.id)",
        [],
        |r| r.get(0),
    )?;
    if todo == 0 {
        return Ok(Outcome::Ran(Summary::default())); // nothing to do: no model load
    }
    let progress = if std::io::stderr().is_terminal() {
        let style = indicatif::ProgressStyle::with_template("embedding {bar:30} {pos}/{len}  {per_sec}  eta {eta}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
        indicatif::ProgressBar::new(todo as u64).with_style(style)
    } else {
        indicatif::ProgressBar::hidden()
    };
    let mut summary = Summary::default();
    let mut after: i64 = i64::MIN;
    loop {
        let mut params = Params::default();
        params.set("after", after.to_string());
        params.set("batch", BATCH.to_string());
        // the batch's report: (embedded, skipped, last id; NULL when none was left)
        let report = script::rows(conn, EMBED_BATCH_SQL, &params)?;
        let row = report.first().context("embed_batch.sql reported nothing")?;
        let Some(last) = script::integer(row, 2) else { break };
        let embedded = script::integer(row, 0).unwrap_or(0) as u64;
        let skipped = script::integer(row, 1).unwrap_or(0) as u64;
        summary.embedded += embedded;
        summary.skipped += skipped;
        progress.inc(embedded + skipped);
        after = last;
    }
    progress.finish_and_clear();
    Ok(Outcome::Ran(summary))
}

/// `errkb embed`: the batch job by hand (SessionEnd starts it detached).
pub fn command(db_path: &Path, out: &mut impl std::io::Write) -> Result<ExitCode> {
    // The batch job may use every core; the realtime path keeps one.
    if std::env::var_os("ERRKB_EMBED_THREADS").is_none() {
        errkb::embedding::embed::set_threads(std::thread::available_parallelism().map_or(1, |n| n.get()));
    }
    let conn = crate::runtime::db::open(db_path, crate::runtime::db::Access::ReadWrite)?;
    match run(&conn, db_path)? {
        Outcome::Ran(s) => writeln!(out, "embedded {}, skipped {}", s.embedded, s.skipped)?,
        Outcome::AlreadyRunning => writeln!(out, "another embedding job is running")?,
    }
    Ok(ExitCode::SUCCESS)
}
