//! The entry points SQLite calls when it loads the extension: each loads
//! sqlite-vec, then runs what the caller registers, with no panic crossing
//! into SQLite. `entry_point!` writes one; the SQLite this crate's runner
//! links calls one through `built_in`.

use std::ffi::{c_char, c_int, c_uint};
use std::panic::{catch_unwind, AssertUnwindSafe};

use sqlite_loadable::prelude::*;
use sqlite_loadable::{Error, Result};

use crate::sqlite::ffi::{self, Connection};

extern "C" {
    /// sqlite-vec's entry point, compiled from vendor/ by build.rs.
    fn sqlite3_vec_init(db: *mut sqlite3, pz_err_msg: *mut *mut c_char, api: *const sqlite3_api_routines) -> c_int;
}

/// What an entry point registers on the connection it is given.
pub type Register = fn(Connection) -> Result<()>;

/// An entry point's body: remember the host's API table, load sqlite-vec,
/// then `register`.
pub fn init(
    db: *mut sqlite3,
    pz_err_msg: *mut *mut c_char,
    p_api: *mut sqlite3_api_routines,
    register: Register,
) -> c_uint {
    ffi::set_api(p_api);
    register_entrypoint(db, pz_err_msg, p_api, |db| {
        catch_unwind(AssertUnwindSafe(|| {
            // SAFETY: the same arguments SQLite gave us, passed on unchanged.
            let rc = unsafe { sqlite3_vec_init(db, pz_err_msg, p_api) };
            if rc != 0 {
                return Err(Error::new_message(format!(
                    "errkb: sqlite-vec failed to load (code {rc})"
                )));
            }
            register(Connection::from_raw(db))
        }))
        .unwrap_or_else(|_| Err(Error::new_message("errkb: internal error while loading")))
    })
}

/// `entry_point!(name, register)`: an entry point SQLite can call, named
/// `name`, that registers what `register` does (attributes such as
/// `#[no_mangle]` go before the name).
macro_rules! entry_point {
    ($(#[$attribute:meta])* $name:ident, $register:expr) => {
        $(#[$attribute])*
        /// # Safety
        /// Called by SQLite with a live connection and its API table.
        pub unsafe extern "C" fn $name(
            db: *mut sqlite_loadable::prelude::sqlite3,
            pz_err_msg: *mut *mut std::ffi::c_char,
            p_api: *mut sqlite_loadable::prelude::sqlite3_api_routines,
        ) -> std::ffi::c_uint {
            $crate::sqlite::entry_point::init(db, pz_err_msg, p_api, $register)
        }
    };
}
pub(crate) use entry_point;
