//! `kb_resolves(session_id, agent_id)`: the errors a successful tool call
//! resolves, each with the fix it makes (SPEC §5, §5.1). PostToolUse
//! stores its call, then learns each row this gives; by hand it shows what
//! the session's last success taught.
//!
//! The window is the agent's last 50 tool steps of the session (the main
//! thread and each subagent are separate streams: one agent's success is
//! not another's fix), the success being the last of them: its tool, and
//! its command line (the retry, for Bash), are the stored ones. An error is
//! resolved by a later success that is related to it: the same tool, and
//! for Bash the same subject (an `ls` after a failing `python3 app.py` is
//! not its fix, `python app.py` is), for file tools the same file; an
//! error stored by an older version has neither, and any success of its
//! tool counts. Two kinds:
//!
//! - `success_after_error`: this success, and the latest error of its tool
//!   it is related to;
//! - `cross_tool_resolution`: an error of another tool, later followed by a
//!   related success of its own tool, with this call's tool used in
//!   between.
//!
//! The fix made in between: the tools used (at most 5), the file last
//! touched, the commands run (not the ones that only look around, `ls`,
//! `git status` …, nor the retry itself; at most 5) and the edits made (at
//! most 3). An error already learned (`resolved_errors`) or without a key
//! gives nothing.
//!
//! Read-only, and never raises: a failure reads as "nothing to learn".

use std::cell::RefCell;
use std::ffi::c_int;

use serde_json::{json, Value as Json};
use sqlite_loadable::prelude::*;

use crate::sql_api::ffi::{Statement, Value};
use crate::sql_api::table_function::{text, TableFunction};

/// The steps of a stream that a fix is looked for in.
const WINDOW: i64 = 50;
const MAX_TOOLS: usize = 5;
const MAX_COMMANDS: usize = 5;
const MAX_EDITS: usize = 3;

/// Commands that only look around: never part of a fix.
const LOOKING_AROUND: &[&str] = &[
    "ls",
    "cat",
    "pwd",
    "echo",
    "head",
    "tail",
    "less",
    "grep",
    "rg",
    "find",
    "which",
    "type",
    "file",
    "wc",
    "tree",
    "stat",
    "env",
    "printenv",
    "git status",
    "git diff",
    "git log",
    "git show",
    "git branch",
];

/// One step of the stream, as the hooks stored it.
#[derive(Debug, Default, Clone)]
pub struct Step {
    pub event_id: i64,
    pub is_error: bool,
    pub tool: Option<String>,
    /// Errors: the key, the text as printed, the signature, the headline.
    pub error: Option<String>,
    pub error_raw: Option<String>,
    pub signature: Option<String>,
    pub headline: Option<String>,
    /// What the call acted on: a Bash command's subject, a file.
    pub subject: Option<String>,
    pub file: Option<String>,
    /// Successes: a Bash command's line, an edit's before → after.
    pub line: Option<String>,
    pub edit: Option<Json>,
}

impl Step {
    /// A step from an event's `data` (a `tool_use` or `tool_error` event).
    pub fn from_event(event_id: i64, is_error: bool, data: &str) -> Step {
        let data: Json = serde_json::from_str(data).unwrap_or(Json::Null);
        let text = |path: &[&str]| -> Option<String> {
            let mut v = &data;
            for key in path {
                v = v.get(key)?;
            }
            match v {
                Json::Null => None,
                Json::String(s) => Some(s.clone()),
                other => Some(other.to_string()),
            }
        };
        Step {
            event_id,
            is_error,
            tool: text(&["tool"]),
            error: text(&["error"]),
            error_raw: text(&["errorRaw"]),
            signature: text(&["signature"]),
            headline: text(&["headline"]),
            subject: text(&["meta", "subject"]).or_else(|| text(&["subject"])),
            file: text(&["meta", "file"]).or_else(|| text(&["file"])),
            line: text(&["meta", "line"]),
            edit: data
                .get("meta")
                .and_then(|m| m.get("edit"))
                .filter(|e| !e.is_null())
                .cloned(),
        }
    }

    fn is_command(&self) -> bool {
        !self.is_error
            && self.tool.as_deref() == Some("Bash")
            && self.line.is_some()
            && !LOOKING_AROUND.contains(&self.subject.as_deref().unwrap_or(""))
    }

    fn is_edit(&self) -> bool {
        !self.is_error && matches!(self.tool.as_deref(), Some("Edit" | "NotebookEdit")) && self.edit.is_some()
    }
}

/// What a success resolves: one error, and the fix made.
#[derive(Debug, Clone, PartialEq)]
pub struct Resolution {
    pub event_id: i64,
    pub error: Option<String>,
    pub error_raw: Option<String>,
    pub signature: Option<String>,
    pub headline: Option<String>,
    pub kind: &'static str,
    /// JSON arrays: the tools used, the commands run, the edits made.
    pub tool_sequence: String,
    pub file: Option<String>,
    pub commands: String,
    pub edits: String,
}

/// Whether success `s` is related to error `e` (SPEC §5.1).
fn related(e: &Step, s: &Step) -> bool {
    e.is_error
        && !s.is_error
        && e.tool.is_some()
        && e.tool == s.tool
        && (e.subject.is_none() || e.subject == s.subject)
        && (e.file.is_none() || e.tool.as_deref() == Some("Bash") || e.file == s.file)
}

/// What the last step of `stream` (oldest first), a success, resolves
/// among the errors for which `unlearned` holds.
pub fn resolutions(stream: &[Step], unlearned: impl Fn(&Step) -> bool) -> Vec<Resolution> {
    let Some(current) = stream.len().checked_sub(1) else {
        return Vec::new();
    };
    let tool = stream[current].tool.as_deref();
    // (error, where its fix ends, whether the success is this call)
    let mut resolved: Vec<(usize, usize, bool)> = Vec::new();
    if let Some(e) = (0..current).rev().find(|&e| related(&stream[e], &stream[current])) {
        resolved.push((e, current, true));
    }
    for (e, error) in stream.iter().enumerate() {
        if !error.is_error || (tool.is_some() && error.tool.as_deref() == tool) {
            continue;
        }
        let Some(s) = (e + 1..stream.len()).find(|&s| related(error, &stream[s])) else {
            continue;
        };
        if (e + 1..s).any(|m| tool.is_some() && stream[m].tool.as_deref() == tool) {
            resolved.push((e, s, false));
        }
    }
    // The retry's own line is not a command of its fix.
    let retry = &stream[current].line;
    resolved
        .into_iter()
        .filter(|&(e, _, _)| stream[e].error.as_deref().is_some_and(|k| !k.is_empty()) && unlearned(&stream[e]))
        .map(|(e, until, same)| {
            let error = &stream[e];
            // the steps of the fix: those after the error, up to the
            // success (included when it is this call)
            let end = if same { until + 1 } else { until };
            let between = &stream[e + 1..end];
            let tools: Vec<Option<&str>> = between.iter().take(MAX_TOOLS).map(|s| s.tool.as_deref()).collect();
            let file = between.iter().rev().find_map(|s| s.file.clone());
            let commands: Vec<&str> = stream[e + 1..until]
                .iter()
                .filter(|s| s.is_command() && (!same || s.line != *retry))
                .take(MAX_COMMANDS)
                .filter_map(|s| s.line.as_deref())
                .collect();
            let edits: Vec<Json> = between
                .iter()
                .filter(|s| s.is_edit())
                .take(MAX_EDITS)
                .map(|s| {
                    let side = |key: &str| s.edit.as_ref().and_then(|e| e.get(key)).cloned().unwrap_or(Json::Null);
                    json!({"file": s.file, "before": side("before"), "after": side("after")})
                })
                .collect();
            Resolution {
                event_id: error.event_id,
                error: error.error.clone(),
                error_raw: error.error_raw.clone(),
                signature: error.signature.clone(),
                headline: error.headline.clone(),
                kind: if same {
                    "success_after_error"
                } else {
                    "cross_tool_resolution"
                },
                tool_sequence: json!(tools).to_string(),
                file,
                commands: json!(commands).to_string(),
                edits: Json::Array(edits).to_string(),
            }
        })
        .collect()
}

/// The agent's window of the session, oldest first.
fn read_window(db: *mut sqlite3, session_id: &str, agent_id: Option<&str>) -> std::result::Result<Vec<Step>, String> {
    let mut events = Statement::prepare(
        db,
        "SELECT id, type = 'tool_error', data FROM main.events \
         WHERE session_id = ?1 AND type IN ('tool_use', 'tool_error') \
           AND coalesce(data ->> '$.agentId', '') = ?2 \
         ORDER BY ts DESC, id DESC LIMIT ?3",
    )?;
    events.bind_text(1, session_id)?;
    events.bind_text(2, agent_id.unwrap_or(""))?;
    events.bind_int64(3, WINDOW)?;
    let mut stream = Vec::new();
    while events.step()? {
        let (Value::Integer(id), Value::Integer(is_error)) = (events.column(0), events.column(1)) else {
            continue;
        };
        let data = events.column(2);
        stream.push(Step::from_event(id, is_error != 0, data.as_text().unwrap_or("{}")));
    }
    stream.reverse();
    Ok(stream)
}

/// Whether error event `event_id` is learned already (in
/// `resolved_errors`), with `lookup` prepared on first use; a failed lookup
/// counts as learned, so that nothing is learned twice.
fn is_learned(db: *mut sqlite3, lookup: &RefCell<Option<Statement>>, event_id: i64) -> bool {
    let mut slot = lookup.borrow_mut();
    let stmt = match slot.as_mut() {
        Some(stmt) => stmt,
        None => match Statement::prepare(db, "SELECT 1 FROM main.resolved_errors WHERE event_id = ?1") {
            Ok(stmt) => slot.insert(stmt),
            Err(_) => return true,
        },
    };
    stmt.reset()
        .and_then(|()| stmt.bind_int64(1, event_id))
        .and_then(|()| stmt.step())
        .unwrap_or(true)
}

fn find(db: *mut sqlite3, session_id: &str, agent_id: Option<&str>) -> std::result::Result<Vec<Resolution>, String> {
    let stream = read_window(db, session_id, agent_id)?;
    // asked only of the errors this success resolves: most resolve none
    let lookup = RefCell::new(None);
    Ok(resolutions(&stream, |e| !is_learned(db, &lookup, e.event_id)))
}

// ---- the table-valued function -------------------------------------------

pub struct KbResolves;

impl TableFunction for KbResolves {
    const NAME: &'static str = "kb_resolves";
    const SCHEMA: &'static str = "CREATE TABLE x(event_id, error, error_raw, signature, headline, kind, \
         tool_sequence, file, commands, edits, session_id HIDDEN, agent_id HIDDEN)";
    const COLUMNS: c_int = 10;
    /// The session's id, and the agent's (left out: the main thread).
    const ARGUMENTS: c_int = 2;
    const REQUIRED: c_int = 1;
    const NEVER_RAISES: bool = true;

    fn rows(db: *mut sqlite3, arguments: &[Option<&[u8]>]) -> std::result::Result<Vec<Vec<Value>>, String> {
        let Some(session_id) = arguments[0] else {
            return Ok(Vec::new());
        };
        let session_id = String::from_utf8_lossy(session_id);
        let agent_id = arguments[1].map(String::from_utf8_lossy);
        Ok(find(db, &session_id, agent_id.as_deref())?
            .into_iter()
            .map(|r| {
                vec![
                    Value::Integer(r.event_id),
                    text(r.error.as_deref()),
                    text(r.error_raw.as_deref()),
                    text(r.signature.as_deref()),
                    text(r.headline.as_deref()),
                    Value::Text(r.kind.to_owned()),
                    Value::Text(r.tool_sequence),
                    text(r.file.as_deref()),
                    Value::Text(r.commands),
                    Value::Text(r.edits),
                ]
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(id: i64, tool: &str, subject: Option<&str>, file: Option<&str>) -> Step {
        Step {
            event_id: id,
            is_error: true,
            tool: Some(tool.into()),
            error: Some(format!("error {id}")),
            subject: subject.map(Into::into),
            file: file.map(Into::into),
            ..Step::default()
        }
    }

    fn bash(id: i64, line: &str) -> Step {
        let subject = line.split(' ').next().map(Into::into);
        Step {
            event_id: id,
            tool: Some("Bash".into()),
            subject,
            line: Some(line.into()),
            ..Step::default()
        }
    }

    fn edit(id: i64, file: &str, before: &str, after: &str) -> Step {
        Step {
            event_id: id,
            tool: Some("Edit".into()),
            file: Some(file.into()),
            edit: Some(json!({"before": before, "after": after})),
            ..Step::default()
        }
    }

    #[test]
    fn a_retry_resolves_its_error_with_what_ran_in_between() {
        let stream = [
            error(1, "Bash", Some("python3"), None),
            bash(2, "ls"),
            bash(3, "pip install yaml"),
            edit(4, "/w/app.py", "import yml", "import yaml"),
            bash(5, "python3 app.py"),
        ];
        let found = resolutions(&stream, |_| true);
        assert_eq!(found.len(), 1);
        let r = &found[0];
        assert_eq!((r.event_id, r.kind), (1, "success_after_error"));
        assert_eq!(r.tool_sequence, r#"["Bash","Bash","Edit","Bash"]"#);
        assert_eq!(r.commands, r#"["pip install yaml"]"#);
        assert_eq!(
            r.edits,
            r#"[{"file":"/w/app.py","before":"import yml","after":"import yaml"}]"#
        );
        assert_eq!(r.file.as_deref(), Some("/w/app.py"));
    }

    #[test]
    fn an_unrelated_success_resolves_nothing() {
        let stream = [error(1, "Bash", Some("python3"), None), bash(2, "ls")];
        assert!(resolutions(&stream, |_| true).is_empty());
        // nor a success of a learned error, nor of one without a key
        let stream = [error(1, "Bash", Some("ls"), None), bash(2, "ls")];
        assert!(resolutions(&stream, |_| false).is_empty());
        let mut keyless = error(1, "Bash", Some("ls"), None);
        keyless.error = Some(String::new());
        assert!(resolutions(&[keyless, bash(2, "ls")], |_| true).is_empty());
    }

    #[test]
    fn another_tools_error_is_resolved_across_tools() {
        // Edit of a file fails, Bash runs, the Edit of that file succeeds,
        // and now Bash succeeds: the Edit error was resolved with Bash in between.
        let stream = [
            error(1, "Edit", None, Some("/w/a.js")),
            bash(2, "npm install"),
            edit(3, "/w/a.js", "a", "b"),
            bash(4, "npm test"),
        ];
        let found = resolutions(&stream, |_| true);
        assert_eq!(found.len(), 1);
        assert_eq!((found[0].event_id, found[0].kind), (1, "cross_tool_resolution"));
        assert_eq!(found[0].tool_sequence, r#"["Bash"]"#);
        assert_eq!(found[0].commands, r#"["npm install"]"#);
        assert_eq!(found[0].edits, "[]");
    }
}
