//! The base layer: SQLite's C API as the extension reaches it (through the
//! API table the host hands the entry point, and sqlite-loadable), and the
//! virtual-table machinery the table functions share. It imports nothing
//! else of the crate; everything that talks to SQLite goes through it.

pub(crate) mod ffi;
pub(crate) mod table_function;
