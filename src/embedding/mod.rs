//! Sentence embeddings: the model (ONNX Runtime and a tokenizer, loaded
//! once per process), where its files are, and batched inference from SQL.

pub(crate) mod batch;
pub mod embed;
pub mod model_files;
pub mod unigram;
