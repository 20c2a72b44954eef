//! `errkb learn [PATH…]`: a knowledge base from day one, out of the Claude
//! Code transcripts already on disk (`~/.claude/projects/**/*.jsonl`), and
//! Codex's session files (`~/.codex/sessions/**/*.jsonl`: read by
//! `learn_codex.rs`; a file's format is told by its first record).
//!
//! Each transcript line is one record; assistant records hold `tool_use`
//! blocks, user records the matching `tool_result` blocks (`is_error`).
//! Every tool call, paired by its id, becomes the payload the live hook
//! would have received, and runs through the same hook script
//! (PostToolUse.sql or PostToolUseFailure.sql) with the call's original
//! time bound as `:event_ts`: the same redaction, the same events, the same
//! learning, and no advice. So importing learns exactly what the hooks
//! would have learned.
//!
//! - Streams: a subagent's calls (`isSidechain` with its `agentId`; in
//!   newer clients a file of its own under `<session>/subagents/`, or
//!   `agent_progress` records mirrored into the session's file) are the
//!   agent's own stream, as the hooks keep them (`agent_id`).
//! - Order: a call counts when its result arrived (when PostToolUse fires):
//!   the order of the results in the file, which Claude Code appends as
//!   they come.
//! - What reaches the hooks: Claude Code's input checks
//!   (`<tool_use_error>`) reach no hook and are passed over; a user's
//!   rejection is passed on as one (older clients write only the user's
//!   words, which are never kept).
//! - Idempotent: a call whose id an event already has (from a hook, or an
//!   earlier import) is skipped (Claude Code's ids are unique across
//!   sessions, and an older client's resumed session repeats its calls in a
//!   new file under a new session id); a file unchanged since its last import is
//!   not read again; a grown file adds only its new calls.
//! - Beside live sessions: the writes go in short transactions that take
//!   the write lock up front (`BEGIN IMMEDIATE`), with gaps between them for
//!   others to write (see `BATCH_ALONE`), so a hook waits for at most one
//!   at a time, never for a whole file.
//! - Tolerant: unknown record types and fields are ignored (compaction
//!   boundaries, summaries, attachments…); a line that is not JSON is
//!   skipped and counted; a call without a result (cut off) is left out; a
//!   file that cannot be read, or a call the scripts cannot store (JSON
//!   nested past SQLite's limit), is skipped with a warning and the rest is
//!   imported. Memory is bounded by the longest line: files are read a
//!   line at a time.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::io::{BufRead, IsTerminal};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, Result};
use rusqlite::{params, Connection, OptionalExtension};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::cli::Agent;
use crate::agent::call::{Call, Outcome};
use crate::commands::learn_codex;
use errkb::runtime::script::{self, Params};
use crate::agent::hooks;
use errkb::runtime::{counted, db, paths};

#[derive(Debug, Default)]
pub struct Summary {
    pub files: u64,
    pub unchanged_files: u64,
    pub bytes: u64,
    pub sessions: u64,
    pub tool_calls: u64,
    pub errors: u64,
    pub interrupts: u64,
    pub already_known: u64,
    pub fixes_learned: u64,
    pub malformed_lines: u64,
    /// Files that could not be read, and calls that could not be stored.
    pub unreadable_files: u64,
    pub skipped_calls: u64,
}

impl std::fmt::Display for Summary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "read {} ({:.1} MB; {} unchanged since the last import)",
            counted(self.files, "transcript file", "transcript files"),
            self.bytes as f64 / 1e6,
            self.unchanged_files
        )?;
        writeln!(
            f,
            "{}, {} ({}, {} interrupted), {} already known",
            counted(self.sessions, "session", "sessions"),
            counted(self.tool_calls, "tool call", "tool calls"),
            counted(self.errors, "error", "errors"),
            self.interrupts,
            self.already_known
        )?;
        write!(f, "{} learned", counted(self.fixes_learned, "fix", "fixes"))?;
        if self.malformed_lines > 0 {
            let lines = counted(self.malformed_lines, "malformed line", "malformed lines");
            write!(f, "; {lines} skipped")?;
        }
        if self.unreadable_files > 0 {
            write!(f, "; {} could not be read", counted(self.unreadable_files, "file", "files"))?;
        }
        if self.skipped_calls > 0 {
            write!(f, "; {} could not be stored", counted(self.skipped_calls, "call", "calls"))?;
        }
        writeln!(f)
    }
}

/// Where Claude Code keeps its transcripts: `$CLAUDE_CONFIG_DIR/projects`,
/// else `~/.claude/projects`.
pub fn default_transcripts() -> Result<PathBuf> {
    Ok(paths::claude_dir()?.join("projects"))
}

/// Where Codex keeps its session files: `$CODEX_HOME/sessions`, else
/// `~/.codex/sessions`.
pub fn default_codex_sessions() -> Result<PathBuf> {
    Ok(paths::codex_home()?.join("sessions"))
}

/// Where Codex moves the session files the user archived.
fn archived_codex_sessions() -> Result<PathBuf> {
    Ok(paths::codex_home()?.join("archived_sessions"))
}

/// The `.jsonl` files under `paths` (files as given, folders searched),
/// in a stable order.
pub fn transcript_files(paths: &[PathBuf]) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for entry in entries.flatten() {
            let path = entry.path();
            match entry.file_type() {
                Ok(t) if t.is_dir() => walk(&path, out),
                Ok(t) if t.is_file() && path.extension().is_some_and(|e| e == "jsonl") => out.push(path),
                _ => {}
            }
        }
    }
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            walk(path, &mut files);
        } else {
            files.push(path.clone());
        }
    }
    // a session's subagents (`<session>/subagents/agent-*.jsonl`) before
    // the session itself: the main thread's successes after an Agent call
    // look up what its agent did
    files.sort_by_cached_key(|p| {
        let subagent = p.parent().is_some_and(|d| d.file_name().is_some_and(|n| n == "subagents"));
        let session = if subagent {
            p.parent().and_then(Path::parent).map(Path::to_path_buf).unwrap_or_default()
        } else {
            p.with_extension("")
        };
        (session, !subagent, p.clone())
    });
    files.dedup();
    files
}

/// How long one write transaction of an import holds the write lock, and
/// how long the import then leaves the database to others. Alone, it
/// writes in long transactions with a short gap; once another process has
/// written in a gap (a live session's hook), in short ones with longer
/// gaps, for a while: a hook commits each of its statements on its own, so
/// it may wait for a batch several times, and it must get in between them.
/// (Measured beside 8 hook loops, `make bench`: 50 ms batches kept hooks
/// waiting over 300 ms at p99, 10 ms batches with 5 ms gaps under 100.)
const BATCH_ALONE: Duration = Duration::from_millis(50);
const GAP_ALONE: Duration = Duration::from_millis(2);
const BATCH_SHARED: Duration = Duration::from_millis(10);
const GAP_SHARED: Duration = Duration::from_millis(5);
/// How long the import stays in short batches after it last saw another
/// process write.
const SHARED_FOR: Duration = Duration::from_secs(2);

/// The result text an older client wrote for a user's rejection (only the
/// user's words): passed on as the rejection it is.
const REJECTED: &str = "The user doesn't want to proceed with this tool use. The tool use was rejected.";

pub fn run(conn: &Connection, paths: &[PathBuf]) -> Result<Summary> {
    let files = transcript_files(paths);
    let total: u64 = files
        .iter()
        .filter_map(|f| std::fs::metadata(f).ok())
        .map(|m| m.len())
        .sum();
    let progress = if std::io::stderr().is_terminal() {
        let style = indicatif::ProgressStyle::with_template(
            "learning {bar:30} {bytes}/{total_bytes}  {bytes_per_sec}  eta {eta}  {msg}",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
        indicatif::ProgressBar::new(total).with_style(style)
    } else {
        indicatif::ProgressBar::hidden()
    };
    let mut importer = Importer {
        conn,
        scripts: Scripts {
            success: script::Repeated::new(&hooks::script_for("PostToolUse")?, "success").declaring_tables_first(),
            failure: script::Repeated::new(&hooks::script_for("PostToolUseFailure")?, "failure")
                .declaring_tables_first(),
        },
        known: HashSet::new(),
        known_up_to: 0,
        pending: Vec::new(),
        batch_started: None,
        holding_since: None,
        data_version: None,
        shared_until: None,
        summary: Summary::default(),
        sessions: HashSet::new(),
        received_calls: 0,
    };
    conn.set_prepared_statement_cache_capacity(
        importer.scripts.success.statement_count() + importer.scripts.failure.statement_count() + 8,
    );
    let fixes_before = count_fixes(conn)?;
    // Which files changed since they were last imported: only those are
    // read. Reading and parsing them runs on a thread of its own, up to
    // PARSED_AHEAD batches ahead of the import, which stores their calls
    // in order on its one connection.
    let checks: Vec<Result<Check>> = files.iter().map(|file| importer.check(file)).collect();
    let to_read: Vec<PathBuf> = files
        .iter()
        .zip(&checks)
        .filter(|(_, check)| matches!(check, Ok(Check::Changed { .. })))
        .map(|(file, _)| file.clone())
        .collect();
    let mut readable = 0;
    std::thread::scope(|scope| {
        let (parsed, received) = std::sync::mpsc::sync_channel(PARSED_AHEAD);
        scope.spawn(move || {
            // (calls are counted as the import counts those it receives)
            let mut read_calls = 0;
            for file in to_read {
                if !parse_file(&file, &parsed, &mut read_calls) {
                    break; // the import stopped
                }
            }
        });
        for (file, check) in files.iter().zip(checks) {
            let imported = check.and_then(|check| match check {
                Check::Unchanged { size } => {
                    importer.summary.unchanged_files += 1;
                    progress.inc(size);
                    Ok(())
                }
                Check::Changed { key, size, mtime_ns } => {
                    importer.import_file(file, &key, size, mtime_ns, &received, &progress)
                }
            });
            match imported {
                Ok(()) => readable += 1,
                Err(e) => {
                    importer.abandon();
                    importer.summary.unreadable_files += 1;
                    progress.suspend(|| eprintln!("errkb learn: skipped {}: {e:#}", file.display()));
                }
            }
        }
    });
    progress.finish_and_clear();
    if readable == 0 && !files.is_empty() {
        if files.len() == 1 {
            bail!("the transcript file could not be read");
        }
        bail!("none of the {} transcript files could be read", files.len());
    }
    let mut summary = importer.summary;
    summary.sessions = importer.sessions.len() as u64;
    summary.fixes_learned = count_fixes(conn)? - fixes_before;
    Ok(summary)
}

struct Scripts {
    success: script::Repeated,
    failure: script::Repeated,
}

/// Imports calls in short write transactions (see `BATCH`).
struct Importer<'c> {
    conn: &'c Connection,
    scripts: Scripts,
    /// The tool calls stored already (see `read_known`), up to this event id.
    known: HashSet<String>,
    known_up_to: i64,
    /// The calls this transaction stored: no longer known if it rolls back.
    pending: Vec<String>,
    batch_started: Option<Instant>,
    /// When this import last took the write lock after a gap.
    holding_since: Option<Instant>,
    /// `PRAGMA data_version` after this import's last commit: it changes
    /// when another connection commits.
    data_version: Option<i64>,
    /// Until when others are taken to be writing (see `BATCH_SHARED`).
    shared_until: Option<Instant>,
    summary: Summary,
    sessions: HashSet<String>,
    /// How many calls the parsing thread has sent (see `work_out_ahead`).
    received_calls: u64,
}

/// A transcript file as the import finds it.
enum Check {
    /// Imported before at this size and time: not read again.
    Unchanged { size: u64 },
    /// To read: its key in `transcript_imports`, its size and time.
    Changed { key: String, size: u64, mtime_ns: i64 },
}

/// What the parsing thread sends for each file it reads, in order: its
/// calls a few lines at a time, then how the file ended.
enum Parsed {
    Calls { calls: Vec<Call>, bytes: u64, malformed: u64 },
    End(std::result::Result<(), String>),
}

/// How many batches of parsed lines may wait for the import.
const PARSED_AHEAD: usize = 64;
/// Lines are sent in batches of about this much transcript.
const PARSED_BATCH: u64 = 256 << 10;

/// Reads and parses `file`, sending its calls and then its end; false
/// when the import no longer listens.
fn parse_file(file: &Path, parsed: &std::sync::mpsc::SyncSender<Parsed>, read_calls: &mut u64) -> bool {
    // a call let out in order: worked out ahead, numbered, kept for the batch
    let take = |call: Call, calls: &mut Vec<Call>, read_calls: &mut u64| {
        work_out_ahead(&call, *read_calls);
        *read_calls += 1;
        calls.push(call);
    };
    let mut read = || -> std::result::Result<bool, String> {
        let mut reader = std::io::BufReader::new(std::fs::File::open(file).map_err(|e| e.to_string())?);
        let mut transcript = Format::Unknown;
        let mut line = Vec::new();
        let (mut calls, mut bytes, mut malformed) = (Vec::new(), 0, 0);
        let mut arrival = InArrivalOrder::default();
        loop {
            line.clear();
            let n = match reader.read_until(b'\n', &mut line) {
                Ok(n) => n,
                Err(e) => {
                    // (what was read is imported, as when lines were read one by one)
                    arrival.rest().for_each(|call| take(call, &mut calls, read_calls));
                    let sent = parsed.send(Parsed::Calls { calls, bytes, malformed }).is_ok();
                    return if sent { Err(e.to_string()) } else { Ok(false) };
                }
            };
            if n > 0 {
                bytes += n as u64;
                for call in transcript.read_line(&line, &mut malformed) {
                    if let Some(call) = arrival.push(call) {
                        take(call, &mut calls, read_calls);
                    }
                }
            } else {
                arrival.rest().for_each(|call| take(call, &mut calls, read_calls));
            }
            if n == 0 || bytes >= PARSED_BATCH {
                let batch = Parsed::Calls { calls: std::mem::take(&mut calls), bytes, malformed };
                if parsed.send(batch).is_err() {
                    return Ok(false);
                }
                (bytes, malformed) = (0, 0);
            }
            if n == 0 {
                return Ok(true);
            }
        }
    };
    match read() {
        Ok(listening) => listening && parsed.send(Parsed::End(Ok(()))).is_ok(),
        Err(e) => parsed.send(Parsed::End(Err(e))).is_ok(),
    }
}

/// Calls put in the order their results arrived, by their times. A
/// transcript writes the results of calls made together (parallel tool
/// calls) in the order the calls were made, each with the time it came:
/// `ls a` at .130 before `find b` at .129. The hooks ran in the order of
/// those times, each at its own, and learning reads a session's steps in
/// time order, its last step the success at hand: stored in the file's
/// order, `find b` would be learned as if `ls a` had come after it. Such
/// results are a few lines apart, so a few calls are held back and let
/// out earliest first (a call without a time keeps its place).
#[derive(Default)]
struct InArrivalOrder {
    held: std::collections::VecDeque<Call>,
}

/// How many calls are held back to be put in order.
const HELD_FOR_ORDER: usize = 16;

impl InArrivalOrder {
    /// Takes `call`, and lets out the earliest held one when too many are.
    fn push(&mut self, call: Call) -> Option<Call> {
        let at = if call.ts.is_empty() {
            self.held.len()
        } else {
            // (after those of the same time: ties keep the file's order)
            self.held.iter().rposition(|h| h.ts.is_empty() || h.ts <= call.ts).map_or(0, |i| i + 1)
        };
        self.held.insert(at, call);
        (self.held.len() > HELD_FOR_ORDER).then(|| self.held.pop_front()).flatten()
    }

    /// The calls still held, earliest first.
    fn rest(&mut self) -> impl Iterator<Item = Call> + '_ {
        self.held.drain(..)
    }
}

impl Importer<'_> {
    /// Whether `file` changed since it was last imported.
    fn check(&self, file: &Path) -> Result<Check> {
        let metadata = std::fs::metadata(file)?;
        let size = metadata.len();
        let mtime_ns = metadata
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos() as i64);
        // no user name in what is stored, the transcripts' path included
        let key = errkb::text::redact::redact_private(&file.to_string_lossy()).into_owned();
        let seen: Option<(i64, i64)> = self
            .conn
            .query_row(
                "SELECT size, mtime_ns FROM transcript_imports WHERE path = ?1",
                [&key],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?;
        Ok(if seen == Some((size as i64, mtime_ns)) {
            Check::Unchanged { size }
        } else {
            Check::Changed { key, size, mtime_ns }
        })
    }

    /// Stores the calls of `file` as the parsing thread sends them (all of
    /// them are received, also when storing one fails), then notes the
    /// file as imported.
    fn import_file(
        &mut self,
        file: &Path,
        key: &str,
        size: u64,
        mtime_ns: i64,
        received: &std::sync::mpsc::Receiver<Parsed>,
        progress: &indicatif::ProgressBar,
    ) -> Result<()> {
        let mut stored: Result<()> = Ok(());
        let mut opened = false;
        loop {
            match received.recv() {
                Ok(Parsed::Calls { calls, bytes, malformed }) => {
                    if !opened {
                        self.summary.files += 1;
                        opened = true;
                    }
                    self.summary.bytes += bytes;
                    self.summary.malformed_lines += malformed;
                    progress.inc(bytes);
                    let first = self.received_calls;
                    self.received_calls += calls.len() as u64;
                    for (n, call) in calls.iter().enumerate() {
                        if stored.is_err() {
                            break;
                        }
                        errkb::ahead::begin_call(first + n as u64);
                        stored = self.import_call(call, file);
                    }
                }
                Ok(Parsed::End(Ok(()))) => break,
                Ok(Parsed::End(Err(e))) => {
                    stored?;
                    bail!(e);
                }
                Err(_) => bail!("the file was not read"),
            }
        }
        stored?;
        self.begin()?;
        self.conn.execute(
            "INSERT INTO transcript_imports (path, size, mtime_ns, ts) \
             VALUES (?1, ?2, ?3, utc_now()) \
             ON CONFLICT (path) DO UPDATE SET size = excluded.size, mtime_ns = excluded.mtime_ns, ts = excluded.ts",
            params![key, size as i64, mtime_ns],
        )?;
        self.commit()
    }

    /// A write transaction, taken with the lock up front (a deferred one
    /// that later needs it fails at once when a hook holds it).
    fn begin(&mut self) -> Result<()> {
        if self.batch_started.is_none() {
            self.conn.execute_batch("BEGIN IMMEDIATE")?;
            self.batch_started = Some(Instant::now());
            self.holding_since.get_or_insert_with(Instant::now);
            // what was stored since: the hooks' live calls, this import's own
            self.known_up_to = read_known(self.conn, self.known_up_to, &mut self.known)?;
            let version = self.data_version()?;
            if self.data_version.is_some_and(|v| v != version) {
                self.shared_until = Some(Instant::now() + SHARED_FOR);
            }
        }
        Ok(())
    }

    fn data_version(&self) -> Result<i64> {
        Ok(self.conn.query_row("PRAGMA data_version", [], |r| r.get(0))?)
    }

    fn shared(&self) -> bool {
        self.shared_until.is_some_and(|t| Instant::now() < t)
    }

    /// Commits; and leaves the database to others for a gap once this
    /// import has held the write lock for a batch's time since the last
    /// gap (transactions end at each file too: the files of a project are
    /// often small, and a gap after each would be most of an import).
    fn commit(&mut self) -> Result<()> {
        if self.batch_started.take().is_some() {
            self.conn.execute_batch("COMMIT")?;
            self.pending.clear();
            self.data_version = Some(self.data_version()?);
            let batch = if self.shared() { BATCH_SHARED } else { BATCH_ALONE };
            if self.holding_since.is_some_and(|t| t.elapsed() >= batch) {
                std::thread::sleep(if self.shared() { GAP_SHARED } else { GAP_ALONE });
                self.holding_since = None;
            }
        }
        Ok(())
    }

    /// After a failure: what the open transaction wrote is undone.
    fn abandon(&mut self) {
        if self.batch_started.take().is_some() {
            let _ = self.conn.execute_batch("ROLLBACK");
        }
        for id in self.pending.drain(..) {
            self.known.remove(&id);
        }
        self.scripts.success.forget_tables(self.conn);
        self.scripts.failure.forget_tables(self.conn);
    }

    fn import_call(&mut self, call: &Call, file: &Path) -> Result<()> {
        self.begin()?;
        if !self.known.insert(call.tool_use_id.clone()) {
            self.summary.already_known += 1;
            return self.commit_when_due();
        }
        self.pending.push(call.tool_use_id.clone());
        let (event, script, error, is_interrupt) = match &call.outcome {
            Outcome::Success(_) => ("PostToolUse", &mut self.scripts.success, None, None),
            Outcome::Failure(text) => (
                "PostToolUseFailure",
                &mut self.scripts.failure,
                Some(read_of_error(text)),
                Some(false),
            ),
            Outcome::Interrupt(text) => (
                "PostToolUseFailure",
                &mut self.scripts.failure,
                Some(read_of_error(text)),
                Some(true),
            ),
        };
        let payload = serde_json::to_string(&Payload {
            session_id: &call.session_id,
            cwd: call.cwd.as_deref(),
            hook_event_name: event,
            tool_name: &call.tool_name,
            tool_input: &call.tool_input,
            tool_use_id: &call.tool_use_id,
            agent_id: call.agent_id.as_deref(),
            error,
            is_interrupt,
            tool_response: call.subagent.as_ref().map(|id| serde_json::json!({"agentId": id})),
        })?;
        let mut params = Params::default();
        params.set("stdin", payload);
        params.set("event_ts", call.ts.clone());
        // the events stored say which agent's call they are (Claude Code's
        // say nothing more), as the hooks' do
        if let Some(agent) = call.agent {
            params.set("agent", agent);
        }
        if let Some(turn_id) = &call.turn_id {
            params.set("turn_id", turn_id.clone());
        }
        if let Outcome::Success(Some(output)) = &call.outcome {
            params.set("output", output.clone());
        }
        if call.read_gave_nothing {
            params.set("file_content", String::new());
        }
        // One call at a time: a call the scripts cannot store is skipped,
        // and what it wrote undone, without losing the rest.
        self.conn.execute_batch("SAVEPOINT call")?;
        match script.run(self.conn, &params, &mut std::io::sink()) {
            Ok(()) => self.conn.execute_batch("RELEASE call")?,
            Err(e) => {
                self.conn.execute_batch("ROLLBACK TO call; RELEASE call")?;
                script.forget_tables(self.conn);
                self.summary.skipped_calls += 1;
                eprintln!(
                    "errkb learn: skipped tool call {} of {}: {e:#}",
                    call.tool_use_id,
                    file.display()
                );
                return self.commit_when_due();
            }
        }
        self.summary.tool_calls += 1;
        match call.outcome {
            Outcome::Failure(_) => self.summary.errors += 1,
            Outcome::Interrupt(_) => self.summary.interrupts += 1,
            Outcome::Success(_) => {}
        }
        self.sessions.insert(call.session_id.clone());
        self.commit_when_due()
    }

    fn commit_when_due(&mut self) -> Result<()> {
        let batch = if self.shared() { BATCH_SHARED } else { BATCH_ALONE };
        if self.batch_started.is_some_and(|t| t.elapsed() >= batch) {
            self.commit()?;
        }
        Ok(())
    }
}

/// The tool calls stored after event `after` (by the hooks, live, or by an
/// earlier import), added to `known`; returns the last event id read.
/// Claude Code's ids are unique across sessions, so a resumed session's
/// copy of earlier calls in another file is not imported again. Read at
/// the start of each write transaction, from where the last read stopped,
/// rather than looked up per call: an index on the id would cost every
/// hook a page write for what only this command reads.
fn read_known(conn: &Connection, after: i64, known: &mut HashSet<String>) -> Result<i64> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, data ->> '$.toolUseId' FROM events \
         WHERE id > ?1 AND type IN ('tool_use', 'tool_error', 'tool_interrupt', 'tool_blocked') \
           AND data ->> '$.toolUseId' IS NOT NULL",
    )?;
    let mut last = after;
    let mut rows = stmt.query([after])?;
    while let Some(row) = rows.next()? {
        last = last.max(row.get::<_, i64>(0)?);
        known.insert(row.get(1)?);
    }
    Ok(last)
}

fn count_fixes(conn: &Connection) -> Result<u64> {
    Ok(conn.query_row("SELECT count(*) FROM learned_errors", [], |r| r.get::<_, i64>(0))? as u64)
}

#[derive(Deserialize)]
struct Record<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(rename = "sessionId", borrow, default)]
    session_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    timestamp: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    cwd: Option<Cow<'a, str>>,
    #[serde(rename = "isSidechain", default)]
    is_sidechain: bool,
    #[serde(rename = "agentId", borrow, default)]
    agent_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    uuid: Option<Cow<'a, str>>,
    #[serde(rename = "parentUuid", borrow, default)]
    parent_uuid: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    message: Option<WithContent<'a>>,
    #[serde(rename = "toolUseResult", borrow, default)]
    tool_use_result: Option<&'a RawValue>,
    /// `progress` records: a subagent's messages, mirrored.
    #[serde(borrow, default)]
    data: Option<Progress<'a>>,
}

/// An object of which only `content` is read, unparsed: a record's
/// message, a Read's file.
#[derive(Deserialize)]
struct WithContent<'a> {
    #[serde(borrow, default)]
    content: Option<&'a RawValue>,
}

/// A `progress` record's data: of an `agent_progress`, the subagent and
/// the message it sent or got.
#[derive(Deserialize)]
struct Progress<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(rename = "agentId", borrow, default)]
    agent_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    message: Option<Mirrored<'a>>,
}

#[derive(Deserialize)]
struct Mirrored<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    timestamp: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    message: Option<WithContent<'a>>,
    #[serde(rename = "toolUseResult", borrow, default)]
    tool_use_result: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct Block<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    input: Option<&'a RawValue>,
    #[serde(borrow, default)]
    tool_use_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    content: Option<&'a RawValue>,
    #[serde(default)]
    is_error: Option<bool>,
    #[serde(borrow, default)]
    text: Option<Cow<'a, str>>,
}

#[derive(Deserialize, Default)]
struct BashResult {
    #[serde(default)]
    interrupted: bool,
}

/// What an Agent (Task) call's result says of the agent it started.
#[derive(Deserialize, Default)]
struct AgentResult {
    #[serde(rename = "agentId")]
    agent_id: Option<String>,
}

/// What a Read call's result says of the file as read: its content
/// (only whether it is empty is asked).
#[derive(Deserialize)]
struct ReadResult<'a> {
    #[serde(borrow, default)]
    file: Option<WithContent<'a>>,
}

/// A tool_use waiting for its result.
struct PendingUse {
    name: String,
    input: Box<RawValue>,
}

/// What reading a transcript keeps between lines: the calls waiting for
/// their results, and the records of older clients' sidechains.
#[derive(Default)]
struct Transcript {
    pending: HashMap<String, PendingUse>,
    /// uuid → (parent uuid, is a sidechain record): for sidechains of older
    /// clients, which name no agentId, the stream is the sidechain's root.
    parents: HashMap<String, (Option<String>, bool)>,
}

/// A message's place: the record's, or a mirrored subagent message's.
struct Place<'a> {
    kind: &'a str,
    timestamp: Option<&'a str>,
    agent_id: Option<String>,
    content: &'a RawValue,
    tool_use_result: Option<&'a RawValue>,
}

impl Transcript {
    /// The calls whose results this line holds, in the order given.
    fn read_line(&mut self, line: &[u8], malformed: &mut u64) -> Vec<Call> {
        if line.iter().all(u8::is_ascii_whitespace) {
            return Vec::new();
        }
        let Ok(record) = serde_json::from_slice::<Record>(line) else {
            *malformed += 1;
            return Vec::new();
        };
        if record.is_sidechain && record.agent_id.is_none() {
            if let Some(uuid) = &record.uuid {
                self.parents.insert(
                    uuid.to_string(),
                    (record.parent_uuid.as_deref().map(str::to_owned), true),
                );
            }
        }
        let kind = record.kind.as_deref().unwrap_or("");
        let place = match kind {
            "assistant" | "user" => record.message.as_ref().and_then(|m| m.content).map(|content| Place {
                kind,
                timestamp: record.timestamp.as_deref(),
                agent_id: match (&record.agent_id, record.is_sidechain) {
                    (Some(agent), _) => Some(agent.to_string()),
                    (None, true) => record
                        .uuid
                        .as_deref()
                        .map(|uuid| format!("sidechain-{}", sidechain_root(&self.parents, uuid))),
                    (None, false) => None,
                },
                content,
                tool_use_result: record.tool_use_result,
            }),
            // a subagent's message, mirrored into its session's file
            "progress" => record
                .data
                .as_ref()
                .filter(|d| d.kind.as_deref() == Some("agent_progress"))
                .and_then(|d| {
                    let mirrored = d.message.as_ref()?;
                    Some(Place {
                        kind: mirrored.kind.as_deref()?,
                        timestamp: mirrored.timestamp.as_deref().or(record.timestamp.as_deref()),
                        agent_id: d.agent_id.as_deref().map(str::to_owned),
                        content: mirrored.message.as_ref()?.content?,
                        tool_use_result: mirrored.tool_use_result,
                    })
                }),
            _ => None, // summaries, compaction boundaries, attachments, …
        };
        let Some(place) = place else { return Vec::new() };
        if !place.content.get().starts_with('[') {
            return Vec::new(); // a plain prompt
        }
        let Ok(blocks) = serde_json::from_str::<Vec<Block>>(place.content.get()) else {
            *malformed += 1;
            return Vec::new();
        };
        let mut calls = Vec::new();
        for block in blocks {
            match block.kind.as_deref() {
                Some("tool_use") if place.kind == "assistant" => {
                    if let (Some(id), Some(name)) = (block.id, block.name) {
                        let input = block
                            .input
                            .map(|i| i.to_owned())
                            .unwrap_or_else(|| RawValue::from_string("{}".into()).expect("valid JSON"));
                        self.pending.insert(
                            id.into_owned(),
                            PendingUse {
                                name: name.into_owned(),
                                input,
                            },
                        );
                    }
                }
                Some("tool_result") => {
                    let Some(id) = block.tool_use_id else { continue };
                    let Some(tool_use) = self.pending.remove(id.as_ref()) else {
                        continue;
                    };
                    let text = result_text(block.content);
                    if text.starts_with("<tool_use_error>") {
                        continue; // rejected before it ran: no hook saw it
                    }
                    let result = place.tool_use_result.map(RawValue::get).unwrap_or("");
                    let interrupted_bash = result.starts_with('{')
                        && serde_json::from_str::<BashResult>(result).is_ok_and(|r| r.interrupted);
                    let outcome = if text.starts_with("[Request interrupted by user") || interrupted_bash {
                        Outcome::Interrupt(text)
                    } else if block.is_error == Some(true) {
                        // older clients note a rejection only here
                        if result == "\"User rejected tool use\"" {
                            Outcome::Failure(REJECTED.to_owned())
                        } else {
                            Outcome::Failure(text)
                        }
                    } else {
                        let shell = matches!(tool_use.name.as_str(), "Bash" | "PowerShell");
                        Outcome::Success(shell.then(|| crate::agent::payload::head_and_tail(&text, crate::agent::payload::OUTPUT_PART)))
                    };
                    let subagent = matches!(tool_use.name.as_str(), "Agent" | "Task")
                        .then(|| serde_json::from_str::<AgentResult>(result).ok()?.agent_id)
                        .flatten();
                    let read_gave_nothing = matches!(outcome, Outcome::Success(_))
                        && tool_use.name == "Read"
                        && serde_json::from_str::<ReadResult>(result)
                            .ok()
                            .and_then(|r| r.file?.content)
                            .is_some_and(|content| content.get() == "\"\"");
                    calls.push(Call {
                        subagent,
                        read_gave_nothing,
                        ts: place.timestamp.unwrap_or("").to_owned(),
                        session_id: record.session_id.as_deref().unwrap_or("unknown").to_owned(),
                        cwd: record.cwd.as_deref().map(str::to_owned),
                        agent_id: place.agent_id.clone(),
                        tool_use_id: id.into_owned(),
                        tool_name: tool_use.name,
                        tool_input: tool_use.input,
                        outcome,
                        agent: None,
                        turn_id: None,
                    });
                }
                _ => {}
            }
        }
        calls
    }
}

/// A file's format, told by its first record: Claude Code's transcript or
/// Codex's session file.
enum Format {
    Unknown,
    Claude(Transcript),
    Codex(Box<learn_codex::Rollout>),
}

impl Format {
    fn read_line(&mut self, line: &[u8], malformed: &mut u64) -> Vec<Call> {
        if let Format::Unknown = self {
            if line.iter().all(u8::is_ascii_whitespace) {
                return Vec::new();
            }
            *self = if learn_codex::is_rollout_start(line) {
                Format::Codex(Box::default())
            } else {
                Format::Claude(Transcript::default())
            };
        }
        match self {
            Format::Claude(transcript) => transcript.read_line(line, malformed),
            Format::Codex(rollout) => rollout.read_line(line, malformed),
            Format::Unknown => Vec::new(),
        }
    }
}

/// The first record of the sidechain `uuid` belongs to.
fn sidechain_root<'a>(parents: &'a HashMap<String, (Option<String>, bool)>, mut uuid: &'a str) -> &'a str {
    for _ in 0..100_000 {
        match parents.get(uuid) {
            Some((Some(parent), true)) if parents.get(parent.as_str()).is_some_and(|p| p.1) => uuid = parent,
            _ => break,
        }
    }
    uuid
}

/// A tool result's text: a string, or the text blocks of a list.
fn result_text(content: Option<&RawValue>) -> String {
    let Some(content) = content else { return String::new() };
    let raw = content.get();
    if raw.starts_with('"') {
        return serde_json::from_str::<String>(raw).unwrap_or_default();
    }
    serde_json::from_str::<Vec<Block>>(raw)
        .map(|blocks| {
            blocks
                .iter()
                .filter_map(|b| b.text.as_deref())
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}

/// What the failure hook reads of an error: its first 20,000 characters
/// (sql/hooks/PostToolUseFailure.sql cuts it there before anything else).
/// Handing the script no more keeps an import's memory near the size of
/// its longest line, whatever a tool printed.
const ERROR_CHARS_READ: usize = 20_000;

/// What PostToolUseFailure.sql derives from a failure's text, worked out
/// on the parsing thread for the `number`th call it read and offered to
/// the SQL functions that will ask for it while that call is stored (see
/// `errkb::ahead`): its secrets redacted, that text's home folders (and
/// what else `redact_private` takes out) redacted, the excerpts of both,
/// the signature of the second (the script's English text when no message
/// catalog translates it). Only for what the script derives anything
/// from: the tool's own errors and interrupts.
fn work_out_ahead(call: &Call, number: u64) {
    use errkb::ahead::{self, Rule};
    use errkb::text::{failure_kind, redact, signature};
    let (text, interrupt) = match &call.outcome {
        Outcome::Failure(text) => (text, false),
        Outcome::Interrupt(text) => (text, true),
        Outcome::Success(_) => return,
    };
    let read = read_of_error(text);
    // (about nine copies of the text: the inputs and what comes of them)
    if !interrupt && failure_kind::failure_kind(read) != failure_kind::FailureKind::Error || !ahead::has_room(9 * read.len())
    {
        return;
    }
    // A rule that panicked on some text is the import's SQL function's to
    // report, as a call skipped: here it only means nothing is offered.
    let worked = std::panic::catch_unwind(|| {
        let secrets_out = redact::redact_secrets(read).into_owned();
        let private_out = redact::redact_private(&secrets_out).into_owned();
        let mut worked = ahead::Worked::new(number);
        worked.text(Rule::Excerpt, secrets_out.clone(), signature::excerpt(&secrets_out).into_owned());
        worked.text(Rule::Excerpt, private_out.clone(), signature::excerpt(&private_out).into_owned());
        worked.signature(private_out.clone(), signature::signature(&private_out));
        worked.text(Rule::RedactSecrets, read.to_owned(), secrets_out.clone());
        worked.text(Rule::RedactPrivate, secrets_out, private_out);
        worked
    });
    if let Ok(worked) = worked {
        ahead::offer(worked);
    }
}

fn read_of_error(text: &str) -> &str {
    match text.char_indices().nth(ERROR_CHARS_READ) {
        Some((end, _)) => &text[..end],
        None => text,
    }
}

/// The payload the live hook would have received.
#[derive(Serialize)]
struct Payload<'a> {
    session_id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    cwd: Option<&'a str>,
    hook_event_name: &'a str,
    tool_name: &'a str,
    tool_input: &'a RawValue,
    tool_use_id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    agent_id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    is_interrupt: Option<bool>,
    /// Of an Agent (Task) call: `{"agentId": …}`, as the hook gets it.
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_response: Option<serde_json::Value>,
}

/// The folders of past sessions of `agents` that hold any: (the agent's
/// name, the folder, how many files).
fn history_of(agents: &[Agent]) -> Result<Vec<(&'static str, PathBuf, usize)>> {
    let mut found = Vec::new();
    for agent in agents {
        let folders = match agent {
            Agent::Claude => vec![default_transcripts()?],
            Agent::Codex => vec![default_codex_sessions()?, archived_codex_sessions()?],
        };
        for folder in folders {
            let files = transcript_files(std::slice::from_ref(&folder)).len();
            if folder.is_dir() && files > 0 {
                found.push((agent.name(), folder, files));
            }
        }
    }
    Ok(found)
}

/// After install: a knowledge base from the user's past sessions with the
/// agents set up, if they want it now (asked on a terminal; otherwise said
/// how).
pub fn offer(db_path: &Path, agents: &[Agent], out: &mut impl std::io::Write) -> Result<()> {
    let found = history_of(agents)?;
    if found.is_empty() {
        return Ok(());
    }
    let said = found
        .iter()
        .map(|(agent, folder, files)| {
            let sessions = counted(files, &format!("past {agent} session"), &format!("past {agent} sessions"));
            format!("{sessions} in {}", folder.display())
        })
        .collect::<Vec<_>>()
        .join(" and ");
    let interactive = std::io::stdin().is_terminal() && std::io::stdout().is_terminal();
    if interactive {
        write!(out, "Learn from your {said} now? [Y/n] ")?;
        out.flush()?;
        let mut answer = String::new();
        std::io::stdin().read_line(&mut answer)?;
        if matches!(answer.trim().to_lowercase().as_str(), "" | "y" | "yes") {
            let conn = db::open(db_path, db::Access::ReadWrite)?;
            let folders: Vec<PathBuf> = found.into_iter().map(|(_, folder, _)| folder).collect();
            write!(out, "{}", run(&conn, &folders)?)?;
            writeln!(out, "run 'errkb embed' to make them findable by meaning too")?;
            return Ok(());
        }
    }
    writeln!(out, "{said}: 'errkb learn' learns their errors and fixes")?;
    Ok(())
}

/// `errkb learn [PATH…]` (default: Claude Code's transcripts folder and
/// Codex's sessions folder, those that exist).
pub fn command(db_path: &Path, paths: Vec<PathBuf>, out: &mut impl std::io::Write) -> Result<std::process::ExitCode> {
    let paths = if paths.is_empty() {
        let defaults: Vec<PathBuf> = [
            default_transcripts()?,
            default_codex_sessions()?,
            archived_codex_sessions()?,
        ]
        .into_iter()
        .filter(|d| d.is_dir())
        .collect();
        if defaults.is_empty() {
            writeln!(
                out,
                "no Claude Code transcripts in {} and no Codex sessions in {} (nothing to learn)",
                default_transcripts()?.display(),
                default_codex_sessions()?.display()
            )?;
            return Ok(std::process::ExitCode::SUCCESS);
        }
        defaults
    } else {
        paths
    };
    let conn = db::open(db_path, db::Access::ReadWrite)?;
    let summary = run(&conn, &paths)?;
    drop(conn);
    write!(out, "{summary}")?;
    // what was learned goes to the team's hub, when one is joined (a hub
    // that cannot be reached is tried again later; the import stands)
    out.flush()?;
    if let Err(e) = crate::commands::hub::sync_if_joined(Some(db_path.to_path_buf())) {
        writeln!(out, "{e:#}")?;
    }
    if summary.fixes_learned > 0 {
        writeln!(out, "run 'errkb embed' to make them findable by meaning too")?;
    }
    Ok(std::process::ExitCode::SUCCESS)
}
