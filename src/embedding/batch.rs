//! `embed_batch(texts)`: many embeddings through one model run, for the
//! batch job. `texts` is a JSON array of strings (at most 50); each row is
//! `(i, embedding)` in array order, `embedding` NULL where a text has
//! nothing to embed. A failing batch falls back to one run per text, so one
//! bad text costs only its own row.

use crate::embedding::embed::{self, MAX_BATCH};
use crate::sqlite::ffi::{Connection, StatementCache, Value};
use crate::sqlite::table_function::TableFunction;

pub struct EmbedBatch;

impl TableFunction for EmbedBatch {
    const NAME: &'static str = "embed_batch";
    const SCHEMA: &'static str = "CREATE TABLE x(i, embedding, texts HIDDEN)";
    const COLUMNS: std::ffi::c_int = 2;
    const ARGUMENTS: std::ffi::c_int = 1;
    const REQUIRED: std::ffi::c_int = 1;
    const NEVER_RAISES: bool = false;

    fn rows(
        _db: Connection,
        _statements: &mut StatementCache,
        arguments: &[Option<&[u8]>],
    ) -> Result<Vec<Vec<Value>>, String> {
        let Some(json) = arguments[0] else {
            return Ok(Vec::new());
        };
        let texts: Vec<serde_json::Value> =
            serde_json::from_slice(json).map_err(|_| "expects a JSON array of strings".to_owned())?;
        if texts.len() > MAX_BATCH {
            return Err(format!("at most {MAX_BATCH} texts at a time"));
        }
        if texts.is_empty() {
            return Ok(Vec::new()); // nothing to embed: do not load the model
        }
        let texts: Vec<&str> = texts.iter().map(|t| t.as_str().unwrap_or("")).collect();
        let vectors = embed_resiliently(&texts)?;
        Ok(vectors
            .into_iter()
            .enumerate()
            .map(|(i, v)| {
                vec![
                    Value::Integer(i as i64),
                    v.map_or(Value::Null, |v| Value::Blob(embed::to_blob(&v))),
                ]
            })
            .collect())
    }
}

/// One run for the batch; if it fails, one run per text so that only the
/// texts that fail by themselves come back empty. A model that cannot load
/// at all is an error (there is nothing to skip to).
fn embed_resiliently(texts: &[&str]) -> std::result::Result<Vec<Option<Vec<f32>>>, String> {
    embed::with_embedder(|e| match e.embed(texts) {
        Ok(vectors) => Ok(vectors),
        Err(_) => Ok(texts
            .iter()
            .map(|t| e.embed(&[t]).ok().and_then(|mut v| v.pop().flatten()))
            .collect()),
    })
}
