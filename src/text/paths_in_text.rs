//! `path_names(text)`: the file names (last path components) that a text
//! mentions, as a JSON array: what the PreToolUse hook matches the file an
//! agent is about to edit against.
//!
//! `Cannot find module '/work/app/src/util.js'` → `["util.js"]`;
//! `main.rs:1:66: attempt to divide by zero` → `["main.rs"]`.

//! Plain byte scanning rather than a regex: a hook process calls this once,
//! and compiling the two patterns cost more than a whole hook's SQL. The
//! tests check it against those patterns.

/// A character of a path-like token: `[A-Za-z0-9_.\-@~/]`.
fn is_path_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-' | b'@' | b'~' | b'/')
}

/// A file name (no `/`, made of path characters): something ending in a
/// word character or `-`, a dot, and an extension of 1 to 10 letters or
/// digits; that is, `^[A-Za-z0-9_\-@~.]*[A-Za-z0-9_\-]\.[A-Za-z0-9]{1,10}$`.
fn is_file_name(name: &str) -> bool {
    let Some((stem, extension)) = name.rsplit_once('.') else {
        return false;
    };
    (1..=10).contains(&extension.len())
        && extension.bytes().all(|b| b.is_ascii_alphanumeric())
        && stem
            .bytes()
            .last()
            .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// `path_basename(path)`: the last component of a path, trailing slashes
/// ignored: `/work/app/` → `app`, `/a/b/x.js` → `x.js` (the hooks' project
/// name and file name).
pub fn path_basename(path: &str) -> &str {
    let trimmed = path.trim_end_matches('/');
    trimmed.rsplit('/').next().unwrap_or(trimmed)
}

pub fn path_names(text: &str) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    // Path characters are ASCII, so splitting on the others keeps UTF-8 whole.
    for token in text.split(|c: char| !c.is_ascii() || !is_path_byte(c as u8)) {
        let token = token.trim_end_matches(['.', '-']);
        let name = token.rsplit('/').next().unwrap_or(token);
        let has_letter = name.bytes().any(|b| b.is_ascii_alphabetic());
        if has_letter && is_file_name(name) && !names.iter().any(|n| n == name) {
            names.push(name.to_owned());
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn basename_is_the_last_component() {
        assert_eq!(path_basename("/work/app"), "app");
        assert_eq!(path_basename("/work/app/"), "app");
        assert_eq!(path_basename("/a/b/x.js"), "x.js");
        assert_eq!(path_basename("x.js"), "x.js");
        assert_eq!(path_basename("/"), "");
        assert_eq!(path_basename(""), "");
    }

    #[test]
    fn finds_file_names() {
        assert_eq!(path_names("Cannot find module '/work/app/src/util.js'"), ["util.js"]);
        assert_eq!(path_names("main.rs:1:66: attempt to divide by zero"), ["main.rs"]);
        assert_eq!(path_names("File \"/app/x.py\", line 3, in <module>"), ["x.py"]);
        assert_eq!(path_names("open 'config.json' and /a/config.json"), ["config.json"]);
        assert_eq!(path_names("main.ts(1,13): error TS2304"), ["main.ts"]);
        assert!(path_names("Error: something failed. Try again.").is_empty());
        assert!(path_names("version 1.2.3 at line 42").is_empty());
    }

    /// The patterns this module used to compile, as the oracle.
    fn path_names_by_regex(text: &str) -> Vec<String> {
        let token = regex::Regex::new(r"[A-Za-z0-9_.\-@~/]+").unwrap();
        let file_name = regex::Regex::new(r"^[A-Za-z0-9_\-@~.]*[A-Za-z0-9_\-]\.[A-Za-z0-9]{1,10}$").unwrap();
        let mut names: Vec<String> = Vec::new();
        for token in token.find_iter(text) {
            let token = token.as_str().trim_end_matches(['.', '-']);
            let name = token.rsplit('/').next().unwrap_or(token);
            if name.bytes().any(|b| b.is_ascii_alphabetic())
                && file_name.is_match(name)
                && !names.iter().any(|n| n == name)
            {
                names.push(name.to_owned());
            }
        }
        names
    }

    proptest::proptest! {
        #[test]
        fn scanning_matches_the_patterns(text in r"([a-zA-Z0-9_./@~ :'\-]|é|\(|\n){0,60}") {
            proptest::prop_assert_eq!(path_names(&text), path_names_by_regex(&text));
        }
    }
}
