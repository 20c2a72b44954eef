//! The base layer: SQLite's C API as the extension reaches it (through the
//! API table the host hands the entry point, and sqlite-loadable), and the
//! machinery every SQL function shares: the entry points, the panic
//! guards, the table functions' and insert-only tables' virtual tables.
//! It imports nothing else of the crate; every other module reaches SQLite
//! through it, and none holds a raw connection pointer.

pub(crate) mod entry_point;
pub(crate) mod ffi;
pub(crate) mod insert_table;
pub(crate) mod linked;
pub(crate) mod scalar;
pub(crate) mod table_function;
