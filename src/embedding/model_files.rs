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
//! 4. `~/.reflexion/lib/model/`, where `errkb install` puts the model it
//!    was built with (the bundled test model) when no other is in use.
//!
//! ONNX Runtime: `$ERRKB_ORT_LIB`, else `libonnxruntime.so*` beside the
//! extension file, else, when errkb is a Python package (`pip install
//! errkb`), the library the `onnxruntime` wheel installed into the same
//! environment (`onnxruntime/capi/` in the nearest `site-packages` or
//! `dist-packages` folder above the extension file), else in
//! `~/.reflexion/lib/`.
//!
//! `errkb doctor` asks the same questions for the runner the hooks run
//! (`resolve_model_for`), which need not be the program asking.
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
    resolve_model_for(extension_dir().as_deref())
}

/// Where `errkb install` puts the model it brings: `~/.reflexion/lib/model`.
pub fn installed_model_dir() -> Option<PathBuf> {
    crate::config::data_root().map(|r| r.join("lib").join("model"))
}

/// Where `errkb model download` puts the production model.
pub fn production_model_dir() -> Option<PathBuf> {
    crate::config::data_root().map(|r| r.join("models").join(PRODUCTION_MODEL))
}

/// The model a program in `program_dir` would use (see the module's order).
pub fn resolve_model_for(program_dir: Option<&Path>) -> Result<ModelFiles, String> {
    if let Some(dir) = explicit_model_dir() {
        return ModelFiles::in_dir(&dir);
    }
    let mut tried = Vec::new();
    let beside = program_dir.map(|d| d.join("model"));
    for dir in [production_model_dir(), beside, installed_model_dir()]
        .into_iter()
        .flatten()
    {
        if tried.contains(&dir.display().to_string()) {
            continue;
        }
        match ModelFiles::in_dir(&dir) {
            Ok(files) => return Ok(files),
            Err(_) => tried.push(dir.display().to_string()),
        }
    }
    Err(format!(
        "no model found (looked in {}); run 'errkb model download' (online), or 'errkb install' from a build \
         that has the test model, or set ERRKB_MODEL to a directory holding tokenizer.json and model.onnx",
        tried.join(", ")
    ))
}

/// The ONNX Runtime shared library to load, or an error naming the fix.
pub fn resolve_onnxruntime() -> Result<PathBuf, String> {
    resolve_onnxruntime_for(extension_dir().as_deref())
}

/// The ONNX Runtime library a program in `program_dir` would load.
pub fn resolve_onnxruntime_for(program_dir: Option<&Path>) -> Result<PathBuf, String> {
    if let Some(path) = std::env::var_os("ERRKB_ORT_LIB").filter(|p| !p.is_empty()) {
        let path = PathBuf::from(path);
        return if path.is_file() {
            Ok(path)
        } else {
            Err(format!("no ONNX Runtime library at {} (ERRKB_ORT_LIB)", path.display()))
        };
    }
    let dirs: Vec<PathBuf> = [
        program_dir.map(Path::to_owned),
        program_dir.and_then(python_onnxruntime_dir),
        crate::config::data_root().map(|r| r.join("lib")),
    ]
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
        "no ONNX Runtime library (libonnxruntime.so*) in {}; run 'errkb install' from a build that has it, \
         or set ERRKB_ORT_LIB to the file",
        tried.join(" or ")
    ))
}

/// Where the `onnxruntime` wheel keeps its library when `program_dir` is
/// inside a Python environment: errkb's wheel depends on that wheel instead
/// of carrying a second copy. The environment is the nearest folder above
/// named `site-packages` (or Debian's `dist-packages`); no such folder, no
/// answer, so a build tree or `~/.reflexion/bin` never looks further up.
pub fn python_onnxruntime_dir(program_dir: &Path) -> Option<PathBuf> {
    program_dir
        .ancestors()
        .find(|d| {
            d.file_name()
                .is_some_and(|n| n == "site-packages" || n == "dist-packages")
        })
        .map(|packages| packages.join("onnxruntime").join("capi"))
}

/// What a model is wherever its files are: the name it goes by, the
/// SHA-256 of its weights (graph file and external data), its width. Kept
/// in `errkb-model.json` beside the files, so that it is read, not
/// recomputed, by each hook; the vectors in the database name the model
/// that made them by `id()`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ModelIdentity {
    pub name: String,
    /// The file hashed, relative to the directory, and its size: a
    /// manifest whose file is gone or changed size is stale.
    #[serde(default)]
    pub file: String,
    #[serde(default)]
    pub size: u64,
    #[serde(default)]
    pub sha256: String,
    /// The vectors' width, once the model has been loaded.
    #[serde(default)]
    pub dimensions: Option<usize>,
}

impl ModelIdentity {
    pub const FILE: &'static str = "errkb-model.json";

    /// How the database names this model: `<name> sha256:<12 hex digits>`.
    pub fn id(&self) -> String {
        format!("{} sha256:{}", self.name, &self.sha256[..self.sha256.len().min(12)])
    }
}

impl ModelFiles {
    /// The model's identity: from its manifest when that is current, else
    /// hashed now and written (best effort: a read-only directory is
    /// hashed again next time).
    pub fn identity(&self) -> Result<ModelIdentity, String> {
        let manifest = self.dir.join(ModelIdentity::FILE);
        let written: Option<ModelIdentity> = std::fs::read_to_string(&manifest)
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok());
        if let Some(known) = &written {
            let hashed = self.dir.join(&known.file);
            if !known.sha256.is_empty() && !known.file.is_empty() && weights_size(&hashed) == Some(known.size) {
                return Ok(known.clone());
            }
        }
        let file = self
            .model
            .strip_prefix(&self.dir)
            .map_err(|_| "the model file is outside its directory".to_owned())?
            .to_string_lossy()
            .into_owned();
        let identity = ModelIdentity {
            name: written.map_or_else(|| default_name(&self.dir), |w| w.name),
            size: weights_size(&self.model).unwrap_or(0),
            sha256: hash_weights(&self.model).map_err(|e| format!("cannot read {}: {e}", self.model.display()))?,
            file,
            dimensions: None,
        };
        identity.write(&self.dir);
        Ok(identity)
    }
}

impl ModelIdentity {
    /// Write the manifest into `dir` (best effort, atomically).
    pub fn write(&self, dir: &Path) {
        let staging = dir.join(".errkb-model.json.tmp");
        let text = serde_json::to_string_pretty(self).unwrap_or_default() + "\n";
        if std::fs::write(&staging, text).is_ok() && std::fs::rename(&staging, dir.join(Self::FILE)).is_err() {
            let _ = std::fs::remove_file(&staging);
        }
    }
}

/// A model's name from where it lies: `<org>/<repo>` under a `models`
/// folder (the Hugging Face layout), else the folder's name.
fn default_name(dir: &Path) -> String {
    let parts: Vec<String> = dir.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    match parts.iter().rposition(|p| p == "models") {
        Some(i) if i + 1 < parts.len() => parts[i + 1..].join("/"),
        _ => parts.last().cloned().unwrap_or_else(|| "model".into()),
    }
}

/// The graph file and its external weights (`<file>.data`), if any.
fn weights_files(model: &Path) -> Vec<PathBuf> {
    let mut data = model.as_os_str().to_owned();
    data.push(".data");
    let data = PathBuf::from(data);
    if data.is_file() {
        vec![model.to_owned(), data]
    } else {
        vec![model.to_owned()]
    }
}

fn weights_size(model: &Path) -> Option<u64> {
    weights_files(model)
        .iter()
        .map(|f| std::fs::metadata(f).ok().map(|m| m.len()))
        .sum()
}

fn hash_weights(model: &Path) -> std::io::Result<String> {
    use sha2::Digest;
    let mut hasher = sha2::Sha256::new();
    for file in weights_files(model) {
        std::io::copy(&mut std::fs::File::open(file)?, &mut hasher)?;
    }
    Ok(hasher.finalize().iter().map(|b| format!("{b:02x}")).collect())
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_python_environment_has_onnxruntime_in_its_own_wheel() {
        let bin = Path::new("/v/lib/python3.12/site-packages/errkb/marketplace/errkb/bin");
        assert_eq!(
            python_onnxruntime_dir(bin),
            Some(PathBuf::from("/v/lib/python3.12/site-packages/onnxruntime/capi"))
        );
        let debian = Path::new("/usr/lib/python3/dist-packages/errkb/bin");
        assert_eq!(
            python_onnxruntime_dir(debian),
            Some(PathBuf::from("/usr/lib/python3/dist-packages/onnxruntime/capi"))
        );
        assert_eq!(python_onnxruntime_dir(Path::new("/home/me/.reflexion/bin")), None);
    }
}
