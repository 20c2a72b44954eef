//! `errkb embed`: the batch embedding job. First makes sure the vectors
//! stored are the current model's (when the model changed, they are all
//! dropped, the vector tables take the new width, and `vector_model` names
//! the new model), gives every stored vector its bits
//! (sql/jobs/index_vectors.sql), then runs sql/jobs/embed_batch.sql until every error_kb
//! row without a vector has been tried once. Safe to stop at any point
//! (each batch commits on its own) and to run while hooks write; a lock
//! file keeps two jobs from running at once.

use std::fs::File;
use std::io::IsTerminal;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use rusqlite::{Connection, OptionalExtension, Transaction, TransactionBehavior};

use errkb::runtime::script::{self, Params};

const EMBED_BATCH_SQL: &str = include_str!("../../../../sql/jobs/embed_batch.sql");
const INDEX_VECTORS_SQL: &str = include_str!("../../../../sql/jobs/index_vectors.sql");
/// Vectors given their bits per write (about 0.1 ms each).
const INDEX_BATCH: usize = 500;
/// Rows per batch: one model run each (the most embed_batch takes).
const BATCH: usize = errkb::embedding::embed::MAX_BATCH;

#[derive(Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub embedded: u64,
    pub skipped: u64,
    /// The model that made the vectors before, when this run replaced them.
    pub replaced_model: Option<String>,
}

/// The model `embed_model()` names: `{"model", "dimensions"}`.
#[derive(serde::Deserialize)]
struct CurrentModel {
    model: String,
    dimensions: i64,
}

/// Make the stored vectors the current model's: when `vector_model` names
/// another model (or none), drop every vector (the table is made anew when
/// the width differs) and record the current one. Returns the model
/// replaced, if any. `Err` when there is no model to embed with.
fn adopt_current_model(conn: &Connection) -> Result<Option<Option<String>>> {
    let current: String = conn.query_row("SELECT embed_model()", [], |r| r.get(0))?;
    let current: CurrentModel = serde_json::from_str(&current).context("embed_model() answered no JSON")?;
    let stored: Option<(String, i64)> = conn
        .query_row("SELECT model, dimensions FROM vector_model", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .optional()?;
    if stored.as_ref() == Some(&(current.model.clone(), current.dimensions)) {
        return Ok(None);
    }
    let declared: String = conn.query_row("SELECT sql FROM sqlite_schema WHERE name = 'vec_error_kb'", [], |r| {
        r.get(0)
    })?;
    // bit vectors are whole bytes (every model errkb knows: 384, 768, 1024 …)
    anyhow::ensure!(
        current.dimensions > 0 && current.dimensions % 8 == 0,
        "the model's vectors have {} dimensions; errkb needs a multiple of 8",
        current.dimensions
    );
    let width = format!("float[{}]", current.dimensions);
    let bits = format!("bit[{}]", current.dimensions);
    // (a transaction rolls back when dropped uncommitted)
    let tx = Transaction::new_unchecked(conn, TransactionBehavior::Immediate)?;
    if declared.contains(&width) {
        tx.execute_batch("DELETE FROM vec_error_kb; DELETE FROM vec_error_kb_bits;")?;
    } else {
        // the width is a number from the model, not text from outside
        tx.execute_batch(&format!(
            "DROP TABLE vec_error_kb; \
                 CREATE VIRTUAL TABLE vec_error_kb USING vec0(error_kb_id INTEGER PRIMARY KEY, embedding {width}); \
                 DROP TABLE IF EXISTS vec_error_kb_bits; \
                 CREATE VIRTUAL TABLE vec_error_kb_bits USING vec0(error_kb_id INTEGER PRIMARY KEY, \
                   embedding {bits}, +vector BLOB);"
        ))?;
    }
    tx.execute("DELETE FROM vector_bits_ready", [])?;
    tx.execute(
        "INSERT OR REPLACE INTO vector_model (one, model, dimensions) VALUES (1, ?1, ?2)",
        rusqlite::params![current.model, current.dimensions],
    )?;
    tx.commit()?;
    Ok(Some(stored.map(|(model, _)| model)))
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
    let replaced = match adopt_current_model(conn) {
        Ok(replaced) => replaced,
        // no model: nothing to do when nothing waits (no error for a job
        // that had no work), else the error that says how to get one
        Err(_) if count_todo(conn)? == 0 => {
            return Ok(Outcome::Ran(Summary::default()));
        }
        Err(e) => return Err(e),
    };
    // vectors stored before the bits existed, or by hand, get theirs
    index_vectors(conn)?;
    let todo = count_todo(conn)?;
    if todo == 0 {
        return Ok(Outcome::Ran(Summary {
            replaced_model: replaced.flatten(),
            ..Summary::default()
        }));
    }
    let progress = if std::io::stderr().is_terminal() {
        let style = indicatif::ProgressStyle::with_template("embedding {bar:30} {pos}/{len}  {per_sec}  eta {eta}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
        indicatif::ProgressBar::new(todo as u64).with_style(style)
    } else {
        indicatif::ProgressBar::hidden()
    };
    let mut summary = Summary {
        replaced_model: replaced.flatten(),
        ..Summary::default()
    };
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

/// Give every stored vector its bits (sql/jobs/index_vectors.sql), in
/// batches that each commit alone; then say that all have them
/// (`vector_bits_ready`), which lets the vector stage use them.
fn index_vectors(conn: &Connection) -> Result<()> {
    let mut after: i64 = i64::MIN;
    loop {
        let mut params = Params::default();
        params.set("after", after.to_string());
        params.set("batch", INDEX_BATCH.to_string());
        let report = script::rows(conn, INDEX_VECTORS_SQL, &params)?;
        let row = report.first().context("index_vectors.sql reported nothing")?;
        let Some(last) = script::integer(row, 1) else {
            conn.execute("INSERT OR IGNORE INTO vector_bits_ready (one) VALUES (1)", [])?;
            return Ok(());
        };
        after = last;
    }
}

/// Rows without a vector.
fn count_todo(conn: &Connection) -> Result<i64> {
    Ok(conn.query_row(
        // vec_error_kb_rowids: sqlite-vec's id table (see embed_batch.sql).
        "SELECT count(*) FROM error_kb AS kb WHERE NOT EXISTS \
         (SELECT 1 FROM vec_error_kb_rowids AS v WHERE v.rowid = kb.id)",
        [],
        |r| r.get(0),
    )?)
}

/// `errkb embed`: the batch job by hand (SessionEnd starts it detached).
pub fn command(db_path: &Path, out: &mut impl std::io::Write) -> Result<ExitCode> {
    // The batch job may use every core; the realtime path keeps one.
    if std::env::var_os("ERRKB_EMBED_THREADS").is_none() {
        errkb::embedding::embed::set_threads(std::thread::available_parallelism().map_or(1, |n| n.get()));
    }
    let conn = errkb::runtime::db::open(db_path, errkb::runtime::db::Access::ReadWrite)?;
    match run(&conn, db_path)? {
        Outcome::Ran(s) => {
            if let Some(old) = &s.replaced_model {
                writeln!(
                    out,
                    "the model changed (the vectors were made by {old}): embedding everything again"
                )?;
            }
            writeln!(out, "embedded {}, skipped {}", s.embedded, s.skipped)?
        }
        Outcome::AlreadyRunning => writeln!(out, "another embedding job is running")?,
    }
    Ok(ExitCode::SUCCESS)
}
