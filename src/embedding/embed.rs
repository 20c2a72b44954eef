//! `embed(text)`: sentence-transformers embeddings on ONNX Runtime.
//!
//! Token embeddings from the ONNX model, mean-pooled over the attention
//! mask, L2-normalised: float32 values (as many as the model's width, 384
//! for the models errkb ships with), little-endian, as vec0 stores them. The runtime and the model are loaded once per process, on first
//! use, so a caller that never reaches the vector stage never pays for them.

use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};

use ort::session::builder::GraphOptimizationLevel;
use ort::session::Session;
use ort::value::Tensor;
use tokenizers::{Encoding, Tokenizer, TruncationParams};

use crate::embedding::model_files::{self, ModelFiles, ModelIdentity};
use crate::embedding::unigram::{self, CompactTokenizer};

/// Longest batch the batch job hands over at once.
pub const MAX_BATCH: usize = 50;
/// Token limit when the model directory does not say.
const DEFAULT_MAX_TOKENS: usize = 512;
/// Text kept per token of the limit before tokenizing. Tokenizers work on
/// the whole input before they truncate (10 MB took 2.8 GB and seconds),
/// so the text is cut first, at a character boundary, to more than the
/// model can use: a token of these models covers a few bytes, a word of
/// up to 100 characters at most (longer ones are one unknown token).
const BYTES_PER_TOKEN: usize = 32;

/// A loaded model: tokenizer and inference session.
pub struct Embedder {
    session: Session,
    tokenizer: AnyTokenizer,
    pad_id: i64,
    wants_token_type_ids: bool,
    /// What of a text is tokenized at most (see BYTES_PER_TOKEN).
    max_input_bytes: usize,
    /// The vector stage's distances for this model.
    pub thresholds: Thresholds,
    /// Which model this is (the database records it beside the vectors).
    pub identity: ModelIdentity,
    /// The vectors' width.
    pub dimensions: usize,
}

/// Where the vector stage draws its lines, on vec0's L2 distance between
/// unit vectors (L2² = 2 − 2·cosine). They belong to one model: each model
/// directory may hold its own, calibrated on a labelled corpus (`make
/// calibrate`), in `errkb-thresholds.json`:
/// `{"match_distance": 0.5, "keyword_check_distance": 0.6}`. Without one,
/// the original system's values, tuned for the production model, apply.
#[derive(Debug, Clone, Copy, PartialEq, serde::Deserialize)]
pub struct Thresholds {
    /// Nearer than this: a match.
    pub match_distance: f64,
    /// Nearer than this (but not match_distance): a match only if the
    /// texts share a keyword.
    pub keyword_check_distance: f64,
}

impl Thresholds {
    /// The original system's values (L2 0.76 ≈ cosine 0.71, 0.85 ≈ 0.64).
    pub const ORIGINAL: Thresholds = Thresholds {
        match_distance: 0.76,
        keyword_check_distance: 0.85,
    };
    pub const FILE: &'static str = "errkb-thresholds.json";

    /// The model's own thresholds. `ERRKB_THRESHOLDS=match,keyword`
    /// overrides them, for calibration (scripts/eval.py --calibrate).
    pub fn of_model(dir: &std::path::Path) -> Thresholds {
        if let Some((m, k)) = std::env::var("ERRKB_THRESHOLDS")
            .ok()
            .as_deref()
            .and_then(|v| v.split_once(','))
        {
            if let (Ok(match_distance), Ok(keyword_check_distance)) = (m.trim().parse(), k.trim().parse()) {
                return Thresholds {
                    match_distance,
                    keyword_check_distance,
                };
            }
        }
        std::fs::read_to_string(dir.join(Self::FILE))
            .ok()
            .and_then(|text| serde_json::from_str::<Thresholds>(&text).ok())
            .filter(|t| t.match_distance.is_finite() && t.keyword_check_distance.is_finite())
            .unwrap_or(Self::ORIGINAL)
    }
}

/// Threads one model run may use, when the process said (the batch job:
/// all cores); 0 means not said.
static THREADS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Let model runs in this process use `threads` threads (before the first
/// embed()). A hook's realtime search keeps the default, one, so that it
/// leaves the agent's machine its other cores; the batch job takes all.
pub fn set_threads(threads: usize) {
    THREADS.store(threads, std::sync::atomic::Ordering::Relaxed);
}

/// Whether ONNX Runtime may repack the model's weights when it loads them
/// (on by default). Repacking makes each later run faster (about a tenth,
/// in a batch) but costs a hook, which runs the model once, about 20 ms of
/// its cold start with the production model.
static PREPACK: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);

/// This process runs the model once (a hook): load it without repacking.
pub fn load_for_one_run() {
    PREPACK.store(false, std::sync::atomic::Ordering::Relaxed);
}

impl Embedder {
    fn load(files: ModelFiles) -> Result<Self, String> {
        let environment = runtime()?;
        // ERRKB_EMBED_THREADS, for an extension loaded by another program
        let threads = match THREADS.load(std::sync::atomic::Ordering::Relaxed) {
            0 => std::env::var("ERRKB_EMBED_THREADS")
                .ok()
                .and_then(|t| t.parse().ok())
                .unwrap_or(1),
            n => n,
        };
        // The tokenizer loads on a second thread while ONNX Runtime reads the
        // graph: a cold start costs the slower of the two, not their sum.
        let max_tokens = max_tokens(&files.dir);
        let (session, tokenizer) = std::thread::scope(|scope| {
            let tokenizer = scope.spawn(|| AnyTokenizer::load(&files.tokenizer, max_tokens));
            let session = Session::builder(environment)
                .and_then(|b| Ok(b.with_intra_threads(threads)?))
                .and_then(|b| Ok(b.with_inter_threads(1)?))
                .and_then(|b| Ok(b.with_optimization_level(GraphOptimizationLevel::Level3)?))
                .and_then(|b| {
                    if PREPACK.load(std::sync::atomic::Ordering::Relaxed) {
                        Ok(b)
                    } else {
                        Ok(b.with_config_entry("session.disable_prepacking", "1")?)
                    }
                })
                .and_then(|mut b| b.commit_from_file(&files.model))
                .map_err(|e| format!("cannot load the model {}: {e}", files.model.display()));
            let tokenizer = tokenizer.join().unwrap_or_else(|_| Err("internal error".to_owned()));
            (session, tokenizer)
        });
        let session = session?;
        let (tokenizer, pad_id) =
            tokenizer.map_err(|e| format!("cannot load the tokenizer {}: {e}", files.tokenizer.display()))?;
        let wants_token_type_ids = session.inputs().iter().any(|i| i.name() == "token_type_ids");
        let dimensions = output_width(&session)?;
        let mut identity = files.identity()?;
        if identity.dimensions != Some(dimensions) {
            identity.dimensions = Some(dimensions);
            identity.write(&files.dir);
        }
        Ok(Embedder {
            identity,
            dimensions,
            session,
            tokenizer,
            pad_id,
            wants_token_type_ids,
            max_input_bytes: max_tokens * BYTES_PER_TOKEN,
            thresholds: Thresholds::of_model(&files.dir),
        })
    }

    /// Embeddings of `texts`, one batch through the model. `None` for a text
    /// with nothing to embed (empty or only whitespace).
    pub fn embed(&mut self, texts: &[&str]) -> Result<Vec<Option<Vec<f32>>>, String> {
        let wanted: Vec<usize> = (0..texts.len()).filter(|&i| !texts[i].trim().is_empty()).collect();
        let mut out = vec![None; texts.len()];
        if wanted.is_empty() {
            return Ok(out);
        }
        let encodings = wanted
            .iter()
            .map(|&i| {
                self.tokenizer
                    .encode(cut_at_char_boundary(texts[i], self.max_input_bytes))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let rows = encodings.len();
        let cols = encodings.iter().map(|e| e.len()).max().unwrap_or(0);
        let mut ids = vec![self.pad_id; rows * cols];
        let mut mask = vec![0i64; rows * cols];
        for (r, encoding) in encodings.iter().enumerate() {
            for (c, &id) in encoding.get_ids().iter().enumerate() {
                ids[r * cols + c] = i64::from(id);
                mask[r * cols + c] = 1;
            }
        }
        let shape = [rows, cols];
        let tensor = |data: Vec<i64>| Tensor::from_array((shape, data)).map_err(|e| e.to_string());
        let mut inputs = ort::inputs! {
            "input_ids" => tensor(ids)?,
            "attention_mask" => tensor(mask.clone())?,
        };
        if self.wants_token_type_ids {
            inputs.push(("token_type_ids".into(), tensor(vec![0; rows * cols])?.into()));
        }
        let outputs = self.session.run(inputs).map_err(|e| format!("inference failed: {e}"))?;
        let hidden = outputs[0]
            .try_extract_array::<f32>()
            .map_err(|e| format!("unexpected model output: {e}"))?;
        if hidden.ndim() != 3 || hidden.shape()[2] != self.dimensions {
            return Err(format!(
                "the model gives {:?}-shaped output, not (texts, tokens, {})",
                hidden.shape(),
                self.dimensions
            ));
        }
        for (r, &i) in wanted.iter().enumerate() {
            let vector = mean_pool_normalized(&hidden, &mask[r * cols..(r + 1) * cols], r);
            // a model with broken weights gives NaN: an error, never a
            // vector that matches nothing (or everything)
            if vector.iter().any(|x| !x.is_finite()) {
                return Err("the model gave NaN or infinite values: its weights are broken; \
                            get it again (errkb model download) or use another model"
                    .to_owned());
            }
            out[i] = Some(vector);
        }
        Ok(out)
    }
}

/// The first `max` bytes of `text`, or fewer, ending at a character boundary.
fn cut_at_char_boundary(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// The library's tokenizer, or the same pipeline with errkb's compact
/// Unigram model, which loads a 250k-piece vocabulary many times faster
/// (see unigram.rs).
pub enum AnyTokenizer {
    Library(Box<Tokenizer>),
    Compact(Box<CompactTokenizer>),
}

impl AnyTokenizer {
    /// Load `path`, truncating at `max_tokens`, without padding; also gives
    /// the padding id the file names (0 if none).
    pub fn load(path: &std::path::Path, max_tokens: usize) -> Result<(Self, i64), String> {
        let truncation = Some(TruncationParams {
            max_length: max_tokens,
            ..Default::default()
        });
        // the prepared vocabulary when `errkb model prepare` wrote it (a
        // damaged one is passed over: tokenizer.json says the same)
        let (compact, json) = match unigram::load_prepared(path).and_then(Result::ok) {
            Some(tokenizer) => (Some(tokenizer), Vec::new()),
            None => {
                let json = std::fs::read(path).map_err(|e| e.to_string())?;
                (unigram::load(&json)?, json)
            }
        };
        Ok(match compact {
            Some(mut compact) => {
                let pad_id = compact.get_padding().map_or(0, |p| p.pad_id as i64);
                compact
                    .with_padding(None)
                    .with_truncation(truncation)
                    .map_err(|e| e.to_string())?;
                (AnyTokenizer::Compact(Box::new(compact)), pad_id)
            }
            None => {
                let mut library = Tokenizer::from_bytes(&json).map_err(|e| e.to_string())?;
                let pad_id = library.get_padding().map_or(0, |p| p.pad_id as i64);
                library
                    .with_padding(None)
                    .with_truncation(truncation)
                    .map_err(|e| e.to_string())?;
                (AnyTokenizer::Library(Box::new(library)), pad_id)
            }
        })
    }

    pub fn encode(&self, text: &str) -> Result<Encoding, String> {
        match self {
            AnyTokenizer::Library(t) => t.encode(text, true),
            AnyTokenizer::Compact(t) => t.encode(text, true),
        }
        .map_err(|e| format!("cannot tokenize: {e}"))
    }
}

/// sentence-transformers pooling: the mean of the token vectors the
/// attention mask keeps, scaled to unit length.
fn mean_pool_normalized(hidden: &ndarray::ArrayViewD<'_, f32>, mask: &[i64], row: usize) -> Vec<f32> {
    let mut sum = vec![0f32; hidden.shape()[2]];
    let mut kept = 0f32;
    for (t, &m) in mask.iter().enumerate() {
        if m != 0 {
            kept += 1.0;
            for (d, s) in sum.iter_mut().enumerate() {
                *s += hidden[[row, t, d]];
            }
        }
    }
    let mean: Vec<f32> = sum.iter().map(|s| s / kept.max(1.0)).collect();
    let norm = mean.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-12);
    mean.iter().map(|x| x / norm).collect()
}

/// The width of the model's token vectors (its first output's last
/// dimension), which its embeddings have too.
fn output_width(session: &Session) -> Result<usize, String> {
    let output = session.outputs().first().ok_or("the model has no output")?;
    match output.dtype() {
        ort::value::ValueType::Tensor { shape, .. } if shape.len() == 3 && shape[2] > 0 => Ok(shape[2] as usize),
        other => Err(format!(
            "the model's output {} is {other:?}; errkb needs token vectors (texts, tokens, width)",
            output.name()
        )),
    }
}

/// The model's token limit: sentence-transformers' `max_seq_length`, else
/// the tokenizer's `model_max_length`, else 512.
fn max_tokens(dir: &std::path::Path) -> usize {
    let read = |file: &str, key: &str| -> Option<usize> {
        let text = std::fs::read_to_string(dir.join(file)).ok()?;
        let value = serde_json::from_str::<serde_json::Value>(&text)
            .ok()?
            .get(key)?
            .as_u64()?;
        usize::try_from(value).ok().filter(|&n| n > 0 && n <= 8192)
    };
    read("sentence_bert_config.json", "max_seq_length")
        .or_else(|| read("tokenizer_config.json", "model_max_length"))
        .unwrap_or(DEFAULT_MAX_TOKENS)
}

/// The ONNX Runtime environment, created once per process.
fn runtime() -> Result<&'static ort::environment::Environment, String> {
    static RUNTIME: OnceLock<Result<ort::environment::Environment, String>> = OnceLock::new();
    RUNTIME
        .get_or_init(|| {
            let library = model_files::resolve_onnxruntime()?;
            // ONNX Runtime writes telemetry files under ~/.cache unless this is
            // set before the library is loaded; with_telemetry(false) does not
            // stop it.
            std::env::set_var("ORT_DISABLE_TELEMETRY", "1");
            ort::init_from(&library)
                .map_err(|e| format!("cannot load ONNX Runtime from {}: {e}", library.display()))?
                .with_telemetry(false)
                .build()
                .map_err(|e| format!("cannot start ONNX Runtime ({}): {e}", library.display()))
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// The process's model: loaded on first use, reloaded only if the resolved
/// model directory changes. A failed load is remembered for that directory,
/// so a batch does not retry a broken model for every row.
static EMBEDDER: Mutex<Option<(PathBuf, Result<Embedder, String>)>> = Mutex::new(None);

/// Run `f` with the loaded model.
pub fn with_embedder<R>(f: impl FnOnce(&mut Embedder) -> Result<R, String>) -> Result<R, String> {
    let files = model_files::resolve_model()?;
    let mut slot = EMBEDDER.lock().unwrap_or_else(|p| p.into_inner());
    if slot.as_ref().is_none_or(|(dir, _)| *dir != files.dir) {
        let dir = files.dir.clone();
        *slot = Some((dir, Embedder::load(files)));
    }
    match slot.as_mut().map(|(_, e)| e) {
        Some(Ok(embedder)) => f(embedder),
        Some(Err(e)) => Err(e.clone()),
        None => unreachable!("filled above"),
    }
}

/// Write `dir/model.onnx` + `dir/model.onnx.data`: the model in `dir`,
/// optimised once by ONNX Runtime, with its weights as external data. ONNX
/// Runtime maps external weights instead of parsing them out of protobuf,
/// which more than halves a cold start with the production model. The
/// original files are left as they are (a Transformers.js cache stays valid).
pub fn prepare(dir: &std::path::Path) -> Result<PathBuf, String> {
    let files = ModelFiles::in_dir(dir)?;
    // the identity of the weights as published, kept across the conversion
    files.identity()?;
    // a Unigram vocabulary (the production model's 250,002 pieces) is
    // read many times faster from errkb's own file than from JSON
    unigram::prepare(&files.tokenizer)?;
    let target = dir.join("model.onnx");
    if files.model == target {
        return Ok(target); // already in errkb's layout
    }
    let staging = dir.join(".errkb-prepare.onnx");
    let session = Session::builder(runtime()?)
        .and_then(|b| Ok(b.with_optimization_level(GraphOptimizationLevel::Level2)?))
        .and_then(|b| Ok(b.with_optimized_model_path(&staging)?))
        .and_then(|b| {
            Ok(b.with_config_entry(
                "session.optimized_model_external_initializers_file_name",
                "model.onnx.data",
            )?)
        })
        .and_then(|b| {
            Ok(b.with_config_entry(
                "session.optimized_model_external_initializers_min_size_in_bytes",
                "1024",
            )?)
        })
        .and_then(|mut b| b.commit_from_file(&files.model))
        .map_err(|e| format!("cannot optimise {}: {e}", files.model.display()))?;
    drop(session);
    std::fs::rename(&staging, &target).map_err(|e| format!("cannot write {}: {e}", target.display()))?;
    Ok(target)
}

/// The model in use: its identity and width, from its manifest; loads the
/// model only when the manifest does not know its width yet.
pub fn current_model() -> Result<(ModelIdentity, usize), String> {
    let files = model_files::resolve_model()?;
    let identity = files.identity()?;
    if let Some(dimensions) = identity.dimensions {
        return Ok((identity, dimensions));
    }
    with_embedder(|e| Ok((e.identity.clone(), e.dimensions)))
}

/// Whether a model is loaded in this process, and which (for errkb_debug).
pub fn loaded_model() -> Option<PathBuf> {
    let slot = EMBEDDER.lock().unwrap_or_else(|p| p.into_inner());
    slot.as_ref().and_then(|(dir, e)| e.as_ref().ok().map(|_| dir.clone()))
}

/// `vector` as the bytes vec0 expects: float32, little-endian.
pub fn to_blob(vector: &[f32]) -> Vec<u8> {
    vector.iter().flat_map(|x| x.to_le_bytes()).collect()
}
