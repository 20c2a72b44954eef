//! An agent's JSON settings file (Claude Code's settings.json, Codex's
//! hooks.json) as install changes it: read, shown as a diff, written with
//! a backup of what was there.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde_json::{json, Value};

pub fn render(settings: &Value) -> String {
    serde_json::to_string_pretty(settings).unwrap_or_default() + "\n"
}

pub fn read_settings(path: &Path) -> Result<(String, Value)> {
    match std::fs::read_to_string(path) {
        Ok(text) if text.trim().is_empty() => Ok((text, json!({}))),
        Ok(text) => {
            let value = serde_json::from_str(&text).with_context(|| {
                format!(
                    "{} is not valid JSON; fix it first (nothing was changed)",
                    path.display()
                )
            })?;
            Ok((text, value))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok((String::new(), json!({}))),
        Err(e) => Err(e).with_context(|| format!("cannot read {}", path.display())),
    }
}

/// Write `text` to `path`, keeping the previous version as a timestamped
/// backup. Returns the backup's path, if there was a previous version.
pub fn write_with_backup(path: &Path, old: &str, text: &str) -> Result<Option<PathBuf>> {
    std::fs::create_dir_all(path.parent().context("settings directory")?)?;
    let backup = if path.exists() {
        Some(write_backup(path, old)?)
    } else {
        None
    };
    let staging = path.with_file_name(format!(
        "{}.errkb-tmp",
        path.file_name().context("settings file name")?.to_string_lossy()
    ));
    std::fs::write(&staging, text)?;
    std::fs::rename(&staging, path)?;
    Ok(backup)
}

/// `old` in a new file beside `path`, named by the time: install and
/// uninstall in the same second (or millisecond) each keep their own
/// backup, never overwrite an earlier one (the file is created exclusively;
/// a taken name gets a counter).
fn write_backup(path: &Path, old: &str) -> Result<PathBuf> {
    use std::io::Write;
    let stamp = errkb::clock::millis(std::time::SystemTime::now()).replace(':', "");
    let name = path
        .file_name()
        .context("settings file name")?
        .to_string_lossy()
        .into_owned();
    for n in 0..1000 {
        let suffix = if n == 0 { String::new() } else { format!("-{n}") };
        let backup = path.with_file_name(format!("{name}.{stamp}{suffix}.bak"));
        match std::fs::OpenOptions::new().write(true).create_new(true).open(&backup) {
            Ok(mut file) => {
                file.write_all(old.as_bytes())?;
                file.sync_all()?;
                return Ok(backup);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e).with_context(|| format!("cannot write the backup {}", backup.display())),
        }
    }
    anyhow::bail!("cannot find a free backup name beside {}", path.display())
}

pub fn diff(old: &str, new: &str, name: &str) -> String {
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .header(name, name)
        .to_string()
}

/// Whether a hook handler (`{"type": "command", "command": …}`) is
/// errkb's: its command holds `mark`, the part of errkb's command line no
/// one else writes.
pub fn is_marked_hook(hook: &Value, mark: &str) -> bool {
    hook.get("command")
        .and_then(Value::as_str)
        .is_some_and(|c| c.contains(mark))
}

/// `settings` without the hook handlers `mark` names; the groups and
/// events left empty go too. Claude Code's settings.json and Codex's
/// hooks.json share this shape: `hooks.<event>[].hooks[]`.
pub fn without_marked_hooks(mut settings: Value, mark: &str) -> Value {
    if let Some(hooks) = settings.get_mut("hooks").and_then(Value::as_object_mut) {
        for groups in hooks.values_mut() {
            if let Some(groups) = groups.as_array_mut() {
                for group in groups.iter_mut() {
                    if let Some(list) = group.get_mut("hooks").and_then(Value::as_array_mut) {
                        list.retain(|h| !is_marked_hook(h, mark));
                    }
                }
                groups.retain(|g| g.get("hooks").and_then(Value::as_array).is_none_or(|l| !l.is_empty()));
            }
        }
        hooks.retain(|_, groups| groups.as_array().is_none_or(|g| !g.is_empty()));
    }
    settings
}

/// The hook groups as settings.json, Codex's hooks.json and a plugin's
/// hooks file all hold them: `{"Event": [{"matcher", "hooks": [{"type":
/// "command", "command", "timeout"}]}]}`, from each hook's event, matcher
/// (none: every tool) and timeout in seconds, and `command_of(event)`.
pub fn hook_groups<'a>(
    hooks: impl IntoIterator<Item = (&'a str, Option<&'a str>, u64)>,
    command_of: impl Fn(&str) -> String,
) -> serde_json::Map<String, Value> {
    let mut groups = serde_json::Map::new();
    for (event, matcher, timeout_secs) in hooks {
        let mut group = serde_json::Map::new();
        if let Some(matcher) = matcher {
            group.insert("matcher".into(), json!(matcher));
        }
        group.insert(
            "hooks".into(),
            json!([{"type": "command", "command": command_of(event), "timeout": timeout_secs}]),
        );
        groups.insert(event.to_owned(), json!([group]));
    }
    groups
}

/// `settings` (made an object if it is not one) with `groups` added after
/// the hook groups each event already has.
pub fn with_hook_groups(mut settings: Value, groups: serde_json::Map<String, Value>) -> Value {
    if !settings.is_object() {
        settings = json!({});
    }
    let root = settings.as_object_mut().expect("an object");
    let hooks = root.entry("hooks").or_insert_with(|| json!({}));
    if !hooks.is_object() {
        *hooks = json!({});
    }
    let hooks = hooks.as_object_mut().expect("an object");
    for (event, added) in groups {
        let existing = hooks.entry(event).or_insert_with(|| json!([]));
        if let (Some(existing), Value::Array(added)) = (existing.as_array_mut(), added) {
            existing.extend(added);
        }
    }
    settings
}
