//! `error_signature(text)` and `error_codes(text)`: what identifies an error
//! in a tool's output, without the boilerplate around it.
//!
//! What Claude Code passes as an error is rarely one line: `Exit code 1`,
//! then a Python traceback, node's loader frames, compiler diagnostics with
//! source excerpts, npm's log lines. Two errors of one tool share all of
//! that and differ in one line. The signature is that line (the exception
//! line of a traceback, the `Error:` line of node, the headline of a
//! compiler diagnostic, the `ERROR:` of psql, the `fatal:` of git …),
//! without its location, with the values masked: quoted strings → `<STR>`,
//! paths → `<PATH>`, numbers → `<N>`, bare names in known slots (`X is not
//! defined`, `bash: X: command not found`) → `<V>`. Unlike
//! normalize_error(), identifiers keep their digits (`TS2307`, `E0382`).
//!
//! The identifiers of an error (its codes, errno name, exception class)
//! decide between problems that read alike: two errors whose identifiers of
//! one kind differ are never the same problem. The values (what the
//! placeholders replaced) decide between fixes of one problem: `Cannot find
//! module 'express'` (install it) is not `Cannot find module './utils'`
//! (fix the path).
//!
//! The rules come from the real-error corpus (tests/fixtures/real_errors).

use std::borrow::Cow;
use std::sync::OnceLock;

use regex_lite::{Captures, Regex, Replacer};

/// Longest signature kept, in characters.
const MAX_CHARS: usize = 300;

/// Kinds of identifiers. Two errors with different identifiers of one
/// kind are different problems.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum IdKind {
    /// A diagnostic or error code: `TS2307`, `E0382`, `C2065`, node's
    /// `ERR_MODULE_NOT_FOUND`, npm's `E404`, curl's `curl(6)`.
    Code,
    /// An errno name: `ENOENT`, also from `[Errno 2]` or the message
    /// `No such file or directory`.
    Errno,
    /// An exception class, without its package: `KeyError`,
    /// `NullPointerException`.
    Exception,
    /// The program that printed `prog: message` (`cat`, `tar`, `git`):
    /// `cat: x: No such file or directory` is not gcc's `fatal error: x:
    /// No such file or directory`.
    Program,
    /// A type an error is about: `'NoneType' object has no attribute …` is
    /// not `'str' object has no attribute …`.
    Type,
}

impl IdKind {
    pub fn name(self) -> &'static str {
        match self {
            IdKind::Code => "code",
            IdKind::Errno => "errno",
            IdKind::Exception => "exception",
            IdKind::Program => "program",
            IdKind::Type => "type",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identifier {
    pub kind: IdKind,
    pub value: String,
}

/// What a masked value looked like, where it decides the fix: `Cannot
/// find module 'express'` (install the package) is not `Cannot find module
/// './utils'` (fix the path), `KeyError: 'GITHUB_TOKEN'` (set the variable)
/// not `KeyError: 'user_id'` (a dict access).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueKind {
    /// `GITHUB_TOKEN`: an environment variable (or constant).
    EnvName,
    /// `./utils`, `../lib/x`: a path relative to the code that names it.
    RelativePath,
    /// Anything else: a package, a key, a name, a file.
    Other,
}

#[derive(Debug, Clone, Default)]
pub struct Signature {
    /// The identifying line(s), values masked: the search key.
    pub text: String,
    pub identifiers: Vec<Identifier>,
    /// The masked values, in order.
    pub values: Vec<String>,
    /// The identifying line as the tool printed it, values kept (at most
    /// MAX_CHARS): what the advice quotes.
    pub headline: String,
    /// Whether that line says what went wrong (a known shape of error, or
    /// words that say something failed), rather than being only the first
    /// line there was or a wrapper's "task failed".
    pub identified: bool,
    /// Whether it is identified by more than the shape of a program's
    /// message: `segments: git path` names a program, and is identified
    /// as an error's line, but says nothing failed (see `shows_an_error`).
    pub says_what_failed: bool,
}

impl Signature {
    /// The first identifier of `kind`.
    pub fn identifier(&self, kind: IdKind) -> Option<&str> {
        self.identifiers
            .iter()
            .find(|i| i.kind == kind)
            .map(|i| i.value.as_str())
    }

    /// Whether `other` cannot be the same problem: an identifier of a kind
    /// both have differs, or their first values are of different kinds (a
    /// package is not a relative path, an environment variable not a key).
    pub fn conflicts_with(&self, other: &Signature) -> bool {
        let ids_differ = [
            IdKind::Code,
            IdKind::Errno,
            IdKind::Exception,
            IdKind::Program,
            IdKind::Type,
        ]
        .into_iter()
        .any(|kind| match (self.identifier(kind), other.identifier(kind)) {
            (Some(a), Some(b)) => a != b,
            _ => false,
        });
        let values_differ = match (self.values.first(), other.values.first()) {
            (Some(a), Some(b)) => value_kind(a) != value_kind(b),
            _ => false,
        };
        ids_differ || values_differ
    }

    /// How close `other`'s values are to these: 2 the same values, 1 values
    /// of the same kinds, 0 otherwise.
    pub fn value_closeness(&self, other: &Signature) -> u8 {
        if self.values == other.values {
            2
        } else if self.values.len() == other.values.len()
            && self
                .values
                .iter()
                .zip(&other.values)
                .all(|(a, b)| value_kind(a) == value_kind(b))
        {
            1
        } else {
            0
        }
    }
}

pub fn value_kind(value: &str) -> ValueKind {
    if value.starts_with("./") || value.starts_with("../") {
        ValueKind::RelativePath
    } else if ENV_NAME.is_match(value) {
        ValueKind::EnvName
    } else {
        ValueKind::Other
    }
}

/// The signature of a tool's error output.
pub fn signature(text: &str) -> Signature {
    // One failure asks for the signature of the same text several times
    // (error_signature, error_headline, kb_search's query): computed once.
    thread_local! {
        static LAST: std::cell::RefCell<Option<(String, Signature)>> = const { std::cell::RefCell::new(None) };
    }
    if let Some(found) = LAST.with_borrow(|last| last.as_ref().filter(|(t, _)| t == text).map(|(_, s)| s.clone())) {
        return found;
    }
    let computed = compute(text);
    LAST.set(Some((text.to_owned(), computed.clone())));
    computed
}

fn compute(text: &str) -> Signature {
    let failed = text.trim_start().lines().next().is_some_and(|l| is_exit_code(l.trim_end_matches('\r')));
    // Colours and cursor moves (ANSI escapes) are not part of a message, nor
    // what a wrapper printed around it.
    let plain = own_output(text);
    let lines: Vec<&str> = plain
        .lines()
        .map(|l| l.trim_end_matches('\r'))
        .filter(|l| !l.trim().is_empty())
        .collect();
    let lines = match lines.first() {
        Some(first) if is_exit_code(first) => &lines[1..],
        _ => &lines[..],
    };
    // a JSON document over several lines (`curl … | jq`): its error is
    // read as the document's one line would be
    let compact = (lines.len() > 1 && lines[0].trim() == "{")
        .then(|| serde_json::from_str::<serde_json::Value>(&lines.join("\n")).ok())
        .flatten()
        .filter(|doc| doc.get("error").is_some() || doc.get("errors").is_some())
        .map(|doc| doc.to_string());
    let one_line;
    let lines = match &compact {
        Some(doc) => {
            one_line = [doc.as_str()];
            &one_line[..]
        }
        None => lines,
    };
    let Some((headline, at, rank)) = headline(lines) else {
        return Signature::default();
    };
    let mut identifiers = Vec::new();
    let mut values = Vec::new();
    let mut text = mask(&headline, &mut identifiers, &mut values);
    // Identifiers stated beside the headline: node's `code: 'X'`, npm's
    // `code X`, Java's `Caused by: x.y.Exception`.
    for line in &lines[at.saturating_sub(3)..] {
        if let Some(c) = NODE_CODE.captures(line).or_else(|| NPM_CODE.captures(line)) {
            push_id(&mut identifiers, IdKind::Code, &c[1]);
        } else if let Some(c) = CAUSED_BY.captures(line) {
            push_id(&mut identifiers, IdKind::Exception, short_class(&c[1]));
        }
    }
    if let Some(errno) = errno_of(&headline) {
        push_id(&mut identifiers, IdKind::Errno, errno);
    }
    if text.chars().count() > MAX_CHARS {
        text = text.chars().take(MAX_CHARS).collect();
    }
    let headline: String = headline.trim().chars().take(MAX_CHARS).collect();
    // a tool that says how to go on (`hint: Use -f if you really want to
    // add them.`) has said what went wrong
    let hinted = lines.iter().any(|l| l.trim_start().starts_with("hint: "));
    // a command that failed (the harness said its exit code) and said one
    // sentence: that sentence is its error (`none of the git remotes …
    // point to a known GitHub host`)
    let words = |line: &str| line.split_whitespace().filter(|w| w.chars().any(char::is_alphabetic)).count();
    // (a wrapper's line, a tally, a bare word is no such sentence; a
    // source excerpt under it or an address after it is no other)
    // (asked last, of a short output only: it judges every line again)
    let one_sentence = || {
        words(&headline) >= 4
            && rank != 2
            && lines.len() <= 12
            && lines.iter().filter(|l| !is_excerpt_or_address(l)).count() == 1
    };
    let says_what_failed = rank >= RANK_SAYS_WHAT_FAILED
        || identifiers.iter().any(|i| i.kind != IdKind::Program)
        || hinted
        || failed && one_sentence();
    let identified = (says_what_failed || !identifiers.is_empty()) && !rejects_its_input_data(&headline);
    // a line of commands that failed at its last, which said one sentence
    // after what the others printed (`git log -3 && gh pr view 546`): that
    // sentence, the last line, is its error
    if failed && !identified && lines.len() > 1 {
        let last = lines[lines.len() - 1].trim();
        // (a wrapper's last word, a tally, is no such sentence)
        if words(last) >= 6 && last.starts_with(char::is_alphabetic) && !is_tally(last) && !WRAPPER.is_match(last) {
            // (the signature of that line alone, as a failed command's one
            // sentence is identified above)
            let mut alone = compute(last);
            if !alone.headline.is_empty() {
                alone.identified = !rejects_its_input_data(&alone.headline);
                alone.says_what_failed = alone.identified;
                return alone;
            }
        }
    }
    Signature {
        text,
        identifiers,
        values,
        headline,
        identified,
        says_what_failed: says_what_failed && identified,
    }
}

/// Whether what a command line printed shows an error, when it may have
/// worked (a success whose exit status a pipe hid): its identifying line
/// says what went wrong. A line only in the shape of a program's message
/// (`prog: message`) is an error's in a failure's output; in a success's
/// it is one when `prog` is a program the line ran, which is how programs
/// sign their messages (`sudo: a password is required`, `ls: 'x'에 접근할
/// 수 없습니다`: words in any language), and otherwise a value the
/// command printed (`segments: git path session time`, `time: 10:41`).
/// `programs`: the names the line's programs ran by (a shell's among
/// them: `bash: x: command not found` is its own).
pub fn shows_an_error(output: &str, programs: &[String]) -> bool {
    let found = signature(output);
    found.says_what_failed
        || found.identified
            && found
                .identifiers
                .iter()
                .any(|i| i.kind == IdKind::Program && programs.contains(&i.value))
}

/// A quoted value's text up to its closing quote, its `\"` unescaped
/// (`err="Get \"http://x\": refused" logger="…"` → `Get "http://x": refused`).
fn quoted_value(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.extend(chars.next()),
            '"' => break,
            _ => out.push(c),
        }
    }
    out
}

/// Whether a line is a source excerpt under a diagnostic (`  |`, `12 |
/// …`, `   ^~~~`, `-->`) or an address alone: what stands beside a
/// failed command's one sentence without being another.
fn is_excerpt_or_address(line: &str) -> bool {
    let trimmed = line.trim();
    starts_with_any(trimmed, &["|", "^", "-->"])
        || SOURCE_LINE.is_match(trimmed)
        || is_address(trimmed)
}

/// Whether a (trimmed) line is an address alone: a page to read, a pull
/// request's.
fn is_address(trimmed: &str) -> bool {
    !trimmed.contains(char::is_whitespace) && trimmed.starts_with(|c: char| c.is_ascii_lowercase()) && URL.is_match(trimmed)
}

/// Whether the headline is a JSON parser rejecting the data it was given
/// (`jq: parse error: Invalid numeric literal …`, `JSONDecodeError:
/// Expecting value …`, `Unexpected token '<', "<!DOCTYPE "… is not valid
/// JSON`, Go's `invalid character '<' looking for beginning of value`):
/// such an error does not say what went wrong, only that what
/// came before it (the command piped in, the file or the server read)
/// gave something that is not JSON, an error page or a message of its
/// own. Two of them are the same problem only when their producers failed
/// the same way, which their text does not tell (a guessed repository
/// owner, a host the network refused, a page not found all end in the
/// same `JSONDecodeError`): so none is learned from. A jq program that does not compile (`jq: error: syntax error
/// …`) says what went wrong in it, and stays identified.
fn rejects_its_input_data(headline: &str) -> bool {
    let line = headline.trim();
    starts_with_any(line, &["jq: parse error:", "jq: error (at "])
        || contains_any(
            line,
            &[
                "JSONDecodeError",
                "Unexpected end of JSON input",
                " is not valid JSON",
                " in JSON at position ",
                // Go's encoding/json: `invalid character '<' looking for beginning of value`
                " looking for beginning of value",
            ],
        )
        // (jq before 1.7: `parse error: Invalid literal at line 2, column 0`)
        || line.starts_with("parse error: ") && line.contains(" at line ") && line.contains(", column ")
}

/// Whether an error says a test's expectation was not met (an assertion
/// failed: what the code gave is not what the test expected), from its
/// headline and its text: the error of this code's own logic, whose fix
/// is this code's too.
pub fn states_an_unmet_expectation(headline: &str, raw: &str) -> bool {
    const EXPECTATION: &[&str] = &[
        "AssertionError",
        "AssertionFailedError",
        "ComparisonFailure",
        "assertion failed",
        "assertion `left == right` failed",
        "assertion `left != right` failed",
        "expect(received)",
        "Failure/Error: expect",
    ];
    EXPECTATION.iter().any(|x| headline.contains(x) || raw.contains(x))
        // a Go test's own message (`x_test.go:12: got 1, want 2`) under `--- FAIL:`
        || raw.contains("--- FAIL: ") && headline.contains("_test.go:")
}

/// The part of a tool's output that identifies its error: its own output
/// (`own_output`: without Claude Code's `Exit code N` and what a wrapper
/// that ran it printed around it), from two lines before its identifying
/// line on when that line is further in than the first 200 bytes (a test
/// runner's session header, a build's log). What an error's key and stored
/// excerpt are made of, so that every failure of one test runner does not
/// share one key made of its header, and one error met through `npm run`,
/// `make` or directly is one key.
pub fn excerpt(text: &str) -> Cow<'_, str> {
    let own = own_output(text);
    // (the lines as `compute` sees them, with where each starts)
    let mut starts = Vec::new();
    let mut lines = Vec::new();
    let mut offset = 0;
    for line in own.split_inclusive('\n') {
        let trimmed = line.trim_end_matches(['\n', '\r']);
        if !trimmed.trim().is_empty() {
            starts.push(offset);
            lines.push(trimmed);
        }
        offset += line.len();
    }
    let Some((_, at, _)) = headline(&lines) else {
        return own;
    };
    let from = starts[at.saturating_sub(2)];
    if from <= 200 {
        return own;
    }
    match own {
        Cow::Borrowed(own) => Cow::Borrowed(&own[from..]),
        Cow::Owned(own) => Cow::Owned(own[from..].to_owned()),
    }
}

/// What a tool printed itself, as its error: `text` without Claude Code's
/// `Exit code N` (the harness's, and a wrapper changes it: make exits 2
/// for a recipe's 1) and without what a program that ran the tool printed
/// around it: a package manager's script header (`> app@1.0.0 report`,
/// `> node scripts/report.js`, yarn's and bun's `$ node …`) and footer
/// (`npm error Lifecycle script …`, `ELIFECYCLE`, `error: script "report"
/// exited with code 1`), make's `make: *** [report] Error 1` and the recipe
/// lines it echoed, a task runner's banners (just, go-task, mise,
/// cargo-make, poe, nx, turbo, whose `app:report: ` before every line goes
/// too), `cargo run`'s and husky's last word. The error is the same
/// whatever ran it. Empty when there is nothing else: then `text`.
pub fn own_output(text: &str) -> Cow<'_, str> {
    // (colours, cursor moves and other controls are not part of it either:
    // the same rule as for what is stored, `terminal::inert`)
    match crate::text::terminal::inert(text) {
        Cow::Borrowed(plain) => own_output_plain(plain),
        Cow::Owned(plain) => Cow::Owned(own_output_plain(&plain).into_owned()),
    }
}

fn own_output_plain(text: &str) -> Cow<'_, str> {
    let mut lines: Vec<&str> = text.lines().map(|l| l.trim_end_matches('\r')).collect();
    // turbo puts `<package>:<task>: ` before every line of a task's output
    let turbo = (text.contains("cache miss, executing") || text.contains("cache bypass, force executing"))
        .then(|| turbo_prefix(&lines))
        .flatten();
    let mut changed = false;
    // act (GitHub Actions run locally) puts `[workflow/job]   | ` before
    // every line a step printed, and reports each step and the job on
    // lines of its own: the steps' output is what failed
    if is_act_log(&lines) {
        lines = lines.iter().filter_map(|l| act_step_output(l)).collect();
        changed = true;
    }
    if let Some(prefix) = &turbo {
        let stripped: Vec<&str> = lines
            .iter()
            .filter_map(|l| match l.strip_prefix(prefix.as_str()) {
                Some(rest) => (!rest.starts_with("cache ")).then_some(rest),
                None => (!l.starts_with("• ")).then_some(*l),
            })
            .collect();
        lines = stripped;
        changed = true;
    }
    let blank = |l: &str| l.trim().is_empty();
    let mut first = 0;
    let mut last = lines.len();
    // the harness's exit code
    while first < last && blank(lines[first]) {
        first += 1;
    }
    if first < last && is_exit_code(lines[first]) {
        first += 1;
    }
    let exit_line_only = first;
    // what the wrappers printed after it (its last word, from the end)
    let mut echoed = false;
    while first < last {
        let line = lines[last - 1].trim();
        if line.is_empty() {
            last -= 1;
        } else if let Some(echoes) = wrapper_footer(line) {
            echoed |= echoes;
            last -= 1;
        } else {
            break;
        }
    }
    // and before it: the headers, with the command lines they echo
    let mut echo = false;
    while first < last {
        let line = lines[first].trim_start();
        if line.trim().is_empty() {
            first += 1;
        } else if let Some(then_echo) = wrapper_header(line) {
            echo = then_echo;
            first += 1;
        } else if SHELL_STARTUP.is_match(line.trim_end()) {
            // (a shell's start-up lines: with nothing after them but a
            // wrapper's last word, the whole text is what there is)
            first += 1;
        } else if echo && line.starts_with("> ") {
            first += 1;
        } else if echoed && echoed_command(line) {
            // make and just print each recipe line before they run it
            first += 1;
        } else {
            break;
        }
    }
    if first >= last {
        return Cow::Borrowed(text);
    }
    if !changed && first == exit_line_only && last == lines.len() {
        // nothing but the exit code (and blank lines) came off: a slice
        let from = lines[first].as_ptr() as usize - text.as_ptr() as usize;
        return Cow::Borrowed(&text[from..]);
    }
    Cow::Owned(lines[first..last].join("\n"))
}

/// Whether `lines` are act's log: its `[workflow/job] ⭐ Run …` step lines.
fn is_act_log(lines: &[&str]) -> bool {
    lines.iter().any(|l| l.starts_with('[') && (l.contains("] ⭐ Run ") || l.contains("] 🏁  Job ")))
}

/// A line of act's log as what a step printed (`[CI/test]   | Would
/// reformat: a.py` is `Would reformat: a.py`); none for act's own lines
/// (`[CI/test]   ❌  Failure - Main Run formatting check`, `exitcode '1':
/// failure`, its last `Error: Job 'test' failed`). A line of another
/// program, before act began, stays.
fn act_step_output(line: &str) -> Option<&str> {
    if let Some((job, rest)) = line.strip_prefix('[').and_then(|l| l.split_once("] ")) {
        if job.contains('/') {
            return rest.trim_start().strip_prefix('|').map(|out| out.strip_prefix(' ').unwrap_or(out));
        }
    }
    if line.starts_with("Error: Job '") && line.ends_with("' failed") {
        return None;
    }
    Some(line)
}

/// The `<package>:<task>: ` turbo puts before the lines of a task's
/// output: the one most lines start with.
fn turbo_prefix(lines: &[&str]) -> Option<String> {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for line in lines {
        let Some(end) = line.find(": ") else { continue };
        let token = &line[..end];
        if token.contains(':') && !token.contains(char::is_whitespace) && !token.starts_with(|c: char| c.is_ascii_digit()) {
            match counts.iter_mut().find(|(t, _)| *t == token) {
                Some((_, n)) => *n += 1,
                None => counts.push((token, 1)),
            }
        }
    }
    counts
        .into_iter()
        .max_by_key(|(_, n)| *n)
        .filter(|(_, n)| *n >= 2)
        .map(|(token, _)| format!("{token}: "))
}

/// Whether `line` (trimmed at its start) is a wrapper's header: a package
/// manager's or task runner's line before the output of what it runs; and
/// whether the lines after it that start with `> ` are the command it
/// echoes (npm, pnpm, nx).
fn wrapper_header(line: &str) -> Option<bool> {
    if let Some(rest) = line.strip_prefix("> ") {
        // `> app@1.0.0 report`, `> @scope/app@1.0.0 report /path`, `> nx run app:report`
        let word = rest.split_whitespace().next().unwrap_or("");
        if word.get(1..).is_some_and(|w| w.contains('@')) && rest.contains(' ') || rest.starts_with("nx run ") {
            return Some(true);
        }
        return None;
    }
    let echoes = line.starts_with("$ ")                         // yarn's and bun's echo
        || line.starts_with("yarn run v")
        || line.starts_with("Poe => ")
        || line.starts_with("task: [")                           // go-task
        || line.starts_with('[') && line.contains("] $ ")        // mise
        || line.starts_with("[cargo-make] ")
        || line.starts_with("• ")                                // turbo
        || (line.starts_with("make: ") || line.starts_with("make[")) && line.contains("Entering directory");
    echoes.then_some(false)
}

/// Whether `line` (trimmed) is a wrapper's footer: a package manager's or
/// task runner's last word after what it ran failed; and whether that
/// wrapper echoes the command lines it runs (make, just).
fn wrapper_footer(line: &str) -> Option<bool> {
    // (make's own error, `make: *** No rule to make target`, is no wrapper's)
    if MAKE_RECIPE_FAILED.is_match(line)
        || (line.starts_with("make: ") || line.starts_with("make[")) && line.contains("Leaving directory")
        || line.starts_with("error: Recipe `")
    {
        return Some(true);
    }
    let wrapper = line.starts_with("npm ERR!")
        || line.starts_with("npm error")
        || line.starts_with("error Command failed with exit code")
        || line.starts_with("info Visit https://yarnpkg.com")
        || line.starts_with("ELIFECYCLE")
        || line.starts_with("ERR_PNPM_")
        || EXIT_STATUS.is_match(line)
        || line.starts_with("error: script \"") && line.contains("\" exited with code")
        || line.starts_with("task: Failed to run task")
        || line.starts_with('[') && line.contains("] ERROR task failed")
        || line.starts_with("[cargo-make] ")
        || line.starts_with("error: process didn't exit successfully")
        || line.starts_with("husky - ")
        || line.starts_with("Error: Process completed with exit code")
        // nx
        || line.chars().all(|c| c == '—' || c == '─')
        || line.starts_with(">  NX ")
        || line.starts_with("NX ")
        || line.starts_with("Failed tasks:")
        || NX_TALLY.is_match(line)
        || line.starts_with("View structured, searchable error logs")
        // turbo
        || line.starts_with("ERROR: command finished with error")
        || line.starts_with("ERROR  run failed")
        || line.starts_with("ERROR run failed")
        || TURBO_SUMMARY.is_match(line);
    wrapper.then_some(false)
}

/// Whether `line` is a command line a task runner echoed: it reads as a
/// run of a program errkb knows.
fn echoed_command(line: &str) -> bool {
    crate::text::command::analyse(line).is_some_and(|c| crate::text::command::is_known(&c.program))
}

/// The rank of a line that says something failed (see `judge`): below it,
/// the first line there was, or a wrapper's.
const RANK_SAYS_WHAT_FAILED: u8 = 3;

fn push_id(ids: &mut Vec<Identifier>, kind: IdKind, value: &str) {
    if !ids.iter().any(|i| i.kind == kind && i.value == value) {
        ids.push(Identifier {
            kind,
            value: value.to_string(),
        });
    }
}

fn short_class(class: &str) -> &str {
    class.rsplit('.').next().unwrap_or(class)
}

/// A shape of text, as a regex, and a cheap test that every text of that
/// shape passes (a literal it must contain, or start with). The regex is
/// compiled the first time a text passes the test, and run only on texts
/// that pass it.
///
/// A hook computes one signature per process. Compiling all the rules'
/// automata, and searching each line with every one, was half of the
/// failure hook's instructions and half of its memory; most rules cannot
/// match most lines, which their literal tells at once. The test
/// `every_match_passes_its_rule_test` checks the literals against the
/// corpus.
pub(crate) struct Rule {
    may_match: fn(&str) -> bool,
    pattern: &'static str,
    regex: OnceLock<Regex>,
}

impl Rule {
    const fn new(may_match: fn(&str) -> bool, pattern: &'static str) -> Rule {
        Rule {
            may_match,
            pattern,
            regex: OnceLock::new(),
        }
    }

    /// The compiled regex. regex-lite's `\w`, `\d`, `\s` and `\b` are the
    /// ASCII ones: tools' identifiers, codes and paths are ASCII, localized
    /// words are matched literally.
    fn regex(&self) -> &Regex {
        self.regex
            .get_or_init(|| Regex::new(self.pattern).expect("a valid rule"))
    }

    fn is_match(&self, text: &str) -> bool {
        (self.may_match)(text) && self.regex().is_match(text)
    }

    /// `text` after a match at its start (a rule of a prefix, `^…`).
    fn strip_prefix<'t>(&self, text: &'t str) -> Option<&'t str> {
        if (self.may_match)(text) {
            self.regex().find(text).filter(|m| m.start() == 0).map(|m| &text[m.end()..])
        } else {
            None
        }
    }

    fn captures<'t>(&self, text: &'t str) -> Option<Captures<'t>> {
        if (self.may_match)(text) {
            self.regex().captures(text)
        } else {
            None
        }
    }

    fn captures_iter<'r, 't>(&'r self, text: &'t str) -> impl Iterator<Item = Captures<'t>> + use<'r, 't> {
        (self.may_match)(text)
            .then(|| self.regex().captures_iter(text))
            .into_iter()
            .flatten()
    }

    fn replace_all<'t>(&self, text: &'t str, with: impl Replacer) -> Cow<'t, str> {
        if (self.may_match)(text) {
            self.regex().replace_all(text, with)
        } else {
            Cow::Borrowed(text)
        }
    }
}

/// Whether `text` contains any of `literals`.
fn contains_any(text: &str, literals: &[&str]) -> bool {
    literals.iter().any(|l| text.contains(l))
}

/// Whether `text` starts with any of `literals`.
fn starts_with_any(text: &str, literals: &[&str]) -> bool {
    literals.iter().any(|l| text.starts_with(l))
}

/// Whether a line is Claude Code's `Exit code N` (N may be negative) and
/// nothing else. (A scanner: the first line of nearly every error asks.)
fn is_exit_code(line: &str) -> bool {
    line.strip_prefix("Exit code ")
        .map(|n| n.strip_prefix('-').unwrap_or(n))
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Whether `text` starts as a name does (an ASCII letter or `_`): the
/// exception rules' test, so that their regexes are compiled only for a
/// line that may match them.
fn starts_a_name(text: &str) -> bool {
    text.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
}

fn has_digit(text: &str) -> bool {
    text.bytes().any(|b| b.is_ascii_digit())
}

/// How exception classes end (Python, Java, JavaScript).
const EXCEPTION_ENDINGS: &[&str] = &["Error", "Exception", "Warning", "Interrupt", "Exit", "Iteration"];

/// The rules, each `NAME: test, pattern;`. Defined in one place so that the
/// tests can check every one.
macro_rules! rules {
    ($($(#[$doc:meta])* $name:ident: $test:expr, $pattern:expr;)*) => {
        $($(#[$doc])* static $name: Rule = Rule::new($test, $pattern);)*
        #[cfg(test)]
        const ALL_RULES: &[(&str, &Rule)] = &[$((stringify!($name), &$name)),*];
    };
}

rules! {
    /// `GITHUB_TOKEN`: an environment variable's name.
    ENV_NAME: |v| v.contains('_'), r"^[A-Z][A-Z0-9]*(_[A-Z0-9]+)+$";

    // Lines around the headline.
    EXIT_STATUS: |l| l.starts_with("Exit status "), r"^Exit status \d+$";
    /// nx's tally: `✖    1/1 failed`, `✔    0/1 succeeded [0 read from cache]`, `- app:report`.
    NX_TALLY: |l| l.starts_with('✖') || l.starts_with('✔') || l.starts_with("- "),
        r"^(?:[✖✔]\s+\d+/\d+ (?:failed|succeeded).*|- [\w@/.-]+:[\w:.-]+)$";
    /// turbo's summary: ` Tasks:    0 successful, 1 total`, `app#report: command … exited (1)`.
    TURBO_SUMMARY: |l| contains_any(l, &["Tasks:", "Cached:", "Time:", "Failed:", "#"]),
        r"^(?:Tasks:\s+\d+ successful|Cached:\s+\d+ cached|Time:\s+[\d.]+m?s|Failed:\s+\S+#\S+|[\w@/.-]+#[\w:.-]+: command .* exited \(\d+\))";
    NODE_CODE: |l| l.contains("code: '"), r"^\s*code: '([A-Z][A-Z0-9_]+)'";
    NPM_CODE: |l| starts_with_any(l, &["npm ERR! code ", "npm error code "]),
        r"^npm (?:ERR!|error) code ([A-Z][A-Z0-9_]+)$";
    CAUSED_BY: |l| l.starts_with("Caused by: "), r"^Caused by: ((?:[\w$]+\.)*[\w$]*(?:Exception|Error))\b";

    // The detectors of `judge`, each for one shape of identifying line.
    PY_EXCEPTION: |l| starts_a_name(l) && contains_any(l, EXCEPTION_ENDINGS),
        r"^(?:E\s+)?((?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Warning|Interrupt|Exit|Iteration))(?::(?: (.*))?)?$";
    /// A line that starts like a Python exception (is_python_exception).
    PY_LINE: |l| starts_a_name(l) && contains_any(l, EXCEPTION_ENDINGS),
        r"^(?:E\s+)?(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Warning|Interrupt|Exit|Iteration)(?::|$)";
    JAVA_THREAD: |l| l.starts_with("Exception in thread \""), r#"^Exception in thread "[^"]*" (.*)$"#;
    /// Elixir's error report, at compile time and at run time:
    /// `** (CompileError) lib/app.ex:3: undefined function foo/0`.
    ELIXIR: |l| l.starts_with("** ("), r"^\*\* \(([\w.]+)\) (.+)$";
    /// The Kotlin compiler's diagnostic (`e: file:///w/Main.kt:12:5
    /// Unresolved reference: foo`, before 2.0 `e: /w/Main.kt: (12, 5): …`).
    KOTLIN: |l| l.starts_with("e: "), r"^e: (?:file://)?\S+?(?::\d+:\d+|: \(\d+, \d+\)):? (.+)$";
    /// Gradle's line for a failed test's exception, under the test's
    /// `AppTest > renders() FAILED`: `java.io.FileNotFoundException at AppTest.java:12`.
    GRADLE_TEST_EXCEPTION: |l| l.contains(" at "),
        r"^([\w.$]*(?:Exception|Error|Failure))(?:: (.+?))? at [\w.$]+\.(?:java|kt|groovy|scala):\d+$";
    /// Ruby's uncaught error: `/w/app.rb:3:in '<main>': undefined local
    /// variable or method 'foo' for main (NameError)` (before 3.4 the
    /// method is quoted `like this').
    RUBY: |l| l.contains(":in "), r"^\S+?:\d+:in [`'][^']*': (.+) \(([\w:]+)\)$";
    /// ShellCheck's finding, under the line it marks: `^-- SC2086 (info):
    /// Double quote to prevent globbing and word splitting.`
    SHELLCHECK: |l| l.starts_with('^') && l.contains("SC"), r"^\^-*\^?\s+(SC\d{4})(?:\s+\((error|warning|info|style)\))?:\s+(.+)$";
    /// `dotnet test`'s mark of a failed test: `Failed App.Tests.X.Renders [4 ms]`.
    DOTNET_FAILED: |l| l.starts_with("Failed "), r"^Failed (\S+) \[[\d.]+ (?:ms|s|m)\]$";
    NODE_ERROR: |l| l.starts_with(|c: char| c.is_ascii_uppercase()) && l.contains("Error"), r"^(?:Uncaught )?(Error|[A-Z]\w*Error)(?: \[([A-Z_]+)\])?: (.+)$";
    /// A diagnostic with its code in brackets, as rustc, clippy and ty
    /// print them: `error[E0382]: …`, `error[call-non-callable]: …`. (A
    /// bare `error: …` is GIT's: a log line of a passing test says that too.)
    RUSTC: |l| l.starts_with("error["), r"^error(\[[\w-]+\]): (.+)$";
    /// A miette-style diagnostic (biome, oxlint, deno, rolldown): `× message`
    /// under a header that ends with its category and a rule of `━`.
    MIETTE_HEADER: |l| l.contains("━━━"), r"(\S+)\s+━{3,}\s*$";
    /// Linters name the rule a line breaks: markdownlint's `MD036/no-…`,
    /// ruff's and flake8's `SIM115`, biome's `lint/correctness/…`,
    /// commitlint's `✖ … [body-max-line-length]`, eslint's `3:1 error … rule`.
    MARKDOWNLINT: |l| l.contains("MD"), r"(?:^|\s)(MD\d{3})(?:/[\w-]+)*\s+(.+)$";
    /// Ruff's and flake8's `[path:line:col: ]CODE [*] message`, after a
    /// path of any length (a rule code has digits).
    RUFF: |l| l.as_bytes().windows(2).any(|w| w[0].is_ascii_uppercase() && w[1].is_ascii_digit()),
        r"^(?:\S+?:\d+:\d+:?\s+)?([A-Z]{1,4}\d{2,4})\s+(\[\*\]\s+)?([A-Z`'].+)$";
    BIOME: |l| l.contains("lint/") || l.contains("assist/"), r"(?:^|\s)((?:lint|assist)/\w+/\w+)\b";
    /// (its rules are lower case: lint-staged's `✖ eslint --fix [FAILED]` is no rule)
    COMMITLINT: |l| l.starts_with('✖'), r"^✖\s+(.+?)\s+\[([a-z][a-z-]*)\]$";
    /// pylint's `app/store.py:17:8: E1101: Instance of 'Store' has no
    /// 'items' member (no-member)`: its letter says how bad (Error, Fatal,
    /// Warning, Convention, Refactor, Information).
    PYLINT: |l| l.as_bytes().windows(8).any(|w| {
            w.starts_with(b": ") && b"CRWEFI".contains(&w[2]) && w[3..7].iter().all(u8::is_ascii_digit) && w[7] == b':'
        }),
        r"^\S+?:\d+:\d+: ([CRWEFI]\d{4}): (.+?)(?: \([\w-]+\))?$";
    /// javac under Maven: `[ERROR] /w/src/main/java/App.java:[42,16] incompatible types: …`.
    MAVEN_COMPILER: |l| l.starts_with("[ERROR] "), r"^\[ERROR\] \S+?\.(?:java|kt|scala|groovy):\[\d+,\d+\] (.+)$";
    /// pnpm's error: `ERR_PNPM_NO_MATCHING_VERSION  No matching version found for zod@^4.9.0`.
    PNPM: |l| l.starts_with("ERR_PNPM_") || l.starts_with("[ERR_PNPM_"), r"^\[?(ERR_PNPM_[A-Z0-9_]+)\]?\s+(.+)$";
    /// Yarn 2+'s log: `➤ YN0082: │ typescriptt@npm:^5.4.0: No candidates found`.
    YARN_BERRY: |l| l.starts_with("➤ YN"), r"^➤ (YN\d{4}): [│└┌·\s]*(.*)$";
    /// Django's system checks: `orders.Order.customer: (fields.E300) Field defines a relation …`.
    DJANGO_CHECK: |l| l.contains(": ("), r"^(?:[\w.]+|\?|<class '[\w.]+'>): \(([\w.]+\.([EW])\d{3})\) (.+)$";
    /// knip's report, a heading per kind of finding with their count
    /// (`Unused devDependencies (1)`, then one line per finding); older
    /// knip's headings too (`Unused dev dependencies`).
    KNIP: |l| l.ends_with(')') && starts_with_any(l, &["Unused ", "Unlisted ", "Unresolved imports", "Duplicate exports",
                                                      "Referenced optional", "Exports in used", "Exported types in used"]),
        r"^(?:Unused (?:files|dependencies|devDependencies|dev dependencies|exports(?: in namespaces)?|exported (?:types(?: in namespaces)?|enum members|class members))|Unlisted (?:dependencies|binaries|or unresolved dependencies)|Unresolved imports|Duplicate exports|Referenced optional peerDependencies|Exports in used namespace|Exported types in used namespace) \(\d+\)$";
    /// A shell script's own error: `./scripts/package.sh: line 9: VERSION: unbound variable`.
    SHELL_SCRIPT: |l| l.contains(": line "), r"^(\S+\.(?:sh|bash|zsh)): line \d+: (.+)$";
    ESLINT: |l| l.trim_start().starts_with(|c: char| c.is_ascii_digit()) && (l.contains("error") || l.contains("warning")),
        r"^\s*\d+:\d+\s+(?:error|warning)\s+(.+?)\s{2,}(@?[\w-]+(?:/[\w-]+)*)$";
    /// The rule of a linter's headline, as `judge` writes it.
    LINT_HEAD: |h| h.bytes().take(24).any(|b| b.is_ascii_digit()) || h.starts_with("lint/") || h.starts_with("assist/"),
        r"^(MD\d{3}|[A-Z]{1,4}\d{2,4}|(?:lint|assist)/\w+/\w+)(?::|$)";
    /// The rule of a commitlint or eslint headline (as `judge` writes it).
    COMMITLINT_HEAD: |h| h.starts_with("commitlint "), r"^commitlint ([\w-]+):";
    ESLINT_HEAD: |h| h.starts_with("eslint "), r"^eslint (@?[\w-]+(?:/[\w-]+)*):";
    /// lint-staged: `[FAILED] markdownlint --fix [FAILED]`, `✖ eslint --fix
    /// [FAILED]`, and `✖ eslint --fix:` above what the task printed.
    LINT_STAGED: |l| l.starts_with("[FAILED]") || l.starts_with("✖ ") && (l.contains(" failed") || l.ends_with(':') || l.ends_with("[FAILED]")),
        r"^\[FAILED\]|^✖ .* failed|^✖ [^\[\]]+:$|^✖ .* \[FAILED\]$";
    /// Go's compiler: `./a.go:3:2: undefined: Foo`.
    GO_COMPILE: |l| l.contains(".go:"), r"^(?:\./)?[\w./\\-]+\.go:\d+(?::\d+)?: (.+)$";
    /// pyright's diagnostic: `/w/app.py:12:5 - error: "foo" is not defined
    /// (reportUndefinedVariable)`, its rule last.
    PYRIGHT: |l| l.contains(" - error: ") || l.contains(" - warning: "),
        r"^.+?:\d+:\d+ - (error|warning): (.+?)$";
    /// A TypeScript code alone before its message, under a bundler's
    /// location line (fork-ts-checker, ts-loader): `TS2322: Type 'string' …`.
    TS_CODE: |l| l.starts_with("TS"), r"^(TS\d{4,5}): (.+)$";
    TSC: |l| l.contains("error TS"), r"^(?:.+?\(\d+,\d+\): |.+?:\d+:\d+ - )?error (TS\d{4,5}): (.+)$";
    GCC_LIKE: |l| contains_any(l, &[": error", ": Error", ": fatal error", ": ERROR"]),
        r"^(?:.+?):\d+(?::\d+)?: (?:fatal error|error|Error|ERROR)(?: (C\d{4}))?: (.+)$";
    LINKER: |l| contains_any(l, &["undefined reference to ", "multiple definition of "]),
        r"(?:^|: )(undefined reference to .+|multiple definition of .+)$";
    GIT: |l| starts_with_any(l, &["fatal: ", "error: "]), r"^(fatal|error): (.+)$";
    PSQL: |l| starts_with_any(l, &["psql: ", "ERROR", "FATAL", "PANIC", "오류", "치명적오류", "エラー", "致命的エラー", "FEHLER"]),
        r"^(?:psql: error|(?:psql: )?(?:ERROR|FATAL|PANIC|오류|치명적오류|エラー|致命的エラー|FEHLER|FATAL)):\s+(.+)$";
    SQLITE: |l| starts_with_any(l, &["Error", "Parse error", "Runtime error"]),
        r"^(?:Error|Parse error|Runtime error)(?: near line \d+)?: (?:in prepare, |stepping, )(.+)$|^(?:Parse error|Runtime error)(?: near line \d+)?: (.+)$";
    NPM: |l| starts_with_any(l, &["npm ERR! ", "npm error "]), r"^npm (?:ERR!|error) (.+)$";
    PIP: |l| l.starts_with("ERROR: "), r"^ERROR: (.+)$";
    CURL: |l| l.starts_with("curl: ("), r"^curl: \((\d+)\) (.+)$";
    MAKE: |l| l.contains(": *** "),
        r"^(?:make(?:\[\d+\])?|[^\s:]+:\d+): \*\*\* (.+?)\.?(?:\s+Stop\.|\s+Schluss\.|\s+멈춤\.|\s+中止\.)?$";
    TERRAFORM: |l| l.contains("Error: "), r"^(?:│ )?Error: (.+)$";
    DOCKER: |l| contains_any(l, &["Cannot connect to the Docker daemon", "failed to solve: "]),
        r"^(?:docker: )?(?:Error response from daemon: |ERROR: )?(Cannot connect to the Docker daemon.*|failed to solve: .+)$";
    TAP_ERROR: |l| l.starts_with("error: "), r"^error: [|>]-?$";
    PYTEST_ASSERT: |l| l.starts_with('E') && l.contains("assert "),
        r"^E\s+(?:AssertionError: )?assert .+? (==|!=|<=|>=|<|>|not in|in|is not|is) .+$";
    PANIC: |l| l.starts_with("thread '"), r"^thread '[^']*'(?: \(\d+\))? panicked at ";
    TEST_FAIL: |l| starts_with_any(l, &["FAILED ", "AssertionError ["]), r"^(?:FAILED .+? - |AssertionError \[\w+\]: )(.+)$";
    PROGRAM_MESSAGE: |l| l.find(": ").is_some_and(|at| at > 0 && l[..at].bytes().all(|b| b.is_ascii_alphanumeric() || b"_.+-".contains(&b))),
        r"^([\w.+-]+): (.+)$";

    /// The shell itself reporting: `(eval):1: bad substitution`,
    /// `zsh:12: parse error near …` (its line number is not what failed).
    SHELL_SAYS: |l| l.starts_with("(eval):") || l.starts_with("zsh:") || l.starts_with("bash:"),
        r"^(\(eval\)|zsh|bash):\d+: (.+)$";
    /// A shell saying a program is missing, in any of its ways:
    /// `bash: x: command not found`, `/bin/sh: 1: x: not found`,
    /// `/bin/bash: line 1: x: command not found`, `zsh: command not found: x`.
    NOT_FOUND: |l| contains_any(l, &["not found", "찾을 수 없음", "見つかりません", "nicht gefunden"]),
        r"^(?:(?:[\w/.-]*/)?(?:ba|z|da|k|fi|c|tc)?sh(?:: (?:line|行|줄|Zeile|ligne|línea|riga|строка) \d+)?: (?:\d+: )?)?([\w.+-]+): (?:command not found|not found|명령어를 찾을 수 없음|コマンドが見つかりません|Kommando nicht gefunden)\.?$|^(?:zsh|fish|bash): command not found: ([\w.+-]+)$";
    /// PowerShell saying a program is missing: `sed : The term 'sed' is not
    /// recognized as the name of a cmdlet, function, script file, or
    /// operable program.` (Windows PowerShell; PowerShell 7: `… as a name
    /// of a cmdlet …`).
    PS_NOT_FOUND: |l| l.contains(" is not recognized as "),
        r"^(?:(?:&|[^\s:]+) ?: )?The term '([^']+)' is not recognized as (?:the|a) name of a cmdlet";
    /// The start of a command's message in Windows PowerShell's error
    /// record: `Get-Content : …`, `sed : …`, `& : …`, `.\gradlew : …`.
    PS_NAMED: |l| l.contains(" : "), r"^(?:&|[^\s:]+) : \S";
    /// Where Windows PowerShell's error record says the error happened:
    /// `At line:1 char:14`, `At C:\w\build.ps1:12 char:5`.
    PS_AT: |l| l.starts_with("At ") && l.contains(" char:"), r"^At (?:line|.+):\d+ char:\d+$";
    /// Lines that only say that a task, script or test run failed (a task
    /// runner's, a package manager's, a test runner's), never the
    /// signature when a line says what went wrong.
    WRAPPER: |l| contains_any(l, &["failed", "Failed", "FAIL", "exit code", "exit status", "ELIFECYCLE", "Exit status",
                                   "Compilation error in file", "There w", "ERRORS!", "Cannot build '", "dependency failed",
                                   "dependencies failed", "┃", "lefthook", "summary: (done", "🥊", "✔", "BUILD FAILURE",
                                   "errors have been logged", "ERROR in ", "This error happened", "did not run successfully",
                                   "subprocess-exited", "Encountered error", "See above for output", "COMPILATION ERROR",
                                   "aborted!", "migrations canceled", "System check identified",
                                   "Prisma schema validation", "ERR_PNPM_RECURSIVE", "Module build failed", "... error",
                                   "compiled with"]),
        r#"(?i)^(?:\[[^\]]+\] )?ERROR task failed|^task: Failed to run task|^error: Recipe `[^`]*` failed|^FAIL\s+\S+(?:\s+\[[^\]]*failed\])?(?:\s+[\d.]+s)?$|^● Test suite failed to run$|^(?:npm (?:ERR!|error) )?(?:code ELIFECYCLE|errno \d+|Exit status \d+|Failed at the .* script|Lifecycle script .* failed|command failed)|^ELIFECYCLE\s+(?:Test failed|Command failed)|^(?:error )?Command failed with exit code \d+|^Error: Process completed with exit code|^error: script .* exited with code|^exit status \d+$|^error: process didn't exit successfully|^husky - .* (?:script )?failed|^Tests? failed\.?$|^\d+ (?:failing|failed)|^FAILURE: Build failed with an exception\.$|^Execution failed for task '[^']*'\.$|^> Task \S+ FAILED$|^BUILD FAILED(?: in .+)?$|^== Compilation error in file .+ ==$|^There (?:was|were) \d+ (?:failures?|errors?):$|^(?:FAILURES|ERRORS)!$|^error: builder for '[^']*' failed with exit code \d+;?$|^error: \d+ dependenc(?:y|ies) of derivation '[^']*' failed to build$|^error: Cannot build '[^']*'\.$|^Reason: \d+ dependenc(?:y|ies) failed\.$|^error: Build failed due to failed dependency$|^x Build failed in [\d.]+m?s$|^Failed to compile\.?$|^>? ?Build failed because of webpack errors$|^(?:exit status \d+\s*)?┃\s+\S.* ❯$|^│ 🥊 lefthook v|^summary: \(done in |^(?:🥊|✔️|✔)\s*\S+(?: \([\d.]+ seconds\))?$|^(?:\[INFO\] )?BUILD FAILURE$|^Error: Job '[^']*' failed$|\.{2,}\s*Failed to compile\.?$|^\*\* \(CompileError\) .*\(errors have been logged\)$|^Compilation failed; see the compiler error output for details\.$|^Reason: builder failed with exit code \d+\.$|^ERROR in (?:\./|/|[A-Za-z]:)?[\w./\\@-]+(?:[: ]\d+:\d+(?:-\d+)?)?$|^This error happened while installing (?:a direct dependency|the dependencies) of |(?:^|: )process ".*" did not complete successfully: exit code: \d+$|^× .+ did not run successfully\.$|^error: subprocess-exited-with-error$|^error: metadata-generation-failed$|^× Encountered error while .+\.$|^╰─> See above for output\.$|^\[ERROR\] COMPILATION ERROR\s*:?$|^[\w./-]+ aborted!$|^\w+Error: An error has occurred, this and all later migrations canceled|^SystemCheckError: System check identified some issues:$|^Error: Prisma schema validation - |^🔒 Lock failed$|^➤ YN0000: .*Failed with errors|^Error: \d+ chart\(s\) linted, \d+ chart\(s\) failed$|^(?:\d{2}:\d{2} \+\d+(?: ~\d+)?(?: -\d+)?: )?Some tests failed\.$|^\[?ERR_PNPM_RECURSIVE_(?:RUN|EXEC)_FIRST_FAIL\b|^Module build failed \(from [^)]*\):$|\S \.\.\. error$|^webpack [\d.]+ compiled with \d+ errors?\b"#;
    /// klog's prefix (Kubernetes' programs: kubectl, kubelet): `E0601
    /// 10:22:31.004512   41822 memcache.go:265] ` (severity, date, time,
    /// thread, source) before the message.
    KLOG_PREFIX: |l| {
            let b = l.as_bytes();
            b.len() > 5 && b"IWEF".contains(&b[0]) && b[1..5].iter().all(u8::is_ascii_digit) && l.contains("] ")
        },
        r"^[IWEF]\d{4} \d{2}:\d{2}:\d{2}\.\d+\s+\d+ [\w.-]+:\d+\] ";
    /// BuildKit's prefix of what a build step printed: `#6 0.413 `.
    BUILDKIT_PREFIX: |l| l.starts_with('#'), r"^#\d+ \d+\.\d+ ";
    /// A time of day with its date (ISO 8601, a log's): `2024-06-01T10:22:31.004+02:00`.
    TIMESTAMP: |h| h.as_bytes().windows(11).any(|w| {
            let digits = |r: &[u8]| r.iter().all(u8::is_ascii_digit);
            digits(&w[..4]) && w[4] == b'-' && digits(&w[5..7]) && w[7] == b'-' && digits(&w[8..10]) && b"T ".contains(&w[10])
        }),
        r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?";
    /// A git commit's hash, an object's id.
    /// A branch or ref named in git's messages.
    GIT_REF: |h| contains_any(h, &["branch", "refspec", "remote ref", "reference", " -> ", "origin/", "upstream"]),
        r"(?:current branch|src refspec|remote ref|invalid reference:|[Aa] branch named|upstream branch of|set-upstream-to=?) ([\w./@-]*[\w@])|\]\s+([\w./-]+) -> | -> ([\w./-]*\w)|\b((?:origin|upstream)/[\w./-]*\w)";
    /// The type an error is about: `'NoneType' object has no attribute`.
    TYPE_OBJECT: |h| h.contains("' object"), r"'([A-Za-z_][\w.]*)' object\b";

    // Boilerplate lines of other shapes than a fixed start (BOILERPLATE).
    PY_FRAME: |l| l.starts_with("File ") && l.contains(", line "), r"^File .*, line \d+";
    NPM_LOG_DETAIL: |l| l.starts_with("npm "),
        r"^npm (?:ERR!|error) (?:code|syscall|path|errno|enoent This is related|enoent$|A complete log|Log files|$|\s*$|\d{3}\s*$|\d{3} {2}|\d{3} Note|\d{3} tarball|To see a list|Did you mean|  npm |\s{2})";
    MAKE_RECIPE_FAILED: |l| l.starts_with("make"), r"^make(?:\[\d+\])?: \*\*\* \[.*\] (?:Error|Fehler|오류|エラー) \d+";
    TAR_GIVES_UP: |l| l.starts_with("tar"), r"^tar(?: \(child\))?: (?:Error is not recoverable|Exiting with failure status)";
    TRY_HELP: |l| l.starts_with("Try '"), r"^Try '.*--help' for more information";
    ERROR_COUNT: |l| l.starts_with(|c: char| c.is_ascii_digit()) && (l.ends_with(" error") || l.ends_with(" errors")),
        r"^\d+ errors?$";
    FOUND_ERRORS: |l| l.starts_with("Found "), r"^Found \d+ errors?";
    NODE_PROCESS_WARNING: |l| l.starts_with("(node:"), r"^\(node:\d+\) ";
    SQL_LINE: |l| l.starts_with("LINE "), r"^LINE \d+:";
    SOURCE_LINE: |l| l.starts_with(|c: char| c.is_ascii_digit()), r"^\d+ \|";
    /// What a shell's start-up prints before every command's output: nvm's
    /// `Now using node v22.20.0 (npm v10.9.3)` and `Found '/w/.nvmrc' with
    /// version <22>`, direnv's `direnv: loading ~/w/.envrc`, `direnv: export …`.
    SHELL_STARTUP: |l| l.starts_with("Now using node v") || l.starts_with("Found '") || l.starts_with("direnv: "),
        r"^Now using node v\S+ \(npm v\S+\)$|^Found '.*\.nvmrc' with version <[^>]*>$|^direnv: (?:loading|export|using|unloading)\b";
    /// pytest's section banners: `==== FAILURES ====`, `____ ERROR at
    /// setup of test_db ____`, `=== short test summary info ===`.
    PYTEST_BANNER: |l| l.starts_with("===") || l.starts_with("___"), r"^(?:={3,}|_{3,}) .+ (?:={3,}|_{3,})$";
    /// A formatter's check that found a file to reformat: ruff's `Would
    /// reformat: src/app.py`, black's `would reformat src/app.py`, cargo
    /// fmt's `Diff in /w/src/main.rs at line 3:`, Prettier's `[warn] Code
    /// style issues found in the above file. Run Prettier with --write to fix.`
    FORMAT_CHECK: |l| contains_any(l, &["ould reformat", "Diff in ", "Code style issues"]),
        r"^(Would reformat:|would reformat) \S|^Diff in \S+(?: at line \d+|:\d+):$|^\[warn\] Code style issues found in ";
    TAP_SUMMARY: |l| l.starts_with("# "), r"^# (?:tests|pass|fail|cancelled|skipped|todo|duration_ms|suites)";

    // What `mask` finds in the headline.
    CHILD: |h| h.contains(" (child): "), r"^([\w.-]+) \(child\): ";
    /// Where in a script the shell was is not what went wrong.
    SHELL_LINE: |h| h.match_indices(": ").any(|(at, _)| {
            h[..at].ends_with(|c: char| c.is_ascii_digit() || c == '번' || c == '行')
        }),
        r"(?:(?:line|行|줄|Zeile|ligne|línea|riga|строка) \d+|행 \d+번|\d+ 行): ";
    /// Hints that some versions add: `missing separator (did you mean TAB …?)`.
    HINT: |h| h.contains("id you mean"), r"\s*\((?:did you mean|Did you mean)[^)]*\)|\.? Did you mean:? .*$";
    CODE: |h| h.contains("ERR_")
        || h.as_bytes().windows(3).any(|w| w.starts_with(b"GH") && w[2].is_ascii_digit())
        || h.as_bytes().windows(2).any(|w| matches!(w[0], b'E' | b'C' | b'S') && w[1].is_ascii_digit()),
        r"\b(TS\d{4,5}|E\d{4}|C\d{4}|CS\d{4}|GH\d{3}|ERR_[A-Z0-9_]+)\b";
    CURL_CODE: |h| h.starts_with("curl: ("), r"^curl: \((\d+)\)";
    EXCEPTION_HEAD: |h| starts_a_name(h) && contains_any(h, EXCEPTION_ENDINGS),
        r"^((?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Warning|Interrupt|Exit|Iteration))\b";
    PROGRAM: |h| h.starts_with(|c: char| c.is_ascii_lowercase())
        && h.find(": ").is_some_and(|at| h[..at].bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"_.+-".contains(&b))),
        r"^([a-z][a-z0-9_.+-]*): ";
    /// The system refusing an operation on a path that a program relays
    /// (`mkdir: x/y: Operation not permitted`, `cp: cannot create regular
    /// file 'x/y': Read-only file system`): see `mask`. A path, whole after
    /// the program or its `cannot <verb>`: not `chown: changing ownership
    /// of 'x'` (not the owner), nor `ping: socket` (no privilege).
    SYSTEM_REFUSAL: |h| h.ends_with("Operation not permitted") || h.ends_with("Read-only file system"),
        r#"^[a-z][a-z0-9_.+-]*: (?:cannot [a-z][a-z ]*? )?(?:'[^']*[/.~][^']*'|"[^"]*[/.~][^"]*"|[^\s'"]*[/.~][^\s'"]*): (Operation not permitted|Read-only file system)$"#;
    /// Quoted values: '…' "…" `…` ‘…’ “…” «…» „…“ 「…」 `…' (gcc's and git's quotes).
    QUOTED: |h| contains_any(h, &["'", "\"", "`", "‘", "“", "«", "„", "「"]),
        r#"'([^'\n]*)'|"([^"\n]*)"|`([^`\n]*)`|‘([^’\n]*)’|“([^”\n]*)”|«([^»\n]*)»|„([^“\n]*)“|「([^」\n]*)」|`([^'\n]*)'"#;
    /// Bare values in known slots.
    SLOT_BEFORE: |h| contains_any(h, &[" is not ", " is undefined", ": command not found", ": コマンドが見つかりません",
                                       ": 명령어를 찾을 수 없음", ": Kommando nicht gefunden", " already exists",
                                       " cannot be converted to"]),
        r"(?:^|\s|: )([A-Za-z_$][\w$.\[\]-]*)(?: is not (?:defined|a function|iterable|a constructor)| is undefined|: command not found|: コマンドが見つかりません|: 명령어를 찾을 수 없음|: Kommando nicht gefunden| already exists| cannot be converted to)";
    /// A function named in a message: `add() missing 1 required …`, `C.add() …`.
    CALLED: |h| h.contains("()"), r"\b[A-Za-z_][\w.]*\(\)";
    CONVERTED_TO: |h| h.contains("cannot be converted to "), r"cannot be converted to ([A-Za-z_][\w.<>\[\]]*)";
    SLOT_AFTER: |h| contains_any(&h.to_ascii_lowercase(), &["host", "main class", "symbol", "variable",
                                                           "for input string", "no such ", "the requirement", "name"]),
        r"(?i)(?:(?:resolve host|main class|symbol|variable|for input string|no such (?:table|column|function|index|module)|the requirement)(?::)? )([A-Za-z_@][\w.@/=<>~!+-]*)|(?:host|name)(?::)? ([A-Za-z_@][\w.@/-]*)\s*$";
    URL: |h| h.contains("://"), r"\b[a-z][a-z0-9+.-]*://[^\s'\x22<>]+";
    VERSION_LIST: |h| h.contains("(from versions: "), r"\(from versions: [^)]*\)";
    NUMBER: has_digit, r"(?:^|[^A-Za-z_\d])(-?(?:0x[0-9a-fA-F]+|\d+(?:\.\d+)*))";
    ERRNO_NUMBER: |h| h.contains("[Errno ") || h.contains("errno"), r"\[Errno (\d+)\]|errno:? -?(\d+)\b";
}

/// Words that say something failed, each a whole word (`errored` and
/// `unknowns` are not), in any ASCII case. `not a … command` and `does not
/// …` are `not_a_command` and `DOES_NOT`.
const FAILURE_WORDS: &[&str] = &[
    "error", "errors", "fatal", "failed", "failure", "cannot", "can't", "could not", "couldn't", "not found",
    "no such", "denied", "refused", "invalid", "unexpected", "undefined", "exception", "abort", "aborted",
    "missing", "unable", "unknown", "not allowed", "violates", "conflict", "rejected", "no rule",
    "unrecognized", "exceed", "exceeds", "exceeded", "illegal", "no matches found", "timed out", "deprecated",
    "unbound variable", "don't know how to",
];
/// What `does not` says failed: `does not exist`, `does not match` ….
const DOES_NOT: &[&str] = &["exist", "contain", "match", "support", "accept"];

/// Whether a line says, in English, that something failed: one of
/// FAILURE_WORDS at a word's start, ending where a word ends. A scanner,
/// not a regex: nearly every error asks, and compiling the alternation of
/// these words cost each failure hook about 3 % of its instructions (a
/// test compares the two on the real-error corpus).
fn says_something_failed(text: &str) -> bool {
    let bytes = text.as_bytes();
    // `rest` starts with `literal` (any case), and a word ends there
    let whole = |rest: &[u8], literal: &str| {
        let n = literal.len();
        rest.len() >= n
            && rest[..n].eq_ignore_ascii_case(literal.as_bytes())
            && rest.get(n).is_none_or(|&b| !word_byte(b))
    };
    (0..bytes.len()).filter(|&i| word_byte(bytes[i]) && (i == 0 || !word_byte(bytes[i - 1]))).any(|i| {
        let rest = &bytes[i..];
        FAILURE_WORDS.iter().any(|w| whole(rest, w))
            || rest.len() > 9
                && rest[..9].eq_ignore_ascii_case(b"does not ")
                && DOES_NOT.iter().any(|w| whole(&rest[9..], w))
            || not_a_command(rest)
    })
}

/// `not a <name> command` (git's `'x' is not a git command`), the name
/// made of word characters and `-`.
fn not_a_command(rest: &[u8]) -> bool {
    if rest.len() < 6 || !rest[..6].eq_ignore_ascii_case(b"not a ") {
        return false;
    }
    let name = rest[6..].iter().take_while(|&&b| word_byte(b) || b == b'-').count();
    let after = &rest[6 + name..];
    name > 0
        && after.len() >= 8
        && after[..8].eq_ignore_ascii_case(b" command")
        && after.get(8).is_none_or(|&b| !word_byte(b))
}

/// A byte of a word as regex-lite's `\w` and `\b` take it: an ASCII
/// letter, digit or `_` (any other byte, UTF-8's included, is none).
fn word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// How strongly a line identifies the error, and the part of it that does.
struct Candidate {
    rank: u8,
    text: String,
}

/// Detectors, each for one shape of identifying line. A line is judged by
/// the first detector that accepts it; the best rank wins, the first line
/// among equals, except that Python's exception closes its traceback (the
/// last one wins).
fn judge(line: &str) -> Option<Candidate> {
    // what a git server says comes through as `remote: …`; rollup marks
    // its error `[!] `; a Kubernetes program's log line and a BuildKit
    // step's output have a prefix of their own before what they say
    let line = line.strip_prefix("remote: ").or_else(|| line.strip_prefix("[!] ")).unwrap_or(line);
    let klog = KLOG_PREFIX.strip_prefix(line);
    // (klog's structured form since Kubernetes 1.30: `"Unhandled Error"
    // err="couldn't get …"`: the message is the err value)
    if let Some(err) = klog.and_then(|rest| rest.split_once(" err=\"")).map(|(_, err)| quoted_value(err)) {
        return judge(&err);
    }
    let line = klog.or_else(|| BUILDKIT_PREFIX.strip_prefix(line)).unwrap_or(line);
    let trimmed = line.trim();
    let found = |rank: u8, text: String| Some(Candidate { rank, text });
    // an address alone (a page to read, a pull request's) says nothing of
    // what went wrong
    if is_address(trimmed) {
        return None;
    }
    if let Some(c) = SHELLCHECK.captures(trimmed) {
        // (its marker starts like a source excerpt's `^`); an error outranks
        // a warning, a warning a note
        let rank = match c.get(2).map(|m| m.as_str()) {
            Some("error") | None => 8,
            Some("warning") => 7,
            _ => 6,
        };
        return found(rank, format!("{}: {}", &c[1], &c[3]));
    }
    if is_boilerplate(trimmed) {
        return None;
    }
    // Next.js prints what stopped a build in brackets, after `> Build
    // error occurred`: `[TypeError: generate is not a function]`
    if let Some(inner) = trimmed.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
        let names_an_exception = inner.split_once(": ").is_some_and(|(name, _)| {
            (name.ends_with("Error") || name.ends_with("Exception"))
                && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'.')
        });
        if names_an_exception {
            return judge(inner);
        }
    }
    // a word that something failed, and no more (Claude Code's `Error`
    // for a command that printed nothing)
    let bare = trimmed.trim_end_matches(['.', ':', '!']);
    let bare_word = ["error", "failed", "failure", "fatal"].iter().any(|w| bare.eq_ignore_ascii_case(w));
    if bare_word || WRAPPER.is_match(trimmed) || is_tally(trimmed) || LINT_STAGED.is_match(trimmed) {
        // only better than a line that says nothing of an error
        return found(2, trimmed.to_string());
    }
    if let Some(c) = SHELL_SAYS.captures(trimmed) {
        // the shell itself: `(eval):1: bad substitution`, `zsh:3: no such file`
        return found(6, format!("{}: {}", &c[1], &c[2]));
    }
    if let Some(c) = NOT_FOUND.captures(trimmed) {
        let program = c.get(1).or(c.get(2)).map_or("", |m| m.as_str());
        return found(7, format!("command not found: '{program}'"));
    }
    // (PowerShell's way of saying it is the same error)
    if let Some(c) = PS_NOT_FOUND.captures(trimmed) {
        return found(7, format!("command not found: '{}'", &c[1]));
    }
    if let Some(c) = SHELL_SCRIPT.captures(trimmed) {
        // a script's shell: `./build.sh: line 9: VERSION: unbound variable`
        return found(6, format!("{}: {}", &c[1], &c[2]));
    }
    if let Some(c) = PYLINT.captures(trimmed) {
        // (an error outranks a warning, a warning a convention)
        let rank = match c[1].as_bytes()[0] {
            b'E' | b'F' => 8,
            b'W' => 7,
            _ => 6,
        };
        return found(rank, format!("{}: {}", &c[1], &c[2]));
    }
    if let Some(c) = MAVEN_COMPILER.captures(trimmed) {
        return found(9, format!("error: {}", &c[1]));
    }
    if let Some(c) = PNPM.captures(trimmed) {
        return found(8, format!("{} {}", &c[1], &c[2]));
    }
    if let Some(c) = YARN_BERRY.captures(trimmed) {
        // its codes of errors (an exception, a build that failed, a
        // checksum, a lockfile it may not change, a package not found, a
        // resolution that failed); the others are notes (a step's start, a
        // package added, a peer dependency), and a lockfile's diff lines
        // under YN0028 are no message
        const ERRORS: &[&str] = &["YN0001", "YN0009", "YN0018", "YN0028", "YN0035", "YN0082"];
        let message = &c[2];
        return (ERRORS.contains(&&c[1]) && !message.is_empty() && !message.starts_with(['+', '-', '@']))
            .then(|| Candidate { rank: 7, text: format!("{}: {}", &c[1], message) });
    }
    if KNIP.is_match(trimmed) {
        return found(6, trimmed.to_string());
    }
    if let Some(c) = DJANGO_CHECK.captures(trimmed) {
        return found(if &c[2] == "E" { 8 } else { 7 }, format!("({}) {}", &c[1], &c[3]));
    }
    // Java's chain of causes: the last one is the root of the others
    if let Some(cause) = trimmed.strip_prefix("Caused by: ").filter(|_| CAUSED_BY.is_match(trimmed)) {
        // (Gradle's short form names the place after it: `…Exception at SQLError.java:174`)
        if let Some(c) = GRADLE_TEST_EXCEPTION.captures(cause) {
            let class = short_class(&c[1]);
            return found(8, c.get(2).map_or(class.to_string(), |m| format!("{class}: {}", m.as_str())));
        }
        let class_end = cause.find(": ").unwrap_or(cause.len());
        return found(8, format!("{}{}", short_class(&cause[..class_end]), &cause[class_end..]));
    }
    if TAP_ERROR.is_match(trimmed) {
        return found(7, "tap-error".to_string());
    }
    // pytest shows a bare assert's failure as `E   assert 0 == 4`; what
    // was compared are values.
    if let Some(c) = PYTEST_ASSERT.captures(line) {
        return found(8, format!("AssertionError: assert <V> {} <V>", &c[1]));
    }
    if let Some(c) = RUSTC.captures(trimmed) {
        return found(9, format!("error{}: {}", &c[1], &c[2]));
    }
    if let Some(message) = trimmed.strip_prefix("× ") {
        // (its category is on the header line above: see `headline`)
        let message = message.trim();
        // (a run's summary: "Some errors were emitted while running checks.")
        if message.is_empty() || message.starts_with("Some ") && message.contains(" emitted") || message.ends_with("errors.") {
            return found(2, trimmed.to_string());
        }
        return found(8, format!("× {message}"));
    }
    if let Some(c) = PYRIGHT.captures(trimmed) {
        // a warning did not fail the run where an error is reported too
        return found(if &c[1] == "error" { 9 } else { 7 }, format!("{}: {}", &c[1], &c[2]));
    }
    if let Some(c) = TSC.captures(trimmed).or_else(|| TS_CODE.captures(trimmed)) {
        return found(9, format!("error {}: {}", &c[1], &c[2]));
    }
    if let Some(c) = GCC_LIKE.captures(trimmed) {
        return found(
            9,
            format!(
                "error{}: {}",
                c.get(1).map_or(String::new(), |m| format!(" {}", m.as_str())),
                &c[2]
            ),
        );
    }
    if let Some(c) = MARKDOWNLINT.captures(trimmed) {
        return found(8, format!("{}: {}", &c[1], &c[2]));
    }
    if let Some(c) = BIOME.captures(trimmed) {
        // (a headline as `headline` writes it, the rule with its message,
        // reads as itself)
        if slashed_rule(trimmed).is_some_and(|rule| rule.end() < trimmed.len()) {
            return found(8, trimmed.to_string());
        }
        return found(8, c[1].to_string());
    }
    if let Some(c) = COMMITLINT.captures(trimmed) {
        return found(8, format!("commitlint {}: {}", &c[2], &c[1]));
    }
    if let Some(c) = ESLINT.captures(line) {
        // a warning did not fail the run where an error is reported too
        let warning = line.split_whitespace().nth(1) == Some("warning");
        return found(if warning { 7 } else { 8 }, format!("eslint {}: {}", &c[2], &c[1]));
    }
    if let Some(c) = RUFF.captures(trimmed) {
        return found(8, format!("{}: {}", &c[1], &c[3]));
    }
    if let Some(c) = GO_COMPILE.captures(trimmed) {
        return found(9, format!("go {}", &c[1]));
    }
    if let Some(c) = ELIXIR.captures(trimmed) {
        return found(8, format!("{}: {}", short_class(&c[1]), &c[2]));
    }
    if let Some(c) = KOTLIN.captures(trimmed) {
        return found(9, format!("error: {}", &c[1]));
    }
    if let Some(c) = GRADLE_TEST_EXCEPTION.captures(trimmed) {
        let class = short_class(&c[1]);
        return found(8, c.get(2).map_or(class.to_string(), |m| format!("{class}: {}", m.as_str())));
    }
    if let Some(c) = RUBY.captures(trimmed) {
        return found(8, format!("{}: {}", short_class(&c[2].replace("::", ".")), &c[1]));
    }
    if let Some(c) = DOTNET_FAILED.captures(trimmed) {
        // the failed test's name: its error is on the lines after it
        return found(6, format!("Failed {}", &c[1]));
    }
    if let Some(c) = JAVA_THREAD.captures(trimmed) {
        let exception = &c[1];
        let class_end = exception.find(':').unwrap_or(exception.len());
        let short = short_class(&exception[..class_end]);
        return found(8, format!("{short}{}", &exception[class_end..]));
    }

    if line.starts_with(|ch: char| !ch.is_whitespace()) || line.trim_start().starts_with("E ") {
        if let Some(c) = PY_EXCEPTION.captures(trimmed) {
            let class = short_class(&c[1]);
            return found(
                8,
                match c.get(2) {
                    Some(m) => format!("{class}: {}", m.as_str()),
                    None => class.to_string(),
                },
            );
        }
    }
    // pytest's error lines (`E       fixture 'database' not found`): the
    // error it reports, when it names no exception
    if let Some(message) = line.strip_prefix('E').filter(|m| m.starts_with("   ")).map(str::trim) {
        if !message.is_empty() && !message.starts_with(['+', '-', '?']) && says_something_failed(message) {
            return found(7, message.to_string());
        }
    }
    // Prettier's own error (`[error] src/app.ts: SyntaxError: …`): what
    // kept it from formatting, above its `[warn] Code style issues …`
    if let Some(message) = trimmed.strip_prefix("[error] ") {
        return found(8, message.to_string());
    }
    if FORMAT_CHECK.is_match(trimmed) {
        // a file the formatter would change: what is wrong is the format
        return found(7, trimmed.to_string());
    }
    if let Some(c) = SQLITE.captures(trimmed) {
        return found(
            8,
            format!("Error: {}", c.get(1).or(c.get(2)).map_or("", |m| m.as_str())),
        );
    }
    if let Some(c) = NODE_ERROR.captures(trimmed) {
        // A bare `Error:` names no class: `Error: Cannot find module 'x'`
        // is the message `Cannot find module 'x'`, as other writers store it.
        return found(
            8,
            if &c[1] == "Error" {
                c[3].to_string()
            } else {
                format!("{}: {}", &c[1], &c[3])
            },
        );
    }
    if let Some(c) = LINKER.captures(trimmed) {
        return found(8, c[1].to_string());
    }
    if let Some(c) = PSQL.captures(trimmed) {
        return found(8, format!("ERROR: {}", &c[1]));
    }
    if let Some(c) = CURL.captures(trimmed) {
        return found(8, format!("curl: ({}) {}", &c[1], &c[2]));
    }
    if let Some(c) = MAKE.captures(trimmed) {
        return found(7, format!("make: {}", &c[1]));
    }
    if let Some(c) = DOCKER.captures(trimmed) {
        return found(8, c[1].to_string());
    }
    if let Some(c) = TERRAFORM.captures(trimmed) {
        return found(8, format!("Error: {}", &c[1]));
    }
    // an API's error as a JSON document (`{"errors":[{"message":"Field
    // 'body' doesn't accept argument 'truncate'", …}]}`, `{"error":
    // {"message": …}}`): its message, without the document around it
    if trimmed.starts_with('{') && trimmed.contains("\"error") {
        if let Some(message) = json_error_message(trimmed) {
            return found(7, message);
        }
    }
    // git add's refusal of an ignored path, which says no `error:`
    if trimmed == "The following paths are ignored by one of your .gitignore files:" {
        return found(7, trimmed.to_string());
    }
    if let Some(c) = GIT.captures(trimmed) {
        return found(7, format!("{}: {}", &c[1], &c[2]));
    }
    if let Some(c) = NPM.captures(trimmed) {
        // npm's log lines: the first that says what went wrong.
        return found(6, c[1].to_string());
    }
    if let Some(c) = PIP.captures(trimmed) {
        return found(7, format!("ERROR: {}", &c[1]));
    }
    if PANIC.is_match(trimmed) {
        return found(8, "panicked".to_string());
    }
    if let Some(c) = TEST_FAIL.captures(trimmed) {
        return found(6, c[1].to_string());
    }
    if let Some(test) = line.strip_prefix(BUN_FAIL) {
        // the failed test's name, without its time
        let test = test.trim_end();
        let test = match test.rfind(" [") {
            Some(cut) if test.ends_with("ms]") || test.ends_with("s]") => &test[..cut],
            _ => test,
        };
        return found(6, format!("(fail) {test}"));
    }
    if let Some(c) = PROGRAM_MESSAGE.captures(trimmed) {
        // `prog: message`; a message in another language still has the shape.
        // (a severity word where a program's name stands says it failed:
        // alembic's `FAILED: Multiple head revisions are present …`)
        // (a sentence: `FAILED: curl` names what failed, not why)
        // (words, not paths: ninja's `FAILED: src/a.c src/a.h` names outputs)
        let severity = ["FAILED", "Failed", "FATAL", "Fatal"].contains(&&c[1])
            && c[2].split_whitespace().filter(|w| !w.contains(['/', '\\', '.'])).count() >= 4;
        return found(if severity || says_something_failed(&c[2]) { 5 } else { 2 }, trimmed.to_string());
    }
    if says_something_failed(trimmed) {
        return found(3, trimmed.to_string());
    }
    // Nothing known: the first line that is not boilerplate.
    found(1, trimmed.to_string())
}

/// A line that looks like an error but says nothing about which one.
enum Boilerplate {
    /// The whole line.
    Is(&'static str),
    /// How the line starts.
    StartsWith(&'static str),
    Shape(&'static Rule),
}

/// Lines that look like errors but say nothing about which one, as they
/// are after trimming.
const BOILERPLATE: &[Boilerplate] = {
    use Boilerplate::{Is, Shape, StartsWith};
    &[
        Is("Traceback (most recent call last):"),
        StartsWith("During handling of the above exception"),
        StartsWith("The above exception was the direct cause"),
        Shape(&PY_FRAME),
        StartsWith("at "),
        StartsWith("node:internal/"),
        Is("throw err;"),
        StartsWith("Node.js v"),
        StartsWith("Require stack:"),
        Shape(&NPM_LOG_DETAIL),
        StartsWith("error: could not compile"),
        StartsWith("error: aborting due to"),
        StartsWith("For more information about this error"),
        StartsWith("For more information about an error"),
        StartsWith("Some errors have detailed explanations"),
        StartsWith("collect2: error: ld returned"),
        Shape(&MAKE_RECIPE_FAILED),
        Is("compilation terminated."),
        Shape(&TAR_GIVES_UP),
        Shape(&TRY_HELP),
        Shape(&ERROR_COUNT),
        Shape(&FOUND_ERRORS),
        StartsWith("error: failed to push some refs"),
        StartsWith("hint: "),
        Is("error during build:"),
        StartsWith("For full logs, run 'nix log "),
        StartsWith("(stack trace truncated; use '--show-trace'"),
        // Gradle's report around what went wrong, and its advice
        Is("* What went wrong:"),
        Is("* Try:"),
        StartsWith("> Run with --"),
        StartsWith("> Get more help at "),
        StartsWith("* Get more help at "),
        StartsWith("note: "),
        StartsWith("help: "),
        StartsWith("[notice]"),
        StartsWith("WARNING: "),
        StartsWith("warning: "),
        StartsWith("WARN "),
        StartsWith("npm warn "),
        StartsWith("npm WARN "),
        StartsWith("warning["),
        StartsWith("(Use `node --trace-warnings"),
        Shape(&NODE_PROCESS_WARNING),
        Shape(&SQL_LINE),
        // source excerpts under a diagnostic: `^`, `|`, `-->`, `12 |`
        StartsWith("^"),
        StartsWith("|"),
        StartsWith("-->"),
        Shape(&SOURCE_LINE),
        Shape(&PYTEST_BANNER),
        Shape(&SHELL_STARTUP),
        StartsWith("ERROR: No matching distribution found for"),
        StartsWith("error: Recipe for target"),
        StartsWith("Error: Process completed with exit code"),
        StartsWith("FAIL "),
        Shape(&TAP_SUMMARY),
        // terraform's box
        Is("╷"),
        Is("╵"),
        Is("│"),
    ]
};

fn is_boilerplate(trimmed: &str) -> bool {
    // (a diagnostic's header is never boilerplate: biome's starts with `at <file>`)
    !trimmed.contains("━━") && BOILERPLATE.iter().any(|b| match b {
        Boilerplate::Is(line) => trimmed == *line,
        Boilerplate::StartsWith(start) => trimmed.starts_with(start),
        Boilerplate::Shape(rule) => rule.is_match(trimmed),
    })
}

/// The identifying line of `lines` and where it is. A Rust panic's message
/// is on the line after `panicked at`; a node error is the first `Error:`
/// line after the loader's frames.
fn headline(lines: &[&str]) -> Option<(String, usize, u8)> {
    let mut records = powershell_records(lines).into_iter().peekable();
    let mut best: Option<(Candidate, usize)> = None;
    // bun's test runner prints what its passing tests log among its
    // failures: an `error: …` a test caught is not what failed
    let bun_test = lines.iter().any(|l| l.starts_with(BUN_FAIL) || l.trim_end() == BUN_UNHANDLED);
    let mut pytest_header = false;
    for (at, line) in lines.iter().enumerate() {
        // pytest's session header, after its `test session starts` banner
        // and up to what it collected: where it ran and with what
        // (`rootdir: /home/…`, `plugins: …`, a plugin's `asyncio: mode=…`),
        // lines that read as a program's message
        if line.starts_with('=') && line.contains(" test session starts ") {
            pytest_header = true;
            continue;
        }
        if pytest_header {
            if line.starts_with("collect") || line.starts_with(['=', '_']) {
                pytest_header = false;
            } else if is_pytest_header_line(line) {
                continue;
            }
        }
        // a PowerShell error record is read as its message, once (the
        // records are in order: those before this line are passed)
        while records.next_if(|r| r.lines.end <= at).is_some() {}
        if let Some(record) = records.peek().filter(|r| r.lines.contains(&at)) {
            if let Some(message) = record.message.as_ref().filter(|_| at == record.lines.start) {
                let candidate = Candidate { rank: 7, text: message.clone() };
                if best.as_ref().is_none_or(|(b, _)| candidate.rank > b.rank) {
                    best = Some((candidate, at));
                }
            }
            continue;
        }
        // `dotnet test` gives a failed test's error under `Error
        // Message:`, indented, its exception named `System.X : message`
        if at > 0 && lines[at - 1].trim() == "Error Message:" {
            let message = line.trim().replacen(" : ", ": ", 1);
            let text = judge(&message).filter(|c| c.rank >= 8).map_or(message, |c| c.text);
            let candidate = Candidate { rank: 8, text };
            if best.as_ref().is_none_or(|(b, _)| candidate.rank > b.rank) {
                best = Some((candidate, at));
            }
            continue;
        }
        // biome 1 marks a diagnostic's message `✖` where biome 2 and the
        // other miette tools mark it `×` (under its header)
        let marked;
        let line: &str = match line.trim_start().strip_prefix("✖ ") {
            Some(message) if lines[at.saturating_sub(3)..at].iter().any(|l| MIETTE_HEADER.is_match(l)) => {
                marked = format!("× {message}");
                &marked
            }
            _ => line,
        };
        let Some(mut candidate) = judge(gradle_cause(line).unwrap_or(line)) else { continue };
        // a webpack loader's message is the line under its report
        // (sass-loader's `Undefined variable.`, `expected "{".`)
        if at > 0 && lines[at - 1].trim_start().starts_with("Module build failed (from ") && candidate.rank < 3 {
            candidate.rank = 3;
        }
        // CMake's `CMake Error at CMakeLists.txt:14 (find_package):` says
        // where; what went wrong is the paragraph under it
        if line.starts_with("CMake Error") && line.trim_end().ends_with(':') {
            let paragraph: Vec<&str> =
                lines[at + 1..].iter().take_while(|l| l.starts_with(char::is_whitespace)).map(|l| l.trim()).collect();
            if !paragraph.is_empty() {
                candidate = Candidate { rank: 8, text: format!("CMake Error: {}", paragraph.join(" ")) };
            }
        }
        // Gradle nests what went wrong (`> Could not resolve all files …`,
        // then deeper `   > Could not find com.acme:lib:1.2.3.`): a cause
        // with a deeper one under it only says where that one happened
        if gradle_cause(line).is_some()
            && lines.get(at + 1).is_some_and(|next| gradle_cause(next).is_some() && indent(next) > indent(line))
        {
            candidate.rank = candidate.rank.min(2);
        }
        if bun_test
            && line.starts_with("error: ")
            && !bun_fails_after(&lines[at + 1..])
            && !follows_bun_unhandled(&lines[..at])
        {
            candidate.rank = candidate.rank.min(2);
        }
        // a miette diagnostic's category is the header's last word
        if candidate.rank == 8 && candidate.text.starts_with("× ") {
            let category = lines[at.saturating_sub(3)..at]
                .iter()
                .rev()
                // (its rule when it names one: biome's `lint/style/useConst
                // FIXABLE ━━━` ends in a tag)
                .find_map(|l| {
                    MIETTE_HEADER.captures(l).map(|c| BIOME.captures(l).map_or(c[1].to_string(), |r| r[1].to_string()))
                });
            candidate.text = match category {
                Some(category) => format!("{category}: {}", &candidate.text[3..]),
                None => candidate.text[3..].to_string(),
            };
            // a message that ends in a colon says what its cause, on the
            // next line, is about (uv: `× No solution found when resolving
            // dependencies:` then `╰─▶ Because foo==2.0 depends on …`)
            if candidate.text.ends_with(':') {
                if let Some(cause) = lines.get(at + 1).and_then(|l| l.trim_start().strip_prefix("╰─▶ ")) {
                    candidate.text = format!("{} {}", candidate.text, cause.trim());
                }
            }
        }
        // A miette diagnostic's severity is the mark of its message, on a
        // line after its header: `×` an error, `!` a warning. A warning did
        // not fail the run where an error is reported too.
        if candidate.rank == 8 && MIETTE_HEADER.is_match(line) {
            let mark = lines[at + 1..]
                .iter()
                .take(4)
                .map(|l| l.trim_start())
                .find(|l| ["× ", "✖ ", "! ", "⚠ ", "i "].iter().any(|m| l.starts_with(m)));
            // (and where a message is marked, the header's rule is said
            // with it there: `lint/style/useConst: This let declares …`)
            if mark.is_some_and(|m| ["! ", "⚠ ", "× ", "✖ "].iter().any(|w| m.starts_with(w))) {
                candidate.rank = 7;
            }
        }
        // The message is on the next line.
        if candidate.text == "panicked" || candidate.text == "tap-error" {
            let message = lines.get(at + 1).map_or("", |l| l.trim());
            candidate.text = if candidate.text == "panicked" {
                format!("panicked: {message}")
            } else {
                message.to_string()
            };
        }
        // (a cause is the root of the exception it follows: of a thrown
        // one, or a cause; not of a launcher's own message, `Error: Could
        // not find or load main class App`, which says more)
        let caused = || {
            best.as_ref().is_some_and(|(_, b)| {
                let b = lines[*b].trim();
                b.starts_with("Exception in thread ")
                    || b.starts_with("Caused by: ")
                    || PY_LINE.is_match(b)
                    || GRADLE_TEST_EXCEPTION.is_match(b)
            })
        };
        let better = match &best {
            None => true,
            Some((b, _)) => {
                candidate.rank > b.rank
                    || (candidate.rank == b.rank
                        && candidate.rank == 8
                        && (PY_LINE.is_match(line) || line.trim_start().starts_with("Caused by: ") && caused()))
            }
        };
        if better {
            best = Some((candidate, at));
        }
    }
    best.map(|(c, at)| (c.text, at, c.rank))
}

/// A Windows PowerShell error record in an output (its default view):
/// the lines it spans, and its message when it is PowerShell's own.
struct PowerShellRecord {
    lines: std::ops::Range<usize>,
    message: Option<String>,
}

/// Windows PowerShell's error records (its default view): the message,
/// where it happened (`At line:1 char:14`), the code quoted under `+`
/// lines, then `+ CategoryInfo : …` and `+ FullyQualifiedErrorId : …`. The
/// message is a command's `Name : message` before the place, read whole
/// when the window's width wrapped it (`sed : The term 'sed' is not
/// recognized …`, `Get-Content : Cannot find path …`), or for a parser
/// error the line after the quoted code (`The token '&&' is not a valid
/// statement separator in this version.`), and it says what went wrong.
/// Not PowerShell's own, so read as any output is (no message): a native
/// program's stderr that PowerShell wrapped in a record (its first line
/// only: `NativeCommandError`), a script's own `throw` or `Write-Error`,
/// or a message whose `Name :` start is not found.
fn powershell_records(lines: &[&str]) -> Vec<PowerShellRecord> {
    let quoted = |l: &str| l.trim_start().starts_with('+');
    let mut records = Vec::new();
    let mut from = 0;
    for (category, line) in lines.iter().enumerate() {
        if !line.trim_start().starts_with("+ CategoryInfo") || category < from {
            continue;
        }
        let Some(at) = lines[from..category].iter().rposition(|l| PS_AT.is_match(l.trim())).map(|a| from + a) else {
            // (no place before it: none for a later record either)
            from = category + 1;
            continue;
        };
        // (its id on the next line, or a wrapped category's after it)
        let id_line =
            lines[category..].iter().take(4).position(|l| l.trim_start().starts_with("+ FullyQualifiedErrorId"));
        let end = id_line.map_or(category, |i| category + i);
        let info = |l: &str| l.split_once(':').map_or("", |(_, v)| v).trim().to_string();
        let category_info = info(lines[category]);
        let id = id_line.map(|i| info(lines[category + i])).unwrap_or_default();
        let not_powershells = id == "NativeCommandError"
            || category_info.contains("RuntimeException") && category_info.starts_with("OperationStopped")
            || category_info.contains("WriteErrorException");
        let (start, message) = match lines[at + 1..category].iter().position(|l| !quoted(l)) {
            // a parser error: its message after the quoted code
            Some(after) => (at, Some(lines[at + 1 + after].trim().to_string())),
            None => {
                // the line where the message starts, `Name : …` (a
                // cmdlet's, a program's: `& : …`, `.\gradlew : …`)
                let window = from.max(at.saturating_sub(6));
                match lines[window..at].iter().rposition(|l| PS_NAMED.is_match(l)) {
                    Some(i) => {
                        let start = window + i;
                        let message = lines[start..at].iter().map(|l| l.trim()).collect::<Vec<_>>().join(" ");
                        (start, Some(message.replacen(" : ", ": ", 1)))
                    }
                    None => (at, None),
                }
            }
        };
        let message = message.filter(|_| !not_powershells).map(|m| judge(&m).filter(|c| c.rank >= 7).map_or(m, |c| c.text));
        records.push(PowerShellRecord { lines: if message.is_some() { start..end + 1 } else { at..end + 1 }, message });
        from = end + 1;
    }
    records
}

/// Whether `line` counts results and says no more: `Tests:  1 failed, 5
/// passed, 6 total` (jest), `Tests  1 failed | 5 passed (6)` (vitest), a
/// script's `Summary: 3 passed, 9 failed, 2 warnings`. How many failed is
/// not what failed: every failing run of a project would share it.
fn is_tally(line: &str) -> bool {
    // (a label of a word or two before the first count)
    let Some(first) = line.find(|c: char| c.is_ascii_digit()) else { return false };
    let (label, counts) = line.split_at(first);
    let label = label.trim().trim_end_matches(':');
    if label.split_whitespace().count() > 2 || !label.chars().all(|c| c.is_alphabetic() || c == ' ') {
        return false;
    }
    let parts: Vec<&str> = counts
        .split([',', '|'])
        .map(|p| p.split('(').next().unwrap_or(p).trim())
        .filter(|p| !p.is_empty())
        .collect();
    parts.len() >= 2
        && parts.iter().all(|p| {
            let mut words = p.split_whitespace();
            let (Some(n), Some(_), None) = (words.next(), words.next(), words.next()) else { return false };
            n.bytes().all(|b| b.is_ascii_digit())
        })
        && parts.iter().any(|p| ["failed", "failing", "broken", "errors", "error"].iter().any(|w| p.ends_with(w)))
}

/// Whether `line` is one of pytest's header lines: `platform …`, or a
/// lower-case name and what it says (`rootdir: …`, `configfile: …`,
/// `plugins: …`, `asyncio: mode=…`). An error in the header's place
/// (`ImportError while loading conftest …`, `E   …`) is none.
fn is_pytest_header_line(line: &str) -> bool {
    line.starts_with("platform ")
        || line.split_once(": ").is_some_and(|(name, _)| {
            name.starts_with(|c: char| c.is_ascii_lowercase())
                && name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-')
        })
}

/// The message of an API's error given as a JSON document: the first
/// `errors[].message`, `error.message`, or `error` when it is a string.
fn json_error_message(line: &str) -> Option<String> {
    let doc: serde_json::Value = serde_json::from_str(line).ok()?;
    let message = match (doc.get("errors"), doc.get("error")) {
        (Some(errors), _) => errors.as_array()?.first()?.get("message")?.as_str()?,
        // (`{"error": true, "message": …}`)
        (None, Some(error)) => error
            .as_str()
            .or_else(|| error.get("message")?.as_str())
            .or_else(|| doc.get("message")?.as_str())?,
        (None, None) => return None,
    };
    let message = message.trim();
    (!message.is_empty()).then(|| message.chars().take(MAX_CHARS).collect())
}

/// What a line of Gradle's `* What went wrong:` report says, past its `> `
/// (`> Could not find com.acme:lib:1.2.3.`); none for another line.
fn gradle_cause(line: &str) -> Option<&str> {
    line.trim_start().strip_prefix("> ").filter(|cause| !cause.starts_with("Task ") && !cause.trim().is_empty())
}

/// How far `line` is indented, in bytes.
fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// How bun's test runner marks a failed test: `(fail) suite > test [0.60ms]`.
const BUN_FAIL: &str = "(fail) ";

/// How bun's test runner reports an error thrown outside any test (a test
/// file that cannot load its imports, a rejection after a test ended): on
/// the lines after it, between dashes or not, the error, which failed the
/// run as a failed test does.
const BUN_UNHANDLED: &str = "# Unhandled error between tests";

/// Whether the line after `before` is the error of bun's `# Unhandled
/// error between tests` report (its banner, then a line of dashes or not).
fn follows_bun_unhandled(before: &[&str]) -> bool {
    let mut previous = before.iter().rev().map(|l| l.trim_end());
    match previous.next() {
        Some(line) if line == BUN_UNHANDLED => true,
        Some(line) if !line.is_empty() && line.bytes().all(|b| b == b'-') => previous.next() == Some(BUN_UNHANDLED),
        _ => false,
    }
}

/// Whether the lines after a bun test output's `error: …` line end in a
/// failed test's mark before another error, another test file's header or
/// a cut in the output: then the error is that test's failure, else one a
/// passing test logged.
fn bun_fails_after(lines: &[&str]) -> bool {
    for line in lines {
        if line.starts_with(BUN_FAIL) {
            return true;
        }
        let test_file = line.ends_with(':') && [".test.", ".spec.", "_test.", "_spec."].iter().any(|t| line.contains(t));
        if line.starts_with("error: ") || line.starts_with("(pass) ") || test_file || line.contains(" characters truncated] ") {
            return false;
        }
    }
    false
}

/// errno names, as an error states them.
const ERRNO_NAMES: &[&str] = &[
    "ENOENT",
    "EACCES",
    "EPERM",
    "EEXIST",
    "EISDIR",
    "ENOTDIR",
    "ENOTEMPTY",
    "EADDRINUSE",
    "EADDRNOTAVAIL",
    "ECONNREFUSED",
    "ECONNRESET",
    "ETIMEDOUT",
    "EPIPE",
    "ENOSPC",
    "EROFS",
    "EMFILE",
    "EBUSY",
    "EAGAIN",
    "EAI_AGAIN",
    "ENOTFOUND",
    "EHOSTUNREACH",
    "ENETUNREACH",
    "EINVAL",
    "ENOMEM",
    "EXDEV",
    "ELOOP",
    "ENAMETOOLONG",
    "ENOEXEC",
    "EBADF",
    "ESPIPE",
    "ECHILD",
    "ESRCH",
    "ENOTSUP",
    "EOPNOTSUPP",
    "EIO",
];

/// The words of `text`: its runs of ASCII letters, digits and `_` (what
/// `\b` separates).
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
}

/// The headline with its values masked; identifiers and values collected.
fn mask(headline: &str, ids: &mut Vec<Identifier>, values: &mut Vec<String>) -> String {
    // Severity words and log prefixes that stand where a program name would.
    const NOT_PROGRAMS: &[&str] = &["error", "fatal", "warning", "note", "hint", "panicked", "info", "debug"];
    // a linter's rule in front is a name, whatever its slashes: not a path
    if let Some(rule) = slashed_rule(headline) {
        push_id(ids, IdKind::Code, rule.as_str());
        return format!("{}{}", &headline[..rule.end()], mask(&headline[rule.end()..], ids, values));
    }
    let headline = &*CHILD.replace_all(headline, "$1: ");
    let mut text = SHELL_LINE.replace_all(headline, "").into_owned();
    text = HINT.replace_all(&text, "").into_owned();
    for c in CODE.captures_iter(headline) {
        push_id(ids, IdKind::Code, &c[1]);
    }
    if let Some(c) = LINT_HEAD.captures(headline) {
        push_id(ids, IdKind::Code, &c[1]);
    }
    if let Some(c) = COMMITLINT_HEAD.captures(headline) {
        push_id(ids, IdKind::Code, &c[1]);
    }
    if let Some(c) = ESLINT_HEAD.captures(headline) {
        push_id(ids, IdKind::Code, &c[1]);
    }
    if let Some(code) = headline
        .strip_prefix("error[")
        .and_then(|rest| rest.split_once("]:"))
        .map(|(code, _)| code)
        .filter(|code| !code.is_empty() && code.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'))
    {
        push_id(ids, IdKind::Code, code);
    }
    if let Some(c) = CURL_CODE.captures(headline) {
        push_id(ids, IdKind::Code, &format!("curl({})", &c[1]));
    }
    if let Some(c) = EXCEPTION_HEAD.captures(headline) {
        let class = short_class(&c[1]);
        if class != "Error" {
            push_id(ids, IdKind::Exception, class);
        }
    }
    for word in words(headline).filter(|w| ERRNO_NAMES.contains(w)) {
        push_id(ids, IdKind::Errno, word);
    }
    // The system's refusal (EPERM, EROFS: a sandbox, a read-only mount, a
    // protected path) relayed by the program that met it is one refusal
    // whatever the program: the same sandbox stops `mkdir`, `cp` and `rm`,
    // and is dealt with the same way. Known by its words and the path, not
    // by the program (`<V>: Operation not permitted`).
    let refusal = SYSTEM_REFUSAL.captures(headline.trim_end()).map(|c| c[1].to_owned());
    if let Some(c) = PROGRAM.captures(headline).filter(|_| refusal.is_none()) {
        let program = &c[1];
        if !NOT_PROGRAMS.contains(&program) && !program.ends_with(".error") {
            push_id(ids, IdKind::Program, program);
        }
    }
    // The type is an identifier, its quotes dropped so that it stays.
    for c in TYPE_OBJECT.captures_iter(headline) {
        push_id(ids, IdKind::Type, &c[1]);
    }
    text = TYPE_OBJECT.replace_all(&text, "$1 object").into_owned();
    // (a log line's time, whole: its hour is no value of the error)
    text = mask_with(&TIMESTAMP, &text, values, "<TIME>", false);
    text = mask_hex_ids(&text, values);
    // twice: `] main -> main` names two refs, and a match ends past the arrow
    text = mask_with(&GIT_REF, &text, values, "<REF>", true);
    text = mask_with(&GIT_REF, &text, values, "<REF>", true);
    // (an apostrophe inside a word, `Can't resolve './x'`, opens no quote)
    text = mask_with(&QUOTED, &apostrophes_apart(&text), values, "<STR>", false).replace(APOSTROPHE, "'");
    text = mask_with(&SLOT_BEFORE, &text, values, "<V>", true);
    text = mask_with(&CALLED, &text, values, "<V>()", false);
    text = mask_with(&CONVERTED_TO, &text, values, "<V>", true);
    text = mask_with(&SLOT_AFTER, &text, values, "<V>", true);
    text = mask_segment_before_message(&text, values);
    text = mask_with(&URL, &text, values, "<URL>", false);
    text = VERSION_LIST.replace_all(&text, "(from versions: …)").into_owned();
    text = mask_paths(&text, values);
    text = NUMBER
        .replace_all(&text, |c: &Captures| {
            // Keep what came before the number (one character, of any width).
            let whole = c.get(0).unwrap();
            let number = c.get(1).unwrap();
            format!("{}<N>", &whole.as_str()[..number.start() - whole.start()])
        })
        .into_owned();
    if let Some(words) = refusal {
        return format!("<V>: {words}");
    }
    collapse_spaces(text.trim())
}

/// Every run of ASCII whitespace (the regex `\s+` of regex-lite) as one
/// space. (By hand: it is run on every key made, and compiling the regex
/// was a sizeable part of a hook's work.)
fn collapse_spaces(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_space = false;
    for c in text.chars() {
        if matches!(c, ' ' | '\t' | '\n' | '\x0B' | '\x0C' | '\r') {
            if !in_space {
                out.push(' ');
            }
            in_space = true;
        } else {
            out.push(c);
            in_space = false;
        }
    }
    out
}

/// What stands for an apostrophe inside a word while quotes are masked
/// (a character no tool's message has).
const APOSTROPHE: char = '\u{E000}';

/// `text` with each apostrophe between two letters (`can't`, `don't`)
/// put apart as APOSTROPHE, so that it opens and closes no quote.
fn apostrophes_apart(text: &str) -> Cow<'_, str> {
    if !text.contains('\'') {
        return Cow::Borrowed(text);
    }
    let chars: Vec<char> = text.chars().collect();
    Cow::Owned(
        chars
            .iter()
            .enumerate()
            .map(|(i, &c)| {
                let letter = |j: Option<usize>| j.and_then(|j| chars.get(j)).is_some_and(|c| c.is_alphabetic());
                if c == '\'' && letter(i.checked_sub(1)) && letter(Some(i + 1)) {
                    APOSTROPHE
                } else {
                    c
                }
            })
            .collect(),
    )
}

/// The rule a linter's headline starts with, as `judge` writes it, when
/// the rule has slashes: biome's `lint/style/useConst` (LINT_HEAD),
/// eslint's `@typescript-eslint/no-unused-vars` (ESLINT_HEAD).
fn slashed_rule(headline: &str) -> Option<regex_lite::Match<'_>> {
    LINT_HEAD
        .captures(headline)
        .or_else(|| ESLINT_HEAD.captures(headline))
        .and_then(|c| c.get(1))
        .filter(|rule| rule.as_str().contains('/'))
}

/// Commit hashes and object ids (7 to 40 hex digits, with letters and
/// digits both: a number or a word is not one) masked as `<SHA>`.
///
/// An id is a whole word (a run of ASCII letters, digits and `_`, as the
/// regex `\b[0-9a-f]{7,40}\b` of regex-lite finds them) of lower-case hex
/// digits. (By hand: nearly every text has seven hex letters somewhere,
/// so the regex was compiled for nearly every key made.)
fn mask_hex_ids(text: &str, values: &mut Vec<String>) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let (mut kept, mut at) = (0, 0);
    while at < bytes.len() {
        if !word_byte(bytes[at]) {
            at += 1;
            continue;
        }
        let start = at;
        while at < bytes.len() && word_byte(bytes[at]) {
            at += 1;
        }
        let id = &text[start..at];
        let hex = id.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
        let letters = id.bytes().any(|b| b.is_ascii_alphabetic());
        let digits = id.bytes().any(|b| b.is_ascii_digit());
        if (7..=40).contains(&id.len()) && hex && letters && digits {
            out.push_str(&text[kept..start]);
            out.push_str("<SHA>");
            values.push(id.to_string());
            kept = at;
        }
    }
    out.push_str(&text[kept..]);
    out
}

/// Every match of `rule` masked: its value (the first capture group that
/// took part, or the whole match) is noted in `values` and replaced by
/// `placeholder`, with the rest of the match kept (`keep_context`) or not.
fn mask_with(rule: &Rule, text: &str, values: &mut Vec<String>, placeholder: &str, keep_context: bool) -> String {
    rule.replace_all(text, |c: &Captures| {
        let whole = c.get(0).unwrap();
        let value = c.iter().skip(1).flatten().next().unwrap_or(whole);
        values.push(value.as_str().to_string());
        if keep_context {
            let w = whole.as_str();
            format!(
                "{}{placeholder}{}",
                &w[..value.start() - whole.start()],
                &w[value.end() - whole.start()..]
            )
        } else {
            placeholder.to_string()
        }
    })
    .into_owned()
}

/// What a file's name ends with, for `path_tokens`.
const FILE_EXTENSIONS: &[&str] = &[
    "py", "js", "mjs", "cjs", "ts", "tsx", "jsx", "rs", "c", "h", "cc", "cpp", "hpp", "java", "go", "rb", "php",
    "json", "yml", "yaml", "toml", "lock", "txt", "csv", "md", "sh", "sql", "tf", "db", "xml", "html", "css", "gz",
    "tgz", "xz", "zip", "jar", "class", "so", "o",
];

/// Every path and file name in `text` masked as `<PATH>`, each noted in
/// `values`.
fn mask_paths(text: &str, values: &mut Vec<String>) -> String {
    let tokens = path_tokens(text);
    if tokens.is_empty() {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    for mut token in tokens {
        // a path in the user's home, written `~/…` (redact_private): the
        // `~` is part of it, as `/home/NAME` was
        if token.start > copied && text[..token.start].ends_with('~') && text[token.start..].starts_with('/') {
            token.start -= 1;
        }
        out.push_str(&text[copied..token.start]);
        out.push_str("<PATH>");
        values.push(text[token.clone()].to_string());
        copied = token.end;
    }
    out.push_str(&text[copied..]);
    out
}

/// Where `text` names a path or a file, left to right without overlap:
/// the matches of the regex
/// `(?:[A-Za-z]:)?(?:\.{0,2}/)?(?:[\w.@+-]+/)+[\w.@+-]*|\b\w[\w.-]*\.(?:EXTENSION)\b`
/// (a run of path characters holding a `/`, or a name ending in a known
/// extension), found by hand in one pass: as a regex it was the costliest
/// step of the failure hook's signature (most headlines have a dot, and
/// regex-lite compiled it and ran it character by character).
/// `path_tokens_are_the_regex_matches` checks the two agree.
fn path_tokens(text: &str) -> Vec<std::ops::Range<usize>> {
    let bytes = text.as_bytes();
    let n = bytes.len();
    if !bytes.iter().any(|&b| b == b'/' || b == b'.') {
        return Vec::new();
    }
    let is_path = |b: u8| word_byte(b) || matches!(b, b'.' | b'@' | b'+' | b'-');
    let is_name = |b: u8| word_byte(b) || matches!(b, b'.' | b'-');
    // Ends of the runs starting at each position (n at the end of the text):
    // of word characters, of path characters; and in a run of name
    // characters, the last dot at or after each position that starts a
    // known extension, with the extension's end.
    let mut word_end = vec![n; n + 1];
    let mut path_end = vec![n; n + 1];
    let mut last_extension: Vec<Option<usize>> = vec![None; n + 1];
    for x in (0..n).rev() {
        let b = bytes[x];
        word_end[x] = if word_byte(b) { word_end[x + 1] } else { x };
        path_end[x] = if is_path(b) { path_end[x + 1] } else { x };
        last_extension[x] = if !is_name(b) {
            None
        } else {
            last_extension[x + 1].or_else(|| {
                let extension = &text[x + 1..word_end[x + 1]];
                (b == b'.' && FILE_EXTENSIONS.contains(&extension)).then_some(word_end[x + 1])
            })
        };
    }
    // `(?:[^/]+/)+[^/]*` in path characters from `at`, if it matches there.
    let segments = |mut at: usize| {
        let mut matched = false;
        while path_end[at] > at && path_end[at] < n && bytes[path_end[at]] == b'/' {
            at = path_end[at] + 1;
            matched = true;
        }
        matched.then_some(path_end[at])
    };
    let path_at = |i: usize| {
        let drive = bytes[i].is_ascii_alphabetic() && bytes.get(i + 1) == Some(&b':');
        // In the regex's order: with the drive, then without; with a
        // leading `/`, then without. (Of `\.{0,2}/`, only the `/` changes
        // what matches: `./` and `../` are path characters and a `/`.)
        [drive.then_some(i + 2), Some(i)]
            .into_iter()
            .flatten()
            .find_map(|start| {
                let slash = (bytes.get(start) == Some(&b'/')).then_some(start + 1);
                [slash, Some(start)].into_iter().flatten().find_map(segments)
            })
    };
    let file_name_at = |i: usize| {
        let starts_word = word_byte(bytes[i]) && (i == 0 || !word_byte(bytes[i - 1]));
        if starts_word && i + 1 < n {
            last_extension[i + 1]
        } else {
            None
        }
    };
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < n {
        match path_at(i).or_else(|| file_name_at(i)) {
            Some(end) => {
                tokens.push(i..end);
                i = end;
            }
            None => i += 1,
        }
    }
    tokens
}

/// `prog: VALUE: message`: the segment before the message is a value (a
/// file, a command) when it is one token; codes (all capitals) stay.
fn mask_segment_before_message(text: &str, values: &mut Vec<String>) -> String {
    let segments: Vec<&str> = text.split(": ").collect();
    if segments.len() < 3 {
        return text.to_string();
    }
    let at = segments.len() - 2;
    let value = segments[at];
    let is_value = !value.is_empty()
        && !value.contains(char::is_whitespace)
        && !value.starts_with('<')
        && !value
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_' || c == '[' || c == ']');
    if !is_value {
        return text.to_string();
    }
    values.push(value.to_string());
    let mut out: Vec<&str> = segments.clone();
    out[at] = "<V>";
    out.join(": ")
}

/// The errno an error states, by name, number or message.
fn errno_of(headline: &str) -> Option<&'static str> {
    const BY_NUMBER: &[(u32, &str)] = &[
        (1, "EPERM"),
        (2, "ENOENT"),
        (13, "EACCES"),
        (17, "EEXIST"),
        (20, "ENOTDIR"),
        (21, "EISDIR"),
        (28, "ENOSPC"),
        (39, "ENOTEMPTY"),
        (98, "EADDRINUSE"),
        (104, "ECONNRESET"),
        (110, "ETIMEDOUT"),
        (111, "ECONNREFUSED"),
    ];
    const BY_MESSAGE: &[(&str, &str)] = &[
        ("No such file or directory", "ENOENT"),
        ("no such file or directory", "ENOENT"),
        ("Permission denied", "EACCES"),
        ("permission denied", "EACCES"),
        ("File exists", "EEXIST"),
        ("file already exists", "EEXIST"),
        ("Is a directory", "EISDIR"),
        ("Not a directory", "ENOTDIR"),
        ("Directory not empty", "ENOTEMPTY"),
        ("Address already in use", "EADDRINUSE"),
        ("address already in use", "EADDRINUSE"),
        ("Connection refused", "ECONNREFUSED"),
        ("Operation not permitted", "EPERM"),
        ("Read-only file system", "EROFS"),
        ("No space left on device", "ENOSPC"),
    ];
    if let Some(c) = ERRNO_NUMBER.captures(headline) {
        let n: u32 = c.get(1).or(c.get(2))?.as_str().parse().ok()?;
        if let Some((_, name)) = BY_NUMBER.iter().find(|(k, _)| *k == n) {
            return Some(name);
        }
    }
    BY_MESSAGE
        .iter()
        .find(|(m, _)| headline.contains(m))
        .map(|(_, name)| *name)
}

/// `error_codes(text)` as a JSON array of `{"kind", "value"}` objects.
pub fn codes_json(text: &str) -> String {
    let ids: Vec<serde_json::Value> = signature(text)
        .identifiers
        .iter()
        .map(|i| serde_json::json!({"kind": i.kind.name(), "value": i.value}))
        .collect();
    serde_json::Value::Array(ids).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_json_parser_rejecting_its_input_says_nothing_of_what_failed() {
        for text in [
            "Exit code 5\njq: parse error: Invalid numeric literal at line 1, column 10",
            "Exit code 5\njq: error (at <stdin>:0): Cannot index string with \"name\"",
            "Exit code 1\nTraceback (most recent call last):\n  File \"<string>\", line 1, in <module>\n\
             json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)",
            "Exit code 1\nSyntaxError: Unexpected token '<', \"<!DOCTYPE \"... is not valid JSON",
            "Exit code 1\nSyntaxError: Unexpected end of JSON input",
            "Exit code 4\nparse error: Invalid literal at line 2, column 0",
            "Exit code 1\nError: invalid character '<' looking for beginning of value",
        ] {
            let sig = signature(text);
            assert!(!sig.headline.is_empty() && !sig.identified, "{text}: {}", sig.headline);
        }
        // a jq program that does not compile says what is wrong in it
        let filter = signature(
            "Exit code 3\njq: error: syntax error, unexpected INVALID_CHARACTER, expecting ';' or ')' \
             (Unix shell quoting issues?) at <top-level>, line 1:\n.[] | select(.name \\!= \"x\")\njq: 1 compile error",
        );
        assert!(filter.identified, "{}", filter.headline);
    }

    #[test]
    fn traceback_gives_its_exception_line() {
        let s = signature(
            "Exit code 1\nTraceback (most recent call last):\n  File \"/w/app.py\", line 1, in <module>\n    import yaml\nModuleNotFoundError: No module named 'yaml'",
        );
        assert_eq!(s.text, "ModuleNotFoundError: No module named <STR>");
        assert_eq!(s.values, vec!["yaml"]);
        assert_eq!(s.identifier(IdKind::Exception), Some("ModuleNotFoundError"));
    }

    #[test]
    fn compiler_codes_keep_their_digits() {
        let s =
            signature("main.ts(1,23): error TS2307: Cannot find module 'x' or its corresponding type declarations.");
        assert_eq!(
            s.text,
            "error TS2307: Cannot find module <STR> or its corresponding type declarations."
        );
        assert_eq!(s.identifier(IdKind::Code), Some("TS2307"));
        let r = signature("error[E0382]: borrow of moved value: `v`\n --> main.rs:4:5");
        assert_eq!(r.text, "error[E0382]: borrow of moved value: <STR>");
        assert_eq!(r.identifier(IdKind::Code), Some("E0382"));
    }

    #[test]
    fn different_identifiers_of_one_kind_conflict() {
        let a = signature("error TS2307: Cannot find module 'a'.");
        let b = signature("error TS2305: Cannot find module 'a'.");
        let c = signature("Error: ENOENT: no such file or directory, open 'x'");
        let d = signature("Error: EACCES: permission denied, open 'x'");
        assert!(a.conflicts_with(&b) && b.conflicts_with(&a));
        assert!(c.conflicts_with(&d));
        assert!(!a.conflicts_with(&signature("error TS2307: Cannot find module 'b'.")));
    }

    #[test]
    fn the_systems_refusal_is_one_whatever_program_met_it() {
        let mkdir = signature("Exit code 1\nmkdir: /Users/x/.cache/foo: Operation not permitted");
        for other in [
            "cp: /Users/x/.cache/foo/a.txt: Operation not permitted",
            "rm: cannot remove '/Users/x/.cache/b': Operation not permitted",
        ] {
            let other = signature(other);
            assert_eq!(other.text, mkdir.text);
            assert!(!mkdir.conflicts_with(&other));
        }
        assert_eq!(mkdir.text, "<V>: Operation not permitted");
        assert_eq!(mkdir.identifier(IdKind::Errno), Some("EPERM"));
        assert_eq!(signature("touch: cannot touch '/usr/x': Read-only file system").identifier(IdKind::Errno), Some("EROFS"));
        // another refusal (its errno differs) is another problem
        assert!(signature("touch: cannot touch '/usr/x': Read-only file system").conflicts_with(&mkdir));
        // a refusal that is not of a path (not the owner, no privilege) stays the program's
        for other in ["chown: changing ownership of 'a.txt': Operation not permitted", "ping: socket: Operation not permitted"] {
            let other = signature(other);
            assert!(other.identifier(IdKind::Program).is_some() && other.text != mkdir.text, "{other:?}");
        }
        // other errno messages stay the program's
        let missing = signature("cat: notes.txt: No such file or directory");
        assert_eq!(missing.identifier(IdKind::Program), Some("cat"));
        assert!(missing.conflicts_with(&signature("ls: notes.txt: No such file or directory")));
    }

    #[test]
    fn value_kinds_tell_fixes_apart() {
        let package = signature("Error: Cannot find module 'express'");
        assert_eq!(package.text, "Cannot find module <STR>");
        let relative = signature("Error: Cannot find module './utils'");
        assert_eq!(package.text, relative.text);
        assert!(package.conflicts_with(&relative));
        assert!(!package.conflicts_with(&signature("Error: Cannot find module 'lodash'")));
        let env = signature("KeyError: 'GITHUB_TOKEN'");
        assert!(env.conflicts_with(&signature("KeyError: 'user_id'")));
    }

    #[test]
    fn numbers_after_wide_characters() {
        let s = signature("psql: エラー: ポート5999のサーバーへの接続に失敗しました");
        assert!(s.text.contains("ポート<N>"), "{}", s.text);
    }

    #[test]
    fn empty_and_boilerplate_only_give_nothing() {
        assert_eq!(signature("").text, "");
        assert_eq!(signature("Exit code 1").text, "");
    }

    /// `path_tokens` finds exactly what the regex in its comment matches:
    /// on every line of the real-error corpus and on random text made of
    /// the characters that decide it.
    #[test]
    fn path_tokens_are_the_regex_matches() {
        let regex = Regex::new(&format!(
            r"(?:[A-Za-z]:)?(?:\.{{0,2}}/)?(?:[\w.@+-]+/)+[\w.@+-]*|\b\w[\w.-]*\.(?:{})\b",
            FILE_EXTENSIONS.join("|")
        ))
        .unwrap();
        let by_regex = |text: &str| regex.find_iter(text).map(|m| m.range()).collect::<Vec<_>>();
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/real_errors/corpus.json");
        let corpus: Vec<serde_json::Value> = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let mut found = 0;
        for entry in &corpus {
            for line in entry["error"].as_str().unwrap().lines() {
                assert_eq!(path_tokens(line), by_regex(line), "{line:?}");
                found += by_regex(line).len();
            }
        }
        assert!(found > 500, "only {found} paths in the corpus");
        let config = proptest::prelude::ProptestConfig::with_cases(5000);
        proptest::proptest!(config, |(text in "[a-cpyjsohtxZ09_./:@+\\- é]{0,40}")| {
            proptest::prop_assert_eq!(path_tokens(&text), by_regex(&text));
        });
    }

    /// A rule's test must pass every text its regex matches, or the rule
    /// would miss it: checked on every line of the real-error corpus as
    /// each rule may see it (raw, trimmed, lower-cased) and on the
    /// headlines the masking rules see.
    #[test]
    fn every_match_passes_its_rule_test() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/real_errors/corpus.json");
        let corpus: Vec<serde_json::Value> = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let mut texts = Vec::new();
        for entry in &corpus {
            let error = entry["error"].as_str().unwrap();
            texts.push(signature(error).headline);
            for line in error.lines() {
                texts.extend([line.to_string(), line.trim().to_string(), line.to_ascii_lowercase()]);
            }
        }
        assert!(texts.len() > 2000, "the corpus is there");
        // forms the corpus lacks (a review's fuzzing found tests that missed them)
        texts.extend(
            [
                "remote: error: GH924: Repository rule violations found",
                "^--  SC2086 (info): Double quote to prevent globbing and word splitting.",
                "^\tSC2034 (warning): x appears unused.",
            ]
            .map(str::to_string),
        );
        let mut checked = 0;
        for (name, rule) in ALL_RULES {
            for text in &texts {
                if rule.regex().is_match(text) {
                    assert!(
                        (rule.may_match)(text),
                        "{name}'s test rejects {text:?}, which it matches"
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 1000, "only {checked} matches checked");
    }

    /// The scanners written by hand give what the regexes they replace
    /// gave (`\s+` → one space; whole hex words of letters and digits
    /// masked), on every line of the real-error corpus and on edges.
    #[test]
    fn hand_written_scanners_match_the_regexes_they_replace() {
        // (says_something_failed's words, as the regex they were, matched
        // in the ASCII-lowercased text)
        const FAILURE_WORDS_REGEX: &str = r"\b(?:errors?|fatal|failed|failure|cannot|can't|could not|couldn't|not found|no such|denied|refused|invalid|unexpected|undefined|exception|abort(?:ed)?|missing|unable|unknown|not allowed|violates|conflict|rejected|not a [\w-]+ command|does not (?:exist|contain|match|support|accept)|no rule|unrecognized|exceed(?:s|ed)?|illegal|no matches found|timed out|deprecated|unbound variable|don't know how to)\b";
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/real_errors/corpus.json");
        let corpus: Vec<serde_json::Value> = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let mut texts: Vec<String> = corpus.iter().map(|e| e["error"].as_str().unwrap().to_string()).collect();
        texts.extend(
            [
                "a\t\tb \r\n c\x0B\x0Cd\u{a0}e\u{2003} f",
                "commit 3f9a8b2c4d5e6f708192a3b4c5d6e7f8091a2b3c and abc1234 but not deadbeef or 1234567",
                "x3f9a8b2 3f9a8b2_ _3f9a8b2 3f9a8b2é é3f9a8b2 3F9A8B2c 3f9a8b2c4d5e6f708192a3b4c5d6e7f8091a2b3c4",
                "ref 0a1b2c3-4d5e6f7.8a9b0c1/ab12cd3",
                "",
                "ERRORS: x; Errored; error_code; the_error; errors_ ; 'ABORTED'; reexceeded; exceedss; exceeded.",
                "'foo' is not a git command. 'bar' is NOT A my-tool_2 COMMAND; not a  git command; not a - commands",
                "does not exist; does not exists; Does Not Match; does  not match; doesn't; does not accepted",
                "can't x; cant; Couldn't; could  not; don't know how to; don't know how; no matches found.",
                "é error; erroré; ошибка error; _fatal; fatal_; 9fatal; fatal9; -fatal-; timed out; TIMED OUT",
                "Exit code 1", "Exit code -1", "Exit code ", "Exit code -", "Exit code 12x", "Exit code 1\n", " Exit code 1",
            ]
            .map(str::to_string),
        );
        let failure_words = Regex::new(FAILURE_WORDS_REGEX).unwrap();
        let exit_code = Regex::new(r"^Exit code -?\d+$").unwrap();
        for line in texts.iter().flat_map(|t| std::iter::once(t.as_str()).chain(t.lines())) {
            assert_eq!(says_something_failed(line), failure_words.is_match(&line.to_ascii_lowercase()), "{line:?}");
            assert_eq!(is_exit_code(line), exit_code.is_match(line), "{line:?}");
        }
        let config = proptest::prelude::ProptestConfig::with_cases(5000);
        const PIECES: &str = "(Error|errors|exceed|ed|s|abort|not a|does not|Does Not|exist|command|can't|could|not| |  |x|-|_|'|é|9|\\.){0,10}";
        proptest::proptest!(config, |(text in PIECES)| {
            proptest::prop_assert_eq!(says_something_failed(&text), failure_words.is_match(&text.to_ascii_lowercase()));
        });
        let spaces = Regex::new(r"\s+").unwrap();
        let hex = Regex::new(r"\b[0-9a-f]{7,40}\b").unwrap();
        for text in &texts {
            assert_eq!(collapse_spaces(text), spaces.replace_all(text, " "), "{text:?}");
            let mut found = Vec::new();
            let expected = hex.replace_all(text, |c: &Captures| {
                let id = &c[0];
                if id.bytes().any(|b| b.is_ascii_alphabetic()) && id.bytes().any(|b| b.is_ascii_digit()) {
                    found.push(id.to_string());
                    "<SHA>".to_string()
                } else {
                    id.to_string()
                }
            });
            let mut values = Vec::new();
            assert_eq!(mask_hex_ids(text, &mut values), expected, "{text:?}");
            assert_eq!(values, found, "{text:?}");
        }
    }
}

#[cfg(test)]
mod v3_tests {

    #[test]
    fn a_linters_own_diagnostic_outranks_a_passing_tests_log() {
        // a pre-commit hook: the tests passed (one logged an error on
        // purpose), then biome found a formatting problem
        let hook = "Exit code 1\n$ bun test src/\nerror: Item 3 failed\n      at <anonymous> (a.test.ts:89:16)\n\
                    12 pass\n$ biome check\n a.ts format ━━━━━━━━━━━━━━━━━━━━━━\n\n  × Formatter would have printed the following content:\n\
                    Found 1 error.\ncheck ━━━━━━━━━━━━━━\n\n  × Some errors were emitted while running checks.\n\
                    error: script \"lint\" exited with code 1\nhusky - pre-commit script failed (code 1)";
        let sig = signature(hook);
        assert_eq!(sig.text, "format: Formatter would have printed the following content:");
        assert!(sig.identified);
        // a run's summary alone is a wrapper, never the signature
        let summary = signature("check ━━━━━━━━\n  × Some warnings were emitted while running checks.");
        assert!(!summary.identified, "{}", summary.text);
    }

    #[test]
    fn a_warning_is_not_what_failed_where_an_error_is_reported() {
        let biome = "app/a.ts:18:11 lint/correctness/noUnusedVariables ━━━━━━━━━━━━━━━━━━━━\n\n  \
                     ! This variable x is unused.\n\n    18 │   const x = 1;\n\n\
                     app/b.ts:3:1 lint/style/useConst ━━━━━━━━━━━━━━━━━━━━\n\n  × This let declares a variable that is only assigned once.\n";
        // (the rule is the diagnostic's identifier, said with its message:
        // a path it is not)
        let sig = signature(biome);
        assert_eq!(sig.headline, "lint/style/useConst: This let declares a variable that is only assigned once.");
        assert!(sig.text.starts_with("lint/style/useConst: This let declares"), "{}", sig.text);
        assert_eq!(sig.identifier(IdKind::Code), Some("lint/style/useConst"));
        // with warnings only (`--error-on-warnings`), the warning is what failed
        let only = "$ biome check --error-on-warnings\n at src/p.tsx:61:2 lint/correctness/useExhaustiveDependencies  FIXABLE  ━━━━━━━━━━\n\n  \
                    ! This hook specifies more dependencies than necessary: n.\n\ncheck ━━━━━━━━━━━━━━━━\n\n  \
                    × Some warnings were emitted while running checks.\n\nerror: script \"lint\" exited with code 1";
        let sig = signature(only);
        assert_eq!(sig.identifier(IdKind::Code), Some("lint/correctness/useExhaustiveDependencies"));
        assert!(sig.identified);
        let eslint = "/w/a.js\n  1:7  warning  'y' is assigned a value but never used  no-unused-vars\n  \
                      3:1  error  Missing semicolon  semi\n";
        assert_eq!(signature(eslint).headline, "eslint semi: Missing semicolon");
        assert_eq!(signature(eslint).identifier(IdKind::Code), Some("semi"));
    }

    #[test]
    fn an_error_a_passing_bun_test_logged_is_not_what_failed() {
        let logged = "$ bun test src/\nbun test v1.3.5 (1e86cebd)\n\nsrc/a/limiter.test.ts:\n\
                      [ConcurrencyLimiter] Task 2 failed: 89 | throw new Error(\"Item 3 failed\");\n\
                      error: Item 3 failed\n      at <anonymous> (/w/src/a/limiter.test.ts:89:16)\n\n\
                      src/b/prompt.test.ts:\n";
        let failed = "error: expect(received).toContain(expected)\n\nExpected to contain: \"x\"\n\
                      Received: \"y\"\n\n      at <anonymous> (/w/src/b/prompt.test.ts:726:34)\n\
                      (fail) prompt > routing > prefers generic updates [0.60ms]\n\n 12 pass\n 1 fail\n\
                      Ran 13 tests across 2 files. [1026.00ms]\nerror: script \"test\" exited with code 1";
        let whole = signature(&format!("Exit code 1\n{logged}{failed}"));
        assert_eq!(whole.headline, "error: expect(received).toContain(expected)");
        // the failed test's own error cut out of the output: its name
        let cut = signature(&format!("Exit code 1\n{logged}\n... [19420 characters truncated] ...\n\n{}",
                                     &failed[failed.find("      at").unwrap()..]));
        assert_eq!(cut.headline, "(fail) prompt > routing > prefers generic updates");
        assert!(cut.identified);
    }

    #[test]
    fn an_error_bun_reports_between_tests_is_what_failed() {
        // a pre-commit hook's bun test: passing tests logged errors on
        // purpose, the output was cut, and a test file that could not load
        // its imports failed the run
        let logged = "$ bun test src/\nbun test v1.3.5 (1e86cebd)\n\nsrc/a/limiter.test.ts:\n\
                      error: Item 3 failed\n      at <anonymous> (/w/src/a/limiter.test.ts:89:16)\n\n\
                      ... [50013 characters truncated] ...\n\ntmp/x/hooks/useLogout.test.ts:\n\n";
        let unhandled = "# Unhandled error between tests\n-------------------------------\n\
                         error: Cannot find module 'next/navigation' from '/w/tmp/x/hooks/useLogout.test.ts'\n\
                         -------------------------------\n\n 1365 pass\n 228 fail\n 228 errors\n";
        let sig = signature(&format!("Exit code 1\n{logged}{unhandled}"));
        assert!(sig.headline.starts_with("error: Cannot find module 'next/navigation' from "), "{}", sig.headline);
        assert!(sig.identified);
        // bun 1.3.13 prints the error right under the banner
        let bare = "src/u.test.ts:\n# Unhandled error between tests\nerror: Cannot find module '$lib/utils' from '/w/src/u.test.ts'\n\
                    0 pass / 1 fail / 1 error\n";
        assert!(signature(bare).headline.starts_with("error: Cannot find module '$lib/utils'"), "{}", signature(bare).headline);
        // the logged error alone, with no failure reported, stays what it was
        let alone = signature(&format!("Exit code 1\n{logged}"));
        assert_eq!(alone.headline, "error: Item 3 failed");
    }

    #[test]
    fn gradles_report_is_a_wrapper_around_what_went_wrong() {
        let report = |task: &str, causes: &str| {
            format!("\nFAILURE: Build failed with an exception.\n\n* What went wrong:\nExecution failed for task '{task}'.\n\
                     {causes}\n\n* Try:\n> Run with --stacktrace option to get the stack trace.\n\
                     > Get more help at https://help.gradle.org.\n\nBUILD FAILED in 2s")
        };
        // the Kotlin compiler's diagnostic, above the report
        let kotlin = format!("Exit code 1\n> Task :app:compileKotlin FAILED\n\
                              e: file:///w/app/src/main/kotlin/Main.kt:12:5 Unresolved reference: foo\n{}",
                             report(":app:compileKotlin", "> Compilation error. See log for more details"));
        let sig = signature(&kotlin);
        assert_eq!(sig.headline, "error: Unresolved reference: foo");
        assert!(sig.identified);
        // javac's, the same
        let java = format!("> Task :app:compileJava FAILED\n/w/app/src/main/java/App.java:12: error: cannot find symbol\n\
                            1 error\n{}", report(":app:compileJava", "> Compilation failed; see the compiler error output for details."));
        assert_eq!(signature(&java).headline, "error: cannot find symbol");
        // only the report: its deepest cause
        let dependency = report(":app:compileJava", "> Could not resolve all files for configuration ':app:compileClasspath'.\n   \
                                > Could not find com.acme:lib:1.2.3.\n     Required by:\n         project :app");
        let sig = signature(&dependency);
        assert_eq!(sig.headline, "Could not find com.acme:lib:1.2.3.");
        assert!(sig.identified);
        // two failures of two tasks do not share a key made of the report
        assert_ne!(signature(&kotlin).text, signature(&dependency).text);
    }

    #[test]
    fn a_failed_dotnet_test_is_known_by_its_error_not_its_name() {
        let run = |message: &str| {
            format!("Exit code 1\nStarting test execution, please wait...\n  Failed App.Tests.RenderTests.Renders [4 ms]\n  \
                     Error Message:\n   {message}\n  Stack Trace:\n     at App.Tests.RenderTests.Renders() in /w/App.Tests/RenderTests.cs:line 9\n\n\
                     Failed!  - Failed:     1, Passed:     1, Skipped:     0, Total:     2, Duration: 12 ms - App.Tests.dll (net8.0)")
        };
        let missing = signature(&run("System.IO.FileNotFoundException : Could not find file '/w/bin/data.json'."));
        assert!(missing.headline.starts_with("FileNotFoundException: Could not find file "), "{}", missing.headline);
        let unequal = signature(&run("Assert.Equal() Failure: Strings differ"));
        assert_eq!(unequal.headline, "Assert.Equal() Failure: Strings differ");
        // the same error in another test is the same key
        let other = run("System.IO.FileNotFoundException : Could not find file '/w/bin/data.json'.")
            .replace("RenderTests.Renders", "ParseTests.Parses");
        assert_eq!(signature(&other).text, missing.text);
        // with no error message, the failed test's name says which
        let bare = "  Failed App.Tests.RenderTests.Renders [4 ms]\n";
        assert_eq!(signature(bare).headline, "Failed App.Tests.RenderTests.Renders");
    }

    #[test]
    fn windows_powershells_error_record_says_its_message() {
        let missing = "Exit code 1\nsed : The term 'sed' is not recognized as the name of a cmdlet, function, script file, or operable program. Check the \n\
                       spelling of the name, or if a path was included, verify that the path is correct and try again.\n\
                       At line:1 char:1\n+ sed -n '320,360p' src/app.ts\n+ ~~~\n    \
                       + CategoryInfo          : ObjectNotFound: (sed:String) [], CommandNotFoundException\n    \
                       + FullyQualifiedErrorId : CommandNotFoundException\n";
        let s = signature(missing);
        assert!(s.identified && s.says_what_failed, "{s:?}");
        // one error with the shells' own (and PowerShell 7's) way of saying it
        assert_eq!(s.text, signature("Exit code 127\nbash: sed: command not found").text);
        let concise = "sed: The term 'sed' is not recognized as a name of a cmdlet, function, script file, or executable program.";
        assert_eq!(signature(concise).text, s.text);
        assert_eq!(s.values, ["sed"]);
        let parser = "At line:1 char:14\n+ cd src-tauri && cargo test\n+              ~~\n\
                      The token '&&' is not a valid statement separator in this version.\n    \
                      + CategoryInfo          : ParserError: (:) [], ParentContainsErrorRecordException\n    \
                      + FullyQualifiedErrorId : InvalidEndOfLine\n";
        let s = signature(parser);
        assert!(s.identified, "{s:?}");
        assert_eq!(s.headline, "The token '&&' is not a valid statement separator in this version.");
        let thrown = "Exit code 1\nlegend block not replaced\nAt C:\\w\\patch.ps1:20 char:30\n\
                      + if ($updated -eq $content) { throw \"legend block not replaced\"; }\n+                              ~~~~~~~~~\n    \
                      + CategoryInfo          : OperationStopped: (legend block not replaced:String) [], RuntimeException\n    \
                      + FullyQualifiedErrorId : legend block not replaced\n";
        // a script's own throw is its own check, not PowerShell's error
        let s = signature(thrown);
        assert!(!s.identified, "{s:?}");
        // wrapped at 80 columns: read whole from its `Name :` start
        let narrow = "Exit code 1\nsed : The term 'sed' is not recognized as the name of a cmdlet, function, \n\
                      script file, or operable program. Check the spelling of the name, or if a path \n\
                      was included, verify that the path is correct and try again.\nAt line:1 char:1\n+ sed -n foo\n+ ~~~\n    \
                      + CategoryInfo          : ObjectNotFound: (sed:String) [], CommandNotFoundException\n    \
                      + FullyQualifiedErrorId : CommandNotFoundException\n";
        assert_eq!(signature(narrow).headline, "command not found: 'sed'");
        // a native program's stderr in a record (its first line only) is
        // the program's output: its own error below is the error
        let native = "Exit code 101\ncargo :    Compiling app v0.1.0 (C:\\w\\app)\nAt line:1 char:1\n+ cargo build\n+ ~~~~~~~~~~~\n    \
                      + CategoryInfo          : NotSpecified: (   Compiling app v0.1.0 (C:\\w\\app):String) [], RemoteException\n    \
                      + FullyQualifiedErrorId : NativeCommandError\n \nerror[E0425]: cannot find value `x` in this scope\n \
                      --> src\\main.rs:2:5\n";
        assert_eq!(signature(native).headline, "error[E0425]: cannot find value `x` in this scope");
        // a cmdlet's error that did not stop the line is not what failed
        // when what ran after it says an error
        let went_on = "Exit code 1\nRemove-Item : Cannot find path 'C:\\w\\dist' because it does not exist.\nAt line:1 char:1\n\
                       + Remove-Item dist -Recurse -Force; npm run build\n+ ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n    \
                       + CategoryInfo          : ObjectNotFound: (C:\\w\\dist:String) [Remove-Item], ItemNotFoundException\n    \
                       + FullyQualifiedErrorId : PathNotFound,Microsoft.PowerShell.Commands.RemoveItemCommand\n\n\
                       src/App.tsx(12,7): error TS2322: Type 'string' is not assignable to type 'number'.\n";
        assert!(signature(went_on).headline.starts_with("error TS2322: "), "{:?}", signature(went_on));
        let alone = went_on.split("\n\nsrc/").next().unwrap();
        assert_eq!(signature(alone).headline, "Remove-Item: Cannot find path 'C:\\w\\dist' because it does not exist.");
        // a `+` line without the record's place is no record
        let plain = signature("Exit code 1\n+ CategoryInfo is a field name\nError: no config found");
        assert_eq!(plain.headline, signature("Exit code 1\nError: no config found").headline);
    }

    #[test]
    fn a_failed_test_run_of_gradle_phpunit_or_ruby_is_known_by_its_error() {
        let gradle = "> Task :app:test FAILED\n\nRenderTest > renders() FAILED\n    java.io.FileNotFoundException at RenderTest.java:12\n\n\
                      2 tests completed, 1 failed\n\nFAILURE: Build failed with an exception.\n";
        assert_eq!(signature(gradle).headline, "FileNotFoundException");
        let phpunit = "PHPUnit 10.5.0 by Sebastian Bergmann and contributors.\n\n.F    2 / 2 (100%)\n\nThere was 1 failure:\n\n\
                       1) Tests\\RenderTest::testRenders\nFailed asserting that two strings are identical.\n\n\
                       /w/tests/RenderTest.php:9\n\nFAILURES!\nTests: 2, Assertions: 2, Failures: 1.";
        assert_eq!(signature(phpunit).headline, "Failed asserting that two strings are identical.");
        let ruby = "/w/app.rb:3:in `<main>': undefined local variable or method `foo' for main:Object (NameError)";
        assert_eq!(signature(ruby).headline, "NameError: undefined local variable or method `foo' for main:Object");
        let ruby34 = "/w/lib/app.rb:3:in 'App#run': undefined method 'size' for nil (NoMethodError)";
        assert_eq!(signature(ruby34).headline, "NoMethodError: undefined method 'size' for nil");
    }

    #[test]
    fn nix_vite_and_next_say_that_a_build_failed_around_its_error() {
        let nix = "error: builder for '/nix/store/8x7k-hello-2.12.drv' failed with exit code 2;\n       last 5 log lines:\n       \
                   > gcc -c hello.c\n       > hello.c:3:1: error: unknown type name 'foo'\n       \
                   For full logs, run 'nix log /nix/store/8x7k-hello-2.12.drv'.\n\
                   error: 1 dependencies of derivation '/nix/store/9y-home-manager-path.drv' failed to build";
        assert_eq!(signature(nix).headline, "error: unknown type name 'foo'");
        let darwin = "building the system configuration...\nerror: Cannot build '/nix/store/x-darwin-system.drv'.\n       \
                      Reason: 1 dependency failed.\n       Output paths:\n         /nix/store/x-darwin-system\n\
                      error: Build failed due to failed dependency";
        assert!(signature(darwin).headline.starts_with("error: Cannot build "), "nothing else to go by");
        assert!(!signature(darwin).identified);
        // nor is the wrapper's last line, after the harness's exit code
        assert!(!signature(&format!("Exit code 1\n{darwin}")).identified, "{}", signature(&format!("Exit code 1\n{darwin}")).headline);
        let vite = "vite v5.2.0 building for production...\nx Build failed in 120ms\nerror during build:\n\
                    [vite]: Rollup failed to resolve import \"lodash-es\" from \"/w/src/main.ts\".\n";
        assert!(signature(vite).headline.starts_with("[vite]: Rollup failed to resolve import"), "{}", signature(vite).headline);
        let next = "   Creating an optimized production build ...\nFailed to compile.\n\n./src/app/page.tsx\n\
                    Module not found: Can't resolve '@/components/Hero'\n\n> Build failed because of webpack errors";
        assert_eq!(signature(next).headline, "Module not found: Can't resolve '@/components/Hero'");
    }

    #[test]
    fn shellchecks_finding_and_uvs_cause_are_the_error() {
        let shellcheck = "\nIn scripts/install.sh line 12:\nif [ $1 == \"x\" ]; then\n     \
                          ^-- SC2086 (info): Double quote to prevent globbing and word splitting.\n        \
                          ^-- SC3014 (warning): In POSIX sh, == in place of = is undefined.\n\nFor more information:\n  \
                          https://www.shellcheck.net/wiki/SC3014 -- In POSIX sh, == in place of = is ...";
        let sig = signature(shellcheck);
        assert_eq!(sig.headline, "SC3014: In POSIX sh, == in place of = is undefined.");
        assert!(sig.identified);
        let uv = "  × No solution found when resolving dependencies:\n  \
                  ╰─▶ Because foo==2.0 depends on bar>=3 and you require bar<3, we can conclude that you require foo<2.0.";
        assert!(signature(uv).headline.starts_with("No solution found when resolving dependencies: Because foo==2.0 depends on"),
                "{}", signature(uv).headline);
    }

    #[test]
    fn pytests_banners_are_not_its_error_and_its_e_lines_are() {
        let fixture = "Exit code 1\n==================================== ERRORS ====================================\n\
                       _________________________ ERROR at setup of test_db __________________________\n\
                       file /w/tests/test_db.py, line 5\n  def test_db(database):\nE       fixture 'database' not found\n\
                       >       available fixtures: cache, capfd, capsys, tmp_path\n\n/w/tests/test_db.py:5\n\
                       =========================== short test summary info ============================\n\
                       ERROR tests/test_db.py::test_db\n========================= 1 error in 0.01s =========================";
        let sig = signature(fixture);
        assert_eq!(sig.headline, "fixture 'database' not found");
        assert!(sig.identified);
        // an exception on an E line outranks it, as before
        let exc = fixture.replace("E       fixture 'database' not found", "E   ModuleNotFoundError: No module named 'fastapi'");
        assert_eq!(signature(&exc).headline, "ModuleNotFoundError: No module named 'fastapi'");
    }

    #[test]
    fn a_formatters_check_says_what_is_wrong() {
        for (output, headline) in [
            ("Exit code 1\nWould reformat: src/app.py\n1 file would be reformatted, 9 files already formatted", "Would reformat: src/app.py"),
            ("Exit code 1\nwould reformat /w/src/app.py\n\nOh no! 💥 💔 💥\n1 file would be reformatted.", "would reformat /w/src/app.py"),
            ("Exit code 1\nDiff in /w/src/main.rs at line 3:\n fn main() {\n-    let x=1;\n+    let x = 1;\n }", "Diff in /w/src/main.rs at line 3:"),
            ("Exit code 1\nChecking formatting...\n[warn] src/app.ts\n[warn] Code style issues found in the above file. Run Prettier with --write to fix.",
             "[warn] Code style issues found in the above file. Run Prettier with --write to fix."),
        ] {
            let sig = signature(output);
            assert_eq!(sig.headline, headline);
            assert!(sig.identified, "{output}");
        }
        // two files of one project to reformat are one error
        assert_eq!(signature("Would reformat: src/a.py").text, signature("Would reformat: lib/b/c.py").text);
    }

    #[test]
    fn what_a_step_printed_under_act_is_the_error_not_acts_report() {
        let act = "Exit code 1\n[CI/test] ⭐ Run Main Run linting\n[CI/test]   🐳  docker exec cmd=[bash -e /var/run/act/workflow/5] user= workdir=\n\
                   [CI/test]   | All checks passed!\n[CI/test]   ✅  Success - Main Run linting [660ms]\n\
                   [CI/test] ⭐ Run Main Run formatting check\n[CI/test]   | Would reformat: test/test_a.py\n\
                   [CI/test]   | 1 file would be reformatted, 10 files already formatted\n\
                   [CI/test]   ❌  Failure - Main Run formatting check [664ms]\n[CI/test] exitcode '1': failure\n\
                   [CI/test] 🏁  Job failed\nError: Job 'test' failed";
        let sig = signature(act);
        assert_eq!(sig.headline, "Would reformat: test/test_a.py");
        assert!(sig.identified);
        // another step's error under act is another key
        let pyright = act.replace("Would reformat: test/test_a.py", "/w/a.py:3:8 - error: Import \"x\" could not be resolved");
        assert_ne!(signature(&pyright).text, sig.text);
        // pyright's diagnostics under act, after a line of the step's log
        // that reads as a failure (a target triple's `-unknown-`)
        let typecheck = act.replace("Would reformat: test/test_a.py",
                                    "Trying to restore uv cache with key: setup-uv-1-x86_64-unknown-linux-gnu-0.7.13-f6c65b29c8\n\
                                     [CI/test]   |   /w/app/converter.py:459:29 - error: Type of \"name\" is unknown (reportUnknownMemberType)");
        assert_eq!(signature(&typecheck).headline, "error: Type of \"name\" is unknown (reportUnknownMemberType)");
        // a bracketed log that is not act's keeps its lines
        let maven = "[INFO] Running com.acme.RenderTest\n[ERROR] Failed to execute goal x: There are test failures.";
        assert_eq!(own_output(maven), maven);
    }

    #[test]
    fn lefthooks_report_is_a_wrapper_around_its_jobs_output() {
        let hook = "Exit code 1\n╭───────────────────────────────────────╮\n│ 🥊 lefthook v1.12.3  hook: pre-commit │\n\
                    ╰───────────────────────────────────────╯\n┃  biome-fix ❯ \n\nChecked 4 files in 23ms. No fixes applied.\n\
                    The following paths are ignored by one of your .gitignore files:\nnode_modules\n\
                    hint: Use -f if you really want to add them.\n\nexit status 1┃  biome-format-check ❯ \n\n\
                    Checked 4 files in 1313µs. No fixes applied.\n\n  ────────────────────────────────────\n\
                    summary: (done in 0.99 seconds)       \n✔️ biome-format-check (0.18 seconds)\n🥊 biome-fix (0.34 seconds)";
        let sig = signature(hook);
        assert_eq!(sig.headline, "The following paths are ignored by one of your .gitignore files:");
        assert!(sig.identified);
    }

    #[test]
    fn what_a_shells_start_up_printed_is_not_the_error() {
        // a search that found nothing says nothing went wrong, whatever
        // nvm said first
        let nothing = signature("Exit code 1\nNow using node v22.20.0 (npm v10.9.3)\n");
        assert!(!nothing.identified, "{}", nothing.headline);
        let direnv = "Exit code 128\ndirenv: loading ~/w/.envrc\ndirenv: export +VIRTUAL_ENV ~PATH\n\
                      Found '/w/.nvmrc' with version <22>\nNow using node v22.20.0 (npm v10.9.3)\n\
                      fatal: Could not read from remote repository.";
        assert_eq!(signature(direnv).headline, "fatal: Could not read from remote repository.");
        // direnv's own error is one
        let blocked = signature("Exit code 1\ndirenv: error /w/.envrc is blocked. Run `direnv allow` to approve its content");
        assert!(blocked.identified);
    }

    #[test]
    fn a_bare_error_says_nothing_and_a_json_error_says_its_message() {
        // Claude Code's word for a command that failed and printed nothing
        for bare in ["Error", "Exit code 1\nerror:", "FAILED"] {
            assert!(!signature(bare).identified, "{bare}");
        }
        let graphql = r#"{"errors":[{"path":["query","repository"],"extensions":{"code":"argumentNotAccepted"},"locations":[{"line":11,"column":20}],"message":"Field 'body' doesn't accept argument 'truncate'"}]}"#;
        let sig = signature(graphql);
        assert_eq!(sig.headline, "Field 'body' doesn't accept argument 'truncate'");
        assert!(sig.identified);
        assert_eq!(signature(r#"{"error":{"code":401,"message":"Bad credentials"}}"#).headline, "Bad credentials");
        assert_eq!(signature(r#"{"error":"invalid_grant"}"#).headline, "invalid_grant");
        // a document that is no error is read as before
        assert_eq!(signature(r#"{"errorCount":0}"#).headline, r#"{"errorCount":0}"#);
    }

    #[test]
    fn what_a_success_printed_shows_an_error_only_when_it_says_one() {
        // identified as an error's line, by its shape, but no error in a success's output
        let ran = ["omp", "head", "sudo", "ls", "node", "git", "bash"].map(str::to_owned);
        assert!(signature("segments: git path session time").identified);
        assert!(!shows_an_error("segments: git path session time\ntime: 10:41:00", &ran));
        assert!(!shows_an_error("ok", &ran));
        for error in [
            "cat: notes.txt: No such file or directory",
            "(eval):1: bad substitution",
            "Traceback (most recent call last):\n  File \"a.py\", line 1\nKeyError: 'x'",
            "src/a.ts(3,5): error TS2345: Argument of type 'string' is not assignable",
            "rg: unrecognized flag --color",
            // a program the line ran, in its own words, in any language
            "sudo: a password is required",
            "node: bad option: --experimental-transform-types",
            "ls: 'dist'에 접근할 수 없습니다: 그런 파일이나 디렉터리가 없습니다",
            "bash: foo: Befehl nicht gefunden",
            "git: 'stats'은(는) 깃 명령이 아닙니다. 'git --help'를 참고하십시오.",
        ] {
            assert!(shows_an_error(error, &ran), "{error}");
        }
        // the same shapes named after no program the line ran are values
        assert!(!shows_an_error("keys: a password is required", &ran));
    }

    /// The signature of a failed command's output (`Exit code 1`, then `out`).
    fn failed(out: &str) -> Signature {
        signature(&format!("Exit code 1\n{out}"))
    }

    /// That a failed command's output is identified, by `headline`.
    fn says(out: &str, headline: &str) {
        let sig = failed(out);
        assert_eq!(sig.headline, headline, "{out}");
        assert!(sig.identified, "{out}");
    }

    /// What failed, read out of the reports of more toolchains (each case
    /// as the tool prints it, cut short).
    #[test]
    fn the_error_inside_more_toolchains_reports() {
        // a bundler's location line is not its error
        says("ERROR in ./src/index.js 3:0-38\nModule not found: Error: Can't resolve './components/Header' in '/w/site/src'\n\
              webpack 5.91.0 compiled with 1 error in 1432 ms",
             "Module not found: Error: Can't resolve './components/Header' in '/w/site/src'");
        // (an apostrophe inside a word opens no quote)
        assert_eq!(failed("Module not found: Error: Can't resolve 'react' in '/w/src'").text,
                   "Module not found: <V>: Can't resolve <STR> in <STR>");
        says("[!] RollupError: src/main.js (4:9): \"formatDate\" is not exported by \"src/utils.js\".\n\
              https://rollupjs.org/troubleshooting/#error-name-is-not-exported-by-module",
             "RollupError: src/main.js (4:9): \"formatDate\" is not exported by \"src/utils.js\".");
        says("   Linting and checking validity of types  ..Failed to compile.\n\n./app/page.tsx:18:23\n\
              Type error: Property 'rows' does not exist on type 'Report'.",
             "Type error: Property 'rows' does not exist on type 'Report'.");
        // package managers' own errors, not what they print around them
        says(" ERR_PNPM_NO_MATCHING_VERSION  No matching version found for zod@^4.9.0\n\n\
              This error happened while installing a direct dependency of /w/repo",
             "ERR_PNPM_NO_MATCHING_VERSION No matching version found for zod@^4.9.0");
        says("➤ YN0000: · Yarn 4.2.2\n➤ YN0000: ┌ Resolution step\n➤ YN0082: │ typescriptt@npm:^5.4.0: No candidates found\n\
              ➤ YN0000: └ Completed in 0s 412ms\n➤ YN0000: · Failed with errors in 0s 418ms",
             "YN0082: typescriptt@npm:^5.4.0: No candidates found");
        says("  Preparing metadata (setup.py) ... error\n  error: subprocess-exited-with-error\n  \n  \
              × python setup.py egg_info did not run successfully.\n  │ exit code: 1\n  ╰─> [3 lines of output]\n      \
              running egg_info\n      Error: pg_config executable not found.\n      [end of output]\n\
              error: metadata-generation-failed\n\n× Encountered error while generating package metadata.\n╰─> See above for output.",
             "pg_config executable not found.");
        says("🔒 Lock failed\nUnable to find a resolution because the following dependencies don't work on all Python versions.",
             "Unable to find a resolution because the following dependencies don't work on all Python versions.");
        // a build step's error in a container build, not the build's report of it
        says("#6 [4/5] RUN npm ci\n#6 0.413 npm ERR! code EUSAGE\n\
              #6 0.413 npm ERR! The `npm ci` command can only install with an existing package-lock.json\n\
              #6 ERROR: process \"/bin/sh -c npm ci\" did not complete successfully: exit code: 1\n\
              ERROR: failed to solve: process \"/bin/sh -c npm ci\" did not complete successfully: exit code: 1",
             "The `npm ci` command can only install with an existing package-lock.json");
        // compilers and linters under a build tool, by their diagnostic
        says("[ERROR] COMPILATION ERROR : \n[ERROR] /w/src/main/java/com/acme/OrderService.java:[42,16] incompatible types: \
              Optional<Order> cannot be converted to Order\n[INFO] BUILD FAILURE",
             "error: incompatible types: Optional<Order> cannot be converted to Order");
        says("************* Module store\nstore.py:17:8: E1101: Instance of 'Store' has no 'items' member (no-member)\n\
              store.py:29:0: C0116: Missing function or method docstring (missing-function-docstring)",
             "E1101: Instance of 'Store' has no 'items' member");
        says("CMake Error at CMakeLists.txt:14 (find_package):\n  By not providing \"Findfmt.cmake\" in CMAKE_MODULE_PATH\n  \
              this project has asked CMake to find a package.\n\n-- Configuring incomplete, errors occurred!",
             "CMake Error: By not providing \"Findfmt.cmake\" in CMAKE_MODULE_PATH this project has asked CMake to find a package.");
        says("✔ Preparing lint-staged...\n      ✖ eslint --fix [FAILED]\n↓ Skipped because of errors from tasks.\n\n✖ eslint --fix:\n\n\
              /w/web/src/App.tsx\n  7:10  error  'useMemo' is defined but never used  @typescript-eslint/no-unused-vars\n\n\
              husky - pre-commit script failed (code 1)",
             "eslint @typescript-eslint/no-unused-vars: 'useMemo' is defined but never used");
        // (a linter's rule with slashes stays the rule: no path)
        assert_eq!(failed("  7:10  error  'x' is defined but never used  @typescript-eslint/no-unused-vars").text,
                   "eslint @typescript-eslint/no-unused-vars: <STR> is defined but never used");
        // biome 1's mark, under its header: the rule with the message
        says("src/api.ts:12:9 lint/style/useConst  FIXABLE  ━━━━━━━━━━\n\n  ✖ This let declares a variable that is only assigned once.\n\n\
              check ━━━━━━━━━━\n\n  ✖ Some errors were emitted while running checks.",
             "lint/style/useConst: This let declares a variable that is only assigned once.");
        // knip's report: the first kind of finding, its count a value
        says("Unused devDependencies (1)\ntailwindcss  package.json:94:6", "Unused devDependencies (1)");
        assert_eq!(failed("Unused files (2)\nsrc/a.ts\nsrc/b.ts\nUnused exports (1)\nfoo  function  src/c.ts:3:14").text,
                   "Unused files (<N>)");
        assert!(!failed("Unused imports (3)").identified, "not a kind of knip's");
        // frameworks' reports
        says("SystemCheckError: System check identified some issues:\n\nERRORS:\n\
              orders.Order.customer: (fields.E300) Field defines a relation with model 'Customer', which is not installed.",
             "(fields.E300) Field defines a relation with model 'Customer', which is not installed.");
        says("bin/rails aborted!\nStandardError: An error has occurred, this and all later migrations canceled: (StandardError)\n\n\
              PG::DuplicateColumn: ERROR:  column \"slug\" of relation \"posts\" already exists",
             "PG::DuplicateColumn: ERROR:  column \"slug\" of relation \"posts\" already exists");
        says("rake aborted!\nDon't know how to build task 'db:seeed' (See the list of available tasks with `rake --tasks`)",
             "Don't know how to build task 'db:seeed' (See the list of available tasks with `rake --tasks`)");
        says("Prisma schema loaded from prisma/schema.prisma\nError: Prisma schema validation - (get-dmmf wasm)\nError code: P1012\n\
              error: Type \"Strin\" is neither a built-in type, nor refers to another model.",
             "error: Type \"Strin\" is neither a built-in type, nor refers to another model.");
        says("  FAILED: Multiple head revisions are present for given argument 'head'; please specify a target revision",
             "FAILED: Multiple head revisions are present for given argument 'head'; please specify a target revision");
        // Java's root cause, the last of its chain
        says("Exception in thread \"main\" java.lang.IllegalStateException: Failed to load ApplicationContext\n\tat com.acme.App.main(App.java:12)\n\
              Caused by: org.springframework.beans.factory.BeanCreationException: Error creating bean with name 'dataSource'\n\
              Caused by: java.sql.SQLException: Access denied for user 'app'@'172.18.0.1' (using password: YES)\n\t... 40 more",
             "SQLException: Access denied for user 'app'@'172.18.0.1' (using password: YES)");
        // (of an exception a log printed bare too)
        says("2024-06-01T10:22:32.941+02:00 ERROR 41822 --- [main] o.s.boot.SpringApplication : Application run failed\n\n\
              org.springframework.beans.factory.BeanCreationException: Error creating bean with name 'dataSource'\n\
              \tat com.acme.DemoApplication.main(DemoApplication.java:10)\n\
              Caused by: org.springframework.beans.BeanInstantiationException: Failed to instantiate [HikariDataSource]\n\
              Caused by: org.springframework.boot.autoconfigure.jdbc.DataSourceProperties$DataSourceBeanCreationException: \
              Failed to determine a suitable driver class",
             "DataSourceProperties$DataSourceBeanCreationException: Failed to determine a suitable driver class");
        // (not of a launcher's own message, which says more)
        says("Error: Could not find or load main class com.acme.Main\nCaused by: java.lang.ClassNotFoundException: com.acme.Main",
             "Could not find or load main class com.acme.Main");
        // a shell script's own error
        says("Building release for linux-amd64\n./scripts/package.sh: line 9: VERSION: unbound variable",
             "./scripts/package.sh: VERSION: unbound variable");
        // a log line's time is no part of its key; nor klog's prefix
        let kubectl = failed("E0601 10:22:31.004512   41822 memcache.go:265] couldn't get current server API group list: \
                            dial tcp 127.0.0.1:6443: connect: connection refused");
        assert!(kubectl.text.starts_with("couldn't get current server API group list"), "{}", kubectl.text);
        let logged = failed("2024-06-01T10:22:32.930+02:00 ERROR 41822 --- [main] o.s.b.SpringApplication : Application run failed");
        assert!(logged.text.starts_with("<TIME> ERROR"), "{}", logged.text);
        // one sentence, with an address or a source excerpt beside it
        says("a pull request for branch \"feature/login\" into branch \"main\" already exists:\nhttps://github.com/acme/web/pull/412",
             "a pull request for branch \"feature/login\" into branch \"main\" already exists:");
        says(".github/workflows/ci.yml:18:24: property \"node_version\" is not defined in object type {node: string} [expression]\n   |\n\
              18 |           node-version: ${{ matrix.node_version }}\n   |                        ^~~~~~~~~~~~~",
             ".github/workflows/ci.yml:18:24: property \"node_version\" is not defined in object type {node: string} [expression]");
        // but what stays a report, or says nothing, is not identified
        assert!(!failed("➤ YN0000: · Failed with errors in 0s 418ms").identified);
        assert!(!failed("🔒 Lock failed").identified);
        assert!(!failed("https://github.com/acme/web/pull/412").identified);
        assert!(!failed("FAILED: curl").identified);
        // a headline read again is itself (the signature is made again of it)
        for headline in ["lint/style/useConst: This let declares a variable that is only assigned once.",
                         "eslint @typescript-eslint/no-unused-vars: 'useMemo' is defined but never used"] {
            assert_eq!(signature(headline).text, failed(headline).text);
            assert_eq!(signature(headline).headline, headline);
        }
        assert!(!signature("a pull request for branch \"x\" into branch \"main\" already exists:\nhttps://github.com/a/b/pull/4").identified);
    }

    /// What a review of the rules above found, each as the tool prints it.
    #[test]
    fn more_toolchains_reports_as_reviewed() {
        // Gradle's short form of a chain of causes: the root cause's class
        says("AppTests > contextLoads() FAILED\n    java.lang.IllegalStateException at DefaultCacheAwareContextLoaderDelegate.java:180\n\
              \x20       Caused by: org.springframework.beans.factory.BeanCreationException at AbstractAutowireCapableBeanFactory.java:1806\n\
              \x20           Caused by: com.mysql.cj.jdbc.exceptions.CommunicationsException at SQLError.java:174",
             "CommunicationsException");
        // Yarn's notes are not its error; a lockfile's diff is no message
        says("➤ YN0000: ┌ Resolution step\n➤ YN0085: │ + zod@npm:3.23.8\n\
              ➤ YN0028: │ The lockfile would have been modified by this install, which is explicitly forbidden.\n\
              ➤ YN0028: │ -    typescript: \"npm:^5.8.3\"\n➤ YN0000: · Failed with errors in 0s 316ms",
             "YN0028: The lockfile would have been modified by this install, which is explicitly forbidden.");
        // kubectl 1.30's structured log line: the err value is the message
        let refused = failed("E1003 20:14:24.289012   45934 memcache.go:265] \"Unhandled Error\" err=\"couldn't get current server \
                            API group list: Get \\\"http://localhost:8080/api?timeout=32s\\\": dial tcp 127.0.0.1:8080: connect: connection refused\"");
        let x509 = failed("E1003 20:14:24.289012   45934 memcache.go:265] \"Unhandled Error\" err=\"couldn't get current server \
                         API group list: Get \\\"https://10.0.0.1:6443/api\\\": tls: failed to verify certificate: x509: certificate is valid for 10.0.0.2\"");
        assert!(refused.text.starts_with("couldn't get current server API group list"), "{}", refused.text);
        assert_ne!(refused.text, x509.text);
        let logged = failed("E1003 20:14:24.289012   45934 memcache.go:265] \"Unhandled Error\" err=\"couldn't get current server \
                           API group list: dial tcp 127.0.0.1:6443: connect: connection refused\" logger=\"UnhandledError\"");
        assert!(logged.text.ends_with("connection refused"), "{}", logged.text);
        // pnpm's report of a workspace script that failed is a wrapper
        says("packages/db build$ npx primate build\npackages/db build: sh: 1: primate: not found\npackages/db build: Failed\n\
              /w/primate/packages/db:\n ERR_PNPM_RECURSIVE_RUN_FIRST_FAIL  @primate/db@ build: `npx primate build`\nspawn ENOENT",
             "packages/db build: sh: 1: primate: not found");
        // biome 1's warning mark: the error after it is what failed
        says("./app/demo.tsx:205:19 lint/complexity/noExcessiveCognitiveComplexity ━━━━━━━━━━\n\n  \
              ⚠ Excessive complexity of 20 detected (max: 15).\n\n\
              ./scripts/skip-ci.js:1:30 lint/style/useNodejsImportProtocol  FIXABLE  ━━━━━━━━━━\n\n  \
              ✖ A Node.js builtin module should be imported with the node: protocol.",
             "lint/style/useNodejsImportProtocol: A Node.js builtin module should be imported with the node: protocol.");
        // biome 2's assist rules are rules too
        let sorted = failed("src/a.ts assist/source/organizeImports  FIXABLE  ━━━━━━━━━━\n\n  × The imports and exports are not sorted.");
        assert_eq!(sorted.headline, "assist/source/organizeImports: The imports and exports are not sorted.");
        assert_eq!(sorted.identifier(IdKind::Code), Some("assist/source/organizeImports"));
        // Django's checks of no object, or of a class
        says("SystemCheckError: System check identified some issues:\n\nERRORS:\n?: (admin.E403) A 'django.template.backends.\
              django.DjangoTemplates' instance must be configured in TEMPLATES in order to use the admin application.\n\n\
              WARNINGS:\norders.Order: (models.W042) Auto-created primary key used when not defining a primary key type.",
             "(admin.E403) A 'django.template.backends.django.DjangoTemplates' instance must be configured in TEMPLATES \
              in order to use the admin application.");
        // a bundler's location line with a place, and a TypeScript code
        // alone; sass-loader's report; pip's progress line
        says("ERROR in src/App.tsx:12:7\nTS2322: Type 'string' is not assignable to type 'number'.",
             "error TS2322: Type 'string' is not assignable to type 'number'.");
        says("ERROR in ./src/app.scss\nModule build failed (from ./node_modules/sass-loader/dist/cjs.js):\n\
              Undefined variable.\n  ╷\n3 │   color: $primary;\n  │          ^^^^^^^^",
             "Undefined variable.");
        says("ERROR in ./src/app.scss\nModule build failed (from ./node_modules/sass-loader/dist/cjs.js):\nexpected \"{\".\n\n\
              webpack 5.91.0 compiled with 1 error in 1870 ms",
             "expected \"{\".");
        says("  Getting requirements to build wheel ... error\n  error: subprocess-exited-with-error\n\
              \x20     Exception: Can not find valid pkg-config name.",
             "Exception: Can not find valid pkg-config name.");
        // a sentence is one only alone (an excerpt or an address beside it
        // aside): a warning and a line of output are two
        assert!(!failed("WARNING: The requested image's platform (linux/amd64) does not match the detected host platform\n\
                       Starting gunicorn 21.2.0 with 4 workers on 0.0.0.0:8000").identified);
        // ninja's `FAILED:` names outputs, not why
        assert!(!failed("FAILED: src/tables.c src/tables.h include/gen.h include/gen.c").identified);
    }

    /// Cases an adversarial review of the rules above found.
    #[test]
    fn reports_wrappers_and_banners_as_reviewed() {
        // a wrapper's line alone (`| tail -1`) is not the one sentence a
        // failed command said
        for alone in ["Exit code 1\nBUILD FAILED in 3s", "Exit code 1\nFAILURE: Build failed with an exception.",
                      "Exit code 1\nx Build failed in 120ms", "Exit code 1\nTests: 1 failed, 4 passed, 5 total",
                      "Exit code 1\n[INFO] BUILD FAILURE", "Exit code 1\nError: Job 'test' failed"] {
            assert!(!signature(alone).identified, "{alone}");
        }
        // a shell's banner, then npm's error: npm's error
        let npm = signature("Exit code 1\nNow using node v20.11.0 (npm v10.2.4)\nnpm error Missing script: \"buld\"");
        assert_eq!(npm.headline, "Missing script: \"buld\"");
        // Maven's BUILD FAILURE is its report
        let maven = "[INFO] BUILD FAILURE\n[ERROR] Failed to execute goal on project app: Could not resolve dependencies for project";
        assert!(signature(maven).headline.contains("Could not resolve dependencies"), "{}", signature(maven).headline);
        // JSON errors: pretty-printed, with data first, with a flag
        let pretty = "{\n  \"error\": {\n    \"message\": \"Incorrect API key provided\",\n    \"type\": \"invalid_request_error\"\n  }\n}";
        assert_eq!(signature(pretty).headline, "Incorrect API key provided");
        let data_first = r#"{"data":{"repository":null},"errors":[{"type":"NOT_FOUND","message":"Could not resolve to a Repository with the name 'a/b'."}]}"#;
        assert_eq!(signature(data_first).headline, "Could not resolve to a Repository with the name 'a/b'.");
        assert_eq!(signature(r#"{"error":true,"message":"Rate limit exceeded"}"#).headline, "Rate limit exceeded");
        // act: a job name with spaces
        let act = "[CI/Lint and format] ⭐ Run Main ruff format --check\n[CI/Lint and format]   | Would reformat: a.py\n\
                   [CI/Lint and format]   ❌  Failure - Main ruff format --check [1.2s]\n[CI/Lint and format] 🏁  Job failed";
        assert_eq!(signature(act).headline, "Would reformat: a.py");
        // Next.js prints Failed to compile. on its spinner's line
        let next = "   Creating an optimized production build ...Failed to compile.\n\n./src/app/page.tsx\n\
                    Module not found: Can't resolve '@/components/Hero'\n\n> Build failed because of webpack errors";
        assert_eq!(signature(next).headline, "Module not found: Can't resolve '@/components/Hero'");
        // Elixir 1.15: the logged diagnostic, not the module's summary
        let elixir = "error: undefined function foo/0 (expected App to define such a function)\n  lib/app.ex:3:5: App.bar/0\n\n\
                      == Compilation error in file lib/app.ex ==\n** (CompileError) lib/app.ex: cannot compile module App (errors have been logged)";
        assert!(signature(elixir).headline.starts_with("error: undefined function foo/0"), "{}", signature(elixir).headline);
        // Gradle's compile summary, alone, says nothing
        assert!(!signature("Exit code 1\n> Compilation failed; see the compiler error output for details.").identified);
        // Prettier's own error outranks its style warning
        let prettier = "[error] src/app.ts: SyntaxError: ',' expected. (3:7)\n[warn] Code style issues found in the above file. Run Prettier with --write to fix.";
        assert_eq!(signature(prettier).headline, "src/app.ts: SyntaxError: ',' expected. (3:7)");
        // newer forms: cargo fmt's `Diff in path:line:`, ShellCheck's range mark, esbuild's ERROR
        assert!(signature("Exit code 1\nDiff in /w/src/main.rs:3:\n-a\n+b").identified);
        let range = "In a.sh line 3:\nrm -rf \"$DIR/\"*\n       ^----^ SC2115 (warning): Use \"${var:?}\" to ensure this never expands to /* .";
        assert!(signature(range).headline.starts_with("SC2115: "), "{}", signature(range).headline);
        let esbuild = "[vite:esbuild] Transform failed with 1 error:\n/w/src/App.tsx:12:4: ERROR: Expected \")\" but found \"}\"";
        assert_eq!(signature(esbuild).headline, "error: Expected \")\" but found \"}\"");
        // newer Nix's builder line alone is its report
        assert!(!signature("Exit code 1\nerror: Cannot build '/nix/store/x.drv'.\n       Reason: builder failed with exit code 1.").identified);
    }

    #[test]
    fn elixirs_error_is_its_exception_and_message() {
        let compile = "Exit code 1\nCompiling 1 file (.ex)\n\n== Compilation error in file lib/app.ex ==\n\
                       ** (CompileError) lib/app.ex:3: undefined function foo/0 (expected App to define such a function)\n";
        let sig = signature(compile);
        assert!(sig.headline.starts_with("CompileError: lib/app.ex:3: undefined function foo/0"), "{}", sig.headline);
        assert!(sig.identified);
        let run = "** (UndefinedFunctionError) function Foo.bar/0 is undefined (module Foo is not available)\n    \
                   Foo.bar()\n    (elixir 1.16.0) lib/code.ex:572: Code.validated_eval_string/3";
        assert_eq!(signature(run).headline, "UndefinedFunctionError: function Foo.bar/0 is undefined (module Foo is not available)");
    }

    #[test]
    fn one_error_through_any_wrapper_is_one_excerpt() {
        let error = "/home/u/app/scripts/report.js:3\n  total(,\n        ^\n\nSyntaxError: Unexpected token ','\n    \
                     at internalCompileFunction (node:internal/vm:76:18)\n\nNode.js v20.11.0";
        let direct = format!("Exit code 1\n{error}");
        let key = |text: &str| crate::text::normalize::normalize_error(&excerpt(text));
        let through = [
            // npm 10, npm 6
            format!("Exit code 1\n\n> app@1.0.0 report\n> node scripts/report.js\n\n{error}\n\
                     npm error Lifecycle script `report` failed with error:\nnpm error code 1\nnpm error path /home/u/app\n\
                     npm error workspace app@1.0.0\nnpm error location /home/u/app\nnpm error command failed\n\
                     npm error command sh -c node scripts/report.js"),
            format!("Exit code 1\n\n> app@1.0.0 report /home/u/app\n> node scripts/report.js\n\n{error}\nnpm ERR! code ELIFECYCLE\n\
                     npm ERR! errno 1\nnpm ERR! app@1.0.0 report: `node scripts/report.js`\nnpm ERR! Exit status 1\nnpm ERR! \n\
                     npm ERR! Failed at the app@1.0.0 report script."),
            // pnpm, yarn 1, bun
            format!("Exit code 1\n\n> @acme/app@1.0.0 report /home/u/app\n> node scripts/report.js\n\n{error}\n \
                     ELIFECYCLE  Command failed with exit code 1."),
            format!("Exit code 1\nyarn run v1.22.19\n$ node scripts/report.js\n{error}\nerror Command failed with exit code 1.\n\
                     info Visit https://yarnpkg.com/en/docs/cli/run for documentation about this command."),
            format!("Exit code 1\n$ node scripts/report.js\n{error}\nerror: script \"report\" exited with code 1"),
            // make (which echoes the recipe and exits 2), just, go-task, mise, cargo-make, poe
            format!("Exit code 2\nnode scripts/report.js\n{error}\nmake: *** [Makefile:4: report] Error 1"),
            format!("Exit code 1\nnode scripts/report.js\n{error}\nerror: Recipe `report` failed on line 5 with exit code 1"),
            format!("Exit code 201\ntask: [report] node scripts/report.js\n{error}\n\
                     task: Failed to run task \"report\": exit status 1"),
            format!("Exit code 1\n[report] $ node scripts/report.js\n{error}\n[report] ERROR task failed"),
            format!("Exit code 1\n[cargo-make] INFO - cargo make 0.37.0\n[cargo-make] INFO - Running Task: report\n{error}\n\
                     [cargo-make] ERROR - Error while executing command, exit code: 1\n[cargo-make] WARN - Build Failed."),
            format!("Exit code 1\nPoe => node scripts/report.js\n{error}"),
            // nx; turbo, which puts the task before every line
            format!("Exit code 1\n\n> nx run app:report\n\n> node scripts/report.js\n\n{error}\n\n\
                     ————————————————————————————————————————\n\n >  NX   Ran target report for project app (1s)\n\n\
                     \x20   ✖    1/1 failed\n    ✔    0/1 succeeded [0 read from cache]"),
            format!("Exit code 1\n• Packages in scope: app\n• Running report in 1 packages\n• Remote caching disabled\n\
                     app:report: cache miss, executing 5d4e8b2a91c3f7e0\n{}\n\
                     app:report: ERROR: command finished with error: command (/home/u/app) npm run report exited (1)\n\
                     app#report: command (/home/u/app) npm run report exited (1)\n\n Tasks:    0 successful, 1 total\n\
                     Cached:    0 cached, 1 total\n  Time:    412ms \nFailed:    app#report\n\n ERROR  run failed: command  exited (1)",
                    format!("\n> app@1.0.0 report\n> node scripts/report.js\n\n{error}")
                        .lines()
                        .map(|l| format!("app:report: {l}"))
                        .collect::<Vec<_>>()
                        .join("\n")),
        ];
        for text in &through {
            assert_eq!(key(text), key(&direct), "{text}");
            assert_eq!(signature(text).text, signature(&direct).text, "{text}");
            assert_eq!(signature(text).headline, "SyntaxError: Unexpected token ','");
        }
        // colours are not part of it; a tool's own `$ ` line inside its output stays
        assert_eq!(key(&format!("Exit code 1\n\x1b[31m{error}\x1b[0m")), key(&direct));
        assert_eq!(own_output("Exit code 1"), "Exit code 1");
        assert_eq!(own_output("Exit code 2\nmake: *** No rule to make target 'x'.  Stop."),
                   "make: *** No rule to make target 'x'.  Stop.");
    }

    #[test]
    fn a_test_runners_header_is_not_its_errors_excerpt() {
        let header = "============================= test session starts ==============================\n\
                      platform darwin -- Python 3.12.7, pytest-8.4.0, pluggy-1.6.0\nrootdir: /w\nconfigfile: pyproject.toml\n\
                      plugins: anyio-4.9.0, cov-6.1.1, xdist-3.7.0, asyncio-1.0.0, mock-3.14.1\ncollected 212 items\n\n\
                      tests/test_a.py ....F...\n\n=================================== FAILURES ===================================\n";
        let a = format!("{header}E       KeyError: 'session_id'\n\ntests/test_a.py:12: KeyError");
        let b = format!("{header}E       assert 3 == 4\n\ntests/test_b.py:40: AssertionError");
        assert!(excerpt(&a).starts_with("=== FAILURES") || excerpt(&a).contains("KeyError: 'session_id'"));
        assert!(!excerpt(&a).contains("test session starts"));
        assert_ne!(
            crate::text::normalize::normalize_error(&excerpt(&a)),
            crate::text::normalize::normalize_error(&excerpt(&b))
        );
        // the header says where the run was, not what failed: a run that
        // selected no tests (pytest's exit 5) said nothing went wrong
        let none = "============================= test session starts ==============================\n\
                    platform darwin -- Python 3.12.7, pytest-8.4.0, pluggy-1.6.0\nrootdir: /Users/me/app\n\
                    configfile: pyproject.toml\nasyncio: mode=Mode.AUTO, asyncio_default_fixture_loop_scope=function\n\
                    collected 205 items / 205 deselected / 0 selected\n\n\
                    ================= no tests collected (205 deselected) in 0.39s =================";
        let none = signature(none);
        assert!(!none.identified && none.headline.starts_with("collected"), "{}", none.headline);
        // an error in the header's place is the error
        let conftest = "============================= test session starts ==============================\n\
                        platform linux -- Python 3.12.7, pytest-8.4.0, pluggy-1.6.0\nrootdir: /w\n\
                        E   ModuleNotFoundError: No module named 'yaml'";
        assert!(signature(conftest).headline.starts_with("ModuleNotFoundError"), "{}", signature(conftest).headline);
        // an error that says what it is at once is its own excerpt (without
        // the harness's exit code)
        let short = "Exit code 1\nModuleNotFoundError: No module named 'yaml'";
        assert_eq!(excerpt(short), "ModuleNotFoundError: No module named 'yaml'");
    }

    #[test]
    fn how_many_failed_is_not_what_failed() {
        for tally in [
            "Tests:       1 failed, 5 passed, 6 total",
            "Tests  1 failed | 5 passed (6)",
            "Test Files  2 failed | 10 passed (12)",
            "Summary: 3 passed, 9 failed, 2 warnings",
            "Summary: 150 valid, 3 broken (of 153 total refs)",
        ] {
            let alone = signature(&format!("Exit code 1\nrunning the suite\n{tally}"));
            assert!(!alone.identified, "{tally}");
            // what failed, beside it, is the error
            let beside = signature(&format!("Exit code 1\nError: expected 3 to be 4\n{tally}"));
            assert!(beside.identified && beside.headline.ends_with("expected 3 to be 4"), "{tally}");
        }
        // a count that says what failed is no tally
        assert!(signature("Exit code 1\nbuilding\nerror: 2 errors, 3 warnings generated").identified);
        assert!(signature("Exit code 1\nparsing\nError: 3 files failed to parse").identified);
    }

    #[test]
    fn npm_warnings_are_not_a_builds_error_and_nextjs_brackets_it() {
        let build = "npm warn Unknown env config \"verify-deps-before-run\". This will stop working in the next major version of npm.\n\
                     npm WARN config store-dir is unknown\n\n> Build error occurred\n[TypeError: generate is not a function]\n\n\
                     > todo-app@0.1.0 build\n> next build";
        let s = signature(build);
        assert_eq!(s.headline, "TypeError: generate is not a function");
        assert_eq!(s.identifier(IdKind::Exception), Some("TypeError"));
    }

    #[test]
    fn bracketed_codes_and_warnings() {
        let ty = signature("WARN ty is pre-release software and not ready for production use. Expect to encounter bugs, missing features.\n\
                            error[call-non-callable]: Object of type `Skip` is not callable\n  --> test/a.py:3:5");
        assert_eq!(ty.identifier(IdKind::Code), Some("call-non-callable"));
        assert!(ty.text.starts_with("error[call-non-callable]: Object of type"), "{}", ty.text);
        // a bare `error:` line is git's shape, values masked, lower case kept
        let git = signature("error: pathspec 'x.txt' did not match any file(s) known to git");
        assert_eq!(git.text, "error: pathspec <STR> did not match any file(s) known to git");
    }

    #[test]
    fn a_git_server_and_a_hint_say_what_went_wrong() {
        let policy = signature("remote: error: GH006: Protected branch update failed for refs/heads/main.\n\
                                To github.com:acme/shop.git\n ! [remote rejected] main -> main (protected branch hook declined)");
        assert!(policy.text.starts_with("error: GH006: Protected branch update failed"), "{}", policy.text);
        assert_eq!(policy.identifier(IdKind::Code), Some("GH006"));
        let ignored = signature("The following paths are ignored by one of your .gitignore files:\nfrontend/dist\n\
                                 hint: Use -f if you really want to add them.");
        assert!(ignored.identified);
        let eval = signature("Exit code 1\n(eval):1: bad substitution");
        assert_eq!(eval.text, "(eval): bad substitution");
    }

    #[test]
    fn a_failed_commands_one_sentence_is_its_error() {
        let gh = "none of the git remotes configured for this repository point to a known GitHub host. \
                  To tell gh about a new GitHub host, please use `gh auth login`";
        assert!(signature(&format!("Exit code 1\n{gh}")).identified);
        // not without the exit code (a success's output), nor a word or two,
        // nor one line of many
        assert!(!signature(gh).identified);
        assert!(!signature("Exit code 1\n0 matches").identified);
        assert!(!signature(&format!("Exit code 1\n{gh}\nsecond line of output here")).identified);
        // the sentence the last command of a line said, after what the
        // others printed
        let chained = format!("Exit code 1\naf7e53d docs(ci): trim the comment\n---BRANCH---\nfix/cleanup\n{gh}");
        let found = signature(&chained);
        assert!(found.identified);
        assert!(found.headline.starts_with("none of the git remotes"), "{}", found.headline);
        // but not a last line of a word or two, nor one without the exit code
        assert!(!signature("Exit code 1\naf7e53d docs(ci): trim the comment\n---BRANCH---\nfix/cleanup").identified);
        assert!(!signature(&chained["Exit code 1\n".len()..]).identified);
    }

    use super::*;

    #[test]
    fn a_wrapper_line_is_not_the_signature_when_a_line_says_more() {
        let lint = "Exit code 1\n[lint] $ eslint .\n/w/src/a.ts\n  3:1  error  'x' is defined but never used  no-unused-vars\n[lint] ERROR task failed";
        assert!(
            !signature(lint).text.contains("task failed"),
            "{:?}",
            signature(lint).text
        );
        let test = "Exit code 1\n[test] $ vitest run\n[test] ERROR task failed";
        assert_ne!(signature(lint).text, signature(test).text);
        let go = "FAIL github.com/x/y [build failed]\n# github.com/x/y\n./a.go:3:2: undefined: Foo";
        assert!(signature(go).text.contains("undefined"), "{:?}", signature(go).text);
        let jest = "● Test suite failed to run\n\n    Cannot find module './utils' from 'src/a.test.ts'";
        assert!(
            signature(jest).text.starts_with("Cannot find module"),
            "{:?}",
            signature(jest).text
        );
        // alone, it is all there is
        assert!(!signature("Exit code 1\n[lint] ERROR task failed").text.is_empty());
    }

    #[test]
    fn shells_say_not_found_one_way() {
        let forms = [
            "Exit code 127\n/bin/sh: 1: python: not found",
            "Exit code 127\nbash: python: command not found",
            "Exit code 127\n/bin/bash: line 1: python: command not found",
            "zsh: command not found: python",
            "/bin/sh: python: not found",
        ];
        let first = signature(forms[0]);
        for form in forms {
            let s = signature(form);
            assert_eq!(s.text, first.text, "{form}");
            assert!(!s.conflicts_with(&first), "{form}");
            assert_eq!(s.values, ["python"], "{form}");
        }
        assert_eq!(first.text, "command not found: <STR>");
    }

    #[test]
    fn branch_names_and_hashes_are_values() {
        let a = signature("fatal: The current branch feat/login has no upstream branch.");
        let b = signature("fatal: The current branch fix-42 has no upstream branch.");
        assert_eq!(a.text, b.text);
        let a = signature("fatal: unable to read 3f9a8b2c4d5e6f708192a3b4c5d6e7f8091a2b3c");
        let b = signature("fatal: unable to read 0a1b2c3d");
        assert_eq!(a.text, b.text);
        assert_eq!(a.text, "fatal: unable to read <SHA>");
        let a = signature(" ! [rejected]        main -> main (fetch first)\nerror: failed to push some refs");
        let b = signature(" ! [rejected]        dev -> dev (fetch first)\nerror: failed to push some refs");
        assert_eq!(a.text, b.text);
    }

    #[test]
    fn linters_are_known_by_their_rule() {
        let md = signature("Exit code 1\n[FAILED] markdownlint --fix [FAILED]\n.planning/a.md:12 MD036/no-emphasis-as-heading Emphasis used instead of a heading [Context: \"Tasks\"]");
        assert!(
            md.text.starts_with("MD036: Emphasis used instead of a heading"),
            "{}",
            md.text
        );
        assert_eq!(md.identifier(IdKind::Code), Some("MD036"));
        let ruff = signature("Exit code 1\nSIM115 Use a context manager for opening files\n   --> a.py:191:25");
        assert_eq!(ruff.identifier(IdKind::Code), Some("SIM115"));
        // (the concise form, after a path longer than the rule's code)
        let concise = signature("Exit code 1\nsrc/shop/a.py:1:1: I001 [*] Import block is un-sorted or un-formatted\nFound 1 error.");
        assert_eq!(concise.identifier(IdKind::Code), Some("I001"));
        assert!(concise.identified, "{}", concise.text);
        let commit = signature("⧗   input: feat: x\n✖   body's lines must not be longer than 100 characters [body-max-line-length]\n✖   found 1 problems, 0 warnings");
        assert_eq!(
            commit.identifier(IdKind::Code),
            Some("body-max-line-length"),
            "{}",
            commit.text
        );
        let eslint = signature("/w/src/a.ts\n  3:1  error  'x' is defined but never used  @typescript-eslint/no-unused-vars\n\n✖ 1 problem");
        assert_eq!(
            eslint.identifier(IdKind::Code),
            Some("@typescript-eslint/no-unused-vars"),
            "{}",
            eslint.text
        );
        assert!(md.identified && ruff.identified && commit.identified && eslint.identified);
    }

    #[test]
    fn the_type_of_an_object_is_an_identifier() {
        let a = signature("AttributeError: 'str' object has no attribute 'append'");
        let b = signature("AttributeError: 'NoneType' object has no attribute 'group'");
        let c = signature("AttributeError: 'NoneType' object has no attribute 'span'");
        assert!(a.conflicts_with(&b));
        assert!(!b.conflicts_with(&c));
        assert_eq!(b.text, c.text);
        assert!(b.text.contains("NoneType"), "{}", b.text);
    }
}
