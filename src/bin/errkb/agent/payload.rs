//! Claude Code's hook payload, as the runner sees it before the script
//! does: what is wrong with it (logged as warnings), and what of it the
//! script is given.
//!
//! The payload is read once into its top-level fields, each kept as the
//! JSON text it was sent as (`RawValue`): the checks look at a few small
//! fields, and a field the script never reads (a Read's 40 KB file, a
//! command's megabytes of output) is skipped over, never decoded.

use std::borrow::Cow;
use std::collections::BTreeMap;

use anyhow::Result;
use serde_json::value::RawValue;

/// Payloads above this are logged (they still work: errors are cut to size).
const LARGE_PAYLOAD: usize = 1 << 20;
/// The tools whose output is passed as `:output`.
const SHELLS: &[&str] = &["Bash", "PowerShell"];
/// How much of a command's output is passed: its head and its tail.
pub const OUTPUT_PART: usize = 16 * 1024;

/// What a hook's script is given of the payload.
pub struct ForScript {
    /// `:stdin`: the payload without the fields in `unread`, which no
    /// script reads (a command's whole output, a Read's file).
    pub stdin: String,
    /// `:file_content`: for a tool in `read_for`, the file as read
    /// (`tool_response.file.content`), passed on its own so that SQLite
    /// never parses it as JSON, and reads it only when the file has a
    /// history.
    pub file_content: Option<String>,
    /// `:output`: a shell command's output (`tool_response.stdout` and
    /// `.stderr`, the head and tail of a long one), passed on its own: a
    /// success whose output shows an error again did not fix it.
    pub output: Option<String>,
    /// `:subagent`: the agent an Agent (Task) call started
    /// (`tool_response.agentId`): its steps are the call's fix.
    pub subagent: Option<String>,
    /// What is wrong with the payload (logged as warnings).
    pub problems: Vec<String>,
}

pub fn for_script(event: &str, bytes: Vec<u8>, unread: &[&str], read_for: &[&str]) -> Result<ForScript> {
    // the bytes read become the text without a copy when they are UTF-8
    let (text, valid_utf8) = match String::from_utf8(bytes) {
        Ok(text) => (text, true),
        Err(e) => (String::from_utf8_lossy(e.as_bytes()).into_owned(), false),
    };
    let fields = Fields::parse(&text);
    let problems = problems(event, valid_utf8, &text, fields.as_ref());
    let (without_unread, file_content, output, subagent) = match &fields {
        Some(fields) if unread.iter().any(|key| fields.has(key)) => {
            let tool = fields.text("tool_name");
            let content = tool
                .as_deref()
                .filter(|tool| read_for.contains(tool))
                .and_then(|_| fields.file_content());
            let output = tool
                .as_deref()
                .filter(|tool| SHELLS.contains(tool))
                .and_then(|_| fields.shell_output());
            let subagent = tool
                .as_deref()
                .filter(|tool| matches!(*tool, "Agent" | "Task"))
                .and_then(|_| fields.subagent());
            (Some(fields.without(unread)?), content, output, subagent)
        }
        _ => (None, None, None, None),
    };
    Ok(ForScript {
        stdin: without_unread.unwrap_or(text),
        file_content,
        output,
        subagent,
        problems,
    })
}

/// A payload's top-level fields, as sent.
pub struct Fields<'a>(BTreeMap<Cow<'a, str>, &'a RawValue>);

impl<'a> Fields<'a> {
    /// None when the payload is not a JSON object.
    pub fn parse(text: &'a str) -> Option<Self> {
        serde_json::from_str(text).ok().map(Fields)
    }

    pub fn has(&self, key: &str) -> bool {
        self.0.contains_key(key)
    }

    /// The payload without the fields `keys`, as JSON.
    pub fn without(&self, keys: &[&str]) -> Result<String> {
        let kept: BTreeMap<&str, &RawValue> = self
            .0
            .iter()
            .filter(|(key, _)| !keys.contains(&key.as_ref()))
            .map(|(key, value)| (key.as_ref(), *value))
            .collect();
        Ok(serde_json::to_string(&kept)?)
    }

    /// A Read's `tool_response.file.content`, when it is a string.
    fn file_content(&self) -> Option<String> {
        #[derive(serde::Deserialize)]
        struct Response {
            file: Option<File>,
        }
        #[derive(serde::Deserialize)]
        struct File {
            content: Option<String>,
        }
        let raw = self.0.get("tool_response")?;
        serde_json::from_str::<Response>(raw.get()).ok()?.file?.content
    }

    /// A shell command's output, `tool_response.stdout` then `.stderr`,
    /// the first and last OUTPUT_PART bytes of a longer one.
    fn shell_output(&self) -> Option<String> {
        #[derive(serde::Deserialize)]
        struct Response {
            stdout: Option<String>,
            stderr: Option<String>,
        }
        let raw = self.0.get("tool_response")?;
        let response = serde_json::from_str::<Response>(raw.get()).ok()?;
        let joined = [response.stdout, response.stderr]
            .into_iter()
            .flatten()
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join("\n");
        Some(head_and_tail(&joined, OUTPUT_PART))
    }

    /// The agent an Agent (Task) call started: `tool_response.agentId`.
    fn subagent(&self) -> Option<String> {
        #[derive(serde::Deserialize)]
        struct Response {
            #[serde(rename = "agentId")]
            agent_id: Option<String>,
        }
        let raw = self.0.get("tool_response")?;
        serde_json::from_str::<Response>(raw.get())
            .ok()?
            .agent_id
            .filter(|id| is_identifier(id))
    }

    /// The field's text, when it is a JSON string.
    fn text(&self, key: &str) -> Option<Cow<'a, str>> {
        self.0.get(key).and_then(|raw| string_of(raw))
    }

    fn kind(&self, key: &str) -> &'static str {
        self.0.get(key).map_or("missing", |raw| kind(raw))
    }
}

/// `text`, or its first and last `part` bytes (at character boundaries)
/// when it is longer than both.
pub fn head_and_tail(text: &str, part: usize) -> String {
    if text.len() <= 2 * part {
        return text.to_owned();
    }
    let mut head = part;
    while !text.is_char_boundary(head) {
        head -= 1;
    }
    let mut tail = text.len() - part;
    while !text.is_char_boundary(tail) {
        tail += 1;
    }
    format!("{}\n…\n{}", &text[..head], &text[tail..])
}

fn string_of<'a>(raw: &'a RawValue) -> Option<Cow<'a, str>> {
    raw.get()
        .starts_with('"')
        .then(|| serde_json::from_str::<Cow<'a, str>>(raw.get()).ok())
        .flatten()
}

/// What is wrong with a payload that the script can still store: logged as
/// warnings, so a misbehaving caller leaves a trace.
fn problems(event: &str, valid_utf8: bool, text: &str, fields: Option<&Fields<'_>>) -> Vec<String> {
    let mut problems = Vec::new();
    if !valid_utf8 {
        problems.push("payload is not valid UTF-8 (bad bytes read as U+FFFD)".to_owned());
    }
    if text.len() > LARGE_PAYLOAD {
        problems.push(format!(
            "payload is large ({} bytes; the error is kept in part)",
            text.len()
        ));
    }
    if text.contains('\0') {
        problems.push("payload holds NUL bytes".to_owned());
    }
    let Some(fields) = fields else {
        problems.push(match serde_json::from_str::<serde::de::IgnoredAny>(text) {
            Ok(_) => "payload is JSON but not an object".to_owned(),
            Err(_) => format!("payload is not JSON ({} bytes)", text.len()),
        });
        return problems;
    };
    let is_string = |key: &str| fields.text(key).is_some();
    if !is_string("session_id") {
        problems.push("payload has no session_id string (stored as 'unknown')".to_owned());
    }
    if !is_string("cwd") && event != "SessionEnd" {
        problems.push("payload has no cwd string".to_owned());
    }
    if event == "PostToolUseFailure" && !is_string("error") {
        problems.push(format!("payload's error is {}", fields.kind("error")));
    }
    if fields
        .0
        .values()
        .any(|raw| string_of(raw).is_some_and(|s| s.contains('\0')))
    {
        problems.push("a payload field holds NUL characters".to_owned());
    }
    if fields.has("tool_input") && fields.kind("tool_input") != "an object" {
        problems.push(format!("payload's tool_input is {}", fields.kind("tool_input")));
    }
    // Fields Claude Code fills with identifiers and absolute paths. Anything
    // else is still stored as given (bound, never spliced into SQL), but a
    // caller sending it is worth a line. Free text (error, command) may hold
    // anything, quotes and SQL included, and is not judged.
    for key in ["session_id", "tool_name", "tool_use_id", "agent_type"] {
        if fields.text(key).is_some_and(|v| !is_identifier(&v)) {
            problems.push(format!("payload's {key} is not an identifier (stored as given)"));
        }
    }
    for key in ["cwd", "transcript_path"] {
        if fields.text(key).is_some_and(|v| !is_absolute_path(&v)) {
            problems.push(format!("payload's {key} is not an absolute path (stored as given)"));
        }
    }
    if let Some(named) = fields.text("hook_event_name").filter(|named| named != event) {
        problems.push(format!("payload is for {named:?}, run as {event}"));
    }
    problems
}

/// What Claude Code's ids and names look like: a UUID, `toolu_01…`,
/// `Bash`, `mcp__github__create_issue`, `oh-my-claudecode:executor-high`.
fn is_identifier(text: &str) -> bool {
    (1..=200).contains(&text.len())
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':'))
}

/// `/home/me/app`, or on Windows `C:\Users\me\app` and `\\server\share`.
fn is_absolute_path(text: &str) -> bool {
    let bytes = text.as_bytes();
    text.starts_with('/')
        || text.starts_with("\\\\")
        || (bytes.len() >= 3 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':' && matches!(bytes[2], b'\\' | b'/'))
}

/// A JSON value's kind, from its text.
fn kind(raw: &RawValue) -> &'static str {
    match raw.get().as_bytes().first() {
        Some(b'n') => "null",
        Some(b't' | b'f') => "a boolean",
        Some(b'"') => "a string",
        Some(b'[') => "an array",
        Some(b'{') => "an object",
        _ => "a number",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_are_what_claude_code_sends() {
        for id in [
            "8f3c1a2e-4b5d-4e6f-8a9b-0c1d2e3f4a5b",
            "toolu_01ABC",
            "Bash",
            "mcp__github__create_issue",
        ] {
            assert!(is_identifier(id), "{id}");
        }
        assert!(is_identifier("oh-my-claudecode:executor-high"));
        for bad in ["", "x'); DROP TABLE events; --", "a b", "s\u{0}", "é"] {
            assert!(!is_identifier(bad), "{bad:?}");
        }
    }

    #[test]
    fn absolute_paths_on_every_system() {
        for path in ["/work/app", "/", "C:\\Users\\me", "c:/x", "\\\\server\\share"] {
            assert!(is_absolute_path(path), "{path}");
        }
        for bad in ["", "work/app", "x'); DROP TABLE events; --", "C:", "~/app"] {
            assert!(!is_absolute_path(bad), "{bad:?}");
        }
    }

    #[test]
    fn hostile_sql_in_id_fields_is_reported() {
        let hostile = "x'); DROP TABLE events; --";
        let payload = serde_json::json!({"session_id": hostile, "cwd": hostile, "tool_name": hostile,
                                         "error": hostile, "hook_event_name": "PostToolUseFailure"});
        let text = payload.to_string();
        let problems = problems_of("PostToolUseFailure", &text);
        assert_eq!(
            problems,
            [
                "payload's session_id is not an identifier (stored as given)",
                "payload's tool_name is not an identifier (stored as given)",
                "payload's cwd is not an absolute path (stored as given)",
            ]
        );
    }

    #[test]
    fn kinds_and_missing_fields_are_reported() {
        let text = r#"{"session_id": 7, "tool_input": "ls", "error": null}"#;
        let problems = problems_of("PostToolUseFailure", text);
        assert_eq!(
            problems,
            [
                "payload has no session_id string (stored as 'unknown')",
                "payload has no cwd string",
                "payload's error is null",
                "payload's tool_input is a string",
            ]
        );
        assert_eq!(problems_of("PreToolUse", "[1]"), ["payload is JSON but not an object"]);
        assert_eq!(problems_of("PreToolUse", "{"), ["payload is not JSON (1 bytes)"]);
        assert_eq!(
            problems_of("PreToolUse", r#"{"session_id": "s", "cwd": "/w", "x": "a\u0000b"}"#),
            ["a payload field holds NUL characters"]
        );
    }

    fn problems_of(event: &str, text: &str) -> Vec<String> {
        for_script(event, text.as_bytes().to_vec(), &[], &[]).unwrap().problems
    }

    #[test]
    fn unread_fields_are_left_out_and_the_rest_kept_as_sent() {
        let text =
            r#"{"session_id": "s\"x", "tool_input": {"command": "ls", "n": 1.50}, "tool_response": {"stdout": "big"}}"#;
        let input = for_script("PostToolUse", text.as_bytes().to_vec(), &["tool_response"], &["Read"]).unwrap();
        assert_eq!(input.file_content, None);
        assert_eq!(
            input.problems,
            [
                "payload has no cwd string",
                "payload's session_id is not an identifier (stored as given)"
            ]
        );
        assert_eq!(
            input.stdin,
            r#"{"session_id":"s\"x","tool_input":{"command": "ls", "n": 1.50}}"#
        );
    }

    #[test]
    fn a_reads_file_is_passed_on_its_own() {
        let text = r#"{"session_id": "s", "cwd": "/w", "tool_name": "Read", "tool_input": {"file_path": "/w/a.py"},
                      "tool_response": {"type": "text", "file": {"filePath": "/w/a.py", "content": "x = \"1\"\n"}}}"#;
        let input = for_script("PostToolUse", text.as_bytes().to_vec(), &["tool_response"], &["Read"]).unwrap();
        assert_eq!(input.file_content.as_deref(), Some("x = \"1\"\n"));
        assert!(!input.stdin.contains("tool_response"));
        let bash = text.replace(r#""Read""#, r#""Bash""#);
        let input = for_script("PostToolUse", bash.into_bytes(), &["tool_response"], &["Read"]).unwrap();
        assert_eq!(input.file_content, None);
    }
}
