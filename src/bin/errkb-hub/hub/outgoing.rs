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

#[cfg(test)]
mod tests {
    use super::*;

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
