//! `errkb doctor`: is everything in place, and what went wrong lately?
//!
//! It reports what the installed hooks will use, whichever errkb runs it:
//! the program Claude Code's hooks start (from settings.json, or errkb's
//! plugin), Codex's (hooks.json and their trust in config.toml, or errkb's
//! Codex plugin), the model and ONNX Runtime that program finds, and whether the
//! model loads in it. Each problem comes with a command that fixes the
//! installed setup. It tells a full disk, read-only files, a damaged file
//! and a schema newer than this program apart, and advises moving the
//! database aside only when the database itself is damaged.
//! Exit status 1 when something needs attention.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime};

use anyhow::{Context, Result};
use rusqlite::OpenFlags;
use serde_json::Value;

use crate::commands::install;
use crate::agent::hooks;
use errkb::runtime::storage::{self, writable, Problem, Storage};
use errkb::runtime::{counted, db, paths};
use errkb::embedding::model_files;

/// How many recent hook failures to show.
const RECENT_FAILURES: usize = 5;
/// Failures older than this are history, not a problem to report.
const RECENT_DAYS: u64 = 7;
/// How long the full integrity check may take (`ERRKB_DOCTOR_CHECK_MS`).
const CHECK_BUDGET: Duration = Duration::from_secs(5);

#[derive(Clone, Copy, PartialEq, Eq)]
enum Status {
    Ok,
    Fail,
    /// Switched off on purpose: said, but not a failure.
    Off,
    /// Worth knowing, with a remedy, but nothing of this machine is broken
    /// (a teammate's rows the hub sent that were refused).
    Warn,
}

/// The lines doctor prints, and whether all is well.
struct Report<'a> {
    out: &'a mut dyn Write,
    healthy: bool,
}

impl Report<'_> {
    fn line(&mut self, status: Status, label: &str, text: impl AsRef<str>) -> Result<()> {
        self.healthy &= status != Status::Fail;
        let mark = match status {
            Status::Ok => "ok  ",
            Status::Fail => "FAIL",
            Status::Off => "off ",
            Status::Warn => "warn",
        };
        writeln!(self.out, "{mark} {label:<13} {}", text.as_ref())?;
        Ok(())
    }

    fn ok(&mut self, label: &str, text: impl AsRef<str>) -> Result<()> {
        self.line(Status::Ok, label, text)
    }

    fn fail(&mut self, label: &str, text: impl AsRef<str>, remedy: impl AsRef<str>) -> Result<()> {
        self.line(Status::Fail, label, text)?;
        self.remedy(remedy)
    }

    fn warn(&mut self, label: &str, text: impl AsRef<str>, remedy: impl AsRef<str>) -> Result<()> {
        self.line(Status::Warn, label, text)?;
        self.remedy(remedy)
    }

    fn remedy(&mut self, text: impl AsRef<str>) -> Result<()> {
        writeln!(self.out, "       remedy: {}", text.as_ref())?;
        Ok(())
    }

    fn detail(&mut self, text: impl AsRef<str>) -> Result<()> {
        writeln!(self.out, "       {}", text.as_ref())?;
        Ok(())
    }
}

pub fn run(db_path: &Path, shell_extension: Result<PathBuf>, out: &mut impl Write) -> Result<bool> {
    let mut report = Report { out, healthy: true };
    let r = &mut report;

    // The functions compiled into this program.
    let built_in = match db::open_in_memory().and_then(|c| debug_report(&c)) {
        Ok(built_in) => built_in,
        Err(e) => {
            r.fail(
                "extension",
                format!("built-in functions fail: {e:#}"),
                "rebuild errkb (make)",
            )?;
            return Ok(false);
        }
    };
    let field = |k: &str| field_of(&built_in, k);
    r.ok(
        "extension",
        format!(
            "built in: {} ({}), SQLite {}, sqlite-vec {}",
            field("Version"),
            field("Commit"),
            field("SQLite"),
            field("sqlite-vec")
        ),
    )?;

    check_clock(r)?;
    let data_folder_usable = check_data_folder(r)?;
    check_config(r)?;
    let runner = check_hooks(r)?;
    let codex_runner = check_codex_hooks(r)?;
    check_shell_extension(r, shell_extension, &field("Version"))?;
    check_disk(r, db_path)?;
    let stored_model = check_database(r, db_path)?;
    check_model(r, runner.or(codex_runner).as_deref(), stored_model)?;
    check_hub(r, db_path)?;
    check_hook_log(r, db_path, data_folder_usable)?;
    Ok(report.healthy)
}

/// A clock before errkb existed or past what RFC 3339 holds: every time
/// stored (and the window of recent failures) is wrong.
fn check_clock(r: &mut Report) -> Result<()> {
    let now = SystemTime::now();
    let plausible = errkb::clock::in_range(now)
        && now
            .duration_since(SystemTime::UNIX_EPOCH)
            .is_ok_and(|d| d.as_secs() >= 1_704_067_200); // 2024-01-01
    if plausible {
        return r.ok("clock", errkb::clock::seconds(now));
    }
    let said = if errkb::clock::in_range(now) {
        errkb::clock::seconds(now)
    } else {
        "a time outside 1970–9999".to_owned()
    };
    r.fail(
        "clock",
        format!("the system clock says {said}: events are stored with that time (clamped to 1970–9999)"),
        "set the system clock (e.g. enable NTP: timedatectl set-ntp true, or sudo sntp -sS time.apple.com on macOS)",
    )
}

/// ~/.reflexion must be a folder this user can write: the database, the
/// config and the hook log live there.
fn check_data_folder(r: &mut Report) -> Result<bool> {
    let root = paths::data_root()?;
    let shown = root.display();
    let meta = match std::fs::metadata(&root) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            r.ok(
                "data folder",
                format!("{shown} (not created yet: install or the first hook creates it)"),
            )?;
            return Ok(true);
        }
        Err(e) => {
            r.fail(
                "data folder",
                format!("{shown}: {e}"),
                format!("ls -ld {shown}; fix its owner or mode"),
            )?;
            return Ok(false);
        }
    };
    if !meta.is_dir() {
        let fallback = paths::hook_logs().into_iter().nth(1).unwrap_or_default();
        r.fail(
            "data folder",
            format!(
                "{shown} is not a folder: the hooks cannot store anything (they log their failures in {})",
                fallback.display()
            ),
            format!("mv {shown} {shown}.not-a-folder && errkb install"),
        )?;
        return Ok(false);
    }
    let unwritable: Vec<PathBuf> = [root.clone(), root.join("data"), root.join("logs")]
        .into_iter()
        .filter(|d| d.is_dir() && !writable(d))
        .collect();
    if let Some(dir) = unwritable.first() {
        r.fail(
            "data folder",
            format!("{} is read-only: the hooks cannot write there", dir.display()),
            format!("chmod u+rwx {}", dir.display()),
        )?;
        return Ok(false);
    }
    match errkb::runtime::private::fix_tree(&root) {
        Ok(changed) if changed.is_empty() => r.ok(
            "data folder",
            format!("{shown} is yours alone (folders 0700, files 0600)"),
        )?,
        Ok(changed) => r.ok(
            "data folder",
            format!(
                "{} under {shown} {} readable by others: made private",
                counted(changed.len(), "file or folder", "files and folders"),
                if changed.len() == 1 { "was" } else { "were" }
            ),
        )?,
        Err(e) => r.fail(
            "data folder",
            format!("cannot check the modes under {shown}: {e}"),
            format!("chmod -R go-rwx {shown}"),
        )?,
    }
    Ok(true)
}

/// config.json: valid JSON with an object at the top, and whether it
/// turns errkb off.
fn check_config(r: &mut Report) -> Result<()> {
    let path = paths::data_root()?.join("config.json");
    let shown = path.display();
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return r.ok("config", format!("{shown} (none: every setting has its default)"))
        }
        Err(_) if path.parent().is_some_and(Path::is_file) => return Ok(()), // said above
        Err(e) => return r.fail("config", format!("{shown}: {e}"), format!("chmod 600 {shown}")),
    };
    let config = match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(config)) => config,
        Ok(_) => {
            return r.fail(
                "config",
                format!("{shown} is not a JSON object: the hooks use the defaults"),
                format!("mv {shown} {shown}.bad (and write the settings you want again)"),
            )
        }
        Err(e) => {
            return r.fail(
                "config",
                format!("{shown} is not valid JSON ({e}): the hooks use the defaults"),
                format!("fix the file, or mv {shown} {shown}.bad"),
            )
        }
    };
    let keys: Vec<String> = config
        .iter()
        .filter(|(k, _)| k.as_str() != "enabled")
        .map(|(k, v)| match v {
            Value::String(s) => format!("{k} {s}"),
            other => format!("{k} {other}"),
        })
        .collect();
    r.ok(
        "config",
        format!(
            "{shown}{}",
            if keys.is_empty() {
                String::new()
            } else {
                format!(" ({})", keys.join(", "))
            }
        ),
    )?;
    match config.get("enabled") {
        Some(Value::Bool(false)) => r.line(
            Status::Off,
            "enabled",
            format!(
                "\"enabled\": false in {shown}: every hook does nothing; set it to true (or remove it) to turn them on"
            ),
        ),
        Some(Value::Bool(true)) | None => Ok(()),
        Some(other) => r.fail(
            "enabled",
            format!("\"enabled\": {other} in {shown} is not true or false: the hooks stay on"),
            format!("write \"enabled\": true or false in {shown}"),
        ),
    }
}

/// How Claude Code runs errkb's hooks, and the program they run (None when
/// they are not installed).
fn check_hooks(r: &mut Report) -> Result<Option<PathBuf>> {
    let settings_path = install::settings_path()?;
    let settings: Option<Value> = match std::fs::read_to_string(&settings_path) {
        Ok(text) if text.trim().is_empty() => None,
        Ok(text) => match serde_json::from_str(&text) {
            Ok(value) => Some(value),
            Err(e) => {
                r.fail(
                    "hooks",
                    format!(
                        "{} is not valid JSON ({e}): Claude Code runs no hooks from it",
                        settings_path.display()
                    ),
                    format!("fix {} (then errkb install)", settings_path.display()),
                )?;
                return Ok(None);
            }
        },
        Err(_) => None,
    };
    let this = std::env::current_exe().ok();
    if let Some(plugin) = settings.as_ref().and_then(install::enabled_plugin) {
        let Some(root) = plugin_install_path(&plugin) else {
            r.fail(
                "hooks",
                format!(
                    "errkb's plugin ({plugin}) is enabled in {} but not installed",
                    settings_path.display()
                ),
                format!("claude plugin install {plugin}"),
            )?;
            return Ok(None);
        };
        let runner = root.join("bin").join("errkb");
        check_runner(
            r,
            &runner,
            &format!("from errkb's plugin {plugin} ({})", root.display()),
            || format!("claude plugin update {plugin} (or claude plugin install {plugin})"),
        )?;
        return Ok(Some(runner));
    }
    let installed = settings.as_ref().map(install::installed_events).unwrap_or_default();
    let missing: Vec<&str> = hooks::events().filter(|e| !installed.iter().any(|i| i == e)).collect();
    let runner = paths::data_root()?.join("bin").join("errkb");
    let install_here = || match &this {
        Some(exe) if *exe != runner => format!("{} install", exe.display()),
        _ => "errkb install (from the errkb you want installed)".to_owned(),
    };
    if installed.is_empty() && crate::commands::install::claude_found().is_none() {
        r.line(
            Status::Off,
            "hooks",
            "Claude Code is not on this machine (no ~/.claude, no claude on PATH): no hooks for it",
        )?;
        return Ok(None);
    }
    if !missing.is_empty() {
        r.fail(
            "hooks",
            format!("not installed in {}: {}", settings_path.display(), missing.join(", ")),
            install_here(),
        )?;
        return Ok(None);
    }
    check_runner(
        r,
        &runner,
        &format!("all {} installed in {}", installed.len(), settings_path.display()),
        install_here,
    )?;
    Ok(Some(runner))
}

/// How Codex runs errkb's hooks (installed in hooks.json or by errkb's
/// Codex plugin, and trusted), and the program they run.
fn check_codex_hooks(r: &mut Report) -> Result<Option<PathBuf>> {
    use crate::commands::install_codex::{self, Status as Codex};
    const LABEL: &str = "codex hooks";
    let this = std::env::current_exe().ok();
    let runner_of_install = paths::data_root()?.join("bin").join("errkb");
    let install_here = || match &this {
        Some(exe) if *exe != runner_of_install => format!("{} install --agent codex", exe.display()),
        _ => "errkb install --agent codex (from the errkb you want installed)".to_owned(),
    };
    match install_codex::status()? {
        Codex::NoCodex => {
            r.line(
                Status::Off,
                LABEL,
                "Codex is not on this machine (no ~/.codex, no codex on PATH)",
            )?;
            Ok(None)
        }
        Codex::NotInstalled { home } => {
            r.warn(
                LABEL,
                format!(
                    "Codex is here ({}), but errkb's hooks are not installed for it",
                    home.display()
                ),
                install_here(),
            )?;
            Ok(None)
        }
        Codex::Broken { what } => {
            r.fail(LABEL, what, install_here())?;
            Ok(None)
        }
        Codex::Off { what } => {
            r.line(Status::Off, LABEL, what)?;
            Ok(None)
        }
        Codex::Ready { how, runner } => {
            check_runner_as(r, LABEL, &runner, &how, install_here)?;
            Ok(Some(runner))
        }
    }
}

/// The hooks' program: there, runnable, and the same version as this one.
fn check_runner(r: &mut Report, runner: &Path, how: &str, remedy: impl Fn() -> String) -> Result<()> {
    check_runner_as(r, "hooks", runner, how, remedy)
}

fn check_runner_as(r: &mut Report, label: &str, runner: &Path, how: &str, remedy: impl Fn() -> String) -> Result<()> {
    let version = Command::new(runner)
        .arg("--version")
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output();
    let version = match version {
        Ok(out) if out.status.success() => String::from_utf8_lossy(&out.stdout).trim().to_owned(),
        Ok(out) => {
            return r.fail(
                label,
                format!("{how}; {} fails ({})", runner.display(), out.status),
                remedy(),
            )
        }
        Err(e) => return r.fail(label, format!("{how}; cannot run {}: {e}", runner.display()), remedy()),
    };
    let ours = format!("errkb {}", env!("CARGO_PKG_VERSION"));
    if version != ours {
        return r.fail(
            label,
            format!("{how}; they run {} ({version}), this is {ours}", runner.display()),
            remedy(),
        );
    }
    r.ok(label, format!("{how}; they run {} ({version})", runner.display()))
}

/// Where Claude Code installed `plugin` (`name@marketplace`), from its
/// `plugins/installed_plugins.json`.
fn plugin_install_path(plugin: &str) -> Option<PathBuf> {
    let file = paths::claude_dir().ok()?.join("plugins").join("installed_plugins.json");
    let installed: Value = serde_json::from_str(&std::fs::read_to_string(file).ok()?).ok()?;
    let entries = installed.get("plugins")?.get(plugin)?.as_array()?;
    entries
        .iter()
        .filter_map(|e| e.get("installPath")?.as_str())
        .map(PathBuf::from)
        .find(|p| p.is_dir())
}

/// The extension file the sqlite3 shell loads.
fn check_shell_extension(r: &mut Report, file: Result<PathBuf>, version: &str) -> Result<()> {
    let shell = file.and_then(|file| {
        let conn = db::open_in_memory()?;
        db::load_extension_file(&conn, &file)?;
        Ok((file, field_of(&debug_report(&conn)?, "Version")))
    });
    match shell {
        Ok((file, theirs)) if theirs == version => r.ok("shell ext.", format!("{} loads ({theirs})", file.display())),
        Ok((file, theirs)) => r.fail(
            "shell ext.",
            format!("{} is {theirs}, this program {version}", file.display()),
            "errkb install",
        ),
        Err(e) => r.fail(
            "shell ext.",
            format!("{e:#}"),
            "errkb install (copies errkb.so to ~/.reflexion/lib), or pass --extension",
        ),
    }
}

/// Room on the disk that holds the database.
fn check_disk(r: &mut Report, db_path: &Path) -> Result<()> {
    let storage = Storage::of(db_path);
    let dir = &storage.dir;
    let Some(free) = storage.free else { return Ok(()) };
    if free < storage::LOW_DISK_BYTES {
        return r.fail(
            "disk",
            format!(
                "full: {free} bytes free on the disk holding {}: every hook fails to write",
                dir.display()
            ),
            format!("free some space on that disk (df -h {})", dir.display()),
        );
    }
    r.ok(
        "disk",
        format!("{} free on the disk holding {}", human_bytes(free), dir.display()),
    )
}

/// The database: readable, errkb's, undamaged (the full integrity check,
/// within a time budget), a schema this program knows, writable. Returns
/// the model its vectors were made by, when it says.
fn check_database(r: &mut Report, db_path: &Path) -> Result<Option<String>> {
    let shown = db_path.display().to_string();
    if !db_path.exists() {
        r.ok(
            "database",
            format!("{shown} (not created yet: the first hook creates it)"),
        )?;
        return Ok(None);
    }
    let mut conn = match rusqlite::Connection::open_with_flags(db_path, OpenFlags::SQLITE_OPEN_READ_ONLY) {
        Ok(conn) => conn,
        Err(e) => {
            unreadable(r, db_path, &e)?;
            return Ok(None);
        }
    };
    let started = Instant::now();
    let budget = std::env::var("ERRKB_DOCTOR_CHECK_MS")
        .ok()
        .and_then(|ms| ms.parse().ok())
        .map_or(CHECK_BUDGET, Duration::from_millis);
    let _ = conn.progress_handler(100, Some(move || started.elapsed() > budget));
    let check: rusqlite::Result<Vec<String>> = conn
        .prepare("PRAGMA integrity_check(5)")
        .and_then(|mut s| s.query_map([], |row| row.get(0))?.collect());
    let _ = conn.progress_handler(0, None::<fn() -> bool>);
    let checked = match check {
        Ok(lines) if lines == ["ok"] => format!("integrity ok in {} ms", started.elapsed().as_millis()),
        Ok(lines) => {
            r.fail(
                "database",
                format!("{shown} is damaged: {}", lines.join("; ")),
                move_aside_remedy(db_path),
            )?;
            return Ok(None);
        }
        Err(e) if e.sqlite_error_code() == Some(rusqlite::ErrorCode::OperationInterrupted) => {
            format!(
                "integrity check stopped after {} ms, nothing wrong found so far",
                budget.as_millis()
            )
        }
        Err(e) => {
            unreadable(r, db_path, &e)?;
            return Ok(None);
        }
    };
    let summary = conn.query_row(
        "SELECT (SELECT user_version FROM pragma_user_version), (SELECT count(*) FROM error_kb), \
         (SELECT count(*) FROM error_kb WHERE resolution IS NOT NULL), (SELECT count(*) FROM events)",
        [],
        |row| {
            Ok((
                row.get::<_, i64>(0)?,
                row.get::<_, i64>(1)?,
                row.get::<_, i64>(2)?,
                row.get::<_, i64>(3)?,
            ))
        },
    );
    let (schema, entries, resolved, events) = match summary {
        Ok(summary) => summary,
        Err(e) => {
            r.fail(
                "database",
                format!("{shown} is not an errkb knowledge base ({e})"),
                format!("point errkb at its knowledge base (--db or ERRKB_DB), or move {shown} elsewhere"),
            )?;
            return Ok(None);
        }
    };
    let ours = db::schema_version();
    if schema > ours {
        r.fail(
            "database",
            format!("{shown} has schema {schema}, newer than this errkb knows ({ours}): a newer errkb wrote it"),
            "install the newer errkb again (errkb install from its build, or update the plugin)",
        )?;
        return Ok(None);
    }
    let read_only: Vec<String> = ["", "-wal", "-shm"]
        .iter()
        .map(|s| format!("{shown}{s}"))
        .filter(|f| Path::new(f).exists() && !writable(Path::new(f)))
        .collect();
    if !read_only.is_empty() {
        r.fail(
            "database",
            format!("{} read-only: every hook fails to write", read_only.join(" and ")),
            format!("chmod 600 {}", read_only.join(" ")),
        )?;
        return Ok(None);
    }
    let upgrade = if schema < ours {
        format!(", upgraded to {ours} by the next hook")
    } else {
        String::new()
    };
    r.ok(
        "database",
        format!(
            "{shown} (schema {schema}{upgrade}, {checked}): {}, {resolved} with a fix, {}",
            counted(entries, "entry", "entries"),
            counted(events, "event", "events")
        ),
    )?;
    Ok(conn
        .query_row("SELECT model FROM vector_model", [], |row| row.get(0))
        .ok())
}

/// Why the database cannot be read, told apart: only a damaged file is
/// moved aside; a full disk, a mode or a lock is fixed where it is.
fn unreadable(r: &mut Report, db_path: &Path, e: &rusqlite::Error) -> Result<()> {
    use rusqlite::ErrorCode;
    let shown = db_path.display();
    let dir = db_path.parent().map_or_else(|| ".".into(), |d| d.display().to_string());
    match e.sqlite_error_code() {
        Some(ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase) => {
            r.fail("database", format!("{shown}: {e}"), move_aside_remedy(db_path))
        }
        Some(ErrorCode::DiskFull) => r.fail(
            "database",
            format!("{shown} cannot be read: the disk is full ({e}); the file itself may be fine"),
            format!("free some space on the disk holding {dir}"),
        ),
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => r.fail(
            "database",
            format!("{shown} is locked by another process ({e})"),
            "look for a stuck job (pgrep -fa errkb) and stop it",
        ),
        _ => {
            let problem = Storage::of(db_path).problem();
            let remedy = match problem {
                Some(Problem::Full) => format!("free some space on the disk holding {dir}"),
                Some(Problem::ReadOnlyFolder) => format!("chmod u+rwx {dir}"),
                None => format!("ls -l {shown}*; the files must be yours and writable (chmod 600 {shown}*)"),
            };
            let note = problem.map_or("", Problem::note);
            r.fail("database", format!("{shown} cannot be opened: {e}{note}"), remedy)
        }
    }
}

/// The model the hooks' program finds, that it loads there, and that the
/// database's vectors are its own.
fn check_model(r: &mut Report, runner: Option<&Path>, stored: Option<String>) -> Result<()> {
    let program_dir = runner
        .and_then(Path::parent)
        .map(Path::to_owned)
        .or_else(|| std::env::current_exe().ok()?.parent().map(Path::to_owned));
    match model_files::resolve_onnxruntime_for(program_dir.as_deref()) {
        Ok(lib) => r.ok("onnxruntime", lib.display().to_string())?,
        Err(e) => r.fail(
            "onnxruntime",
            e,
            "errkb install from a build that has it (make model puts it in dist/), or set ERRKB_ORT_LIB",
        )?,
    }
    let files = match model_files::resolve_model_for(program_dir.as_deref()) {
        Ok(files) => files,
        Err(e) => {
            return r.fail(
                "model",
                format!("{e}; until there is one, failures get advice from the text stages only"),
                "errkb model download (online, once), or errkb install from a build with the test model",
            )
        }
    };
    let identity = match files.identity() {
        Ok(identity) => identity,
        Err(e) => return r.fail("model", e, "errkb model download"),
    };
    let which =
        if files.dir == model_files::installed_model_dir().unwrap_or_default() || files.dir.ends_with("bin/model") {
            " (the test model errkb was built with; errkb model download gets the production model)"
        } else {
            ""
        };
    // It loads, in the program the hooks run, as they would load it.
    let loads = runner.map_or(Ok(None), |runner| model_loads(runner).map(Some));
    match loads {
        Ok(Some(elapsed)) => r.ok(
            "model",
            format!(
                "{} at {}{which}: loads and embeds in {} ms",
                identity.id(),
                files.dir.display(),
                elapsed.as_millis()
            ),
        )?,
        Ok(None) => r.ok("model", format!("{} at {}{which}", identity.id(), files.dir.display()))?,
        Err(e) => {
            return r.fail(
                "model",
                format!("{} at {} does not load: {e:#}", identity.id(), files.dir.display()),
                "errkb model download (gets it again), or errkb install from a build with the test model",
            )
        }
    }
    match stored {
        Some(model) if model != identity.id() => r.fail(
            "vectors",
            format!("made by {model}, not the model in use: the vector stage waits until they are made again"),
            "errkb embed (the end of each session also starts it)",
        ),
        _ => Ok(()),
    }
}

/// Load the model in the hooks' program and embed a line; how long it took.
fn model_loads(runner: &Path) -> Result<Duration> {
    let started = Instant::now();
    let mut child = Command::new(runner)
        .args(["--db", ":memory:", "run", "/dev/stdin"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("cannot run {}", runner.display()))?;
    child
        .stdin
        .take()
        .context("no stdin")?
        .write_all(b"SELECT length(embed('ModuleNotFoundError: No module named yaml')) > 0;\n")?;
    let out = child.wait_with_output()?;
    let answer = String::from_utf8_lossy(&out.stdout);
    if out.status.success() && answer.trim() == "1" {
        return Ok(started.elapsed());
    }
    let said = String::from_utf8_lossy(&out.stderr);
    anyhow::bail!("{}", said.trim().trim_start_matches("errkb: "))
}

/// The team's hub, as the last syncs found it (doctor does not connect:
/// `errkb hub status` does).
fn check_hub(r: &mut Report, db_path: &Path) -> Result<()> {
    let Some(url) = errkb::config::hub_url() else {
        return Ok(());
    };
    // (hub_state and hub_refused: errkb-hub writes them at each sync)
    let conn = rusqlite::Connection::open_with_flags(db_path, OpenFlags::SQLITE_OPEN_READ_ONLY).ok();
    let state = conn.as_ref().and_then(|conn| {
        conn.query_row(
            "SELECT last_sync, last_error, failures, next_try FROM hub_state",
            [],
            |row| {
                Ok((
                    row.get::<_, Option<String>>(0)?,
                    row.get::<_, Option<String>>(1)?,
                    row.get::<_, i64>(2)?,
                    row.get::<_, Option<String>>(3)?,
                ))
            },
        )
        .ok()
    });
    // rows received from the hub that were not stored (malformed, oversized)
    let refused: Option<(i64, String)> = conn.as_ref().and_then(|conn| {
        conn.query_row(
            "SELECT count(*), (SELECT reason || coalesce(' (from ' || member || ')', '') FROM hub_refused \
             ORDER BY id DESC LIMIT 1) FROM hub_refused",
            [],
            |row| Ok((row.get(0)?, row.get::<_, Option<String>>(1)?.unwrap_or_default())),
        )
        .ok()
        .filter(|(n, _)| *n > 0)
    });
    if let Some((n, newest)) = refused {
        r.warn(
            "hub",
            format!(
                "{} received from the team's hub {} refused, the newest: {newest}",
                counted(n, "row", "rows"),
                if n == 1 { "was" } else { "were" }
            ),
            "errkb hub status lists them; a teammate's errkb may be broken, or a member hostile: the hub's owner \
             can remove a member (errkb hub remove-member NAME)",
        )?;
    }
    let never = || "never".to_owned();
    match state {
        None => r.fail(
            "hub",
            format!("{url}: joined, never synced"),
            "errkb sync (errkb hub status says whether the hub can be reached)",
        ),
        Some((last_sync, last_error, failures, next_try)) if failures > 0 => r.fail(
            "hub",
            format!(
                "{url}: the last {} failed ({}); last success {}, next try {}",
                if failures == 1 {
                    "sync".to_owned()
                } else {
                    format!("{failures} syncs")
                },
                last_error.unwrap_or_else(|| "?".into()),
                last_sync.unwrap_or_else(never),
                next_try.unwrap_or_else(|| "now".into())
            ),
            "errkb hub status, then errkb sync once the hub is back (nothing waiting is lost)",
        ),
        Some((last_sync, ..)) => r.ok("hub", format!("{url}: last sync {}", last_sync.unwrap_or_else(never))),
    }
}

/// Recent failures in the hook logs (the usual one and its fallbacks).
fn check_hook_log(r: &mut Report, db_path: &Path, data_folder_usable: bool) -> Result<()> {
    let logs: Vec<(PathBuf, String)> = paths::hook_logs()
        .into_iter()
        .filter_map(|p| std::fs::read_to_string(&p).ok().map(|t| (p, t)))
        .collect();
    let shown: Vec<String> = logs.iter().map(|(p, _)| p.display().to_string()).collect();
    let lines: Vec<&str> = logs.iter().flat_map(|(_, t)| t.lines()).collect();
    let since = recent_cutoff();
    let failures: Vec<(FailureKind, &str)> = lines
        .iter()
        .filter(|l| **l >= since.as_str())
        .filter_map(|l| FailureKind::of(l).map(|kind| (kind, *l)))
        .collect();
    if lines.is_empty() {
        return r.ok("hook failures", "none logged");
    }
    if failures.is_empty() {
        return r.ok(
            "hook failures",
            format!(
                "none in the last {RECENT_DAYS} days ({} older lines or warnings in {})",
                lines.len(),
                shown.join(", ")
            ),
        );
    }
    let mut kinds: Vec<(FailureKind, usize)> = Vec::new();
    for (kind, _) in &failures {
        match kinds.iter_mut().find(|(k, _)| k == kind) {
            Some((_, n)) => *n += 1,
            None => kinds.push((*kind, 1)),
        }
    }
    let summary: Vec<String> = kinds.iter().map(|(k, n)| format!("{n} × {}", k.label())).collect();
    // storage failures need the user; a bad payload or a one-off error is history
    let needs_attention = !data_folder_usable || kinds.iter().any(|(k, _)| *k != FailureKind::Other);
    r.line(
        if needs_attention { Status::Fail } else { Status::Ok },
        "hook failures",
        format!(
            "{} in the last {RECENT_DAYS} days ({}), in {}; the latest:",
            failures.len(),
            summary.join(", "),
            shown.join(", ")
        ),
    )?;
    for (_, failure) in failures.iter().rev().take(RECENT_FAILURES).rev() {
        r.detail(failure)?;
    }
    for remedy_text in kinds.iter().filter_map(|(k, _)| k.remedy(db_path)) {
        r.remedy(remedy_text)?;
    }
    Ok(())
}

/// What to do with a damaged database: keep it, start anew.
fn move_aside_remedy(db_path: &Path) -> String {
    let p = db_path.display();
    format!(
        "move it aside and let the next hook start a new one, keeping the old file: \
         mv {p} {p}.broken && rm -f {p}-wal {p}-shm  (sqlite3 {p}.broken .recover may save its rows)"
    )
}

/// What went wrong in a failed hook, from its log line: the storage
/// kinds need the user; anything else (a bad payload, a one-off error) is
/// listed but is history.
#[derive(Clone, Copy, PartialEq, Eq)]
enum FailureKind {
    DiskFull,
    DiskIo,
    Damaged,
    Locked,
    CannotOpen,
    ReadOnly,
    Foreign,
    NoHome,
    Other,
}

impl FailureKind {
    /// The kind of a hook log line, or None for a warning or a skipped
    /// search stage (logged for the record, not failures).
    fn of(line: &str) -> Option<Self> {
        let message = line.splitn(3, ' ').nth(2).unwrap_or("");
        if message.starts_with("warning:") || message.starts_with("search stage skipped") {
            return None;
        }
        Some(
            [
                ("database or disk is full", Self::DiskFull),
                ("disk is full", Self::DiskFull),
                ("No space left on device", Self::DiskFull),
                ("disk I/O error", Self::DiskIo),
                ("disk image is malformed", Self::Damaged),
                ("not a database", Self::Damaged),
                ("database is locked", Self::Locked),
                ("unable to open database", Self::CannotOpen),
                ("readonly database", Self::ReadOnly),
                ("no such table", Self::Foreign),
                ("HOME is not set", Self::NoHome),
            ]
            .into_iter()
            .find(|(needle, _)| message.contains(needle))
            .map_or(Self::Other, |(_, kind)| kind),
        )
    }

    fn label(self) -> &'static str {
        match self {
            Self::DiskFull => "disk full",
            Self::DiskIo => "disk I/O error",
            Self::Damaged => "damaged database",
            Self::Locked => "database locked",
            Self::CannotOpen => "cannot open database",
            Self::ReadOnly => "read-only database",
            Self::Foreign => "not an errkb database",
            Self::NoHome => "no HOME",
            Self::Other => "other error",
        }
    }

    /// What to do; None for `Other`, which needs nothing of the user.
    fn remedy(self, db_path: &Path) -> Option<String> {
        let kind = self.label();
        let dir = db_path.parent().map_or_else(|| ".".into(), |d| d.display().to_string());
        Some(match self {
            Self::DiskFull => format!("{kind}: free some space on the disk holding {dir} (df -h {dir})"),
            Self::DiskIo | Self::Damaged | Self::Foreign => format!(
                "{kind}: if the database line above is FAIL and says damaged, {}; if it is ok, the failures are over",
                move_aside_remedy(db_path)
            ),
            Self::Locked => format!(
                "{kind}: another process held it for more than 5 s; look for a stuck job (pgrep -fa errkb) and stop it"
            ),
            Self::CannotOpen | Self::ReadOnly => format!(
                "{kind}: the database and its folder must be yours and writable: chmod u+rwx {dir} && chmod 600 {}*",
                db_path.display()
            ),
            Self::NoHome => {
                format!("{kind}: Claude Code ran the hook without HOME; set it, or pass --db in the hook command")
            }
            Self::Other => return None,
        })
    }
}

/// Log lines start with their RFC 3339 time: lines at or after this
/// string are recent.
fn recent_cutoff() -> String {
    let cutoff = SystemTime::now()
        .checked_sub(Duration::from_secs(RECENT_DAYS * 86_400))
        .unwrap_or(SystemTime::UNIX_EPOCH);
    errkb::clock::seconds(cutoff)
}

fn human_bytes(n: u64) -> String {
    match n {
        n if n >= 1 << 30 => format!("{:.1} GB", n as f64 / (1u64 << 30) as f64),
        n if n >= 1 << 20 => format!("{:.0} MB", n as f64 / (1u64 << 20) as f64),
        n => format!("{} kB", n / 1024),
    }
}

/// `errkb_debug()` as (key, value) pairs.
fn debug_report(conn: &rusqlite::Connection) -> Result<Vec<(String, String)>> {
    let text: String = conn.query_row("SELECT errkb_debug()", [], |r| r.get(0))?;
    Ok(text
        .lines()
        .filter_map(|l| l.split_once(": "))
        .map(|(k, v)| (k.into(), v.into()))
        .collect())
}

fn field_of(report: &[(String, String)], key: &str) -> String {
    report
        .iter()
        .find(|(k, _)| k == key)
        .map_or("?", |(_, v)| v.as_str())
        .to_owned()
}

/// `errkb doctor`: exit 1 when something needs fixing.
pub fn command(
    db_path: &Path,
    shell_extension: Result<PathBuf>,
    out: &mut impl Write,
) -> Result<std::process::ExitCode> {
    let healthy = run(db_path, shell_extension, out)?;
    Ok(if healthy {
        std::process::ExitCode::SUCCESS
    } else {
        std::process::ExitCode::from(1)
    })
}
