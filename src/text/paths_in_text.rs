//! Paths in a text:
//!
//! - `path_names(text)`: the file names (last path components) that a text
//!   mentions, as a JSON array: what the PreToolUse hook matches the file an
//!   agent is about to edit against. `Cannot find module
//!   '/work/app/src/util.js'` → `["util.js"]`; `main.rs:1:66: attempt to
//!   divide by zero` → `["main.rs"]`.
//! - `relative_paths(text, project, outside)`: the paths inside the project
//!   made relative to it, and, for what leaves the machine, the absolute
//!   paths outside it cut to their last component.
//!
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

/// What `relative_paths` does with an absolute path outside the project.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outside {
    /// Left as it is (what this machine stores and shows).
    Keep,
    /// `…/` and its last component (what is sent to a team's hub: no
    /// absolute path, in any home layout, leaves the machine).
    Cut,
}

/// Where an absolute path may start: the start of the text, or after a
/// space, a quote, or punctuation that precedes a path in tool output,
/// commands and JSON (`=`, `:`, `(`, `[`, `,`, `@`, `<`, `>`, `{`, `;`,
/// `|`, `&`).
fn starts_path(text: &[u8], at: usize) -> bool {
    at == 0
        || matches!(
            text[at - 1],
            b' ' | b'\t' | b'\n' | b'\r' | b'\'' | b'"' | b'`' | b'=' | b':' | b'(' | b'[' | b',' | b'@' | b'<'
                | b'>' | b'{' | b';' | b'|' | b'&'
        )
}

/// A byte that ends a path: white space, quotes, and the punctuation that
/// follows a path in the same places (`:` as in `file.py:3:`, `)`, `]`,
/// `,`, `;`, `&`, `|`, `>`, `}`, `*`, `?`).
fn ends_path(b: u8) -> bool {
    matches!(
        b,
        b' ' | b'\t' | b'\n' | b'\r' | b'\'' | b'"' | b'`' | b':' | b')' | b']' | b',' | b';' | b'&' | b'|' | b'>'
            | b'}' | b'*' | b'?' | b'<'
    )
}

/// The length of an absolute path starting at `at` (after `starts_path`):
/// `/x…`, `~/x…`, `file:///x…`, `C:\x…` or `C:/x…` (`\\` as JSON writes a
/// backslash counts as one). 0 when none starts there.
fn absolute_path_at(text: &[u8], at: usize) -> usize {
    let rest = &text[at..];
    let lead = if rest.starts_with(b"file:///") {
        7
    } else if rest.starts_with(b"file://~/") {
        // (a file URL in the home folder, as redact_private writes it)
        8
    } else if rest.starts_with(b"~/") {
        1
    } else if rest.first() == Some(&b'/') && rest.get(1).is_some_and(|&b| b != b'/' && !ends_path(b)) {
        0
    } else if rest.len() > 3
        && rest[0].is_ascii_alphabetic()
        && rest[1] == b':'
        && matches!(rest[2], b'\\' | b'/')
        && rest.get(3).is_some_and(|&b| !ends_path(b))
    {
        2
    } else {
        return 0;
    };
    let body = path_body(&rest[lead..]);
    // a path needs a name after its root (`/` alone, `/ 2` are not paths)
    if body < 2 {
        return 0;
    }
    lead + body
}

/// How far a path's body goes in `rest`: to the first byte that ends a
/// path, less a sentence's full stop after it (`… is /work/shop.`: one dot
/// after a letter or digit, at the end of the text or before white space).
fn path_body(rest: &[u8]) -> usize {
    let body = rest.iter().take_while(|&&b| !ends_path(b)).count();
    if body > 2
        && rest[body - 1] == b'.'
        && rest[body - 2].is_ascii_alphanumeric()
        && rest.get(body).is_none_or(|b| b.is_ascii_whitespace())
    {
        body - 1
    } else {
        body
    }
}

/// The length of the path starting at `at` with the project folder
/// (which may hold spaces, where no other path is looked for): the folder,
/// and what follows it after a `/`. 0 when the folder does not start there.
fn project_path_at(text: &[u8], at: usize, project: &str) -> usize {
    if !text[at..].starts_with(project.as_bytes()) {
        return 0;
    }
    let after = at + project.len();
    match text.get(after) {
        Some(b'/') => project.len() + 1 + path_body(&text[after + 1..]),
        None => project.len(),
        Some(&b) if ends_path(b) => project.len(),
        // a full stop after the folder (`… in /work/shop.`), but not a
        // folder beside it (`/work/shop.old/x`)
        Some(b'.') if text.get(after + 1).is_none_or(|&n| n.is_ascii_whitespace() || ends_path(n)) => project.len(),
        // `/work/shopping` is not in `/work/shop`
        Some(_) => 0,
    }
}

/// The last component of a path (`/` or `\` separated), trailing
/// separators ignored.
fn last_component(path: &str) -> &str {
    let trimmed = path.trim_end_matches(['/', '\\']);
    trimmed.rsplit(['/', '\\']).next().unwrap_or(trimmed)
}

/// `text` with every path inside `project` (a folder, as stored: absolute
/// or `~/…`) made relative to it (`<project>/src/a.py` → `src/a.py`, the
/// folder itself → `.`), and, with `Outside::Cut`, every other absolute
/// path cut to `…/<last component>`. URLs other than `file://` are left
/// as they are. A project of `/` or nothing makes nothing relative.
pub fn relative_paths<'t>(text: &'t str, project: Option<&str>, outside: Outside) -> std::borrow::Cow<'t, str> {
    use std::borrow::Cow;
    let project = project.map(|p| p.trim_end_matches('/')).filter(|p| !p.is_empty() && *p != "~");
    let bytes = text.as_bytes();
    if !bytes.iter().any(|&b| matches!(b, b'/' | b'\\')) {
        return Cow::Borrowed(text);
    }
    let mut out = String::new();
    let mut copied = 0;
    let mut at = 0;
    while at < bytes.len() {
        let b = bytes[at];
        if !(matches!(b, b'/' | b'~' | b'f') || b.is_ascii_alphabetic()) || !starts_path(bytes, at) {
            at += 1;
            continue;
        }
        let len = match project.map(|p| project_path_at(bytes, at, p)) {
            Some(len) if len > 0 => len,
            _ => absolute_path_at(bytes, at),
        };
        if len == 0 || !text.is_char_boundary(at + len) {
            at += 1;
            continue;
        }
        let path = &text[at..at + len];
        let local = path.strip_prefix("file://").unwrap_or(path);
        let inside = project.and_then(|p| {
            if local == p {
                // the folder itself: `.`, or `./` before a full stop
                // (`… is ..` would read as its parent)
                Some(if bytes.get(at + len) == Some(&b'.') { "./" } else { "." })
            } else {
                local.strip_prefix(p).and_then(|r| r.strip_prefix('/'))
            }
        });
        let replacement = match (inside, outside) {
            (Some(relative), _) => Some(relative.to_owned()),
            (None, Outside::Cut) => Some(match last_component(local) {
                "" | "~" => "…".to_owned(),
                name => format!("…/{name}"),
            }),
            (None, Outside::Keep) => None,
        };
        if let Some(replacement) = replacement {
            out.push_str(&text[copied..at]);
            out.push_str(&replacement);
            copied = at + len;
        }
        at += len;
    }
    if copied == 0 {
        return Cow::Borrowed(text);
    }
    out.push_str(&text[copied..]);
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_inside_the_project_become_relative() {
        let keep = |t: &str, p: &str| relative_paths(t, Some(p), Outside::Keep).into_owned();
        assert_eq!(keep("edited /work/shop/src/a.py", "/work/shop"), "edited src/a.py");
        assert_eq!(keep("cd /work/shop && make", "/work/shop/"), "cd . && make");
        // a full stop after a path is the sentence's
        assert_eq!(keep("your current working directory is /work/shop.", "/work/shop"),
                   "your current working directory is ./.");
        assert_eq!(keep("see /work/shop/src/a.py.", "/work/shop"), "see src/a.py.");
        assert_eq!(keep("cd /work/shop/..", "/work/shop"), "cd ..");
        // a project folder with spaces, as macOS users often have
        assert_eq!(keep("~/Documents/My Shop/src/a.py:3: error", "~/Documents/My Shop"), "src/a.py:3: error");
        assert_eq!(keep("cd '~/Documents/My Shop' && ls", "~/Documents/My Shop"), "cd '.' && ls");
        assert_eq!(keep(r#"{"file":"~/work/shop/a.js"}"#, "~/work/shop"), r#"{"file":"a.js"}"#);
        assert_eq!(keep("see /work/shopping/x.py", "/work/shop"), "see /work/shopping/x.py");
        assert_eq!(keep("mv /work/shop.old/x /tmp", "/work/shop"), "mv /work/shop.old/x /tmp");
        assert_eq!(keep("File \"/usr/lib/python3.11/x.py\", line 1", "/work/shop"),
                   "File \"/usr/lib/python3.11/x.py\", line 1");
        // a cwd of / or nothing makes nothing relative
        assert_eq!(relative_paths("cat /etc/x", Some("/"), Outside::Keep), "cat /etc/x");
        assert_eq!(relative_paths("cat /etc/x", None, Outside::Keep), "cat /etc/x");
    }

    #[test]
    fn what_leaves_the_machine_has_no_absolute_path() {
        let cut = |t: &str| relative_paths(t, Some("~/work/shop"), Outside::Cut).into_owned();
        assert_eq!(cut("~/work/shop/app.py and ~/.local/lib/python3.11/site-packages/yaml/__init__.py"),
                   "app.py and …/__init__.py");
        assert_eq!(cut("File \"/var/home/alice/x.py\", line 1"), "File \"…/x.py\", line 1");
        assert_eq!(cut("open file:///export/home/alice/notes.txt"), "open …/notes.txt");
        assert_eq!(cut("open file://~/notes/a.txt"), "open …/a.txt");
        assert_eq!(cut(r#"{"file":"C:\\Users\\alice\\proj\\a.ts"}"#), r#"{"file":"…/a.ts"}"#);
        assert_eq!(cut("C:/Users/alice/a.ts:3:1 error"), "…/a.ts:3:1 error");
        assert_eq!(cut("cd /srv/data&&ls"), "cd …/data&&ls");
        // not paths: URLs, division, a lone slash, relative paths
        assert_eq!(cut("see https://github.com/acme/shop/issues/1"), "see https://github.com/acme/shop/issues/1");
        assert_eq!(cut("a / b and src/x.py and //"), "a / b and src/x.py and //");
    }

    proptest::proptest! {
        #[test]
        fn nothing_but_paths_changes(text in r"([a-z ./~:\-]|/home/[a-z]{1,5}|é){0,40}") {
            let out = relative_paths(&text, Some("/home/dev/shop"), Outside::Cut);
            // no absolute path is left where one could start
            let bytes = out.as_bytes();
            for at in 0..bytes.len() {
                if bytes[at] == b'/' && starts_path(bytes, at) {
                    proptest::prop_assert_eq!(absolute_path_at(bytes, at), 0, "{:?} → {:?}", text, out);
                }
            }
            // and what is not a path is kept
            proptest::prop_assert_eq!(relative_paths(&out, Some("/home/dev/shop"), Outside::Cut), out.clone());
        }
    }

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
