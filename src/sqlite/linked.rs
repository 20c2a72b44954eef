//! The SQLite linked into the runner's programs (rusqlite's, bundled):
//! the extension registered with it as SQLite registers a statically
//! linked extension (`sqlite3_auto_extension`), and the C calls rusqlite
//! does not wrap that the runner needs (`sqlite3_complete`, the lookaside
//! setting of `sqlite3_db_config`).

use std::ffi::{c_char, c_int, CString};
use std::sync::OnceLock;

use rusqlite::ffi;

use crate::sqlite::entry_point::{self, Register};

/// What every connection opened from now on registers, once per process.
static REGISTER: OnceLock<Register> = OnceLock::new();

/// The entry point with the types of the SQLite this program links
/// (rusqlite's); the extension's own bindings name the same C types.
unsafe extern "C" fn init_built_in(
    db: *mut ffi::sqlite3,
    err: *mut *mut c_char,
    api: *const ffi::sqlite3_api_routines,
) -> c_int {
    let Some(register) = REGISTER.get() else {
        return ffi::SQLITE_ERROR;
    };
    // SQLite calls this with a live connection and its API table, exactly
    // what an extension's entry point is given.
    entry_point::init(db.cast(), err, api.cast_mut().cast(), *register) as c_int
}

/// Register `register` with every connection this process opens from now
/// on, the first time it is called (later calls change nothing).
pub fn register_built_in(register: Register) -> Result<(), String> {
    static REGISTERED: OnceLock<c_int> = OnceLock::new();
    let rc = *REGISTERED.get_or_init(|| {
        let _ = REGISTER.set(register);
        // SAFETY: sqlite3_auto_extension only records the entry point.
        unsafe { ffi::sqlite3_auto_extension(Some(init_built_in)) }
    });
    if rc != ffi::SQLITE_OK {
        return Err(format!("cannot register the errkb functions with SQLite (code {rc})"));
    }
    Ok(())
}

/// Whether `sql` ends with a complete statement, as SQLite parses it (a
/// `;` in quotes, in a comment or inside a trigger's body ends none).
/// (SQLite reads up to a NUL, so a text with one is read that far.)
pub fn is_complete(sql: &str) -> bool {
    let bytes = sql.as_bytes();
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    let Ok(sql) = CString::new(&bytes[..end]) else {
        return false;
    };
    // SAFETY: sqlite3_complete only reads the NUL-terminated bytes.
    unsafe { ffi::sqlite3_complete(sql.as_ptr()) != 0 }
}

/// Give a connection just opened a lookaside of 800 slots of 128 bytes.
/// A hook spends most of its instructions in SQLite compiling statements,
/// which allocates many small objects (expression nodes, lists); SQLite
/// serves them from the connection's lookaside slots while one is free,
/// else from malloc and free. Its default (48 KB) runs out within one of
/// the larger statements. These 100 KB take most of them: a failure hook
/// runs 9 % fewer instructions (callgrind, 6.95 M -> 6.33 M) for about 7
/// more page faults; larger areas only add faults (docs/DESIGN.md).
pub fn more_lookaside(conn: &rusqlite::Connection) -> Result<(), String> {
    // SAFETY: a connection just opened, with no lookaside slot in use; the
    // buffer is SQLite's own (NULL: it allocates it).
    let rc = unsafe {
        ffi::sqlite3_db_config(
            conn.handle(),
            ffi::SQLITE_DBCONFIG_LOOKASIDE,
            std::ptr::null_mut::<std::ffi::c_void>(),
            128 as c_int,
            800 as c_int,
        )
    };
    if rc != ffi::SQLITE_OK {
        return Err(format!("cannot set SQLite's lookaside memory (code {rc})"));
    }
    Ok(())
}
