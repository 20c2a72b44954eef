//! errkb's hooks in OpenAI's Codex CLI: `$CODEX_HOME/hooks.json` (default
//! `~/.codex`), and their trust in `$CODEX_HOME/config.toml`.
//!
//! Codex runs a hook only once it is trusted: an untrusted one is skipped
//! without a word. Trust is a `[hooks.state."<source>:<event>:<group>:<handler>"]`
//! table with `trusted_hash = "sha256:…"` in the user's config.toml, the
//! hash being of the hook as Codex normalizes it (`trust_hash`, checked
//! against Codex's own). Install writes errkb's hooks into hooks.json (the
//! file Codex documents for hooks, shaped as Claude Code's settings; the
//! `[hooks]` of config.toml works too, but a folder holding both gets a
//! warning) and trusts exactly those, so that they run without the user
//! approving each in `/hooks`; it says so. Merged with what is there
//! (other hooks and settings kept as they are, errkb's recognised by
//! their command), each file backed up before it is written, nothing
//! written when nothing changes, `--dry-run` shows the change.
//!
//! When errkb's Codex plugin is enabled (`[plugins."errkb@…"]`), its
//! hooks run errkb: hooks.json gets none, and install trusts the plugin's.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};

use crate::agent::codex;
use crate::agent::settings_file;
use errkb::runtime::paths::{self, codex_home};

/// What marks a hooks.json command as errkb's.
const MARK: &str = ".reflexion/bin/errkb hook --agent codex ";

/// The plugin's name, in Codex's `errkb@<marketplace>`.
const PLUGIN_NAME: &str = "errkb";
/// The plugin's hooks file, named by its `.codex-plugin/plugin.json` (Claude
/// Code reads `hooks/hooks.json` of the same folder).
pub const PLUGIN_HOOKS_FILE: &str = "hooks/codex.json";

pub fn hook_command(event: &str) -> String {
    format!("~/.reflexion/bin/errkb hook --agent codex {event}")
}

pub fn hooks_path() -> Result<PathBuf> {
    Ok(codex_home()?.join("hooks.json"))
}

pub fn config_path() -> Result<PathBuf> {
    Ok(codex_home()?.join("config.toml"))
}

/// Whether Codex is on this machine: `$CODEX_HOME` set, its folder, or
/// `codex` on PATH.
pub fn found() -> Option<String> {
    let home = codex_home().ok()?;
    if home.is_dir() || std::env::var_os("CODEX_HOME").is_some_and(|d| !d.is_empty()) {
        return Some(home.display().to_string());
    }
    paths::on_path("codex").map(|p| p.display().to_string())
}

/// The hook groups for `command_of(event)`, as hooks.json holds them.
fn hook_groups(command_of: impl Fn(&str) -> String) -> Map<String, Value> {
    settings_file::hook_groups(codex::hooks().map(|h| (h.event, h.matcher, h.timeout_secs)), command_of)
}

/// The Codex plugin's hooks file (`hooks/codex.json`): the same hooks, run
/// through the plugin's `bin/errkb`.
pub fn plugin_hooks_json() -> String {
    let hooks = hook_groups(|event| format!("\"${{PLUGIN_ROOT}}/bin/errkb\" hook --agent codex {event}"));
    serde_json::to_string_pretty(&json!({
        "description": "errkb: how an error was fixed before, when a command fails; a file's error history when it is edited",
        "hooks": hooks,
    }))
    .unwrap_or_default()
        + "\n"
}

fn is_errkb_hook(hook: &Value) -> bool {
    settings_file::is_marked_hook(hook, MARK)
}

/// `settings` without errkb's hooks; groups and events left empty go.
fn without_errkb(settings: Value) -> Value {
    settings_file::without_marked_hooks(settings, MARK)
}

fn with_errkb(settings: Value) -> Value {
    settings_file::with_hook_groups(without_errkb(settings), hook_groups(hook_command))
}

// ---- trust ------------------------------------------------------------------

/// The snake_case label Codex names an event by in trust keys and hashes
/// (`PostToolUse` → `post_tool_use`).
pub fn event_label(event: &str) -> String {
    let mut label = String::new();
    for (i, c) in event.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            label.push('_');
        }
        label.push(c.to_ascii_lowercase());
    }
    label
}

/// Codex's trust hash of one handler (0.171): sha256 of the compact JSON,
/// keys sorted at every level, of `{"event_name": <label>, "matcher": <m>,
/// "hooks": [<handler normalized>]}`; normalized: type, command, timeout
/// (600 when unset, at least 1; for SessionEnd and Interrupt 1 when unset,
/// at most 3), async (false when unset), statusMessage when set. The
/// matcher is left out when unset and for the events that take none.
pub fn trust_hash(event: &str, handler: &Value, matcher: Option<&str>) -> String {
    let timeout = handler
        .get("timeout")
        .or_else(|| handler.get("timeoutSec"))
        .and_then(Value::as_i64);
    let timeout = if matches!(event, "SessionEnd" | "Interrupt") {
        timeout.unwrap_or(1).clamp(1, 3)
    } else {
        timeout.unwrap_or(600).max(1)
    };
    let mut normalized = json!({
        "async": handler.get("async").and_then(Value::as_bool).unwrap_or(false),
        "command": handler.get("command").and_then(Value::as_str).unwrap_or(""),
        "timeout": timeout,
        "type": "command",
    });
    if let Some(status) = handler.get("statusMessage").filter(|s| !s.is_null()) {
        normalized["statusMessage"] = status.clone();
    }
    let mut identity = json!({"event_name": event_label(event), "hooks": [sorted(&normalized)]});
    if let Some(matcher) = matcher.filter(|_| !matches!(event, "UserPromptSubmit" | "Stop" | "Interrupt")) {
        identity["matcher"] = json!(matcher);
    }
    let text = serde_json::to_string(&sorted(&identity)).unwrap_or_default();
    format!("sha256:{:x}", Sha256::digest(text.as_bytes()))
}

/// `value` with every object's keys in sorted order (serde_json here
/// keeps insertion order).
fn sorted(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            Value::Object(keys.into_iter().map(|k| (k.clone(), sorted(&map[k]))).collect())
        }
        Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

/// The trust entries errkb's hooks in `settings` (a hooks file whose trust
/// key source is `source`) need: key → hash, in file order.
fn trust_of(settings: &Value, source: &str, errkb_only: bool) -> Vec<(String, String)> {
    let mut entries = Vec::new();
    let Some(hooks) = settings.get("hooks").and_then(Value::as_object) else {
        return entries;
    };
    for (event, groups) in hooks {
        for (g, group) in groups.as_array().into_iter().flatten().enumerate() {
            let matcher = group.get("matcher").and_then(Value::as_str);
            for (h, handler) in group
                .get("hooks")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .enumerate()
            {
                if errkb_only && !is_errkb_hook(handler) {
                    continue;
                }
                entries.push((
                    format!("{source}:{}:{g}:{h}", event_label(event)),
                    trust_hash(event, handler, matcher),
                ));
            }
        }
    }
    entries
}

/// The hashes any of errkb's hooks may have (to recognise errkb's trust
/// entries: a key whose hash is one of these is errkb's).
fn errkb_hashes() -> Vec<String> {
    let mut hashes = Vec::new();
    for command_of in [hook_command as fn(&str) -> String, |e: &str| plugin_command(e)] {
        let groups = Value::Object(hook_groups(command_of));
        hashes.extend(
            trust_of(&json!({"hooks": groups}), "", false)
                .into_iter()
                .map(|(_, h)| h),
        );
    }
    hashes
}

fn plugin_command(event: &str) -> String {
    format!("\"${{PLUGIN_ROOT}}/bin/errkb\" hook --agent codex {event}")
}

/// errkb's Codex plugin as config.toml enables it: `errkb@<marketplace>`.
pub fn enabled_plugin(config: &toml_edit::DocumentMut) -> Option<String> {
    let plugins = config.get("plugins")?.as_table_like()?;
    plugins
        .iter()
        .find(|(id, item)| {
            id.split_once('@').map_or(*id, |(name, _)| name) == PLUGIN_NAME
                && item.get("enabled").and_then(|v| v.as_bool()) == Some(true)
        })
        .map(|(id, _)| id.to_owned())
}

/// The trust entries errkb's plugin `id` needs (its hooks file, as the
/// plugin ships it: the command before `${PLUGIN_ROOT}` is replaced).
fn plugin_trust(id: &str) -> Vec<(String, String)> {
    let hooks: Value = serde_json::from_str(&plugin_hooks_json()).unwrap_or_default();
    trust_of(&hooks, &format!("{id}:{PLUGIN_HOOKS_FILE}"), false)
}

/// config.toml, parsed (an empty document when there is none).
fn read_config(path: &Path) -> Result<(String, toml_edit::DocumentMut)> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    let doc = text.parse::<toml_edit::DocumentMut>().with_context(|| {
        format!(
            "{} is not valid TOML; fix it first (nothing was changed)",
            path.display()
        )
    })?;
    Ok((text, doc))
}

/// `[hooks.state]` of `config`, made when `create`.
fn state_table(config: &mut toml_edit::DocumentMut, create: bool) -> Option<&mut dyn toml_edit::TableLike> {
    if !create && config.get("hooks").and_then(|h| h.get("state")).is_none() {
        return None;
    }
    let hooks = config.entry("hooks").or_insert_with(implicit_table);
    if let Some(t) = hooks.as_table_mut() {
        if t.is_empty() {
            t.set_implicit(true);
        }
    }
    let state = hooks.as_table_like_mut()?.entry("state").or_insert(implicit_table());
    state.as_table_like_mut()
}

fn implicit_table() -> toml_edit::Item {
    let mut table = toml_edit::Table::new();
    table.set_implicit(true);
    toml_edit::Item::Table(table)
}

/// `config` with errkb's trust entries those of `wanted` (key → hash):
/// others errkb wrote before (a hook errkb no longer has, a key that moved)
/// go; an entry's other settings (`enabled = false`) stay.
fn with_trust(
    mut config: toml_edit::DocumentMut,
    wanted: &[(String, String)],
    ours: &[String],
    old_keys: &[String],
) -> toml_edit::DocumentMut {
    if let Some(state) = state_table(&mut config, !wanted.is_empty()) {
        let stale: Vec<String> = state
            .iter()
            .filter(|(key, item)| {
                !wanted.iter().any(|(k, _)| k == key)
                    && (old_keys.iter().any(|k| k == key)
                        || key.starts_with(&format!("{PLUGIN_NAME}@"))
                            && key.contains(&format!(":{PLUGIN_HOOKS_FILE}:"))
                        || item
                            .get("trusted_hash")
                            .and_then(|v| v.as_str())
                            .is_some_and(|h| ours.iter().any(|o| o == h)))
            })
            .map(|(key, _)| key.to_owned())
            .collect();
        for key in stale {
            state.remove(&key);
        }
        for (key, hash) in wanted {
            let entry = state
                .entry(key)
                .or_insert(toml_edit::Item::Table(toml_edit::Table::new()));
            if let Some(entry) = entry.as_table_like_mut() {
                if entry.get("trusted_hash").and_then(|v| v.as_str()) != Some(hash.as_str()) {
                    entry.insert("trusted_hash", toml_edit::value(hash.as_str()));
                }
            }
        }
    }
    tidy(&mut config);
    config
}

/// Tables errkb's changes left empty go.
fn tidy(config: &mut toml_edit::DocumentMut) {
    let empty_state = config
        .get("hooks")
        .and_then(|h| h.get("state"))
        .and_then(|s| s.as_table_like())
        .is_some_and(|s| s.is_empty());
    if empty_state {
        if let Some(hooks) = config.get_mut("hooks").and_then(|h| h.as_table_like_mut()) {
            hooks.remove("state");
        }
    }
    if config
        .get("hooks")
        .and_then(|h| h.as_table_like())
        .is_some_and(|h| h.is_empty())
    {
        config.remove("hooks");
    }
}

// ---- install, uninstall --------------------------------------------------------

/// What install and uninstall change: hooks.json and config.toml.
struct Change {
    hooks_path: PathBuf,
    hooks_old: String,
    hooks_new: Option<String>,
    config_path: PathBuf,
    config_old: String,
    config_new: Option<String>,
}

/// The new hooks.json and config.toml: errkb's hooks in (`install`) or
/// out, and errkb's trust entries those its hooks need.
fn change(install: bool) -> Result<(Change, Option<String>, usize)> {
    let hooks_path = hooks_path()?;
    let config_path = config_path()?;
    let (hooks_old, hooks) = settings_file::read_settings(&hooks_path)?;
    let (config_old, config) = read_config(&config_path)?;
    let plugin = enabled_plugin(&config);
    let new_hooks = if install && plugin.is_none() {
        with_errkb(hooks.clone())
    } else {
        without_errkb(hooks.clone())
    };
    let source = hooks_path.display().to_string();
    let wanted = match (&plugin, install) {
        (_, false) => Vec::new(),
        (Some(id), true) => plugin_trust(id),
        (None, true) => trust_of(&new_hooks, &source, true),
    };
    let trusted = wanted.len();
    // the keys errkb's hooks had (their place in the file may have moved)
    let old_keys: Vec<String> = trust_of(&hooks, &source, true).into_iter().map(|(k, _)| k).collect();
    let new_config = with_trust(config, &wanted, &errkb_hashes(), &old_keys).to_string();
    let hooks_text = (new_hooks != hooks).then(|| settings_file::render(&new_hooks));
    // nothing to keep in a hooks.json that errkb made and now empties
    let config_text = (new_config != config_old).then_some(new_config);
    Ok((
        Change {
            hooks_path,
            hooks_old,
            hooks_new: hooks_text,
            config_path,
            config_old,
            config_new: config_text,
        },
        plugin,
        trusted,
    ))
}

fn apply(change: &Change, dry_run: bool, out: &mut impl std::io::Write) -> Result<()> {
    for (path, old, new) in [
        (&change.hooks_path, &change.hooks_old, &change.hooks_new),
        (&change.config_path, &change.config_old, &change.config_new),
    ] {
        let Some(new) = new else {
            writeln!(out, "{}: already up to date", path.display())?;
            continue;
        };
        if dry_run {
            write!(out, "{}", settings_file::diff(old, new, &path.display().to_string()))?;
            continue;
        }
        match settings_file::write_with_backup(path, old, new)? {
            Some(backup) => writeln!(out, "updated {} (backup: {})", path.display(), backup.display())?,
            None => writeln!(out, "created {}", path.display())?,
        }
    }
    Ok(())
}

/// errkb's hooks into Codex, trusted.
pub fn install(dry_run: bool, out: &mut impl std::io::Write) -> Result<()> {
    if !dry_run {
        // made first: the trust keys name it as Codex does, links resolved
        std::fs::create_dir_all(codex_home()?)?;
    }
    let (change, plugin, trusted) = change(true)?;
    if let Some(plugin) = &plugin {
        writeln!(
            out,
            "errkb's Codex plugin is enabled ({plugin}): its hooks run errkb, hooks.json gets none"
        )?;
    }
    apply(&change, dry_run, out)?;
    writeln!(
        out,
        "{} errkb's {trusted} Codex hooks in {} ([hooks.state]): Codex runs them without asking you to \
         review each (see them with /hooks in codex)",
        if dry_run { "would trust" } else { "trusted" },
        change.config_path.display()
    )?;
    Ok(())
}

/// errkb's hooks and their trust out of Codex; everything else stays.
pub fn uninstall(dry_run: bool, out: &mut impl std::io::Write) -> Result<()> {
    if !hooks_path()?.exists() && !config_path()?.exists() {
        writeln!(out, "{}: no Codex hooks to remove", codex_home()?.display())?;
        return Ok(());
    }
    let (change, plugin, _) = change(false)?;
    apply(&change, dry_run, out)?;
    if let Some(plugin) = plugin {
        writeln!(
            out,
            "errkb's Codex plugin ({plugin}) stays installed, its hooks no longer trusted (Codex skips them); \
             set enabled = false under [plugins.\"{plugin}\"] in {} to turn it off",
            change.config_path.display()
        )?;
    }
    Ok(())
}

// ---- doctor ------------------------------------------------------------------

/// How errkb's hooks stand in Codex, for doctor.
pub enum Status {
    /// No Codex on this machine.
    NoCodex,
    /// Codex is here; errkb's hooks are not.
    NotInstalled { home: PathBuf },
    /// Something keeps them from running (what, and the events concerned).
    Broken { what: String },
    /// Switched off by the user (`enabled = false`, the hooks feature off).
    Off { what: String },
    /// Installed and trusted; they run `runner`.
    Ready { how: String, runner: PathBuf },
}

pub fn status() -> Result<Status> {
    let home = codex_home()?;
    if found().is_none() {
        return Ok(Status::NoCodex);
    }
    let hooks_path = hooks_path()?;
    let config = match read_config(&config_path()?) {
        Ok((_, config)) => config,
        Err(e) => return Ok(Status::Broken { what: format!("{e:#}") }),
    };
    if config
        .get("features")
        .and_then(|f| f.get("hooks"))
        .and_then(|v| v.as_bool())
        == Some(false)
    {
        return Ok(Status::Off {
            what: format!(
                "hooks are turned off in {} ([features] hooks = false)",
                config_path()?.display()
            ),
        });
    }
    let (wanted, how, runner) = if let Some(plugin) = enabled_plugin(&config) {
        let Some(root) = plugin_root(&plugin) else {
            return Ok(Status::Broken {
                what: format!("errkb's Codex plugin ({plugin}) is enabled but not installed"),
            });
        };
        (
            plugin_trust(&plugin),
            format!("from errkb's Codex plugin {plugin} ({})", root.display()),
            root.join("bin").join("errkb"),
        )
    } else {
        let hooks = match settings_file::read_settings(&hooks_path) {
            Ok((_, hooks)) => hooks,
            Err(e) => {
                return Ok(Status::Broken {
                    what: format!("{e:#}: Codex runs none of its hooks"),
                })
            }
        };
        let present: Vec<String> = codex::hooks()
            .filter(|h| {
                hooks
                    .get("hooks")
                    .and_then(|e| e.get(h.event))
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .any(|g| {
                        g.get("hooks")
                            .and_then(Value::as_array)
                            .into_iter()
                            .flatten()
                            .any(is_errkb_hook)
                    })
            })
            .map(|h| h.event.to_owned())
            .collect();
        if present.is_empty() {
            return Ok(Status::NotInstalled { home });
        }
        let missing: Vec<&str> = codex::hooks()
            .map(|h| h.event)
            .filter(|e| !present.iter().any(|p| p == e))
            .collect();
        if !missing.is_empty() {
            return Ok(Status::Broken {
                what: format!("not installed in {}: {}", hooks_path.display(), missing.join(", ")),
            });
        }
        (
            trust_of(&hooks, &hooks_path.display().to_string(), true),
            format!("all {} installed in {}", present.len(), hooks_path.display()),
            paths::data_root()?.join("bin").join("errkb"),
        )
    };
    let state = config.get("hooks").and_then(|h| h.get("state"));
    let entry = |key: &str| state.and_then(|s| s.get(key));
    let untrusted: Vec<&str> = wanted
        .iter()
        .filter(|(key, hash)| entry(key).and_then(|e| e.get("trusted_hash")).and_then(|v| v.as_str()) != Some(hash))
        .map(|(key, _)| event_named(key))
        .collect();
    if !untrusted.is_empty() {
        return Ok(Status::Broken {
            what: format!(
                "{how}, but not trusted in {}: {} (Codex skips an untrusted hook without a word)",
                config_path()?.display(),
                untrusted.join(", ")
            ),
        });
    }
    let off: Vec<&str> = wanted
        .iter()
        .filter(|(key, _)| entry(key).and_then(|e| e.get("enabled")).and_then(|v| v.as_bool()) == Some(false))
        .map(|(key, _)| event_named(key))
        .collect();
    if !off.is_empty() {
        return Ok(Status::Off {
            what: format!(
                "{how}; turned off in {} (enabled = false): {}",
                config_path()?.display(),
                off.join(", ")
            ),
        });
    }
    Ok(Status::Ready {
        how: format!("{how}, trusted"),
        runner,
    })
}

/// The event a trust key names (`…:post_tool_use:0:0` → `PostToolUse`).
fn event_named(key: &str) -> &'static str {
    let label = key.rsplit(':').nth(2).unwrap_or("");
    codex::hooks()
        .map(|h| h.event)
        .find(|e| event_label(e) == label)
        .unwrap_or("?")
}

/// Where Codex installed errkb's plugin `id` (`errkb@<marketplace>`): its
/// newest copy in `$CODEX_HOME/plugins/cache/<marketplace>/errkb/<version>`.
fn plugin_root(id: &str) -> Option<PathBuf> {
    let (name, market) = id.split_once('@')?;
    let dir = codex_home().ok()?.join("plugins").join("cache").join(market).join(name);
    let mut versions: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    versions.sort();
    versions.pop()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trust_hashes_are_codexs() {
        // checked against `codex app-server` hooks/list currentHash (0.171.0)
        let handler = json!({"type": "command", "command": "\"${PLUGIN_ROOT}/bin/errkb\" hook --agent codex PostToolUse", "timeout": 5});
        assert_eq!(
            trust_hash("PostToolUse", &handler, Some("*")),
            "sha256:543ff5f0efd4ac73ae079425112fbe207e8df9f409426d745bc4e813a4c9f3ff"
        );
        let end = json!({"type": "command", "command": "echo END", "timeout": 2});
        assert_eq!(
            trust_hash("SessionEnd", &end, None),
            "sha256:fc12597a451df8ba48cfdaf209373f12dfeae3a2dab52356ef1e0e55ceaa21bc"
        );
        assert_eq!(event_label("PostToolUse"), "post_tool_use");
        assert_eq!(event_label("SessionEnd"), "session_end");
    }

    #[test]
    fn trust_is_merged_into_the_users_config() {
        let config: toml_edit::DocumentMut = "model = \"o3\" # mine\n\n[hooks.state.\"/h/hooks.json:stop:0:0\"]\n\
                                              trusted_hash = \"sha256:user\"\n\n[hooks.state.\"/h/hooks.json:post_tool_use:0:0\"]\n\
                                              trusted_hash = \"sha256:old\"\nenabled = false\n"
            .parse()
            .unwrap();
        let wanted = vec![("/h/hooks.json:post_tool_use:0:0".to_owned(), "sha256:new".to_owned())];
        let text = with_trust(config, &wanted, &["sha256:old".to_owned()], &[]).to_string();
        assert!(text.starts_with("model = \"o3\" # mine\n"), "{text}");
        assert!(text.contains("trusted_hash = \"sha256:user\""), "{text}");
        assert!(
            text.contains("trusted_hash = \"sha256:new\"\nenabled = false"),
            "{text}"
        );
        // out again: the user's entry stays, errkb's goes, and no empty table is left
        let back = with_trust(text.parse().unwrap(), &[], &["sha256:new".to_owned()], &[]).to_string();
        assert!(back.contains("sha256:user") && !back.contains("sha256:new"), "{back}");
        let alone: toml_edit::DocumentMut = "[hooks.state.\"k\"]\ntrusted_hash = \"sha256:x\"\n".parse().unwrap();
        assert_eq!(with_trust(alone, &[], &["sha256:x".to_owned()], &[]).to_string(), "");
    }
}
