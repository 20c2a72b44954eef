//! Finding the files `embed()` needs: the ONNX Runtime library and a model
//! directory. Nothing here loads anything; `errkb_debug()` reports these
//! paths without paying for a model load.
//!
//! Model directory, first match wins:
//! 1. `errkb_set_model(dir)` in SQL, else `$ERRKB_MODEL`, else `"model"` in
//!    `~/.reflexion/config.json`;
//! 2. the original system's Transformers.js cache,
//!    `~/.reflexion/models/Xenova/paraphrase-multilingual-MiniLM-L12-v2/`
//!    (also where `errkb model download` puts the production model);
//! 3. `model/` beside the extension file (what `make model` builds).
//!
//! ONNX Runtime: `$ERRKB_ORT_LIB`, else `libonnxruntime.so*` beside the
//! extension file, else in `~/.reflexion/lib/`.
//!
//! "The extension file" is the file this code runs from: `errkb.so` in
//! the sqlite3 shell, the `errkb` program itself in the runner (which has
//! the extension built in). `make` puts both in `dist/`, beside the model.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

pub use crate::config::PRODUCTION_MODEL;
/// Model file names accepted in a model directory, in order of preference.
const MODEL_FILES: &[&str] = &["model.onnx", "onnx/model_quantized.onnx", "onnx/model.onnx"];

static MODEL_OVERRIDE: Mutex<Option<PathBuf>> = Mutex::new(None);

/// `errkb_set_model(dir)`: use this directory from now on, in this process.
pub fn set_model_override(dir: PathBuf) -> Result<ModelFiles, String> {
    let files = ModelFiles::in_dir(&dir)?;
    *MODEL_OVERRIDE.lock().unwrap_or_else(|p| p.into_inner()) = Some(dir);
    Ok(files)
}

/// A usable model directory: a tokenizer and an ONNX graph.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelFiles {
    pub dir: PathBuf,
    pub tokenizer: PathBuf,
    pub model: PathBuf,
}

impl ModelFiles {
    pub fn in_dir(dir: &Path) -> Result<Self, String> {
        let tokenizer = dir.join("tokenizer.json");
        let model = MODEL_FILES.iter().map(|f| dir.join(f)).find(|p| p.is_file());
        match (tokenizer.is_file(), model) {
            (true, Some(model)) => Ok(ModelFiles {
                dir: dir.to_owned(),
                tokenizer,
                model,
            }),
            _ => Err(format!(
                "no model at {} (it needs tokenizer.json and one of {})",
                dir.display(),
                MODEL_FILES.join(", ")
            )),
        }
    }
}

/// The explicitly configured model directory, if any: SQL, environment, config.
fn explicit_model_dir() -> Option<PathBuf> {
    if let Some(dir) = MODEL_OVERRIDE.lock().unwrap_or_else(|p| p.into_inner()).clone() {
        return Some(dir);
    }
    if let Some(dir) = std::env::var_os("ERRKB_MODEL").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    crate::config::model_dir()
}

/// The model to use, or an error that names every place looked at and the fix.
pub fn resolve_model() -> Result<ModelFiles, String> {
    if let Some(dir) = explicit_model_dir() {
        return ModelFiles::in_dir(&dir);
    }
    let mut tried = Vec::new();
    let cache = crate::config::data_root().map(|r| r.join("models").join(PRODUCTION_MODEL));
    let beside = extension_dir().map(|d| d.join("model"));
    for dir in [cache, beside].into_iter().flatten() {
        match ModelFiles::in_dir(&dir) {
            Ok(files) => return Ok(files),
            Err(_) => tried.push(dir.display().to_string()),
        }
    }
    Err(format!(
        "no model found (looked in {}); run 'errkb model download' (online) or 'make model' (offline test model), \
         or set ERRKB_MODEL to a directory holding tokenizer.json and model.onnx",
        tried.join(", ")
    ))
}

/// The ONNX Runtime shared library to load, or an error naming the fix.
pub fn resolve_onnxruntime() -> Result<PathBuf, String> {
    if let Some(path) = std::env::var_os("ERRKB_ORT_LIB").filter(|p| !p.is_empty()) {
        let path = PathBuf::from(path);
        return if path.is_file() {
            Ok(path)
        } else {
            Err(format!("no ONNX Runtime library at {} (ERRKB_ORT_LIB)", path.display()))
        };
    }
    let dirs: Vec<PathBuf> = [extension_dir(), crate::config::data_root().map(|r| r.join("lib"))]
        .into_iter()
        .flatten()
        .collect();
    for dir in &dirs {
        if let Some(lib) = newest_onnxruntime_in(dir) {
            return Ok(lib);
        }
    }
    let tried: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
    Err(format!(
        "no ONNX Runtime library (libonnxruntime.so*) in {}; run 'make model', or set ERRKB_ORT_LIB to the file",
        tried.join(" or ")
    ))
}

/// Whether `name` is ONNX Runtime's shared library as its Python wheel
/// ships it: `libonnxruntime.so.1.32.0` (Linux), `libonnxruntime.1.32.0.dylib`
/// (macOS).
pub fn is_onnxruntime_library(name: &str) -> bool {
    name.starts_with("libonnxruntime.so") || (name.starts_with("libonnxruntime") && name.ends_with(".dylib"))
}

fn newest_onnxruntime_in(dir: &Path) -> Option<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(is_onnxruntime_library)
        })
        .collect();
    found.sort();
    found.pop()
}

/// The directory holding the file this code was loaded from (`errkb.so`,
/// or the `errkb` program).
pub fn extension_dir() -> Option<PathBuf> {
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    let here = extension_dir as *const libc::c_void;
    // SAFETY: dladdr only reads the loader's tables; dli_fname, when set,
    // is a NUL-terminated path owned by the loader.
    unsafe {
        if libc::dladdr(here, &mut info) == 0 || info.dli_fname.is_null() {
            return None;
        }
        let file = std::ffi::CStr::from_ptr(info.dli_fname).to_str().ok()?;
        let path = if file.contains('/') {
            std::fs::canonicalize(file).ok()?
        } else {
            // The main program (the runner, with the extension built in)
            // is named as it was invoked: a bare name when found on PATH.
            std::env::current_exe()
                .ok()
                .filter(|exe| exe.file_name() == Path::new(file).file_name())?
        };
        path.parent().map(Path::to_owned)
    }
}
