//! `errkb doctor`: is everything in place, and what went wrong lately?
//! Exit status 1 when something needs attention.

use std::io::Write;
use std::path::Path;

use anyhow::Result;

use crate::{db, hook, install};

/// How many recent hook failures to show.
const RECENT_FAILURES: usize = 5;

pub fn run(db_path: &Path, extension: Result<std::path::PathBuf>, out: &mut impl Write) -> Result<bool> {
    let mut healthy = true;
    let mut line = |out: &mut dyn Write, ok: bool, label: &str, text: String| -> Result<()> {
        healthy &= ok;
        writeln!(out, "{} {label:<13} {text}", if ok { "ok  " } else { "FAIL" })?;
        Ok(())
    };

    let extension = match extension {
        Ok(ext) => ext,
        Err(e) => {
            line(out, false, "extension", format!("{e:#}"))?;
            return Ok(false);
        }
    };
    let debug = db::open_in_memory(&extension)
        .and_then(|c| Ok(c.query_row("SELECT errkb_debug()", [], |r| r.get::<_, String>(0))?));
    let report: Vec<(String, String)> = match &debug {
        Ok(text) => text
            .lines()
            .filter_map(|l| l.split_once(": "))
            .map(|(k, v)| (k.into(), v.into()))
            .collect(),
        Err(e) => {
            line(
                out,
                false,
                "extension",
                format!("{} does not load: {e:#}", extension.display()),
            )?;
            return Ok(false);
        }
    };
    let field = |k: &str| {
        report
            .iter()
            .find(|(key, _)| key == k)
            .map_or("?", |(_, v)| v.as_str())
            .to_owned()
    };
    line(
        out,
        true,
        "extension",
        format!(
            "{} {} ({}), SQLite {}, sqlite-vec {}",
            extension.display(),
            field("Version"),
            field("Commit"),
            field("SQLite"),
            field("sqlite-vec")
        ),
    )?;

    if db_path.exists() {
        let summary = db::open(db_path, &extension, db::Access::ReadOnly).and_then(|c| {
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
