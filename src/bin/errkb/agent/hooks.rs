//! The hooks errkb ships, in one table: install writes settings.json from
//! it, the plugin's hooks/hooks.json is checked against it, doctor looks
//! for each event, `errkb hook` and `errkb learn` run their scripts.

use anyhow::{bail, Result};

use errkb::runtime::paths;

/// One hook errkb ships: the event, which calls Claude Code runs it for
/// (`matcher`), how long Claude Code waits for it, and the script it runs
/// (compiled in; a copy under ~/.reflexion/sql/hooks wins). install.rs
/// writes settings.json from this table, the plugin's hooks/hooks.json is
/// checked against it, doctor looks for each event.
pub struct Hook {
    pub event: &'static str,
    /// Claude Code's rule: letters, digits, `_ - , |` and spaces only is a
    /// list of exact names; anything else an unanchored regex.
    pub matcher: Option<&'static str>,
    pub timeout_secs: u64,
    pub script: &'static str,
    /// Payload fields the script never reads, left out of `:stdin` so that
    /// SQLite does not parse them: a command's whole output (the sqlite3
    /// shell, given them, gets the same result) …
    pub unread: &'static [&'static str],
    /// … but for these tools: a Read's file, which a file's history is
    /// checked against.
    pub read_for: &'static [&'static str],
    /// Whether the script writes (stores the call): such a hook keeps the
    /// write-ahead log short, before it writes.
    pub writes: bool,
}

/// The subagent types that write code: the original system's list (matched anywhere
/// in the type, so `oh-my-claudecode:executor-high` counts), plus the stock
/// `general-purpose` agent, which does the coding when no custom agents
/// are installed. The parentheses make Claude Code read it as a regex (a
/// bare `a|b` would be an exact list and miss namespaced types). The stock
/// read-only `Explore` and `Plan` agents start no process.
pub const CODE_AGENT_TYPES: &str = "(executor|architect|designer|build-fixer|general-purpose)";

pub const HOOKS: &[Hook] = &[
    Hook {
        event: "PreToolUse",
        // the Bash warning (a file's history comes with PostToolUse)
        matcher: Some("Bash"),
        timeout_secs: 3,
        script: include_str!("../../../../sql/hooks/PreToolUse.sql"),
        writes: false,
        unread: &[],
        read_for: &[],
    },
    Hook {
        event: "PostToolUse",
        matcher: Some("*"),
        timeout_secs: 5,
        script: include_str!("../../../../sql/hooks/PostToolUse.sql"),
        writes: true,
        unread: &["tool_response"],
        read_for: &["Read"],
    },
    Hook {
        event: "PostToolUseFailure",
        matcher: Some("*"),
        timeout_secs: 5,
        script: include_str!("../../../../sql/hooks/PostToolUseFailure.sql"),
        writes: true,
        unread: &[],
        read_for: &[],
    },
    Hook {
        event: "SubagentStart",
        matcher: Some(CODE_AGENT_TYPES),
        timeout_secs: 3,
        script: include_str!("../../../../sql/hooks/SubagentStart.sql"),
        writes: true,
        unread: &[],
        read_for: &[],
    },
    // starts the embedding job in a process of its own and returns at once
    Hook {
        event: "SessionEnd",
        matcher: None,
        timeout_secs: 2,
        script: include_str!("../../../../sql/hooks/SessionEnd.sql"),
        writes: false,
        unread: &[],
        read_for: &[],
    },
];

pub fn events() -> impl Iterator<Item = &'static str> {
    HOOKS.iter().map(|h| h.event)
}

pub fn find(event: &str) -> Result<&'static Hook> {
    let Some(hook) = HOOKS.iter().find(|h| h.event == event) else {
        bail!(
            "no hook for event {event:?} (known: {})",
            events().collect::<Vec<_>>().join(", ")
        );
    };
    Ok(hook)
}

/// The script a hook runs: the user's copy under ~/.reflexion/sql/hooks,
/// else the built-in one.
pub fn script_for(event: &str) -> Result<String> {
    script_of(find(event)?)
}

pub fn script_of(hook: &Hook) -> Result<String> {
    if let Ok(root) = paths::data_root() {
        let installed = root.join("sql").join("hooks").join(format!("{}.sql", hook.event));
        if let Ok(sql) = std::fs::read_to_string(&installed) {
            return Ok(sql);
        }
    }
    Ok(hook.script.to_owned())
}

#[cfg(test)]
mod tests {
    use errkb::runtime::script::{statements, temp_objects_named};

    /// No hook names a TEMP object (the history views): making one would
    /// cost every run of the hook.
    #[test]
    fn hooks_name_no_temp_objects() {
        for hook in super::HOOKS {
            for statement in statements(hook.script) {
                assert!(temp_objects_named(&statement).is_empty(), "{}: {statement}", hook.event);
            }
        }
    }
}
