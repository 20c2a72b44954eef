//! A compact SentencePiece Unigram model for the `tokenizers` pipeline.
//!
//! The production model's tokenizer (XLM-R) has 250,002 pieces. The
//! `tokenizers` crate builds its Unigram model as a byte trie whose every
//! node owns a hash map: loading such a tokenizer.json took about a second
//! and 600 MB here, far more than the model itself. This model keeps the
//! pieces in one string arena with a single hash map, so it loads in a
//! fraction of that. The rest of the pipeline (normalizer, pre-tokenizer,
//! post-processor, special tokens) is the library's own, read from the same
//! tokenizer.json.
//!
//! The segmentation is the library's `encode_optimized` step for step (the
//! Viterbi search of SentencePiece): candidates shortest first, ties kept by
//! the first, unknown characters scored `min_score - 10` and runs of them
//! fused. A test compares both on generated text.

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use hashbrown::hash_table::{Entry, HashTable};
use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use tokenizers::decoders::DecoderWrapper;
use tokenizers::models::unigram::UnigramTrainer;
use tokenizers::normalizers::NormalizerWrapper;
use tokenizers::pre_tokenizers::PreTokenizerWrapper;
use tokenizers::processors::PostProcessorWrapper;
use tokenizers::{AddedToken, Model, Token, TokenizerBuilder, TokenizerImpl};

/// SentencePiece's penalty for an unknown character, below the lowest score.
const UNK_PENALTY: f64 = 10.0;

pub type CompactTokenizer =
    TokenizerImpl<CompactUnigram, NormalizerWrapper, PreTokenizerWrapper, PostProcessorWrapper, DecoderWrapper>;

pub struct CompactUnigram {
    /// All pieces, back to back; piece `id` is `arena[spans[id].0 .. spans[id].1]`.
    arena: String,
    spans: Vec<(u32, u32)>,
    scores: Vec<f64>,
    /// Piece → id, as ids into `spans` (a repeated piece maps to its last
    /// id, as in the library).
    ids: HashTable<u32>,
    hasher: ahash::RandomState,
    longest_piece: usize,
    min_score: f64,
    unk_id: u32,
}

impl CompactUnigram {
    pub fn new(vocab: &[(Cow<'_, str>, f64)], unk_id: usize) -> Result<Self, String> {
        let mut arena = String::with_capacity(vocab.iter().map(|(p, _)| p.len()).sum());
        let mut ends = Vec::with_capacity(vocab.len());
        for (piece, _) in vocab {
            arena.push_str(piece);
            ends.push(arena.len() as u32);
        }
        let scores = vocab.iter().map(|(_, s)| *s).collect();
        Self::from_parts(arena, &ends, scores, unk_id)
    }

    /// The model of pieces stored back to back in `arena`, piece `i` ending
    /// at `ends[i]`, with their scores.
    fn from_parts(arena: String, ends: &[u32], scores: Vec<f64>, unk_id: usize) -> Result<Self, String> {
        if unk_id >= ends.len() {
            return Err("the tokenizer's unk_id is not in its vocabulary".into());
        }
        if ends.len() != scores.len()
            || ends.windows(2).any(|w| w[0] > w[1])
            || ends.last().is_some_and(|&end| end as usize != arena.len())
            || ends.iter().any(|&end| !arena.is_char_boundary(end as usize))
        {
            return Err("the vocabulary's pieces are inconsistent".into());
        }
        let spans: Vec<(u32, u32)> = ends
            .iter()
            .scan(0, |start, &end| Some((std::mem::replace(start, end), end)))
            .collect();
        let hasher = ahash::RandomState::new();
        let mut ids = HashTable::with_capacity(spans.len());
        let text = |i: u32| &arena[spans[i as usize].0 as usize..spans[i as usize].1 as usize];
        for id in 0..spans.len() as u32 {
            let piece = text(id);
            let hash = hasher.hash_one(piece);
            match ids.entry(hash, |&other| text(other) == piece, |&i| hasher.hash_one(text(i))) {
                Entry::Occupied(mut slot) => *slot.get_mut() = id,
                Entry::Vacant(slot) => {
                    slot.insert(id);
                }
            }
        }
        Ok(CompactUnigram {
            longest_piece: spans.iter().map(|(s, e)| (e - s) as usize).max().unwrap_or(0),
            min_score: scores.iter().copied().fold(f64::INFINITY, f64::min),
            arena,
            spans,
            scores,
            ids,
            hasher,
            unk_id: unk_id as u32,
        })
    }

    fn piece(&self, id: u32) -> &str {
        let (start, end) = self.spans[id as usize];
        &self.arena[start as usize..end as usize]
    }

    fn lookup(&self, piece: &str) -> Option<u32> {
        self.ids
            .find(self.hasher.hash_one(piece), |&id| self.piece(id) == piece)
            .copied()
    }

    /// The best segmentation of `sentence`, as byte ranges and ids.
    fn segment(&self, sentence: &str) -> Vec<(usize, usize, u32)> {
        #[derive(Clone, Copy)]
        struct Best {
            id: u32,
            score: f64,
            starts_at: Option<usize>,
        }
        let size = sentence.len();
        let unk_score = self.min_score - UNK_PENALTY;
        let mut best = vec![
            Best {
                id: 0,
                score: 0.0,
                starts_at: None
            };
            size + 1
        ];
        let mut starts_at = 0;
        while starts_at < size {
            let score_here = best[starts_at].score;
            let rest = &sentence[starts_at..];
            let first_char = rest.chars().next().map_or(1, char::len_utf8);
            let mut has_single_char_piece = false;
            // Every piece that is a prefix of `rest`, shortest first: pieces are
            // whole UTF-8 text, so they end on character boundaries.
            let ends = rest
                .char_indices()
                .map(|(i, c)| i + c.len_utf8())
                .take_while(|&e| e <= self.longest_piece);
            for end in ends {
                let Some(id) = self.lookup(&rest[..end]) else { continue };
                let candidate = self.scores[id as usize] + score_here;
                let target = &mut best[starts_at + end];
                if target.starts_at.is_none() || candidate > target.score {
                    *target = Best {
                        id,
                        score: candidate,
                        starts_at: Some(starts_at),
                    };
                }
                has_single_char_piece |= end == first_char;
            }
            if !has_single_char_piece {
                let target = &mut best[starts_at + first_char];
                let candidate = unk_score + score_here;
                if target.starts_at.is_none() || candidate > target.score {
                    *target = Best {
                        id: self.unk_id,
                        score: candidate,
                        starts_at: Some(starts_at),
                    };
                }
            }
            starts_at += first_char;
        }
        // Walk back from the end; runs of unknown pieces become one.
        let mut pieces = Vec::new();
        let mut end = size;
        let mut unk_run_end = None;
        while end > 0 {
            let node = best[end];
            let start = node.starts_at.expect("every position is reachable");
            if node.id == self.unk_id {
                unk_run_end.get_or_insert(end);
            } else {
                if let Some(run_end) = unk_run_end.take() {
                    pieces.push((end, run_end));
                }
                pieces.push((start, end));
            }
            end = start;
        }
        if let Some(run_end) = unk_run_end {
            pieces.push((0, run_end));
        }
        pieces.reverse();
        pieces
            .into_iter()
            .map(|(s, e)| (s, e, self.lookup(&sentence[s..e]).unwrap_or(self.unk_id)))
            .collect()
    }
}

impl Model for CompactUnigram {
    type Trainer = UnigramTrainer;

    fn tokenize(&self, sequence: &str) -> tokenizers::Result<Vec<Token>> {
        Ok(self
            .segment(sequence)
            .into_iter()
            .map(|(start, end, id)| Token::new(id, sequence[start..end].to_owned(), (start, end)))
            .collect())
    }

    fn token_to_id(&self, token: &str) -> Option<u32> {
        self.lookup(token)
    }

    fn id_to_token(&self, id: u32) -> Option<String> {
        ((id as usize) < self.spans.len()).then(|| self.piece(id).to_owned())
    }

    fn get_vocab(&self) -> HashMap<String, u32> {
        self.ids.iter().map(|&id| (self.piece(id).to_owned(), id)).collect()
    }

    fn get_vocab_size(&self) -> usize {
        self.spans.len()
    }

    fn save(&self, _folder: &Path, _prefix: Option<&str>) -> tokenizers::Result<Vec<PathBuf>> {
        Err("errkb's compact Unigram model is read-only".into())
    }

    fn get_trainer(&self) -> UnigramTrainer {
        UnigramTrainer::default()
    }
}

// ---- reading tokenizer.json ------------------------------------------------

#[derive(Deserialize)]
struct TokenizerFile<'a> {
    #[serde(borrow)]
    model: ModelSection<'a>,
    normalizer: Option<NormalizerWrapper>,
    pre_tokenizer: Option<PreTokenizerWrapper>,
    post_processor: Option<PostProcessorWrapper>,
    decoder: Option<DecoderWrapper>,
    #[serde(default)]
    added_tokens: Vec<AddedTokenEntry>,
}

#[derive(Deserialize)]
struct ModelSection<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<Cow<'a, str>>,
    unk_id: Option<usize>,
    #[serde(default)]
    byte_fallback: bool,
    #[serde(borrow, default)]
    vocab: UnigramVocab<'a>,
}

/// A Unigram vocabulary (a list of `[piece, score]`), read in the same pass
/// as the rest of the file; any other shape (WordPiece's map) is skipped
/// and read as `None`.
#[derive(Default)]
struct UnigramVocab<'a>(Option<Vec<(Cow<'a, str>, f64)>>);

impl<'de: 'a, 'a> Deserialize<'de> for UnigramVocab<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct VocabVisitor<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for VocabVisitor<'a> {
            type Value = UnigramVocab<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a tokenizer vocabulary")
            }
            fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<Self::Value, S::Error> {
                let mut pieces = Vec::with_capacity(seq.size_hint().unwrap_or(0));
                while let Some(entry) = seq.next_element::<(Cow<'a, str>, f64)>()? {
                    pieces.push(entry);
                }
                Ok(UnigramVocab(Some(pieces)))
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(UnigramVocab(None))
            }
        }
        deserializer.deserialize_any(VocabVisitor(std::marker::PhantomData))
    }
}

#[derive(Deserialize)]
struct AddedTokenEntry {
    content: String,
    #[serde(default)]
    single_word: bool,
    #[serde(default)]
    lstrip: bool,
    #[serde(default)]
    rstrip: bool,
    #[serde(default)]
    normalized: bool,
    #[serde(default)]
    special: bool,
}

/// A tokenizer.json of a Unigram model without byte fallback, loaded with
/// the compact model; `Ok(None)` for any other kind, which the library
/// loads well by itself.
pub fn load(json: &[u8]) -> Result<Option<CompactTokenizer>, String> {
    let mut file: TokenizerFile<'_> = serde_json::from_slice(json).map_err(|e| e.to_string())?;
    let Some((vocab, unk_id)) = compact_vocab(&mut file.model) else {
        return Ok(None);
    };
    let model = CompactUnigram::new(&vocab, unk_id)?;
    assemble(model, file).map(Some)
}

/// A Unigram vocabulary: each piece and its score.
type Vocab<'a> = Vec<(Cow<'a, str>, f64)>;

/// The vocabulary and unknown piece of a Unigram model the compact model
/// can stand in for (no byte fallback), taken out of its section.
fn compact_vocab<'a>(section: &mut ModelSection<'a>) -> Option<(Vocab<'a>, usize)> {
    match (section.kind.as_deref(), section.unk_id, section.byte_fallback) {
        (Some("Unigram"), Some(unk_id), false) => section.vocab.0.take().map(|vocab| (vocab, unk_id)),
        _ => None,
    }
}

/// The library's pipeline around the compact model, as the file describes it.
fn assemble(model: CompactUnigram, file: TokenizerFile<'_>) -> Result<CompactTokenizer, String> {
    let mut tokenizer: CompactTokenizer = TokenizerBuilder::new()
        .with_model(model)
        .with_normalizer(file.normalizer)
        .with_pre_tokenizer(file.pre_tokenizer)
        .with_post_processor(file.post_processor)
        .with_decoder(file.decoder)
        .build()
        .map_err(|e| e.to_string())?;
    let (special, plain): (Vec<_>, Vec<_>) = file.added_tokens.into_iter().partition(|t| t.special);
    let to_added = |t: AddedTokenEntry| {
        AddedToken::from(t.content, t.special)
            .single_word(t.single_word)
            .lstrip(t.lstrip)
            .rstrip(t.rstrip)
            .normalized(t.normalized)
    };
    tokenizer
        .add_special_tokens(special.into_iter().map(to_added))
        .map_err(|e| e.to_string())?;
    tokenizer
        .add_tokens(plain.into_iter().map(to_added))
        .map_err(|e| e.to_string())?;
    Ok(tokenizer)
}

// ---- the prepared vocabulary -------------------------------------------------

/// Beside tokenizer.json: its Unigram vocabulary as this model holds it in
/// memory, written by `errkb model prepare`. Reading 250,002 pieces and
/// their scores out of JSON was the slowest part of a cold start with the
/// production model (slower than ONNX Runtime's session, which loads
/// alongside); this file is read in a few milliseconds.
///
/// Layout, little-endian: `MAGIC`; tokenizer.json's length and
/// modification time (u64 each, nanoseconds: a changed tokenizer.json makes
/// the file stale, and it is not used); unk_id, piece count, the length of
/// the rest of tokenizer.json and of the pieces (u32 each); the rest of
/// tokenizer.json (everything but the vocabulary, as JSON); the scores
/// (f64 each); each piece's end in the pieces (u32 each); the pieces, back
/// to back (UTF-8).
pub const PREPARED_FILE: &str = "tokenizer.errkb";
const MAGIC: &[u8; 16] = b"errkb-unigram-1\n";

/// tokenizer.json's length and modification time, which a prepared file
/// must name to be used.
fn source_stamp(tokenizer_json: &Path) -> Option<(u64, u64)> {
    let meta = std::fs::metadata(tokenizer_json).ok()?;
    let modified = meta.modified().ok()?.duration_since(std::time::UNIX_EPOCH).ok()?;
    Some((meta.len(), u64::try_from(modified.as_nanos()).ok()?))
}

/// Write the prepared vocabulary of `tokenizer_json` beside it. `Ok(false)`
/// when the tokenizer is not one the compact model loads (nothing written).
pub fn prepare(tokenizer_json: &Path) -> Result<bool, String> {
    let (len, modified) = source_stamp(tokenizer_json).ok_or("cannot read the tokenizer's file time")?;
    let json = std::fs::read(tokenizer_json).map_err(|e| e.to_string())?;
    let mut file: TokenizerFile<'_> = serde_json::from_slice(&json).map_err(|e| e.to_string())?;
    let Some((vocab, unk_id)) = compact_vocab(&mut file.model) else {
        return Ok(false);
    };
    // the rest of the file: everything but the vocabulary
    let mut rest: serde_json::Value = serde_json::from_slice(&json).map_err(|e| e.to_string())?;
    rest["model"]["vocab"] = serde_json::Value::Array(Vec::new());
    let rest = rest.to_string();
    let arena_len: usize = vocab.iter().map(|(p, _)| p.len()).sum();
    let count = |n: usize| u32::try_from(n).map_err(|_| "the tokenizer is too large".to_owned());
    let mut out = Vec::with_capacity(64 + rest.len() + vocab.len() * 12 + arena_len);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(&modified.to_le_bytes());
    for n in [unk_id, vocab.len(), rest.len(), arena_len] {
        out.extend_from_slice(&count(n)?.to_le_bytes());
    }
    out.extend_from_slice(rest.as_bytes());
    for (_, score) in &vocab {
        out.extend_from_slice(&score.to_le_bytes());
    }
    let mut end = 0;
    for (piece, _) in &vocab {
        end += piece.len();
        out.extend_from_slice(&count(end)?.to_le_bytes());
    }
    for (piece, _) in &vocab {
        out.extend_from_slice(piece.as_bytes());
    }
    // written whole, then renamed: a reader never sees half a file
    let target = tokenizer_json.with_file_name(PREPARED_FILE);
    let staging = tokenizer_json.with_file_name(format!(".{PREPARED_FILE}.{}", std::process::id()));
    std::fs::write(&staging, &out)
        .and_then(|()| std::fs::rename(&staging, &target))
        .map_err(|e| {
            let _ = std::fs::remove_file(&staging);
            format!("cannot write {}: {e}", target.display())
        })?;
    Ok(true)
}

/// The tokenizer from the prepared vocabulary beside `tokenizer_json`;
/// `None` when there is none, or it was made from another tokenizer.json.
pub fn load_prepared(tokenizer_json: &Path) -> Option<Result<CompactTokenizer, String>> {
    let bytes = std::fs::read(tokenizer_json.with_file_name(PREPARED_FILE)).ok()?;
    let ((stamp, counts), body) = header(&bytes)?;
    if source_stamp(tokenizer_json)? != stamp {
        return None;
    }
    Some(from_prepared(counts, body))
}

/// A prepared file's first fields: tokenizer.json's (length, modification
/// time), then unk_id, piece count, the rest's length, the pieces' length.
type Header = ((u64, u64), [usize; 4]);

/// The header and what follows it; `None` for another kind of file.
fn header(bytes: &[u8]) -> Option<(Header, &[u8])> {
    let rest = bytes.strip_prefix(MAGIC.as_slice())?;
    let (stamp, rest) = rest.split_first_chunk::<16>()?;
    let (counts, rest) = rest.split_first_chunk::<16>()?;
    let word = |b: &[u8]| u64::from_le_bytes(b.try_into().expect("8 bytes"));
    let count = |i: usize| u32::from_le_bytes(counts[i * 4..i * 4 + 4].try_into().expect("4 bytes")) as usize;
    let stamp = (word(&stamp[..8]), word(&stamp[8..]));
    Some(((stamp, [count(0), count(1), count(2), count(3)]), rest))
}

fn from_prepared([unk_id, pieces, rest_len, arena_len]: [usize; 4], body: &[u8]) -> Result<CompactTokenizer, String> {
    let damaged = || format!("{PREPARED_FILE} is damaged: run errkb model prepare");
    let (rest, body) = body.split_at_checked(rest_len).ok_or_else(damaged)?;
    let (scores, body) = body.split_at_checked(pieces * 8).ok_or_else(damaged)?;
    let (ends, arena) = body.split_at_checked(pieces * 4).ok_or_else(damaged)?;
    if arena.len() != arena_len {
        return Err(damaged());
    }
    let file: TokenizerFile<'_> = serde_json::from_slice(rest).map_err(|_| damaged())?;
    let scores = scores
        .chunks_exact(8)
        .map(|b| f64::from_le_bytes(b.try_into().expect("8 bytes")))
        .collect();
    let ends: Vec<u32> = ends
        .chunks_exact(4)
        .map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")))
        .collect();
    let arena = String::from_utf8(arena.to_vec()).map_err(|_| damaged())?;
    let model = CompactUnigram::from_parts(arena, &ends, scores, unk_id)?;
    assemble(model, file)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A vocabulary with overlapping pieces of several scripts, and the same
    /// tokenizer.json read by the library and by `load`.
    fn both_tokenizers() -> (tokenizers::Tokenizer, CompactTokenizer) {
        let mut vocab = vec![
            ("<unk>".to_owned(), 0.0),
            ("<s>".to_owned(), 0.0),
            ("</s>".to_owned(), 0.0),
        ];
        let alphabet = [
            "a", "b", "c", "ab", "bc", "abc", "ca", "한", "국", "한국", "é", "😀", "▁", "▁a", "▁ab", "x",
        ];
        let mut seed = 7u64;
        for piece in alphabet {
            vocab.push((piece.to_owned(), -1.0 - (piece.len() as f64) / 3.0));
        }
        for i in 0..3000 {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let len = 2 + (seed >> 60) as usize % 4;
            let piece: String = (0..len)
                .map(|k| alphabet[((seed >> (k * 8)) as usize) % alphabet.len()])
                .collect();
            vocab.push((piece, -(((seed >> 40) % 1000) as f64) / 37.0 - 0.5 - (i % 3) as f64));
        }
        let json = serde_json::json!({
            "version": "1.0", "truncation": null, "padding": null,
            "added_tokens": [
                {"id": 0, "content": "<unk>", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
                {"id": 1, "content": "<s>", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
                {"id": 2, "content": "</s>", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true}
            ],
            "normalizer": {"type": "NFKC"},
            "pre_tokenizer": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": true},
            "post_processor": {"type": "TemplateProcessing",
                "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "</s>", "type_id": 0}}],
                "pair": [{"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}],
                "special_tokens": {"<s>": {"id": "<s>", "ids": [1], "tokens": ["<s>"]}, "</s>": {"id": "</s>", "ids": [2], "tokens": ["</s>"]}}},
            "decoder": null,
            "model": {"type": "Unigram", "unk_id": 0, "vocab": vocab, "byte_fallback": false}
        })
        .to_string();
        let library = tokenizers::Tokenizer::from_bytes(json.as_bytes()).expect("library loads it");
        let compact = load(json.as_bytes()).expect("loads").expect("is Unigram");
        (library, compact)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn segments_exactly_as_the_library(text in "[abcx한국é😀 <>/s?zZ]{0,40}") {
            thread_local!(static BOTH: (tokenizers::Tokenizer, CompactTokenizer) = both_tokenizers());
            BOTH.with(|(library, compact)| {
                let want = library.encode(text.as_str(), true).unwrap();
                let got = compact.encode(text.as_str(), true).unwrap();
                prop_assert_eq!(got.get_ids(), want.get_ids());
                prop_assert_eq!(got.get_offsets(), want.get_offsets());
                Ok(())
            })?;
        }
    }

    /// A directory of its own for a test's files.
    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("errkb-unigram-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn tokenizer_json() -> String {
        // the same file both_tokenizers() builds, through the library
        let (library, _) = both_tokenizers();
        library.to_string(false).unwrap()
    }

    #[test]
    fn the_prepared_vocabulary_segments_as_tokenizer_json_does() {
        let dir = scratch("same");
        let json_path = dir.join("tokenizer.json");
        std::fs::write(&json_path, tokenizer_json()).unwrap();
        assert!(load_prepared(&json_path).is_none(), "nothing prepared yet");
        assert!(prepare(&json_path).unwrap());
        let prepared = load_prepared(&json_path).expect("prepared").expect("loads");
        let from_json = load(&std::fs::read(&json_path).unwrap()).unwrap().unwrap();
        proptest!(ProptestConfig::with_cases(500), |(text in "[abcx한국é😀 <>/s?zZ]{0,40}")| {
            let want = from_json.encode(text.as_str(), true).unwrap();
            let got = prepared.encode(text.as_str(), true).unwrap();
            prop_assert_eq!(got.get_ids(), want.get_ids());
            prop_assert_eq!(got.get_offsets(), want.get_offsets());
        });
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_prepared_vocabulary_is_not_used_once_stale_or_damaged() {
        let dir = scratch("stale");
        let json_path = dir.join("tokenizer.json");
        std::fs::write(&json_path, tokenizer_json()).unwrap();
        assert!(prepare(&json_path).unwrap());
        let prepared = dir.join(PREPARED_FILE);
        // cut short: an error (the caller reads tokenizer.json instead)
        let whole = std::fs::read(&prepared).unwrap();
        std::fs::write(&prepared, &whole[..whole.len() - 7]).unwrap();
        assert!(load_prepared(&json_path).expect("still this tokenizer's").is_err());
        // tokenizer.json replaced: the prepared file is another tokenizer's
        std::fs::write(&prepared, &whole).unwrap();
        std::fs::write(&json_path, tokenizer_json() + " ").unwrap();
        assert!(load_prepared(&json_path).is_none());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn only_unigram_vocabularies_are_prepared() {
        let dir = scratch("wordpiece");
        let json_path = dir.join("tokenizer.json");
        std::fs::write(
            &json_path,
            r#"{"model": {"type": "WordPiece", "vocab": {"a": 0}}, "added_tokens": []}"#,
        )
        .unwrap();
        assert!(!prepare(&json_path).unwrap());
        assert!(!dir.join(PREPARED_FILE).exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn other_models_are_left_to_the_library() {
        let json = br#"{"model": {"type": "WordPiece", "vocab": {"a": 0}}, "added_tokens": []}"#;
        assert!(load(json).unwrap().is_none());
    }
}
