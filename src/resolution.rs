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
    fn anything_else_is_shown_as_is() {
        for raw in ["npm install 실행", "[1,2]", "\"quoted\"", "{broken", ""] {
            assert_eq!(resolution_text(raw), raw);
        }
    }
}
