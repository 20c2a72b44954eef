//! errkb: an error knowledge base for AI coding agents, as a SQLite
//! loadable extension. `.load ./errkb` registers everything below, plus
//! sqlite-vec (`vec0`, `vec_*`), so one load gives the whole SQL surface.
//!
//! The layers, bottom up (docs/ARCHITECTURE.md draws them): `sqlite`, the
//! C API and the virtual-table machinery; the logic (`text`, `search`,
//! `learning`, `advice`, `embedding` …); `functions`, every SQL function;
//! `extension`, the entry points.

pub mod advice;
pub mod ahead;
pub mod clock;
pub mod config;
pub mod embedding;
mod extension;
mod functions;
pub mod learning;
pub mod project;
pub mod runtime;
mod search;
mod sqlite;
mod standing;
mod temp_objects;
pub mod text;
mod version;

pub use extension::sqlite3_errkb_init;
pub use search::take_last_failure as take_last_search_failure;
pub use temp_objects::{TempObjects, HISTORY_VIEWS_SQL, TEMP_OBJECTS};
