//! `errkb doctor`: is everything in place, and what went wrong lately?
//! Exit status 1 when something needs attention.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::{db, hook, install};

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
        let summary = db::open(db_path, db::Access::ReadOnly).and_then(|c| {
            Ok(c.query_row(
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
            )?)
        });
        match summary {
            Ok((schema, entries, resolved, vectors, events)) => line(
                out,
                true,
                "database",
                format!("{} (schema {schema}): {entries} entries, {resolved} with a fix, {vectors} with a vector, {events} events", db_path.display()),
            )?,
            Err(e) => line(out, false, "database", format!("{}: {e:#}", db_path.display()))?,
        }
    } else {
        line(
            out,
            true,
            "database",
            format!("{} (not created yet: the first hook creates it)", db_path.display()),
        )?;
    }

    let model = field("Model");
    line(out, !model.starts_with("not found"), "model", model)?;
    let ort = field("ONNX Runtime");
    line(out, !ort.starts_with("not found"), "onnxruntime", ort)?;

    let settings = install::settings_path()?;
    let installed = std::fs::read_to_string(&settings)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .map(|v| install::installed_events(&v))
        .unwrap_or_default();
    let missing: Vec<&str> = hook::events().filter(|e| !installed.iter().any(|i| i == e)).collect();
    if missing.is_empty() {
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

    let log = hook::log_path()?;
    let failures: Vec<String> = std::fs::read_to_string(&log)
        .map(|t| t.lines().map(str::to_owned).collect())
        .unwrap_or_default();
    if failures.is_empty() {
        line(out, true, "hook failures", "none logged".into())?;
    } else {
        line(
            out,
            true,
            "hook failures",
            format!("{} logged in {}; the latest:", failures.len(), log.display()),
        )?;
        for failure in failures.iter().rev().take(RECENT_FAILURES).rev() {
            writeln!(out, "       {failure}")?;
        }
    }
    Ok(healthy)
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
