//! A project's identity across machines: its git remote, normalised, not
//! the folder it happens to be in on one laptop. `git@github.com:acme/shop.git`,
//! `https://github.com/acme/shop` and `ssh://git@github.com/acme/shop.git`
//! are all `github.com/acme/shop`. A folder without a remote is not shared.

use std::collections::HashMap;
use std::path::PathBuf;

/// `remote` as one name: host and path, lower-case host, no user,
/// password, port, scheme or `.git`.
pub fn normalize_remote(remote: &str) -> Option<String> {
    let remote = remote.trim();
    let (host, path) = if let Some((_, rest)) = remote.split_once("://") {
        // scheme://[user[:password]@]host[:port]/path
        let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
        let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
        let host = host.split_once(':').map_or(host, |(h, _)| h);
        (host.to_owned(), path.to_owned())
    } else if let Some((before, path)) = remote.split_once(':') {
        // scp-like: [user@]host:path (not a Windows drive letter or a local path)
        if before.contains('/') || before.len() < 2 {
            return None;
        }
        let host = before.rsplit_once('@').map_or(before, |(_, h)| h);
        (host.to_owned(), path.to_owned())
    } else {
        return None; // a local path: nothing another machine can name
    };
    let path = path.trim_matches('/');
    let path = path.strip_suffix(".git").unwrap_or(path).trim_end_matches('/');
    if host.is_empty() || path.is_empty() {
        return None;
    }
    Some(format!("{}/{}", host.to_ascii_lowercase(), path))
}

/// A folder as written in the config or stored (`~/x`, `/home/me/x/`),
/// absolute, without a trailing `/`.
fn absolute(folder: &str) -> String {
    let trimmed = folder.trim_end_matches('/');
    let expanded = match trimmed.strip_prefix('~') {
        Some(rest) if rest.is_empty() || rest.starts_with('/') => errkb::config::home()
            .map(|home| format!("{}{rest}", home.display().to_string().trim_end_matches('/'))),
        _ => None,
    };
    let out = expanded.unwrap_or_else(|| trimmed.to_owned());
    if out.is_empty() {
        "/".to_owned()
    } else {
        out
    }
}

/// The folder a stored project name means on this machine (`~` expanded).
pub fn folder(project: &str) -> Option<PathBuf> {
    if let Some(rest) = project.strip_prefix("~/") {
        return errkb::config::home().map(|h| h.join(rest));
    }
    if project == "~" {
        return errkb::config::home();
    }
    project.starts_with('/').then(|| PathBuf::from(project))
}

/// The normalised remote of a project folder: `origin`, else the first
/// remote git lists.
pub fn remote_of(folder: &std::path::Path) -> Option<String> {
    let url = git(folder, &["remote", "get-url", "origin"]).or_else(|| {
        let first = git(folder, &["remote"])?.lines().next()?.to_owned();
        git(folder, &["remote", "get-url", &first])
    })?;
    normalize_remote(&url)
}

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
    Folder(String),
}

impl Named {
    fn parse(item: &str) -> Named {
        let item = item.trim();
        if item.starts_with('/') || item.starts_with('~') {
            return Named::Folder(absolute(item));
        }
        Named::Remote(normalize_remote(item).unwrap_or_else(|| item.trim_end_matches('/').to_owned()))
    }

    /// Whether this names `remote`, or `folder` (a stored project folder)
    /// or a folder above it. Folders are compared with `~` expanded on
    /// both sides, whatever the home folder's layout.
    fn names(&self, remote: &str, folder: Option<&str>) -> bool {
        match self {
            Named::Remote(r) => r == remote,
            Named::Folder(f) => folder.map(absolute).is_some_and(|folder| {
                folder == *f || f == "/" || folder.strip_prefix(f.as_str()).is_some_and(|rest| rest.starts_with('/'))
            }),
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
    fn one_project_whatever_the_remote_url() {
        for url in [
            "git@github.com:acme/shop.git",
            "https://github.com/acme/shop",
            "https://github.com/acme/shop.git/",
            "ssh://git@github.com/acme/shop.git",
            "ssh://git@GitHub.com:22/acme/shop.git",
            "https://user:token@github.com/acme/shop.git",
        ] {
            assert_eq!(normalize_remote(url).as_deref(), Some("github.com/acme/shop"), "{url}");
        }
        assert_eq!(
            normalize_remote("git@gitlab.example.com:group/sub/app.git").as_deref(),
            Some("gitlab.example.com/group/sub/app")
        );
        assert_eq!(normalize_remote("/srv/git/shop.git"), None);
        assert_eq!(normalize_remote("../shop"), None);
    }

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
