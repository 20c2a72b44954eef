//! `errkb search ERROR`: the best past fix of an error, for a person or an
//! agent (the plugin puts errkb on the agent's PATH): three short lines, or
//! the row as JSON.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;
use rusqlite::OptionalExtension;

use errkb::runtime::db::{self, Access};

/// An SQL value as JSON: what `errkb search --json` prints.
fn sql_to_json(value: rusqlite::types::ValueRef<'_>) -> serde_json::Value {
    use rusqlite::types::ValueRef;
    match value {
        ValueRef::Null => serde_json::Value::Null,
        ValueRef::Integer(n) => n.into(),
        ValueRef::Real(x) => x.into(),
        ValueRef::Text(t) | ValueRef::Blob(t) => String::from_utf8_lossy(t).into_owned().into(),
    }
}

/// The best past resolution for `error`, read-only: an ad-hoc search
/// neither creates the database nor counts as a use of the fix.
pub fn run(db_path: &std::path::Path, error: &str, json: bool, out: &mut impl Write) -> Result<ExitCode> {
    if !db_path.exists() {
        eprintln!("no knowledge base at {} yet", db_path.display());
        return Ok(ExitCode::from(1));
    }
    let conn = db::open(db_path, Access::ReadOnly)?;
    // The best fix's row, by column name (kb_search's columns, plus the
    // fix rendered for the agent).
    const COLUMNS: &[&str] = &[
        "id",
        "stage",
        "distance",
        "error_normalized",
        "error_raw",
        "headline",
        "fix_id",
        "origin",
        "other_fixes",
        "resolution",
        "fix",
        "resolved_by",
        "tool_sequence",
        "use_count",
        "ts",
        "last_used",
    ];
    let sql = format!(
        "SELECT {} FROM (SELECT *, resolution_text(resolution) AS fix FROM kb_search(redact_secrets(?1)))",
        COLUMNS.join(", ")
    );
    let hit = conn
        .query_row(&sql, [error], |row| {
            COLUMNS
                .iter()
                .enumerate()
                .map(|(i, name)| Ok(((*name).to_owned(), sql_to_json(row.get_ref(i)?))))
                .collect::<rusqlite::Result<serde_json::Map<String, serde_json::Value>>>()
        })
        .optional()?;
    let Some(hit) = hit else {
        eprintln!("no match");
        return Ok(ExitCode::from(1));
    };
    if json {
        writeln!(out, "{}", serde_json::Value::Object(hit))?;
        return Ok(ExitCode::SUCCESS);
    }
    let field = |name: &str| match &hit[name] {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Null => "-".to_owned(),
        other => other.to_string(),
    };
    let error = match field("headline").as_str() {
        "" | "-" => field("error_normalized"),
        headline => headline.to_owned(),
    };
    if field("origin") == "team" {
        // a teammate's record, from the hub: quoted, never in errkb's voice
        writeln!(
            out,
            "match ({}): a teammate's record from the team's hub, quoted as sent (check it before running \
             anything it names):",
            field("stage")
        )?;
        writeln!(out, "  > error: {}", one_line(&error))?;
        writeln!(out, "  > fix: {}", one_line(&field("fix")))?;
    } else {
        writeln!(out, "match ({}): {error}", field("stage"))?;
        writeln!(out, "  fix: {}", field("fix"))?;
    }
    let others = hit["other_fixes"].as_i64().unwrap_or(0);
    if others > 0 {
        writeln!(
            out,
            "  ({others} other fix{} known)",
            if others == 1 { "" } else { "es" }
        )?;
    }
    let uses = hit["use_count"].as_i64().unwrap_or(0);
    writeln!(
        out,
        "  used {}; recorded {}; last used {}",
        match uses {
            1 => "once".to_owned(),
            n => format!("{n} times"),
        },
        field("ts"),
        field("last_used")
    )?;
    Ok(ExitCode::SUCCESS)
}

/// A text on one line (its line breaks as ⏎).
fn one_line(text: &str) -> String {
    text.replace("\r\n", "\n").replace('\n', " ⏎ ")
}
