//! `keyword_overlap(a, b)` and `length_ratio(a, b)`: the cheap text checks
//! that guard the prefix and vector stages of the search.

use std::collections::HashSet;

use crate::text::js::{is_js_whitespace, utf16_len};

/// Keywords are words of at least this many characters (UTF-16 units).
const MIN_KEYWORD_UNITS: usize = 3;

/// The distinct keywords of `text`: whitespace-separated words, lowercased,
/// at least three characters long.
pub fn keywords(text: &str) -> HashSet<String> {
    text.split(is_js_whitespace)
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .filter(|w| utf16_len(w) >= MIN_KEYWORD_UNITS)
        .collect()
}

/// How many distinct keywords `a` and `b` share.
pub fn keyword_overlap(a: &str, b: &str) -> usize {
    let (small, large) = {
        let (ka, kb) = (keywords(a), keywords(b));
        if ka.len() <= kb.len() {
            (ka, kb)
        } else {
            (kb, ka)
        }
    };
    small.iter().filter(|k| large.contains(*k)).count()
}

/// `min(len a, len b) / max(len a, len b)`, lengths in UTF-16 units as the
/// original measured them; 1.0 when both are empty.
pub fn length_ratio(a: &str, b: &str) -> f64 {
    let (la, lb) = (utf16_len(a), utf16_len(b));
    if la == 0 && lb == 0 {
        return 1.0;
    }
    la.min(lb) as f64 / la.max(lb) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlap_counts_distinct_lowercased_words_of_three_or_more() {
        assert_eq!(keyword_overlap("Module not found", "module NOT found here"), 3);
        assert_eq!(keyword_overlap("an is of", "an is of"), 0);
        assert_eq!(keyword_overlap("error error error", "error"), 1);
        assert_eq!(keyword_overlap("", "anything"), 0);
        assert_eq!(keyword_overlap("모듈을 찾을 수 없음", "모듈을 못 찾음"), 1);
        assert_eq!(keyword_overlap("tab\tsep\u{3000}ara", "sep ara tab"), 3);
    }

    #[test]
    fn ratio_is_exact_at_the_threshold() {
        assert_eq!(length_ratio("", ""), 1.0);
        assert_eq!(length_ratio("", "a"), 0.0);
        assert!(length_ratio(&"a".repeat(7), &"a".repeat(10)) >= 0.7);
        assert!(length_ratio(&"a".repeat(69), &"a".repeat(100)) < 0.7);
        assert_eq!(length_ratio("😀", "ab"), 1.0);
    }

    proptest::proptest! {
        #[test]
        fn ratio_is_symmetric_and_bounded(a in ".*", b in ".*") {
            let r = length_ratio(&a, &b);
            proptest::prop_assert!((0.0..=1.0).contains(&r));
            proptest::prop_assert_eq!(r, length_ratio(&b, &a));
        }

        #[test]
        fn overlap_is_symmetric_and_at_most_the_keyword_count(a in ".*", b in ".*") {
            let n = keyword_overlap(&a, &b);
            proptest::prop_assert_eq!(n, keyword_overlap(&b, &a));
            proptest::prop_assert!(n <= keywords(&a).len().min(keywords(&b).len()));
        }
    }
}
