//! `errkb_version()` and `errkb_debug()`: what is loaded, for bug reports
//! and for the "it doesn't load" question.

pub const VERSION: &str = concat!("v", env!("CARGO_PKG_VERSION"));
const GIT_HASH: &str = env!("ERRKB_GIT_HASH");
const SQLITE_VEC_VERSION: &str = env!("ERRKB_SQLITE_VEC_VERSION");

pub fn debug_report() -> String {
    format!(
        "Version: {VERSION}\nCommit: {GIT_HASH}\nSQLite: {}\nsqlite-vec: v{SQLITE_VEC_VERSION}",
        crate::sqlite::libversion()
    )
}
