//! errkb: an error knowledge base for AI coding agents, as a SQLite
//! loadable extension. `.load ./errkb` registers everything below, plus
//! sqlite-vec (`vec0`, `vec_*`), so one load gives the whole SQL surface.

pub mod catalog;
pub mod command;
pub mod config;
pub mod embed;
mod embed_batch;
mod functions;
pub mod js;
pub mod model_files;
pub mod normalize;
pub mod paths_in_text;
pub mod redact;
pub mod resolution;
mod search;
pub mod signature;
pub mod similarity;
mod sqlite;
pub mod unigram;
mod version;

use std::ffi::{c_char, c_int, c_uint};
use std::panic::{catch_unwind, AssertUnwindSafe};

use sqlite_loadable::prelude::*;
use sqlite_loadable::{define_scalar_function, define_table_function, Error, Result};

use embed_batch::EmbedBatchTable;
use functions::{guarded, SCALAR_FUNCTIONS};
use search::KbSearchTable;

extern "C" {
    /// sqlite-vec's entry point, compiled from vendor/ by build.rs.
    fn sqlite3_vec_init(db: *mut sqlite3, pz_err_msg: *mut *mut c_char, api: *const sqlite3_api_routines) -> c_int;
}

/// `kb_learn`, the view every writer of learned fixes inserts into, with
/// its trigger: TEMP objects, made for the connection (see the file).
pub const KB_LEARN_SQL: &str = include_str!("../sql/kb_learn.sql");

/// The entry point SQLite looks up for `.load ./errkb` (from the file name):
/// the functions, sqlite-vec and `kb_learn`.
///
/// # Safety
/// Called by SQLite with a live connection and its API table.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_errkb_init(
    db: *mut sqlite3,
    pz_err_msg: *mut *mut c_char,
    p_api: *mut sqlite3_api_routines,
) -> c_uint {
    init(db, pz_err_msg, p_api, true)
}

/// The functions and sqlite-vec only, for errkb's runner, which makes
/// `kb_learn` when a script names it: most of its connections never learn.
///
/// # Safety
/// Called by SQLite with a live connection and its API table.
pub unsafe extern "C" fn sqlite3_errkb_functions_init(
    db: *mut sqlite3,
    pz_err_msg: *mut *mut c_char,
    p_api: *mut sqlite3_api_routines,
) -> c_uint {
    init(db, pz_err_msg, p_api, false)
}

/// Both entry points: no panic crosses into SQLite.
fn init(
    db: *mut sqlite3,
    pz_err_msg: *mut *mut c_char,
    p_api: *mut sqlite3_api_routines,
    with_kb_learn: bool,
) -> c_uint {
    sqlite::set_api(p_api);
    register_entrypoint(db, pz_err_msg, p_api, |db| {
        catch_unwind(AssertUnwindSafe(|| {
            register(db, pz_err_msg, p_api)?;
            if with_kb_learn {
                sqlite::exec(db, KB_LEARN_SQL).map_err(Error::new_message)?;
            }
            Ok(())
        }))
        .unwrap_or_else(|_| Err(Error::new_message("errkb: internal error while loading")))
    })
}

fn register(db: *mut sqlite3, pz_err_msg: *mut *mut c_char, p_api: *mut sqlite3_api_routines) -> Result<()> {
    // SAFETY: the same arguments SQLite gave us, passed on unchanged.
    let rc = unsafe { sqlite3_vec_init(db, pz_err_msg, p_api) };
    if rc != 0 {
        return Err(Error::new_message(format!(
            "errkb: sqlite-vec failed to load (code {rc})"
        )));
    }
    for f in SCALAR_FUNCTIONS {
        define_scalar_function(db, f.name, f.n_args, guarded(f.name, f.func), f.flags)?;
    }
    define_table_function::<KbSearchTable>(db, "kb_search", None)?;
    define_table_function::<EmbedBatchTable>(db, "embed_batch", None)?;
    Ok(())
}
