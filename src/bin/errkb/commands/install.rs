//! `errkb install` / `errkb uninstall`: the hooks in Claude Code's
//! settings.json (and Codex's hooks.json: `install_codex.rs`), and the
//! files they run, under ~/.reflexion.
//!
//! Install copies the runner, the extension, ONNX Runtime and the model in
//! use to ~/.reflexion/{bin,lib} (so hooks work without the source tree), the
//! hook scripts to ~/.reflexion/sql/hooks (where the user may edit them:
//! a changed script is never overwritten) and the history views to
//! ~/.reflexion/sql. It then merges one entry per hook event into
//! settings.json: other keys and other hooks are kept in their order,
//! errkb's entries are recognised by their command, the file is backed up
//! before it is written, and nothing is written when nothing changes.
//! `--dry-run` prints what would change.
//!
//! For the user's shell, install links `~/.local/bin/errkb` to the
//! installed runner (never over a file that is not that link) and says the
//! line to add to the shell's profile when that folder is not on PATH;
//! uninstall removes the link. What install writes never refers back to
//! where this program came from (a build tree, a pip or npm package): a
//! package can be removed or upgraded under it.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde_json::{json, Map, Value};

use crate::cli::Agent;
use crate::commands::install_codex;
use crate::agent::hooks;
use crate::agent::settings_file::{self, diff, read_settings, render, write_with_backup};
use errkb::runtime::{config_file, paths};

/// What marks a settings.json hook command as errkb's.
const MARK: &str = ".reflexion/bin/errkb hook ";

pub fn hook_command(event: &str) -> String {
    format!("~/.reflexion/bin/errkb hook {event}")
}

pub fn settings_path() -> Result<PathBuf> {
    Ok(paths::claude_dir()?.join("settings.json"))
}

/// The events whose errkb hook is in `settings`.
pub fn installed_events(settings: &Value) -> Vec<String> {
    let Some(hooks) = settings.get("hooks").and_then(Value::as_object) else {
        return Vec::new();
    };
    hooks
        .iter()
        .filter(|(_, groups)| {
            groups.as_array().into_iter().flatten().any(|g| {
                g.get("hooks")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .any(is_errkb_hook)
            })
        })
        .map(|(event, _)| event.clone())
        .collect()
}

fn is_errkb_hook(hook: &Value) -> bool {
    settings_file::is_marked_hook(hook, MARK)
}

/// `settings` without errkb's hooks; groups and events left empty go.
fn without_errkb(settings: Value) -> Value {
    settings_file::without_marked_hooks(settings, MARK)
}

/// The name errkb's plugin has in Claude Code (`errkb@<marketplace>` in
/// settings.json's `enabledPlugins`).
const PLUGIN_NAME: &str = "errkb";

/// Whether errkb's Claude Code plugin is enabled in `settings`: its hooks
/// then come from the plugin, and settings.json must not hold them too.
pub fn plugin_enabled(settings: &Value) -> bool {
    enabled_plugin(settings).is_some()
}

/// errkb's plugin as `settings` enables it: `errkb@<marketplace>`.
pub fn enabled_plugin(settings: &Value) -> Option<String> {
    settings
        .get("enabledPlugins")?
        .as_object()?
        .iter()
        .find(|(id, on)| {
            id.split_once('@').map_or(id.as_str(), |(name, _)| name) == PLUGIN_NAME && on.as_bool() == Some(true)
        })
        .map(|(id, _)| id.clone())
}

/// The hook groups for `command_of(event)`, as settings.json and a plugin's
/// hooks/hooks.json both hold them: {"Event": [{"matcher", "hooks": [...]}]}.
fn hook_groups(command_of: impl Fn(&str) -> String) -> Map<String, Value> {
    settings_file::hook_groups(hooks::HOOKS.iter().map(|h| (h.event, h.matcher, h.timeout_secs)), command_of)
}

/// The plugin's hooks/hooks.json (the file in the repository is checked
/// against this): the same hooks, run through the plugin's `bin/errkb`.
pub fn plugin_hooks_json() -> String {
    let hooks = hook_groups(|event| format!("\"${{CLAUDE_PLUGIN_ROOT}}/bin/errkb\" hook {event}"));
    render(&json!({
        "description": "errkb: how an error was fixed before, when a tool fails; a file's error history when it is read",
        "hooks": hooks,
    }))
}

fn with_errkb(settings: Value) -> Value {
    if plugin_enabled(&settings) {
        return without_errkb(settings);
    }
    settings_file::with_hook_groups(without_errkb(settings), hook_groups(hook_command))
}

/// The files install puts in place: (source, destination, is a user-editable script).
fn files(extension: &Path) -> Result<Vec<(FileSource, PathBuf)>> {
    let root = paths::data_root()?;
    let runner = std::env::current_exe()?;
    // errkb-hub, the team hub's program, beside the runner (the runner starts it from there)
    let hub_program = format!("errkb-hub{}", std::env::consts::EXE_SUFFIX);
    let mut out = vec![
        (FileSource::Path(runner.clone()), root.join("bin").join("errkb")),
        (
            FileSource::Path(runner.with_file_name(&hub_program)),
            root.join("bin").join(&hub_program),
        ),
        (
            FileSource::Path(extension.to_owned()),
            root.join("lib").join(paths::extension_file_name()),
        ),
    ];
    let mut onnxruntime: Vec<PathBuf> = extension
        .parent()
        .and_then(|dir| std::fs::read_dir(dir).ok())
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path())
        .collect();
    // and the library this program loads, wherever it found it: beside it,
    // or (pip install errkb) in the onnxruntime wheel of its Python environment
    onnxruntime.extend(errkb::embedding::model_files::resolve_onnxruntime().ok());
    for lib in onnxruntime {
        let name = lib
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let dest = root.join("lib").join(&name);
        let known = out.iter().any(|(_, d)| *d == dest);
        if errkb::embedding::model_files::is_onnxruntime_library(&name) && !known {
            out.push((FileSource::Path(lib), dest));
        }
    }
    for hook in hooks::HOOKS {
        out.push((
            FileSource::Script(hook.script),
            root.join("sql").join("hooks").join(format!("{}.sql", hook.event)),
        ));
    }
    // for `.read` in a sqlite3 without the extension (see the file)
    out.push((
        FileSource::Script(errkb::HISTORY_VIEWS_SQL),
        root.join("sql").join("history_views.sql"),
    ));
    Ok(out)
}

enum FileSource {
    Path(PathBuf),
    Script(&'static str),
}

pub fn install(extension: &Path, dry_run: bool, agents: &[Agent], out: &mut impl std::io::Write) -> Result<()> {
    for (source, dest) in files(extension)? {
        match source {
            FileSource::Path(src) => {
                writeln!(
                    out,
                    "{} {} → {}",
                    if dry_run { "would copy" } else { "copy" },
                    src.display(),
                    dest.display()
                )?;
                if !dry_run && std::fs::canonicalize(&src).ok() != std::fs::canonicalize(&dest).ok() {
                    std::fs::create_dir_all(dest.parent().context("destination")?)?;
                    let staging = dest.with_extension("errkb-tmp");
                    std::fs::copy(&src, &staging).with_context(|| format!("cannot copy {}", src.display()))?;
                    std::fs::rename(&staging, &dest)?; // never a half-written binary in place
                }
            }
            FileSource::Script(sql) => install_script(sql, &dest, dry_run, out)?,
        }
    }
    install_model(dry_run, out)?;
    link_command(dry_run, out)?;
    if !dry_run {
        // std::fs::copy keeps the source's mode (0755 from a build tree), and
        // an older errkb created the data with the umask's 0644
        let root = paths::data_root()?;
        let changed = errkb::runtime::private::fix_tree(&root)
            .with_context(|| format!("cannot make {} private", root.display()))?;
        if !changed.is_empty() {
            writeln!(
                out,
                "made {} under {} private to you",
                errkb::runtime::counted(changed.len(), "file or folder", "files and folders"),
                root.display()
            )?;
        }
    }
    for agent in agents {
        match agent {
            Agent::Claude => {
                if plugin_enabled(&read_settings(&settings_path()?)?.1) {
                    writeln!(
                        out,
                        "errkb's Claude Code plugin is enabled: its hooks run errkb, settings.json gets none"
                    )?;
                }
                update_settings(with_errkb, dry_run, out)?;
            }
            Agent::Codex => install_codex::install(dry_run, out)?,
        }
    }
    Ok(())
}

/// Whether Claude Code is on this machine: its folder, or `claude` on PATH.
pub fn claude_found() -> Option<String> {
    paths::claude_dir()
        .ok()
        .filter(|d| d.is_dir())
        .map(|d| d.display().to_string())
        .or_else(|| paths::on_path("claude").map(|p| p.display().to_string()))
}

/// The agents to set up when none is named: each one found on this
/// machine (its folder, or its program on PATH), said; Claude Code when
/// none is.
pub fn agents_found(out: &mut impl std::io::Write) -> Result<Vec<Agent>> {
    let claude = claude_found();
    let mut agents = Vec::new();
    let mut said = Vec::new();
    for (agent, found) in [(Agent::Claude, claude), (Agent::Codex, install_codex::found())] {
        if let Some(found) = found {
            said.push(format!("{} ({found})", agent.name()));
            agents.push(agent);
        }
    }
    if agents.is_empty() {
        writeln!(
            out,
            "no agent found (~/.claude or claude on PATH, ~/.codex or codex on PATH): setting up Claude Code; \
             errkb install --agent codex sets up Codex"
        )?;
        agents.push(Agent::Claude);
    } else {
        writeln!(out, "setting up errkb for: {}", said.join(", "))?;
    }
    Ok(agents)
}

/// The model the installed hooks will use, said plainly: one configured
/// (`$ERRKB_MODEL`, `"model"` in config.json) or the production model
/// downloaded (`errkb model download`) are used where they are; otherwise
/// the test model this build carries (`model/` beside this program) is
/// copied to ~/.reflexion/lib/model.
fn install_model(dry_run: bool, out: &mut impl std::io::Write) -> Result<()> {
    use errkb::embedding::model_files::{self, ModelFiles};
    if let Some(dir) = std::env::var_os("ERRKB_MODEL")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(errkb::config::model_dir)
    {
        writeln!(
            out,
            "model: {} (configured: ERRKB_MODEL or \"model\" in config.json)",
            dir.display()
        )?;
        return Ok(());
    }
    if let Some(files) = model_files::production_model_dir().and_then(|d| ModelFiles::in_dir(&d).ok()) {
        writeln!(
            out,
            "model: the production model {} ({})",
            model_files::PRODUCTION_MODEL,
            files.dir.display()
        )?;
        return Ok(());
    }
    let dest = model_files::installed_model_dir().context("HOME is not set")?;
    let bundled = std::env::current_exe()?.parent().map(|d| d.join("model"));
    let Some(source) = bundled.and_then(|d| ModelFiles::in_dir(&d).ok()) else {
        match ModelFiles::in_dir(&dest) {
            Ok(files) => writeln!(out, "model: {} (installed before)", files.dir.display())?,
            Err(_) => writeln!(
                out,
                "model: none, so failures get advice from the text stages only; \
                 for the vector stage run: errkb model download"
            )?,
        }
        return Ok(());
    };
    let identity = source.identity().map_err(anyhow::Error::msg)?;
    let already = ModelFiles::in_dir(&dest)
        .ok()
        .and_then(|f| f.identity().ok())
        .is_some_and(|installed| installed.sha256 == identity.sha256);
    writeln!(
        out,
        "model: the test model this build carries ({}; English only, small, made for the tests) {} {}; \
         for the production model (multilingual, closer matches) run: errkb model download",
        identity.name,
        if already {
            "already in"
        } else if dry_run {
            "would be copied to"
        } else {
            "copied to"
        },
        dest.display()
    )?;
    if !already && !dry_run {
        copy_folder(&source.dir, &dest)?;
    }
    Ok(())
}

/// Where the user's own commands go: `~/.local/bin` (XDG's, as pip, pipx
/// and uv use it), where install links `errkb` for the shell.
fn user_bin() -> Result<PathBuf> {
    Ok(paths::home()?.join(".local").join("bin"))
}

/// What is at `~/.local/bin/errkb`.
#[derive(PartialEq)]
enum Link {
    Absent,
    /// the link install makes, to the installed runner (or a link to it left
    /// dangling when ~/.reflexion went)
    Ours,
    /// an errkb command someone else put there (pip install --user's
    /// launcher, npm's link, a link to a build): the shell finds errkb
    OtherErrkb,
    Foreign,
}

fn link_state(link: &Path, runner: &Path) -> Link {
    let Ok(meta) = std::fs::symlink_metadata(link) else {
        return Link::Absent;
    };
    if meta.file_type().is_symlink() {
        let to = std::fs::read_link(link).unwrap_or_default();
        return if to == runner {
            Link::Ours
        } else if to.to_string_lossy().contains("errkb") {
            Link::OtherErrkb
        } else {
            Link::Foreign
        };
    }
    // a script that starts errkb (pip's console script names its module)
    let mut head = [0u8; 4096];
    let read = std::fs::File::open(link)
        .and_then(|mut f| std::io::Read::read(&mut f, &mut head))
        .unwrap_or(0);
    let head = &head[..read];
    if meta.is_file() && head.starts_with(b"#!") && head.windows(5).any(|w| w == b"errkb") {
        Link::OtherErrkb
    } else {
        Link::Foreign
    }
}

fn on_path(dir: &Path) -> bool {
    let canonical = std::fs::canonicalize(dir).ok();
    std::env::var_os("PATH").is_some_and(|path| {
        std::env::split_paths(&path)
            .any(|p| p == dir || (canonical.is_some() && std::fs::canonicalize(&p).ok() == canonical))
    })
}

/// The line that puts `dir` (`$HOME/…`) on PATH, and the file it goes in,
/// for the user's shell (`$SHELL`).
fn profile_line(dir: &str) -> (String, String) {
    let shell = std::env::var_os("SHELL")
        .map(PathBuf::from)
        .and_then(|s| s.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_default();
    let export = format!("export PATH=\"{dir}:$PATH\"");
    match shell.as_str() {
        "zsh" => ("~/.zshrc".into(), export),
        "fish" => ("~/.config/fish/config.fish".into(), format!("fish_add_path {dir}")),
        "bash" if cfg!(target_os = "macos") => ("~/.bash_profile".into(), export),
        "bash" => ("~/.bashrc".into(), export),
        _ => ("~/.profile".into(), export),
    }
}

/// `errkb` for the user's shell: `~/.local/bin/errkb`, a link to the
/// installed runner, made when nothing else is there; and the line to add
/// to the shell's profile when that folder is not on PATH.
fn link_command(dry_run: bool, out: &mut impl std::io::Write) -> Result<()> {
    let runner = paths::data_root()?.join("bin").join("errkb");
    let dir = user_bin()?;
    let link = dir.join("errkb");
    let state = link_state(&link, &runner);
    match state {
        Link::Ours => writeln!(out, "{} links to {} already", link.display(), runner.display())?,
        Link::Absent => {
            if !dry_run {
                std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
                std::os::unix::fs::symlink(&runner, &link)
                    .with_context(|| format!("cannot link {}", link.display()))?;
            }
            let verb = if dry_run { "would link" } else { "linked" };
            writeln!(
                out,
                "{verb} {} → {} (errkb for your shell)",
                link.display(),
                runner.display()
            )?;
        }
        Link::OtherErrkb => writeln!(
            out,
            "{} is another errkb command (from pip or npm, say): left as it is",
            link.display()
        )?,
        Link::Foreign => {
            let (profile, line) = profile_line("$HOME/.reflexion/bin");
            writeln!(
                out,
                "{} is not errkb's: left as it is; for errkb in your shell, add this line to {profile}: {line}",
                link.display()
            )?;
            return Ok(());
        }
    }
    if state != Link::OtherErrkb && !on_path(&dir) {
        let (profile, line) = profile_line("$HOME/.local/bin");
        writeln!(
            out,
            "{} is not on your PATH; for errkb in your shell, add this line to {profile}: {line}",
            dir.display()
        )?;
    }
    Ok(())
}

/// Remove the link install made (nothing else).
fn unlink_command(dry_run: bool, out: &mut impl std::io::Write) -> Result<()> {
    let runner = paths::data_root()?.join("bin").join("errkb");
    let link = user_bin()?.join("errkb");
    if link_state(&link, &runner) == Link::Ours {
        if !dry_run {
            std::fs::remove_file(&link).with_context(|| format!("cannot remove {}", link.display()))?;
        }
        writeln!(
            out,
            "{} {}",
            if dry_run { "would remove" } else { "removed" },
            link.display()
        )?;
    }
    Ok(())
}

/// Replace `dest` with a copy of the folder `source`: copied beside it
/// first, then swapped in, so the hooks never see half a model.
pub fn copy_folder(source: &Path, dest: &Path) -> Result<()> {
    let staging = dest.with_extension("errkb-tmp");
    let _ = std::fs::remove_dir_all(&staging);
    let mut pending = vec![(source.to_owned(), staging.clone())];
    while let Some((from, to)) = pending.pop() {
        std::fs::create_dir_all(&to)?;
        for entry in std::fs::read_dir(&from)? {
            let entry = entry?;
            let target = to.join(entry.file_name());
            if entry.file_type()?.is_dir() {
                pending.push((entry.path(), target));
            } else {
                std::fs::copy(entry.path(), &target)
                    .with_context(|| format!("cannot copy {}", entry.path().display()))?;
            }
        }
    }
    let old = dest.with_extension("errkb-old");
    let _ = std::fs::remove_dir_all(&old);
    if dest.exists() {
        std::fs::rename(dest, &old)?;
    }
    std::fs::rename(&staging, dest)?;
    let _ = std::fs::remove_dir_all(&old);
    Ok(())
}

/// A hook script is the user's to edit. Install remembers what it wrote
/// (`.installed/<name>`): a copy still equal to that is errkb's and is
/// upgraded; an edited one is kept, with the new version beside it.
fn install_script(sql: &str, dest: &Path, dry_run: bool, out: &mut impl std::io::Write) -> Result<()> {
    let dir = dest.parent().context("destination")?;
    let record = dir.join(".installed").join(dest.file_name().context("script name")?);
    let current = std::fs::read_to_string(dest).ok();
    let last_installed = std::fs::read_to_string(&record).ok();
    let verb = |v: &str| if dry_run { format!("would {v}") } else { v.to_owned() };
    let write = |path: &Path, text: &str| -> Result<()> {
        if !dry_run {
            std::fs::create_dir_all(path.parent().context("destination")?)?;
            std::fs::write(path, text)?;
        }
        Ok(())
    };
    match current {
        Some(current) if current == sql => {}
        Some(current) if last_installed.as_deref() != Some(current.as_str()) => {
            let beside = dest.with_extension("sql.new");
            writeln!(
                out,
                "keep {} (edited by you); {} the new version to {}",
                dest.display(),
                verb("write"),
                beside.display()
            )?;
            write(&beside, sql)?;
            return Ok(());
        }
        Some(_) => writeln!(out, "{} {}", verb("update"), dest.display())?,
        None => writeln!(out, "{} {}", verb("write"), dest.display())?,
    }
    write(dest, sql)?;
    write(&record, sql)
}

pub fn uninstall(dry_run: bool, agents: &[Agent], out: &mut impl std::io::Write) -> Result<()> {
    let both = [Agent::Claude, Agent::Codex];
    for agent in if agents.is_empty() { &both[..] } else { agents } {
        match agent {
            Agent::Claude => update_settings(without_errkb, dry_run, out)?,
            Agent::Codex => install_codex::uninstall(dry_run, out)?,
        }
    }
    unlink_command(dry_run, out)?;
    if !dry_run {
        writeln!(
            out,
            "your knowledge base and files stay in {}",
            paths::data_root()?.display()
        )?;
    }
    Ok(())
}

fn update_settings(change: fn(Value) -> Value, dry_run: bool, out: &mut impl std::io::Write) -> Result<()> {
    let path = settings_path()?;
    let (old_text, old) = read_settings(&path)?;
    let new = change(old.clone());
    if new == old {
        writeln!(out, "{}: already up to date", path.display())?;
        return Ok(());
    }
    let new_text = render(&new);
    if dry_run {
        write!(out, "{}", diff(&old_text, &new_text, &path.display().to_string()))?;
        return Ok(());
    }
    match write_with_backup(&path, &old_text, &new_text)? {
        Some(backup) => writeln!(out, "updated {} (backup: {})", path.display(), backup.display())?,
        None => writeln!(out, "created {}", path.display())?,
    }
    Ok(())
}

/// The language errkb speaks to the agent in, from the user's locale
/// (Korean for a Korean locale, otherwise English), written to config.json
/// when it says none; a language chosen there stays.
fn choose_language(dry_run: bool, out: &mut impl std::io::Write) -> Result<()> {
    let path = config_file::path()?;
    // a config.json that cannot be read, or is not an object, is the
    // user's to mend (doctor says so): never written over
    let Ok(mut config) = config_file::read() else {
        return Ok(());
    };
    if config.contains_key("language") {
        return Ok(());
    }
    let language = errkb::advice::language::from_locale();
    if dry_run {
        writeln!(
            out,
            "would set \"language\": \"{}\" in {}",
            language.code(),
            path.display()
        )?;
        return Ok(());
    }
    config.insert("language".into(), Value::String(language.code().into()));
    config_file::write(&config)?;
    writeln!(
        out,
        "errkb speaks {} to the agent (\"language\" in {})",
        match language {
            errkb::advice::language::Language::Korean => "Korean",
            errkb::advice::language::Language::English => "English",
        },
        path.display()
    )?;
    Ok(())
}

/// `errkb install`: the files, the hooks, the catalogs of the user's
/// languages (so that localized tool messages match their English
/// originals), then the offer to learn from past sessions.
pub fn command(
    db_path: &Path,
    extension: &Path,
    dry_run: bool,
    agents: &[Agent],
    out: &mut impl std::io::Write,
) -> Result<std::process::ExitCode> {
    let agents = if agents.is_empty() {
        agents_found(out)?
    } else {
        agents.to_vec()
    };
    install(extension, dry_run, &agents, out)?;
    choose_language(dry_run, out)?;
    let langs = crate::commands::catalog::user_languages();
    if !langs.is_empty() {
        if dry_run {
            writeln!(out, "would index the message catalogs of: {}", langs.join(", "))?;
        } else {
            let conn = errkb::runtime::db::open(db_path, errkb::runtime::db::Access::ReadWrite)?;
            let s = crate::commands::catalog::build(&conn, &langs)?;
            writeln!(out, "indexed {} localized messages ({})", s.messages, langs.join(", "))?;
        }
    }
    if !dry_run {
        crate::commands::learn::offer(db_path, &agents, out)?;
    }
    Ok(std::process::ExitCode::SUCCESS)
}
