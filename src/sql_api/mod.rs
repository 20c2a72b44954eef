//! The glue between SQLite and the logic: the scalar functions' table, and
//! the few C API calls sqlite-loadable does not wrap.

pub(crate) mod ffi;
pub(crate) mod functions;
pub(crate) mod table_function;
