//! `errkb learn` on Codex's session files (rollouts,
//! `~/.codex/sessions/YYYY/MM/DD/rollout-….jsonl`): each tool call made
//! into the payload a Codex hook would have handed the scripts
//! (`runtime/codex.rs`), so that importing learns what the hooks learn,
//! with each call's own time, and nothing is told.
//!
//! Every version in use is read (the shapes are listed in
//! `scripts/codex_sessions/digest.py` and `runtime/codex_rollout.rs`):
//!
//! - Layouts: the envelope (`{"timestamp", "type", "payload"}`, 0.3x on)
//!   and the legacy one (a header line, then bare response items).
//! - Shell tools (`shell` with an argv, `shell_command`, `exec_command`,
//!   `local_shell_call`) are Bash commands, run in their `workdir` (`cd DIR
//!   && …` when it is not the session's folder), with the sandbox disabled
//!   when the call asked for escalated permissions. Their end: the
//!   `item_completed` record (0.171, as the live hook reads it), else the
//!   exit code in the output (JSON `metadata.exit_code`, `Exit code: N`,
//!   `Process exited with code N`, a sandbox's `exit code: N, stdout: …,
//!   stderr: …`). A command still running when its call returned ends in
//!   a later `write_stdin` poll of its session: that poll is the call (the
//!   live hook's PostToolUse fires then, under the first call's id, which
//!   `item_completed` gives when the file has it).
//! - `apply_patch` (the freeform tool, the function, or run through the
//!   shell, heredoc or argv) that applied: its edits, as the hook makes
//!   them. One that did not apply is Codex refusing its input (like Claude
//!   Code's "String to replace not found"): passed over.
//! - Codex's own refusals: a user's rejection, a denial by the approval
//!   policy, an interrupt are recorded as such (without their text);
//!   arguments it could not parse, an unknown tool, a closed stdin are
//!   passed over, as Claude Code's input checks are.
//! - Other tools (MCP, `update_plan` …) pass through by name.
//! - Streams: a sub-agent's rollout names its parent thread; its calls are
//!   the parent session's, in the sub-agent's own stream (`agent_id`), as
//!   the hooks see them.
//! - Ids: the call's `call_id`; a patch's edits after the first
//!   `<call_id>:2`, `:3` … (the hook's own ids, so neither learns a call
//!   the other stored).

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{json, Value};

use crate::agent::call::{Call, Outcome};
use crate::agent::codex::{self, calls_of_patch, part_id, relative_to, shell_quote};
use crate::agent::codex_patch;
use crate::agent::codex_rollout::{self, classify, sandbox_failure, CallSettings, Failure, ShellEnd, Verdict};

/// What the failure script is given for a rejection, a denial: texts that
/// `failure_kind` reads as such (never an error to learn or advise on;
/// the text itself is not stored).
const REJECTED: &str = "The user doesn't want to proceed with this tool use (Codex: exec command rejected by user)";
const DENIED: &str = "Permission denied by Codex's approval policy";

/// Whether `line`, the first record of a file, is a Codex rollout's.
pub fn is_rollout_start(line: &[u8]) -> bool {
    #[derive(Deserialize)]
    struct First<'a> {
        #[serde(rename = "type", borrow, default)]
        kind: Option<Cow<'a, str>>,
        #[serde(borrow, default)]
        payload: Option<&'a RawValue>,
        #[serde(borrow, default)]
        id: Option<Cow<'a, str>>,
        #[serde(borrow, default)]
        timestamp: Option<Cow<'a, str>>,
        #[serde(rename = "sessionId", borrow, default)]
        session_id: Option<Cow<'a, str>>,
    }
    let Ok(first) = serde_json::from_slice::<First>(line) else {
        return false;
    };
    match first.kind.as_deref() {
        // the envelope (0.3x on): the file opens with the session's header
        Some("session_meta" | "turn_context" | "response_item" | "event_msg") => first.payload.is_some(),
        // legacy: a header {"id", "timestamp", "instructions"?, "git"?}
        None => first.id.is_some() && first.timestamp.is_some() && first.session_id.is_none(),
        _ => false,
    }
}

/// A call waiting for its output.
struct Pending {
    name: String,
    kind: CallKind,
    ts: Option<String>,
}

enum CallKind {
    /// A shell command, in this folder, with what it asked for itself.
    Shell {
        command: String,
        workdir: Option<String>,
        settings: CallSettings,
    },
    /// A patch (apply_patch in any of its forms).
    Patch(String),
    /// A poll of a running command's session.
    Poll(i64),
    /// Anything else, with its arguments.
    Other(Box<RawValue>),
}

/// A command still running in a unified exec session.
struct Running {
    call_id: String,
    command: String,
    workdir: Option<String>,
    settings: CallSettings,
}

/// What reading a rollout keeps between lines.
#[derive(Default)]
pub struct Rollout {
    session_id: Option<String>,
    /// The sub-agent's own id, when this is a sub-agent's rollout (its
    /// session is its parent's).
    agent_id: Option<String>,
    cwd: Option<String>,
    turn_id: Option<String>,
    /// The newest time seen (legacy items carry none of their own).
    ts: Option<String>,
    lines: u64,
    pending: HashMap<String, Pending>,
    running: HashMap<i64, Running>,
    /// Ends recorded before their outputs (`item_completed`, 0.171).
    ends: HashMap<String, ShellEnd>,
    /// Calls already imported by their end record.
    done: HashSet<String>,
}

#[derive(Deserialize)]
struct Line<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    timestamp: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    payload: Option<&'a RawValue>,
    #[serde(borrow, default)]
    record_type: Option<Cow<'a, str>>,
}

#[derive(Deserialize, Default)]
struct Item<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    // session_meta / turn_context
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    cwd: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    turn_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    source: Option<&'a RawValue>,
    // calls and outputs
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    namespace: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    call_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    arguments: Option<&'a RawValue>,
    #[serde(borrow, default)]
    input: Option<&'a RawValue>,
    #[serde(borrow, default)]
    action: Option<&'a RawValue>,
    #[serde(borrow, default)]
    output: Option<&'a RawValue>,
    // messages (a legacy session's cwd is in its environment context)
    #[serde(borrow, default)]
    role: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    content: Option<&'a RawValue>,
}

impl Rollout {
    /// The calls whose end this line holds.
    pub fn read_line(&mut self, line: &[u8], malformed: &mut u64) -> Vec<Call> {
        self.lines += 1;
        let Ok(record) = serde_json::from_slice::<Line>(line) else {
            *malformed += 1;
            return Vec::new();
        };
        if record.record_type.is_some() {
            return Vec::new(); // legacy state lines
        }
        if let Some(ts) = record.timestamp.as_deref() {
            self.ts = Some(ts.to_owned());
        }
        let (kind, raw) = match (record.kind.as_deref(), record.payload) {
            (Some(kind), Some(payload)) => (kind.to_owned(), Cow::Borrowed(payload.get().as_bytes())),
            // legacy: the header, then bare items
            _ if self.lines == 1 => ("session_meta".to_owned(), Cow::Borrowed(line)),
            _ => ("response_item".to_owned(), Cow::Borrowed(line)),
        };
        match kind.as_str() {
            "session_meta" => {
                self.session_meta(&raw);
                Vec::new()
            }
            "turn_context" => {
                if let Ok(item) = serde_json::from_slice::<Item>(&raw) {
                    if let Some(cwd) = item.cwd {
                        self.cwd = Some(cwd.into_owned());
                    }
                    if let Some(turn) = item.turn_id {
                        self.turn_id = Some(turn.into_owned());
                    }
                }
                Vec::new()
            }
            "event_msg" => self.event(&raw).into_iter().collect(),
            "response_item" => match serde_json::from_slice::<Item>(&raw) {
                Ok(item) => self.response_item(item),
                Err(_) => {
                    *malformed += 1;
                    Vec::new()
                }
            },
            _ => Vec::new(),
        }
    }

    fn session_meta(&mut self, raw: &[u8]) {
        let Ok(item) = serde_json::from_slice::<Item>(raw) else {
            return;
        };
        let Some(id) = item.id.map(Cow::into_owned) else { return };
        if self.session_id.is_some() {
            return; // a forked session repeats its parent's header later
        }
        if let Some(cwd) = item.cwd {
            self.cwd = Some(cwd.into_owned());
        }
        // a sub-agent: {"subagent": {"thread_spawn": {"parent_thread_id": …}}}
        let parent = item
            .source
            .and_then(|s| serde_json::from_str::<Value>(s.get()).ok())
            .and_then(|s| {
                s.pointer("/subagent/thread_spawn/parent_thread_id")?
                    .as_str()
                    .map(str::to_owned)
            });
        match parent {
            Some(parent) => {
                self.session_id = Some(parent);
                self.agent_id = Some(id);
            }
            None => self.session_id = Some(id),
        }
    }

    /// `item_completed` with a command's end (0.171): the call, when its
    /// output already said it was still running; kept for its output
    /// otherwise.
    fn event(&mut self, raw: &[u8]) -> Option<Call> {
        let text = std::str::from_utf8(raw).ok()?;
        if !text.contains("\"item_completed\"") && !text.contains("\"exec_command_end\"") {
            return None;
        }
        let id = serde_json::from_slice::<Value>(raw).ok().and_then(|v| {
            v.pointer("/item/id")
                .or_else(|| v.get("call_id"))
                .and_then(Value::as_str)
                .map(str::to_owned)
        })?;
        let envelope = format!("{{\"type\":\"event_msg\",\"payload\":{text}}}");
        let end = codex_rollout::end_record(envelope.as_bytes(), &id)?;
        // its output came already, saying it was still running
        if let Some(session) = self.running.iter().find(|(_, r)| r.call_id == id).map(|(s, _)| *s) {
            let running = self.running.remove(&session).expect("found");
            self.done.insert(id.clone());
            let outcome = shell_outcome(end.exit_code, end.failed(), String::new());
            return Some(self.shell_call(
                &id,
                &running.command,
                end.cwd.or(running.workdir),
                running.settings,
                outcome,
            ));
        }
        self.ends.insert(id, end);
        None
    }

    fn response_item(&mut self, item: Item) -> Vec<Call> {
        match item.kind.as_deref() {
            Some("function_call" | "custom_tool_call" | "local_shell_call") => {
                self.call(item);
                Vec::new()
            }
            Some("function_call_output" | "custom_tool_call_output" | "local_shell_call_output") => self.output(item),
            Some("message") if self.cwd.is_none() && item.role.as_deref() == Some("user") => {
                // a legacy session's folder: <environment_context><cwd>…</cwd>
                if let Some(text) = item.content.map(RawValue::get) {
                    if let Some(cwd) = text.split("<cwd>").nth(1).and_then(|t| t.split("</cwd>").next()) {
                        if let Ok(cwd) = serde_json::from_str::<String>(&format!("\"{cwd}\"")) {
                            self.cwd = Some(cwd);
                        }
                    }
                }
                Vec::new()
            }
            _ => Vec::new(),
        }
    }

    /// A call: kept until its output.
    fn call(&mut self, item: Item) {
        let Some(call_id) = item.call_id.or(item.id).map(Cow::into_owned) else {
            return;
        };
        let name = match (item.namespace.as_deref(), item.name.as_deref()) {
            (Some(ns), Some(name)) if ns.starts_with("mcp__") => format!("{}__{name}", ns.trim_end_matches('_')),
            (_, Some(name)) => name.to_owned(),
            (_, None) if item.kind.as_deref() == Some("local_shell_call") => "local_shell".to_owned(),
            _ => return,
        };
        // arguments: a JSON string (function calls), the patch text
        // (freeform apply_patch), an action (local shell)
        let args: Value = match (item.arguments, item.input, item.action) {
            (Some(raw), _, _) => match serde_json::from_str::<Value>(raw.get()) {
                Ok(Value::String(s)) => serde_json::from_str(&s).unwrap_or(Value::String(s)),
                Ok(v) => v,
                Err(_) => Value::Null,
            },
            (None, Some(raw), _) => serde_json::from_str(raw.get()).unwrap_or(Value::Null),
            (None, None, Some(raw)) => serde_json::from_str(raw.get()).unwrap_or(Value::Null),
            _ => Value::Null,
        };
        let kind = call_kind(&name, args);
        self.pending.insert(
            call_id,
            Pending {
                name,
                kind,
                ts: self.ts.clone(),
            },
        );
    }

    /// A call's output: the call, as the hook would have seen it.
    fn output(&mut self, item: Item) -> Vec<Call> {
        let Some(call_id) = item.call_id.map(Cow::into_owned) else {
            return Vec::new();
        };
        let Some(pending) = self.pending.remove(&call_id) else {
            return Vec::new();
        };
        if self.done.contains(&call_id) {
            return Vec::new();
        }
        let text = output_text(item.output);
        let verdict = classify(&text);
        match pending.kind {
            CallKind::Shell {
                command,
                workdir,
                settings,
            } => {
                let end = self.ends.remove(&call_id);
                let outcome = match (&end, verdict) {
                    (_, Verdict::Running(session)) => {
                        self.running.insert(
                            session,
                            Running {
                                call_id,
                                command,
                                workdir,
                                settings,
                            },
                        );
                        return Vec::new();
                    }
                    (Some(end), Verdict::Exit(_, body)) => shell_outcome(end.exit_code, end.failed(), body),
                    (None, Verdict::Exit(code, body)) => shell_outcome(code, code.is_some_and(|c| c != 0), body),
                    (_, Verdict::Failed(kind, text)) => match failure_outcome(kind, &text) {
                        Some(outcome) => outcome,
                        None => return Vec::new(),
                    },
                };
                let workdir = end.and_then(|e| e.cwd).or(workdir);
                vec![self.shell_call(&call_id, &command, workdir, settings, outcome)]
            }
            CallKind::Poll(session) => {
                let Verdict::Exit(code, body) = verdict else {
                    // still running, or the poll itself failed (a closed stdin)
                    return Vec::new();
                };
                let Some(running) = self.running.remove(&session) else {
                    return Vec::new();
                };
                let outcome = shell_outcome(code, code.is_some_and(|c| c != 0), body);
                // the poll that saw it end is the call (its id: what labels name)
                vec![self.shell_call(
                    &call_id,
                    &running.command,
                    running.workdir,
                    running.settings,
                    outcome,
                )]
            }
            CallKind::Patch(patch) => {
                let applied = matches!(verdict, Verdict::Exit(code, _) if code.unwrap_or(0) == 0);
                if !applied {
                    return Vec::new(); // refused before it touched a file
                }
                let Some(changes) = codex_patch::parse(&patch) else {
                    return Vec::new();
                };
                let cwd = self.cwd.clone().unwrap_or_default();
                calls_of_patch(&changes, &cwd)
                    .into_iter()
                    .enumerate()
                    .map(|(n, (tool, input))| {
                        self.make_call(&part_id(&call_id, n), tool, input, Outcome::Success(None), &pending.ts)
                    })
                    .collect()
            }
            CallKind::Other(args) => {
                let outcome = match verdict {
                    Verdict::Failed(kind, text) => match failure_outcome(kind, &text) {
                        Some(outcome) => outcome,
                        None => return Vec::new(),
                    },
                    _ => Outcome::Success(None),
                };
                let input: Value = serde_json::from_str(args.get()).unwrap_or(Value::Null);
                let input = if input.is_object() { input } else { json!({}) };
                vec![self.make_call(&call_id, &pending.name, input, outcome, &pending.ts)]
            }
        }
    }

    /// A shell call as Claude Code's Bash (`codex::bash_input`), run in
    /// `workdir`.
    fn shell_call(
        &self,
        id: &str,
        command: &str,
        workdir: Option<String>,
        settings: CallSettings,
        outcome: Outcome,
    ) -> Call {
        let cwd = self.cwd.clone().unwrap_or_default();
        let command = match workdir.as_deref().map(|w| resolve(w, &cwd)) {
            Some(dir) if !dir.is_empty() && dir.trim_end_matches(['/', '\\']) != cwd.trim_end_matches(['/', '\\']) => {
                format!("cd {} && {command}", shell_quote(&relative_to(&dir, &cwd)))
            }
            _ => command.to_owned(),
        };
        self.make_call(id, "Bash", codex::bash_input(&command, settings), outcome, &None)
    }

    fn make_call(&self, id: &str, tool: &str, input: Value, outcome: Outcome, ts: &Option<String>) -> Call {
        Call {
            // when the output arrived (PostToolUse fires then)
            ts: self.ts.clone().or_else(|| ts.clone()).unwrap_or_default(),
            session_id: self.session_id.clone().unwrap_or_else(|| "unknown".to_owned()),
            cwd: self.cwd.clone(),
            agent_id: self.agent_id.clone(),
            tool_use_id: id.to_owned(),
            tool_name: tool.to_owned(),
            tool_input: serde_json::value::to_raw_value(&input).unwrap_or_else(|_| empty_object()),
            outcome,
            subagent: None,
            read_gave_nothing: false,
            agent: Some(codex::AGENT),
            turn_id: self.turn_id.clone(),
        }
    }
}

fn empty_object() -> Box<RawValue> {
    RawValue::from_string("{}".to_owned()).expect("valid JSON")
}

/// A command's outcome as Claude Code reports it: `Exit code N` and the output.
fn shell_outcome(code: Option<i64>, failed: bool, body: String) -> Outcome {
    if !failed {
        return Outcome::Success(Some(body));
    }
    Outcome::Failure(match code {
        Some(code) => format!("Exit code {code}\n{body}"),
        None => body,
    })
}

/// Codex's own failure message, as what it is; None: passed over (Codex
/// refused the input, as Claude Code's input checks do).
fn failure_outcome(kind: Failure, text: &str) -> Option<Outcome> {
    match kind {
        Failure::Error => Some(Outcome::Failure(match sandbox_failure(text) {
            Some((code, printed)) => format!("Exit code {code}\n{printed}"),
            None => text.to_owned(),
        })),
        Failure::Rejected => Some(Outcome::Failure(REJECTED.to_owned())),
        Failure::Denied => Some(Outcome::Failure(DENIED.to_owned())),
        Failure::Interrupted => Some(Outcome::Interrupt(text.to_owned())),
        Failure::Invalid => None,
    }
}

/// What kind of call this is, from its tool's name and arguments.
fn call_kind(name: &str, args: Value) -> CallKind {
    let workdir = args.get("workdir").and_then(Value::as_str).map(str::to_owned);
    match name {
        "apply_patch" => CallKind::Patch(match &args {
            Value::String(s) => s.clone(),
            other => other
                .get("input")
                .or_else(|| other.get("patch"))
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned(),
        }),
        "write_stdin" => CallKind::Poll(args.get("session_id").and_then(Value::as_i64).unwrap_or(-1)),
        "shell" | "shell_command" | "exec_command" | "local_shell" | "container.exec" => {
            let command = args
                .get("command")
                .or_else(|| args.get("cmd"))
                .cloned()
                .unwrap_or(Value::Null);
            let script = command_text(&command);
            // apply_patch run through the shell (argv or heredoc)
            if let Value::Array(argv) = &command {
                if argv.first().and_then(Value::as_str) == Some("apply_patch") {
                    return CallKind::Patch(argv.get(1).and_then(Value::as_str).unwrap_or("").to_owned());
                }
            }
            if script.trim_start().starts_with("apply_patch") && script.contains("*** Begin Patch") {
                return CallKind::Patch(script);
            }
            CallKind::Shell {
                command: script,
                workdir,
                settings: CallSettings::of(&args),
            }
        }
        _ => CallKind::Other(serde_json::value::to_raw_value(&args).unwrap_or_else(|_| empty_object())),
    }
}

/// A shell command as one line: `["bash", "-lc", X]` → X; another argv
/// joined as a shell would read it.
fn command_text(command: &Value) -> String {
    match command {
        Value::String(s) => s.clone(),
        Value::Array(parts) => {
            let parts: Vec<&str> = parts.iter().filter_map(Value::as_str).collect();
            match parts.as_slice() {
                [shell, flag, rest @ ..]
                    if !rest.is_empty()
                        && matches!(*flag, "-lc" | "-c" | "-Command" | "/c" | "-command")
                        && is_shell(shell) =>
                {
                    rest.join(" ")
                }
                _ => parts.iter().map(|p| shell_quote(p)).collect::<Vec<_>>().join(" "),
            }
        }
        _ => String::new(),
    }
}

fn is_shell(program: &str) -> bool {
    let name = program
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or(program)
        .to_ascii_lowercase();
    matches!(
        name.trim_end_matches(".exe"),
        "bash" | "sh" | "zsh" | "dash" | "fish" | "powershell" | "pwsh" | "cmd"
    )
}

/// A call's output text: a string, or the texts of a list of parts.
fn output_text(output: Option<&RawValue>) -> String {
    let Some(raw) = output else { return String::new() };
    match serde_json::from_str::<Value>(raw.get()) {
        Ok(Value::String(s)) => s,
        Ok(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        Ok(Value::Object(o)) => o
            .get("content")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .unwrap_or_else(|| Value::Object(o).to_string()),
        Ok(other) => other.to_string(),
        Err(_) => String::new(),
    }
}

/// A `workdir` as a path: relative ones are under the session's folder.
fn resolve(workdir: &str, cwd: &str) -> String {
    let w = workdir.trim_end_matches(['/', '\\']);
    if w.is_empty() || w == "." {
        return cwd.to_owned();
    }
    if w.starts_with('/') || w.starts_with('\\') || w.as_bytes().get(1) == Some(&b':') || cwd.is_empty() {
        return w.to_owned();
    }
    format!("{}/{}", cwd.trim_end_matches(['/', '\\']), w.trim_start_matches("./"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(lines: &[Value]) -> Vec<Call> {
        let mut rollout = Rollout::default();
        let mut malformed = 0;
        let mut calls = Vec::new();
        for line in lines {
            calls.extend(rollout.read_line(line.to_string().as_bytes(), &mut malformed));
        }
        assert_eq!(malformed, 0);
        calls
    }

    fn env(ts: &str, kind: &str, payload: Value) -> Value {
        json!({"timestamp": ts, "type": kind, "payload": payload})
    }

    /// A function call's line: `arguments` is the JSON text Codex writes.
    fn function_call(ts: &str, name: &str, call_id: &str, arguments: &str) -> Value {
        env(ts, "response_item", json!({"type": "function_call", "name": name, "call_id": call_id, "arguments": arguments}))
    }

    fn function_call_output(ts: &str, call_id: &str, output: &str) -> Value {
        env(ts, "response_item", json!({"type": "function_call_output", "call_id": call_id, "output": output}))
    }

    fn input(call: &Call) -> Value {
        serde_json::from_str(call.tool_input.get()).unwrap()
    }

    #[test]
    fn a_failed_command_then_a_patch_then_its_success() {
        let calls = read(&[
            env(
                "t0",
                "session_meta",
                json!({"id": "sess", "cwd": "/w/app", "cli_version": "0.114.0"}),
            ),
            env("t1", "turn_context", json!({"turn_id": "turn1", "cwd": "/w/app"})),
            function_call("t2", "exec_command", "c1", "{\"cmd\":\"python3 app.py\",\"workdir\":\"/w/app/web\"}"),
            function_call_output("t3", "c1", "Chunk ID: a\nWall time: 0 seconds\nProcess exited with code 1\nOutput:\nNameError: x\n"),
            env(
                "t4",
                "response_item",
                json!({"type": "custom_tool_call", "name": "apply_patch", "call_id": "c2",
                                              "input": "*** Begin Patch\n*** Update File: web/app.py\n@@\n-x\n+y\n*** End Patch\n"}),
            ),
            env(
                "t5",
                "response_item",
                json!({"type": "custom_tool_call_output", "call_id": "c2",
                                              "output": "{\"output\":\"Success.\",\"metadata\":{\"exit_code\":0}}"}),
            ),
        ]);
        assert_eq!(calls.len(), 2);
        assert_eq!(calls[0].tool_use_id, "c1");
        assert_eq!(input(&calls[0])["command"], "cd web && python3 app.py");
        assert!(matches!(&calls[0].outcome, Outcome::Failure(e) if e == "Exit code 1\nNameError: x\n"));
        assert_eq!(
            (calls[0].ts.as_str(), calls[0].turn_id.as_deref()),
            ("t3", Some("turn1"))
        );
        assert_eq!(calls[1].tool_name, "Edit");
        assert_eq!(input(&calls[1])["file_path"], "/w/app/web/app.py");
    }

    #[test]
    fn a_long_command_ends_in_a_poll() {
        let calls = read(&[
            env("t0", "session_meta", json!({"id": "sess", "cwd": "/w"})),
            function_call("t1", "exec_command", "c1", "{\"cmd\":\"cargo test\"}"),
            function_call_output("t2", "c1", "Chunk ID: a\nWall time: 1 seconds\nProcess running with session ID 7\nOutput:\n"),
            function_call("t3", "write_stdin", "c2", "{\"session_id\":7,\"chars\":\"\"}"),
            function_call_output("t4", "c2", "Chunk ID: b\nWall time: 9 seconds\nProcess exited with code 101\nOutput:\nerror[E0425]\n"),
        ]);
        assert_eq!(calls.len(), 1);
        assert_eq!(
            (calls[0].tool_use_id.as_str(), input(&calls[0])["command"].as_str()),
            ("c2", Some("cargo test"))
        );
        assert!(matches!(&calls[0].outcome, Outcome::Failure(e) if e.starts_with("Exit code 101\n")));
    }

    #[test]
    fn legacy_sessions_and_codexs_own_refusals() {
        let calls = read(&[
            json!({"id": "legacy", "timestamp": "2025-08-24T10:37:46.871Z", "git": {}}),
            json!({"record_type": "state"}),
            json!({"type": "message", "role": "user", "content": [{"type": "input_text",
                   "text": "<environment_context>\n  <cwd>/Users/me/p</cwd>\n</environment_context>"}]}),
            json!({"type": "function_call", "name": "shell", "call_id": "c1",
                   "arguments": "{\"command\":[\"bash\",\"-lc\",\"ls -R . | sed -e 's/x//  /g'\"],\"timeout_ms\":10000}"}),
            json!({"type": "function_call_output", "call_id": "c1",
                   "output": "failed in sandbox MacosSeatbelt with execution error: sandbox denied exec error, exit code: 1, stdout: , stderr: sed: 1: bad flag\n"}),
            json!({"type": "function_call", "name": "shell", "call_id": "c2",
                   "arguments": "{\"command\":[\"bash\",\"-lc\",\"make\"],\"with_escalated_permissions\":true}"}),
            json!({"type": "function_call_output", "call_id": "c2", "output": "exec command rejected by user"}),
            json!({"type": "function_call", "name": "apply_patch", "call_id": "c3",
                   "arguments": "{\"input\":\"*** Begin Patch\\n*** Update File: a\\n-x\\n+y\\n*** End Patch\"}"}),
            json!({"type": "function_call_output", "call_id": "c3", "output": "error: Failed to find expected lines [\"x\"] in /a"}),
            json!({"type": "function_call", "name": "update_plan", "call_id": "c4", "arguments": "{\"plan\":[]}"}),
            json!({"type": "function_call_output", "call_id": "c4", "output": "Plan updated"}),
        ]);
        let ids: Vec<&str> = calls.iter().map(|c| c.tool_use_id.as_str()).collect();
        assert_eq!(ids, ["c1", "c2", "c4"]);
        assert_eq!(calls[0].session_id, "legacy");
        assert_eq!(calls[0].cwd.as_deref(), Some("/Users/me/p"));
        assert!(matches!(&calls[0].outcome, Outcome::Failure(e) if e == "Exit code 1\nsed: 1: bad flag"));
        assert!(matches!(&calls[1].outcome, Outcome::Failure(e) if e.starts_with("The user doesn't want to proceed")));
        assert_eq!(input(&calls[1])["dangerouslyDisableSandbox"], true);
        assert_eq!(calls[2].tool_name, "update_plan");
    }

    #[test]
    fn codex_0171_gives_the_end_first_and_sub_agents_are_streams() {
        let calls = read(&[
            env(
                "t0",
                "session_meta",
                json!({"id": "child", "cwd": "/w",
                "source": {"subagent": {"thread_spawn": {"parent_thread_id": "parent"}}}}),
            ),
            function_call("t1", "exec_command", "s_4", "{\"cmd\":\"sleep 2; exit 3\"}"),
            function_call_output("t2", "s_4", "Chunk ID: a\nWall time: 0.25 seconds\nProcess running with session ID 9\nOutput:\n"),
            function_call("t3", "write_stdin", "s_5", "{\"session_id\":9}"),
            env(
                "t4",
                "event_msg",
                json!({"type": "item_completed", "item": {"type": "CommandExecution", "id": "s_4",
                                          "cwd": "file:///w", "status": "failed", "exit_code": 3}}),
            ),
            function_call_output("t5", "s_5", "Chunk ID: b\nWall time: 2 seconds\nProcess exited with code 3\nOutput:\nlate\n"),
        ]);
        assert_eq!(calls.len(), 1, "the hook's id, once");
        assert_eq!(
            (calls[0].tool_use_id.as_str(), calls[0].session_id.as_str()),
            ("s_4", "parent")
        );
        assert_eq!(calls[0].agent_id.as_deref(), Some("child"));
    }

    #[test]
    fn rollouts_are_told_from_transcripts() {
        assert!(is_rollout_start(
            br#"{"timestamp":"t","type":"session_meta","payload":{"id":"x"}}"#
        ));
        assert!(is_rollout_start(
            br#"{"id":"x","timestamp":"t","instructions":null,"git":{}}"#
        ));
        assert!(!is_rollout_start(br#"{"type":"user","sessionId":"x","message":{}}"#));
        assert!(!is_rollout_start(br#"{"type":"summary","summary":"x","leafUuid":"y"}"#));
        assert!(!is_rollout_start(b"not json"));
    }
}
