//! The entry points SQLite calls: `.load ./errkb` finds
//! `sqlite3_errkb_init` by the file's name; the runner registers the
//! functions alone with the SQLite it links (`register_built_in`).

use sqlite_loadable::Error;

use crate::functions;
use crate::sqlite::entry_point::entry_point;
use crate::sqlite::ffi::Connection;
use crate::sqlite::linked;
use crate::temp_objects::TEMP_OBJECTS;

entry_point!(
    /// `.load ./errkb`: the functions, sqlite-vec, `kb_learn` and the
    /// history views.
    #[no_mangle]
    sqlite3_errkb_init,
    with_temp_objects
);

/// The functions and sqlite-vec only, on every connection the runner's
/// programs open: they make each of the `TEMP_OBJECTS` when a script names
/// it, and a hook names none.
pub fn register_built_in() -> Result<(), String> {
    linked::register_built_in(functions::register)
}

fn with_temp_objects(db: Connection) -> sqlite_loadable::Result<()> {
    functions::register(db)?;
    for objects in TEMP_OBJECTS {
        db.exec(objects.sql).map_err(Error::new_message)?;
    }
    Ok(())
}
