//! `errkb_version()` and `errkb_debug()`: what is loaded, for bug reports
//! and for the "it doesn't load" question.

pub const VERSION: &str = concat!("v", env!("CARGO_PKG_VERSION"));
const GIT_HASH: &str = env!("ERRKB_GIT_HASH");
const SQLITE_VEC_VERSION: &str = env!("ERRKB_SQLITE_VEC_VERSION");

/// What is loaded and where the model files are, without loading a model.
pub fn debug_report() -> String {
    let found = |r: Result<std::path::PathBuf, String>| {
        r.map_or_else(|e| format!("not found: {e}"), |p| p.display().to_string())
    };
    let model = match crate::embedding::embed::loaded_model() {
        Some(dir) => format!("{} (loaded)", dir.display()),
        None => found(crate::embedding::model_files::resolve_model().map(|f| f.model)),
    };
    format!(
        "Version: {VERSION}\nCommit: {GIT_HASH}\nSQLite: {}\nsqlite-vec: v{SQLITE_VEC_VERSION}\n\
         Model: {model}\nONNX Runtime: {}",
        crate::sqlite::ffi::libversion(),
        found(crate::embedding::model_files::resolve_onnxruntime()),
    )
}
