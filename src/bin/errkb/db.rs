//! Opening a knowledge base: the connection settings every command shares.

use std::path::Path;
use std::time::Duration;

use anyhow::{Context, Result};
use rusqlite::{Connection, OpenFlags};

use crate::script::{self, Params};

/// The schema, applied on every read-write open while `user_version` is
/// behind it. Idempotent, so databases of the original system upgrade in
/// place.
const SCHEMA_SQL: &str = include_str!("../../../sql/schema.sql");
const SCHEMA_VERSION: i64 = 4;

/// Hooks and batch jobs share the file: wait for a writer rather than fail.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);
const BUSY_STEP: Duration = Duration::from_millis(1);

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Create the file and its directories if needed; bring the schema up to date.
    ReadWrite,
    /// Only read an existing database; never create anything.
    ReadOnly,
}

pub fn open(path: &Path, extension: &Path, access: Access) -> Result<Connection> {
    connect(path, extension, access)
        .with_context(|| format!("cannot open database {}{}", path.display(), storage_hint(path)))
}

fn connect(path: &Path, extension: &Path, access: Access) -> Result<Connection> {
    let mut conn = match access {
        Access::ReadWrite => {
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
            }
            Connection::open(path)?
        }
        Access::ReadOnly => {
            Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX)?
        }
    };
    // Wait for a busy writer in 1 ms steps, up to BUSY_TIMEOUT: SQLite's own
    // handler backs off to 100 ms sleeps, which made the slowest hooks wait
    // far longer than the lock was held.
    conn.busy_handler(Some(|attempt: i32| {
        std::thread::sleep(BUSY_STEP);
        u128::try_from(attempt).unwrap_or(0) * BUSY_STEP.as_millis() < BUSY_TIMEOUT.as_millis()
    }))?;
    // Hook scripts stage their work in temp tables: keep them off the disk.
    conn.pragma_update(None, "temp_store", "MEMORY")?;
    // In WAL mode, NORMAL syncs at checkpoints instead of every commit: a
    // killed process loses nothing committed, the file stays consistent,
    // and only an OS crash or power cut can drop the last commits. Each hook
    // commits a few times; a sync each was most of its cost.
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    load_extension(&conn, extension)?;
    if access == Access::ReadWrite {
        ensure_schema(&conn).context("cannot set up the schema")?;
    }
    Ok(conn)
}

/// Why SQLite's "unable to open database file" or "disk I/O error" may have
/// happened, when the file system says: a WAL database's folder must take
/// its -wal and -shm files, and a full disk fails writes of any kind.
pub fn storage_hint(path: &Path) -> &'static str {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let Ok(dir) = std::ffi::CString::new(dir.as_os_str().as_encoded_bytes()) else {
        return "";
    };
    // SAFETY: access() and statvfs() only read the NUL-terminated path and
    // write into the zeroed struct we own.
    unsafe {
        if libc::access(dir.as_ptr(), libc::W_OK) != 0 {
            return " (its folder is read-only: the database needs to write its journal beside it)";
        }
        let mut fs: libc::statvfs = std::mem::zeroed();
        if libc::statvfs(dir.as_ptr(), &mut fs) == 0 && fs.f_bavail == 0 {
            return " (the disk holding it is full)";
        }
    }
    ""
}

pub fn open_in_memory(extension: &Path) -> Result<Connection> {
    let conn = Connection::open_in_memory()?;
    load_extension(&conn, extension)?;
    Ok(conn)
}

fn load_extension(conn: &Connection, extension: &Path) -> Result<()> {
    // SAFETY: the extension is errkb's own, found by paths::extension.
    unsafe {
        let _guard = rusqlite::LoadExtensionGuard::new(conn)?;
        conn.load_extension(extension, Some("sqlite3_errkb_init"))
    }
    .with_context(|| format!("cannot load the errkb extension from {}", extension.display()))
}

fn ensure_schema(conn: &Connection) -> Result<()> {
    let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if version < SCHEMA_VERSION {
        script::run(conn, SCHEMA_SQL, &Params::default(), &mut std::io::sink())?;
    }
    Ok(())
}
