//! The SQLite linked into the runner's programs (rusqlite's, bundled):
//! the extension registered with it as SQLite registers a statically
//! linked extension (`sqlite3_auto_extension`), and the one C call
//! rusqlite does not wrap that the runner needs (`sqlite3_complete`).

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
