//! `kb_search(query)`: the best past fix for an error, found by the
//! strong-signal shortcut: the cheapest stage that answers wins.
//!
//! The query is the error as the tool printed it (or its normalize_error()
//! key, as v0.1 callers pass it). Its localized messages are put back into
//! English (translate_messages) and its signature taken (error_signature):
//! the stages compare signatures, never the boilerplate around them.
//!
//! 1. exact: the same signature (idx_error_kb_signature);
//! 2. prefix: signatures starting with the query's first 30 characters,
//!    close in length (a range of the same index);
//! 3. vector: nearest neighbours of the signature's embedding, within the
//!    model's thresholds (`errkb-thresholds.json`, else the original system's);
//!    a first pass on bit vectors, then the exact distance of the nearest 32.
//!
//! In every stage a candidate whose identifiers of one kind differ from the
//! query's (`TS2307` vs `TS2305`, `ENOENT` vs `EACCES`), or whose first
//! value is of another kind (a package vs a relative path), is vetoed. The
//! fixes of the candidates are those the one rule says may be told
//! (`tellable`: given the session, the agent and the project, not one this
//! agent was told or applied itself); among them the one whose original
//! error is closest wins (the same values, then values of the same kinds),
//! then tellable's order (this project's first, then fix_standing's).
//!
//! The search is read-only (the caller records a hit) and never raises: a
//! stage that fails, because a table or the model is missing, counts as
//! "no match".

use std::ffi::c_int;

use crate::sqlite::ffi::{Connection, Statement, StatementCache, Value};
use crate::sqlite::table_function::TableFunction;
use crate::text::signature::{signature, Signature};

/// How many leading characters (code points) of the signature a prefix
/// match must share.
pub const PREFIX_CHARS: usize = 30;
/// A prefix match counts only when `length_ratio(query, row) >= 0.7`.
pub const MIN_PREFIX_LENGTH_RATIO: f64 = 0.7;
/// Neighbours the vector stage looks at.
const NEIGHBOURS: i64 = 5;
/// Neighbours the vector stage's first pass (bit vectors) keeps for the
/// exact distance: enough that the nearest few by the exact distance are
/// among them (make bench measures how often they are).
const FIRST_PASS: i64 = 32;

/// The error_kb rows a stage found, as kb_search's first KB_COLUMN_COUNT
/// columns (the fix's resolution, uses and last use are filled in).
const CANDIDATE_ERRORS_SQL: &str = include_str!("../sql/search/candidate_errors.sql");
/// At most this many candidates are weighed, the first in tellable's order.
const MAX_CANDIDATES: usize = 200;
const EXACT_SQL: &str = include_str!("../sql/search/exact.sql");
const PREFIX_SQL: &str = include_str!("../sql/search/prefix.sql");
const VECTOR_SQL: &str = include_str!("../sql/search/vector.sql");
const VECTOR_BITS_SQL: &str = include_str!("../sql/search/vector_bits.sql");
const KB_COLUMN_COUNT: usize = 9;
/// Where kb_search's first columns (a candidate's `row`) have the error's
/// text and the fix's resolution, uses and last use.
const ERROR_RAW: usize = 3;
const RESOLUTION: usize = 4;
const USE_COUNT: usize = 7;
const LAST_USED: usize = 8;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    Exact,
    Prefix,
    Vector,
}

impl Stage {
    pub fn name(self) -> &'static str {
        match self {
            Stage::Exact => "exact",
            Stage::Prefix => "prefix",
            Stage::Vector => "vector",
        }
    }
}

/// A matching fix and how it was found.
#[derive(Debug, Clone)]
pub struct Hit {
    /// The error_kb columns, with the chosen fix's resolution and count.
    pub row: Vec<Value>,
    pub stage: Stage,
    /// Vector distance; `None` for the text stages.
    pub distance: Option<f64>,
    /// The `fixes` row; `None` for a row only an old writer filled.
    pub fix_id: Option<i64>,
    /// The original error's identifying line (values kept).
    pub headline: String,
    /// Other fixes known for this error (not vetoed, not weak).
    pub other_fixes: i64,
    /// The fix's stable id and where it came from ('local', 'team').
    pub fix_uid: Option<String>,
    pub origin: String,
    /// The next best fix (another content), when there is one: its
    /// resolution, origin and uid.
    pub other_fix: Option<String>,
    pub other_origin: Option<String>,
    pub other_uid: Option<String>,
    /// Where the fix was learned when not in this project (its identity).
    pub elsewhere: Option<String>,
}

/// One candidate fix that may be told, and its place in the one rule's
/// order (tellable).
struct Candidate {
    row: Vec<Value>,
    fix_id: Option<i64>,
    headline: String,
    rank: i64,
    elsewhere: Option<String>,
    origin: String,
    fix_uid: Option<String>,
    /// What the fix is (its content): two candidates with one key are one fix.
    fix_key: Option<String>,
}

/// A fix's resolution as its fields (a JSON object), for the rules that
/// look into what it did.
type FixFields = serde_json::Map<String, serde_json::Value>;

impl Candidate {
    /// The fields of the fix's resolution; None for an older writer's
    /// text, which names no step.
    fn fix(&self) -> Option<FixFields> {
        let resolution = self.row.get(RESOLUTION).and_then(Value::as_text)?;
        match serde_json::from_str(resolution) {
            Ok(serde_json::Value::Object(fields)) => Some(fields),
            _ => None,
        }
    }
}

/// Who is asking: a hook's session, agent and project (what the one rule
/// needs to leave out what this agent was told or did itself, and to put
/// this project's fixes first). All `None` for a search from the shell.
#[derive(Debug, Clone, Default)]
pub struct Asking {
    pub session_id: Option<String>,
    pub agent_id: Option<String>,
    pub project: Option<String>,
}

/// The best hit for `query`, or `None`. Never fails: a stage that errors
/// (no table yet, no model) is passed over like a stage that misses. With
/// `ERRKB_TRACE` set, each stage's outcome is written to stderr, to answer
/// "why did this not match?".
pub fn best_match(
    db: Connection,
    statements: &mut StatementCache,
    query: &str,
    asking: &Asking,
    text_only: bool,
    call_file: Option<&str>,
) -> Option<Hit> {
    let trace = std::env::var_os("ERRKB_TRACE").is_some();
    let english = crate::text::catalog::translate_with(db, statements, query).unwrap_or_else(|_| query.to_string());
    let sig = signature(&english);
    if trace {
        eprintln!("kb_search: signature {:?} {:?}", sig.text, sig.identifiers);
    }
    if sig.text.is_empty() {
        return None;
    }
    let stages: [(Stage, StageFn); 3] = [
        (Stage::Exact, exact_match),
        (Stage::Prefix, prefix_match),
        (Stage::Vector, vector_match),
    ];
    let query = Query {
        identifying: signature(&sig.headline),
        sig,
        key: legacy_key(query),
        normalized: crate::text::normalize::normalize_error(query),
        files: crate::text::paths_in_text::path_names(query),
        call_file: call_file.filter(|f| !f.trim().is_empty()).map(str::to_owned),
        asking: asking.clone(),
    };
    stages
        .iter()
        .filter(|(stage, _)| !(text_only && *stage == Stage::Vector))
        .find_map(|(stage, run)| match run(db, statements, &query) {
            Ok(hit) => {
                if trace {
                    eprintln!(
                        "kb_search: {} stage: {}",
                        stage.name(),
                        if hit.is_some() { "hit" } else { "no match" }
                    );
                }
                hit
            }
            Err(e) => {
                if trace {
                    eprintln!("kb_search: {} stage failed: {e}", stage.name());
                }
                *LAST_FAILURE.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
                None
            }
        })
}

/// The key (normalize_error) of a query, for rows that have no signature yet: v0.1
/// callers pass an already-normalised key (a line of at most 200
/// characters), which is used as it is; a tool's output is normalised.
fn legacy_key(query: &str) -> String {
    if !query.contains('\n') && query.encode_utf16().count() <= 200 {
        query.to_string()
    } else {
        crate::text::normalize::normalize_error(query)
    }
}

/// What the stages search with: the signature, and the key for
/// rows that have no signature yet (written by others, before the
/// embedding job gave them one).
struct Query {
    sig: Signature,
    /// The signature of the query's identifying line alone (its headline),
    /// which candidates' identifiers and values are compared on.
    identifying: Signature,
    key: String,
    /// normalize_error() of the query, which a raw error's row has as key.
    normalized: String,
    /// The file names the query's error names (`path_names`).
    files: Vec<String>,
    /// The file the failed call itself acted on (a Read's), when the
    /// caller says: an error's text need not name it.
    call_file: Option<String>,
    asking: Asking,
}

type StageFn = fn(Connection, &mut StatementCache, &Query) -> std::result::Result<Option<Hit>, String>;

/// The last stage failure kb_search passed over, for the hooks to log
/// (`errkb_last_search_error()` reads and clears it).
static LAST_FAILURE: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);

pub fn take_last_failure() -> Option<String> {
    LAST_FAILURE.lock().unwrap_or_else(|p| p.into_inner()).take()
}

fn exact_match(
    db: Connection,
    statements: &mut StatementCache,
    query: &Query,
) -> std::result::Result<Option<Hit>, String> {
    let tails = labelled_tails(&query.sig.text);
    let ids = statements.with(db, EXACT_SQL, |stmt| {
        stmt.bind_text(1, &query.sig.text)?;
        stmt.bind_text(2, &query.key)?;
        stmt.bind_text(3, &query.normalized)?;
        for (n, tail) in [4, 5].into_iter().zip(tails.iter().map(Some).chain([None, None])) {
            match tail {
                Some(tail) => stmt.bind_text(n, tail)?,
                None => stmt.bind_null(n)?,
            }
        }
        column_ids(stmt)
    })?;
    Ok(choose(
        query,
        candidates(db, statements, &ids, &query.asking)?,
        Stage::Exact,
        None,
    ))
}

/// The shortest a signature's tail may be to be looked up on its own: a
/// sentence, not a word (`No such file or directory` is every program's).
const MIN_TAIL_CHARS: usize = 40;

/// What a signature says after a label in front of it, at its first two
/// `: ` (`PR #533: none of the git remotes …` → `none of the git remotes
/// …`): a loop's `echo "PR #$n: "`, a wrapper's `stderr: `, a tool's own
/// context (`failed to determine base repo: …`) stand before the message
/// another run printed alone. Only tails of MIN_TAIL_CHARS or more.
fn labelled_tails(signature: &str) -> Vec<&str> {
    signature
        .match_indices(": ")
        .take(2)
        .map(|(at, sep)| &signature[at + sep.len()..])
        .filter(|tail| tail.chars().count() >= MIN_TAIL_CHARS)
        .collect()
}

fn prefix_match(
    db: Connection,
    statements: &mut StatementCache,
    query: &Query,
) -> std::result::Result<Option<Hit>, String> {
    let (head, upper) = prefix_range(&query.sig.text);
    let (key_head, key_upper) = prefix_range(&query.key);
    let ids = statements.with(db, PREFIX_SQL, |stmt| {
        stmt.bind_text(1, head)?;
        stmt.bind_text_bytes(2, &upper)?;
        stmt.bind_text(3, &query.sig.text)?;
        stmt.bind_double(4, MIN_PREFIX_LENGTH_RATIO)?;
        stmt.bind_text(5, key_head)?;
        stmt.bind_text_bytes(6, &key_upper)?;
        stmt.bind_text(7, &query.key)?;
        column_ids(stmt)
    })?;
    Ok(choose(
        query,
        candidates(db, statements, &ids, &query.asking)?,
        Stage::Prefix,
        None,
    ))
}

/// The first PREFIX_CHARS characters of `text`, and the bound just past
/// every text that starts with them (their bytes and 0xFF).
fn prefix_range(text: &str) -> (&str, Vec<u8>) {
    let end = text
        .char_indices()
        .map(|(at, _)| at)
        .chain([text.len()])
        .nth(PREFIX_CHARS);
    let head = &text[..end.unwrap_or(text.len())];
    let mut upper = head.as_bytes().to_vec();
    upper.push(0xFF);
    (head, upper)
}

fn vector_match(
    db: Connection,
    statements: &mut StatementCache,
    query: &Query,
) -> std::result::Result<Option<Hit>, String> {
    let sig = &query.sig;
    // Cheap checks first, none needing the model: which model made the
    // vectors (no row: none were made), and whether any are stored.
    let stored = statements.with(db, "SELECT model FROM vector_model", |made_by| {
        Ok(match made_by.step()? {
            true => made_by.column(0).as_text().map(str::to_owned),
            false => None,
        })
    })?;
    let Some(stored) = stored else { return Ok(None) };
    if !statements.with(db, "SELECT 1 FROM vec_error_kb LIMIT 1", |any| any.step())? {
        return Ok(None);
    }
    // Vectors of another model are not comparable with this one's: the
    // stage waits until the embedding job has made them again.
    let current = crate::embedding::model_files::resolve_model()?.identity()?.id();
    if stored != current {
        return Err(format!(
            "the vectors were made by {stored}, the model in use is {current}; \
             the embedding job (errkb embed, run at each session's end) makes them again"
        ));
    }
    let (vector, thresholds) =
        crate::embedding::embed::with_embedder(|e| Ok((e.embed(&[sig.text.as_str()])?.pop().flatten(), e.thresholds)))?;
    let Some(vector) = vector else { return Ok(None) };
    // Two passes (bits, then the exact distance of the nearest few) once
    // the embedding job has given every vector its bits; every vector
    // exactly until then.
    let has_bits = statements
        .with(db, "SELECT 1 FROM vector_bits_ready", |ready| ready.step())
        .unwrap_or(false);
    let sql = if has_bits { VECTOR_BITS_SQL } else { VECTOR_SQL };
    let neighbours = statements.with(db, sql, |stmt| {
        stmt.bind_blob(1, &crate::embedding::embed::to_blob(&vector))?;
        stmt.bind_int64(2, NEIGHBOURS)?;
        if has_bits {
            stmt.bind_int64(3, FIRST_PASS)?;
        }
        let mut neighbours = Vec::new();
        while stmt.step()? {
            if let (Value::Integer(id), Value::Text(text), Value::Real(distance)) =
                (stmt.column(0), stmt.column(1), stmt.column(2))
            {
                neighbours.push((id, text, distance));
            }
        }
        Ok(neighbours)
    })?;
    // Nearest first; the first neighbour that passes the thresholds and
    // has a fix that is not vetoed answers.
    for (id, text, distance) in neighbours {
        if !vector_accepts(&thresholds, distance, &sig.text, &text) {
            break;
        }
        if let Some(hit) = choose(query, candidates(db, statements, &[id], &query.asking)?, Stage::Vector, Some(distance)) {
            return Ok(Some(hit));
        }
    }
    Ok(None)
}

/// The first column of every row, as ids.
fn column_ids(stmt: &mut Statement) -> std::result::Result<Vec<i64>, String> {
    let mut ids = Vec::new();
    while stmt.step()? {
        if let Value::Integer(id) = stmt.column(0) {
            ids.push(id);
        }
    }
    Ok(ids)
}

/// Whether a neighbour at `distance` is a match for `query`.
pub fn vector_accepts(thresholds: &crate::embedding::embed::Thresholds, distance: f64, query: &str, key: &str) -> bool {
    if distance < thresholds.match_distance {
        true
    } else if distance < thresholds.keyword_check_distance {
        crate::text::similarity::keyword_overlap(query, key) >= 1
    } else {
        false
    }
}

/// The fixes of the error_kb rows `ids` that may be told to whoever is
/// asking, in the one rule's order.
fn candidates(
    db: Connection,
    statements: &mut StatementCache,
    ids: &[i64],
    asking: &Asking,
) -> std::result::Result<Vec<Candidate>, String> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let ids = format!("[{}]", ids.iter().map(i64::to_string).collect::<Vec<_>>().join(","));
    let fixes = crate::standing::tellable(
        db,
        statements,
        &ids,
        asking.session_id.as_deref().map(str::as_bytes),
        asking.agent_id.as_deref().map(str::as_bytes),
        asking.project.as_deref().map(str::as_bytes),
    )?;
    if fixes.is_empty() {
        return Ok(Vec::new());
    }
    let errors = statements.with(db, CANDIDATE_ERRORS_SQL, |stmt| {
        stmt.bind_text(1, &ids)?;
        let mut errors = std::collections::HashMap::new();
        while stmt.step()? {
            if let Value::Integer(id) = stmt.column(0) {
                errors.insert(id, (0..KB_COLUMN_COUNT as c_int).map(|i| stmt.column(i)).collect::<Vec<Value>>());
            }
        }
        Ok(errors)
    })?;
    let text = |v: &Value| v.as_text().map(str::to_owned);
    use crate::standing::column as t;
    Ok(fixes
        .into_iter()
        .filter_map(|fix| {
            let f = &fix.row;
            let Value::Integer(error_id) = f[t::ERROR_KB_ID] else { return None };
            // the error's columns, and the fix's own (its last use: the
            // error's for an older writer's row, which has none of its own)
            let mut row = errors.get(&error_id)?.clone();
            row[RESOLUTION] = f[t::RESOLUTION].clone();
            row[USE_COUNT] = f[t::USES].clone();
            if fix.last_used != Value::Null {
                row[LAST_USED] = fix.last_used.clone();
            }
            Some(Candidate {
                row,
                fix_id: match f[t::FIX_ID] {
                    Value::Integer(id) => Some(id),
                    _ => None,
                },
                headline: text(&f[t::HEADLINE]).unwrap_or_default(),
                rank: match f[t::RANK] {
                    Value::Integer(n) => n,
                    _ => i64::MAX,
                },
                elsewhere: text(&f[t::ELSEWHERE]),
                origin: text(&f[t::ORIGIN]).unwrap_or_else(|| "local".to_owned()),
                fix_uid: text(&f[t::UID]),
                fix_key: text(&f[t::FIX_KEY]),
            })
        })
        // (the first of those whose error is still there)
        .take(MAX_CANDIDATES)
        .collect())
}

/// The best candidate for `query`: vetoed ones out (another identifier of
/// one kind, a first value of another kind); then the closest original
/// error, then the one rule's order (tellable). The next best is the best
/// of another content.
fn choose(query: &Query, candidates: Vec<Candidate>, stage: Stage, distance: Option<f64>) -> Option<Hit> {
    // Identifiers and values are compared on the identifying lines alone,
    // the same way on both sides.
    let query_line = &query.identifying;
    let mut kept: Vec<(u8, Candidate)> = candidates
        .into_iter()
        .filter_map(|c| {
            // (a row only an old writer filled has no headline to compare)
            if c.headline.is_empty() {
                return Some((0, c));
            }
            let original = signature(&c.headline);
            if query_line.conflicts_with(&original) {
                return None;
            }
            let closeness = query_line.value_closeness(&original);
            // Another project's error about another path: that path, and
            // the fix's steps on it, name nothing here (`mkdir -p out` for
            // an ENOENT on `data/in.csv`).
            if c.elsewhere.is_some() && closeness < 2 && original.values.iter().any(|v| names_a_path(v)) {
                return None;
            }
            if let Some(fix) = c.fix() {
                if edits_another_errors_file(&c, &fix, &query.files)
                    || retries_on_another_file(&fix, query.call_file.as_deref())
                {
                    return None;
                }
            }
            // A test's expectation is this code's own logic: another
            // project's tests, and what met them, say nothing of this one's
            // (an `assert <V> in <V>` is every such assertion once masked).
            if c.elsewhere.is_some() {
                let original_error = c.row.get(ERROR_RAW).and_then(Value::as_text).unwrap_or("");
                if crate::text::signature::states_an_unmet_expectation(&c.headline, original_error) {
                    return None;
                }
            }
            Some((closeness, c))
        })
        .collect();
    kept.sort_by(|(ca, a), (cb, b)| cb.cmp(ca).then(a.rank.cmp(&b.rank)));
    // one fix learned under several errors is one fix
    let mut seen = std::collections::HashSet::new();
    kept.retain(|(_, c)| c.fix_key.as_ref().is_none_or(|key| seen.insert(key.clone())));
    let other_fixes = kept.len().saturating_sub(1) as i64;
    let mut kept = kept.into_iter();
    let (_, best) = kept.next()?;
    let (other_fix, other_origin, other_uid) = match kept.next() {
        Some((_, c)) => (c.row.get(RESOLUTION).and_then(Value::as_text).map(str::to_owned), Some(c.origin), c.fix_uid),
        None => (None, None, None),
    };
    Some(Hit {
        row: best.row,
        stage,
        distance,
        fix_id: best.fix_id,
        headline: best.headline,
        other_fixes,
        fix_uid: best.fix_uid,
        origin: best.origin,
        other_fix,
        other_origin,
        other_uid,
        elsewhere: best.elsewhere,
    })
}

/// Whether `c`'s fix is an edit of the file its own error was in, told
/// for an error in other files (`files`, the names the query's error
/// names): one lint or type error fixed in `a.ts` by changing `a.ts` says
/// nothing of what to change in `b.ts`, however alike the two messages.
/// Every file the fix changed must be one its original error named (a fix
/// that also changed a config file may hold for every file), and none one
/// that this error names.
fn edits_another_errors_file(c: &Candidate, fix: &FixFields, files: &[String]) -> bool {
    if files.is_empty() {
        return false;
    }
    let edited: Vec<&str> = fix
        .get("edits")
        .and_then(serde_json::Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|e| e.get("file").and_then(serde_json::Value::as_str))
        .map(crate::text::paths_in_text::path_basename)
        .collect();
    if edited.is_empty() {
        return false;
    }
    let original_error = c.row.get(ERROR_RAW).and_then(Value::as_text).unwrap_or("");
    let original = crate::text::paths_in_text::path_names(&format!("{original_error}\n{}", c.headline));
    edited.iter().all(|f| original.iter().any(|o| o == f)) && !edited.iter().any(|f| files.iter().any(|q| q == f))
}

/// Whether `c`'s fix is only its failed call done again on a file, with
/// other parameters (nothing run, edited or written before it: a Read of
/// `a.rs` with an offset and a limit, after `a.rs` was too large to read
/// whole), told for a call on another file (`call_file`): what worked on
/// `a.rs` names nothing of `b.jsonl`, whose lines may be too long for any
/// window. Files are compared by name, as the fix's is stored relative to
/// its project.
fn retries_on_another_file(fix: &FixFields, call_file: Option<&str>) -> bool {
    let Some(call_file) = call_file else {
        return false;
    };
    let has_steps = |key: &str| fix.get(key).and_then(serde_json::Value::as_array).is_some_and(|a| !a.is_empty());
    // (`changed`: what the retry did differently, its own parameters)
    if has_steps("commands") || has_steps("edits") || has_steps("writes") || !has_steps("changed") {
        return false;
    }
    if fix.get("command").and_then(serde_json::Value::as_str).is_some_and(|c| !c.trim().is_empty()) {
        return false;
    }
    let Some(file) = fix.get("file").and_then(serde_json::Value::as_str).filter(|f| !f.trim().is_empty()) else {
        return false;
    };
    use crate::text::paths_in_text::path_basename;
    path_basename(file) != path_basename(call_file)
}

/// Whether a masked value is a path or a file name (`out/report.txt`,
/// `config.json`), not a package or a key.
fn names_a_path(value: &str) -> bool {
    value.contains(['/', '\\']) || !crate::text::paths_in_text::path_names(value).is_empty()
}

// ---- the table-valued function -------------------------------------------

pub struct KbSearch;

impl TableFunction for KbSearch {
    const NAME: &'static str = "kb_search";
    const SCHEMA: &'static str = "CREATE TABLE x(id, ts, error_normalized, error_raw, resolution, \
         resolved_by, tool_sequence, use_count, last_used, stage, distance, fix_id, headline, other_fixes, \
         fix_uid, origin, other_fix, other_origin, other_uid, elsewhere, query HIDDEN, session_id HIDDEN, \
         agent_id HIDDEN, project HIDDEN, text_only HIDDEN, file HIDDEN)";
    const COLUMNS: c_int = 20;
    const ARGUMENTS: c_int = 6;
    const REQUIRED: c_int = 0;
    const NEVER_RAISES: bool = true;

    fn rows(
        db: Connection,
        statements: &mut StatementCache,
        arguments: &[Option<&[u8]>],
    ) -> std::result::Result<Vec<Vec<Value>>, String> {
        let Some(query) = arguments[0] else {
            return Ok(Vec::new());
        };
        let text = |i: usize| arguments.get(i).copied().flatten().map(|a| String::from_utf8_lossy(a).into_owned());
        let asking = Asking {
            session_id: text(1),
            agent_id: text(2),
            project: text(3),
        };
        // text_only: the exact and prefix stages alone (no model is
        // loaded), for a query that may not spend the vector stage's time
        let text_only = text(4).is_some_and(|t| !matches!(t.trim(), "" | "0"));
        // file: what the failed call acted on (a Read's file)
        let call_file = text(5);
        let Some(hit) = best_match(
            db,
            statements,
            &String::from_utf8_lossy(query),
            &asking,
            text_only,
            call_file.as_deref(),
        ) else {
            return Ok(Vec::new());
        };
        let mut row = hit.row;
        row.extend([
            Value::Text(hit.stage.name().to_owned()),
            hit.distance.map_or(Value::Null, Value::Real),
            hit.fix_id.map_or(Value::Null, Value::Integer),
            Value::Text(hit.headline),
            Value::Integer(hit.other_fixes),
            hit.fix_uid.map_or(Value::Null, Value::Text),
            Value::Text(hit.origin),
            hit.other_fix.map_or(Value::Null, Value::Text),
            hit.other_origin.map_or(Value::Null, Value::Text),
            hit.other_uid.map_or(Value::Null, Value::Text),
            hit.elsewhere.map_or(Value::Null, Value::Text),
        ]);
        Ok(vec![row])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::embedding::embed::Thresholds;

    #[test]
    fn vector_thresholds_on_both_sides() {
        let t = Thresholds::ORIGINAL;
        let (q, shares, unrelated) = ("module not found", "cannot resolve module", "permission denied");
        assert!(vector_accepts(&t, 0.7599, q, unrelated));
        assert!(!vector_accepts(&t, 0.7600, q, unrelated));
        assert!(vector_accepts(&t, 0.7600, q, shares));
        assert!(vector_accepts(&t, 0.8499, q, shares));
        assert!(!vector_accepts(&t, 0.8500, q, shares));
        assert!(!vector_accepts(&t, f64::INFINITY, q, shares));
    }

    fn with_fix(resolution: &str) -> Candidate {
        let mut row = vec![Value::Null; KB_COLUMN_COUNT];
        row[RESOLUTION] = Value::Text(resolution.to_owned());
        Candidate {
            row,
            fix_id: Some(1),
            headline: "File content (<N> tokens) exceeds maximum allowed tokens (<N>).".to_owned(),
            rank: 1,
            elsewhere: None,
            origin: "local".to_owned(),
            fix_uid: None,
            fix_key: None,
        }
    }

    #[test]
    fn only_a_call_done_again_on_another_file_is_passed_over() {
        let window = r#"{"tool":"Read","file":"src/ops.rs","changed":["offset 1, limit 200"]}"#;
        let fix = |resolution: &str| with_fix(resolution).fix().unwrap();
        assert!(retries_on_another_file(&fix(window), Some("/srv/app/out/run.jsonl")));
        assert!(!retries_on_another_file(&fix(window), Some("/srv/app/src/ops.rs")));
        assert!(!retries_on_another_file(&fix(window), None));
        // steps before the retry, a command retried, or nothing the retry
        // did differently: not a window on one file
        for resolution in [
            r#"{"tool":"Read","file":"src/ops.rs","changed":["limit 10"],"commands":["jq . out.json"]}"#,
            r#"{"tool":"Read","file":"src/ops.rs","changed":["limit 10"],"edits":[{"file":"a.rs"}]}"#,
            r#"{"tool":"Bash","file":"src/ops.rs","changed":["-u origin"],"command":"git push -u origin"}"#,
            r#"{"tool":"Read","file":"src/ops.rs"}"#,
        ] {
            assert!(!retries_on_another_file(&fix(resolution), Some("/srv/app/out/run.jsonl")), "{resolution}");
        }
    }
}
