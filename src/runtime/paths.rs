//! Where things live: the database, the extension file, the config.
//!
//! Defaults follow the original system's layout under `~/.reflexion/`, so
//! an existing knowledge base is picked up as it is.

use std::env;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

pub fn home() -> Result<PathBuf> {
    crate::config::home().context("HOME is not set: pass --db or set ERRKB_DB")
}

/// `~/.reflexion`, where the database, config and installed files live.
pub fn data_root() -> Result<PathBuf> {
    crate::config::data_root().context("HOME is not set: pass --db or set ERRKB_DB")
}

/// The database: `--db`, else `ERRKB_DB` (both resolved by clap), else the
/// original system's default.
pub fn database(explicit: Option<PathBuf>) -> Result<PathBuf> {
    match explicit {
        Some(path) => Ok(path),
        None => Ok(data_root()?.join("data").join("reflexion.db")),
    }
}

/// The extension file's name on this platform (`errkb.so`, `errkb.dylib`).
pub fn extension_file_name() -> String {
    format!("errkb{}", env::consts::DLL_SUFFIX)
}

/// The extension file for the sqlite3 shell (install copies it, doctor
/// checks it; errkb itself has the extension built in):
/// `--extension`/`ERRKB_EXTENSION`, else the file next to this executable
/// (as `make` lays out `dist/`), else the installed copy under
/// `~/.reflexion/lib/`.
pub fn extension(explicit: Option<PathBuf>) -> Result<PathBuf> {
    if let Some(path) = explicit {
        if !path.exists() {
            bail!(
                "no extension at {}: build it with 'make' or fix --extension/ERRKB_EXTENSION",
                path.display()
            );
        }
        return Ok(path);
    }
    let name = extension_file_name();
    let mut candidates = Vec::new();
    if let Some(dir) = env::current_exe().ok().as_deref().and_then(Path::parent) {
        candidates.push(dir.join(&name));
    }
    if let Ok(root) = data_root() {
        candidates.push(root.join("lib").join(&name));
    }
    if let Some(found) = candidates.iter().find(|p| p.exists()) {
        return Ok(found.clone());
    }
    let tried: Vec<String> = candidates.iter().map(|p| p.display().to_string()).collect();
    bail!(
        "cannot find {name} (looked in: {}); build it with 'make' or pass --extension",
        tried.join(", ")
    )
}

/// Where hooks log their failures, first choice first:
/// `~/.reflexion/logs/hooks.log`; when that cannot be written (~/.reflexion
/// is a file, or read-only), `$XDG_STATE_HOME/errkb/hooks.log`
/// (`~/.local/state/errkb/hooks.log`); without a HOME, or when neither can
/// be written, `errkb-<uid>-hooks.log` in the temporary folder. So that
/// even a setup that cannot work leaves a trace, which doctor reads.
pub fn hook_logs() -> Vec<PathBuf> {
    let mut logs = Vec::new();
    if let Ok(root) = data_root() {
        logs.push(root.join("logs").join("hooks.log"));
    }
    let state = env::var_os("XDG_STATE_HOME")
        .filter(|d| Path::new(d).is_absolute())
        .map(PathBuf::from)
        .or_else(|| home().ok().map(|h| h.join(".local").join("state")));
    if let Some(state) = state {
        logs.push(state.join("errkb").join("hooks.log"));
    }
    // SAFETY: getuid cannot fail.
    let uid = unsafe { libc::getuid() };
    logs.push(env::temp_dir().join(format!("errkb-{uid}-hooks.log")));
    logs
}

/// Open the first hook log that can be written, for appending.
pub fn open_hook_log() -> std::io::Result<(PathBuf, std::fs::File)> {
    let mut last = std::io::Error::other("no place for the hook log");
    for path in hook_logs() {
        let opened = path
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| crate::runtime::private::open_append(&path));
        match opened {
            Ok(file) => return Ok((path, file)),
            Err(e) => last = e,
        }
    }
    Err(last)
}

/// Claude Code's configuration folder: `$CLAUDE_CONFIG_DIR`, else `~/.claude`.
pub fn claude_dir() -> Result<PathBuf> {
    Ok(match env::var_os("CLAUDE_CONFIG_DIR").filter(|d| !d.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => home()?.join(".claude"),
    })
}

/// Codex's folder: `$CODEX_HOME`, else `~/.codex`; as Codex names it in
/// trust keys, with symbolic links resolved (when it exists).
pub fn codex_home() -> Result<PathBuf> {
    let dir = match std::env::var_os("CODEX_HOME").filter(|d| !d.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => home()?.join(".codex"),
    };
    let dir = if dir.is_relative() {
        std::env::current_dir()?.join(dir)
    } else {
        dir
    };
    Ok(std::fs::canonicalize(&dir).unwrap_or(dir))
}

/// `program` on PATH, when it is there (an executable file).
pub fn on_path(program: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    env::split_paths(&env::var_os("PATH")?)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join(program))
        .find(|path| std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0))
}
