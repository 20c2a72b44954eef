//! The JavaScript string semantics that errkb's text rules are defined in.
//!
//! The original system measured and cut strings with JavaScript's `.length`,
//! `.slice()` and `.trim()`: lengths are UTF-16 code units, and `trim()` has
//! its own whitespace set (it strips U+FEFF but keeps U+0085). Keys computed
//! here must match those byte for byte, so the rules live in one place.

/// Number of UTF-16 code units in `s`, as JavaScript's `s.length`.
///
/// Every UTF-8 sequence is one unit, except 4-byte sequences (astral
/// characters), which are two; so: count the bytes that start a character,
/// plus the bytes that start a 4-byte sequence.
pub fn utf16_len(s: &str) -> usize {
    s.as_bytes()
        .iter()
        .map(|&b| usize::from((b & 0xC0) != 0x80) + usize::from(b >= 0xF0))
        .sum()
}

/// Whether `c` is stripped by JavaScript's `String.prototype.trim` and
/// matched by `\s`: the WhiteSpace and LineTerminator productions of
/// ECMAScript (note U+FEFF is in, U+0085 and U+180E are out).
pub fn is_js_whitespace(c: char) -> bool {
    matches!(
        c,
        '\u{0009}'..='\u{000D}'
            | ' '
            | '\u{00A0}'
            | '\u{1680}'
            | '\u{2000}'..='\u{200A}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{202F}'
            | '\u{205F}'
            | '\u{3000}'
            | '\u{FEFF}'
    )
}

/// JavaScript's `s.trim()`.
pub fn js_trim(s: &str) -> &str {
    s.trim_matches(is_js_whitespace)
}

/// Where JavaScript's `s.slice(0, max_units)` ends, as a byte offset into
/// `s`, and whether it cuts a surrogate pair in half (leaving a lone high
/// surrogate, which UTF-8 encoders, and so the original database, write as
/// U+FFFD).
pub fn utf16_cut(s: &str, max_units: usize) -> (usize, bool) {
    if s.len() <= max_units {
        // A UTF-16 unit takes at least one UTF-8 byte: nothing to cut.
        return (s.len(), false);
    }
    let mut units = 0;
    for (at, c) in s.char_indices() {
        let width = c.len_utf16();
        if units + width > max_units {
            return (at, units < max_units);
        }
        units += width;
    }
    (s.len(), false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_len_counts_astral_characters_twice() {
        assert_eq!(utf16_len(""), 0);
        assert_eq!(utf16_len("abc"), 3);
        assert_eq!(utf16_len("한국어"), 3);
        assert_eq!(utf16_len("é"), 1);
        assert_eq!(utf16_len("😀"), 2);
        assert_eq!(utf16_len("a😀b"), 4);
    }

    #[test]
    fn trim_uses_the_javascript_whitespace_set() {
        assert_eq!(js_trim("\u{FEFF}\u{00A0} x \u{3000}\u{2028}"), "x");
        assert_eq!(js_trim("\u{0085}x\u{0085}"), "\u{0085}x\u{0085}");
        assert_eq!(js_trim("\u{180E}x"), "\u{180E}x");
    }

    #[test]
    fn cut_reports_a_split_surrogate_pair() {
        assert_eq!(utf16_cut("ab😀", 3), (2, true));
        assert_eq!(utf16_cut("ab😀", 4), ("ab😀".len(), false));
        assert_eq!(utf16_cut("ab😀c", 2), (2, false));
        assert_eq!(utf16_cut("abc", 10), (3, false));
        assert_eq!(utf16_cut("한국어", 2), ("한국".len(), false));
    }
}
