//! `file_history_status(error_raw, resolution, file, content)`: whether a
//! past error is about a file the agent reads (or writes), and whether the
//! file as read already holds its fix.
//!
//! An error is about the file when its fix touched it (an edit, a file
//! written, the file of the call that succeeded) or when its text names
//! it. Paths are compared relative to the project (the hooks store them
//! so): `src/index.ts` is not `lib/index.ts`; a bare name in an error
//! counts only for a file at the project's root. The fix is already in the
//! file when every line its edits of that file wrote is in the content as
//! read.

use serde_json::Value;

/// `None`: not about the file; `Some(false)`: about it; `Some(true)`:
/// about it, and its fix is in `content` already.
pub fn status(error_raw: Option<&str>, resolution: Option<&str>, file: &str, content: Option<&str>) -> Option<bool> {
    let file = file.trim_start_matches("./");
    if file.is_empty() {
        return None;
    }
    let fix: Value = resolution
        .and_then(|r| serde_json::from_str(r).ok())
        .unwrap_or(Value::Null);
    let edits: Vec<&Value> = fix
        .get("edits")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|e| {
            e.get("file")
                .and_then(Value::as_str)
                .is_some_and(|f| same_path(f, file))
        })
        .collect();
    let written = fix
        .get("writes")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .any(|f| same_path(f, file));
    let touched = !edits.is_empty()
        || written
        || fix
            .get("file")
            .and_then(Value::as_str)
            .is_some_and(|f| same_path(f, file));
    let named = error_raw.is_some_and(|raw| names(raw, file));
    if !touched && !named {
        return None;
    }
    let applied = match content {
        Some(content) if !edits.is_empty() => edits.iter().all(|e| {
            let after = e.get("after").and_then(Value::as_str).unwrap_or("");
            let lines: Vec<&str> = after
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty() && !l.ends_with('…'))
                .collect();
            !lines.is_empty() && lines.iter().all(|l| content.contains(l))
        }),
        _ => false,
    };
    Some(applied)
}

/// One stored path and the file: the same relative path (either may have
/// been stored absolute, when it lay outside the project).
fn same_path(stored: &str, file: &str) -> bool {
    let stored = stored.trim_start_matches("./");
    stored == file || stored.ends_with(&format!("/{file}")) || file.ends_with(&format!("/{stored}"))
}

/// Whether an error's text names the file: its relative path, or its bare
/// name for a file at the project's root.
fn names(raw: &str, file: &str) -> bool {
    let bounded = |needle: &str| {
        raw.match_indices(needle).any(|(at, _)| {
            let before = raw[..at].chars().next_back();
            let after = raw[at + needle.len()..].chars().next();
            let path_char = |c: char| c.is_alphanumeric() || matches!(c, '_' | '-' | '.');
            before.is_none_or(|c| !path_char(c) || c == '/') && after.is_none_or(|c| !path_char(c))
        })
    };
    bounded(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIX: &str = r#"{"command":"node src/index.js","file":"src/index.js",
        "edits":[{"file":"src/index.js","before":"require('./util')","after":"require('./utils')"}]}"#;

    #[test]
    fn a_fix_that_touched_the_file_is_about_it() {
        assert_eq!(status(None, Some(FIX), "src/index.js", None), Some(false));
        assert_eq!(status(None, Some(FIX), "lib/index.js", None), None);
        assert_eq!(
            status(
                Some("Error: Cannot find module './util'\n- ~/shop/src/index.js"),
                None,
                "src/index.js",
                None
            ),
            Some(false)
        );
        assert_eq!(
            status(Some("Error in app.py line 3"), None, "app.py", None),
            Some(false)
        );
        assert_eq!(status(Some("Error in myapp.py line 3"), None, "app.py", None), None);
    }

    #[test]
    fn a_fix_already_in_the_file_as_read_is_applied() {
        let content = "const u = require('./utils');\nmain(u);\n";
        assert_eq!(status(None, Some(FIX), "src/index.js", Some(content)), Some(true));
        assert_eq!(
            status(None, Some(FIX), "src/index.js", Some("const u = require('./util');\n")),
            Some(false)
        );
    }
}
