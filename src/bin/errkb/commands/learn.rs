//! `errkb learn [PATH…]`: a knowledge base from day one, out of the Claude
//! Code transcripts already on disk (`~/.claude/projects/**/*.jsonl`).
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
//! - Streams: a subagent's calls (`isSidechain`, with its `agentId`; in
//!   newer clients a file of its own under `<session>/subagents/`) are the
//!   agent's own stream, as the hooks keep them (`agent_id`).
//! - Order: a call counts when its result arrived (when PostToolUse fires),
//!   so parallel calls of one turn are taken in the order they finished.
//! - Idempotent: a call whose id an event already has (from a hook, or an
//!   earlier import) is skipped (Claude Code's ids are unique across
//!   sessions, and an older client's resumed session repeats its calls in a
//!   new file under a new session id); a file unchanged since its last import is
//!   not read again; a grown file adds only its new calls.
//! - Tolerant: unknown record types and fields are ignored (compaction
//!   boundaries, summaries, attachments…); a line that is not JSON is
//!   skipped and counted; a call without a result (cut off) is left out.
//!   Input-validation failures (`<tool_use_error>`) are left out too: they
//!   never reach the hooks.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use rusqlite::{params, Connection, OptionalExtension};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::runtime::script::{self, Params};
use crate::runtime::{db, hooks, paths};

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
}

impl std::fmt::Display for Summary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "read {} transcript files ({:.1} MB; {} unchanged since the last import)",
            self.files,
            self.bytes as f64 / 1e6,
            self.unchanged_files
        )?;
        writeln!(
            f,
            "{} sessions, {} tool calls ({} errors, {} interrupted), {} already known",
            self.sessions, self.tool_calls, self.errors, self.interrupts, self.already_known
        )?;
        write!(f, "{} fixes learned", self.fixes_learned)?;
        if self.malformed_lines > 0 {
            write!(f, "; {} malformed lines skipped", self.malformed_lines)?;
        }
        writeln!(f)
    }
}

/// Where Claude Code keeps its transcripts: `$CLAUDE_CONFIG_DIR/projects`,
/// else `~/.claude/projects`.
pub fn default_transcripts() -> Result<PathBuf> {
    Ok(paths::claude_dir()?.join("projects"))
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
    files.sort();
    files.dedup();
    files
}

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
    let mut scripts = Scripts {
        success: script::Repeated::new(&hooks::script_for("PostToolUse")?, "success"),
        failure: script::Repeated::new(&hooks::script_for("PostToolUseFailure")?, "failure"),
    };
    conn.set_prepared_statement_cache_capacity(
        scripts.success.statement_count() + scripts.failure.statement_count() + 8,
    );
    let mut summary = Summary::default();
    let mut sessions = HashSet::new();
    let fixes_before = count_fixes(conn)?;
    // Read when the first file is imported: none may need it.
    let mut known_calls = None;
    for file in &files {
        let metadata = std::fs::metadata(file).with_context(|| format!("cannot read {}", file.display()))?;
        let size = metadata.len();
        let mtime_ns = metadata
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos() as i64);
        let key = file.to_string_lossy();
        let seen: Option<(i64, i64)> = conn
            .query_row(
                "SELECT size, mtime_ns FROM transcript_imports WHERE path = ?1",
                [&key],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?;
        if seen == Some((size as i64, mtime_ns)) {
            summary.unchanged_files += 1;
            progress.inc(size);
            continue;
        }
        let bytes = std::fs::read(file).with_context(|| format!("cannot read {}", file.display()))?;
        summary.files += 1;
        summary.bytes += bytes.len() as u64;
        let calls = parse(&bytes, &mut summary.malformed_lines);
        conn.execute_batch("BEGIN")?;
        let known = match &mut known_calls {
            Some(known) => known,
            None => known_calls.insert(known_tool_calls(conn)?),
        };
        let imported = import_calls(conn, &mut scripts, known, &calls, &mut summary, &mut sessions);
        match imported {
            Ok(()) => {
                conn.execute(
                    "INSERT INTO transcript_imports (path, size, mtime_ns, ts) \
                     VALUES (?1, ?2, ?3, strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) \
                     ON CONFLICT (path) DO UPDATE SET size = excluded.size, mtime_ns = excluded.mtime_ns, ts = excluded.ts",
                    params![key, size as i64, mtime_ns],
                )?;
                conn.execute_batch("COMMIT")?;
            }
            Err(e) => {
                let _ = conn.execute_batch("ROLLBACK");
                return Err(e.context(format!("while importing {}", file.display())));
            }
        }
        progress.inc(size);
    }
    progress.finish_and_clear();
    summary.sessions = sessions.len() as u64;
    summary.fixes_learned = count_fixes(conn)? - fixes_before;
    Ok(summary)
}

struct Scripts {
    success: script::Repeated,
    failure: script::Repeated,
}

/// The tool calls already stored (by the hooks, or by an earlier import):
/// Claude Code's ids are unique across sessions, so a resumed session's
/// copy of earlier calls in another file is not imported again. Read once
/// per run rather than looked up per call: an index on the id would cost
/// every hook a page write for what only this command reads.
fn known_tool_calls(conn: &Connection) -> Result<HashSet<String>> {
    let mut stmt = conn.prepare(
        "SELECT data ->> '$.toolUseId' FROM events \
         WHERE type IN ('tool_use', 'tool_error', 'tool_interrupt') AND data ->> '$.toolUseId' IS NOT NULL",
    )?;
    let ids = stmt.query_map([], |r| r.get::<_, String>(0))?;
    Ok(ids.collect::<rusqlite::Result<_>>()?)
}

fn count_fixes(conn: &Connection) -> Result<u64> {
    Ok(conn.query_row("SELECT count(*) FROM learned_errors", [], |r| r.get::<_, i64>(0))? as u64)
}

/// One tool call with its result, as the hooks would have seen it.
struct Call {
    /// When the result arrived: the time PostToolUse(Failure) fires.
    ts: String,
    /// Position in the file, to keep the file's order among equal times.
    position: usize,
    session_id: String,
    cwd: Option<String>,
    agent_id: Option<String>,
    tool_use_id: String,
    tool_name: String,
    tool_input: Box<RawValue>,
    outcome: Outcome,
}

enum Outcome {
    Success,
    Failure(String),
    Interrupt(String),
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
    message: Option<Message<'a>>,
    #[serde(rename = "toolUseResult", borrow, default)]
    tool_use_result: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct Message<'a> {
    #[serde(borrow, default)]
    content: Option<&'a RawValue>,
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

/// A tool_use waiting for its result.
struct PendingUse {
    name: String,
    input: Box<RawValue>,
}

/// The calls of one transcript file, in the order their results arrived.
fn parse(bytes: &[u8], malformed: &mut u64) -> Vec<Call> {
    let mut pending: HashMap<String, PendingUse> = HashMap::new();
    let mut calls = Vec::new();
    // uuid → (parent uuid, is a sidechain record): for sidechains of older
    // clients, which name no agentId, the stream is the sidechain's root.
    let mut parents: HashMap<String, (Option<String>, bool)> = HashMap::new();
    for (position, line) in bytes.split(|&b| b == b'\n').enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let Ok(record) = serde_json::from_slice::<Record>(line) else {
            *malformed += 1;
            continue;
        };
        if record.is_sidechain && record.agent_id.is_none() {
            if let Some(uuid) = &record.uuid {
                parents.insert(
                    uuid.to_string(),
                    (record.parent_uuid.as_deref().map(str::to_owned), true),
                );
            }
        }
        let kind = record.kind.as_deref().unwrap_or("");
        if kind != "assistant" && kind != "user" {
            continue; // summaries, compaction boundaries, attachments, …
        }
        let Some(content) = record.message.as_ref().and_then(|m| m.content) else {
            continue;
        };
        if !content.get().starts_with('[') {
            continue; // a plain prompt
        }
        let Ok(blocks) = serde_json::from_str::<Vec<Block>>(content.get()) else {
            *malformed += 1;
            continue;
        };
        for block in blocks {
            match block.kind.as_deref() {
                Some("tool_use") => {
                    if let (Some(id), Some(name)) = (block.id, block.name) {
                        let input = block
                            .input
                            .map(|i| i.to_owned())
                            .unwrap_or_else(|| RawValue::from_string("{}".into()).expect("valid JSON"));
                        pending.insert(
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
                    let Some(tool_use) = pending.remove(id.as_ref()) else {
                        continue;
                    };
                    let text = result_text(block.content);
                    if text.starts_with("<tool_use_error>") {
                        continue; // rejected before it ran: no hook saw it
                    }
                    let interrupted_bash = record
                        .tool_use_result
                        .filter(|r| r.get().starts_with('{'))
                        .and_then(|r| serde_json::from_str::<BashResult>(r.get()).ok())
                        .is_some_and(|r| r.interrupted);
                    let outcome = if text.starts_with("[Request interrupted by user") || interrupted_bash {
                        Outcome::Interrupt(text)
                    } else if block.is_error == Some(true) {
                        Outcome::Failure(text)
                    } else {
                        Outcome::Success
                    };
                    let agent_id = match (&record.agent_id, record.is_sidechain) {
                        (Some(agent), _) => Some(agent.to_string()),
                        (None, true) => record
                            .uuid
                            .as_deref()
                            .map(|uuid| format!("sidechain-{}", sidechain_root(&parents, uuid))),
                        (None, false) => None,
                    };
                    calls.push(Call {
                        ts: record.timestamp.as_deref().unwrap_or("").to_owned(),
                        position,
                        session_id: record.session_id.as_deref().unwrap_or("unknown").to_owned(),
                        cwd: record.cwd.as_deref().map(str::to_owned),
                        agent_id,
                        tool_use_id: id.into_owned(),
                        tool_name: tool_use.name,
                        tool_input: tool_use.input,
                        outcome,
                    });
                }
                _ => {}
            }
        }
    }
    // Results in the order they arrived (ISO 8601 times sort as text).
    calls.sort_by(|a, b| a.ts.cmp(&b.ts).then(a.position.cmp(&b.position)));
    calls
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
}

fn import_calls(
    conn: &Connection,
    scripts: &mut Scripts,
    known: &mut HashSet<String>,
    calls: &[Call],
    summary: &mut Summary,
    sessions: &mut HashSet<String>,
) -> Result<()> {
    // What the hooks recorded live in these sessions, as of now (inside
    // this file's transaction): calls of a session that is still running.
    let mut live = conn.prepare_cached(
        "SELECT data ->> '$.toolUseId' FROM events WHERE session_id = ?1 \
         AND type IN ('tool_use', 'tool_error', 'tool_interrupt') AND data ->> '$.toolUseId' IS NOT NULL",
    )?;
    for session in calls.iter().map(|c| &c.session_id).collect::<HashSet<_>>() {
        for id in live.query_map([session], |r| r.get::<_, String>(0))? {
            known.insert(id?);
        }
    }
    for call in calls {
        if !known.insert(call.tool_use_id.clone()) {
            summary.already_known += 1;
            continue;
        }
        let (event, script, error, is_interrupt) = match &call.outcome {
            Outcome::Success => ("PostToolUse", &mut scripts.success, None, None),
            Outcome::Failure(text) => (
                "PostToolUseFailure",
                &mut scripts.failure,
                Some(text.as_str()),
                Some(false),
            ),
            Outcome::Interrupt(text) => (
                "PostToolUseFailure",
                &mut scripts.failure,
                Some(text.as_str()),
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
        })?;
        let mut params = Params::default();
        params.set("stdin", payload);
        params.set("event_ts", call.ts.clone());
        script
            .run(conn, &params)
            .with_context(|| format!("{event}.sql on tool call {}", call.tool_use_id))?;
        summary.tool_calls += 1;
        match call.outcome {
            Outcome::Failure(_) => summary.errors += 1,
            Outcome::Interrupt(_) => summary.interrupts += 1,
            Outcome::Success => {}
        }
        sessions.insert(call.session_id.clone());
    }
    Ok(())
}

/// After install: a knowledge base from the user's past sessions, if they
/// want it now (asked on a terminal; otherwise said how).
pub fn offer(db_path: &Path, out: &mut impl std::io::Write) -> Result<()> {
    let transcripts = default_transcripts()?;
    let files = transcript_files(std::slice::from_ref(&transcripts));
    if !transcripts.is_dir() || files.is_empty() {
        return Ok(());
    }
    let interactive = std::io::stdin().is_terminal() && std::io::stdout().is_terminal();
    if interactive {
        write!(
            out,
            "Learn from your {} past Claude Code sessions in {} now? [Y/n] ",
            files.len(),
            transcripts.display()
        )?;
        out.flush()?;
        let mut answer = String::new();
        std::io::stdin().read_line(&mut answer)?;
        if matches!(answer.trim().to_lowercase().as_str(), "" | "y" | "yes") {
            let conn = db::open(db_path, db::Access::ReadWrite)?;
            write!(out, "{}", run(&conn, &[transcripts])?)?;
            writeln!(out, "run 'errkb embed' to make them findable by meaning too")?;
            return Ok(());
        }
    }
    writeln!(
        out,
        "{} past Claude Code sessions in {}: 'errkb learn' learns their errors and fixes",
        files.len(),
        transcripts.display()
    )?;
    Ok(())
}

/// `errkb learn [PATH…]` (default: Claude Code's transcripts folder).
pub fn command(db_path: &Path, paths: Vec<PathBuf>, out: &mut impl std::io::Write) -> Result<std::process::ExitCode> {
    let paths = if paths.is_empty() {
        let default = default_transcripts()?;
        if !default.is_dir() {
            writeln!(
                out,
                "no Claude Code transcripts in {} (nothing to learn)",
                default.display()
            )?;
            return Ok(std::process::ExitCode::SUCCESS);
        }
        vec![default]
    } else {
        paths
    };
    let conn = db::open(db_path, db::Access::ReadWrite)?;
    let summary = run(&conn, &paths)?;
    write!(out, "{summary}")?;
    if summary.fixes_learned > 0 {
        writeln!(out, "run 'errkb embed' to make them findable by meaning too")?;
    }
    Ok(std::process::ExitCode::SUCCESS)
}
