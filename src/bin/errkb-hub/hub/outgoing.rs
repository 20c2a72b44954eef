//! What leaves this laptop for the team's hub, field by field: secrets
//! and the home folder redacted (`redact_private`), the paths inside the
//! project relative to its top folder, and every other absolute path cut
//! to its last component, whatever the home layout (`/home`, `/Users`,
//! `/var/home`, `C:\Users`, `file://` URLs …): no absolute path, and no
//! user name in one, is sent.

use errkb::text::paths_in_text::{relative_paths, Outside};
use errkb::text::redact::redact_private;

/// `text` as it may be sent; `project`: the project's top folder as this
/// machine stores paths (`~/work/shop`), when known.
pub fn text(text: &str, project: Option<&str>) -> String {
    let redacted = redact_private(text);
    relative_paths(&redacted, project, Outside::Cut).into_owned()
}

/// A JSON document (a fix's resolution) as it may be sent: each of its
/// strings as `text` makes it (paths are cut inside the strings, never
/// across JSON's own quoting: a quoted path in a traceback stays valid
/// JSON). Not JSON: as text.
pub fn json(document: &str, project: Option<&str>) -> String {
    fn walk(value: &mut serde_json::Value, project: Option<&str>) {
        match value {
            serde_json::Value::String(s) => *s = text(s, project),
            serde_json::Value::Array(items) => items.iter_mut().for_each(|v| walk(v, project)),
            serde_json::Value::Object(fields) => fields.values_mut().for_each(|v| walk(v, project)),
            _ => {}
        }
    }
    match serde_json::from_str::<serde_json::Value>(document) {
        Ok(mut value) => {
            walk(&mut value, project);
            value.to_string()
        }
        Err(_) => text(document, project),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quoted_path_in_json_stays_json() {
        let resolution = serde_json::json!({"errorRaw": "File \"/usr/lib/python3.11/json/decoder.py\", line 3",
                                            "command": "python3 /home/alice/work/shop/app.py"})
        .to_string();
        let sent = json(&resolution, Some("~/work/shop"));
        let value: serde_json::Value = serde_json::from_str(&sent).expect("still JSON");
        assert_eq!(value["errorRaw"], "File \"…/decoder.py\", line 3");
        assert_eq!(value["command"], "python3 app.py");
    }

    #[test]
    fn no_absolute_path_or_user_name_is_sent() {
        let sent = text(
            "Traceback:\n  File \"/home/alice/.local/lib/python3.11/site-packages/x.py\", line 1\n  \
             File \"/home/alice/work/shop/app.py\", line 2\nModuleNotFoundError: No module named 'yaml'",
            Some("~/work/shop"),
        );
        assert!(!sent.contains("alice") && !sent.contains("/home"), "{sent}");
        assert!(sent.contains("\"…/x.py\"") && sent.contains("\"app.py\""), "{sent}");
    }
}
