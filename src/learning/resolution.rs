//! What a fix is and how the agent reads it.
//!
//! `resolution_text(resolution)`: a stored fix as a few readable lines, e.g.
//! `success_after_error: Bash → Bash; command: python app.py`, then what
//! was done in between: `  ran: pip install pyyaml`, `  edited src/app.js:
//! "require('./util')" → "require('./utils')"`.
//!
//! A resolution is a JSON object (`resolvedBy`, `tool`, `toolSequence`,
//! `command`, `file`, and the steps in between: `commands`, `edits`);
//! anything else, including resolutions written by hand as plain text, is
//! shown as it is. `edit_hunk(old, new)` makes an edit's compact before →
//! after.

use serde_json::Value;

/// Details worth showing, in this order.
const DETAILS: &[&str] = &["command", "file"];

pub fn resolution_text(resolution: &str) -> String {
    let Ok(Value::Object(fields)) = serde_json::from_str::<Value>(resolution) else {
        return resolution.to_owned();
    };
    let text = |key: &str| fields.get(key).and_then(Value::as_str).filter(|s| !s.is_empty());
    let sequence: Vec<&str> = fields
        .get("toolSequence")
        .and_then(Value::as_array)
        .map(|tools| tools.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut line = text("resolvedBy").unwrap_or("resolved").to_owned();
    if !sequence.is_empty() {
        line.push_str(": ");
        line.push_str(&sequence.join(" → "));
    } else if let Some(tool) = text("tool") {
        line.push_str(&format!(" ({tool})"));
    }
    for key in DETAILS {
        if let Some(value) = text(key) {
            line.push_str(&format!("; {key}: {value}"));
        }
    }
    // The steps in between, one line each: what the agent can repeat.
    for command in fields.get("commands").and_then(Value::as_array).into_iter().flatten() {
        if let Some(command) = command.as_str() {
            line.push_str(&format!("\n  ran: {command}"));
        }
    }
    for edit in fields.get("edits").and_then(Value::as_array).into_iter().flatten() {
        let part = |k: &str| edit.get(k).and_then(Value::as_str).unwrap_or("");
        line.push_str(&format!("\n  edited {}", part("file")));
        let (before, after) = (part("before"), part("after"));
        if !before.is_empty() || !after.is_empty() {
            line.push_str(&format!(": {} → {}", quoted(before), quoted(after)));
        }
    }
    line
}

/// A snippet on one line, quoted; newlines shown as ⏎.
fn quoted(snippet: &str) -> String {
    format!("\"{}\"", snippet.replace('\n', " ⏎ "))
}

/// Longest side of an edit's hunk kept, in characters.
const MAX_HUNK_CHARS: usize = 160;

/// The shortest hunk that shows an edit: the lines of `old` and `new` that
/// differ (common leading and trailing lines dropped), each side cut to
/// MAX_HUNK_CHARS. As a JSON object `{"before", "after"}`.
pub fn edit_hunk(old: &str, new: &str) -> String {
    let (a, b): (Vec<&str>, Vec<&str>) = (old.lines().collect(), new.lines().collect());
    let head = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let tail = a[head..]
        .iter()
        .rev()
        .zip(b[head..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let side = |lines: &[&str]| -> String {
        let text = lines.iter().map(|l| l.trim()).collect::<Vec<_>>().join("\n");
        match text.char_indices().nth(MAX_HUNK_CHARS) {
            Some((cut, _)) => format!("{}…", &text[..cut]),
            None => text,
        }
    };
    serde_json::json!({
        "before": side(&a[head..a.len() - tail]),
        "after": side(&b[head..b.len() - tail]),
    })
    .to_string()
}

/// What makes two fixes of one error the same fix: what was done, not when
/// or in which session. A rerun after changes (commands run, edits, files
/// written, what the retry changed) is the changes alone: the command
/// rerun only showed them to work, and one edit that fixed an error met
/// through `npm run report` and through `node scripts/report.js` is one
/// fix. Without changes (or where another tool's success was the fix), the
/// command that worked and its file. A resolution that is not a JSON
/// object is its own key.
pub fn fix_key(resolution: &str) -> String {
    let Ok(Value::Object(fields)) = serde_json::from_str::<Value>(resolution) else {
        return resolution.to_owned();
    };
    let field = |name: &str| {
        fields
            .get(name)
            .filter(|v| !v.is_null())
            .map(|value| format!("{name}={value}"))
    };
    let changes: Vec<String> = ["commands", "edits", "writes", "changed"].into_iter().filter_map(field).collect();
    let substitute = fields.get("resolvedBy").and_then(Value::as_str) == Some("cross_tool_resolution");
    let mut key = changes;
    if key.is_empty() || substitute {
        key.extend(["command", "file"].into_iter().filter_map(field));
    }
    if key.is_empty() {
        for field in ["resolvedBy", "tool", "toolSequence"] {
            if let Some(value) = fields.get(field) {
                key.push(format!("{field}={value}"));
            }
        }
    }
    key.join("\u{1f}")
}

/// A fix's identity wherever it is learned: the error's key, the original
/// error's headline and the fix's key, hashed (SHA-256, the first 16
/// bytes in hex). Two machines that learn the same fix of the same error
/// name it alike; a resend of it is recognised.
pub fn fix_uid(error_key: &str, headline: &str, fix_key: &str) -> String {
    use sha2::Digest;
    let mut hash = sha2::Sha256::new();
    for part in [error_key, headline, fix_key] {
        hash.update(part.as_bytes());
        hash.update([0x1f]);
    }
    hash.finalize()[..16].iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_sequence_and_details() {
        let r = r#"{"resolvedBy":"success_after_error","tool":"Bash","toolSequence":["Edit","Bash"],"command":"npm","sessionId":"s"}"#;
        assert_eq!(resolution_text(r), "success_after_error: Edit → Bash; command: npm");
        assert_eq!(
            resolution_text(r#"{"resolvedBy":"cross_tool_resolution","tool":"Edit"}"#),
            "cross_tool_resolution (Edit)"
        );
        assert_eq!(resolution_text(r#"{"file":"a.ts"}"#), "resolved; file: a.ts");
    }

    #[test]
    fn steps_in_between_are_shown_one_per_line() {
        let r = r#"{"resolvedBy":"success_after_error","tool":"Bash","toolSequence":["Bash","Edit","Bash"],
                   "command":"python app.py","commands":["pip install pyyaml"],
                   "edits":[{"file":"/w/app.py","before":"import yml","after":"import yaml"}]}"#;
        assert_eq!(
            resolution_text(r),
            "success_after_error: Bash → Edit → Bash; command: python app.py\n  ran: pip install pyyaml\n  \
             edited /w/app.py: \"import yml\" → \"import yaml\""
        );
    }

    #[test]
    fn an_edit_hunk_is_the_lines_that_changed() {
        let old = "a\nconst u = require('./util');\nb\n";
        let new = "a\nconst u = require('./utils');\nb\n";
        assert_eq!(
            edit_hunk(old, new),
            r#"{"before":"const u = require('./util');","after":"const u = require('./utils');"}"#
        );
        assert_eq!(edit_hunk("", "x"), r#"{"before":"","after":"x"}"#);
        let long = "y".repeat(500);
        assert!(edit_hunk("x", &long).chars().count() < 200);
    }

    #[test]
    fn fix_keys_ignore_when_and_where() {
        let a = r#"{"resolvedBy":"success_after_error","tool":"Bash","command":"pip install x","sessionId":"s1"}"#;
        let b = r#"{"resolvedBy":"success_after_error","tool":"Bash","command":"pip install x","sessionId":"s2"}"#;
        let c = r#"{"resolvedBy":"success_after_error","tool":"Bash","command":"pip install y","sessionId":"s1"}"#;
        assert_eq!(fix_key(a), fix_key(b));
        assert_ne!(fix_key(a), fix_key(c));
        assert_eq!(fix_key("plain text"), "plain text");
    }

    #[test]
    fn a_rerun_after_changes_is_the_changes() {
        let edit = r#"[{"file":"scripts/report.js","before":"total(,","after":"total(1,"}]"#;
        let via_npm = format!(r#"{{"resolvedBy":"success_after_error","tool":"Bash","command":"npm run report","file":"scripts/report.js","edits":{edit}}}"#);
        let direct = format!(r#"{{"resolvedBy":"success_after_error","tool":"Bash","command":"node scripts/report.js","file":"scripts/report.js","edits":{edit}}}"#);
        assert_eq!(fix_key(&via_npm), fix_key(&direct));
        assert!(!fix_key(&direct).contains("command="), "{}", fix_key(&direct));
        // another edit is another fix
        assert_ne!(fix_key(&direct), fix_key(&direct.replace("total(1,", "total(2,")));
        // a command that worked with nothing changed before it is the fix itself
        let a = r#"{"resolvedBy":"success_after_error","tool":"Bash","command":"npm ci"}"#;
        let b = r#"{"resolvedBy":"success_after_error","tool":"Bash","command":"npm install"}"#;
        assert_ne!(fix_key(a), fix_key(b));
        // as is another tool's success, whatever was done before it
        let c = format!(r#"{{"resolvedBy":"cross_tool_resolution","tool":"Bash","command":"curl -sL x","edits":{edit}}}"#);
        let d = format!(r#"{{"resolvedBy":"cross_tool_resolution","tool":"Bash","command":"wget -q x","edits":{edit}}}"#);
        assert_ne!(fix_key(&c), fix_key(&d));
    }

    #[test]
    fn anything_else_is_shown_as_is() {
        for raw in ["npm install 실행", "[1,2]", "\"quoted\"", "{broken", ""] {
            assert_eq!(resolution_text(raw), raw);
        }
    }
}
