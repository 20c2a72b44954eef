//! `errkb hub init|join|leave|status|remove-member|retract`, `errkb sync`,
//! `errkb forget`, and the sync the end-of-session job and `errkb learn`
//! run (`errkb-hub sync --if-due`): a team's fixes shared through its
//! PostgreSQL hub (see `crate::hub`).

use std::fs::File;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use serde_json::{json, Value};

use crate::hub::client::{Described, Hub};
use crate::hub::conninfo::Conninfo;
use crate::hub::project::Selection;
use crate::hub::sync::{self, State, HUB_SCHEMA_SQL, HUB_SCHEMA_VERSION};
use errkb::runtime::{config_file, counted, db};

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

/// A hub URL as given: `-` reads it from standard input (one line), so
/// that a URL with a password never appears on a command line, where
/// every user of the machine can read it (`ps`).
pub fn url_argument(url: &str) -> Result<String> {
    if url != "-" {
        return Ok(url.to_owned());
    }
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .context("cannot read the hub's URL from standard input")?;
    let line = line.trim();
    if line.is_empty() {
        bail!("no URL on standard input (errkb hub join - reads one line: postgresql://USER@HOST/DB)");
    }
    Ok(line.to_owned())
}

/// The URL the owner's commands use: the one given, else the joined hub's.
fn owner_url(url: Option<&str>) -> Result<Conninfo> {
    match url {
        Some(url) => Conninfo::parse(&url_argument(url)?),
        None => match joined()? {
            Some((info, _)) => Ok(info),
            None => bail!("not joined to a hub: give the hub's URL with --url (as its owner)"),
        },
    }
}

/// A password given in the URL is used for this command and never stored.
fn password_note(info: &Conninfo, url_argument: &str, out: &mut impl Write) -> Result<()> {
    if info.password_in_url && url_argument != "-" {
        writeln!(
            out,
            "a password on the command line is visible to every user of this machine (ps) and stays in your \
             shell's history: give the URL without it, or as errkb hub join - (the URL on standard input)"
        )?;
    }
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

/// `errkb hub init URL`: create or upgrade the hub's schema, roles and
/// row-level security, as the database's owner.
pub fn init(url: &str, out: &mut impl Write) -> Result<ExitCode> {
    let info = Conninfo::parse(&url_argument(url)?)?;
    let mut hub = Hub::connect(&info)?;
    let version = hub.with(async |c| {
        // Every text on the hub is UTF-8 only if the database says so:
        // SQL_ASCII stores any bytes, and a row of them could fail every
        // laptop's sync.
        let encoding = sync::database_encoding(c).await?;
        if encoding != "UTF8" {
            return Err(anyhow::anyhow!(
                "the database's encoding is {encoding}: a hub needs UTF8 (nothing was changed). Create one with \
                 CREATE DATABASE team ENCODING 'UTF8' TEMPLATE template0, and run errkb hub init on it"
            ));
        }
        let tx = c.transaction().await.described()?;
        // one init at a time; concurrent ones wait here. On a hub, a lock
        // on its own table that members cannot take (an advisory lock any
        // login could take, and hold to stop every upgrade); before there
        // is one, an advisory lock (no member exists yet).
        tx.batch_execute(
            "DO $$ BEGIN \
               IF to_regclass('errkb.meta') IS NOT NULL THEN \
                 LOCK TABLE errkb.meta IN SHARE UPDATE EXCLUSIVE MODE; \
               ELSE \
                 PERFORM pg_advisory_xact_lock(hashtext('errkb hub schema')); \
               END IF; \
             END $$",
        )
        .await
        .described()?;
        let existing = sync::stored_schema_version(&tx).await?;
        if let Some(v) = existing.as_deref().and_then(|v| v.parse::<i64>().ok()) {
            if v > HUB_SCHEMA_VERSION {
                return Err(anyhow::anyhow!(
                    "the hub has schema {v}, newer than this errkb knows ({HUB_SCHEMA_VERSION}): \
                     nothing was changed; use a newer errkb"
                ));
            }
        }
        tx.batch_execute(HUB_SCHEMA_SQL).await.map_err(|e| {
            let said = crate::hub::client::describe(&e);
            if said.contains("permission denied to create role") {
                anyhow::anyhow!(
                    "{said}: errkb hub init makes the roles errkb_member and errkb_admin, which needs a login \
                     with CREATEROLE (the database's owner on managed services has it); nothing was changed"
                )
            } else {
                anyhow::anyhow!(said)
            }
        })?;
        tx.commit().await.described()?;
        Ok(existing)
    })?;
    match version {
        Some(v) => writeln!(
            out,
            "hub at {} is at schema {HUB_SCHEMA_VERSION} (was {v}; its fixes and counts are kept)",
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
        "\nEach teammate gets a login of their own (run as the database's owner, e.g. in psql):\n\n  \
         CREATE ROLE alice LOGIN PASSWORD '…' IN ROLE errkb_member;\n  \
         GRANT CONNECT ON DATABASE {} TO errkb_member;\n\
         \nThen, on each laptop: errkb hub join postgresql://alice@{}:{}/{}\n\
         (the password in ~/.pgpass or PGPASSWORD, never on the command line).\n\
         \nAs the owner: errkb hub retract FIX --url URL retracts a fix for everyone, and\n\
         errkb hub remove-member NAME --url URL removes a member with all it sent.",
        info.dbname, info.host, info.port, info.dbname
    )?;
    password_note(&info, url, out)?;
    Ok(ExitCode::SUCCESS)
}

/// The knowledge base with the hub's own tables, which a database that
/// never joined a hub does not keep (see `db::ensure_hub_tables`).
fn open_knowledge_base(db_path: &Path) -> Result<db::Database> {
    let conn = db::open(db_path, db::Access::ReadWrite)?;
    db::ensure_hub_tables(&conn)?;
    Ok(conn)
}

/// After a command that works without a hub (forget, retract): the hub's
/// tables out again when no hub is joined and none holds a row, as an
/// upgrade leaves them (best effort: they cost time, lose nothing).
fn leave_out_unless_joined(conn: &db::Database) {
    if matches!(joined(), Ok(None)) {
        let _ = db::leave_out_unused_hub_tables(conn);
    }
}

/// `errkb hub join URL`: follow the hub from now on, and sync once.
pub fn join(db_path: &Path, url: &str, out: &mut impl Write) -> Result<ExitCode> {
    let info = Conninfo::parse(&url_argument(url)?)?;
    let mut hub = Hub::connect(&info)?;
    sync::check_hub_schema(&mut hub)?;
    let _lock = sync_lock(db_path, Wait::Yes)?;
    let mut config = config_file::read()?;
    let mut entry = config
        .get("hub")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    entry.insert("url".into(), json!(info.display));
    config.insert("hub".into(), Value::Object(entry.clone()));
    config_file::write(&config)?;
    let conn = open_knowledge_base(db_path)?;
    let state = State::join(&conn, &info.display)?;
    let report = sync::sync(&conn, &mut hub, &state, &Selection::from_config(&Value::Object(entry)));
    let report = match report {
        Ok(report) => report,
        Err(e) => {
            State::record_failure(&conn, &format!("{e:#}"))?;
            return Err(e);
        }
    };
    writeln!(
        out,
        "joined {} as {} (replica {}); every project with a git remote is shared (\"projects\" or \"exclude\" \
         under \"hub\" in {} narrow that)",
        info.display,
        report.member,
        &state.replica[..8],
        config_file::path()?.display()
    )?;
    password_note(&info, url, out)?;
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

/// `errkb hub status`: reachable, who this laptop is there, the last sync,
/// what waits to be sent, and what was refused of what was received.
pub fn status(db_path: &Path, out: &mut impl Write) -> Result<ExitCode> {
    let Some((info, selection)) = joined()? else {
        writeln!(out, "not joined to a hub (errkb hub join URL)")?;
        return Ok(ExitCode::SUCCESS);
    };
    let conn = open_knowledge_base(db_path)?;
    let state = State::load(&conn)?;
    let reachable = Hub::connect(&info).and_then(|mut hub| {
        let version = sync::check_hub_schema(&mut hub)?;
        let (member, may_write) = hub.with(async |c| {
            let row = c
                .query_one("SELECT session_user::text, errkb.may_write()", &[])
                .await
                .described()?;
            Ok((row.get::<_, String>(0), row.get::<_, bool>(1)))
        })?;
        if !may_write {
            bail!("the hub's owner removed {member} from the team");
        }
        Ok((version, member))
    });
    match &reachable {
        Ok((v, member)) => writeln!(out, "hub        {} (reachable, schema {v}, as {member})", info.display)?,
        Err(e) => writeln!(out, "hub        {} (unreachable: {e:#})", info.display)?,
    }
    if let Some(state) = &state {
        writeln!(out, "replica    {}", state.replica)?;
        writeln!(out, "last sync  {}", state.last_sync.as_deref().unwrap_or("never"))?;
        if let Some(error) = &state.last_error {
            if state.failures > 0 {
                writeln!(
                    out,
                    "failing    {} time(s) in a row: {error}; next try {}",
                    state.failures,
                    state.next_try.as_deref().unwrap_or("now")
                )?;
            } else {
                writeln!(out, "note       {error}")?;
            }
        }
    }
    let (fixes, counts, retractions) = sync::waiting(&conn, &selection)?;
    writeln!(
        out,
        "waiting    {}, {}, {} to send",
        counted(fixes, "fix", "fixes"),
        counted(counts, "count", "counts"),
        counted(retractions, "retraction", "retractions")
    )?;
    let refused: i64 = conn.query_row("SELECT count(*) FROM hub_refused", [], |r| r.get(0))?;
    if refused > 0 {
        writeln!(
            out,
            "refused    {} received from the hub {} not stored; the newest:",
            counted(refused, "row", "rows"),
            if refused == 1 { "was" } else { "were" }
        )?;
        let mut stmt = conn.prepare(
            "SELECT ts, coalesce(member, '?'), coalesce(hub_uid, '?'), reason FROM hub_refused ORDER BY id DESC LIMIT 5",
        )?;
        let mut rows = stmt.query([])?;
        while let Some(row) = rows.next()? {
            writeln!(
                out,
                "  {} from {}, fix {}: {}",
                row.get::<_, String>(0)?,
                row.get::<_, String>(1)?,
                row.get::<_, String>(2)?,
                row.get::<_, String>(3)?
            )?;
        }
    } else {
        writeln!(out, "refused    none")?;
    }
    Ok(if reachable.is_ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Whether a sync that finds another running waits for it.
#[derive(PartialEq)]
enum Wait {
    Yes,
    No,
}

/// One sync per knowledge base at a time: the lock file beside it, held
/// for the whole sync. A background sync that finds it held does nothing
/// (the running one does the work); one asked for waits its turn. `None`:
/// held by another, and not waited for.
fn sync_lock(db_path: &Path, wait: Wait) -> Result<Option<File>> {
    let mut name = db_path.as_os_str().to_owned();
    name.push(".sync.lock");
    let path = PathBuf::from(name);
    if let Some(folder) = path.parent() {
        // (the process's umask keeps it private)
        std::fs::create_dir_all(folder).with_context(|| format!("cannot create {}", folder.display()))?;
    }
    let file = File::create(&path).with_context(|| format!("cannot create {}", path.display()))?;
    match file.try_lock() {
        Ok(()) => Ok(Some(file)),
        Err(std::fs::TryLockError::WouldBlock) if wait == Wait::No => Ok(None),
        Err(std::fs::TryLockError::WouldBlock) => {
            eprintln!("errkb: another sync of this knowledge base is running; waiting for it");
            file.lock().context("cannot wait for the other sync")?;
            Ok(Some(file))
        }
        Err(std::fs::TryLockError::Error(e)) => Err(e).with_context(|| format!("cannot lock {}", path.display())),
    }
}

/// `errkb sync`: send, then receive. `if_due`: only when the last failure's
/// wait is over and no other sync runs (the background runs), quietly when
/// not joined.
pub fn run_sync(db_path: &Path, if_due: bool, out: &mut impl Write) -> Result<ExitCode> {
    let Some((info, selection)) = joined()? else {
        if if_due {
            return Ok(ExitCode::SUCCESS);
        }
        bail!("not joined to a hub: errkb hub join URL");
    };
    let Some(_lock) = sync_lock(db_path, if if_due { Wait::No } else { Wait::Yes })? else {
        return Ok(ExitCode::SUCCESS);
    };
    let conn = open_knowledge_base(db_path)?;
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
            writeln!(out, "synced with {} as {}: {report}", info.display, report.member)?;
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

/// `errkb forget FIX`: retract a fix here (never advised, learned or
/// received again), and withdraw this member's copy from the hub at the
/// next sync.
pub fn forget(db_path: &Path, fix: &str, out: &mut impl Write) -> Result<ExitCode> {
    let conn = open_knowledge_base(db_path)?;
    let forgotten = sync::forget(&conn, fix);
    leave_out_unless_joined(&conn);
    let uid = forgotten?;
    drop(conn);
    writeln!(out, "forgot fix {uid}: it is never advised again here")?;
    if joined()?.is_some() {
        match run_sync(db_path, false, &mut std::io::sink()) {
            Ok(_) => writeln!(out, "and the team's hub no longer has it from you")?,
            Err(e) => writeln!(out, "the team's hub hears of it at the next sync ({e:#})")?,
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `errkb hub retract FIX`: the hub's owner retracts a fix for everyone
/// (every laptop drops it at its next sync, and it is never sent or
/// received again). FIX: a fix's id or uid here, or a uid on the hub.
///
/// What is retracted is the fix as this laptop has it, by its content: the
/// uid its content hashes to, for everyone; and each copy a member sent of
/// it, that member's. A member who sent other content under someone
/// else's uid cannot make the owner retract the other's fix.
pub fn retract(db_path: &Path, fix: &str, url: Option<&str>, out: &mut impl Write) -> Result<ExitCode> {
    let info = owner_url(url)?;
    let (everyone, copies) = match open_knowledge_base(db_path).ok().and_then(|conn| {
        let copies = sync::fix_copies(&conn, fix).ok();
        leave_out_unless_joined(&conn);
        copies
    }) {
        Some((uid, copies)) => (uid, copies),
        None if fix.len() == 32 && fix.bytes().all(|b| b.is_ascii_hexdigit()) => (fix.to_ascii_lowercase(), Vec::new()),
        None => bail!("no fix {fix} here (errkb search --json shows a fix's id; a hub uid works too)"),
    };
    let mut hub = Hub::connect(&info)?;
    sync::check_hub_schema(&mut hub)?;
    let (copy_uids, copy_members): (Vec<String>, Vec<String>) =
        copies.into_iter().filter(|(uid, _)| *uid != everyone).unzip();
    let removed = hub.with(async |c| {
        let tx = c.transaction().await.described()?;
        let admin: bool = tx.query_one("SELECT errkb.is_admin()", &[]).await.described()?.get(0);
        if !admin {
            return Err(anyhow::anyhow!(
                "only the hub's owner (or a login in errkb_admin) retracts a fix for everyone; \
                 errkb forget FIX withdraws your own copy"
            ));
        }
        tx.execute(
            "INSERT INTO errkb.retractions (uid, member) VALUES ($1, '') ON CONFLICT DO NOTHING",
            &[&everyone],
        )
        .await
        .described()?;
        tx.execute(
            "INSERT INTO errkb.retractions (uid, member) SELECT u, m FROM unnest($1::text[], $2::text[]) AS x(u, m) \
             ON CONFLICT DO NOTHING",
            &[&copy_uids, &copy_members],
        )
        .await
        .described()?;
        tx.execute(
            "DELETE FROM errkb.counts WHERE uid = $1 OR (uid, member) IN (SELECT * FROM unnest($2::text[], $3::text[]))",
            &[&everyone, &copy_uids, &copy_members],
        )
        .await
        .described()?;
        let removed = tx
            .execute(
                "DELETE FROM errkb.fixes WHERE uid = $1 OR (uid, member) IN (SELECT * FROM unnest($2::text[], $3::text[]))",
                &[&everyone, &copy_uids, &copy_members],
            )
            .await
            .described()?;
        tx.commit().await.described()?;
        Ok(removed)
    })?;
    writeln!(
        out,
        "retracted {everyone} for everyone ({} removed from the hub); every laptop drops it at its next sync",
        counted(removed, "copy", "copies")
    )?;
    Ok(ExitCode::SUCCESS)
}

/// `errkb hub remove-member NAME`: the hub's owner removes a member and
/// everything it sent; every laptop drops that at its next sync.
pub fn remove_member(name: &str, url: Option<&str>, out: &mut impl Write) -> Result<ExitCode> {
    let info = owner_url(url)?;
    let mut hub = Hub::connect(&info)?;
    sync::check_hub_schema(&mut hub)?;
    let said: String = hub.with(async |c| {
        Ok(c.query_one("SELECT errkb.remove_member($1)", &[&name])
            .await
            .described()?
            .get(0))
    })?;
    writeln!(out, "{said}; every laptop drops what it sent at its next sync")?;
    Ok(ExitCode::SUCCESS)
}
