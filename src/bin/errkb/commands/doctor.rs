//! `errkb doctor`: is everything in place, and what went wrong lately?
//! Exit status 1 when something needs attention.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::commands::install;
use crate::runtime::{db, hooks, paths};

/// How many recent hook failures to show.
const RECENT_FAILURES: usize = 5;

pub fn run(db_path: &Path, shell_extension: Result<PathBuf>, out: &mut impl Write) -> Result<bool> {
    let mut healthy = true;
    let mut line = |out: &mut dyn Write, ok: bool, label: &str, text: String| -> Result<()> {
        healthy &= ok;
        writeln!(out, "{} {label:<13} {text}", if ok { "ok  " } else { "FAIL" })?;
        Ok(())
    };

    // The functions compiled into this program, which the hooks use.
    let report = match db::open_in_memory().and_then(|c| debug_report(&c)) {
        Ok(report) => report,
        Err(e) => {
            line(out, false, "extension", format!("built-in functions fail: {e:#}"))?;
            return Ok(false);
        }
    };
    let field = |k: &str| field_of(&report, k);
    line(
        out,
        true,
        "extension",
        format!(
            "built in: {} ({}), SQLite {}, sqlite-vec {}",
            field("Version"),
            field("Commit"),
            field("SQLite"),
            field("sqlite-vec")
        ),
    )?;

    // The file the sqlite3 shell loads (and scripts/sqlite3-hook).
    let shell = shell_extension.and_then(|file| {
        let conn = db::open_in_memory()?;
        db::load_extension_file(&conn, &file)?;
        Ok((file, field_of(&debug_report(&conn)?, "Version")))
    });
    match shell {
        Ok((file, version)) if version == field("Version") => {
            line(out, true, "shell ext.", format!("{} loads ({version})", file.display()))?
        }
        Ok((file, version)) => line(
            out,
            false,
            "shell ext.",
            format!(
                "{} is {version}, this program {}: run errkb install",
                file.display(),
                field("Version")
            ),
        )?,
        Err(e) => line(out, false, "shell ext.", format!("{e:#}"))?,
    }

    if db_path.exists() {
        match database_summary(db_path) {
            Ok(summary) => line(out, true, "database", format!("{} {summary}", db_path.display()))?,
            Err(e) => {
                line(out, false, "database", format!("{}: {e:#}", db_path.display()))?;
                remedy(out, &move_aside_remedy(db_path))?;
            }
        }
    } else {
        line(
            out,
            true,
            "database",
            format!("{} (not created yet: the first hook creates it)", db_path.display()),
        )?;
    }

    match paths::data_root().and_then(|root| Ok((crate::runtime::private::fix_tree(&root)?, root))) {
        Ok((changed, root)) if changed.is_empty() => line(
            out,
            true,
            "privacy",
            format!("{} is yours alone (folders 0700, files 0600)", root.display()),
        )?,
        Ok((changed, root)) => line(
            out,
            true,
            "privacy",
            format!(
                "{} files and folders under {} were readable by others: made private",
                changed.len(),
                root.display()
            ),
        )?,
        Err(e) => {
            line(out, false, "privacy", format!("cannot check the modes: {e:#}"))?;
            remedy(out, "chmod -R go-rwx ~/.reflexion")?;
        }
    }

    let model = field("Model");
    let model_missing = model.starts_with("not found");
    line(out, !model_missing, "model", model)?;
    if model_missing {
        remedy(
            out,
            "errkb model download (online, once), or point ERRKB_MODEL at a model directory; \
             until then failures get advice from the text stages only",
        )?;
    }
    let ort = field("ONNX Runtime");
    let ort_missing = ort.starts_with("not found");
    line(out, !ort_missing, "onnxruntime", ort)?;
    if ort_missing {
        remedy(
            out,
            "errkb install (copies libonnxruntime beside the runner), or set ERRKB_ORT_LIB",
        )?;
    }

    let settings = install::settings_path()?;
    let settings_value: Option<serde_json::Value> = std::fs::read_to_string(&settings)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok());
    let installed = settings_value
        .as_ref()
        .map(install::installed_events)
        .unwrap_or_default();
    let missing: Vec<&str> = hooks::events().filter(|e| !installed.iter().any(|i| i == e)).collect();
    if settings_value.as_ref().is_some_and(install::plugin_enabled) {
        line(
            out,
            true,
            "hooks",
            format!("from errkb's Claude Code plugin (enabled in {})", settings.display()),
        )?;
    } else if missing.is_empty() {
        line(
            out,
            true,
            "hooks",
            format!("all {} installed in {}", installed.len(), settings.display()),
        )?;
    } else {
        line(
            out,
            false,
            "hooks",
            format!(
                "not installed in {}: {} (run errkb install)",
                settings.display(),
                missing.join(", ")
            ),
        )?;
    }

    let log = paths::hook_log()?;
    let lines: Vec<String> = std::fs::read_to_string(&log)
        .map(|t| t.lines().map(str::to_owned).collect())
        .unwrap_or_default();
    let since = recent_cutoff();
    let failures: Vec<(FailureKind, &str)> = lines
        .iter()
        .filter(|l| l.as_str() >= since.as_str())
        .filter_map(|l| FailureKind::of(l).map(|kind| (kind, l.as_str())))
        .collect();
    if lines.is_empty() {
        line(out, true, "hook failures", "none logged".into())?;
    } else if failures.is_empty() {
        line(
            out,
            true,
            "hook failures",
            format!(
                "none in the last {RECENT_DAYS} days ({} older lines or warnings in {})",
                lines.len(),
                log.display()
            ),
        )?;
    } else {
        let mut kinds: Vec<(FailureKind, usize)> = Vec::new();
        for (kind, _) in &failures {
            match kinds.iter_mut().find(|(k, _)| k == kind) {
                Some((_, n)) => *n += 1,
                None => kinds.push((*kind, 1)),
            }
        }
        let summary: Vec<String> = kinds.iter().map(|(k, n)| format!("{n} × {}", k.label())).collect();
        // storage failures need the user; a bad payload or a one-off error is history
        let needs_attention = kinds.iter().any(|(k, _)| *k != FailureKind::Other);
        line(
            out,
            !needs_attention,
            "hook failures",
            format!(
                "{} in the last {RECENT_DAYS} days ({}), in {}; the latest:",
                failures.len(),
                summary.join(", "),
                log.display()
            ),
        )?;
        for (_, failure) in failures.iter().rev().take(RECENT_FAILURES).rev() {
            writeln!(out, "       {failure}")?;
        }
        for remedy_text in kinds.iter().filter_map(|(k, _)| k.remedy(db_path)) {
            remedy(out, &remedy_text)?;
        }
    }
    Ok(healthy)
}

/// Failures older than this are history, not a problem to report.
const RECENT_DAYS: u64 = 7;

fn remedy(out: &mut dyn Write, text: &str) -> Result<()> {
    writeln!(out, "       remedy: {text}")?;
    Ok(())
}

/// Entries, fixes, vectors and events, after SQLite's quick integrity
/// check; an error for a file that is damaged or is not errkb's.
fn database_summary(db_path: &Path) -> Result<String> {
    let conn = db::open(db_path, db::Access::ReadOnly)?;
    let check: String = conn
        .query_row("PRAGMA quick_check(1)", [], |r| r.get(0))
        .context("the integrity check cannot run")?;
    if check != "ok" {
        anyhow::bail!("damaged: {check}");
    }
    let (schema, entries, resolved, vectors, events) = conn
        .query_row(
            "SELECT (SELECT user_version FROM pragma_user_version), (SELECT count(*) FROM error_kb), \
             (SELECT count(*) FROM error_kb WHERE resolution IS NOT NULL), (SELECT count(*) FROM vec_error_kb), \
             (SELECT count(*) FROM events)",
            [],
            |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, i64>(1)?,
                    r.get::<_, i64>(2)?,
                    r.get::<_, i64>(3)?,
                    r.get::<_, i64>(4)?,
                ))
            },
        )
        .context("not an errkb knowledge base (its tables are missing)")?;
    Ok(format!(
        "(schema {schema}, integrity ok): {entries} entries, {resolved} with a fix, {vectors} with a vector, {events} events"
    ))
}

/// What to do with a database errkb cannot use: keep it, start anew.
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
        Some(match self {
            Self::DiskIo | Self::Damaged | Self::Foreign => format!(
                "{kind}: if the database line above is FAIL, {}; if it is ok, the failures are over",
                move_aside_remedy(db_path)
            ),
            Self::Locked => format!(
                "{kind}: another process held it for more than 5 s; look for a stuck job (pgrep -fa 'errkb') and stop it"
            ),
            Self::CannotOpen | Self::ReadOnly => format!(
                "{kind}: check that {} can be written and the disk has room",
                db_path.parent().map_or_else(|| ".".into(), |d| d.display().to_string())
            ),
            Self::NoHome => format!("{kind}: Claude Code ran the hook without HOME; set it, or pass --db in the hook command"),
            Self::Other => return None,
        })
    }
}

/// Log lines start with their RFC 3339 time: lines at or after this
/// string are recent.
fn recent_cutoff() -> String {
    let cutoff = std::time::SystemTime::now()
        .checked_sub(std::time::Duration::from_secs(RECENT_DAYS * 86_400))
        .unwrap_or(std::time::UNIX_EPOCH);
    humantime::format_rfc3339_seconds(cutoff).to_string()
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
