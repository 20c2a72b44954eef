//! A project's identity: its git remote, normalised, else its folder.
//!
//! Across machines a project is its remote, not the folder it happens to
//! be in on one laptop: `git@github.com:acme/shop.git`,
//! `https://github.com/acme/shop` and `ssh://git@github.com/acme/shop.git`
//! are all `github.com/acme/shop`. Two clones of one repository are one
//! project; two repositories with a `scripts/report.js` each are two. A
//! folder with no remote is itself (as this machine stores folders: the
//! home folder as `~`), the top of its git checkout when it is in one.
//!
//! The remote is read from the checkout's config file, not asked of `git`:
//! a hook that spawned git would spend more than its whole budget. Only
//! `[remote "…"] url` is read (`origin` first, else the first remote);
//! `insteadOf` rewrites and `include`d files are not followed, so a remote
//! written only through them is not seen, and the folder names the
//! project instead. The files read are the user's own checkout, but a
//! cloned repository is not trusted: only regular files, at most 64 KiB
//! each, and what is returned is a host and path, cut to 200 characters.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Longest identity returned, in characters.
const MAX_CHARS: usize = 200;
/// Most of a git file read (a config is a few hundred bytes).
const MAX_FILE: u64 = 64 * 1024;
/// Folders walked up looking for a checkout.
const MAX_DEPTH: usize = 64;

/// `remote` as one name: host and path, lower-case host, no user,
/// password, port, scheme or `.git`. None for a local path (nothing
/// another machine can name).
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
        return None;
    };
    let path = path.trim_matches('/');
    let path = path.strip_suffix(".git").unwrap_or(path).trim_end_matches('/');
    if host.is_empty() || path.is_empty() {
        return None;
    }
    let name = format!("{}/{}", host.to_ascii_lowercase(), path);
    // a host and a path: no white space or control characters in either
    if name.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return None;
    }
    Some(name.chars().take(MAX_CHARS).collect())
}

/// A folder as stored (`~/work/shop`, `/srv/shop/`) as a path on this
/// machine: `~` expanded. None for what is not an absolute folder.
pub fn folder_path(folder: &str) -> Option<PathBuf> {
    let folder = folder.trim_end_matches('/');
    if let Some(rest) = folder.strip_prefix("~/") {
        return crate::config::home().map(|h| h.join(rest));
    }
    if folder == "~" {
        return crate::config::home();
    }
    if folder.is_empty() {
        return Some(PathBuf::from("/"));
    }
    folder.starts_with('/').then(|| PathBuf::from(folder))
}

/// Where a project folder is checked out: the top of its work tree and
/// the config file that holds its remotes.
struct Checkout {
    top: PathBuf,
    config: PathBuf,
}

/// A regular file's text, when it is one and small enough.
fn small_file(path: &Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > MAX_FILE {
        return None;
    }
    std::fs::read_to_string(path).ok()
}

impl Checkout {
    /// Its first remote that normalises (`origin` first).
    fn remote(&self) -> Option<String> {
        remote_urls(&small_file(&self.config)?)
            .iter()
            .find_map(|url| normalize_remote(url))
    }
}

/// The checkout `folder` is in: the nearest folder above it (or itself)
/// with a `.git` folder, or a `.git` file naming one (a linked work tree
/// or a submodule, whose `commondir` leads to the shared config). The
/// walk stops below `ceiling` and below `/`: a home folder kept in git
/// (dotfiles) would otherwise make every project in it one.
fn checkout_of(folder: &Path, ceiling: Option<&Path>) -> Option<Checkout> {
    for top in folder.ancestors().take(MAX_DEPTH) {
        if top.parent().is_none() || ceiling.is_some_and(|c| c.starts_with(top)) {
            return None;
        }
        let dot_git = top.join(".git");
        let Ok(meta) = std::fs::metadata(&dot_git) else {
            continue;
        };
        let git_dir = if meta.is_dir() {
            dot_git
        } else if meta.is_file() {
            let text = small_file(&dot_git)?;
            let named = text.lines().find_map(|l| l.strip_prefix("gitdir:"))?.trim();
            top.join(named)
        } else {
            return None;
        };
        let common = match small_file(&git_dir.join("commondir")) {
            Some(dir) => git_dir.join(dir.trim()),
            None => git_dir,
        };
        return Some(Checkout {
            top: top.to_path_buf(),
            config: common.join("config"),
        });
    }
    None
}

/// The remotes' URLs in a git config, `origin`'s first, then the others
/// in the file's order.
fn remote_urls(config: &str) -> Vec<String> {
    let mut urls: Vec<(bool, String)> = Vec::new();
    let mut remote: Option<String> = None;
    for line in config.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            // [remote "origin"]
            remote = line
                .strip_prefix('[')
                .and_then(|l| l.split_once(']'))
                .map(|(inside, _)| inside.trim())
                .and_then(|inside| {
                    let (section, name) = inside.split_once(char::is_whitespace)?;
                    section
                        .eq_ignore_ascii_case("remote")
                        .then(|| name.trim().trim_matches('"').to_owned())
                });
            continue;
        }
        let Some(name) = &remote else { continue };
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        if key.trim().eq_ignore_ascii_case("url") {
            let value = value.trim().trim_matches('"');
            urls.push((name == "origin", value.to_owned()));
        }
    }
    // origin first, the rest as written (a stable sort)
    urls.sort_by_key(|(origin, _)| !origin);
    urls.into_iter().map(|(_, url)| url).collect()
}

/// The normalised remote of the checkout `folder` is in, when it has one.
pub fn remote_of(folder: &Path) -> Option<String> {
    checkout_of(folder, crate::config::home().as_deref())?.remote()
}

/// The project `folder` (as stored: `~/work/shop/api`) is part of: its
/// checkout's remote, else the checkout's top folder, else the folder
/// itself, as this machine stores folders. Looked up once per process.
pub fn identity(folder: &str) -> String {
    static KNOWN: Mutex<Option<HashMap<String, String>>> = Mutex::new(None);
    let mut known = KNOWN.lock().unwrap_or_else(|p| p.into_inner());
    let known = known.get_or_insert_with(HashMap::new);
    if let Some(id) = known.get(folder) {
        return id.clone();
    }
    let id = look_up(folder, crate::config::home().as_deref());
    known.insert(folder.to_owned(), id.clone());
    id
}

fn look_up(folder: &str, ceiling: Option<&Path>) -> String {
    let stored = folder.trim_end_matches('/');
    let Some(path) = folder_path(folder) else {
        return stored.to_owned();
    };
    let Some(checkout) = checkout_of(&path, ceiling) else {
        return stored.to_owned();
    };
    if let Some(remote) = checkout.remote() {
        return remote;
    }
    if checkout.top == path {
        return stored.to_owned();
    }
    crate::text::redact::redact_private(&checkout.top.display().to_string()).into_owned()
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
        assert_eq!(normalize_remote("https://host/a\u{1b}[31m/b"), None);
    }

    #[test]
    fn origin_first_then_the_first_remote() {
        let config = "[core]\n\tbare = false\n[remote \"upstream\"]\n\turl = https://github.com/up/shop\n\
                      [remote \"origin\"]\n\turl = git@github.com:me/shop.git\n\tfetch = +refs/heads/*\n";
        assert_eq!(remote_urls(config), ["git@github.com:me/shop.git", "https://github.com/up/shop"]);
        assert_eq!(remote_urls("[remote \"fork\"]\nurl=\"git@h.example:x/y\"\n"), ["git@h.example:x/y"]);
        assert!(remote_urls("[branch \"main\"]\n\tremote = origin\n").is_empty());
    }

    #[test]
    fn a_checkout_is_its_remote_a_plain_folder_itself() {
        let dir = std::env::temp_dir().join(format!("errkb-project-{}", std::process::id()));
        let (shop, plain) = (dir.join("shop"), dir.join("plain"));
        std::fs::create_dir_all(shop.join(".git")).unwrap();
        std::fs::create_dir_all(shop.join("src/deep")).unwrap();
        std::fs::create_dir_all(&plain).unwrap();
        std::fs::write(shop.join(".git/config"), "[remote \"origin\"]\n\turl = git@github.com:acme/shop.git\n").unwrap();
        // (the walk stops at the test's folder, as it does at the home folder)
        let at = |p: &Path| look_up(&p.display().to_string(), Some(&dir));
        assert_eq!(at(&shop), "github.com/acme/shop");
        assert_eq!(at(&shop.join("src/deep")), "github.com/acme/shop");
        assert_eq!(at(&plain), plain.display().to_string());
        // the home folder kept in git makes no project of everything in it
        std::fs::create_dir_all(dir.join(".git")).unwrap();
        std::fs::write(dir.join(".git/config"), "[remote \"origin\"]\n\turl = git@github.com:me/dotfiles\n").unwrap();
        assert_eq!(at(&plain), plain.display().to_string());
        // a linked work tree: its .git file leads to the shared config
        let linked = dir.join("linked");
        std::fs::create_dir_all(shop.join(".git/worktrees/linked")).unwrap();
        std::fs::write(shop.join(".git/worktrees/linked/commondir"), "../..\n").unwrap();
        std::fs::create_dir_all(&linked).unwrap();
        std::fs::write(linked.join(".git"), format!("gitdir: {}\n", shop.join(".git/worktrees/linked").display())).unwrap();
        assert_eq!(at(&linked), "github.com/acme/shop");
        // a checkout without a remote: its top folder
        let local = dir.join("local");
        std::fs::create_dir_all(local.join(".git")).unwrap();
        std::fs::create_dir_all(local.join("sub")).unwrap();
        assert_eq!(at(&local.join("sub")), local.display().to_string());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
