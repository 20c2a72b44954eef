//! `path_names(text)`: the file names (last path components) that a text
//! mentions, as a JSON array: what the PreToolUse hook matches the file an
//! agent is about to edit against.
//!
//! `Cannot find module '/work/app/src/util.js'` → `["util.js"]`;
//! `main.rs:1:66: attempt to divide by zero` → `["main.rs"]`.

use std::sync::LazyLock;

use regex::Regex;

/// A path-like token: path characters, with a slash or a file extension.
static TOKEN: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"[A-Za-z0-9_.\-@~/]+").expect("valid pattern"));
/// A file name: something, a dot, an extension of 1 to 10 word characters.
static FILE_NAME: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[A-Za-z0-9_\-@~.]*[A-Za-z0-9_\-]\.[A-Za-z0-9]{1,10}$").expect("valid pattern"));

/// `path_basename(path)`: the last component of a path, trailing slashes
/// ignored: `/work/app/` → `app`, `/a/b/x.js` → `x.js` (the hooks' project
/// name and file name).
pub fn path_basename(path: &str) -> &str {
    let trimmed = path.trim_end_matches('/');
    trimmed.rsplit('/').next().unwrap_or(trimmed)
}

pub fn path_names(text: &str) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for token in TOKEN.find_iter(text) {
        let token = token.as_str().trim_end_matches(['.', '-']);
        let name = token.rsplit('/').next().unwrap_or(token);
        let has_letter = name.bytes().any(|b| b.is_ascii_alphabetic());
        if has_letter && FILE_NAME.is_match(name) && !names.iter().any(|n| n == name) {
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
}
