//! `errkb hub init|join|leave|status`, `errkb sync`, `errkb forget`, and
//! the sync the end-of-session job and `errkb learn` run (`errkb-hub sync
//! --if-due`): a team's fixes shared through its PostgreSQL hub (see
//! `crate::hub`).

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use serde_json::{json, Value};

use crate::hub::client::{Described, Hub};
use crate::hub::conninfo::Conninfo;
use crate::hub::project::Selection;
use crate::hub::sync::{self, State, HUB_GRANTS_SQL, HUB_SCHEMA_SQL, HUB_SCHEMA_VERSION};
use crate::runtime::{config_file, db};

/// The hub config.json names (`"hub": {"url", "projects", "exclude"}`), if any.
fn joined() -> Result<Option<(Conninfo, Selection)>> {
    let config = config_file::read()?;
    let Some(hub) = config.get("hub").filter(|h| h.is_object()) else {
        return Ok(None);
    };
    let url = hub
        .get("url")
        .and_then(Value::as_str)
        .context("config.json's \"hub\" has no \"url\"")?;
    Ok(Some((Conninfo::parse(url)?, Selection::from_config(hub))))
}

/// A password given in the URL is used for this command and never stored.
fn password_note(info: &Conninfo, out: &mut impl Write) -> Result<()> {
    if info.password_in_url {
        writeln!(
            out,
            "the password in the URL was used for this command only and is not kept; for the next syncs put it \
             in ~/.pgpass (chmod 0600) as\n  {}\nor set PGPASSWORD",
            info.passfile_line()
        )?;
    }
    Ok(())
}

/// `errkb hub init URL`: create or upgrade the hub's schema.
pub fn init(url: &str, out: &mut impl Write) -> Result<ExitCode> {
    let info = Conninfo::parse(url)?;
    let mut hub = Hub::connect(&info)?;
    let version = hub.with(None, async |c| {
        let tx = c.transaction().await.described()?;
        // one init at a time; concurrent ones wait here
        tx.execute("SELECT pg_advisory_xact_lock(hashtext('errkb hub schema'))", &[])
            .await
            .described()?;
        let existing: Option<String> = match tx
            .query_one("SELECT to_regclass('errkb.meta') IS NOT NULL", &[])
            .await
            .described()?
            .get::<_, bool>(0)
        {
            true => tx
                .query_opt("SELECT value FROM errkb.meta WHERE key = 'schema_version'", &[])
                .await
                .described()?
                .map(|r| r.get(0)),
            false => None,
        };
        if let Some(v) = existing.as_deref().and_then(|v| v.parse::<i64>().ok()) {
            if v > HUB_SCHEMA_VERSION {
                return Err(anyhow::anyhow!(
                    "the hub has schema {v}, newer than this errkb knows ({HUB_SCHEMA_VERSION}): \
                     nothing was changed; use a newer errkb"
                ));
            }
        }
        tx.batch_execute(HUB_SCHEMA_SQL).await.described()?;
        tx.commit().await.described()?;
        Ok(existing)
    })?;
    match version {
        Some(v) => writeln!(
            out,
            "hub at {} is at schema {HUB_SCHEMA_VERSION} (was {v})",
            info.display
        )?,
        None => writeln!(
            out,
            "hub created at {} (schema errkb, version {HUB_SCHEMA_VERSION})",
            info.display
        )?,
    }
    writeln!(
        out,
        "\nFor each teammate, a login with only what errkb needs (run as the database's owner):\n\n{}\
         \nThen, on each laptop: errkb hub join postgresql://<login>@{}:{}/{}?sslmode=verify-full",
        HUB_GRANTS_SQL, info.host, info.port, info.dbname
    )?;
    password_note(&info, out)?;
    Ok(ExitCode::SUCCESS)
}

/// `errkb hub join URL`: follow the hub from now on, and sync once.
pub fn join(db_path: &Path, url: &str, out: &mut impl Write) -> Result<ExitCode> {
    let info = Conninfo::parse(url)?;
    let mut hub = Hub::connect(&info)?;
    sync::check_hub_schema(&mut hub)?;
    let mut config = config_file::read()?;
    let mut entry = config
        .get("hub")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    entry.insert("url".into(), json!(info.display));
    config.insert("hub".into(), Value::Object(entry.clone()));
    config_file::write(&config)?;
    let conn = db::open(db_path, db::Access::ReadWrite)?;
    let state = State::join(&conn, &info.display)?;
    writeln!(
        out,
        "joined {} as replica {}; every project with a git remote is shared (\"projects\" or \"exclude\" \
         under \"hub\" in {} narrow that)",
        info.display,
        &state.replica[..8],
        config_file::path()?.display()
    )?;
    password_note(&info, out)?;
    let report = sync::sync(&conn, &mut hub, &state, &Selection::from_config(&Value::Object(entry)))?;
    writeln!(out, "synced: {report}")?;
    Ok(ExitCode::SUCCESS)
}

/// `errkb hub leave`: stop following the hub. What was received stays;
/// the replica keeps its id, so joining again counts nothing twice.
pub fn leave(out: &mut impl Write) -> Result<ExitCode> {
    let mut config = config_file::read()?;
    match config.remove("hub") {
        Some(hub) => {
            config_file::write(&config)?;
            writeln!(
                out,
                "left {}; the fixes received stay in your knowledge base",
                hub.get("url").and_then(Value::as_str).unwrap_or("the hub")
            )?;
        }
        None => writeln!(out, "not joined to a hub")?,
    }
    Ok(ExitCode::SUCCESS)
}

/// `errkb hub status`: reachable, last sync, waiting to send.
pub fn status(db_path: &Path, out: &mut impl Write) -> Result<ExitCode> {
    let Some((info, selection)) = joined()? else {
        writeln!(out, "not joined to a hub (errkb hub join URL)")?;
        return Ok(ExitCode::SUCCESS);
    };
    let conn = db::open(db_path, db::Access::ReadWrite)?;
    let state = State::load(&conn)?;
    let reachable = Hub::connect(&info).and_then(|mut hub| sync::check_hub_schema(&mut hub));
    match &reachable {
        Ok(v) => writeln!(out, "hub        {} (reachable, schema {v})", info.display)?,
        Err(e) => writeln!(out, "hub        {} (unreachable: {e:#})", info.display)?,
    }
    if let Some(state) = &state {
        writeln!(out, "replica    {}", state.replica)?;
        writeln!(out, "last sync  {}", state.last_sync.as_deref().unwrap_or("never"))?;
        if let Some(error) = &state.last_error {
            writeln!(
                out,
                "failing    {} time(s) in a row: {error}; next try {}",
                state.failures,
                state.next_try.as_deref().unwrap_or("now")
            )?;
        }
    }
    let (fixes, counts, retractions) = sync::waiting(&conn, &selection)?;
    writeln!(
        out,
        "waiting    {fixes} fixes, {counts} counts, {retractions} retractions to send"
    )?;
    Ok(if reachable.is_ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `errkb sync`: send, then receive. `if_due`: only when the last failure's
/// wait is over (the background runs), quietly when not joined.
pub fn run_sync(db_path: &Path, if_due: bool, out: &mut impl Write) -> Result<ExitCode> {
    let Some((info, selection)) = joined()? else {
        if if_due {
            return Ok(ExitCode::SUCCESS);
        }
        bail!("not joined to a hub: errkb hub join URL");
    };
    let conn = db::open(db_path, db::Access::ReadWrite)?;
    let state = State::join(&conn, &info.display)?;
    if if_due && !state.due() {
        return Ok(ExitCode::SUCCESS);
    }
    let outcome = Hub::connect(&info).and_then(|mut hub| {
        sync::check_hub_schema(&mut hub)?;
        sync::sync(&conn, &mut hub, &state, &selection)
    });
    match outcome {
        Ok(report) => {
            writeln!(out, "synced with {}: {report}", info.display)?;
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            let said = format!("{e:#}");
            State::record_failure(&conn, &said)?;
            Err(e.context(format!(
                "sync with {} failed (nothing is lost: it is tried again later)",
                info.display
            )))
        }
    }
}

/// `errkb forget FIX`: retract a fix here, and for the team at the next sync.
pub fn forget(db_path: &Path, fix: &str, out: &mut impl Write) -> Result<ExitCode> {
    let conn = db::open(db_path, db::Access::ReadWrite)?;
    let uid = sync::forget(&conn, fix)?;
    drop(conn);
    writeln!(out, "forgot fix {uid}: it is never advised again here")?;
    if joined()?.is_some() {
        match run_sync(db_path, false, &mut std::io::sink()) {
            Ok(_) => writeln!(out, "and the team's hub has the retraction")?,
            Err(e) => writeln!(out, "the team's hub gets the retraction at the next sync ({e:#})")?,
        }
    }
    Ok(ExitCode::SUCCESS)
}
