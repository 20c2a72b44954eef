//! What Codex's session files (rollouts) say about a tool call: how a
//! command ended, read by a hook from the tail of the live session's file
//! (`shell_end`), and how any version's output text tells a failure
//! (`classify`), for `errkb learn`.
//!
//! A rollout is JSON lines (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-….jsonl`).
//! Codex 0.171 writes, before PostToolUse runs, an `event_msg` record
//! `item_completed` whose `item` is the `CommandExecution` of the call
//! (`item.id` = the hook's `tool_use_id`, `exit_code`, `status`, `cwd` as a
//! `file://` URL); 0.12x wrote `exec_command_end` (`call_id`, `exit_code`);
//! older versions only the output text the model got, whose shapes
//! `classify` knows.

use std::borrow::Cow;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use serde::Deserialize;
use serde_json::value::RawValue;

/// How a shell call ended, as the session file records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellEnd {
    /// None when Codex wrote none (a command it could not start, killed).
    pub exit_code: Option<i64>,
    /// `completed`, `failed`, `declined` …
    pub status: Option<String>,
    /// The folder the command ran in (the model's `workdir`), a path.
    pub cwd: Option<String>,
    /// What the call asked for itself, from its call record when that is
    /// in the part of the file read.
    pub settings: CallSettings,
}

/// What a shell call asked for itself in its arguments: escalated
/// permissions (`with_escalated_permissions`, or `sandbox_permissions:
/// require_escalated`: the sandbox off), and a time limit of its own in
/// milliseconds (`timeout_ms` of `shell`, `shell_command` and
/// `local_shell`'s action; the shell's default otherwise, and
/// `exec_command` runs until the command ends).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CallSettings {
    pub escalated: bool,
    pub timeout: Option<i64>,
}

impl CallSettings {
    pub fn of(arguments: &serde_json::Value) -> CallSettings {
        CallSettings {
            escalated: arguments.get("with_escalated_permissions").and_then(serde_json::Value::as_bool) == Some(true)
                || arguments.get("sandbox_permissions").and_then(serde_json::Value::as_str)
                    == Some("require_escalated"),
            timeout: arguments.get("timeout_ms").and_then(serde_json::Value::as_i64).filter(|t| *t > 0),
        }
    }
}

impl ShellEnd {
    /// Whether the command failed: a non-zero exit, or no exit code and a
    /// failed status.
    pub fn failed(&self) -> bool {
        match self.exit_code {
            Some(code) => code != 0,
            None => self.status.as_deref() == Some("failed"),
        }
    }
}

/// How much of the file's end is read first; the window grows fourfold
/// until the record is found whole, up to `MAX_TAIL`. The record is
/// written right before PostToolUse runs, so it is almost always in the
/// first window (its line holds at most 64 KiB of output, escaped).
const FIRST_TAIL: u64 = 64 << 10;
/// Past this the call is not looked for: a hook reads no more of a file.
pub const MAX_TAIL: u64 = 4 << 20;

/// How the call `call_id` ended, from the end of the session file at
/// `path`: Ok(None) when the file does not record it (yet) within the
/// last `MAX_TAIL` bytes. Only a regular file is read (not a FIFO or a
/// device, which could block or never end).
pub fn shell_end(path: &Path, call_id: &str) -> std::io::Result<Option<ShellEnd>> {
    use std::os::unix::fs::OpenOptionsExt;
    let not_a_file = || std::io::Error::other("not a regular file");
    if !std::fs::metadata(path)?.is_file() {
        return Err(not_a_file());
    }
    // O_NONBLOCK: should the path have become a FIFO since, opening it
    // does not wait for a writer
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    let metadata = file.metadata()?;
    if !metadata.is_file() {
        return Err(not_a_file());
    }
    let len = metadata.len();
    // the id as JSON writes it, quotes included
    let needle = serde_json::to_string(call_id).unwrap_or_default();
    let mut window = FIRST_TAIL.min(len);
    let mut buffer = Vec::new();
    loop {
        let start = len - window;
        file.seek(SeekFrom::Start(start))?;
        // the window, or less should the file have been cut since (room
        // made first: read in one call, not in growing steps)
        buffer.clear();
        buffer.reserve_exact(usize::try_from(window).unwrap_or(0));
        (&mut file).take(window).read_to_end(&mut buffer)?;
        let (found, cut_short) = find_end(&buffer, start == 0, needle.as_bytes(), call_id);
        if found.is_some() || !cut_short || window >= len.min(MAX_TAIL) {
            return Ok(found);
        }
        window = (window * 4).min(len).min(MAX_TAIL);
    }
}

/// The call's end among the whole lines of `buffer`, newest first; and
/// whether more of the file lies before it (its first line is then a
/// part, not looked at).
fn find_end(buffer: &[u8], from_start: bool, needle: &[u8], call_id: &str) -> (Option<ShellEnd>, bool) {
    // newest first: the end, then (older) the call's own record
    let mut naming = lines_naming(whole_lines(buffer, from_start), needle);
    let found = naming.by_ref().find_map(|line| end_record(line, call_id)).map(|mut end| {
        end.settings = naming.find_map(|line| call_record(line, call_id)).unwrap_or_default();
        end
    });
    (found, !from_start)
}

/// The whole lines of a window of the file: all of it from the file's
/// start, else from its first line break on (it began inside a line).
fn whole_lines(buffer: &[u8], from_start: bool) -> &[u8] {
    if from_start {
        buffer
    } else {
        &buffer[memchr::memchr(b'\n', buffer).map_or(buffer.len(), |at| at + 1)..]
    }
}

/// The lines of `text` that hold `needle`, the last first. The needle is
/// looked for, and only its lines are cut out: the window is tens of
/// kilobytes of other calls' output, which a split into every line would
/// read byte by byte (a tenth of a Codex hook's time). (memchr's forward
/// search is vectorised, its reverse one is not: the places are found
/// forward, then taken last first.)
fn lines_naming<'t>(text: &'t [u8], needle: &[u8]) -> impl Iterator<Item = &'t [u8]> + 't {
    let places: Vec<usize> = memchr::memmem::find_iter(text, needle).collect();
    // the start of the line last given: a place at or after it is in it
    let mut given = text.len() + 1;
    places.into_iter().rev().filter_map(move |at| {
        if at >= given {
            return None;
        }
        let start = memchr::memrchr(b'\n', &text[..at]).map_or(0, |nl| nl + 1);
        let stop = memchr::memchr(b'\n', &text[at..]).map_or(text.len(), |nl| at + nl);
        given = start;
        Some(&text[start..stop])
    })
}

/// When `line` is the record of the call `call_id` itself: what its
/// arguments ask for.
fn call_record(line: &[u8], call_id: &str) -> Option<CallSettings> {
    let record: Record = serde_json::from_slice(line).ok()?;
    let payload = record.payload.filter(|_| record.kind.as_deref() == Some("response_item"))?;
    if !matches!(payload.kind.as_deref(), Some("function_call" | "local_shell_call"))
        || payload.call_id.as_deref() != Some(call_id)
    {
        return None;
    }
    let arguments = match (payload.arguments, payload.action) {
        (Some(text), _) => serde_json::from_str(&text).ok(),
        (None, Some(action)) => serde_json::from_str(action.get()).ok(),
        _ => None,
    };
    Some(arguments.as_ref().map(CallSettings::of).unwrap_or_default())
}

/// A rollout record as a hook reads it: a call's end (`event_msg`), or the
/// call's own record (`response_item`); every other field is skipped.
#[derive(Deserialize)]
struct Record<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    payload: Option<RecordPayload<'a>>,
}

#[derive(Deserialize)]
struct RecordPayload<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    item: Option<Item<'a>>,
    #[serde(borrow, default)]
    call_id: Option<Cow<'a, str>>,
    #[serde(default)]
    exit_code: Option<i64>,
    #[serde(borrow, default)]
    cwd: Option<Cow<'a, str>>,
    /// a call's own record: a function call's arguments (a JSON text in
    /// a string), a local shell call's action (an object)
    #[serde(borrow, default)]
    arguments: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    action: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct Item<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(default)]
    exit_code: Option<i64>,
    #[serde(borrow, default)]
    status: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    cwd: Option<Cow<'a, str>>,
    /// the output, skipped over unread
    #[serde(borrow, default, rename = "aggregated_output")]
    _output: Option<&'a RawValue>,
}

/// The end of `call_id` when `line` records it: `item_completed` with a
/// `CommandExecution` (0.171), or `exec_command_end` (0.12x).
pub fn end_record(line: &[u8], call_id: &str) -> Option<ShellEnd> {
    let record: Record = serde_json::from_slice(line).ok()?;
    if record.kind.as_deref() != Some("event_msg") {
        return None;
    }
    let payload = record.payload?;
    match payload.kind.as_deref()? {
        "item_completed" => {
            let item = payload.item?;
            (item.kind.as_deref() == Some("CommandExecution") && item.id.as_deref() == Some(call_id)).then(|| {
                ShellEnd {
                    exit_code: item.exit_code,
                    status: item.status.map(Cow::into_owned),
                    cwd: item.cwd.as_deref().and_then(file_url_path),
                    settings: CallSettings::default(),
                }
            })
        }
        "exec_command_end" => (payload.call_id.as_deref() == Some(call_id)).then(|| ShellEnd {
            exit_code: payload.exit_code,
            status: None,
            cwd: payload.cwd.map(Cow::into_owned),
            settings: CallSettings::default(),
        }),
        _ => None,
    }
}

/// `file:///home/me/app` → `/home/me/app` (percent-decoded); a plain path
/// as it is.
pub fn file_url_path(url: &str) -> Option<String> {
    let Some(rest) = url.strip_prefix("file://") else {
        return Some(url.to_owned());
    };
    let path = rest.strip_prefix("localhost").unwrap_or(rest);
    let decoded = percent_encoding::percent_decode_str(path).decode_utf8().ok()?;
    // file:///C:/Users/x → C:/Users/x
    let decoded = match decoded.as_bytes() {
        [b'/', drive, b':', ..] if drive.is_ascii_alphabetic() => decoded[1..].to_owned(),
        _ => decoded.into_owned(),
    };
    Some(decoded)
}

/// What a call's output text says about how it went, in any Codex version
/// (the shapes `scripts/codex_sessions/digest.py` documents).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// It ran and exited with this code (None: no code given, taken as
    /// success); the text is its output without Codex's headers.
    Exit(Option<i64>, String),
    /// Still running in unified exec session N: its end comes in a later
    /// `write_stdin` poll of that session.
    Running(i64),
    /// Codex's own failure message, of this kind, with its text.
    Failed(Failure, String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// The command failed (in the sandbox, or could not start).
    Error,
    /// The user said no.
    Rejected,
    /// Codex's approval policy refused to run it.
    Denied,
    /// The user stopped it.
    Interrupted,
    /// Codex refused the call's input before anything ran (a patch that
    /// does not apply, arguments it cannot parse, an unknown tool).
    Invalid,
}

/// Plain-text outputs that are Codex refusing or failing the call, by kind.
const FAILURE_STARTS: &[(&str, Failure)] = &[
    ("failed in sandbox", Failure::Error),
    ("execution error:", Failure::Error),
    ("exec_command failed:", Failure::Error),
    ("exec command rejected by user", Failure::Rejected),
    ("aborted", Failure::Interrupted),
    ("write_stdin failed:", Failure::Invalid),
    ("failed to parse function arguments", Failure::Invalid),
    ("unsupported call:", Failure::Invalid),
    ("apply_patch verification failed", Failure::Invalid),
    ("error: failed to find expected lines", Failure::Invalid),
    ("error: invalid hunk", Failure::Invalid),
    ("error: invalid patch", Failure::Invalid),
    ("error: failed to read file", Failure::Invalid),
    ("error: failed to write file", Failure::Invalid),
    ("request_user_input is unavailable", Failure::Invalid),
    ("resources/list failed", Failure::Invalid),
    ("resource templates/list failed", Failure::Invalid),
];

/// How a call went, from its output.
pub fn classify(output: &str) -> Verdict {
    let s = output.trim_start();
    // JSON in the text: shell 0.2x–0.5x and apply_patch {"output", "metadata": {"exit_code"}}
    if s.starts_with('{') {
        #[derive(Deserialize)]
        struct Json {
            #[serde(default)]
            output: Option<String>,
            #[serde(default)]
            metadata: Option<Metadata>,
            #[serde(rename = "isError", default)]
            is_error: Option<bool>,
        }
        #[derive(Deserialize)]
        struct Metadata {
            #[serde(default)]
            exit_code: Option<i64>,
        }
        if let Ok(json) = serde_json::from_str::<Json>(s) {
            if let Some(metadata) = json.metadata {
                return Verdict::Exit(metadata.exit_code, json.output.unwrap_or_default());
            }
            if json.is_error == Some(true) {
                return Verdict::Failed(Failure::Error, s.to_owned());
            }
        }
        return Verdict::Exit(None, s.to_owned());
    }
    // `Exit code: N\nWall time: …\nOutput:\n…` (shell_command, apply_patch)
    if let Some(rest) = s.strip_prefix("Exit code: ") {
        let code = rest.lines().next().and_then(|l| l.trim().parse().ok());
        return Verdict::Exit(code, after_output_header(s).to_owned());
    }
    // unified exec: `Chunk ID: …\nWall time: …\nProcess exited with code N\n…`
    let head = &s[..floor_char_boundary(s, 400)];
    if s.starts_with("Chunk ID:")
        || head.contains("Process exited with code ")
        || head.contains("Process running with session ID ")
    {
        for line in head.lines() {
            if let Some(code) = line.strip_prefix("Process exited with code ") {
                return Verdict::Exit(code.trim().parse().ok(), after_output_header(s).to_owned());
            }
            if let Some(session) = line.strip_prefix("Process running with session ID ") {
                if let Ok(session) = session.trim().parse() {
                    return Verdict::Running(session);
                }
            }
        }
        return Verdict::Exit(None, after_output_header(s).to_owned());
    }
    // `Wall time: 406.9 seconds\naborted by user`
    if s.starts_with("Wall time:") {
        let body = s.split_once('\n').map_or("", |(_, b)| b);
        if body.trim_start().to_ascii_lowercase().starts_with("aborted") {
            return Verdict::Failed(Failure::Interrupted, s.to_owned());
        }
        return Verdict::Exit(None, after_output_header(s).to_owned());
    }
    // `…powershell.exe -Command '…'` rejected: blocked by policy
    if s.trim_end().ends_with("rejected: blocked by policy") {
        return Verdict::Failed(Failure::Denied, s.to_owned());
    }
    let lower = s[..floor_char_boundary(s, 64)].to_ascii_lowercase();
    if let Some((_, kind)) = FAILURE_STARTS.iter().find(|(start, _)| lower.starts_with(start)) {
        return Verdict::Failed(*kind, s.to_owned());
    }
    Verdict::Exit(None, s.to_owned())
}

/// The text after Codex's `Output:` header line, when there is one.
fn after_output_header(s: &str) -> &str {
    let mut at = 0;
    for line in s.split_inclusive('\n').take(8) {
        at += line.len();
        if line.trim_end() == "Output:" {
            return &s[at..];
        }
    }
    s
}

fn floor_char_boundary(s: &str, mut n: usize) -> usize {
    if n >= s.len() {
        return s.len();
    }
    while !s.is_char_boundary(n) {
        n -= 1;
    }
    n
}

/// A sandboxed command's failure as Codex 0.2x–0.4x wrote it: `failed in
/// sandbox <S> with execution error: sandbox denied exec error, exit code:
/// N, stdout: <out>, stderr: <err>` → (N, what it printed).
pub fn sandbox_failure(text: &str) -> Option<(i64, String)> {
    let at = text.find("exit code: ")?;
    let rest = &text[at + "exit code: ".len()..];
    let digits: String = rest.chars().take_while(|c| c.is_ascii_digit() || *c == '-').collect();
    let code = digits.parse().ok()?;
    let rest = &rest[digits.len()..];
    let (stdout, stderr) = match (rest.find(", stdout: "), rest.find(", stderr: ")) {
        (Some(o), Some(e)) if o < e => (&rest[o + 10..e], &rest[e + 10..]),
        (None, Some(e)) => ("", &rest[e + 10..]),
        (Some(o), None) => (&rest[o + 10..], ""),
        _ => ("", ""),
    };
    let printed = [stdout.trim_end(), stderr.trim_end()]
        .iter()
        .filter(|s| !s.is_empty())
        .copied()
        .collect::<Vec<_>>()
        .join("\n");
    Some((code, printed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_versions_output() {
        assert_eq!(
            classify(
                "{\"output\":\"sed: x: No such file\\n\",\"metadata\":{\"exit_code\":1,\"duration_seconds\":0.3}}"
            ),
            Verdict::Exit(Some(1), "sed: x: No such file\n".into())
        );
        assert_eq!(
            classify("Exit code: 2\nWall time: 0.1 seconds\nOutput:\nls: cannot access 'x'\n"),
            Verdict::Exit(Some(2), "ls: cannot access 'x'\n".into())
        );
        assert_eq!(
            classify("Chunk ID: 58cf9b\nWall time: 0.0000 seconds\nProcess exited with code 127\nOriginal token count: 13\nOutput:\nbash: x: command not found\n"),
            Verdict::Exit(Some(127), "bash: x: command not found\n".into())
        );
        assert_eq!(
            classify("Chunk ID: 1\nWall time: 0.25 seconds\nProcess running with session ID 4242\nOriginal token count: 0\nOutput:\n"),
            Verdict::Running(4242)
        );
        assert_eq!(
            classify("Wall time: 406.9 seconds\naborted by user").clone(),
            Verdict::Failed(Failure::Interrupted, "Wall time: 406.9 seconds\naborted by user".into())
        );
        assert!(matches!(
            classify("exec command rejected by user"),
            Verdict::Failed(Failure::Rejected, _)
        ));
        assert!(matches!(
            classify("`ps -Command 'x'` rejected: blocked by policy"),
            Verdict::Failed(Failure::Denied, _)
        ));
        assert!(matches!(
            classify("apply_patch verification failed: Failed to find expected lines in x"),
            Verdict::Failed(Failure::Invalid, _)
        ));
        assert!(matches!(
            classify("execution error: No such file or directory (os error 2)"),
            Verdict::Failed(Failure::Error, _)
        ));
        assert_eq!(classify("Plan updated"), Verdict::Exit(None, "Plan updated".into()));
        assert_eq!(
            classify("Exit code: 0\nWall time: 1 seconds\nOutput:\nSuccess. Updated the following files:\nM a\n"),
            Verdict::Exit(Some(0), "Success. Updated the following files:\nM a\n".into())
        );
        // a truncated header line or odd bytes never panic
        for text in [
            "Exit code: ",
            "Chunk ID:",
            "Process exited with code x",
            "Wall time:",
            "{",
            "é".repeat(300).as_str(),
        ] {
            let _ = classify(text);
        }
    }

    #[test]
    fn sandbox_failures_say_what_was_printed() {
        let text = "failed in sandbox MacosSeatbelt with execution error: sandbox denied exec error, exit code: 1, \
                    stdout: , stderr: sed: 1: bad flag in substitute command: '/'\n";
        assert_eq!(
            sandbox_failure(text),
            Some((1, "sed: 1: bad flag in substitute command: '/'".into()))
        );
        assert_eq!(
            sandbox_failure("failed in sandbox None with execution error: command timed out"),
            None
        );
    }

    /// What a call asks for itself, in each version's words; anything
    /// else asks for nothing.
    #[test]
    fn a_calls_settings_from_its_arguments() {
        let of = |v: serde_json::Value| CallSettings::of(&v);
        let escalated = |timeout| CallSettings { escalated: true, timeout };
        assert_eq!(of(serde_json::json!({"command": "x", "with_escalated_permissions": true})), escalated(None));
        assert_eq!(of(serde_json::json!({"sandbox_permissions": "require_escalated", "timeout_ms": 120000})),
                   escalated(Some(120_000)));
        for nothing in [serde_json::json!({"sandbox_permissions": "use_default", "timeout_ms": -5}),
                        serde_json::json!({"with_escalated_permissions": "yes", "timeout_ms": "120000"}),
                        serde_json::json!("text"), serde_json::Value::Null] {
            assert_eq!(of(nothing), CallSettings::default());
        }
    }

    #[test]
    fn the_lines_that_name_a_call_newest_first() {
        let lines = |text: &str, from_start: bool| -> Vec<String> {
            lines_naming(whole_lines(text.as_bytes(), from_start), b"\"c_1\"")
                .map(|line| String::from_utf8(line.to_vec()).unwrap())
                .collect()
        };
        // twice on one line, at a line's start, on the last line with no break after it
        let text = "\"c_1\" a\nb\nx \"c_1\" \"c_1\" y\n\"c_10\"\nz \"c_1\"";
        assert_eq!(lines(text, true), ["z \"c_1\"", "x \"c_1\" \"c_1\" y", "\"c_1\" a"]);
        // a window that began inside a line: that part is not a line
        assert_eq!(lines(text, false), ["z \"c_1\"", "x \"c_1\" \"c_1\" y"]);
        assert!(lines("\"c_1\" only a part", false).is_empty());
        assert!(lines("", true).is_empty());
        // every line as the split into lines gave them, on random text
        let mut seed = 7u64;
        for _ in 0..200 {
            let text: String = (0..300)
                .map(|_| {
                    seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    ["\n", "\"c_1\"", "\"c_1", "x", "c_1\""][(seed >> 33) as usize % 5]
                })
                .collect();
            let split: Vec<String> = text
                .split('\n')
                .rev()
                .filter(|line| line.contains("\"c_1\""))
                .map(str::to_owned)
                .collect();
            assert_eq!(lines(&text, true), split, "{text:?}");
        }
    }

    #[test]
    fn the_end_of_a_call_from_the_session_files_tail() {
        let dir = std::env::temp_dir().join(format!("errkb-rollout-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("rollout.jsonl");
        let end = |id: &str, code: i64| {
            format!("{{\"timestamp\":\"t\",\"type\":\"event_msg\",\"payload\":{{\"type\":\"item_completed\",\"item\":{{\"type\":\"CommandExecution\",\"id\":\"{id}\",\"cwd\":\"file:///w/my%20app\",\"status\":\"{}\",\"aggregated_output\":\"{}\",\"exit_code\":{code}}}}}}}\n",
                    if code == 0 { "completed" } else { "failed" }, "x".repeat(100_000))
        };
        let mut text = String::from("{\"type\":\"session_meta\",\"payload\":{}}\n");
        text.push_str(&end("s_1", 1));
        text.push_str(
            &"{\"type\":\"event_msg\",\"payload\":{\"type\":\"token_count\",\"note\":\"s_1\"}}\n".repeat(2000),
        );
        // a call that gave itself a time limit (its record before its end)
        text.push_str(
            "{\"type\":\"response_item\",\"payload\":{\"type\":\"function_call\",\"name\":\"shell_command\",\
             \"arguments\":\"{\\\"command\\\":\\\"cargo test\\\",\\\"timeout_ms\\\":120000}\",\"call_id\":\"s_2\"}}\n",
        );
        text.push_str(&end("s_2", 0));
        std::fs::write(&path, &text).unwrap();
        let s1 = shell_end(&path, "s_1").unwrap().unwrap();
        assert_eq!(
            (s1.exit_code, s1.failed(), s1.cwd.as_deref()),
            (Some(1), true, Some("/w/my app"))
        );
        let s2 = shell_end(&path, "s_2").unwrap().unwrap();
        assert!(!s2.failed());
        assert_eq!((s1.settings.timeout, s2.settings.timeout), (None, Some(120_000)));
        assert!(!s2.settings.escalated);
        assert_eq!(shell_end(&path, "s_3").unwrap(), None);
        // not a regular file: refused, never read
        assert!(shell_end(Path::new("/dev/zero"), "s_1").is_err());
        assert!(shell_end(&dir, "s_1").is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
