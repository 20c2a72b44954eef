//! `embed_batch(texts)`: many embeddings through one model run, for the
//! batch job. `texts` is a JSON array of strings (at most 50); each row is
//! `(i, embedding)` in array order, `embedding` NULL where a text has
//! nothing to embed. A failing batch falls back to one run per text, so one
//! bad text costs only its own row.

use std::ffi::c_int;
use std::panic::{catch_unwind, AssertUnwindSafe};

use sqlite_loadable::prelude::*;
use sqlite_loadable::table::{BestIndexError, IndexInfo, VTab, VTabArguments, VTabCursor};
use sqlite_loadable::{api, Error, Result};

use crate::embedding::embed::{self, MAX_BATCH};

const TABLE_SCHEMA: &str = "CREATE TABLE x(i, embedding, texts HIDDEN)";
const TEXTS_COLUMN: c_int = 2;

#[repr(C)]
pub struct EmbedBatchTable {
    /// Must come first: SQLite sees this struct as a `sqlite3_vtab`.
    base: sqlite3_vtab,
}

impl<'vtab> VTab<'vtab> for EmbedBatchTable {
    type Aux = ();
    type Cursor = EmbedBatchCursor;

    fn connect(_db: *mut sqlite3, _aux: Option<&()>, _args: VTabArguments) -> Result<(String, Self)> {
        // SAFETY: an all-zero sqlite3_vtab is its documented initial state.
        Ok((
            TABLE_SCHEMA.to_owned(),
            EmbedBatchTable {
                base: unsafe { std::mem::zeroed() },
            },
        ))
    }

    fn best_index(&self, mut info: IndexInfo) -> std::result::Result<(), BestIndexError> {
        let has_texts = crate::search::pass_argument(&info, TEXTS_COLUMN)?;
        if !has_texts {
            return Err(BestIndexError::Error);
        }
        info.set_estimated_cost(MAX_BATCH as f64);
        Ok(())
    }

    fn open(&'vtab mut self) -> Result<EmbedBatchCursor> {
        // SAFETY: as in connect.
        Ok(EmbedBatchCursor {
            base: unsafe { std::mem::zeroed() },
            rows: Vec::new(),
            at: 0,
        })
    }
}

#[repr(C)]
pub struct EmbedBatchCursor {
    /// Must come first: SQLite sees this struct as a `sqlite3_vtab_cursor`.
    base: sqlite3_vtab_cursor,
    rows: Vec<Option<Vec<u8>>>,
    at: usize,
}

impl VTabCursor for EmbedBatchCursor {
    fn filter(&mut self, _idx_num: c_int, _idx_str: Option<&str>, values: &[*mut sqlite3_value]) -> Result<()> {
        self.at = 0;
        self.rows.clear();
        let Some(json) = values.first().and_then(crate::sql_api::ffi::value_bytes) else {
            return Ok(());
        };
        let texts: Vec<serde_json::Value> = serde_json::from_slice(json)
            .map_err(|_| Error::new_message("embed_batch(): expects a JSON array of strings"))?;
        if texts.len() > MAX_BATCH {
            return Err(Error::new_message(format!(
                "embed_batch(): at most {MAX_BATCH} texts at a time"
            )));
        }
        if texts.is_empty() {
            return Ok(()); // nothing to embed: do not load the model
        }
        let texts: Vec<&str> = texts.iter().map(|t| t.as_str().unwrap_or("")).collect();
        let vectors = catch_unwind(AssertUnwindSafe(|| embed_resiliently(&texts)))
            .unwrap_or_else(|_| Err("internal error".to_owned()))
            .map_err(|e| Error::new_message(format!("embed_batch(): {e}")))?;
        self.rows = vectors.into_iter().map(|v| v.map(|v| embed::to_blob(&v))).collect();
        Ok(())
    }

    fn next(&mut self) -> Result<()> {
        self.at += 1;
        Ok(())
    }

    fn eof(&self) -> bool {
        self.at >= self.rows.len()
    }

    fn column(&self, ctx: *mut sqlite3_context, i: c_int) -> Result<()> {
        match (i, self.rows.get(self.at)) {
            (0, _) => api::result_int64(ctx, self.at as i64),
            (1, Some(Some(blob))) => api::result_blob(ctx, blob),
            _ => api::result_null(ctx),
        }
        Ok(())
    }

    fn rowid(&self) -> Result<i64> {
        Ok(self.at as i64)
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
