//! `inert(text)`: text that does nothing when printed. A tool's output (or
//! a teammate's hub row) can carry terminal controls: colours, screen
//! clears, window-title sets, cursor moves, a `\r` that overwrites a line.
//! Stored, they would act again wherever errkb shows them; kept before a
//! path, they hide it from the other rules (`\x1b[90m/home/NAME` does not
//! start with `/`). `redact_secrets()` runs this first, so nothing errkb
//! stores, logs, shows or sends carries one.
//!
//! Removed, each whole:
//! - ECMA-48 sequences: CSI (`ESC [` or U+009B, parameters, intermediates,
//!   a final byte); the control strings OSC, DCS, SOS, PM and APC (`ESC ]`,
//!   `ESC P`, `ESC X`, `ESC ^`, `ESC _`) up to BEL, ST (`ESC \` or U+009C),
//!   CAN, SUB or the next ESC (a string with no end runs to the end of
//!   the text, as a terminal would swallow it); two-byte sequences
//!   (`ESC 7`, `ESC ( B`, …); a lone ESC. A malformed CSI ends at the byte
//!   that breaks it, which is kept.
//! - C1 controls (U+0080–U+009F). The 8-bit string introducers (U+0090,
//!   U+0098, U+009D–U+009F) go alone, their content kept as text: in UTF-8
//!   text they are mostly mojibake (a `”` read as Latin-1 is
//!   `â\u{80}\u{9d}`), and taken as strings they would swallow text up to
//!   the next `\u{9c}` (a misread `“`).
//! - C0 controls and DEL, except `\n` and `\t`. Line ends become `\n`:
//!   `\r\n` (and `\r\r\n`) is `\n`, and a `\r` that overwrites a line (a
//!   progress bar) is `\n` too, so that every state the line went through
//!   is kept, on a line of its own, rather than only the last. So is a
//!   move to the line's first column (`ESC [ 1 G`), the way spinners
//!   redraw a line: `⠙` and the message after it are two lines, not one.
//!
//! A JSON document (an object or array, as `events.data` and resolutions
//! are) is made inert string by string: its escapes (`\u001b`, `\r`) are
//! controls once a reader decodes them, and a string's content never
//! spills into the next (the document stays valid JSON).
//!
//! Text with no control character is returned borrowed, after a scan that
//! the compiler vectorises: every hook runs this on every tool output.

use std::borrow::Cow;

const ESC: u8 = 0x1b;
const BEL: u8 = 0x07;
const CAN: u8 = 0x18;
const SUB: u8 = 0x1a;
const DEL: u8 = 0x7f;
/// UTF-8's first byte of U+0080–U+00BF, the C1 controls among them.
const C1_LEAD: u8 = 0xc2;

/// The text with no terminal control in it (see the module's comment).
pub fn inert(text: &str) -> Cow<'_, str> {
    let bytes = text.as_bytes();
    let candidate = next_candidate(bytes, 0);
    if looks_like_json_document(bytes) && (candidate.is_some() || memchr::memchr(b'\\', bytes).is_some()) {
        if let Some(out) = inert_json(text) {
            return out;
        }
    }
    match candidate {
        None => Cow::Borrowed(text),
        Some(_) => inert_plain(text),
    }
}

/// A byte that may start something to remove: a C0 control other than
/// `\n` and `\t`, DEL, or the lead byte of U+0080–U+00BF.
#[inline(always)]
fn is_candidate(b: u8) -> bool {
    (b < 0x20 && b != b'\n' && b != b'\t') || b == DEL || b == C1_LEAD
}

/// The first candidate byte at or after `from`. Blocks of 32 bytes are
/// tested whole (no early exit inside a block, so the test vectorises).
fn next_candidate(bytes: &[u8], from: usize) -> Option<usize> {
    let mut at = from;
    while let Some(block) = bytes.get(at..at + 32) {
        if block.iter().fold(false, |any, &b| any | is_candidate(b)) {
            break;
        }
        at += 32;
    }
    bytes[at..].iter().position(|&b| is_candidate(b)).map(|p| at + p)
}

fn inert_plain(text: &str) -> Cow<'_, str> {
    let bytes = text.as_bytes();
    let mut out = String::new();
    let mut copied = 0;
    let mut at = 0;
    while let Some(i) = next_candidate(bytes, at) {
        // (where what is removed ends, what replaces it)
        let (end, with) = match bytes[i] {
            b'\r' => {
                let run = bytes[i..].iter().take_while(|&&b| b == b'\r').count();
                if bytes.get(i + run) == Some(&b'\n') {
                    (i + run, "")
                } else {
                    (i + run, "\n")
                }
            }
            ESC => {
                let end = escape_end(bytes, i + 1);
                // a move to the line's first column (`ESC [ 1 G`) redraws
                // the line, as a `\r` does (a spinner before a message)
                (end, if matches!(&bytes[i..end], b"\x1b[G" | b"\x1b[1G") { "\n" } else { "" })
            }
            C1_LEAD => match bytes.get(i + 1) {
                Some(0x9b) => (csi_end(bytes, i + 2), ""),
                Some(0x80..=0x9f) => (i + 2, ""),
                // U+00A0–U+00BF: printable
                _ => {
                    at = i + 1;
                    continue;
                }
            },
            _ => (i + 1, ""),
        };
        out.push_str(&text[copied..i]);
        out.push_str(with);
        copied = end;
        at = end;
    }
    if copied == 0 {
        return Cow::Borrowed(text);
    }
    out.push_str(&text[copied..]);
    Cow::Owned(out)
}

/// Where the sequence whose ESC ends just before `at` ends.
fn escape_end(bytes: &[u8], at: usize) -> usize {
    match bytes.get(at) {
        Some(b'[') => csi_end(bytes, at + 1),
        Some(b']' | b'P' | b'X' | b'^' | b'_') => string_end(bytes, at + 1),
        // intermediates, then a final byte (`ESC ( B`); none: ESC and
        // intermediates go, what follows stays
        Some(0x20..=0x2f) => {
            let end = at + bytes[at..].iter().take_while(|b| (0x20..=0x2f).contains(*b)).count();
            match bytes.get(end) {
                Some(0x30..=0x7e) => end + 1,
                _ => end,
            }
        }
        Some(0x30..=0x7e) => at + 1,
        // a lone ESC: before a control, another ESC, a non-ASCII
        // character or the end
        _ => at,
    }
}

/// Where a control sequence whose introducer ends before `at` ends:
/// parameter bytes, intermediate bytes, a final byte. Malformed, it ends
/// before the byte that breaks it.
fn csi_end(bytes: &[u8], at: usize) -> usize {
    let params = at + bytes[at..].iter().take_while(|b| (0x30..=0x3f).contains(*b)).count();
    let inter = params
        + bytes[params..]
            .iter()
            .take_while(|b| (0x20..=0x2f).contains(*b))
            .count();
    match bytes.get(inter) {
        Some(0x40..=0x7e) => inter + 1,
        _ => inter,
    }
}

/// Where a control string (OSC, DCS, SOS, PM, APC) that starts at `at`
/// ends: after BEL, ST, CAN or SUB, before an ESC that starts something
/// else, or at the end of the text.
fn string_end(bytes: &[u8], at: usize) -> usize {
    let mut i = at;
    while i < bytes.len() {
        match bytes[i] {
            BEL | CAN | SUB => return i + 1,
            ESC if bytes.get(i + 1) == Some(&b'\\') => return i + 2,
            ESC => return i,
            C1_LEAD if bytes.get(i + 1) == Some(&0x9c) => return i + 2,
            _ => i += 1,
        }
    }
    bytes.len()
}

/// An object or array, judged by its first and last non-blank bytes (the
/// parse that confirms it runs only when there is something to remove).
fn looks_like_json_document(bytes: &[u8]) -> bool {
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
    let last = bytes.iter().rev().find(|b| !b.is_ascii_whitespace());
    matches!((first, last), (Some(b'{'), Some(b'}')) | (Some(b'['), Some(b']')))
}

/// A JSON document made inert string by string. None when no string
/// changes (the plain rules then see only JSON's syntax and blanks, whose
/// `\r` they turn into `\n`) or when the text is not valid JSON, which is
/// checked only once a string is to change.
fn inert_json(text: &str) -> Option<Cow<'_, str>> {
    let bytes = text.as_bytes();
    let mut out = String::new();
    let mut copied = 0;
    let mut valid = false;
    let mut i = 0;
    while let Some(open) = memchr::memchr(b'"', &bytes[i..]).map(|p| i + p) {
        // the closing quote: the first one no backslash escapes
        let mut j = open + 1;
        while *bytes.get(j)? != b'"' {
            j += if bytes[j] == b'\\' { 2 } else { 1 };
        }
        let literal = &text[open..=j];
        if string_needs_work(literal.as_bytes()) {
            if !valid {
                serde_json::from_str::<serde::de::IgnoredAny>(text).ok()?;
                valid = true;
            }
            let value: String = serde_json::from_str(literal).ok()?;
            if let Cow::Owned(clean) = inert_plain(&value) {
                out.push_str(&inert_plain(&text[copied..open]));
                out.push_str(&serde_json::to_string(&clean).ok()?);
                copied = j + 1;
            }
        }
        i = j + 1;
    }
    if copied == 0 {
        return None;
    }
    out.push_str(&inert_plain(&text[copied..]));
    Some(Cow::Owned(out))
}

/// Does a JSON string literal (quotes included) hold a control, raw or
/// escaped (`\u001b`, `\u009b`, `\b`, `\f`, `\r`)?
fn string_needs_work(literal: &[u8]) -> bool {
    if next_candidate(literal, 0).is_some() {
        return true;
    }
    let mut i = 0;
    while let Some(p) = memchr::memchr(b'\\', &literal[i..]) {
        let at = i + p;
        match literal.get(at + 1) {
            Some(b'b' | b'f' | b'r') => return true,
            Some(b'u') => {
                let code = literal
                    .get(at + 2..at + 6)
                    .and_then(|h| std::str::from_utf8(h).ok())
                    .and_then(|h| u32::from_str_radix(h, 16).ok());
                if code.is_some_and(|c| (c < 0x20 && c != 0x0a && c != 0x09) || (0x7f..=0x9f).contains(&c)) {
                    return true;
                }
            }
            _ => {}
        }
        i = at + 2;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Nothing a terminal acts on: no C0 control but `\n` and `\t`, no
    /// DEL, no C1 control.
    fn is_inert(text: &str) -> bool {
        text.chars()
            .all(|c| c == '\n' || c == '\t' || !(c.is_control() || ('\u{80}'..='\u{9f}').contains(&c)))
    }

    #[test]
    fn sequences_go_whole() {
        for (text, want) in [
            ("\x1b[31mred\x1b[0m plain", "red plain"),
            ("\x1b[1;38;5;196mbold\x1b[m", "bold"),
            ("\x1b[2J\x1b[Hcleared", "cleared"),
            ("\x1b[?25lhidden cursor\x1b[?25h", "hidden cursor"),
            ("a\x1b[3Ab", "ab"),
            ("\x1b]0;pwned\x07title", "title"),
            ("\x1b]0;pwned\x1b\\title", "title"),
            ("\x1b]8;;https://x.org\x1b\\link\x1b]8;;\x1b\\ text", "link text"),
            ("\x1bP1$r0m\x1b\\dcs", "dcs"),
            ("\x1b_apc payload\x1b\\x", "x"),
            ("\x1b^pm\x07x", "x"),
            ("\x1bXsos\x18x", "x"),
            ("\x1b]0;cut short", ""),
            ("\x1b]0;aborted\x1b[31mred", "red"),
            ("\x1b(Bascii", "ascii"),
            ("\x1b7saved\x1b8", "saved"),
            ("\x1b=keypad", "keypad"),
            ("lone \x1b", "lone "),
            ("lone \x1b\x1b[1mdouble", "lone double"),
            ("\x1b[31", ""),
            // malformed: the byte that breaks it stays
            ("\x1b[31\u{e9}t\u{e9}", "\u{e9}t\u{e9}"),
            ("\u{9b}31mC1 CSI", "C1 CSI"),
            ("a\u{85}b\u{9c}c\u{80}d", "abcd"),
            // 8-bit string introducers go alone (mojibake of ” and “)
            (
                "don\u{e2}\u{80}\u{9d}t keep \u{e2}\u{80}\u{9c}this",
                "don\u{e2}t keep \u{e2}this",
            ),
            ("bell\x07 nul\0 bs\x08 del\x7f vt\x0b ff\x0c", "bell nul bs del vt ff"),
            ("tab\tand\nnewline", "tab\tand\nnewline"),
            ("crlf\r\nline\r\r\nend", "crlf\nline\nend"),
            ("10%\r50%\r100%\n", "10%\n50%\n100%\n"),
            // a spinner redrawn at the line's first column, then the message
            ("\x1b[1G\x1b[0K\u{2819}\x1b[1G\x1b[0KThe following paths are ignored", "\n\u{2819}\nThe following paths are ignored"),
            ("a\x1b[Gb", "a\nb"),
            // another column is a move on the line, not a redraw
            ("a\x1b[5Gb", "ab"),
            ("\x1b[90m/Users/alice/x", "/Users/alice/x"),
            (
                "caf\u{e9} 20\u{b0}C \u{b5}s \u{a0}nbsp",
                "caf\u{e9} 20\u{b0}C \u{b5}s \u{a0}nbsp",
            ),
        ] {
            assert_eq!(inert(text), want, "{text:?}");
        }
    }

    #[test]
    fn clean_text_is_borrowed() {
        let long = "error: cannot find module 'x' in /home/dev/project\n\tat f (a.js:1:2)\n".repeat(300);
        for text in [
            "",
            "plain",
            "caf\u{e9} \u{b0} \u{a0}",
            long.as_str(),
            "{\"a\": \"b\\\\u001b\"}",
        ] {
            assert!(matches!(inert(text), Cow::Borrowed(_)), "{text:?}");
        }
    }

    #[test]
    fn json_documents_stay_json() {
        for (text, want) in [
            (
                r#"{"error":"\u001b[31mfail\u001b[0m","n":1}"#,
                r#"{"error":"fail","n":1}"#,
            ),
            (r#"["a\r\nb","c\rd","\u009b2Jx","e\bf"]"#, r#"["a\nb","c\nd","x","ef"]"#),
            (r#"{"a":"\\u001b stays text"}"#, r#"{"a":"\\u001b stays text"}"#),
            ("{\"a\": \"\u{9d}osc\u{9c}\"}\r\n", "{\"a\": \"osc\"}\n"),
            // an OSC with no end stops at the end of its string
            (r#"{"a":"\u001b]0;x","b":"kept"}"#, r#"{"a":"","b":"kept"}"#),
        ] {
            let got = inert(text);
            assert_eq!(got, want, "{text}");
            assert!(serde_json::from_str::<serde_json::Value>(&got).is_ok(), "{got}");
        }
        // not JSON: the plain rules (a JSON escape in prose is text)
        assert_eq!(inert("{not json \\u001b \x1b[1m}"), "{not json \\u001b }");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]

        #[test]
        fn output_is_inert_and_idempotent(text in "(\\PC|[\\x00-\\x1f\\x7f\\u{80}-\\u{9f}\\[\\]\\\\;0-9PX^_m]){0,60}") {
            let once = inert(&text);
            prop_assert!(is_inert(&once), "{:?} → {:?}", text, once);
            let twice = inert(&once);
            prop_assert!(matches!(twice, Cow::Borrowed(_)), "{:?}", once);
        }

        #[test]
        fn json_output_is_inert_when_decoded(values in proptest::collection::vec("(\\PC|[\\x00-\\x1f\\x7f\\u{80}-\\u{9f}\\[\\];0-9m]){0,20}", 0..4)) {
            let text = serde_json::to_string(&values).unwrap();
            let once = inert(&text);
            let decoded: Vec<String> = serde_json::from_str(&once).unwrap();
            prop_assert_eq!(decoded.len(), values.len());
            for value in &decoded {
                prop_assert!(is_inert(value), "{:?}", value);
            }
            prop_assert!(matches!(inert(&once), Cow::Borrowed(_)));
        }

        #[test]
        fn text_without_controls_is_unchanged(text in "(\\PC|[\\n\\t]){0,80}") {
            prop_assume!(is_inert(&text));
            prop_assert!(matches!(inert(&text), Cow::Borrowed(_)), "{:?}", text);
        }
    }
}
