//! Every SQL function errkb adds, registered in one place: the scalar
//! functions (their arguments and results; the logic lives in its own
//! module) and the table functions.

use std::borrow::Cow;

use sqlite_loadable::prelude::*;
use sqlite_loadable::{api, Error, FunctionFlags, Result};

use crate::ahead;
use crate::embedding::batch::EmbedBatch;
use crate::embedding::{embed, model_files};
use crate::learning::kb_learn::KbLearn;
use crate::learning::resolution;
use crate::learning::resolves::KbResolves;
use crate::search::KbSearch;
use crate::sqlite::ffi::Connection;
use crate::sqlite::scalar::{self, ScalarFunction};
use crate::sqlite::{insert_table, table_function};
use crate::standing::{FixStanding, Tellable};
use crate::text::{catalog, command, failure_kind, normalize, paths_in_text, redact, signature, similarity};
use crate::{search, version};

/// Register every function on `db`.
pub fn register(db: Connection) -> Result<()> {
    for f in SCALAR_FUNCTIONS {
        scalar::define(db, f)?;
    }
    table_function::define::<KbSearch>(db, "kb_search")?;
    table_function::define::<FixStanding>(db, "fix_standing")?;
    table_function::define::<Tellable>(db, "tellable")?;
    table_function::define::<KbResolves>(db, "kb_resolves")?;
    table_function::define::<EmbedBatch>(db, "embed_batch")?;
    // eponymous and writable: INSERT INTO kb_learn
    insert_table::define::<KbLearn>(db, "kb_learn")?;
    Ok(())
}

const PURE: FunctionFlags = FunctionFlags::from_bits_truncate(
    FunctionFlags::UTF8.bits() | FunctionFlags::DETERMINISTIC.bits() | FunctionFlags::INNOCUOUS.bits(),
);
const INFO: FunctionFlags = FunctionFlags::UTF8;
/// Loads files named by the process environment or the caller: not for
/// triggers or views of a database someone else wrote.
const DIRECT: FunctionFlags =
    FunctionFlags::from_bits_truncate(FunctionFlags::UTF8.bits() | FunctionFlags::DIRECTONLY.bits());

/// Every scalar function errkb adds; `register` registers them in one loop.
pub const SCALAR_FUNCTIONS: &[ScalarFunction] = &[
    ScalarFunction {
        name: "normalize_error",
        n_args: 1,
        func: normalize_error,
        flags: PURE,
    },
    ScalarFunction {
        name: "error_signature",
        n_args: 1,
        func: error_signature,
        flags: PURE,
    },
    ScalarFunction {
        name: "translate_messages",
        n_args: 1,
        func: translate_messages,
        flags: INFO,
    },
    ScalarFunction {
        name: "error_identified",
        n_args: 1,
        func: error_identified,
        flags: PURE,
    },
    ScalarFunction {
        name: "error_excerpt",
        n_args: 1,
        func: error_excerpt,
        flags: PURE,
    },
    ScalarFunction {
        name: "error_headline",
        n_args: 1,
        func: error_headline,
        flags: PURE,
    },
    ScalarFunction {
        name: "edit_hunk",
        n_args: 2,
        func: edit_hunk,
        flags: PURE,
    },
    ScalarFunction {
        name: "fix_key",
        n_args: 1,
        func: fix_key,
        flags: PURE,
    },
    ScalarFunction {
        name: "command_subject",
        n_args: 1,
        func: command_subject,
        flags: PURE,
    },
    ScalarFunction {
        name: "error_codes",
        n_args: 1,
        func: error_codes,
        flags: PURE,
    },
    ScalarFunction {
        name: "keyword_overlap",
        n_args: 2,
        func: keyword_overlap,
        flags: PURE,
    },
    ScalarFunction {
        name: "length_ratio",
        n_args: 2,
        func: length_ratio,
        flags: PURE,
    },
    ScalarFunction {
        name: "embed",
        n_args: 1,
        func: embed,
        flags: DIRECT,
    },
    ScalarFunction {
        name: "embed_model",
        n_args: 0,
        func: embed_model,
        flags: DIRECT,
    },
    ScalarFunction {
        name: "errkb_prepare_model",
        n_args: 1,
        func: errkb_prepare_model,
        flags: DIRECT,
    },
    ScalarFunction {
        name: "errkb_set_model",
        n_args: 1,
        func: errkb_set_model,
        flags: DIRECT,
    },
    ScalarFunction {
        name: "project_identity",
        n_args: 1,
        func: project_identity,
        flags: DIRECT,
    },
    ScalarFunction {
        name: "project_relative",
        n_args: 2,
        func: project_relative,
        flags: PURE,
    },
    ScalarFunction {
        name: "path_basename",
        n_args: 1,
        func: path_basename,
        flags: PURE,
    },
    ScalarFunction {
        name: "path_names",
        n_args: 1,
        func: path_names,
        flags: PURE,
    },
    ScalarFunction {
        name: "kb_file_names",
        n_args: 2,
        func: kb_file_names,
        flags: PURE,
    },
    ScalarFunction {
        name: "redact_secrets",
        n_args: 1,
        func: redact_secrets,
        flags: PURE,
    },
    ScalarFunction {
        name: "redact_private",
        n_args: 1,
        func: redact_private,
        flags: PURE,
    },
    ScalarFunction {
        name: "redact_user_names",
        n_args: 1,
        func: redact_user_names,
        flags: PURE,
    },
    ScalarFunction {
        name: "failure_kind",
        n_args: 1,
        func: failure_kind,
        flags: PURE,
    },
    ScalarFunction {
        name: "fix_uid",
        n_args: 3,
        func: fix_uid,
        flags: PURE,
    },
    ScalarFunction {
        name: "file_history_status",
        n_args: 4,
        func: file_history_status,
        flags: PURE,
    },
    ScalarFunction {
        name: "render_advice",
        n_args: 2,
        func: render_advice,
        flags: INFO,
    },
    ScalarFunction {
        name: "redact_path",
        n_args: 1,
        func: redact_path,
        flags: PURE,
    },
    ScalarFunction {
        name: "resolution_text",
        n_args: 1,
        func: resolution_text,
        flags: PURE,
    },
    ScalarFunction {
        name: "errkb_last_search_error",
        n_args: 0,
        func: errkb_last_search_error,
        flags: INFO,
    },
    ScalarFunction {
        name: "utc_now",
        n_args: 0,
        func: utc_now,
        flags: INFO,
    },
    ScalarFunction {
        name: "errkb_version",
        n_args: 0,
        func: errkb_version,
        flags: PURE,
    },
    ScalarFunction {
        name: "errkb_debug",
        n_args: 0,
        func: errkb_debug,
        flags: INFO,
    },
    ScalarFunction {
        name: "errkb_debug",
        n_args: 1,
        func: errkb_debug,
        flags: INFO,
    },
];

/// A text argument: NULL → `None`; blobs and invalid UTF-8 are read as
/// text with U+FFFD for bad bytes (what the original JavaScript system saw).
fn text_arg<'a>(args: &[*mut sqlite3_value], i: usize) -> Option<Cow<'a, str>> {
    args.get(i)
        .and_then(crate::sqlite::ffi::value_bytes)
        .map(String::from_utf8_lossy)
}

/// The shape of most functions here: one text in, one text out, NULL → NULL.
fn text_to_text<T: AsRef<str>>(
    ctx: *mut sqlite3_context,
    args: &[*mut sqlite3_value],
    f: impl FnOnce(&str) -> T,
) -> Result<()> {
    match text_arg(args, 0) {
        Some(text) => api::result_text(ctx, f(&text))?,
        None => api::result_null(ctx),
    }
    Ok(())
}

fn normalize_error(ctx: *mut sqlite3_context, args: &[*mut sqlite3_value]) -> Result<()> {
    text_to_text(ctx, args, normalize::normalize_error)
}

fn error_signature(ctx: *mut sqlite3_context, args: &[*mut sqlite3_value]) -> Result<()> {
    text_to_text(ctx, args, |text| signature_of(text).text)
}

/// The signature of `text`: as `errkb learn` worked it out ahead (see
/// `ahead`), or computed.
fn signature_of(text: &str) -> signature::Signature {
    ahead::signature_of(text).unwrap_or_else(|| signature::signature(text))
}

/// Reads the `message_catalog` table of the calling connection.
fn translate_messages(ctx: *mut sqlite3_context, args: &[*mut sqlite3_value]) -> Result<()> {
    let Some(text) = text_arg(args, 0) else {
        api::result_null(ctx);
        return Ok(());
    };
    let db = Connection::of_call(ctx);
    let english = catalog::translate(db, &text).map_err(Error::new_message)?;
    api::result_text(ctx, english)?;
    Ok(())
}

/// 1 when the text says what went wrong, 0 when its identifying line is
/// only the first line there was (or a wrapper's "task failed").
fn error_identified(ctx: *mut sqlite3_context, args: &[*mut sqlite3_value]) -> Result<()> {
    match text_arg(args, 0) {
        Some(text) => api::result_int64(ctx, signature_of(&text).identified.into()),
        None => api::result_null(ctx),
    }
    Ok(())
}

fn error_excerpt(ctx: *mut sqlite3_context, args: &[*mut sqlite3_value]) -> Result<()> {
    text_to_text(ctx, args, |text| {
        ahead::text_of(ahead::Rule::Excerpt, text).unwrap_or_else(|| signature::excerpt(text).into_owned())
    })
}

fn error_headline(ctx: *mut sqlite3_context, args: &[*mut sqlite3_value]) -> Result<()> {
    text_to_text(ctx, args, |text| signature_of(text).headline)
}

/// NULL when either side is NULL.
fn edit_hunk(ctx: *mut sqlite3_context, args: &[*mut sqlite3_value]) -> Result<()> {
    match (text_arg(args, 0), text_arg(args, 1)) {
        (Some(old), Some(new)) => api::result_text(ctx, resolution::edit_hunk(&old, &new))?,
        _ => api::result_null(ctx),
    }
    Ok(())
}

fn fix_key(ctx: *mut sqlite3_context, args: &[*mut sqlite3_value]) -> Result<()> {
    text_to_text(ctx, args, resolution::fix_key)
}

/// NULL for a command with no program in it.
fn command_subject(ctx: *mut sqlite3_context, args: &[*mut sqlite3_value]) -> Result<()> {
    match text_arg(args, 0).and_then(|c| command::command_subject(&c)) {
        Some(subject) => api::result_text(ctx, subject)?,
        None => api::result_null(ctx),
    }
    Ok(())
}

fn error_codes(ctx: *mut sqlite3_context, args: &[*mut sqlite3_value]) -> Result<()> {
    text_to_text(ctx, args, signature::codes_json)
}

fn keyword_overlap(ctx: *mut sqlite3_context, args: &[*mut sqlite3_value]) -> Result<()> {
    match (text_arg(args, 0), text_arg(args, 1)) {
        (Some(a), Some(b)) => api::result_int64(ctx, similarity::keyword_overlap(&a, &b) as i64),
        _ => api::result_null(ctx),
    }
    Ok(())
}

fn length_ratio(ctx: *mut sqlite3_context, args: &[*mut sqlite3_value]) -> Result<()> {
    match (text_arg(args, 0), text_arg(args, 1)) {
        (Some(a), Some(b)) => api::result_double(ctx, similarity::length_ratio(&a, &b)),
        _ => api::result_null(ctx),
    }
    Ok(())
}

/// `embed(text)`: the text's embedding as a float32 blob; NULL for NULL, a
/// blob, or text with nothing to embed. A missing or broken model is an
/// error that says where errkb looked and what to do.
fn embed(ctx: *mut sqlite3_context, args: &[*mut sqlite3_value]) -> Result<()> {
    if args.first().is_some_and(|v| api::value_type(v) == api::ValueType::Blob) {
        api::result_null(ctx);
        return Ok(());
    }
    let Some(text) = text_arg(args, 0) else {
        api::result_null(ctx);
        return Ok(());
    };
    let vector =
        embed::with_embedder(|e| e.embed(&[&text])).map_err(|e| Error::new_message(format!("embed(): {e}")))?;
    match vector.into_iter().next().flatten() {
        Some(v) => api::result_blob(ctx, &embed::to_blob(&v)),
        None => api::result_null(ctx),
    }
    Ok(())
}

/// `embed_model()`: the model embed() uses, as JSON `{"model", "dimensions"}`
/// (`model` as the database records it beside the vectors); an error when
/// there is none.
fn embed_model(ctx: *mut sqlite3_context, _args: &[*mut sqlite3_value]) -> Result<()> {
    let (identity, dimensions) =
        embed::current_model().map_err(|e| Error::new_message(format!("embed_model(): {e}")))?;
    api::result_text(
        ctx,
        serde_json::json!({"model": identity.id(), "dimensions": dimensions}).to_string(),
    )
}

/// `errkb_set_model(dir)`: use the model in `dir` for the rest of this
/// process. NULL changes nothing and gives NULL.
fn errkb_set_model(ctx: *mut sqlite3_context, args: &[*mut sqlite3_value]) -> Result<()> {
    let Some(dir) = text_arg(args, 0) else {
        api::result_null(ctx);
        return Ok(());
    };
    let files = model_files::set_model_override(dir.as_ref().into())
        .map_err(|e| Error::new_message(format!("errkb_set_model(): {e}")))?;
    api::result_text(ctx, files.model.display().to_string())
}

/// `errkb_prepare_model(dir)`: write the fast-loading copy of the model in
/// `dir` (see embed::prepare); returns its path. NULL gives NULL.
fn errkb_prepare_model(ctx: *mut sqlite3_context, args: &[*mut sqlite3_value]) -> Result<()> {
    let Some(dir) = text_arg(args, 0) else {
        api::result_null(ctx);
        return Ok(());
    };
    let path = embed::prepare(std::path::Path::new(dir.as_ref()))
        .map_err(|e| Error::new_message(format!("errkb_prepare_model(): {e}")))?;
    api::result_text(ctx, path.display().to_string())
}

/// `project_identity(folder)`: the project a folder (as stored) is part
/// of: its git remote, normalised, else its checkout's top folder, else
/// itself. Reads the checkout's config: not for triggers or views.
fn project_identity(ctx: *mut sqlite3_context, args: &[*mut sqlite3_value]) -> Result<()> {
    text_to_text(ctx, args, crate::project::identity)
}

/// `project_relative(text, project)`: the paths inside the project folder
/// made relative to it (the folder itself `.`); a project of NULL, `` or
/// `/` changes nothing. The one way every script shows a path.
fn project_relative(ctx: *mut sqlite3_context, args: &[*mut sqlite3_value]) -> Result<()> {
    let project = text_arg(args, 1);
    text_to_text(ctx, args, |text| {
        paths_in_text::relative_paths(text, project.as_deref(), paths_in_text::Outside::Keep).into_owned()
    })
}

fn path_basename(ctx: *mut sqlite3_context, args: &[*mut sqlite3_value]) -> Result<()> {
    text_to_text(ctx, args, |path| paths_in_text::path_basename(path).to_owned())
}

fn path_names(ctx: *mut sqlite3_context, args: &[*mut sqlite3_value]) -> Result<()> {
    text_to_text(ctx, args, |text| {
        serde_json::to_string(&paths_in_text::path_names(text)).unwrap_or_default()
    })
}

/// The file names a knowledge-base row is about (error_kb_files): those its
/// error mentions and the file its fix touched. The one place of that rule,
/// for every writer of error_kb_files.
fn kb_file_names(ctx: *mut sqlite3_context, args: &[*mut sqlite3_value]) -> Result<()> {
    let error_raw = text_arg(args, 0).unwrap_or_default();
    let fixed_file = text_arg(args, 1)
        .and_then(|r| serde_json::from_str::<serde_json::Value>(&r).ok())
        .and_then(|r| r.get("file").and_then(serde_json::Value::as_str).map(str::to_owned))
        .unwrap_or_default();
    let names = paths_in_text::path_names(&format!("{error_raw} {fixed_file}"));
    api::result_text(ctx, serde_json::to_string(&names).unwrap_or_default())?;
    Ok(())
}

fn redact_secrets(ctx: *mut sqlite3_context, args: &[*mut sqlite3_value]) -> Result<()> {
    text_to_text(ctx, args, |text| {
        ahead::text_of(ahead::Rule::RedactSecrets, text).unwrap_or_else(|| redact::redact_secrets(text).into_owned())
    })
}

/// Only the user names (home folders, URL users): for text that is not a
/// tool's output, such as errkb's own stored JSON, whose `signature`
/// member redact_secrets would take for a secret's.
fn redact_user_names(ctx: *mut sqlite3_context, args: &[*mut sqlite3_value]) -> Result<()> {
    text_to_text(ctx, args, |text| redact::redact_user_names(text).into_owned())
}

fn redact_private(ctx: *mut sqlite3_context, args: &[*mut sqlite3_value]) -> Result<()> {
    text_to_text(ctx, args, |text| {
        ahead::text_of(ahead::Rule::RedactPrivate, text).unwrap_or_else(|| redact::redact_private(text).into_owned())
    })
}

fn failure_kind(ctx: *mut sqlite3_context, args: &[*mut sqlite3_value]) -> Result<()> {
    text_to_text(ctx, args, |text| failure_kind::failure_kind(text).name())
}

/// NULL when any part is NULL.
fn fix_uid(ctx: *mut sqlite3_context, args: &[*mut sqlite3_value]) -> Result<()> {
    match (text_arg(args, 0), text_arg(args, 1), text_arg(args, 2)) {
        (Some(key), Some(headline), Some(fix)) => api::result_text(ctx, resolution::fix_uid(&key, &headline, &fix))?,
        _ => api::result_null(ctx),
    }
    Ok(())
}

/// 'open' (about the file), 'applied' (about it, its fix in the content
/// as read), or NULL (not about the file, or no file).
fn file_history_status(ctx: *mut sqlite3_context, args: &[*mut sqlite3_value]) -> Result<()> {
    let (error_raw, resolution, content) = (text_arg(args, 0), text_arg(args, 1), text_arg(args, 3));
    let Some(file) = text_arg(args, 2) else {
        api::result_null(ctx);
        return Ok(());
    };
    match crate::advice::file_history::status(error_raw.as_deref(), resolution.as_deref(), &file, content.as_deref()) {
        Some(true) => api::result_text(ctx, "applied")?,
        Some(false) => api::result_text(ctx, "open")?,
        None => api::result_null(ctx),
    }
    Ok(())
}

/// NULL when there is nothing to say; an error when the facts are not JSON.
fn render_advice(ctx: *mut sqlite3_context, args: &[*mut sqlite3_value]) -> Result<()> {
    let (Some(kind), Some(facts)) = (text_arg(args, 0), text_arg(args, 1)) else {
        api::result_null(ctx);
        return Ok(());
    };
    let facts: serde_json::Value = serde_json::from_str(&facts)
        .map_err(|e| Error::new_message(format!("render_advice(): the facts are not JSON ({e})")))?;
    match crate::advice::render::render(&kind, &facts, crate::advice::language::current()) {
        // redacted again: a knowledge base written before redaction, or by
        // another program, may hold secrets
        Some(text) => api::result_text(ctx, redact::redact_private(&text))?,
        None => api::result_null(ctx),
    }
    Ok(())
}

fn redact_path(ctx: *mut sqlite3_context, args: &[*mut sqlite3_value]) -> Result<()> {
    text_to_text(ctx, args, |path| redact::redact_path(path).into_owned())
}

fn resolution_text(ctx: *mut sqlite3_context, args: &[*mut sqlite3_value]) -> Result<()> {
    text_to_text(ctx, args, resolution::resolution_text)
}

/// Why kb_search's last passed-over stage failed (NULL if none); clears it.
fn errkb_last_search_error(ctx: *mut sqlite3_context, _args: &[*mut sqlite3_value]) -> Result<()> {
    match search::take_last_failure() {
        Some(message) => api::result_text(ctx, message)?,
        None => api::result_null(ctx),
    }
    Ok(())
}

/// `utc_now()`: the time to store, `2026-11-27T09:00:00.123Z`, clamped to
/// 1970–9999 (strftime gives NULL beyond 9999, which a NOT NULL `ts`
/// would turn into a lost event).
fn utc_now(ctx: *mut sqlite3_context, _args: &[*mut sqlite3_value]) -> Result<()> {
    api::result_text(ctx, crate::clock::now_millis())
}

fn errkb_version(ctx: *mut sqlite3_context, _args: &[*mut sqlite3_value]) -> Result<()> {
    api::result_text(ctx, version::VERSION)
}

/// `errkb_debug()` describes the build; `errkb_debug('panic')` panics on
/// purpose, to show that a crash inside errkb comes back as a SQL error.
fn errkb_debug(ctx: *mut sqlite3_context, args: &[*mut sqlite3_value]) -> Result<()> {
    match text_arg(args, 0).as_deref() {
        None if args.is_empty() => api::result_text(ctx, version::debug_report()),
        // NULL in, NULL out, as for every function
        None => {
            api::result_null(ctx);
            Ok(())
        }
        Some("panic") => panic!("deliberate panic requested by errkb_debug('panic')"),
        _ => Err(Error::new_message(
            "errkb_debug(): the only argument it takes is 'panic'",
        )),
    }
}
