//! The entry points SQLite calls: `.load ./errkb` finds
//! `sqlite3_errkb_init` by the file's name; the runner registers
//! `sqlite3_errkb_functions_init` with the SQLite it links.

use sqlite_loadable::{Error, Result};

use crate::functions;
use crate::sqlite::entry_point::entry_point;
use crate::sqlite::ffi::Connection;
use crate::temp_objects::TEMP_OBJECTS;

entry_point!(
    /// `.load ./errkb`: the functions, sqlite-vec, `kb_learn` and the
    /// history views.
    #[no_mangle]
    sqlite3_errkb_init,
    with_temp_objects
);

entry_point!(
    /// The functions and sqlite-vec only, for errkb's runner, which makes
    /// each of the `TEMP_OBJECTS` when a script names it: a hook names none.
    sqlite3_errkb_functions_init,
    functions::register
);

fn with_temp_objects(db: Connection) -> Result<()> {
    functions::register(db)?;
    for objects in TEMP_OBJECTS {
        db.exec(objects.sql).map_err(Error::new_message)?;
    }
    Ok(())
}
