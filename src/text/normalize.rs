//! `normalize_error(text)`: the key of the knowledge base.
//!
//! Two errors that differ only in paths, numbers or quoted values get the
//! same key, so a fix learned for one is found for the other. The rules are
//! the reference JavaScript function's, applied in order:
//!
//! 1. `/[A-Za-z0-9_/.\-@]+/g` (a slash and the path characters after it) → `<PATH>`
//! 2. `/[0-9]{2,}/g` → `<N>`
//! 3. `/'[^']{0,100}'/g` → `<STR>`
//! 4. `/"[^"]{0,100}"/g` → `<STR>`
//! 5. `.slice(0, 200).trim()`
//!
//! One differing byte splits a group of errors, so this is a hand-written
//! scanner rather than four regex passes: the quote rules count their 100
//! in UTF-16 code units (no Rust regex engine does), and a scan is several
//! times faster. `tests/test_normalize_conformance.py` checks it against a
//! JavaScript reference on generated inputs.

use std::borrow::Cow;

use crate::text::js::{js_trim, utf16_cut, utf16_len};

/// Longest quoted text (in UTF-16 code units) that is masked as `<STR>`.
const MAX_QUOTED_UNITS: usize = 100;
/// Length of a key, in UTF-16 code units.
const MAX_KEY_UNITS: usize = 200;

pub fn normalize_error(raw: &str) -> String {
    let mut key = mask_paths_and_numbers(raw).map_or(Cow::Borrowed(raw), Cow::Owned);
    if let Some(masked) = mask_quoted(&key, b'\'') {
        key = Cow::Owned(masked);
    }
    if let Some(masked) = mask_quoted(&key, b'"') {
        key = Cow::Owned(masked);
    }
    let (end, split_pair) = utf16_cut(&key, MAX_KEY_UNITS);
    if split_pair {
        // The cut leaves half an astral character, which UTF-8 writes as U+FFFD.
        return js_trim(&format!("{}\u{FFFD}", &key[..end])).to_owned();
    }
    let trimmed = js_trim(&key[..end]);
    if trimmed.len() == key.len() {
        key.into_owned() // nothing cut or trimmed: no copy
    } else {
        trimmed.to_owned()
    }
}

fn is_path_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'/' | b'.' | b'-' | b'@')
}

/// Bytes that can start a rule 1 or rule 2 match: `/` and ASCII digits.
const STARTS_TOKEN: [bool; 256] = {
    let mut table = [false; 256];
    table[b'/' as usize] = true;
    let mut digit = b'0';
    while digit <= b'9' {
        table[digit as usize] = true;
        digit += 1;
    }
    table
};

/// Rules 1 and 2 in one pass; `None` when nothing matched. They compose: a path swallows the digits it
/// holds, `<PATH>` holds no digit, so the digit runs left over are exactly
/// the ones rule 2 sees after rule 1.
fn mask_paths_and_numbers(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out: Option<String> = None;
    let mut copied_to = 0;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if !STARTS_TOKEN[b as usize] {
            i += 1;
            continue;
        }
        let (token_end, replacement) = if b == b'/' && bytes.get(i + 1).is_some_and(|&n| is_path_byte(n)) {
            let end = i + 1 + bytes[i + 1..].iter().take_while(|&&n| is_path_byte(n)).count();
            (end, "<PATH>")
        } else if b.is_ascii_digit() {
            let end = i + bytes[i..].iter().take_while(|n| n.is_ascii_digit()).count();
            if end - i < 2 {
                i = end;
                continue;
            }
            (end, "<N>")
        } else {
            i += 1;
            continue;
        };
        // Only ASCII bytes were matched, so these are character boundaries.
        let out = out.get_or_insert_with(|| String::with_capacity(s.len()));
        out.push_str(&s[copied_to..i]);
        out.push_str(replacement);
        copied_to = token_end;
        i = token_end;
    }
    let mut out = out?;
    out.push_str(&s[copied_to..]);
    Some(out)
}

/// Rules 3 and 4 (`None` when nothing matched): `quote`, then at most 100 UTF-16 units of anything but
/// `quote`, then `quote`, matched leftmost first without overlap. When the
/// next quote is too far away, the regex fails at this quote and, having no
/// other quote in between, tries again from that next quote.
fn mask_quoted(s: &str, quote: u8) -> Option<String> {
    let bytes = s.as_bytes();
    let next_quote = |from: usize| memchr::memchr(quote, &bytes[from..]).map(|p| p + from);
    let mut out: Option<String> = None;
    let mut copied_to = 0;
    let mut open = next_quote(0);
    while let Some(start) = open {
        let Some(end) = next_quote(start + 1) else { break };
        if utf16_len(&s[start + 1..end]) <= MAX_QUOTED_UNITS {
            let out = out.get_or_insert_with(|| String::with_capacity(s.len()));
            out.push_str(&s[copied_to..start]);
            out.push_str("<STR>");
            copied_to = end + 1;
            open = next_quote(end + 1);
        } else {
            open = Some(end);
        }
    }
    let mut out = out?;
    out.push_str(&s[copied_to..]);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_scenarios() {
        assert_eq!(
            normalize_error("Cannot find module '/Users/dev/project/src/index.ts'"),
            "Cannot find module <STR>"
        );
        assert_eq!(
            normalize_error("Error at line 42 in /src/app.js: unexpected token"),
            "Error at line <N> in <PATH>: unexpected token"
        );
    }

    #[test]
    fn long_messages_are_cut_to_200_units_then_trimmed() {
        let msg = format!("  {}", "x".repeat(300));
        assert_eq!(normalize_error(&msg), "x".repeat(198));
        let msg = format!("{}   tail", "y".repeat(197));
        assert_eq!(normalize_error(&msg), "y".repeat(197));
    }

    #[test]
    fn paths_swallow_their_digits_and_lone_slashes_stay() {
        assert_eq!(normalize_error("a/b12 and 7 and 123"), "a<PATH> and 7 and <N>");
        assert_eq!(normalize_error("x / y // z"), "x / y <PATH> z");
        assert_eq!(normalize_error("12/34"), "<N><PATH>");
    }

    #[test]
    fn quotes_count_their_content_in_utf16_units() {
        let fits = format!("'{}'", "😀".repeat(50));
        assert_eq!(normalize_error(&fits), "<STR>");
        let too_long = format!("'{}x'", "😀".repeat(50));
        assert_eq!(normalize_error(&too_long), too_long);
        assert_eq!(normalize_error("''"), "<STR>");
    }

    #[test]
    fn a_far_quote_becomes_the_next_opening_quote() {
        let msg = format!("'{}' tail 'x'", "a".repeat(101));
        assert_eq!(normalize_error(&msg), format!("'{}<STR>x'", "a".repeat(101)));
    }

    #[test]
    fn single_quotes_are_masked_before_double_quotes() {
        // 'x' is not masked first: the quote in "it's" opens the first match.
        assert_eq!(normalize_error(r#""it's 'x'""#), "<STR>");
        assert_eq!(normalize_error(r#"a "b' c" d'"#), r#"a "b<STR>"#);
    }
}
