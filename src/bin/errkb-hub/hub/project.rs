//! Which projects are shared with the team, by their identity across
//! machines (`errkb::project`: the git remote, normalised). A folder
//! without a remote is not shared.

use std::collections::HashMap;
use std::path::PathBuf;

use errkb::project::{folder_path as folder, normalize_remote, remote_of};

/// What `git -C folder ARGS` prints, when it succeeds.
fn git(folder: &std::path::Path, args: &[&str]) -> Option<String> {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(folder)
        .args(args)
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// Which projects share with the team, from config.json's `"hub"`:
/// `"projects"` (only these) and `"exclude"`, each a list of remotes
/// (`github.com/acme/shop`, or any URL git accepts) or folders (`~` for
/// the home folder); a folder names everything below it too.
#[derive(Debug, Default, Clone)]
pub struct Selection {
    only: Option<Vec<Named>>,
    exclude: Vec<Named>,
}

/// A project named in the config: by its remote, or by a folder (as this
/// machine stores folders: the home folder as `~`).
#[derive(Debug, Clone, PartialEq)]
enum Named {
    Remote(String),
    Folder(PathBuf),
}

impl Named {
    fn parse(item: &str) -> Named {
        let item = item.trim();
        if item.starts_with('/') || item.starts_with('~') {
            return Named::Folder(folder(item).unwrap_or_else(|| PathBuf::from(item)));
        }
        Named::Remote(normalize_remote(item).unwrap_or_else(|| item.trim_end_matches('/').to_owned()))
    }

    /// Whether this names `remote`, or `folder` (a stored project folder)
    /// or a folder above it. Folders are compared with `~` expanded on
    /// both sides, whatever the home folder's layout.
    fn names(&self, remote: &str, folder: Option<&str>) -> bool {
        match self {
            Named::Remote(r) => r == remote,
            // (component by component: `~/work/secret` names
            // `~/work/secret/api`, not `~/work/secrets`)
            Named::Folder(f) => folder.and_then(self::folder).is_some_and(|folder| folder.starts_with(f)),
        }
    }
}

impl Selection {
    pub fn from_config(hub: &serde_json::Value) -> Selection {
        let list = |key: &str| -> Option<Vec<Named>> {
            hub.get(key)?
                .as_array()
                .map(|items| items.iter().filter_map(|i| i.as_str()).map(Named::parse).collect())
        };
        Selection {
            only: list("projects"),
            exclude: list("exclude").unwrap_or_default(),
        }
    }

    /// Whether `remote` (found in `folder`, when local) is shared.
    pub fn shares(&self, remote: &str, folder: Option<&str>) -> bool {
        let named = |list: &[Named]| list.iter().any(|n| n.names(remote, folder));
        if named(&self.exclude) {
            return false;
        }
        self.only.as_deref().is_none_or(named)
    }
}

/// The remotes (and top folders) of the stored project folders, looked up
/// once per sync.
#[derive(Default)]
pub struct Remotes {
    remotes: HashMap<String, Option<String>>,
    tops: HashMap<String, Option<String>>,
}

impl Remotes {
    /// The remote of a stored project name: a folder (looked up with git),
    /// or a remote already (a teammate's fix).
    pub fn of(&mut self, project: &str) -> Option<String> {
        if let Some(known) = self.remotes.get(project) {
            return known.clone();
        }
        let remote = match folder(project) {
            Some(dir) => remote_of(&dir),
            None => Some(project.to_owned()).filter(|p| p.contains('/') && !p.starts_with('~')),
        };
        self.remotes.insert(project.to_owned(), remote.clone());
        remote
    }

    /// The top folder of the git checkout a stored project folder is in,
    /// as this machine stores folders (`~/work/shop`); the folder itself
    /// when git does not say.
    pub fn top_level(&mut self, project: &str) -> Option<String> {
        if let Some(known) = self.tops.get(project) {
            return known.clone();
        }
        let top = folder(project)
            .and_then(|dir| git(&dir, &["rev-parse", "--show-toplevel"]))
            .map(|top| errkb::text::redact::redact_private(&top).into_owned())
            .or_else(|| Some(project.to_owned()).filter(|p| p.starts_with('/') || p.starts_with('~')));
        self.tops.insert(project.to_owned(), top.clone());
        top
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_selection_narrows_or_excludes() {
        let all = Selection::from_config(&serde_json::json!({}));
        assert!(all.shares("github.com/acme/shop", None));
        let some = Selection::from_config(&serde_json::json!({"projects": ["git@github.com:acme/shop.git"]}));
        assert!(some.shares("github.com/acme/shop", None) && !some.shares("github.com/acme/blog", None));
        let not = Selection::from_config(&serde_json::json!({"exclude": ["~/work/secret"]}));
        assert!(!not.shares("github.com/acme/secret", Some("~/work/secret")));
        assert!(not.shares("github.com/acme/shop", Some("~/work/shop")));
        // a folder names the folders below it, not its namesakes
        assert!(!not.shares("github.com/acme/secret", Some("~/work/secret/api")));
        assert!(not.shares("github.com/acme/secrets", Some("~/work/secrets")));
        let by_path = Selection::from_config(&serde_json::json!({"exclude": ["/srv/client/"]}));
        assert!(!by_path.shares("gitlab.example.com/c/app", Some("/srv/client/app")));
    }
}
