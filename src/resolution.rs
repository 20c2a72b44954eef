//! `resolution_text(resolution)`: a stored fix as one readable line for
//! the agent, e.g. `success_after_error: Edit → Bash; command: npm`.
//!
//! A resolution is a JSON object (`resolvedBy`, `tool`, `toolSequence`, and
//! whatever detail the learner kept); anything else, including resolutions
//! written by hand as plain text, is shown as it is.

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
    line
}

/// What makes two fixes of one error the same fix: what was done (the
/// commands, the edits, the command that worked, the file), not when or in
/// which session. A resolution that is not a JSON object is its own key.
pub fn fix_key(resolution: &str) -> String {
    let Ok(Value::Object(fields)) = serde_json::from_str::<Value>(resolution) else {
        return resolution.to_owned();
    };
    let mut key = Vec::new();
    for field in ["commands", "edits", "command", "file"] {
        if let Some(value) = fields.get(field).filter(|v| !v.is_null()) {
            key.push(format!("{field}={value}"));
        }
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
    fn fix_keys_ignore_when_and_where() {
        let a = r#"{"resolvedBy":"success_after_error","tool":"Bash","command":"pip install x","sessionId":"s1"}"#;
        let b = r#"{"resolvedBy":"success_after_error","tool":"Bash","command":"pip install x","sessionId":"s2"}"#;
        let c = r#"{"resolvedBy":"success_after_error","tool":"Bash","command":"pip install y","sessionId":"s1"}"#;
        assert_eq!(fix_key(a), fix_key(b));
        assert_ne!(fix_key(a), fix_key(c));
        assert_eq!(fix_key("plain text"), "plain text");
    }

    #[test]
    fn anything_else_is_shown_as_is() {
        for raw in ["npm install 실행", "[1,2]", "\"quoted\"", "{broken", ""] {
            assert_eq!(resolution_text(raw), raw);
        }
    }
}
