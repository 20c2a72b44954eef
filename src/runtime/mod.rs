//! What the runner's two programs (`errkb`, `errkb-hub`) share: opening
//! the database (with the extension built in, the schema upgraded), running
//! a script, where files live, private file modes, whether the disk takes
//! writes, and changing config.json. It uses rusqlite's SQLite, linked into the programs; the
//! extension (`errkb.so`) never calls it.

pub mod config_file;
pub mod db;
pub mod paths;
pub mod private;
pub mod script;
pub mod storage;
