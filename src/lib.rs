//! errkb: an error knowledge base for AI coding agents, as a SQLite
//! loadable extension. `.load ./errkb` registers everything below, plus
//! sqlite-vec (`vec0`, `vec_*`), so one load gives the whole SQL surface.

pub mod advice;
pub mod clock;
pub mod config;
pub mod embedding;
pub mod learning;
mod functions;
mod search;
mod sqlite;
mod standing;
pub mod text;
mod version;

/// The modules' former home, until their paths say where they are now.
mod sql_api {
    pub(crate) use crate::functions;
    pub(crate) use crate::sqlite::{ffi, table_function};
}

use std::ffi::{c_char, c_int, c_uint};
use std::panic::{catch_unwind, AssertUnwindSafe};

use sqlite_loadable::prelude::*;
use sqlite_loadable::table::define_virtual_table_writeablex;
use sqlite_loadable::{define_scalar_function, define_table_function, Error, Result};

pub use search::take_last_failure as take_last_search_failure;

use embedding::batch::EmbedBatch;
use learning::kb_learn::KbLearnTable;
use learning::resolves::KbResolves;
use search::KbSearch;
use standing::FixStanding;
use sql_api::functions::{guarded, SCALAR_FUNCTIONS};
use sql_api::table_function::Table;

extern "C" {
    /// sqlite-vec's entry point, compiled from vendor/ by build.rs.
    fn sqlite3_vec_init(db: *mut sqlite3, pz_err_msg: *mut *mut c_char, api: *const sqlite3_api_routines) -> c_int;
}

/// SQL objects a connection makes for itself (TEMP), kept out of the
/// database file: every connection parses the file's schema when it
/// opens, and most of errkb's (the hooks) use none of these.
pub struct TempObjects {
    /// The names statements use them by.
    pub names: &'static [&'static str],
    /// The last object `sql` makes: when it exists, all do.
    pub last: &'static str,
    pub sql: &'static str,
}

/// The history views (see the file); install also copies it to
/// ~/.reflexion/sql, for a sqlite3 that cannot load the extension.
pub const HISTORY_VIEWS_SQL: &str = include_str!("../sql/history_views.sql");

pub const TEMP_OBJECTS: &[TempObjects] = &[
    // the questions users ask of their history
    TempObjects {
        names: &[
            "kb_frequent_errors",
            "kb_unresolved_errors",
            "kb_reused_fixes",
            "kb_advice_hit_rate",
        ],
        last: "kb_advice_hit_rate",
        sql: HISTORY_VIEWS_SQL,
    },
];

/// The entry point SQLite looks up for `.load ./errkb` (from the file name):
/// the functions, sqlite-vec, `kb_learn` and the history views.
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

/// The functions and sqlite-vec only, for errkb's runner, which makes each
/// of the `TEMP_OBJECTS` when a script names it: a hook names none.
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
    with_temp_objects: bool,
) -> c_uint {
    sql_api::ffi::set_api(p_api);
    register_entrypoint(db, pz_err_msg, p_api, |db| {
        catch_unwind(AssertUnwindSafe(|| {
            register(db, pz_err_msg, p_api)?;
            if with_temp_objects {
                for objects in TEMP_OBJECTS {
                    sql_api::ffi::exec(db, objects.sql).map_err(Error::new_message)?;
                }
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
    define_table_function::<Table<KbSearch>>(db, "kb_search", None)?;
    define_table_function::<Table<FixStanding>>(db, "fix_standing", None)?;
    define_table_function::<Table<KbResolves>>(db, "kb_resolves", None)?;
    define_table_function::<Table<EmbedBatch>>(db, "embed_batch", None)?;
    // eponymous and writable: INSERT INTO kb_learn
    define_virtual_table_writeablex::<KbLearnTable>(db, "kb_learn", None)?;
    Ok(())
}
