//! Localized tool messages back to English, with the gettext catalogs of
//! the machine: `translate_messages(text)`.
//!
//! git, coreutils, bash, make, tar, sed, wget, PostgreSQL … print their
//! messages in the user's language through gettext. The catalogs that
//! translated them (`/usr/share/locale/<lang>/LC_MESSAGES/<domain>.mo`) map
//! each English template (`cannot access %s`) to its translation (`%s에
//! 접근할 수 없음`). `errkb catalog` reads them once into the table
//! `message_catalog`, keyed by an *anchor*: the longest literal piece of the
//! translation. A message is translated by looking up the pieces of each of
//! its lines (an indexed lookup each), checking the candidates' templates
//! against the line, and writing the English template with the same values
//! in place of the match. No catalog is read in a hook.

use std::sync::LazyLock;

use regex_lite::Regex;

use crate::sqlite::ffi::{Connection, Statement, StatementCache, Value};

/// Pieces shorter than this (in characters) are too common to look up:
/// Latin-script words (`von`, `bei`) need more letters than CJK ones
/// (`부근`, `行`) to say something.
const MIN_ASCII_PIECE_CHARS: usize = 6;
const MIN_OTHER_PIECE_CHARS: usize = 2;

fn long_enough(piece: &str) -> bool {
    let n = piece.chars().count();
    n >= if piece.is_ascii() {
        MIN_ASCII_PIECE_CHARS
    } else {
        MIN_OTHER_PIECE_CHARS
    }
}
/// At most this many lines of a text are translated (the identifying ones
/// are near the top or bottom; a long log needs no more).
const MAX_LINES: usize = 60;

/// printf-style directives, as gettext's `c-format` messages use them
/// (`%s`, `%d`, `%lu`, `%1$s`, `%.*s`, `%'d`, `%<PRIu64>` …), and git's
/// `%s` only.
static DIRECTIVE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"%(?:(\d+)\$)?[-+ #0']*(?:\d+|\*)?(?:\.(?:\d+|\*))?(?:hh|h|ll|l|L|q|j|z|t|I)*[diouxXeEfFgGaAcspnm]|%<[A-Za-z0-9]+>")
        .unwrap()
});
/// Where a line splits into pieces: directives' usual neighbours.
static SPLIT: LazyLock<Regex> = LazyLock::new(|| Regex::new(r#":\s+|['"`«»„“”‘’「」]|\n|\.\s+|\s{2,}|。"#).unwrap());

/// Characters trimmed from the ends of a piece.
fn trim_piece(piece: &str) -> &str {
    piece.trim_matches(|c: char| c.is_whitespace() || ".,;:!?()[]{}'\"`«»„“”‘’「」。、*".contains(c))
}

/// The literal pieces of a text, trimmed, long enough to look up.
pub fn pieces(text: &str) -> impl Iterator<Item = &str> {
    SPLIT.split(text).map(trim_piece).filter(|p| long_enough(p))
}

/// The anchor of a translated template: its longest literal piece.
pub fn anchor(msgstr: &str) -> Option<&str> {
    DIRECTIVE
        .split(msgstr)
        .flat_map(|literal| SPLIT.split(literal))
        .map(trim_piece)
        .filter(|p| long_enough(p))
        .max_by_key(|p| p.chars().count())
}

/// A translated template as a regex that finds it in a line: literals
/// escaped, each directive a lazy group. Also the argument each group
/// fills in the English template (positional `%2$s` or in order).
fn template_regex(msgstr: &str) -> Option<(Regex, Vec<usize>)> {
    let mut pattern = String::from(r"(?:^|[^\w])(");
    let mut order = Vec::new();
    let mut last = 0;
    let mut last_group = "";
    for (n, m) in DIRECTIVE.captures_iter(msgstr).enumerate() {
        let whole = m.get(0)?;
        pattern.push_str(&regex_lite::escape(&msgstr[last..whole.start()]));
        // A value that opens the message has no literal on its left to stop
        // it: one quoted string or one word (`'/nope'에 접근할 수 없음`
        // must not take the `ls: ` before it).
        let group = if whole.start() == 0 {
            r#"('[^']*'|"[^"]*"|‘[^’]*’|`[^']*'|[^\s:'"‘`]*)"#
        } else {
            "(.+?)"
        };
        pattern.push_str(group);
        last_group = group;
        let position = m
            .get(1)
            .and_then(|p| p.as_str().parse::<usize>().ok())
            .map_or(n, |p| p.saturating_sub(1));
        order.push(position);
        last = whole.end();
    }
    let tail = &msgstr[last..];
    pattern.push_str(&regex_lite::escape(tail));
    // A directive at the very end takes the rest of the line.
    if tail.is_empty() && last_group == "(.+?)" {
        pattern.truncate(pattern.len() - last_group.len());
        pattern.push_str("(.+)");
    }
    pattern.push_str(r")(?:[^\w]|$)");
    Some((Regex::new(&pattern).ok()?, order))
}

/// The English template with the values found in the translation.
fn fill(msgid: &str, args: &[Option<String>]) -> String {
    let mut out = String::with_capacity(msgid.len() + 16);
    let mut last = 0;
    for (n, m) in DIRECTIVE.captures_iter(msgid).enumerate() {
        let whole = m.get(0).unwrap();
        out.push_str(&msgid[last..whole.start()]);
        let position = m
            .get(1)
            .and_then(|p| p.as_str().parse::<usize>().ok())
            .map_or(n, |p| p.saturating_sub(1));
        out.push_str(args.get(position).and_then(|a| a.as_deref()).unwrap_or(""));
        last = whole.end();
    }
    out.push_str(&msgid[last..]);
    out
}

const LOOKUP_SQL: &str = "SELECT msgid, msgstr FROM message_catalog WHERE anchor = ?1 LIMIT 200";
const ANY_SQL: &str = "SELECT 1 FROM message_catalog LIMIT 1";

/// `text` with the localized messages the catalog knows written in English.
/// Without a `message_catalog` table (or an empty one) the text comes back
/// as it is.
pub fn translate(db: Connection, text: &str) -> Result<String, String> {
    translate_with(db, &mut StatementCache::default(), text)
}

/// `translate`, with statements kept by the caller's connection.
pub fn translate_with(db: Connection, statements: &mut StatementCache, text: &str) -> Result<String, String> {
    // No catalog table, or an empty one (an English-only user): nothing to
    // look up, line by line and piece by piece.
    let has_catalog = statements.with(db, ANY_SQL, |any| any.step()).unwrap_or(false);
    if !has_catalog {
        return Ok(text.to_string());
    }
    statements.with(db, LOOKUP_SQL, |lookup| {
        let mut out = String::with_capacity(text.len());
        for (n, line) in text.split_inclusive('\n').enumerate() {
            if n >= MAX_LINES || line.is_ascii() && !might_be_translated(line) {
                out.push_str(line);
                continue;
            }
            out.push_str(&translate_line(lookup, line)?);
        }
        Ok(out)
    })
}

/// ASCII lines are looked up too (German, French … translations are often
/// ASCII), but only those that have a letter run long enough to be a piece.
fn might_be_translated(line: &str) -> bool {
    line.bytes().filter(|b| b.is_ascii_alphabetic()).count() >= MIN_ASCII_PIECE_CHARS
}

fn translate_line(lookup: &mut Statement, line: &str) -> Result<String, String> {
    let mut line = line.to_string();
    // Each round replaces one message (a line may hold two: `cmd: message:
    // strerror`); pieces already in English find nothing.
    for _ in 0..4 {
        let mut found: Vec<(std::ops::Range<usize>, usize, String)> = Vec::new();
        let owned: Vec<String> = pieces(&line).map(str::to_string).collect();
        // Every piece's candidates: the longest match wins (a short
        // message like `Fehler` must not take part of a longer one), then
        // the template with the most literal text (`Relation »%s«` over
        // `Relation %s`). A piece that is no anchor may hold one at its
        // start or end, where a value abuts it without a separator
        // (`"%2$s"またはその近辺で%1$s`).
        for piece in owned {
            let mut probes = vec![piece.clone()];
            let mut any = false;
            for probe_at in 0.. {
                let Some(probe) = probes.get(probe_at).cloned() else {
                    break;
                };
                lookup.reset()?;
                lookup.bind_text(1, &probe)?;
                while lookup.step()? {
                    any = true;
                    let (Value::Text(msgid), Value::Text(msgstr)) = (lookup.column(0), lookup.column(1)) else {
                        continue;
                    };
                    let Some((re, order)) = template_regex(&msgstr) else {
                        continue;
                    };
                    let Some(c) = re.captures(&line) else { continue };
                    let span = c.get(1).unwrap();
                    let literal = DIRECTIVE.replace_all(&msgstr, "").len();
                    let mut args: Vec<Option<String>> = vec![None; order.len()];
                    for (group, position) in order.iter().enumerate() {
                        if let (Some(slot), Some(value)) = (args.get_mut(*position), c.get(group + 2)) {
                            *slot = Some(value.as_str().to_string());
                        }
                    }
                    found.push((span.range(), literal, fill(&msgid, &args)));
                }
                if probe_at == 0 && !any {
                    probes.extend(ends_of(&piece));
                }
            }
        }
        // The best match, unless templates that match as well disagree on
        // the English (`エラー` is `error` in one catalog, `Err` in another):
        // then the next best.
        found.sort_by_key(|m| std::cmp::Reverse((m.0.len(), m.1)));
        let mut chosen = None;
        for group in found.chunk_by(|a, b| (a.0.len(), a.1) == (b.0.len(), b.1)) {
            let agree = group.iter().all(|m| m.0 == group[0].0 && same_words(&m.2, &group[0].2));
            if agree {
                chosen = Some(group[0].clone());
                break;
            }
        }
        match chosen {
            Some((range, _, english)) => line.replace_range(range, &english),
            None => break,
        }
    }
    Ok(line)
}

/// Whether two English renderings say the same, whatever their quotes
/// and case (`cannot remove 'x'` and `cannot remove x`).
fn same_words(a: &str, b: &str) -> bool {
    let words = |s: &str| -> String {
        s.chars()
            .filter(|c| !"'\"`‘’“”".contains(*c))
            .flat_map(char::to_lowercase)
            .collect()
    };
    words(a) == words(b)
}

/// The prefixes and suffixes of a piece that could be an anchor: cut at
/// spaces, and for scripts written without spaces (CJK) at any character;
/// at most MAX_PROBES of them.
fn ends_of(piece: &str) -> Vec<String> {
    const MAX_PROBES: usize = 48;
    let cuts: Vec<usize> = piece
        .char_indices()
        .filter(|&(at, c)| at > 0 && (c == ' ' || !c.is_ascii()))
        .map(|(at, _)| at)
        .collect();
    let mut out = Vec::new();
    for &at in &cuts {
        for part in [&piece[..at], &piece[at..]] {
            let part = trim_piece(part);
            if long_enough(part) && part != piece && !out.iter().any(|p| p == part) {
                out.push(part.to_string());
            }
        }
        if out.len() >= MAX_PROBES {
            break;
        }
    }
    out
}

// ---- reading .mo files ---------------------------------------------------

/// The (msgid, msgstr) pairs of a compiled gettext catalog (`.mo`), for
/// single-line messages that have a translation. Plural forms give one
/// pair per form; a message context (`ctx\x04msgid`) is dropped. `None` for
/// a file that is not a `.mo` catalog or not in UTF-8.
pub fn read_mo(bytes: &[u8]) -> Option<Vec<(String, String)>> {
    let word = |at: usize, big_endian: bool| -> Option<u32> {
        let b: [u8; 4] = bytes.get(at..at + 4)?.try_into().ok()?;
        Some(if big_endian {
            u32::from_be_bytes(b)
        } else {
            u32::from_le_bytes(b)
        })
    };
    let big_endian = match word(0, false)? {
        0x950412de => false,
        0xde120495 => true,
        _ => return None,
    };
    let count = word(8, big_endian)? as usize;
    let ids_at = word(12, big_endian)? as usize;
    let strs_at = word(16, big_endian)? as usize;
    let string = |table: usize, n: usize| -> Option<&[u8]> {
        let len = word(table + n * 8, big_endian)? as usize;
        let at = word(table + n * 8 + 4, big_endian)? as usize;
        bytes.get(at..at + len)
    };
    let mut pairs = Vec::new();
    for n in 0..count {
        let (Some(id), Some(translated)) = (string(ids_at, n), string(strs_at, n)) else {
            continue;
        };
        if id.is_empty() {
            // The header: only UTF-8 catalogs are read.
            let header = String::from_utf8_lossy(translated).to_ascii_lowercase();
            if header.contains("charset=") && !header.contains("charset=utf-8") {
                return None;
            }
            continue;
        }
        let id = id.rsplit(|&b| b == 4).next().unwrap_or(id); // drop msgctxt
        let mut ids = id.split(|&b| b == 0);
        let singular = std::str::from_utf8(ids.next().unwrap_or_default()).ok()?;
        let plural = ids.next().and_then(|p| std::str::from_utf8(p).ok());
        for (form, text) in translated.split(|&b| b == 0).enumerate() {
            let Ok(text) = std::str::from_utf8(text) else { continue };
            let english = if form > 0 { plural.unwrap_or(singular) } else { singular };
            // Surrounding blanks (`fatal: `) would keep a template from
            // matching where the next word follows.
            let (english, text) = (english.trim(), text.trim());
            if text.is_empty() || text == english || text.contains('\n') || english.contains('\n') {
                continue;
            }
            pairs.push((english.to_string(), text.to_string()));
        }
    }
    Some(pairs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchors_are_the_longest_literal_piece() {
        assert_eq!(anchor("%s에 접근할 수 없음"), Some("에 접근할 수 없음"));
        assert_eq!(anchor("Zugriff auf %s nicht möglich"), Some("nicht möglich"));
        assert_eq!(anchor("%s: %s"), None);
    }

    #[test]
    fn templates_match_with_their_values() {
        let (re, order) = template_regex("'%s'에 접근할 수 없음").unwrap();
        let line = "ls: '/nope'에 접근할 수 없음: 그런 파일이나 디렉터리가 없습니다";
        let c = re.captures(line).unwrap();
        assert_eq!(&c[2], "/nope");
        assert_eq!(
            fill("cannot access '%s'", &[Some(c[2].to_string())]),
            "cannot access '/nope'"
        );
        assert_eq!(order, vec![0]);
        let (_, order) = template_regex("%2$s von %1$s").unwrap();
        assert_eq!(order, vec![1, 0]);
    }
}
