//! The types and constants of `sqlite3ext.h`, as sqlite-loadable uses them.
//! No functions: a loadable extension reaches SQLite only through the
//! `sqlite3_api_routines` table the host hands to its entry point.
#![allow(non_upper_case_globals)]
#![allow(non_camel_case_types)]
#![allow(non_snake_case)]
#![allow(dead_code)]
#![allow(clippy::all)]

include!("bindings.rs");
