//! Opening a knowledge base: the connection settings every command shares.
//!
//! The extension is compiled into this program: every connection it opens
//! has errkb's SQL functions and sqlite-vec, registered the way SQLite
//! registers a statically linked extension (`sqlite3_auto_extension`).
//! Nothing is looked up or loaded at run time, which saves each hook the
//! loading and relocation of a shared library; the same code is built as
//! `errkb.so` for the sqlite3 shell.

use std::mem::ManuallyDrop;
use std::ops::{Deref, DerefMut};
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result};
use rusqlite::{Connection, OpenFlags, Transaction, TransactionBehavior};

use crate::runtime::script::{self, Params};
use crate::runtime::storage;

/// The schema, applied on every read-write open while `user_version` is
/// behind it. Idempotent, so databases of the original system upgrade in
/// place.
const SCHEMA_SQL: &str = include_str!("../../sql/schema.sql");

/// Hooks and batch jobs share the file: wait for a writer rather than fail,
/// up to 5 s, or `ERRKB_BUSY_TIMEOUT_MS` milliseconds.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

fn busy_timeout() -> Duration {
    static TIMEOUT: std::sync::OnceLock<Duration> = std::sync::OnceLock::new();
    *TIMEOUT.get_or_init(|| {
        std::env::var("ERRKB_BUSY_TIMEOUT_MS")
            .ok()
            .and_then(|ms| ms.parse().ok())
            .map_or(BUSY_TIMEOUT, Duration::from_millis)
    })
}
const BUSY_STEP: Duration = Duration::from_millis(1);

/// Past this size (64 pages of 4 KiB) the write-ahead log is checkpointed
/// into the database and truncated (see `Database::checkpoint_if_long`).
/// Every process that opens the database reads the whole log to rebuild
/// its index (about 4.5 µs a page here), and a checkpoint with
/// the log's restart costs about 2.5 ms (four fsyncs); a writing hook adds
/// about 5 pages. Between 32 and 200 pages the mean hook time hardly moved
/// (`make bench` conditions); a short log keeps the typical hook fast.
const WAL_CHECKPOINT_BYTES: u64 = 64 * (4096 + 24);
/// A checkpoint waits this long for other connections' reads to end (a
/// hook's take a few milliseconds); when they don't, as while the batch job
/// reads for its model, the next process tries again.
const CHECKPOINT_WAIT: Duration = Duration::from_millis(20);

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Create the file and its directories if needed; bring the schema up to date.
    ReadWrite,
    /// Only read an existing database; never create anything.
    ReadOnly,
}

/// A connection to a knowledge base file. It derefs to the rusqlite
/// connection; on drop it keeps the write-ahead log short (see `Drop`).
pub struct Database {
    conn: ManuallyDrop<Connection>,
    path: PathBuf,
    /// Whether dropping closes the connection and keeps the log short
    /// (see `leave_open`).
    close: bool,
}

impl Database {
    /// Leave the connection to the end of the process, which follows: a
    /// hook's process ends right after, and closing would only free what
    /// the exit frees (about a twentieth of a hook's work). Everything is
    /// committed by then; the exit releases the locks, as it does for a
    /// killed process. Nor is the log checkpointed: a hook that writes
    /// does that before it writes (see `checkpoint_if_long`).
    pub fn leave_open(mut self) {
        self.close = false;
    }

    /// Checkpoint the write-ahead log into the database and truncate it,
    /// when it has grown past `WAL_CHECKPOINT_BYTES`. The first write to a
    /// truncated log syncs the log's header (and its folder): a hook that
    /// writes checkpoints before it writes, so that one process in a cycle
    /// pays for both, and not a checkpointing one and then the next.
    pub fn checkpoint_if_long(&mut self) {
        let mut wal = self.path.clone().into_os_string();
        wal.push("-wal");
        let large = std::fs::metadata(&wal).is_ok_and(|m| m.len() > WAL_CHECKPOINT_BYTES);
        if large && !self.conn.is_readonly(rusqlite::MAIN_DB).unwrap_or(true) {
            // Best effort: a busy or failed checkpoint leaves a longer log,
            // which loses nothing and is retried by the next process.
            let _ = self.conn.busy_timeout(CHECKPOINT_WAIT);
            let _ = self.conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
            let _ = wait_for_writers(&mut self.conn);
        }
    }
}

impl Deref for Database {
    type Target = Connection;
    fn deref(&self) -> &Connection {
        &self.conn
    }
}

impl DerefMut for Database {
    fn deref_mut(&mut self) -> &mut Connection {
        &mut self.conn
    }
}

/// errkb's processes live a few milliseconds, and SQLite's default at the
/// close of the last connection (checkpoint the log into the database,
/// sync both, delete the log) cost a writing hook four fsyncs, most of its
/// time. So connections close without a checkpoint (the log stays, with
/// its committed transactions), and the one that finds the log grown past
/// `WAL_CHECKPOINT_BYTES` checkpoints it and truncates it: a hook before it
/// writes, any other command when it closes. A truncated log, unlike
/// SQLite's own passive checkpoint, is not copied again by the next
/// process (which cannot know what an earlier one already copied).
impl Drop for Database {
    fn drop(&mut self) {
        if self.close {
            self.checkpoint_if_long();
            // SAFETY: dropped once, here, and never used after.
            unsafe { ManuallyDrop::drop(&mut self.conn) };
        }
    }
}

pub fn open(path: &Path, access: Access) -> Result<Database> {
    let conn = connect(path, access)
        .with_context(|| format!("cannot open database {}{}", path.display(), storage::note(path)))?;
    Ok(Database {
        conn: ManuallyDrop::new(conn),
        path: path.to_owned(),
        close: true,
    })
}

fn connect(path: &Path, access: Access) -> Result<Connection> {
    register_built_in_extension()?;
    let mut conn = match access {
        Access::ReadWrite => {
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
            }
            crate::runtime::private::restore_journal_modes(path);
            Connection::open(path)?
        }
        Access::ReadOnly => {
            Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX)?
        }
    };
    // a hook's time is mostly SQLite compiling its statements: see
    // sqlite::linked::more_lookaside
    crate::sqlite::linked::more_lookaside(&conn).map_err(anyhow::Error::msg)?;
    wait_for_writers(&mut conn)?;
    // Hook scripts stage their work in temp tables: keep them off the disk.
    conn.pragma_update(None, "temp_store", "MEMORY")?;
    // In WAL mode, NORMAL syncs at checkpoints instead of every commit: a
    // killed process loses nothing committed, the file stays consistent,
    // and only an OS crash or power cut can drop the last commits. Each hook
    // commits a few times; a sync each was most of its cost.
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    // The log outlives the connection; see `Drop for Database`.
    conn.set_db_config(rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true)?;
    if access == Access::ReadWrite {
        ensure_schema(&conn).context("cannot set up the schema")?;
    }
    Ok(conn)
}

/// Wait for a busy writer in 1 ms steps, up to BUSY_TIMEOUT: SQLite's own
/// handler backs off to 100 ms sleeps, which made the slowest hooks wait
/// far longer than the lock was held.
fn wait_for_writers(conn: &mut Connection) -> rusqlite::Result<()> {
    conn.busy_handler(Some(|attempt: i32| {
        std::thread::sleep(BUSY_STEP);
        u128::try_from(attempt).unwrap_or(0) * BUSY_STEP.as_millis() < busy_timeout().as_millis()
    }))
}

pub fn open_in_memory() -> Result<Connection> {
    register_built_in_extension()?;
    Ok(Connection::open_in_memory()?)
}

/// Registers errkb's functions with every connection opened from now on
/// (the TEMP objects are made when a script names one: a hook names none).
fn register_built_in_extension() -> Result<()> {
    crate::extension::register_built_in().map_err(anyhow::Error::msg)
}

/// Load an extension file into a connection: `errkb doctor` checks that
/// the copy the sqlite3 shell loads works.
pub fn load_extension_file(conn: &Connection, file: &Path) -> Result<()> {
    // SAFETY: loading runs the file's entry point; the file is errkb's own
    // build, named by the user or by install.
    unsafe {
        let _guard = rusqlite::LoadExtensionGuard::new(conn)?;
        conn.load_extension(file, Some("sqlite3_errkb_init"))
    }
    .with_context(|| format!("cannot load the errkb extension from {}", file.display()))
}

/// The version `sql/schema.sql` sets (its last `PRAGMA user_version = N;`).
pub fn schema_version() -> i64 {
    SCHEMA_SQL
        .rsplit_once("PRAGMA user_version = ")
        .and_then(|(_, rest)| rest.split(';').next())
        .and_then(|n| n.trim().parse().ok())
        .expect("sql/schema.sql ends by setting PRAGMA user_version = N;")
}

/// Bring the schema up to date, in one transaction: processes that open a
/// new (or older) database at the same moment (the first hooks of parallel
/// sessions, `errkb learn` beside them) upgrade it once, one after the
/// other, and none sees it half made.
fn ensure_schema(conn: &Connection) -> Result<()> {
    // Two processes making a new database can each hold a lock the other
    // needs (a reader wanting to write while a writer waits for readers to
    // leave); SQLite then answers "locked" at once rather than wait. The
    // one that yields tries again, within the busy timeout.
    let started = std::time::Instant::now();
    loop {
        match upgrade_schema(conn) {
            Err(e) if is_busy(&e) && started.elapsed() < busy_timeout() => {
                std::thread::sleep(BUSY_STEP * 5);
            }
            other => return other,
        }
    }
}

fn is_busy(e: &anyhow::Error) -> bool {
    e.chain().any(|cause| {
        cause
            .downcast_ref::<rusqlite::Error>()
            .and_then(rusqlite::Error::sqlite_error_code)
            == Some(rusqlite::ErrorCode::DatabaseBusy)
    })
}

fn upgrade_schema(conn: &Connection) -> Result<()> {
    let version =
        |conn: &Connection| -> rusqlite::Result<i64> { conn.query_row("PRAGMA user_version", [], |r| r.get(0)) };
    if version(conn)? >= schema_version() {
        return Ok(());
    }
    // WAL cannot be turned on inside a transaction (the script's own
    // statement is then a no-op)
    conn.query_row("PRAGMA journal_mode = WAL", [], |_| Ok(()))?;
    // (a transaction rolls back when dropped uncommitted)
    let tx = Transaction::new_unchecked(conn, TransactionBehavior::Immediate)?;
    if version(&tx)? < schema_version() {
        script::run(&tx, SCHEMA_SQL, &Params::default(), &mut std::io::sink())?;
        drop_unused_hub_tables(&tx)?;
    }
    tx.commit()?;
    Ok(())
}

/// The tables only a team's hub uses: what this replica is to the hub and
/// sent it, and what the members sent (team_standing, which the one rule
/// reads, and retracted_fixes, which `errkb forget` writes, are not among
/// them).
const HUB_TABLES: &[&str] = &[
    "hub_state",
    "hub_sent",
    "team_fixes",
    "team_counts",
    "hub_withdrawn",
    "hub_removed_members",
    "hub_refused",
];

/// A database that never joined a hub keeps none of HUB_TABLES: every
/// process reads the whole schema when it opens the file, and these seven
/// tables were a fifth of that (3 % of a failure hook's instructions).
/// The schema script makes them (its older steps move data into them), and
/// the upgrade then drops them again when all are empty; `errkb hub` makes
/// them back before it uses them (`ensure_hub_tables`).
fn drop_unused_hub_tables(conn: &Connection) -> Result<()> {
    for table in HUB_TABLES {
        let exists: bool = conn.query_row(
            "SELECT EXISTS (SELECT 1 FROM main.sqlite_schema WHERE type = 'table' AND name = ?1)",
            [table],
            |r| r.get(0),
        )?;
        // (the names are HUB_TABLES', never input)
        if exists && conn.query_row(&format!("SELECT EXISTS (SELECT 1 FROM main.{table})"), [], |r| r.get(0))? {
            return Ok(());
        }
    }
    for table in HUB_TABLES {
        conn.execute_batch(&format!("DROP TABLE IF EXISTS main.{table}"))?;
    }
    Ok(())
}

/// `drop_unused_hub_tables` in a transaction of its own: for a command
/// that made the hub's tables to work without a hub (`errkb forget`).
pub fn leave_out_unused_hub_tables(conn: &Connection) -> Result<()> {
    let tx = conn.unchecked_transaction()?;
    drop_unused_hub_tables(&tx)?;
    tx.commit()?;
    Ok(())
}

/// Make the hub's tables (HUB_TABLES and their index) where they are not:
/// the statements of the schema that make them, so that they are written
/// in one place.
pub fn ensure_hub_tables(conn: &Connection) -> Result<()> {
    for statement in script::statements(SCHEMA_SQL).iter().filter(|s| makes_a_hub_table(s)) {
        conn.execute_batch(statement)
            .with_context(|| format!("cannot make the hub's tables: {statement}"))?;
    }
    Ok(())
}

/// Whether a statement of the schema is `CREATE TABLE IF NOT EXISTS t …` or
/// `CREATE INDEX IF NOT EXISTS i ON t(…)` for a table t of HUB_TABLES.
fn makes_a_hub_table(statement: &str) -> bool {
    let words: Vec<&str> = statement.split_ascii_whitespace().take(8).collect();
    let name = |word: &str| word.split('(').next().unwrap_or_default().to_owned();
    let table = match words.as_slice() {
        ["CREATE", "TABLE", "IF", "NOT", "EXISTS", table, ..] => name(table),
        ["CREATE", "INDEX", "IF", "NOT", "EXISTS", _, "ON", table, ..] => name(table),
        _ => return false,
    };
    HUB_TABLES.contains(&table.as_str())
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_schema_version_is_read_from_the_schema() {
        assert!(super::schema_version() >= 5);
    }

    /// A new database has none of the hub's tables; `ensure_hub_tables`
    /// makes every one and its index from the schema's own statements, and
    /// an upgrade keeps them once one holds a row.
    #[test]
    fn the_hubs_tables_exist_where_a_hub_was_joined() {
        let path = std::env::temp_dir().join(format!("errkb-hub-tables-{}.db", std::process::id()));
        let tables = |conn: &rusqlite::Connection| -> Vec<String> {
            let mut stmt = conn.prepare("SELECT name FROM sqlite_schema ORDER BY name").unwrap();
            stmt.query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect()
        };
        let conn = super::open(&path, super::Access::ReadWrite).unwrap();
        let made = tables(&conn);
        assert!(made.iter().any(|t| t == "team_standing") && made.iter().any(|t| t == "retracted_fixes"));
        for table in super::HUB_TABLES {
            assert!(!made.contains(&table.to_string()), "{table} in a new database");
        }
        super::ensure_hub_tables(&conn).unwrap();
        super::ensure_hub_tables(&conn).unwrap(); // a second time changes nothing
        let made = tables(&conn);
        for name in super::HUB_TABLES.iter().chain(&["idx_team_fixes_hub_uid"]) {
            assert!(made.contains(&name.to_string()), "{name} not made: {made:?}");
        }
        // an upgrade drops them while all are empty, keeps them once one holds a row
        let behind = format!("PRAGMA user_version = {}", super::schema_version() - 1);
        conn.execute_batch(&format!("INSERT INTO hub_refused (ts, reason) VALUES ('t', 'r'); {behind}"))
            .unwrap();
        drop(conn);
        let conn = super::open(&path, super::Access::ReadWrite).unwrap();
        assert!(tables(&conn).contains(&"hub_state".to_string()));
        conn.execute_batch(&format!("DELETE FROM hub_refused; {behind}")).unwrap();
        drop(conn);
        let conn = super::open(&path, super::Access::ReadWrite).unwrap();
        assert!(!tables(&conn).contains(&"hub_state".to_string()));
        drop(conn);
        for end in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{end}", path.display()));
        }
    }

    /// Each group of TEMP objects makes the objects it is named by, and
    /// the one it is recognised by last.
    #[test]
    fn temp_objects_are_made_as_described() {
        for objects in crate::temp_objects::TEMP_OBJECTS {
            let conn = super::open_in_memory().unwrap();
            crate::runtime::script::ensure_temp_objects(&conn, objects).unwrap();
            let names: Vec<String> = conn
                .prepare("SELECT name FROM temp.sqlite_schema ORDER BY rowid")
                .unwrap()
                .query_map([], |r| r.get(0))
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap();
            assert_eq!(names.last().map(String::as_str), Some(objects.last), "{names:?}");
            for name in objects.names {
                assert!(names.iter().any(|n| n == name), "{name} is not among {names:?}");
            }
            // made once: a second call changes nothing
            crate::runtime::script::ensure_temp_objects(&conn, objects).unwrap();
        }
    }
}
