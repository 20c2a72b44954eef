//! OpenAI Codex CLI's hooks, run by the same scripts as Claude Code's
//! (`errkb hook --agent codex <Event>`): the table of the hooks Codex gets,
//! and each Codex payload made into the payloads the scripts read, which
//! are Claude Code's (docs/CODEX.md has the facts this follows).
//!
//! - **A shell command** (`tool_name: "Bash"`, input `command`): Codex has
//!   no failure event; a failed command fires PostToolUse with its output
//!   only. Its exit code is in the session file (`transcript_path`) by
//!   then, in the `item_completed` record of this `tool_use_id`, read from
//!   the file's tail (`codex_rollout::shell_end`, bounded). A non-zero exit
//!   runs the failure script with the error as Claude Code words it
//!   (`Exit code N` and the output); a zero exit, the success script. When
//!   the file does not tell (no session file: `codex exec --ephemeral`; a
//!   file cut or forged), the call is **not stored** and the log says so:
//!   a failure stored as a success would teach a wrong fix, a success
//!   stored as a failure would be advised on, and a call left out costs
//!   at most a fix learned one success later.
//!   The folder the command ran in (the model's `workdir`, which the
//!   payload leaves out) comes from the same record, as the `cd DIR &&` a
//!   Claude Code command would hold.
//! - **apply_patch** (input `command`: the patch): the edits it made, each
//!   hunk one Edit (file, before → after), an added file a Write, a
//!   deleted or moved one the `rm` or `mv` it amounts to; each through the
//!   success script, as Claude Code's Edit and Write calls go. The first
//!   keeps the call's id, the next ones `<id>:2`, `<id>:3` … A patch that
//!   fails fires no hook in Codex.
//! - **MCP and other tools** pass through by name; **other events** as
//!   they are (the fields the scripts read are Claude Code's).
//!
//! The answer is Codex's (`hookSpecificOutput.additionalContext`, with the
//! Codex event's name), which Codex gives the model as a developer message.
//! Every event errkb stores from Codex says so (`"agent": "codex"`, and
//! the turn's id): the hook scripts add the parameters `:agent` and
//! `:turn_id` to what they store, and the runner binds them for Codex.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::Path;

use serde_json::value::{to_raw_value, RawValue};
use serde_json::{json, Value};

use crate::agent::codex_patch::{self, Change};
use crate::agent::codex_rollout::{self, CallSettings, ShellEnd};
use crate::agent::hooks::{self, HOOKS};

/// The name events and commands know Codex by.
pub const AGENT: &str = "codex";

/// One hook as Codex runs it (hooks.json's shape: event, matcher, timeout).
pub struct CodexHook {
    pub event: &'static str,
    /// Codex's rule: a regular expression matched against the whole tool
    /// name (sub-agent type for SubagentStart); `*` matches everything.
    pub matcher: Option<&'static str>,
    pub timeout_secs: u64,
}

/// The sub-agent types that write code, as SubagentStart's matcher:
/// Claude Code's list (see `hooks::CODE_AGENT_TYPES`) and Codex's own
/// `default` and `worker` agents (its `explorer` only reads).
pub const CODE_AGENT_TYPES: &str = "(executor|architect|designer|build-fixer|general-purpose|default|worker)";

/// errkb's hooks for Codex, from the one table (`hooks::HOOKS`): every
/// event but PostToolUseFailure, which Codex does not have (its PostToolUse
/// runs the failure script for a failed command).
pub fn hooks() -> impl Iterator<Item = CodexHook> {
    HOOKS
        .iter()
        .filter(|h| h.event != "PostToolUseFailure")
        .map(|h| CodexHook {
            event: h.event,
            matcher: match h.event {
                "SubagentStart" => Some(CODE_AGENT_TYPES),
                _ => h.matcher,
            },
            timeout_secs: h.timeout_secs,
        })
}

/// A script to run with a payload.
pub struct Run {
    /// The event whose script runs (PostToolUseFailure for a failed command).
    pub event: &'static str,
    pub payload: Vec<u8>,
}

/// A Codex payload, made into what the scripts read.
pub struct Adapted {
    pub runs: Vec<Run>,
    pub turn_id: Option<String>,
    /// Said in the hook log: why the call is not stored.
    pub note: Option<String>,
}

/// Errors cut here, as the failure script cuts them (and errkb learn).
const ERROR_CHARS: usize = 20_000;

/// The payload of Codex's `event` as the scripts read it: one run, or
/// several (a patch's edits), or none (a command whose end cannot be told).
pub fn adapt(event: &'static str, payload: Vec<u8>) -> Adapted {
    let text = match String::from_utf8(payload) {
        Ok(text) => text,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    };
    let Ok(fields) = serde_json::from_str::<BTreeMap<Cow<str>, &RawValue>>(&text) else {
        // not an object: the script stores what it can, and the runner logs why
        return Adapted {
            runs: vec![Run {
                event,
                payload: text.into_bytes(),
            }],
            turn_id: None,
            note: None,
        };
    };
    let fields = Fields(fields);
    let turn_id = fields.text("turn_id").map(Cow::into_owned);
    if event != "PostToolUse" {
        return Adapted {
            runs: vec![Run {
                event,
                payload: text.into_bytes(),
            }],
            turn_id,
            note: None,
        };
    }
    let tool = fields.text("tool_name");
    let (runs, note) = match tool.as_deref() {
        Some("Bash") => shell(&fields),
        Some("apply_patch") => patch(&fields),
        _ => (
            vec![Run {
                event,
                payload: fields.rebuild(&["tool_response"], []),
            }],
            None,
        ),
    };
    Adapted { runs, turn_id, note }
}

/// A payload's top-level fields, as sent.
struct Fields<'a>(BTreeMap<Cow<'a, str>, &'a RawValue>);

impl<'a> Fields<'a> {
    fn text(&self, key: &str) -> Option<Cow<'a, str>> {
        let raw = self.0.get(key)?.get();
        raw.starts_with('"').then(|| serde_json::from_str(raw).ok()).flatten()
    }

    fn get(&self, key: &str) -> Option<&'a RawValue> {
        self.0.get(key).copied()
    }

    /// The payload without `drop`, with `set` (as JSON).
    fn rebuild<const N: usize>(&self, drop: &[&str], set: [(&str, Value); N]) -> Vec<u8> {
        let mut out: BTreeMap<&str, Cow<RawValue>> = self
            .0
            .iter()
            .filter(|(k, _)| !drop.contains(&k.as_ref()))
            .map(|(k, v)| (k.as_ref(), Cow::Borrowed(*v)))
            .collect();
        for (key, value) in set {
            if let Ok(raw) = to_raw_value(&value) {
                out.insert(key, Cow::Owned(raw));
            }
        }
        serde_json::to_vec(&out).unwrap_or_default()
    }
}

/// A shell command: the failure or the success script, by its exit code
/// in the session file.
fn shell(fields: &Fields) -> (Vec<Run>, Option<String>) {
    let id = fields.text("tool_use_id").unwrap_or_default();
    let Some(transcript) = fields.text("transcript_path").filter(|t| !t.is_empty()) else {
        return (
            Vec::new(),
            Some(format!("command {id} not stored: no session file says how it ended")),
        );
    };
    let end = match codex_rollout::shell_end(Path::new(transcript.as_ref()), &id) {
        Ok(Some(end)) => end,
        Ok(None) => {
            return (
                Vec::new(),
                Some(format!(
                    "command {id} not stored: its end is not in the last {} MB of the session file",
                    codex_rollout::MAX_TAIL >> 20
                )),
            )
        }
        Err(e) => {
            return (
                Vec::new(),
                Some(format!("command {id} not stored: cannot read the session file: {e}")),
            )
        }
    };
    if !matches!(end.status.as_deref(), None | Some("completed" | "failed")) {
        // declined by the user or the approval policy: nothing ran
        return (Vec::new(), None);
    }
    let command = command_in(fields, &end);
    let input = bash_input(&command, end.settings);
    let output = match fields.get("tool_response") {
        Some(raw) if raw.get().starts_with('"') => serde_json::from_str::<String>(raw.get()).unwrap_or_default(),
        Some(raw) => raw.get().to_owned(),
        None => String::new(),
    };
    if end.failed() {
        let error = match end.exit_code {
            Some(code) => format!("Exit code {code}\n{output}"),
            None => output,
        };
        let error: String = error.chars().take(ERROR_CHARS).collect();
        let payload = fields.rebuild(
            &["tool_response"],
            [
                ("hook_event_name", json!("PostToolUseFailure")),
                ("tool_input", input),
                ("error", json!(error)),
            ],
        );
        return (
            vec![Run {
                event: "PostToolUseFailure",
                payload,
            }],
            None,
        );
    }
    (
        vec![Run {
            event: "PostToolUse",
            // the output as Claude Code gives it (`tool_response.stdout`):
            // a success whose output shows the error again fixed nothing
            payload: fields.rebuild(
                &["tool_response"],
                [("tool_input", input), ("tool_response", json!({ "stdout": output }))],
            ),
        }],
        None,
    )
}

/// A Codex shell call as the scripts read Claude Code's Bash input: the
/// command, the sandbox off when the call was escalated, its own time
/// limit as `timeout` (milliseconds). The hook and errkb learn both make
/// it here, from the call's arguments in the session file.
pub fn bash_input(command: &str, settings: CallSettings) -> Value {
    let mut input = json!({ "command": command });
    if settings.escalated {
        input["dangerouslyDisableSandbox"] = json!(true);
    }
    if let Some(timeout) = settings.timeout {
        input["timeout"] = json!(timeout);
    }
    input
}

/// The command as Claude Code would have run it: in the folder it ran in
/// (`cd DIR && …` when that is not the session's).
fn command_in(fields: &Fields, end: &ShellEnd) -> String {
    let command = fields
        .get("tool_input")
        .and_then(|raw| serde_json::from_str::<Value>(raw.get()).ok())
        .and_then(|input| input.get("command").and_then(Value::as_str).map(str::to_owned))
        .unwrap_or_default();
    let cwd = fields.text("cwd").unwrap_or_default();
    match end.cwd.as_deref() {
        Some(dir) if !dir.is_empty() && dir.trim_end_matches('/') != cwd.trim_end_matches('/') => {
            format!("cd {} && {command}", shell_quote(&relative_to(dir, &cwd)))
        }
        _ => command,
    }
}

/// `dir` relative to `base` when it lies under it.
pub fn relative_to(dir: &str, base: &str) -> String {
    let base = base.trim_end_matches('/');
    match dir.strip_prefix(base).and_then(|rest| rest.strip_prefix('/')) {
        Some(rest) if !base.is_empty() && !rest.is_empty() => rest.to_owned(),
        _ => dir.to_owned(),
    }
}

/// `word` as one shell word: as it is when it needs no quotes.
pub fn shell_quote(word: &str) -> String {
    if !word.is_empty()
        && word
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/._-+,:@%=~".contains(&b))
    {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// A patch: its edits, each through the success script.
fn patch(fields: &Fields) -> (Vec<Run>, Option<String>) {
    let id = fields.text("tool_use_id").unwrap_or_default().into_owned();
    let text = fields
        .get("tool_input")
        .and_then(|raw| serde_json::from_str::<Value>(raw.get()).ok())
        .and_then(|input| match input {
            Value::String(s) => Some(s),
            other => other
                .get("command")
                .or_else(|| other.get("input"))
                .and_then(Value::as_str)
                .map(str::to_owned),
        })
        .unwrap_or_default();
    let Some(changes) = codex_patch::parse(&text) else {
        return (
            Vec::new(),
            Some(format!("apply_patch {id} not stored: its input is not a patch")),
        );
    };
    let cwd = fields.text("cwd").unwrap_or_default().into_owned();
    let runs = calls_of_patch(&changes, &cwd)
        .into_iter()
        .enumerate()
        .map(|(n, (tool, input))| Run {
            event: "PostToolUse",
            payload: fields.rebuild(
                &["tool_response"],
                [
                    ("tool_name", json!(tool)),
                    ("tool_input", input),
                    ("tool_use_id", json!(part_id(&id, n))),
                ],
            ),
        })
        .collect();
    (runs, None)
}

/// The id of part `n` (from 0) of call `id`: the call's own id for the first.
pub fn part_id(id: &str, n: usize) -> String {
    if n == 0 {
        id.to_owned()
    } else {
        format!("{id}:{}", n + 1)
    }
}

/// A patch's changes as Claude Code's tool calls: (tool, input).
pub fn calls_of_patch(changes: &[Change], cwd: &str) -> Vec<(&'static str, Value)> {
    let absolute = |path: &str| -> String {
        if path.starts_with('/') || cwd.is_empty() || path.as_bytes().get(1) == Some(&b':') {
            path.to_owned()
        } else {
            format!("{}/{path}", cwd.trim_end_matches('/'))
        }
    };
    changes
        .iter()
        .map(|change| match change {
            Change::Edit { path, before, after } => (
                "Edit",
                json!({"file_path": absolute(path), "old_string": before, "new_string": after}),
            ),
            Change::Add { path, content } => ("Write", json!({"file_path": absolute(path), "content": content})),
            Change::Delete { path } => ("Bash", json!({"command": format!("rm {}", shell_quote(path))})),
            Change::Move { from, to } => (
                "Bash",
                json!({"command": format!("mv {} {}", shell_quote(from), shell_quote(to))}),
            ),
        })
        .collect()
}

/// What Codex reads of a hook's answer has this much room before it is
/// cut (about 2,500 tokens).
const CONTEXT_CHARS: usize = 9_000;

/// The answer to Codex for `event`, from what the scripts printed: their
/// contexts, whole, in order, as one `additionalContext`; nothing when
/// there is none.
pub fn answer(event: &str, outputs: &[Vec<u8>]) -> Option<String> {
    let mut contexts: Vec<String> = Vec::new();
    let mut used = 0;
    for out in outputs {
        let text = String::from_utf8_lossy(out);
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let Ok(value) = serde_json::from_str::<Value>(line) else {
                continue;
            };
            let Some(context) = value
                .pointer("/hookSpecificOutput/additionalContext")
                .and_then(Value::as_str)
                .filter(|c| !c.is_empty())
            else {
                continue;
            };
            let chars = context.chars().count();
            if used + chars > CONTEXT_CHARS && !contexts.is_empty() {
                continue;
            }
            used += chars;
            contexts.push(context.to_owned());
        }
    }
    if contexts.is_empty() {
        return None;
    }
    Some(
        json!({"hookSpecificOutput": {"hookEventName": event, "additionalContext": contexts.join("\n\n")}}).to_string()
            + "\n",
    )
}

/// The script event of a Codex event: errkb's hook for it.
pub fn find(event: &str) -> anyhow::Result<&'static hooks::Hook> {
    if event == "PostToolUseFailure" {
        anyhow::bail!("Codex has no PostToolUseFailure (its PostToolUse tells failures)");
    }
    hooks::find(event)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn adapt_json(event: &'static str, payload: Value) -> Adapted {
        adapt(event, payload.to_string().into_bytes())
    }

    fn payload_of(run: &Run) -> Value {
        serde_json::from_slice(&run.payload).unwrap()
    }

    #[test]
    fn a_patch_is_the_edits_it_makes() {
        let adapted = adapt_json(
            "PostToolUse",
            json!({"session_id": "s", "turn_id": "t", "cwd": "/w", "hook_event_name": "PostToolUse",
                   "tool_name": "apply_patch", "tool_use_id": "c1",
                   "tool_input": {"command": "*** Begin Patch\n*** Update File: report.py\n@@\n-a\n+b\n*** Add File: n.txt\n+x\n*** Delete File: old file\n*** End Patch\n"},
                   "tool_response": "Exit code: 0\n"}),
        );
        assert_eq!(adapted.turn_id.as_deref(), Some("t"));
        let runs: Vec<Value> = adapted.runs.iter().map(payload_of).collect();
        assert_eq!(runs[0]["tool_name"], "Edit");
        assert_eq!(
            runs[0]["tool_input"],
            json!({"file_path": "/w/report.py", "old_string": "a", "new_string": "b"})
        );
        assert_eq!(runs[0]["tool_use_id"], "c1");
        assert_eq!(runs[1]["tool_name"], "Write");
        assert_eq!(runs[1]["tool_use_id"], "c1:2");
        assert_eq!(runs[2]["tool_input"]["command"], "rm 'old file'");
        assert!(runs
            .iter()
            .all(|r| r.get("tool_response").is_none() && r["session_id"] == "s"));
    }

    #[test]
    fn a_command_whose_end_is_unknown_is_not_stored() {
        let adapted = adapt_json(
            "PostToolUse",
            json!({"session_id": "s", "cwd": "/w", "tool_name": "Bash", "tool_use_id": "c1",
                   "tool_input": {"command": "ls"}, "tool_response": "x",
                   "transcript_path": "/nonexistent/rollout.jsonl"}),
        );
        assert!(adapted.runs.is_empty());
        assert!(adapted.note.unwrap().contains("cannot read the session file"));
        let adapted = adapt_json("PostToolUse", json!({"tool_name": "Bash", "tool_use_id": "c1"}));
        assert!(adapted.runs.is_empty() && adapted.note.is_some());
    }

    #[test]
    fn other_tools_and_events_pass_through() {
        let adapted = adapt_json(
            "PostToolUse",
            json!({"tool_name": "mcp__db__query", "tool_input": {"q": 1},
                                                        "tool_response": {"content": []}}),
        );
        assert_eq!(
            payload_of(&adapted.runs[0]),
            json!({"tool_name": "mcp__db__query", "tool_input": {"q": 1}})
        );
        let adapted = adapt("PreToolUse", b"not json".to_vec());
        assert_eq!(adapted.runs[0].payload, b"not json");
    }

    #[test]
    fn the_answer_is_codexs() {
        let out = br#"{"hookSpecificOutput":{"hookEventName":"PostToolUseFailure","additionalContext":"fix it"}}"#;
        let answer = answer("PostToolUse", &[out.to_vec(), Vec::new()]).unwrap();
        assert_eq!(
            serde_json::from_str::<Value>(&answer).unwrap(),
            json!({"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "fix it"}})
        );
        assert_eq!(answer_none(), None);
    }

    fn answer_none() -> Option<String> {
        answer("PostToolUse", &[Vec::new(), b"\n".to_vec()])
    }

    #[test]
    fn folders_and_words() {
        assert_eq!(relative_to("/w/app/web", "/w/app"), "web");
        assert_eq!(relative_to("/elsewhere", "/w/app"), "/elsewhere");
        assert_eq!(shell_quote("web/src"), "web/src");
        assert_eq!(shell_quote("my dir"), "'my dir'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
    }

    #[test]
    fn codex_gets_every_hook_but_the_failure_event() {
        let events: Vec<_> = hooks().map(|h| h.event).collect();
        assert!(!events.contains(&"PostToolUseFailure") && events.contains(&"PostToolUse"));
    }
}
