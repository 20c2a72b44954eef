//! `kb_resolves(session_id, agent_id)`: the errors a successful tool call
//! resolves, each with the fix it makes. PostToolUse stores its call, then
//! learns each row this gives; by hand it shows what the session's last
//! success taught.
//!
//! The window is the agent's last 50 tool steps of the session (the main
//! thread and each subagent are separate streams: one agent's success is
//! not another's fix), the success being the last of them. A success
//! resolves an error when it repeats the same operation (`success_after_
//! error`):
//!
//! - for Bash, the same command subject (`git push`, `npm run build`,
//!   `python app.py`, wrappers peeled off: see `text::command`) whose
//!   arguments cover the failed one's (`pytest` covers `pytest a.py`;
//!   `pytest b.py` does not); a command that only looks around (`ls`,
//!   `cat`, `git status` …) resolves only the same look at the same
//!   targets;
//! - for file tools, the same file (an Edit, Write or NotebookEdit of it
//!   for an error of any of them, a Read for a Read's);
//! - for other tools, the same tool on the same target (pattern, URL …);
//! - for a filter's own error (`… | grep -c "--- PASS"`: `grep:
//!   unrecognized option`), the same pipeline with that filter mended or
//!   replaced, run to the end (`mended_filter`);
//!
//! or when it is a documented substitute (`cross_tool_resolution`): the
//! search a failed Grep or Glob wanted, done with Bash (`grep`, `rg`,
//! `find` …); a folder listed after reading it failed with EISDIR; a
//! program that does the job of one that was not found (`find` for
//! `tree`).
//!
//! When one operation fails several times before it succeeds (a chain),
//! each of its errors is resolved, each with the steps after it.
//!
//! The fix is what changed something between the error and the success:
//! the commands that are not looks around (installs, config, state), the
//! edits (with their hunks) and the files written, the last ones kept when
//! there are many (the decisive step is usually the last); then what the
//! retry changed in its own call (options added or removed, a wrapper,
//! another program, the sandbox disabled, work its line did in front of
//! the retried command). A success of the same command
//! with nothing changed in between is a weak fix: stored, never advised
//! alone. Paths are relative to the project. An error already learned
//! (`learned_errors`) or without a key gives nothing.
//!
//! Read-only, and never raises: a failure reads as "nothing to learn".

use std::cell::RefCell;
use std::ffi::c_int;

use serde_json::value::RawValue;
use serde_json::{json, Value as Json};

use crate::sqlite::ffi::{Connection, StatementCache, Value};
use crate::sqlite::table_function::{text, TableFunction};
use crate::text::command::{self, Command};

/// How much of a command line the hooks store, in characters.
const LINE_CHARS: usize = 500;
/// The same, of the versions before schema 19: a line stored then of just
/// this length may be cut too.
const OLD_LINE_CHARS: usize = 200;
/// The steps of a stream that a fix is looked for in.
const WINDOW: i64 = 50;
/// How far (in the agent's steps) a success may come after the error it
/// resolves, or after the last failure of the same operation in between
/// (a chain): in the labelled real sessions nine fixes in ten showed within
/// ten steps, and a success further away than this was another fix's
/// almost every time.
const HORIZON: usize = 12;
/// The same, counting the steps that only looked too (reads, searches,
/// checks): HORIZON counts only those that did something.
const LOOKS_HORIZON: usize = 24;
const MAX_TOOLS: usize = 5;
const MAX_COMMANDS: usize = 5;
const MAX_EDITS: usize = 3;
const MAX_WRITES: usize = 3;

/// Tools that change files: one operation on one file.
const FILE_WRITERS: &[&str] = &["Edit", "Write", "NotebookEdit", "MultiEdit"];

/// Programs that search, for a Grep or Glob that failed.
const SHELL_SEARCHES: &[&str] = &[
    "grep", "egrep", "fgrep", "rg", "ag", "ack", "find", "fd", "fdfind", "ls", "git grep",
];

/// Programs that list a folder, for a Read of a folder.
const LISTINGS: &[&str] = &["ls", "find", "tree", "fd", "fdfind", "dir", "Get-ChildItem"];

/// Programs that tell about a file without reading what is in it.
const COUNTS: &[&str] = &[
    "wc", "ls", "stat", "file", "du", "test", "[", "touch", "rm", "mv", "cp", "chmod",
];

/// Programs that do the job of one that is missing.
const SUBSTITUTES: &[(&str, &[&str])] = &[
    ("tree", &["find", "ls", "fd"]),
    ("rg", &["grep", "git grep"]),
    ("ag", &["grep", "rg"]),
    ("ack", &["grep", "rg"]),
    ("fd", &["find"]),
    ("fdfind", &["find"]),
    ("exa", &["ls"]),
    ("eza", &["ls"]),
    ("bat", &["cat"]),
    ("wget", &["curl"]),
    ("curl", &["wget"]),
    ("gsed", &["sed"]),
    ("gtimeout", &["timeout"]),
    ("timeout", &["gtimeout"]),
    ("htop", &["top", "ps"]),
    ("netstat", &["ss", "lsof"]),
    ("ss", &["netstat", "lsof"]),
    ("redis-cli", &["nc"]),
    ("telnet", &["nc"]),
    ("podman", &["docker"]),
    ("docker-compose", &["docker compose"]),
    ("shasum", &["sha256sum"]),
    ("sha256sum", &["shasum"]),
    ("md5", &["md5sum"]),
    ("md5sum", &["md5"]),
];

/// One step of the stream, as the hooks stored it. Shared: a window is
/// made for every success out of the steps kept (see `step_of`), so a copy
/// of a step is a count, not its text again.
#[derive(Debug, Default, Clone)]
pub struct Step(std::rc::Rc<StepData>);

impl std::ops::Deref for Step {
    type Target = StepData;
    fn deref(&self) -> &StepData {
        &self.0
    }
}

/// (Tests build steps field by field.)
#[cfg(test)]
impl std::ops::DerefMut for Step {
    fn deref_mut(&mut self) -> &mut StepData {
        std::rc::Rc::make_mut(&mut self.0)
    }
}

impl From<StepData> for Step {
    fn from(data: StepData) -> Step {
        Step(std::rc::Rc::new(data))
    }
}

/// What a step is (see `Step`).
#[derive(Debug, Default, Clone)]
pub struct StepData {
    pub event_id: i64,
    pub is_error: bool,
    pub tool: Option<String>,
    /// Errors: the key, the text as printed, the signature, the headline.
    pub error: Option<String>,
    pub error_raw: Option<String>,
    pub signature: Option<String>,
    pub headline: Option<String>,
    /// What the call acted on: a Bash command's subject and line, a file,
    /// another tool's target (a pattern, a URL).
    pub subject: Option<String>,
    pub line: Option<String>,
    pub file: Option<String>,
    pub target: Option<String>,
    /// Bash run with `dangerouslyDisableSandbox`, in the background, with
    /// a timeout of its own (milliseconds).
    pub sandbox_off: bool,
    pub background: bool,
    pub timeout: Option<i64>,
    /// A step of Codex's (its event's `agent`): its shell words a line
    /// that ran out of time in its own way.
    pub codex: bool,
    /// An error whose output does not say what went wrong (only `Exit code
    /// 1`, a task runner's "task failed"): nothing to learn a fix for.
    pub unidentified: bool,
    /// Successes: an edit's before → after.
    pub edit: Option<Json>,
    /// An Agent (Task) call: the agent it started, whose steps are its.
    pub subagent: Option<String>,
    /// A Read that gave no content (an offset past the file's end, an
    /// empty file): it read nothing, so it shows no error gone.
    pub read_nothing: bool,
    /// The agent whose step it is (`agentId`; none: the main thread).
    pub agent: Option<String>,
    /// The project folder (stored paths are relative to it in a fix).
    pub project: Option<String>,
    /// What is worked out of it, once: a step is asked for each error of
    /// its window, and its copies (see `step_of`) share what was.
    analyses: Analyses,
}

/// The fields of an event's data (and of its `meta`) that a step reads,
/// each as its JSON text; every other field is skipped unread.
#[derive(Default, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct EventData<'a> {
    #[serde(borrow)]
    tool: Option<&'a RawValue>,
    #[serde(borrow)]
    error: Option<&'a RawValue>,
    #[serde(borrow)]
    error_raw: Option<&'a RawValue>,
    #[serde(borrow)]
    signature: Option<&'a RawValue>,
    #[serde(borrow)]
    headline: Option<&'a RawValue>,
    #[serde(borrow)]
    subject: Option<&'a RawValue>,
    #[serde(borrow)]
    line: Option<&'a RawValue>,
    #[serde(borrow)]
    file: Option<&'a RawValue>,
    #[serde(borrow)]
    pattern: Option<&'a RawValue>,
    #[serde(borrow)]
    target: Option<&'a RawValue>,
    #[serde(borrow)]
    sandbox_off: Option<&'a RawValue>,
    #[serde(borrow)]
    background: Option<&'a RawValue>,
    #[serde(borrow)]
    timeout: Option<&'a RawValue>,
    #[serde(borrow)]
    identified: Option<&'a RawValue>,
    #[serde(borrow)]
    edit: Option<&'a RawValue>,
    #[serde(borrow)]
    subagent: Option<&'a RawValue>,
    #[serde(borrow)]
    read_nothing: Option<&'a RawValue>,
    #[serde(borrow)]
    agent_id: Option<&'a RawValue>,
    #[serde(borrow)]
    agent: Option<&'a RawValue>,
    #[serde(borrow)]
    meta: Option<&'a RawValue>,
}

/// A field's value as a step keeps it: a string as itself, null as none,
/// anything else as its JSON text (`true`, `120000`).
fn field(raw: Option<&RawValue>) -> Option<String> {
    let text = raw?.get();
    if text == "null" {
        return None;
    }
    if text.starts_with('"') {
        return serde_json::from_str::<String>(text).ok();
    }
    // (as a JSON tree writes it: compact)
    serde_json::from_str::<Json>(text).ok().map(|v| v.to_string())
}

/// Whether `data` holds an escaped UTF-16 surrogate (`\ud83d`): skipping
/// a field leaves its escapes unchecked, and half a pair makes a whole
/// tree unreadable, so such data is read as a tree.
fn escapes_a_surrogate(data: &str) -> bool {
    memchr::memmem::find_iter(data.as_bytes(), b"\\u").any(|at| {
        data.as_bytes().get(at + 2..at + 4).is_some_and(|hex| {
            hex[0].eq_ignore_ascii_case(&b'd') && matches!(hex[1].to_ascii_lowercase(), b'8'..=b'9' | b'a'..=b'f')
        })
    })
}

/// A step's analyses (see `Step::command`, `chain`, `stash_moves`,
/// `missing_program`, `folder`, `only_looks`), each made when first asked
/// for.
#[derive(Debug, Default, Clone)]
struct Analyses {
    command: std::cell::OnceCell<Option<Command>>,
    chain: std::cell::OnceCell<Vec<Command>>,
    stash_moves: std::cell::OnceCell<Vec<bool>>,
    missing: std::cell::OnceCell<Option<String>>,
    folder: std::cell::OnceCell<Option<String>>,
    only_looks: std::cell::OnceCell<bool>,
}

impl Step {
    /// A step from an event's `data` (a `tool_use` or `tool_error` event).
    pub fn from_event(event_id: i64, is_error: bool, data: &str, project: Option<String>) -> Step {
        // Only the fields a step reads, each kept as the JSON text it was
        // stored as (a window is read for every success: no tree of each
        // event's JSON is built). Data that is not such an object (not
        // JSON, a key twice, an escaped surrogate) is read as a JSON tree
        // reads it: the last of a key given twice; nothing when it is not
        // JSON (half a surrogate pair makes it so).
        if !escapes_a_surrogate(data) {
            if let Some(step) = Step::from_fields(event_id, is_error, data, project.clone()) {
                return step;
            }
        }
        let tree = serde_json::from_str::<Json>(data).unwrap_or(Json::Null).to_string();
        Step::from_fields(event_id, is_error, &tree, project.clone()).unwrap_or_else(|| {
            Step::from(StepData {
                event_id,
                is_error,
                project,
                ..StepData::default()
            })
        })
    }

    /// `from_event` of an object of distinct keys; None for other data.
    fn from_fields(event_id: i64, is_error: bool, data: &str, project: Option<String>) -> Option<Step> {
        let top = serde_json::from_str::<EventData>(data).ok()?;
        let meta = match top.meta.filter(|m| m.get().starts_with('{')) {
            None => EventData::default(),
            Some(meta) => serde_json::from_str::<EventData>(meta.get()).ok()?,
        };
        let flag = |v: Option<String>| v.is_some_and(|v| v == "true" || v == "1");
        Some(Step::from(StepData {
            event_id,
            is_error,
            tool: field(top.tool),
            error: field(top.error),
            error_raw: field(top.error_raw),
            signature: field(top.signature),
            headline: field(top.headline),
            subject: field(meta.subject).or_else(|| field(top.subject)),
            line: field(meta.line).or_else(|| field(top.line)),
            file: field(meta.file).or_else(|| field(top.file)),
            target: field(meta.pattern)
                .or_else(|| field(meta.target))
                .or_else(|| field(top.target)),
            sandbox_off: flag(field(meta.sandbox_off)) || flag(field(top.sandbox_off)),
            background: flag(field(meta.background)) || flag(field(top.background)),
            timeout: field(meta.timeout)
                .or_else(|| field(top.timeout))
                .and_then(|t| t.parse().ok()),
            codex: field(top.agent).is_some_and(|a| a == "codex"),
            unidentified: field(top.identified).is_some_and(|v| v == "false" || v == "0"),
            edit: meta
                .edit
                .filter(|e| e.get() != "null")
                .and_then(|e| serde_json::from_str(e.get()).ok()),
            subagent: field(meta.subagent),
            read_nothing: flag(field(meta.read_nothing)),
            agent: field(top.agent_id).filter(|a| !a.is_empty()),
            project,
            analyses: Default::default(),
        }))
    }

    /// The tool; a shell's (Bash, PowerShell) is `Bash`: commands alike.
    fn tool(&self) -> &str {
        match self.tool.as_deref() {
            Some("PowerShell") => "Bash",
            Some(tool) => tool,
            None => "",
        }
    }

    /// The command the step is of: of a line, its main command
    /// (`command::analyse`); of a failed line of several commands, the one
    /// its error names, when it names one (`failed_command`).
    fn command(&self) -> Option<&Command> {
        self.analyses
            .command
            .get_or_init(|| {
                if self.tool() != "Bash" {
                    return None;
                }
                let line = self.line()?;
                self.is_error
                    .then(|| {
                        failed_command(line, self.error_raw.as_deref().unwrap_or(""), self.headline.as_deref().unwrap_or(""))
                    })
                    .flatten()
                    .or_else(|| command::analyse(line))
            })
            .as_ref()
    }

    /// The commands a success of a shell proves ran well
    /// (`command::analyse_chain` of its line).
    fn chain(&self) -> &[Command] {
        self.analyses.chain.get_or_init(|| self.line().map(command::analyse_chain).unwrap_or_default())
    }

    /// How a shell step's line moves the work tree's changes, in order:
    /// set aside (`git stash`: true) or brought back (`git stash pop`).
    fn stash_moves(&self) -> &[bool] {
        self.analyses.stash_moves.get_or_init(|| {
            if self.tool() != "Bash" {
                return Vec::new();
            }
            self.line()
                .map(|l| command::analyse_all(l).iter().filter_map(stash_move).collect())
                .unwrap_or_default()
        })
    }

    /// The program an error says was not found (`missing_program`).
    fn missing_program(&self) -> Option<&str> {
        self.analyses.missing.get_or_init(|| missing_program(self)).as_deref()
    }

    /// The command line as it is read: a line stored cut (at LINE_CHARS,
    /// the hooks' limit) ends in a partial word, which is not a word of it
    /// (`--no-verify` cut to `--no-` is no option).
    fn line(&self) -> Option<&str> {
        let line = self.line.as_deref()?;
        let chars = line.chars().count();
        if chars < LINE_CHARS && chars != OLD_LINE_CHARS {
            return Some(line);
        }
        Some(line.trim_end_matches(|c: char| !c.is_whitespace()).trim_end())
    }

    /// A look: a read, a search, a listing, a command that only reads.
    fn is_look(&self) -> bool {
        match self.tool() {
            "Read" | "Grep" | "Glob" | "LS" => true,
            "Bash" => self.command().is_some_and(|c| c.inspection),
            _ => false,
        }
    }

    /// The folder a shell step's line says its main work ran in
    /// (`command::working_directory`); none for other tools.
    fn folder(&self) -> Option<&str> {
        self.analyses
            .folder
            .get_or_init(|| {
                (self.tool() == "Bash")
                    .then(|| self.line().and_then(command::working_directory))
                    .flatten()
            })
            .as_deref()
    }

    /// A success that only looked, or ran a check that changes nothing.
    fn only_looks(&self) -> bool {
        // (asked of each step between every error and the success: once)
        *self
            .analyses
            .only_looks
            .get_or_init(|| !self.is_error && (self.is_look() || self.command().is_some_and(command::only_checks)))
    }

    /// A success that changed something (not a look around).
    fn changes_something(&self) -> bool {
        if self.is_error {
            return false;
        }
        match self.tool() {
            "Bash" => self.command().is_some_and(|c| {
                !c.inspection
                    && !TRIVIAL_STEPS.contains(&c.program.as_str())
                    && !command::only_checks(c)
                    // (work in a temporary folder is scratch work, unless
                    // the project itself is there)
                    && (!command::works_in_temp(c) || self.project_in_temp())
            }),
            // (a file written in a temporary folder is a scratch file,
            // unless it is the project's)
            t => FILE_WRITERS.contains(&t) && !self.file.as_deref().is_some_and(|f| self.is_scratch(f)),
        }
    }

    /// Whether the project folder itself lies in a temporary folder: then
    /// work there is the project's, not a probe's.
    fn project_in_temp(&self) -> bool {
        self.project.as_deref().is_some_and(command::is_temp_path)
    }

    /// Whether `path` is a scratch file: in a temporary folder, and not in
    /// the project.
    fn is_scratch(&self, path: &str) -> bool {
        command::is_temp_path(path)
            && !self
                .project
                .as_deref()
                .filter(|p| p.len() > 1)
                .is_some_and(|p| path.strip_prefix(p).is_some_and(|rest| rest.starts_with('/')))
    }
}

/// Of a failed line that runs several commands (`git rm -q a && git mv
/// b c && rm -f d`), the one that failed, as its error names it: the
/// interpreter of a Python traceback; the one whose program starts the
/// error's identifying line as its own prefix (`rm: cannot remove …`,
/// after a shell's `bash: line 1: `); else one an argument or option value
/// of which the error quotes whole (`the following file has changes staged
/// in the index: packages/x.wxs`, `unknown flag: --shell`). Of several, the
/// one the error names, else the last. A line of one command, or an error
/// that names none of its commands, gives none: the main command stands
/// (`command::analyse`), as it does for a success. (In an `&&` chain, the
/// commands after the one that failed never ran: a retry of one of those
/// is no retry.)
fn failed_command(line: &str, error: &str, headline: &str) -> Option<Command> {
    let commands: Vec<Command> = command::analyse_all(line)
        .into_iter()
        // (setup and chatter: `echo "=== build ==="` is quoted by what it printed)
        .filter(|c| !command::TRIVIAL.contains(&c.program.as_str()))
        .collect();
    if commands.len() < 2 {
        return None;
    }
    // the program whose own prefix starts the identifying line (a warning
    // another program printed before is not what failed)
    let prefix = headline_program(headline);
    let quoted = |word: &str| word.chars().count() >= 4 && names_whole(error, word);
    // (an option's name and its value: `-b feat/x`, `--target=y`)
    let names = |c: &Command| c.arguments.iter().chain(&c.options).any(|w| w.split([' ', '=']).any(quoted));
    // Of several commands that may be the one, the one whose argument the
    // error names (`cat a.txt && cat b.txt` failing on `a.txt`), else the
    // last: those before it ran, and may be named in what they printed
    // (`Switched to branch 'main'` before `git checkout -b x` failed).
    let pick = |may: &dyn Fn(&Command) -> bool| {
        let named = commands.iter().rposition(|c| may(c) && names(c));
        named.or_else(|| commands.iter().rposition(may)).map(|i| commands[i].clone())
    };
    // A Python traceback is what identifies an error before any `prog:`
    // line (as the signature has it): its command is the interpreter's.
    if error.contains("Traceback (most recent call last):") || error.lines().any(|l| l.starts_with("  File \"")) {
        if let Some(python) = pick(&|c| c.program == "python") {
            return Some(python);
        }
    }
    match prefix {
        Some(program) if commands.iter().any(|c| c.program == program) => pick(&|c| c.program == program),
        _ => pick(&names),
    }
}

/// The program whose own prefix starts an error's identifying line
/// (`grep: …`, `cat: illegal option -- A`), past a shell's own
/// (`bash: line 1: cd: x: No such …` is `cd`'s).
fn headline_program(headline: &str) -> Option<String> {
    let mut rest = headline.trim_start();
    while let Some((head, tail)) = rest.split_once(": ") {
        let shell = ["bash", "sh", "zsh", "/bin/bash", "/usr/bin/bash", "/bin/sh", "/bin/zsh"].contains(&head)
            || head.strip_prefix("line ").is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()));
        if !shell {
            break;
        }
        rest = tail;
    }
    rest.split_once(": ")
        .map(|(head, _)| head)
        .filter(|head| !head.is_empty() && !head.contains(char::is_whitespace))
        .map(command::program_name)
}

/// A filter's own error (a pattern `grep` cannot read, an option BSD
/// `cat` lacks): the program that starts the error's identifying line is
/// one that read the output of the commands before it in its pipeline.
/// Gives those commands and the filter, when the failed line runs that
/// program once (of two, the error does not say which failed).
fn failed_filter(e: &Step) -> Option<(Vec<Command>, Command)> {
    if e.tool() != "Bash" {
        return None;
    }
    let program = headline_program(e.headline.as_deref()?)?;
    // (most failed lines have no pipe into that program: read none of those)
    let line = e.line().filter(|l| l.contains('|') && l.contains(program.as_str()))?;
    let pipelines = command::pipelines(line);
    let mut runs = pipelines.iter().flat_map(|p| p.iter().enumerate().filter(|(_, c)| c.program == program).map(move |(at, _)| (p, at)));
    let (pipeline, at) = runs.next().filter(|(_, at)| *at > 0)?;
    runs.next().is_none().then(|| (pipeline[..at].to_vec(), pipeline[at].clone()))
}

/// The pipeline of success `s` that feeds what fed the failed filter
/// (the same commands before it), when the line's exit status is that
/// pipeline's.
fn same_feed<'a>(upstream: &[Command], pipelines: &'a [Vec<Command>]) -> Option<&'a Vec<Command>> {
    let same = |a: &Command, b: &Command| {
        a.subject == b.subject && a.options == b.options && a.arguments == b.arguments && a.prefix == b.prefix
    };
    pipelines
        .iter()
        .find(|p| p.len() > upstream.len() && p.iter().zip(upstream).all(|(a, b)| same(a, b)))
}

/// The failed filter mended, or another program that filters in its place
/// (not a viewer, which only shows what the filter was to pick), in the
/// same pipeline of success `s`, that ran to the end: the line's exit
/// status is the filter's (it is the pipeline's last), or only viewers
/// follow it (`od -c | head`), whose output then has to show no error.
/// Gives the retry's filter as it ran (with what it replaced, when it is
/// another program), and whether viewers followed it.
fn mended_filter(e: &Step, s: &Step) -> Option<(String, bool)> {
    let (upstream, failed) = failed_filter(e)?;
    let pipelines = command::status_pipelines(s.line().filter(|_| s.tool() == "Bash")?);
    let p = same_feed(&upstream, &pipelines)?;
    let (filter, after) = (&p[upstream.len()], &p[upstream.len() + 1..]);
    let changed = filter.program != failed.program
        || (&filter.options, &filter.arguments) != (&failed.options, &failed.arguments);
    if !changed || command::is_viewer(&filter.program) || !after.iter().all(|c| command::is_viewer(&c.program)) {
        return None;
    }
    let ran = command::words_of(filter);
    let change = if filter.program == failed.program {
        ran
    } else {
        format!("{ran} instead of {}", command::words_of(&failed))
    };
    Some((change, !after.is_empty()))
}

/// Whether `text` names `word` whole (`names_whole`), or a path in the
/// folder `word` (`dist` by `dist/app.js`).
fn names_whole_or_under(text: &str, word: &str) -> bool {
    let folder = word.trim_matches(['\'', '"']).trim_end_matches('/');
    names_whole(text, word)
        || !matches!(folder, "" | "." | "..")
            && !folder.contains(char::is_whitespace)
            && text.match_indices(&format!("{folder}/")).any(|(at, _)| {
                !text[..at].chars().next_back().is_some_and(|c| c.is_alphanumeric() || "_-.".contains(c))
            })
}

/// Whether `path` is in a folder `text` names as a path: a folder of two
/// parts or more named whole (`frontend/dist/app.css` by git's `The
/// following paths are ignored …: frontend/dist`), or one alone on a line
/// (git's list, `dist`). A word the error quotes (`reading 'data'`) is not
/// a folder it names.
fn in_a_named_folder(text: &str, path: &str) -> bool {
    let path = path.trim_matches(['\'', '"']).trim_start_matches("./");
    path.match_indices('/').map(|(at, _)| &path[..at]).any(|folder| {
        folder.chars().count() >= 3
            && if folder.contains('/') {
                names_whole(text, folder)
            } else {
                text.lines().any(|l| l.trim().trim_end_matches('/') == folder)
            }
    })
}

/// Whether `text` names `word` (its quotes dropped) whole: not as a part
/// of a longer path or name (`packages/msix` is not named by
/// `packages/msix/x.wxs`, `main` is by `refs/heads/main`).
fn names_whole(text: &str, word: &str) -> bool {
    let word = word.trim_matches(['\'', '"']);
    let part_of_a_word = |c: char| c.is_alphanumeric() || "_-.".contains(c);
    let part_of_a_path = |c: char| part_of_a_word(c) || "/\\".contains(c);
    !word.is_empty()
        && !word.contains(char::is_whitespace)
        && text.match_indices(word).any(|(at, _)| {
            let mut after = text[at + word.len()..].chars();
            // (a sentence's full stop ends a name: `… for refs/heads/main.`)
            let ends = match after.next() {
                Some('.') => !after.next().is_some_and(part_of_a_path),
                next => !next.is_some_and(part_of_a_path),
            };
            !text[..at].chars().next_back().is_some_and(part_of_a_word) && ends
        })
}

/// Options whose value is a message (a commit's, a pull request's): what
/// a command says, not how it runs.
const MESSAGE_OPTIONS: &[&str] = &["-m", "--message", "--title", "--body", "--subject", "--description", "--notes"];

/// Commands that are never a fix's step, even though they are not looks.
const TRIVIAL_STEPS: &[&str] = &["cd", "sleep", "clear", "true", "exit", "export", "wait"];

/// What a success resolves: one error, and the fix made.
#[derive(Debug, Clone, PartialEq)]
pub struct Resolution {
    pub event_id: i64,
    pub error: Option<String>,
    pub error_raw: Option<String>,
    pub signature: Option<String>,
    pub headline: Option<String>,
    pub kind: &'static str,
    /// JSON arrays: the tools used, the commands run, the edits made, the
    /// files written, what the retry changed in its own call.
    pub tool_sequence: String,
    pub file: Option<String>,
    pub commands: String,
    pub edits: String,
    pub writes: String,
    pub changed: String,
    /// Nothing changed: the same command succeeded (a flaky retry).
    pub weak: bool,
    /// The success, and the steps kept in the fix (event ids, JSON).
    pub success_event_id: i64,
    pub steps: String,
}

/// How a success is related to an error, if it is.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Relation {
    SameOperation,
    Substitute,
    /// Inline code the shell broke, run again from this script file, as
    /// the success ran it (`code_in_a_file`).
    CodeInAFile(String),
}

/// Whether arguments `retry` cover `failed`: none (the whole run), or each
/// failed one is equal to a retry's or lies under it (`tests/` covers
/// `tests/a.py`, `a.py` covers `a.py::test_x`). A command that was run
/// without arguments is covered by a retry that adds some (`git push` by
/// `git push -u origin main`), unless it checks or tests: a run of fewer
/// files than failed shows nothing fixed (`checker`).
fn covers(retry: &[String], failed: &[String], checker: bool) -> bool {
    retry.is_empty()
        || failed.is_empty() && !checker
        || !failed.is_empty()
            && failed.iter().all(|f| {
                retry.iter().any(|r| {
                    f == r
                        || f.strip_prefix(r.as_str()).is_some_and(|rest| {
                            r.ends_with('/') || rest.starts_with('/') || rest.starts_with("::") || rest.starts_with(':')
                        })
                })
            })
}

/// Options that choose which tests a run runs (`go test -run X`, `pytest
/// -k x`, `jest -t name`, `mocha --grep`, `dotnet test --filter`).
const TEST_SELECTORS: &[&str] = &[
    "-run", "-bench", "-k", "-m", "-t", "--testNamePattern", "--test-name-pattern", "--testPathPattern", "--grep",
    "-g", "--filter", "--deselect", "-e", "--example",
];

/// Whether a check `ran` runs the tests the failed check ran, as far as
/// its options choose them: the same choice, or none (all of them). A run
/// of other tests (`-run TestDebug` after `-run TestHTMLOutput` failed),
/// or of some where all failed, shows nothing about the failed ones.
fn selects_what_failed(ran: &Command, failed: &Command) -> bool {
    let selection = |c: &Command| {
        let mut chosen: Vec<String> = c
            .options
            .iter()
            .filter(|o| TEST_SELECTORS.contains(&o.split([' ', '=']).next().unwrap_or(o)))
            .cloned()
            .collect();
        chosen.sort();
        chosen
    };
    let ran = selection(ran);
    ran.is_empty() || ran == selection(failed)
}

/// Whether a retry puts a new word in front of the failed command's
/// arguments, of a program whose subcommands errkb does not know: that
/// word is a subcommand, another operation (`docfx build docfx.json` is
/// not `docfx docfx.json`, whose failing step it skips). Arguments added
/// after the failed ones, or options, keep the operation.
fn puts_a_word_in_front(ran: &Command, failed: &Command) -> bool {
    let (Some(first_failed), Some(first_ran)) = (failed.arguments.first(), ran.arguments.first()) else {
        return false;
    };
    failed.subject == failed.program
        && !failed.arguments.contains(first_ran)
        && ran.arguments[1..].contains(first_failed)
        && first_ran.len() >= 2
        && first_ran.bytes().all(|b| b.is_ascii_lowercase() || b == b'-')
}

/// Whether failed Read `e` was of a command's output that Claude Code kept
/// in a file because it was too large to show (`…/tool-results/…`), and
/// success `s` runs that command again (its options aside) into a filter
/// (`go test ./... 2>&1 | tail -100`): the way to see such an output. The command is the
/// shell step of the same agent just before the Read, or before the first
/// of the Reads of that file that came one after another (a Read retried
/// with an offset and a limit, still too large, is the same look).
fn reruns_into_a_filter(e: &Step, s: &Step, before: &[Step]) -> bool {
    let kept_output = e.file.as_deref().is_some_and(|f| f.contains("/tool-results/") || f.contains("\\tool-results\\"));
    if !kept_output {
        return false;
    }
    let producer = before
        .iter()
        .rev()
        .filter(|b| b.agent == e.agent)
        .skip_while(|b| b.tool() == "Read" && b.file == e.file)
        .take(3)
        .find(|b| b.tool() == "Bash")
        .and_then(Step::line);
    let (Some(producer), Some(line)) = (producer, s.line()) else {
        return false;
    };
    // the same command, its options aside (`go test ./... -v 2>&1` again
    // as `go test ./... 2>&1 | tail -50`: fewer lines is the point), its
    // output piped on into what filters it
    let (Some((ran, rest)), Some((made, _))) = (split_at_pipe(line), split_at_pipe(producer).or(Some((producer, "")))) else {
        return false;
    };
    let words = |part: &str| -> Vec<String> {
        part.split_whitespace()
            .filter(|w| !w.starts_with('-') && !w.starts_with("2>") && !w.starts_with(">&"))
            .map(str::to_owned)
            .collect()
    };
    !rest.trim().is_empty() && !words(made).is_empty() && words(ran) == words(made)
}

/// A command line split at its first pipe (`|`, not `||`) outside quotes:
/// what runs before it, and after it.
fn split_at_pipe(line: &str) -> Option<(&str, &str)> {
    let bytes = line.as_bytes();
    let mut quote = None;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match quote {
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None if b == b'\\' => i += 1,
            None if b == b'\'' || b == b'"' => quote = Some(b),
            None if b == b'|' => {
                if bytes.get(i + 1) == Some(&b'|') {
                    i += 2;
                    continue;
                }
                return Some((&line[..i], &line[i + 1..]));
            }
            None => {}
        }
        i += 1;
    }
    None
}

/// The numbers a command names (a port, a count), in its arguments and
/// its options' values: `-p 6380`, `:8080`, `--port=5432`.
fn numbers_named(c: &Command) -> Vec<String> {
    let values = c.options.iter().filter_map(|o| o.split_once([' ', '=']).map(|(_, v)| v));
    c.arguments
        .iter()
        .map(String::as_str)
        .chain(values)
        .flat_map(|w| w.split([':', ',', '=']))
        .filter(|w| w.len() >= 2 && w.bytes().all(|b| b.is_ascii_digit()))
        .map(str::to_owned)
        .collect()
}

/// The program a failed command could not find (`command not found`).
fn missing_program(e: &Step) -> Option<String> {
    let raw = e.error_raw.as_deref()?;
    let sig = crate::text::signature::signature(raw);
    if sig.text.starts_with("command not found") {
        return sig.values.first().cloned();
    }
    // zsh's own words (macOS's shell): `zsh: command not found: redis-cli`,
    // `(eval):1: command not found: redis-cli`
    raw.lines()
        .find_map(|l| l.split_once("command not found: ").map(|(_, program)| program.trim()))
        .filter(|p| !p.is_empty() && !p.contains(char::is_whitespace))
        .map(str::to_owned)
}

/// Whether `output`, what shell success `s` printed, shows an error
/// (`shows_an_error`, with the programs its line ran).
fn printed_an_error(s: &Step, output: &str) -> bool {
    crate::text::signature::shows_an_error(output, &s.line().map(command::programs_of).unwrap_or_default())
}

/// The commands a shell success proves ran well (worked out once per
/// success: see `relation`): those its exit status shows; when its output
/// shows no error (or holds a test run's verdict that all passed: see
/// `text::test_verdict`), those whose status a pipe or a `||` hid; and those the
/// output reports in words (`A && echo OPEN || echo CLOSED`), less those
/// it reports failed.
fn proven_by(s: &Step, output: Option<&str>) -> Vec<Command> {
    let Some(line) = s.line() else {
        return Vec::new();
    };
    let mut successes = s.chain().to_vec();
    let reported = output.map(|o| command::reported_ends(line, o)).unwrap_or_default();
    // (an output that shows no error, or a test run's own verdict that all
    // passed: what its tests logged is not its failure)
    let failed = |c: &Command| reported.iter().any(|(r, ok)| !ok && r == c);
    // What the output may prove beyond the exit status: the commands whose
    // status was hidden but whose output was shown, and listings. (When
    // the status proves all of them already, what the output says adds
    // nothing, and reading it, a long output's signature, is skipped.)
    let shown_commands = command::analyse_shown(line);
    // a listing piped into a filter that printed what it kept
    // (`ls -la app | grep -i changelog`): what was kept was listed
    let listings: Vec<Command> = command::analyse_all(line)
        .into_iter()
        .filter(|c| LISTINGS.contains(&c.program.as_str()))
        .collect();
    let shown = output
        .filter(|o| !o.trim().is_empty())
        .filter(|_| shown_commands.iter().chain(&listings).any(|c| !successes.contains(c)));
    if shown.is_some_and(|o| !printed_an_error(s, o)) {
        successes.extend(shown_commands.into_iter().filter(|c| !failed(c)));
        successes.extend(listings.into_iter().filter(|c| !failed(c)));
    } else if shown.is_some_and(crate::text::test_verdict::all_passed) {
        // a test run's verdict proves the test runs, not what else the line
        // ran (`tsc 2>&1 | head; bun test | tail`: tsc's error is still there)
        successes.extend(shown_commands.into_iter().filter(|c| command::is_test_run(c) && !failed(c)));
    }
    successes.extend(reported.into_iter().filter(|(_, ok)| *ok).map(|(c, _)| c));
    successes
}

/// How success `s` is related to error `e`, if it is; `between` are the
/// steps in between, `proven` what `s` proves ran well (`proven_by`),
/// `output` what it printed, when known.
fn relation<'p>(
    e: &Step,
    s: &Step,
    before: &[Step],
    between: &[Step],
    proven: &dyn Fn() -> &'p [Command],
    output: Option<&str>,
) -> Option<Relation> {
    if !e.is_error || s.is_error || e.tool.is_none() {
        return None;
    }
    let (et, st) = (e.tool(), s.tool());
    let same_file = e.file.is_some() && e.file == s.file;
    match (et, st) {
        ("Bash", "Bash") => {
            // an error stored by an older version has its subject, not its line
            if e.line.is_none() {
                return (e.subject.is_some() && e.subject == s.subject).then_some(Relation::SameOperation);
            }
            let ec = e.command()?;
            // an operation acts on the files of the folder it runs in: a
            // retry in a folder that neither holds nor lies in the failed
            // one's (another repository, another package) is another
            // operation, however alike the commands
            e.line()?;
            s.line()?;
            if let (Some(a), Some(b)) = (e.folder(), s.folder()) {
                if command::folders_apart(a, b) {
                    return None;
                }
            }
            // a line the agent's shell stopped for running too long, run
            // again with more time (in the background, or a longer
            // timeout): its commands run again as they were
            if let Some(limit) = time_limit_hit(e) {
                if more_time(e, s, limit) && runs_again_with_more_time(e, s, proven()) {
                    return Some(Relation::SameOperation);
                }
            }
            // a filter's own error, and the filter mended in the same
            // pipeline: what viewers after it showed has to show no error,
            // and it answers only as the first success of what fed the
            // filter (a later one is a look for something else). A retry
            // that left the filter as it was is judged as any other.
            if let (Some((upstream, _)), Some((_, viewed))) = (failed_filter(e), mended_filter(e, s)) {
                let fed_before = between.iter().filter(|b| !b.is_error && b.tool() == "Bash").any(|b| {
                    b.line().is_some_and(|l| same_feed(&upstream, &command::status_pipelines(l)).is_some())
                });
                let shows_no_error = || output.is_some_and(|o| !o.trim().is_empty() && !printed_an_error(s, o));
                return (!fed_before && (!viewed || shows_no_error())).then_some(Relation::SameOperation);
            }
            let successes = proven();
            // what the error named of the failed command's arguments: a retry
            // may leave those out (`git add a b dist` failed on the ignored
            // `dist`; `git add a b` is its retry). A name is one word: inline
            // code (`node -e '…'`) that the error quotes back is not one.
            let raw = e.error_raw.as_deref().unwrap_or("");
            // (named whole, as the folder of a path it names: `dist` by
            // `dist/app.js`, or in a folder it names: `dist/app.css` by git's
            // ignored `dist`; `pod` is not named by `pods "web-2" not found`)
            let unnamed: Vec<String> = ec
                .arguments
                .iter()
                .filter(|a| a.chars().count() < 3 || !names_whole_or_under(raw, a) && !in_a_named_folder(raw, a))
                .cloned()
                .collect();
            // the same operation: any command the success ran (each of a
            // chain did), and a tool run with or without a program in front
            let same = |failed: &Command, ran: &Command| {
                let checker = command::is_checker(failed);
                failed.subject == ran.subject
                    // `pytest --markers` is not a run of the tests
                    && (failed.inspection || !ran.inspection)
                    && if failed.inspection {
                        // (`pytest --markers` is not the look `--collect-only` is)
                        ran.arguments == failed.arguments && command::looks(ran) == command::looks(failed)
                    } else {
                        covers(&ran.arguments, &failed.arguments, checker)
                            && !puts_a_word_in_front(ran, failed)
                            && (!checker || selects_what_failed(ran, failed))
                            || !checker
                                && unnamed.len() < failed.arguments.len()
                                && !ran.arguments.is_empty()
                                // (it leaves out what was named, and adds nothing)
                                && ran.arguments.iter().all(|a| failed.arguments.contains(a))
                                && (covers(&ran.arguments, &unnamed, checker)
                                    // (or it acts on what was named only: `git
                                    // add -f dist` after `git add a dist` failed
                                    // on the ignored `dist`)
                                    || ran.arguments.iter().all(|a| !unnamed.contains(a)))
                    }
            };
            let unwrapped = command::without_front(ec);
            // (a fixing task's check: see below; not when what failed is the
            // runner's word about the task itself, `Script not found
            // "lint:fix"`: then the fixing task found nothing)
            let task = ec.subject.rsplit(' ').next().unwrap_or_default();
            let fixing_check = command::check_of_fixing_task(ec)
                .filter(|_| !e.headline.as_deref().unwrap_or("").contains(task));
            // (a line cut short in `--no-verify` skipped the checks too)
            let cut_short = s.line.as_deref().is_some_and(|l| {
                let chars = l.chars().count();
                (chars >= LINE_CHARS || chars == OLD_LINE_CHARS)
                    && l.split_whitespace().last().is_some_and(|w| w.len() >= 5 && "--no-verify".starts_with(w))
            });
            for sc in successes {
                // skipping the checks (`git commit --no-verify`) fixes nothing
                if (cut_short || sc.options.iter().any(|o| o == "--no-verify"))
                    && !ec.options.iter().any(|o| o == "--no-verify")
                {
                    continue;
                }
                if same(ec, sc)
                    || unwrapped.as_ref().is_some_and(|inner| same(inner, sc))
                    || command::without_front(sc).is_some_and(|inner| same(ec, &inner))
                    // a script run through its interpreter (`python3 x.py`
                    // after `./x.py` could not run)
                    || through_its_interpreter(e, ec, sc).is_some_and(|script| same(ec, &script))
                    // a fixing task that left what it could not fix, and
                    // the check passing later (`bun run lint` after `bun
                    // run lint:fix` failed)
                    || fixing_check.as_ref().is_some_and(|check| same(check, sc))
                {
                    return Some(Relation::SameOperation);
                }
            }
            // inline code run again as other code that still uses what the
            // error named (`node -e "require('x')…"` that could not find
            // `x`, run again from the package that has it)
            if inline_code_reruns_what_failed(e, ec, successes) {
                return Some(Relation::SameOperation);
            }
            // inline code that the shell's quoting broke, run from a file
            if let Some(script) = code_in_a_file(e, s, between, successes) {
                return Some(Relation::CodeInAFile(script));
            }
            // a substitute for a program that was not found
            let missing = e.missing_program()?;
            let program = command::program_name(missing);
            let substitutes = SUBSTITUTES
                .iter()
                .find(|(p, _)| *p == program)
                .map_or(&[][..], |(_, s)| *s);
            // (on the same target: when both name numbers, a port or a
            // count, the substitute names every one the failed command did;
            // `nc -z db 5432` is no check of what `redis-cli -p 6380` asked)
            let failed_numbers = numbers_named(ec);
            let same_target = |sc: &Command| {
                let named = numbers_named(sc);
                failed_numbers.is_empty() || named.is_empty() || failed_numbers.iter().all(|n| named.contains(n))
            };
            (ec.program == program
                && successes.iter().any(|sc| {
                    substitutes.iter().any(|sub| sc.subject == *sub || sc.program == *sub) && same_target(sc)
                }))
            .then_some(Relation::Substitute)
        }
        // (a Read that gave nothing, past the file's end, read none of it)
        ("Read", "Read") => (same_file && !s.read_nothing).then_some(Relation::SameOperation),
        (e, s) if FILE_WRITERS.contains(&e) && FILE_WRITERS.contains(&s) => {
            same_file.then_some(Relation::SameOperation)
        }
        ("Grep" | "Glob", "Bash") => s.chain()
            .iter()
            .any(|sc| SHELL_SEARCHES.iter().any(|p| sc.program == *p || sc.subject == *p))
            .then_some(Relation::Substitute),
        ("Read", "Bash" | "Glob" | "LS") => {
            // a folder listed after reading it failed (EISDIR); a file too
            // large to read, read otherwise (jq, python, head …)
            let raw = e.error_raw.as_deref().unwrap_or("");
            let path = e.file.as_deref()?.trim_end_matches(['/', '\\']);
            let names_it = |word: &str| {
                let word = word.trim_end_matches(['/', '\\']);
                !word.is_empty()
                    && (path == word
                        || path.ends_with(&format!("/{word}"))
                        || path.ends_with(&format!("\\{word}"))
                        || word.ends_with(path))
            };
            let folder = raw.contains("EISDIR");
            let too_large = raw.contains("exceeds maximum allowed tokens");
            // (what the success proves ran well: `ls dir | grep x` that
            // printed what it kept listed it)
            let related = match (s.tool(), folder, too_large) {
                ("Bash", true, _) => proven()
                    .iter()
                    .any(|c| LISTINGS.contains(&c.program.as_str()) && c.arguments.iter().any(|a| names_it(a))),
                // (a program that reads it: not `wc -l` or `ls -l` of it)
                ("Bash", _, true) => {
                    proven()
                        .iter()
                        .any(|c| !COUNTS.contains(&c.program.as_str()) && c.arguments.iter().any(|a| names_it(a)))
                        || reruns_into_a_filter(e, s, before)
                }
                ("Glob" | "LS", true, _) => {
                    s.target.as_deref().is_some_and(names_it) || s.file.as_deref().is_some_and(names_it)
                }
                _ => false,
            };
            related.then_some(Relation::Substitute)
        }
        // a search retried (its pattern mended): the next one of its tool
        ("Grep" | "Glob", b) if b == e.tool() => {
            (!between.iter().any(|m| !m.is_error && m.tool() == b)).then_some(Relation::SameOperation)
        }
        (a, b) if a == b => {
            let same_target = e.target.is_some() && e.target == s.target;
            (same_file || same_target).then_some(Relation::SameOperation)
        }
        _ => None,
    }
}

/// The time limit the agent's shell stopped a line at, in milliseconds,
/// when it did: Claude Code's "Command timed out after 2m 0s" (its own
/// words, first in the output; a command's own timeout, `execa`'s
/// "Command timed out after 30000 milliseconds: git fetch", is that
/// command's error). Codex's shell (`shell`, `shell_command`) says
/// "command timed out after 10031 milliseconds", the time the line ran,
/// first too, after the header of an output it cut ("Total output lines:
/// 934"); only a Codex step is read for it. The whole line ran out of
/// time, not one command.
fn time_limit_hit(e: &Step) -> Option<i64> {
    let raw = e.error_raw.as_deref().unwrap_or("");
    let codex_header = |l: &str| e.codex && (l.starts_with("Total output lines: ") || l.starts_with("Warning: truncated"));
    let line = raw
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with("Exit code") && !codex_header(l))?;
    if e.codex {
        let ms = line.strip_prefix("command timed out after ")?.strip_suffix(" milliseconds")?;
        return ms.bytes().all(|b| b.is_ascii_digit()).then(|| ms.parse().ok()).flatten();
    }
    let (minutes, seconds) = line.strip_prefix("Command timed out after ")?.split_once("m ")?;
    let seconds = seconds.strip_suffix('s')?;
    let minutes: i64 = minutes.parse().ok()?;
    let seconds: f64 = seconds.parse().ok()?;
    // (checked: the text is the tool's output, any number may be in it)
    minutes.checked_mul(60_000)?.checked_add((seconds * 1000.0) as i64)
}

/// Whether `s` was given more time than `e` had (`limit`, the one its
/// message names): the background, or a longer timeout of its own.
fn more_time(e: &Step, s: &Step, limit: i64) -> bool {
    s.background && !e.background || s.timeout.is_some_and(|t| t > limit)
}

/// Whether `s` runs every command of the line `e` again as it was: the
/// same operation on the same arguments (a count may change, `seq 1 40`
/// → `seq 1 60`, and inline code be rewritten), as far as both lines were
/// stored (the last command of a line cut at the stored length may be
/// cut, and those after the cut of the retry's are not known); a retry
/// adds no other operation. Not a look where the line did
/// something, nor one that skips the checks; run in the foreground, its
/// status must show the commands ran well (`proven`: `npm test || true`
/// shows nothing). A command started in the background shows nothing
/// yet, so the background is the change.
fn runs_again_with_more_time(e: &Step, s: &Step, proven: &[Command]) -> bool {
    let operations = |step: &Step| -> Option<(Vec<Command>, bool)> {
        let line = step.line()?;
        let cut = step.line.as_deref().is_some_and(|l| l.chars().count() >= LINE_CHARS);
        let commands = command::analyse_all(line)
            .into_iter()
            .filter(|c| !command::TRIVIAL.contains(&c.program.as_str()))
            .collect();
        Some((commands, cut))
    };
    use std::collections::BTreeSet;
    let (Some((mut failed, failed_cut)), Some((retried, retry_cut))) = (operations(e), operations(s)) else {
        return false;
    };
    // the same operations, as far as both lines were stored
    let (a, b): (BTreeSet<&str>, BTreeSet<&str>) = (
        failed.iter().map(|c| c.subject.as_str()).collect(),
        retried.iter().map(|c| c.subject.as_str()).collect(),
    );
    let same_operations = !a.is_empty() && (a == b || failed_cut && a.is_subset(&b) || retry_cut && b.is_subset(&a));
    if !same_operations {
        return false;
    }
    // each run again on its arguments (a cut line's last command may be
    // cut short)
    if failed_cut {
        failed.pop();
    }
    let is_count = |a: &str| !a.is_empty() && a.bytes().all(|b| b.is_ascii_digit());
    let again = |f: &Command, r: &Command| {
        r.subject == f.subject
            && (inline_form(f).is_some()
                || r.arguments.len() == f.arguments.len()
                    && r.arguments.iter().zip(&f.arguments).all(|(a, b)| a == b || is_count(a) && is_count(b)))
            && (f.inspection || !r.inspection)
            && (f.options.iter().any(|o| o == "--no-verify") || !r.options.iter().any(|o| o == "--no-verify"))
            && (s.background || proven.contains(r))
    };
    failed.iter().all(|f| {
        retried.iter().any(|r| again(f, r)) || retry_cut && !retried.iter().any(|r| r.subject == f.subject)
    })
}

/// The inline forms of interpreters: code given on the command line (`-c`,
/// `-e`), or on standard input (`-`, from a heredoc).
const INLINE_FORMS: &[(&str, &[&str])] = &[
    ("python", &["-c", "-"]),
    ("node", &["-e"]),
    ("deno", &["-e"]),
    ("ruby", &["-e"]),
    ("perl", &["-e"]),
    ("bash", &["-c"]),
    ("sh", &["-c"]),
    ("zsh", &["-c"]),
];

/// The inline form a command gives its interpreter code in (`-c` of
/// `python -c`), if it does.
fn inline_form(c: &Command) -> Option<&str> {
    let forms = INLINE_FORMS.iter().find(|(p, _)| *p == c.program).map_or(&[][..], |(_, f)| *f);
    let form = c.subject.rsplit(' ').next().unwrap_or("");
    (c.subject != c.program && forms.contains(&form)).then_some(form)
}

/// Whether a success runs inline code of the same form as the failed
/// command's (`node -e`, `python3 -c`), other code that still names
/// everything the error's identifying line named (the module that was not
/// found, the attribute that was missing) as the failed code did: the
/// same work, run where or after what made it work. Not when the failed
/// code did not parse (that is `code_in_a_file`'s), not a look at it, and
/// only for names of three characters or more that are not numbers (a
/// `print(dir(x))` after `x` lacked `foo` does not name `foo`).
fn inline_code_reruns_what_failed(e: &Step, ec: &Command, successes: &[Command]) -> bool {
    let Some(form) = inline_form(ec) else { return false };
    if inline_code_broke(e) {
        return false;
    }
    let headline = e.headline.as_deref().unwrap_or("");
    let named: Vec<String> = crate::text::signature::signature(headline)
        .values
        .iter()
        .map(|v| v.trim_matches(['\'', '"', '`']).to_owned())
        .filter(|v| v.chars().count() >= 3 && !v.bytes().all(|b| b.is_ascii_digit() || b == b'.'))
        .collect();
    let names_all = |c: &Command| named.iter().all(|v| c.arguments.iter().any(|a| a.contains(v.as_str())));
    !named.is_empty()
        && names_all(ec)
        && successes
            .iter()
            .any(|sc| sc.subject == ec.subject && inline_form(sc) == Some(form) && !sc.inspection && names_all(sc))
}

/// Whether inline code failed before it could run as written: its
/// interpreter could not parse it, where the error says it was (Python's
/// `File "<string>"` or `"<stdin>"` as the last place, node's `[eval]`),
/// or the shell that was to pass it stumbled on its quoting (`(eval):1: bad
/// substitution`, `unexpected EOF while looking for matching`). A
/// database's `syntax error at or near "FORM"` is the code's own SQL, and
/// a module that does not parse is that module's.
fn inline_code_broke(e: &Step) -> bool {
    let raw = e.error_raw.as_deref().unwrap_or("");
    let headline = e.headline.as_deref().unwrap_or("");
    let places: Vec<&str> = raw.lines().filter_map(|l| l.trim_start().strip_prefix("File \"")).collect();
    let inline = |p: &&str| p.starts_with("<string>\"") || p.starts_with("<stdin>\"");
    let parse = ["SyntaxError:", "IndentationError:", "TabError:"].iter().any(|class| headline.starts_with(class))
        && !headline.contains(" at or near ")
        && places.last().is_some_and(inline);
    // (a pattern the inline code gave `re`: raised in `re`'s own modules)
    let pattern = headline.starts_with("PatternError:")
        && places.iter().all(|p| inline(p) || p.contains("/re/") || p.contains("\\re\\") || p.contains("sre_"));
    let python = parse || pattern;
    let node = headline.starts_with("SyntaxError:") && raw.contains("[eval]");
    let shell = ["(eval)", "bash:", "zsh:", "sh:", "/bin/sh:", "/bin/bash:", "/usr/bin/bash:"]
        .iter()
        .any(|p| headline.starts_with(p))
        && ["bad substitution", "unexpected EOF", "nterminated quoted string", "unmatched"]
            .iter()
            .any(|w| headline.contains(w));
    python || node || shell
}

/// Of inline code that failed before it could run as written
/// (`inline_code_broke`: `python3 -c "…"`, `node -e '…'`, an unquoted
/// heredoc fed to `python3 -`, whose `$` and `\` the shell changes), the
/// script file that a success runs with the same interpreter as invoked,
/// as it ran it: a file new since the error, in a scratch folder
/// (`wrote_script`) or written on the success's own line, in front of its
/// run. That is the code moved out of the shell's quoting; a project's
/// file edited or a new script of the task is other work.
fn code_in_a_file(e: &Step, s: &Step, between: &[Step], successes: &[Command]) -> Option<String> {
    let ec = e.command()?;
    let form = inline_form(ec)?;
    // (code on standard input from a heredoc the shell expanded: not one
    // in quotes, `<<'EOF'`, nor a file's `< script.py`)
    if form == "-" && !e.line().is_some_and(|l| l.contains("<<") && !l.contains("<<'") && !l.contains("<<\"")) {
        return None;
    }
    if !inline_code_broke(e) {
        return None;
    }
    let invoked = command::path_tail(&ec.invoked);
    let ran = successes.iter().find(|sc| sc.program == ec.program && command::path_tail(&sc.invoked) == invoked)?;
    let script = ran.script.as_deref()?;
    let written = between.iter().any(|b| wrote_script(b, script))
        || s.line().is_some_and(|l| written_by(l, command::path_tail(script)).is_some());
    written.then(|| script.to_owned())
}

/// Whether success `b` wrote `script` (as a success ran it) as a new
/// file in a scratch folder: a Write of it, or a shell line's redirect or
/// `tee` (`written_by`). It is known by its name where a path is a
/// variable (`"$SP/x.py"`), by its path where both are absolute.
fn wrote_script(b: &Step, script: &str) -> bool {
    let name = command::path_tail(script);
    !b.is_error
        && match b.tool() {
            "Bash" => b.line().and_then(|l| written_by(l, name)).is_some_and(|t| command::is_temp_path(&t)),
            "Write" => b.file.as_deref().is_some_and(|file| {
                command::path_tail(file) == name
                    && (!(file.starts_with('/') && script.starts_with('/')) || file == script)
                    && command::is_temp_path(file)
            }),
            _ => false,
        }
}

/// The path by which a shell line writes a file named `name`: a
/// redirect's target (`cat > "$SP/x.py" <<'EOF'`) or what `tee` writes.
fn written_by(line: &str, name: &str) -> Option<String> {
    line.match_indices('>')
        .filter_map(|(at, _)| line[at + 1..].split_whitespace().next())
        .chain(line.split_whitespace().skip_while(|w| *w != "tee").nth(1))
        .map(|target| target.trim_matches(['"', '\'', ';']))
        .find(|target| command::path_tail(target) == name)
        .map(str::to_owned)
}

/// `path` relative to `project` when it lies in it.
fn relative<'a>(path: &'a str, project: Option<&str>) -> &'a str {
    match project.filter(|p| !p.is_empty() && *p != "/") {
        Some(project) => path
            .strip_prefix(project)
            .and_then(|rest| rest.strip_prefix('/'))
            .filter(|rest| !rest.is_empty())
            .unwrap_or(path),
        None => path,
    }
}

/// Every path inside the project folder in `text` made relative to it.
fn relative_in(text: &str, project: Option<&str>) -> String {
    crate::text::paths_in_text::relative_paths(text, project, crate::text::paths_in_text::Outside::Keep).into_owned()
}

/// What the retry changed in its own call, compared with the failed one:
/// a program in front dropped or added, another version of the program,
/// wrappers and assignments, options, the sandbox.
fn retry_changes(e: &Step, s: &Step) -> Vec<String> {
    let mut changed = Vec::new();
    let tail = |word: &str| word.rsplit(['/', '\\']).next().unwrap_or(word).to_owned();
    let shell_success = s.tool() == "Bash" && s.line().is_some();
    // a filter's own error: the filter as the retry ran it (what fed it
    // is the same, see `relation`)
    if let Some((filter, _)) = mended_filter(e, s) {
        changed.push(filter);
    } else if let Some(ec) = e.command().filter(|_| shell_success) {
        let successes = s.chain();
        let front_dropped = command::without_front(ec);
        // the command of the success that is the retry, and the failed one as compared
        let pair = successes.iter().find_map(|sc| {
            if sc.subject == ec.subject {
                Some((ec.clone(), sc.clone()))
            } else if let Some(inner) = front_dropped.as_ref().filter(|i| i.subject == sc.subject) {
                changed.push(format!("without {}", tail(&ec.invoked)));
                Some((inner.clone(), sc.clone()))
            } else if let Some(inner) = command::without_front(sc).filter(|i| i.subject == ec.subject) {
                changed.push(format!("through {}", tail(&sc.invoked)));
                Some((ec.clone(), inner))
            } else if let Some(script) = through_its_interpreter(e, ec, sc) {
                changed.push(format!("through {}", tail(&sc.invoked)));
                Some((ec.clone(), script))
            } else {
                None
            }
        });
        if let Some((ec, sc)) = pair {
            // what the retry's own line did first that the failed line did
            // not (`git config user.email …; git commit`, `npm install x &&
            // node app.js`): work in front of the retried command
            changed.extend(work_in_front(e, s, &sc));
            if ec.program == sc.program && tail(&ec.invoked) != tail(&sc.invoked) {
                changed.push(format!("{} instead of {}", tail(&sc.invoked), tail(&ec.invoked)));
            }
            for p in sc.prefix.iter().filter(|p| !ec.prefix.contains(p)) {
                changed.push(p.clone());
            }
            // a message is what the command says, not how it runs: another
            // commit message, title or body is no change (the option itself
            // added or dropped is), unless the error was about the message:
            // the tool quoted it back (a commit-msg hook's linter)
            let name = |o: &str| o.split_once(' ').map_or(o, |(name, _)| name).to_owned();
            let raw = e.error_raw.as_deref().unwrap_or("");
            let quoted_back = |o: &str| {
                o.split_once(' ').is_some_and(|(_, message)| {
                    message.lines().map(str::trim).any(|l| l.chars().count() >= 12 && raw.contains(l))
                })
            };
            let about_message = ec.options.iter().any(|o| MESSAGE_OPTIONS.contains(&name(o).as_str()) && quoted_back(o));
            let says = |o: &str| !about_message && MESSAGE_OPTIONS.contains(&name(o).as_str());
            let has = |options: &[String], o: &str| {
                options.iter().any(|x| x == o || says(o) && name(x) == name(o))
            };
            for o in sc.options.iter().filter(|o| !has(&ec.options, o)) {
                changed.push(if says(o) { name(o) } else { o.clone() });
            }
            for o in ec.options.iter().filter(|o| !has(&sc.options, o)) {
                changed.push(format!("without {}", if says(o) { name(o) } else { o.clone() }));
            }
            // what the error named of the arguments, left out (`git add a
            // dist` failed on the ignored `dist`: `git add a`)
            for a in ec.arguments.iter().filter(|a| !sc.arguments.contains(a)) {
                if a.chars().count() >= 3 && (names_whole_or_under(raw, a) || in_a_named_folder(raw, a)) {
                    changed.push(format!("without {a}"));
                }
            }
        }
    } else if e.target != s.target && s.target.is_some() && e.tool() == s.tool() {
        changed.push(s.target.clone().unwrap_or_default());
    }
    if s.sandbox_off && !e.sandbox_off {
        changed.push("dangerouslyDisableSandbox".to_owned());
    }
    // more time (or the background) is a change for an error that ran out
    // of it; for any other it only let the retry run
    let raw = e.error_raw.as_deref().unwrap_or("").to_ascii_lowercase();
    let out_of_time = ["timed out", "timeout", "time limit", "deadline exceeded"].iter().any(|w| raw.contains(w));
    if out_of_time && s.background && !e.background {
        changed.push("run_in_background".to_owned());
    }
    if let Some(timeout) = s.timeout.filter(|t| out_of_time && e.timeout.is_none_or(|before| *t > before)) {
        changed.push(format!("timeout {timeout} ms"));
    }
    changed
}

/// The commands the success's line runs before `retried` (its retry of the
/// failed command) that the failed line did not run: work that changes
/// something (not a look, a check or chatter such as `cd` or `echo`), and
/// the environment it set up (`export`, `source`). Each is given as its
/// words: what comes before the program, the program as invoked, its
/// subcommand, options, then arguments (quotes are gone).
fn work_in_front(e: &Step, s: &Step, retried: &Command) -> Vec<String> {
    let (Some(failed_line), Some(line)) = (e.line(), s.line()) else {
        return Vec::new();
    };
    let same = |a: &Command, b: &Command| {
        a.subject == b.subject && a.options == b.options && a.arguments == b.arguments && a.prefix == b.prefix
    };
    let before_failed = command::analyse_all(failed_line);
    let all = command::analyse_all(line);
    let Some(at) = all.iter().position(|c| {
        c.subject == retried.subject || command::without_front(c).is_some_and(|i| i.subject == retried.subject)
    }) else {
        return Vec::new();
    };
    all[..at]
        .iter()
        .filter(|c| {
            let sets_up = matches!(c.program.as_str(), "export" | "source" | ".");
            (sets_up || !command::TRIVIAL.contains(&c.program.as_str()) && !c.inspection && !command::only_checks(c))
                && !before_failed.iter().any(|f| same(f, c))
        })
        .map(command::words_of)
        .collect()
}

/// Whether `step` runs the failed operation of `error` again, as it was
/// (no option added): it shows whether the error is still there, and
/// changes nothing. (`npm run lint -- --fix` adds one: that is a step.)
fn reruns(error: &Step, step: &Step) -> bool {
    let (Some(ec), Some(sc)) = (error.command(), step.command()) else {
        return false;
    };
    let same = |a: &Command, b: &Command| a.subject == b.subject && b.options.iter().all(|o| a.options.contains(o));
    same(ec, sc)
        || command::without_front(ec).is_some_and(|inner| same(&inner, sc))
        || command::without_front(sc).is_some_and(|inner| same(ec, &inner))
}

/// Errors about this code's own logic, whose fix is this code's too.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum OwnLogic {
    /// A test's expectation not met: what the code gave is not what the
    /// test expected. The edits that meet it are this code's (or this
    /// test's); a command in between (an install, a cleanup) may be more.
    Expectation,
    /// A merge conflict: two versions of this code's content. Resolving it
    /// is a choice between them; git's own steps around it (add, continue)
    /// are what its message says to do.
    Conflict,
}

/// Whether `error` is about this code's own logic (see OwnLogic), from
/// what its output says.
fn own_logic(error: &Step) -> Option<OwnLogic> {
    let raw = error.error_raw.as_deref().unwrap_or("");
    let headline = error.headline.as_deref().unwrap_or("");
    const CONFLICT: &[&str] = &["CONFLICT (", "Merge conflict in ", "Resolve all conflicts manually", "fix conflicts and run"];
    if CONFLICT.iter().any(|c| raw.contains(c)) {
        Some(OwnLogic::Conflict)
    } else if crate::text::signature::states_an_unmet_expectation(headline, raw) {
        Some(OwnLogic::Expectation)
    } else {
        None
    }
}

/// Whether Bash steps `a` and `b` say they ran in folders apart.
fn in_folder_apart(a: &Step, b: &Step) -> bool {
    matches!((a.folder(), b.folder()), (Some(x), Some(y)) if command::folders_apart(x, y))
}

/// Whether an error is git's own (its failed command is git's).
fn is_git(error: &Step) -> bool {
    error.command().is_some_and(|c| c.program == "git")
}

/// `git stash` (push, save) sets the work tree's changes aside; `git stash
/// pop` and `apply` bring them back.
fn stash_move(command: &Command) -> Option<bool> {
    match command.subject.as_str() {
        "git stash" | "git stash push" | "git stash save" => Some(true),
        "git stash pop" | "git stash apply" => Some(false),
        _ => None,
    }
}

/// Whether the success ran with the work tree's changes set aside: a
/// `git stash` in between not brought back before it, or one in its own
/// line.
fn runs_stashed(between: &[Step], success: &Step) -> bool {
    let moves = |s: &Step| -> Vec<bool> {
        if s.is_error {
            return Vec::new();
        }
        s.stash_moves().to_vec()
    };
    let mut stashed = false;
    for step in between {
        for set_aside in moves(step) {
            stashed = set_aside;
        }
    }
    stashed || moves(success).contains(&true)
}

/// Whether a step's line sets changes aside or brings them back.
fn moves_stash(step: &Step) -> bool {
    !step.stash_moves().is_empty()
}

/// A command line that sets the changes aside and brings them back
/// (`git stash && go vet ./...; git stash pop`): a look at how things
/// were, not a change.
fn stashes_and_restores(step: &Step) -> bool {
    let moves = step.stash_moves();
    moves.first() == Some(&true) && moves.last() == Some(&false)
}

/// The last `n` of `steps`: a fix's decisive steps come last.
fn last(steps: Vec<&Step>, n: usize) -> Vec<&Step> {
    let skip = steps.len().saturating_sub(n);
    steps.into_iter().skip(skip).collect()
}

/// Whether a command's `output` shows `error` again: its identifying line
/// as printed, or a line of the same signature. A command that exits 0
/// while it prints the error it failed with (`cmd || echo failed`, `cmd;
/// true`, `cmd | tee log`) did not fix it.
fn shows_error(output: &str, error: &Step) -> bool {
    if output.trim().is_empty() {
        return false;
    }
    let headline = error.headline.as_deref().map(str::trim).unwrap_or("");
    if headline.chars().count() >= 8 && output.contains(headline) {
        return true;
    }
    let signature = error.signature.as_deref().unwrap_or("");
    !signature.is_empty() && crate::text::signature::signature(output).text == signature
}

/// What a look says when what it looked at is not there: a file, a
/// folder, a path (the Read tool's, the shells', PowerShell's). A missing
/// program (`command not found`) is not among them: that is an error.
const NOT_THERE: &[&str] = &[
    "No such file or directory",
    "does not exist",
    "Cannot find path",
    "cannot access",
    "ENOENT",
];

/// Whether `error` is a look (a Read, a listing, a printing, a search)
/// that found nothing where it looked.
fn looked_for_what_was_not_there(error: &Step) -> bool {
    error.is_look()
        && error
        .error_raw
        .as_deref()
        .is_some_and(|raw| NOT_THERE.iter().any(|words| raw.contains(words)))
}

/// What a system says when a file could not be run as a program: not
/// executable, its shebang's interpreter not found (a CRLF shebang asks
/// for `python3\r`), not a program at all.
const COULD_NOT_RUN: &[&str] = &[
    "ermission denied",
    "cannot execute",
    "bad interpreter",
    "Exec format error",
    "No such file or directory",
];

/// When failed step `e` ran a file by its path (`./scripts/list.py`),
/// command `ec`, that could not run itself (COULD_NOT_RUN), and `sc` runs
/// the same file through its interpreter (`python3 scripts/list.py`):
/// `sc` as the script's own run, to compare with `ec` as its retry.
fn through_its_interpreter(e: &Step, ec: &Command, sc: &Command) -> Option<Command> {
    let could_not_run = command::runs_a_path(ec)
        && e.error_raw.as_deref().is_some_and(|raw| COULD_NOT_RUN.iter().any(|w| raw.contains(w)));
    command::as_script_run(sc).filter(|script| could_not_run && command::same_path(&script.invoked, &ec.invoked))
}

/// Whether shell success `s` looks where failed look `e` did not: its
/// command of the same operation names, as an argument or an option's
/// value, a path of the same name in another place (`git -C
/// ~/src/app status` after `git -C ~/Projects/app status`): the thing was
/// there, elsewhere. The same place spelt otherwise (`/Users/me/x` for
/// `~/x`), an option added without a value (`ls -la dist` after `ls
/// dist`), or another name (`~/Projects/blog`) is no such look.
fn looks_elsewhere(e: &Step, s: &Step) -> bool {
    let Some(ec) = e.command() else {
        return false;
    };
    // the paths a command names, a home folder spelt as `~`
    let paths = |c: &Command| -> Vec<String> {
        c.arguments
            .iter()
            .map(String::as_str)
            .chain(c.options.iter().filter_map(|o| o.split_once([' ', '=']).map(|(_, value)| value)))
            .filter(|w| w.contains(['/', '\\', '~']))
            .map(|w| crate::text::redact::redact_private(w.trim_end_matches(['/', '\\'])).into_owned())
            .collect()
    };
    let name = |path: &str| path.rsplit(['/', '\\']).next().unwrap_or(path).to_owned();
    let failed = paths(ec);
    s.chain().iter().filter(|c| c.subject == ec.subject).any(|sc| {
        paths(sc)
            .iter()
            .any(|r| !failed.contains(r) && failed.iter().any(|f| name(f) == name(r) && !name(r).is_empty()))
    })
}

/// Whether the success at `current` is near enough to the error at `at`:
/// within HORIZON steps of it, or of the last failure of the same
/// operation between them, each failure of that chain within HORIZON of
/// the one before.
fn within_horizon(stream: &[Step], at: usize, current: usize) -> bool {
    let error = &stream[at];
    // (distance in steps that did something: looking around does not take
    // the agent further from the error, up to LOOKS_HORIZON steps in all;
    // but a look that failed is answered by a look soon after, so for one
    // every step counts)
    let failed_a_look = error.is_look();
    let (mut acting, mut all) = (0, 0);
    for step in &stream[at + 1..current] {
        if step.is_error && same_operation_failed_again(error, step) {
            if acting + 1 > HORIZON || all + 1 > LOOKS_HORIZON {
                return false;
            }
            (acting, all) = (0, 0);
        } else {
            all += 1;
            if failed_a_look || !step.only_looks() {
                acting += 1;
            }
        }
    }
    acting < HORIZON && all < LOOKS_HORIZON
}

/// Whether `later`, a failure, is the same operation as `error` failing
/// again (a chain): the same tool on the same command subject or file.
fn same_operation_failed_again(error: &Step, later: &Step) -> bool {
    error.tool() == later.tool()
        && match error.tool() {
            "Bash" => error.subject.is_some() && error.subject == later.subject,
            _ => error.file.is_some() && error.file == later.file || error.target.is_some() && error.target == later.target,
        }
}

/// What the last step of `stream` (oldest first), a success, resolves
/// among the errors for which `unlearned` holds. `output`: what the
/// success printed, when known (a shell command's).
#[cfg(test)]
pub fn resolutions(stream: &[Step], output: Option<&str>, unlearned: impl Fn(&Step) -> bool) -> Vec<Resolution> {
    resolutions_with(stream, output, unlearned, |_| Vec::new())
}

/// `resolutions`, with the steps of each agent an Agent (Task) call in
/// between started (`subagent_steps(id)`, oldest first): a fix a subagent
/// made is its own steps, not "Agent".
pub fn resolutions_with(
    stream: &[Step],
    output: Option<&str>,
    unlearned: impl Fn(&Step) -> bool,
    subagent_steps: impl Fn(&str) -> Vec<Step>,
) -> Vec<Resolution> {
    let Some(current) = stream.len().checked_sub(1) else {
        return Vec::new();
    };
    let success = &stream[current];
    if success.is_error {
        return Vec::new();
    }
    let project = success.project.as_deref();
    let mut found = Vec::new();
    let mut delegated: std::collections::HashMap<String, Vec<Step>> = std::collections::HashMap::new();
    let proven_once = std::cell::OnceCell::new();
    let proven = || proven_once.get_or_init(|| proven_by(success, output)).as_slice();
    for (at, error) in stream[..current].iter().enumerate() {
        if !error.is_error || error.unidentified || error.error.as_deref().is_none_or(str::is_empty) {
            continue;
        }
        // (the horizon first: it is cheap, and most errors of a window
        // are past it)
        if !within_horizon(stream, at, current) {
            continue;
        }
        let Some(relation) = relation(error, success, &stream[..at], &stream[at + 1..current], &proven, output) else {
            continue;
        };
        // the retry printed the same error again: its exit status hid it
        if relation == Relation::SameOperation && output.is_some_and(|o| shows_error(o, error)) {
            continue;
        }
        // the steps of the fix: the successes after the error that changed
        // something, the last ones when there are many
        let between = &stream[at + 1..current];
        // a success on a work tree whose changes were set aside shows how
        // the code was before them, not that the error is fixed (unless the
        // error was git's own, about those changes)
        if relation == Relation::SameOperation && !is_git(error) && runs_stashed(between, success) {
            continue;
        }
        // a look at something that was not there yet, looked at again once
        // it was made: the look found out, and the making is the work it
        // looked ahead to, not a fix of an error
        // (a look retried elsewhere, another path, found what it looked
        // for where it is: that is a correction, `git -C ~/src/app` for
        // `git -C ~/Projects/app`)
        if relation == Relation::SameOperation && looked_for_what_was_not_there(error) && !looks_elsewhere(error, success)
        {
            continue;
        }
        if !unlearned(error) {
            continue;
        }
        // a subagent's steps stand where its Agent call was (read once
        // per success; a resumed agent's steps once, at its first call)
        for id in between.iter().filter_map(|s| s.subagent.as_deref()) {
            if !delegated.contains_key(id) {
                delegated.insert(id.to_owned(), subagent_steps(id));
            }
        }
        // (the file inline code moved into is the fix, scratch or not)
        let wrote_code = |s: &Step| matches!(&relation, Relation::CodeInAFile(script) if wrote_script(s, script));
        let mut started = std::collections::HashSet::new();
        let changing: Vec<&Step> = between
            .iter()
            .flat_map(|s| match s.subagent.as_deref() {
                Some(id) if started.insert(id) => delegated[id].iter().collect::<Vec<_>>(),
                Some(_) => Vec::new(),
                None => vec![s],
            })
            .filter(|s| {
                (s.changes_something() || wrote_code(s))
                    && !reruns(error, s)
                    && !stashes_and_restores(s)
                    // (a non-git error's fix is never a stash: see runs_stashed)
                    && (is_git(error) || !moves_stash(s))
                    // work done in a folder apart from the failed one's is
                    // another's (see `relation`)
                    && !in_folder_apart(error, s)
            })
            .collect();
        // a run made to go on past the failure (`continue-on-error: true`
        // put on the failing CI step) hides the error, whatever it printed
        if changing.iter().any(|s| makes_failure_ignored(s)) {
            continue;
        }
        let commands: Vec<&Step> = changing.iter().copied().filter(|s| s.tool() == "Bash").collect();
        let edits: Vec<&Step> = changing
            .iter()
            .copied()
            .filter(|s| s.tool() != "Bash" && s.edit.is_some())
            .collect();
        let writes: Vec<&Step> = changing
            .iter()
            .copied()
            .filter(|s| s.tool() != "Bash" && s.edit.is_none() && s.file.is_some())
            .collect();
        let (commands, edits, writes) = (
            last(commands, MAX_COMMANDS),
            last(edits, MAX_EDITS),
            last(writes, MAX_WRITES),
        );
        let changed = if relation == Relation::SameOperation {
            retry_changes(error, success)
        } else {
            Vec::new()
        };
        // a fix of this code's own logic (a test's expectation met, a
        // conflict resolved) by edits alone tells another agent nothing
        // (git's own steps: `git add`, and the `--continue` its message asks for)
        let own = match own_logic(error) {
            Some(OwnLogic::Expectation) => commands.is_empty() && changed.is_empty(),
            Some(OwnLogic::Conflict) => {
                commands.iter().all(|c| c.command().is_some_and(|c| c.program == "git"))
                    // (`git add . && git rebase --continue`: git's own step in front)
                    && changed
                        .iter()
                        .all(|c| c == "--continue" || command::analyse(c).is_some_and(|c| c.program == "git"))
            }
            None => false,
        };
        let weak = relation == Relation::SameOperation && (changing.is_empty() && changed.is_empty() || own);
        let tools: Vec<&str> = between
            .iter()
            .chain(std::iter::once(success))
            .take(MAX_TOOLS)
            .map(Step::tool)
            .collect();
        let file = between
            .iter()
            .chain(std::iter::once(success))
            .rev()
            .find_map(|s| s.file.as_deref())
            .map(|f| relative(f, project).to_owned());
        let command_lines: Vec<String> = commands
            .iter()
            .filter_map(|s| s.line.as_deref())
            .map(|l| relative_in(l, project))
            .collect();
        let edit_list: Vec<Json> = edits
            .iter()
            .map(|s| {
                let side = |key: &str| s.edit.as_ref().and_then(|e| e.get(key)).cloned().unwrap_or(Json::Null);
                json!({"file": s.file.as_deref().map(|f| relative(f, project)), "before": side("before"), "after": side("after")})
            })
            .collect();
        let write_list: Vec<&str> = writes
            .iter()
            .filter_map(|s| s.file.as_deref())
            .map(|f| relative(f, project))
            .collect();
        let steps: Vec<i64> = commands
            .iter()
            .chain(&edits)
            .chain(&writes)
            .map(|s| s.event_id)
            .collect();
        found.push(Resolution {
            event_id: error.event_id,
            error: error.error.clone(),
            error_raw: error.error_raw.clone(),
            signature: error.signature.clone(),
            headline: error.headline.as_deref().map(|h| relative_in(h, project)),
            kind: match relation {
                Relation::SameOperation => "success_after_error",
                Relation::Substitute | Relation::CodeInAFile(_) => "cross_tool_resolution",
            },
            tool_sequence: json!(tools).to_string(),
            file,
            commands: json!(command_lines).to_string(),
            edits: Json::Array(edit_list).to_string(),
            writes: json!(write_list).to_string(),
            changed: json!(changed).to_string(),
            weak,
            success_event_id: success.event_id,
            steps: json!(steps).to_string(),
        });
    }
    found
}

/// What a CI job's or a linter's configuration says to make a failure not
/// fail the run: GitHub Actions', GitLab CI's, Azure Pipelines' and
/// Ansible's keys, and the linters' `--exit-zero` (ruff, flake8, pylint).
/// A shell's `|| true` is left out: in a script it is as often what a
/// cleanup step that may find nothing to remove should say.
const FAILURE_IGNORED: &[&str] = &[
    "continue-on-error: true",
    "allow_failure: true",
    "continueOnError: true",
    "ignore_errors: true",
    "ignore_errors: yes",
    "--exit-zero",
];

/// Whether edit `s` puts in a setting that makes a failure not fail the
/// run (see FAILURE_IGNORED).
fn makes_failure_ignored(s: &Step) -> bool {
    let Some(edit) = &s.edit else { return false };
    let side = |key: &str| edit.get(key).and_then(Json::as_str).unwrap_or("");
    let (before, after) = (side("before"), side("after"));
    FAILURE_IGNORED.iter().any(|d| after.contains(d) && !before.contains(d))
}

/// Steps already read from their events, by event id, in this thread: a
/// success's window is most of the one before it (`errkb learn` asks for
/// thousands in a row). A step is a function of its event's id, type, data
/// and project, and each is kept with the data it was read from: it is
/// used again only for the same (whatever the database). Its copies share
/// its analyses. Emptied when it grows past STEPS_KEPT.
const STEPS_KEPT: usize = (SCANNED + WINDOW) as usize;
thread_local! {
    static STEPS: RefCell<std::collections::HashMap<i64, (String, Step)>> = RefCell::default();
}

/// The step of event `id` (see STEPS), from its data's bytes as stored
/// (compared as they are with what was read before: a window is read for
/// every success, and most of its steps are known).
fn step_of(id: i64, is_error: bool, data: &[u8], project: Option<&str>) -> Step {
    STEPS.with(|steps| {
        let mut steps = steps.borrow_mut();
        if let Some((read, step)) = steps.get(&id) {
            if read.as_bytes() == data && step.is_error == is_error && step.project.as_deref() == project {
                return step.clone();
            }
        }
        if steps.len() >= STEPS_KEPT {
            steps.clear();
        }
        let data = String::from_utf8_lossy(data);
        let step = Step::from_event(id, is_error, &data, project.map(str::to_owned));
        steps.insert(id, (data.into_owned(), step.clone()));
        step
    })
}

/// The session's latest steps read for an agent's window, at most: its
/// window is looked for among them (the agent is in each event's data,
/// read here from the steps kept, not by SQLite from each event's JSON).
const SCANNED: i64 = 10 * WINDOW;
const WINDOW_SQL: &str = "SELECT id, type = 'tool_error', data, project_path FROM main.events \
     WHERE session_id = ?1 AND type IN ('tool_use', 'tool_error') \
     ORDER BY ts DESC, id DESC LIMIT ?2";

/// The agent's window of the session, oldest first: its last WINDOW
/// steps among the session's last SCANNED, ending with `success` when it
/// is given (the hook's own step: another hook of the same session, a
/// call made together with this one, may have stored its step since).
fn read_window(
    db: Connection,
    statements: &mut StatementCache,
    session_id: &str,
    agent_id: Option<&str>,
    success: Option<i64>,
) -> std::result::Result<Vec<Step>, String> {
    statements.with(db, WINDOW_SQL, |events| {
        events.bind_text(1, session_id)?;
        events.bind_int64(2, SCANNED)?;
        let agent_id = agent_id.filter(|a| !a.is_empty());
        let mut stream = Vec::new();
        // (the steps stored after the success come first: passed over;
        // a success not among them gives no window)
        let mut reached = success.is_none();
        while stream.len() < WINDOW as usize && events.step()? {
            let (Value::Integer(id), Value::Integer(is_error)) = (events.column(0), events.column(1)) else {
                continue;
            };
            reached = reached || Some(id) == success;
            if !reached {
                continue;
            }
            let project = events.column(3);
            let data = events.column_text_bytes(2).unwrap_or(b"{}");
            let step = step_of(id, is_error != 0, data, project.as_text());
            if step.agent.as_deref() == agent_id {
                stream.push(step);
            }
        }
        stream.reverse();
        Ok(stream)
    })
}

const SUBAGENT_SQL: &str = "SELECT id, data, project_path FROM main.events \
     WHERE session_id = ?1 AND type = 'tool_use' AND data ->> '$.agentId' = ?2 \
     ORDER BY ts DESC, id DESC LIMIT ?3";

/// The successful steps of the subagent `agent` of the session, oldest
/// first (at most a window's worth: the last ones).
fn read_subagent(
    db: Connection,
    statements: &mut StatementCache,
    session_id: &str,
    agent: &str,
) -> std::result::Result<Vec<Step>, String> {
    statements.with(db, SUBAGENT_SQL, |events| {
        events.bind_text(1, session_id)?;
        events.bind_text(2, agent)?;
        events.bind_int64(3, WINDOW)?;
        let mut steps = Vec::new();
        while events.step()? {
            let Value::Integer(id) = events.column(0) else { continue };
            let project = events.column(2);
            let data = events.column_text_bytes(1).unwrap_or(b"{}");
            steps.push(step_of(id, false, data, project.as_text()));
        }
        steps.reverse();
        Ok(steps)
    })
}

/// Whether error event `event_id` is learned already (in
/// `learned_errors`); a failed lookup counts as learned, so that nothing
/// is learned twice.
fn is_learned(db: Connection, statements: &mut StatementCache, event_id: i64) -> bool {
    statements
        .with(db, "SELECT 1 FROM main.learned_errors WHERE event_id = ?1", |stmt| {
            stmt.bind_int64(1, event_id)?;
            stmt.step()
        })
        .unwrap_or(true)
}

/// Whether the session has an error not learned yet (any agent's; found
/// by the index of a session's errors, the newest first: an error not
/// learned yet is most often the last one, and a long session has learned
/// many before it).
fn has_unlearned_error(
    db: Connection,
    statements: &mut StatementCache,
    session_id: &str,
) -> std::result::Result<bool, String> {
    statements.with(
        db,
        "SELECT 1 FROM main.events AS e WHERE e.session_id = ?1 AND e.type = 'tool_error' \
         AND NOT EXISTS (SELECT 1 FROM main.learned_errors AS l WHERE l.event_id = e.id) ORDER BY e.ts DESC LIMIT 1",
        |stmt| {
            stmt.bind_text(1, session_id)?;
            stmt.step()
        },
    )
}

fn find(
    db: Connection,
    statements: &mut StatementCache,
    session_id: &str,
    agent_id: Option<&str>,
    output: Option<&str>,
    success: Option<i64>,
) -> std::result::Result<Vec<Resolution>, String> {
    // (a session with no error left to learn, as most are, has nothing to
    // resolve: its window is not read)
    if !has_unlearned_error(db, statements, session_id)? {
        return Ok(Vec::new());
    }
    let stream = read_window(db, statements, session_id, agent_id, success)?;
    // asked only of the errors this success resolves: most resolve none
    let statements = RefCell::new(statements);
    Ok(resolutions_with(
        &stream,
        output,
        |e| !is_learned(db, &mut statements.borrow_mut(), e.event_id),
        |subagent| read_subagent(db, &mut statements.borrow_mut(), session_id, subagent).unwrap_or_default(),
    ))
}

// ---- the table-valued function -------------------------------------------

pub struct KbResolves;

impl TableFunction for KbResolves {
    const NAME: &'static str = "kb_resolves";
    const SCHEMA: &'static str = "CREATE TABLE x(event_id, error, error_raw, signature, headline, kind, \
         tool_sequence, file, commands, edits, writes, changed, weak, success_event_id, steps, \
         session_id HIDDEN, agent_id HIDDEN, output HIDDEN, success HIDDEN)";
    const COLUMNS: c_int = 15;
    /// The session's id, the agent's (left out: the main thread), what
    /// the success printed (left out: not known), and the success's event
    /// (left out: the agent's latest step).
    const ARGUMENTS: c_int = 4;
    const REQUIRED: c_int = 1;
    const NEVER_RAISES: bool = true;

    fn rows(
        db: Connection,
        statements: &mut StatementCache,
        arguments: &[Option<&[u8]>],
    ) -> std::result::Result<Vec<Vec<Value>>, String> {
        let Some(session_id) = arguments[0] else {
            return Ok(Vec::new());
        };
        let session_id = String::from_utf8_lossy(session_id);
        let agent_id = arguments[1].map(String::from_utf8_lossy);
        let output = arguments.get(2).copied().flatten().map(String::from_utf8_lossy);
        // (a success given that is no event id names no step: no window)
        let success = arguments.get(3).copied().flatten().map(|id| std::str::from_utf8(id).ok()?.parse::<i64>().ok());
        let success = match success {
            Some(None) => return Ok(Vec::new()),
            given => given.flatten(),
        };
        Ok(find(db, statements, &session_id, agent_id.as_deref(), output.as_deref(), success)?
            .into_iter()
            .map(|r| {
                vec![
                    Value::Integer(r.event_id),
                    text(r.error.as_deref()),
                    text(r.error_raw.as_deref()),
                    text(r.signature.as_deref()),
                    text(r.headline.as_deref()),
                    Value::Text(r.kind.to_owned()),
                    Value::Text(r.tool_sequence),
                    text(r.file.as_deref()),
                    Value::Text(r.commands),
                    Value::Text(r.edits),
                    Value::Text(r.writes),
                    Value::Text(r.changed),
                    Value::Integer(r.weak.into()),
                    Value::Integer(r.success_event_id),
                    Value::Text(r.steps),
                ]
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(id: i64, tool: &str, line_or_file: &str, raw: &str) -> Step {
        let mut s = Step::from(StepData {
            event_id: id,
            is_error: true,
            tool: Some(tool.into()),
            error: Some(format!("error {id}")),
            error_raw: Some(raw.into()),
            project: Some("/w".into()),
            ..StepData::default()
        });
        if tool == "Bash" {
            s.subject = command::command_subject(line_or_file);
            s.line = Some(line_or_file.into());
        } else {
            s.file = Some(line_or_file.into());
        }
        s
    }

    #[test]
    fn work_the_retry_did_in_front_of_itself_is_its_change() {
        let identity = "Author identity unknown\n\n*** Please tell me who you are.";
        let found = resolutions(&[
                error(1, "Bash", "git commit -m x", identity),
                bash(2, "git config user.name me; git config user.email me@example.com; git commit -m x"),
            ], None, |_| true,
        );
        assert_eq!(found.len(), 1);
        assert!(!found[0].weak, "{found:?}");
        assert_eq!(found[0].changed, r#"["git config user.name me","git config user.email me@example.com"]"#);
        // but not what the failed line did too, nor a look or chatter
        let found = resolutions(&[
                error(1, "Bash", "cd /w && npm install && node app.js", "Error: Cannot find module 'x'"),
                bash(2, "cd /w && npm install && git status && echo go && node app.js"),
            ], None, |_| true,
        );
        assert_eq!(found.len(), 1);
        assert!(found[0].weak, "{found:?}");
        // the environment it set up is
        let found = resolutions(&[
                error(1, "Bash", "pytest tests", "ModuleNotFoundError: No module named 'app'"),
                bash(2, "source .venv/bin/activate && pytest tests"),
            ], None, |_| true,
        );
        assert_eq!(found[0].changed, r#"["source .venv/bin/activate"]"#);
    }

    /// How a step was read before `from_event` read only its fields: from
    /// the JSON tree of the whole data (the reference its reading keeps to).
    fn read_as_tree(event_id: i64, is_error: bool, data: &str, project: Option<String>) -> Step {
        let data: Json = serde_json::from_str(data).unwrap_or(Json::Null);
        let text = |path: &[&str]| -> Option<String> {
            let mut v = &data;
            for key in path {
                v = v.get(key)?;
            }
            match v {
                Json::Null => None,
                Json::String(s) => Some(s.clone()),
                other => Some(other.to_string()),
            }
        };
        let flag = |path: &[&str]| text(path).is_some_and(|v| v == "true" || v == "1");
        Step::from(StepData {
            event_id,
            is_error,
            tool: text(&["tool"]),
            error: text(&["error"]),
            error_raw: text(&["errorRaw"]),
            signature: text(&["signature"]),
            headline: text(&["headline"]),
            subject: text(&["meta", "subject"]).or_else(|| text(&["subject"])),
            line: text(&["meta", "line"]).or_else(|| text(&["line"])),
            file: text(&["meta", "file"]).or_else(|| text(&["file"])),
            target: text(&["meta", "pattern"])
                .or_else(|| text(&["meta", "target"]))
                .or_else(|| text(&["target"])),
            sandbox_off: flag(&["meta", "sandboxOff"]) || flag(&["sandboxOff"]),
            background: flag(&["meta", "background"]) || flag(&["background"]),
            timeout: text(&["meta", "timeout"])
                .or_else(|| text(&["timeout"]))
                .and_then(|t| t.parse().ok()),
            codex: text(&["agent"]).is_some_and(|a| a == "codex"),
            unidentified: text(&["identified"]).is_some_and(|v| v == "false" || v == "0"),
            edit: data
                .get("meta")
                .and_then(|m| m.get("edit"))
                .filter(|e| !e.is_null())
                .cloned(),
            subagent: text(&["meta", "subagent"]),
            read_nothing: flag(&["meta", "readNothing"]),
            agent: text(&["agentId"]).filter(|a| !a.is_empty()),
            project,
            analyses: Default::default(),
        })
    }

    #[test]
    fn a_step_reads_the_same_from_its_fields_as_from_the_whole_tree() {
        let events = [
            r#"{"tool":"Bash","meta":{"command":"git","subject":"git push","line":"git push \"x\"\n","sandboxOff":true,"timeout":120000},"success":true,"agentId":"a1"}"#,
            r#"{"tool":"Bash","error":"k","errorRaw":"Exit code 1\nfatal: \u00e9","signature":"s","headline":"h","subject":"npm test","line":"npm test","identified":false,"timeout":"5"}"#,
            r#"{"tool":"Edit","meta":{"file":"/w/a.rs","edit":{"before":"a","after":"b"}},"agentId":""}"#,
            r#"{"tool":"Glob","meta":{"pattern":"src/**/*.rs"},"background":1}"#,
            r#"{"tool":"Agent","meta":{"agentType":"x","subagent":"ab12","edit":null}}"#,
            r#"{"tool":"Read","meta":"not an object","target":"offset 1, limit 2"}"#,
            r#"{"tool":"Read","meta":{"file":"/w/a.log","target":"offset 9, limit 1","readNothing":true}}"#,
            r#"{"tool":"Bash","tool":"Read","meta":{"file":"/a","file":"/b"}}"#,
            r#"{"tool":"Bash","meta":{"line":"x","line":"y"}}"#,
            r#"{"tool":12.50,"error":["a",{"b":1}],"meta":{"timeout":1e3}}"#,
            r#"{"tool":"Bash","errorRaw":"bad \ud800 escape","error":"k"}"#,
            r#"{"tool":"Bash","meta":{"subject":"a","command":"\uDC00"},"subject":"\ud800"}"#,
            r#"{"tool":"Bash","errorRaw":"a pair \ud83d\ude00 and \u00e9","error":"k"}"#,
            r#"not json"#,
            r#"[1,2]"#,
            r#"null"#,
        ];
        for data in events {
            let a = Step::from_event(1, true, data, Some("/w".into()));
            let b = read_as_tree(1, true, data, Some("/w".into()));
            assert_eq!(format!("{a:?}"), format!("{b:?}"), "{data}");
        }
    }

    fn bash(id: i64, line: &str) -> Step {
        Step::from(StepData {
            event_id: id,
            tool: Some("Bash".into()),
            subject: command::command_subject(line),
            line: Some(line.into()),
            project: Some("/w".into()),
            ..StepData::default()
        })
    }

    fn tool(id: i64, tool: &str, file: &str) -> Step {
        Step::from(StepData {
            event_id: id,
            tool: Some(tool.into()),
            file: Some(file.into()),
            project: Some("/w".into()),
            ..StepData::default()
        })
    }

    fn edit(id: i64, file: &str, before: &str, after: &str) -> Step {
        let mut s = tool(id, "Edit", file);
        s.edit = Some(json!({"before": before, "after": after}));
        s
    }

    #[test]
    fn a_retry_resolves_its_error_with_what_changed_in_between() {
        let stream = [
            error(
                1,
                "Bash",
                "python3 app.py",
                "ModuleNotFoundError: No module named 'yaml'",
            ),
            bash(2, "ls"),
            tool(3, "Read", "/w/app.py"),
            bash(4, "pip install pyyaml"),
            edit(5, "/w/app.py", "import yml", "import yaml"),
            bash(6, "cd /w && python3 app.py"),
        ];
        let found = resolutions(&stream, None, |_| true);
        assert_eq!(found.len(), 1);
        let r = &found[0];
        assert_eq!((r.event_id, r.kind, r.success_event_id), (1, "success_after_error", 6));
        assert_eq!(r.commands, r#"["pip install pyyaml"]"#);
        assert_eq!(
            r.edits,
            r#"[{"file":"app.py","before":"import yml","after":"import yaml"}]"#
        );
        assert_eq!(r.file.as_deref(), Some("app.py"));
        assert_eq!(r.steps, "[4,5]");
        assert!(!r.weak);
    }

    #[test]
    fn a_project_in_a_temporary_folder_is_no_scratch_work() {
        let in_tmp = |mut s: Step| {
            s.project = Some("/tmp/t1/project".into());
            s
        };
        let stream = [
            in_tmp(error(1, "Bash", "python3 report.py", "TypeError: can only concatenate str (not \"int\") to str")),
            in_tmp(edit(2, "/tmp/t1/project/report.py", "'total: ' + total", "'total: ' + str(total)")),
            in_tmp(tool(3, "Write", "/tmp/probe.py")),
            in_tmp(bash(4, "python3 report.py")),
        ];
        let found = resolutions(&stream, None, |_| true);
        assert_eq!(found.len(), 1);
        assert_eq!(
            found[0].edits,
            r#"[{"file":"report.py","before":"'total: ' + total","after":"'total: ' + str(total)"}]"#
        );
        // a file in a temporary folder outside the project is still scratch
        assert_eq!(found[0].writes, "[]");
        assert!(!found[0].weak);
    }

    #[test]
    fn unrelated_successes_resolve_nothing() {
        let stream = [error(1, "Bash", "python3 app.py", "x"), bash(2, "ls")];
        assert!(resolutions(&stream, None, |_| true).is_empty());
        // every ls is not a retry of every other ls
        let stream = [
            error(1, "Bash", "ls .claude/commands/", "ls: No such file"),
            bash(2, "ls -la .claude/settings.json"),
        ];
        assert!(resolutions(&stream, None, |_| true).is_empty());
        // another test file is not a retry
        let stream = [
            error(1, "Bash", "pytest tests/a.py", "failed"),
            bash(2, "pytest tests/b.py"),
        ];
        assert!(resolutions(&stream, None, |_| true).is_empty());
        // nor a learned error, nor one without a key
        let stream = [error(1, "Bash", "make", "x"), bash(2, "make")];
        assert!(resolutions(&stream, None, |_| false).is_empty());
        let mut keyless = error(1, "Bash", "make", "x");
        keyless.error = Some(String::new());
        assert!(resolutions(&[keyless, bash(2, "make")], None, |_| true).is_empty());
    }

    #[test]
    fn a_success_that_prints_the_error_again_fixed_nothing() {
        let mut failed = error(1, "Bash", "flutter analyze", "error • Undefined name 'x' • lib/a.dart:3:5");
        failed.headline = Some("error • Undefined name 'x' • lib/a.dart:3:5".into());
        failed.signature = Some("error • Undefined name <STR> • <PATH>".into());
        // (a command whose exit status a `|| echo` hides proves nothing
        // anyway; a script that exits 0 whatever it found shows it only in
        // what it prints)
        let stream = [failed, edit(2, "/w/lib/b.dart", "a", "b"), bash(3, "flutter analyze")];
        let masked = "Analyzing...\nerror • Undefined name 'x' • lib/a.dart:3:5\n1 issue found.";
        assert!(resolutions(&stream, Some(masked), |_| true).is_empty());
        let passed = "Analyzing...\nNo issues found!";
        assert_eq!(resolutions(&stream, Some(passed), |_| true).len(), 1);
    }

    #[test]
    fn a_filters_own_error_is_resolved_by_the_same_pipeline_with_the_filter_mended() {
        let failed = |id, line: &str, raw: &str| {
            let mut e = error(id, "Bash", line, raw);
            e.headline = raw.lines().find(|l| l.contains(": ")).map(str::to_owned);
            e
        };
        let tests = "cd src && go test ./... -v 2>&1";
        let pattern = failed(1, &format!("{tests} | grep -c \"--- PASS\""), "Exit code 2\ngrep: unrecognized option `--- PASS'");
        // the same pipeline, its grep mended: the line's status is grep's
        let found = resolutions(&[pattern.clone(), bash(2, &format!("{tests} | grep -c 'PASS:'"))], Some("1000"), |_| true);
        assert_eq!(found.len(), 1);
        assert!(!found[0].weak);
        assert_eq!(found[0].changed, json!(["grep -c PASS:"]).to_string());
        // another program in the filter's place, its output shown by a viewer
        let option = failed(1, "sed -n '3,4p' a.tsx | cat -A", "Exit code 1\ncat: illegal option -- A\nusage: cat [-belnstuv]");
        let shown = "0000000  \\t  x\n";
        let found = resolutions(&[option.clone(), bash(2, "sed -n '3,4p' a.tsx | od -c | head -40")], Some(shown), |_| true);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].changed, json!(["od -c instead of cat -A"]).to_string());
        // ... but not when what the viewer showed is an error, nor when
        // nothing was shown
        let broken = "od: illegal option -- c\nusage: od [-aBbcDdeFfHhIiLlOosvXx]";
        assert!(resolutions(&[option.clone(), bash(2, "sed -n '3,4p' a.tsx | od -c | head -40")], Some(broken), |_| true).is_empty());
        assert!(resolutions(&[option.clone(), bash(2, "sed -n '3,4p' a.tsx | od -c | head -40")], None, |_| true).is_empty());
        // another pipeline feeding the filter is another operation
        assert!(resolutions(&[pattern.clone(), bash(2, "cd src && go test ./pkg/... 2>&1 | grep -c PASS:")], Some("3"), |_| true).is_empty());
        // a fallback could have hidden the filter's failure
        assert!(resolutions(&[pattern.clone(), bash(2, &format!("{tests} | grep -c PASS: || true"))], Some("0"), |_| true).is_empty());
        // of two filters of that program, the error does not say which
        // failed (a retry that changed the first is no answer), nor when
        // the program also ran first (`grep -rn x src | grep -v test`)
        let two = failed(1, &format!("{tests} | grep -v skip | grep -c \"--- PASS\""), "Exit code 2\ngrep: unrecognized option `--- PASS'");
        assert!(resolutions(&[two, bash(2, &format!("{tests} | grep -v skipped"))], Some("ok  \tpkg\t0.1s"), |_| true).is_empty());
        let first = failed(1, "grep -rn 'foo(' src | grep -v test", "Exit code 2\ngrep: parentheses not balanced");
        assert!(resolutions(&[first, bash(2, "grep -rn 'foo(' src | wc -l")], Some("0"), |_| true).is_empty());
        // a command after the filter that is not a viewer hides its status
        assert!(resolutions(&[pattern.clone(), bash(2, &format!("{tests} | grep PASS: | wc -l"))], Some("12"), |_| true).is_empty());
        // a viewer in the filter's place gives the filter up, it does not
        // mend it: what fed it ran again, with nothing changed (weak)
        let viewed = resolutions(&[pattern.clone(), bash(2, &format!("{tests} | tail -5"))], Some("ok  \tpkg\t0.1s"), |_| true);
        assert!(viewed.iter().all(|r| r.weak && r.changed == "[]"));
        // nor does a line run in the background, or one whose status `!` turns
        assert!(resolutions(&[pattern.clone(), bash(2, &format!("{tests} | grep -c PASS: &"))], Some("[1] 4242"), |_| true).is_empty());
        assert!(resolutions(&[pattern.clone(), bash(2, &format!("! {tests} | grep -c PASS:"))], Some("0"), |_| true).is_empty());
        // the first success of what fed the filter answers; a later one of
        // another filter looks for something else
        let node = failed(1, "ps aux | grep -E 'node('", "Exit code 2\ngrep: parentheses not balanced");
        let stream = [node.clone(), bash(2, "ps aux | grep -E 'node\\('"), bash(3, "ps aux | grep python")];
        assert!(resolutions(&stream, Some("u 1 python app.py"), |_| true).is_empty());
        assert_eq!(resolutions(&stream[..2], Some("u 2 node app.js"), |_| true).len(), 1);
        // an error of the command feeding it is not the filter's
        let feeding = failed(1, &format!("{tests} | grep -c PASS"), "Exit code 1\ngo: cannot find main module");
        assert!(resolutions(&[feeding, bash(2, &format!("{tests} | grep -c PASS:"))], Some("0"), |_| true).is_empty());
    }

    #[test]
    fn the_same_command_with_nothing_changed_is_weak() {
        let stream = [
            error(1, "Bash", "npm test", "flaky"),
            bash(2, "git status"),
            bash(3, "npm test"),
        ];
        let found = resolutions(&stream, None, |_| true);
        assert_eq!(found.len(), 1);
        assert!(found[0].weak);
        // a flag added is the fix
        let stream = [
            error(1, "Bash", "npm install", "ERESOLVE"),
            bash(2, "npm install --legacy-peer-deps"),
        ];
        let found = resolutions(&stream, None, |_| true);
        assert!(!found[0].weak);
        assert_eq!(found[0].changed, r#"["--legacy-peer-deps"]"#);
        // so is the sandbox disabled
        let mut retry = bash(2, "go test ./...");
        retry.sandbox_off = true;
        let found = resolutions(&[error(1, "Bash", "go test ./...", "operation not permitted"), retry], None, |_| true,
        );
        assert_eq!(found[0].changed, r#"["dangerouslyDisableSandbox"]"#);
        // and python3 for python
        let found = resolutions(&[
                error(1, "Bash", "python app.py", "python: command not found"),
                bash(2, "python3 app.py"),
            ], None, |_| true,
        );
        assert_eq!(found[0].changed, r#"["python3 instead of python"]"#);
    }

    #[test]
    fn a_chain_resolves_each_error_with_the_steps_after_it() {
        let stream = [
            error(1, "Bash", "mise run lint:full", "a.ts: unused x"),
            edit(2, "/w/a.ts", "let x", ""),
            error(3, "Bash", "mise run lint:full", "b.ts: missing ;"),
            edit(4, "/w/b.ts", "a", "a;"),
            bash(5, "mise run lint:full"),
        ];
        let found = resolutions(&stream, None, |_| true);
        assert_eq!(found.iter().map(|r| r.event_id).collect::<Vec<_>>(), [1, 3]);
        assert_eq!(found[0].steps, "[2,4]");
        assert_eq!(found[1].steps, "[4]");
    }

    #[test]
    fn the_decisive_steps_are_kept_when_a_fix_is_cut() {
        let mut stream = vec![error(1, "Bash", "git status", "fatal: unable to read 3f9a8b2")];
        for i in 2..9 {
            stream.push(bash(i, &format!("git fsck --name-objects {i}")));
        }
        stream.push(bash(9, "git read-tree HEAD"));
        stream.push(bash(10, "git status"));
        let found = resolutions(&stream, None, |_| true);
        assert_eq!(found.len(), 1);
        assert!(
            found[0].commands.contains("git read-tree HEAD"),
            "{}",
            found[0].commands
        );
    }

    #[test]
    fn running_the_failed_command_again_is_no_step_of_its_fix() {
        let stream = [
            error(1, "Bash", "cargo test parser", "thread 'parser::t' panicked at src/parser.rs:9:5"),
            bash(2, "cargo test parser 2>&1 | tail -40"),
            edit(3, "/w/src/parser.rs", "a", "b"),
            bash(4, "cargo test parser"),
        ];
        let found = resolutions(&stream, None, |_| true);
        assert_eq!(found[0].steps, "[3]");
        // with an option added, it is one (`--fix`, `--write` …)
        let stream = [
            error(1, "Bash", "npx eslint src", "src/a.js\n  1:1  error  Missing semicolon  semi"),
            bash(2, "npx eslint src --fix"),
            bash(3, "npx eslint src"),
        ];
        assert_eq!(resolutions(&stream, None, |_| true)[0].commands, r#"["npx eslint src --fix"]"#);
    }

    #[test]
    fn a_run_told_to_go_on_past_the_failure_fixed_nothing() {
        let failed = || error(1, "Bash", "act -j test", "Error: Job 'test' failed\nerror: 3 errors reported by pyright");
        let stream = [
            failed(),
            edit(2, "/w/.github/workflows/ci.yml", "run: uv run pyright", "run: uv run pyright\ncontinue-on-error: true"),
            bash(3, "act -j test"),
        ];
        assert!(resolutions(&stream, None, |_| true).is_empty());
        // the setting was there before, the edit changes something else
        let stream = [
            failed(),
            edit(2, "/w/.github/workflows/ci.yml", "continue-on-error: true\nrun: pyright", "continue-on-error: true\nrun: pyright src"),
            bash(3, "act -j test"),
        ];
        assert_eq!(resolutions(&stream, None, |_| true)[0].steps, "[2]");
    }

    #[test]
    fn a_success_with_the_changes_set_aside_fixed_nothing() {
        let failed = || error(1, "Bash", "go test ./store", "--- FAIL: TestSave\n    store_test.go:12: got 1, want 2");
        let stream = [failed(), bash(2, "git stash"), bash(3, "go test ./store")];
        assert!(resolutions(&stream, None, |_| true).is_empty());
        let stream = [failed(), bash(2, "git stash && go test ./store")];
        assert!(resolutions(&stream, None, |_| true).is_empty());
        // stashed and brought back: a look; the edit after it is the fix
        let stream = [
            failed(),
            bash(2, "git stash && go test ./store; git stash pop"),
            edit(3, "/w/store/save.go", "n", "n + 1"),
            bash(4, "go test ./store"),
        ];
        assert_eq!(resolutions(&stream, None, |_| true)[0].steps, "[3]");
        // git's own complaint about the changes: stashing them is its fix
        let stream = [
            error(1, "Bash", "git pull", "error: Your local changes to the following files would be overwritten by merge:"),
            bash(2, "git stash"),
            bash(3, "git pull"),
        ];
        assert_eq!(resolutions(&stream, None, |_| true)[0].commands, r#"["git stash"]"#);
    }

    #[test]
    fn a_retry_in_another_folder_is_another_operation() {
        let failed = || {
            error(1, "Bash", "cd /srv/blog && git add a.md && git commit -m 'add a'",
                  "fatal: not a git repository (or any of the parent directories): .git")
        };
        let stream = [failed(), bash(2, "cd /srv/shop && git add a.md && git commit -m 'add a'")];
        assert!(resolutions(&stream, None, |_| true).is_empty());
        // a folder inside it is the same place, further in; what was done
        // in another folder meanwhile is not its fix
        let stream = [
            failed(),
            bash(2, "cd /srv/shop && npm install"),
            bash(3, "cd /srv/blog && git init"),
            bash(4, "cd /srv/blog/site && git add a.md && git commit -m 'add a'"),
        ];
        assert_eq!(resolutions(&stream, None, |_| true)[0].commands, r#"["cd /srv/blog && git init"]"#);
    }

    /// A line the agent's shell stopped for running too long names no one
    /// command: the same commands run again with more time resolve it.
    #[test]
    fn a_line_out_of_time_is_resolved_by_its_commands_given_more_time() {
        let poll = "for i in $(seq 1 40); do\n  s=$(gh pr view 7 --json statusCheckRollup --jq '.x')\n  \
                    python3 -c 'import sys; print(1)'\n  [ \"$s\" = 0 ] && break\n  sleep 30\ndone";
        let timed_out = |line: &str| error(1, "Bash", line, "Exit code 143\nCommand timed out after 2m 0s");
        let failed = || timed_out(poll);
        // reworked: another count, rewritten inline code, a guard added
        let retried = poll
            .replace("seq 1 40", "seq 1 60")
            .replace("print(1)", "print(2)")
            .replace("  [ \"$s\"", "  [ -z \"$s\" ] && continue\n  [ \"$s\"");
        let background = |line: &str| {
            let mut s = bash(2, line);
            s.background = true;
            s
        };
        let found = resolutions(&[failed(), background(&retried)], None, |_| true);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].changed, r#"["run_in_background"]"#);
        // in the foreground, with a longer timeout: its status shows it ran
        let build = "cargo build --release && cargo test";
        let mut longer = bash(2, build);
        longer.timeout = Some(600_000);
        assert_eq!(resolutions(&[timed_out(build), longer], None, |_| true)[0].changed, r#"["timeout 600000 ms"]"#);
        // the same time again, or other commands with more time: no answer
        assert!(resolutions(&[failed(), bash(2, &retried)], None, |_| true).is_empty());
        let other = background("for i in 1 2; do gh run list --limit 1; sleep 30; done");
        assert!(resolutions(&[failed(), other], None, |_| true).is_empty());
        // the same program on other arguments is another operation (a
        // server started after its tests hung)
        for (hung, started) in [("python manage.py test", "python manage.py runserver 0.0.0.0:8000"),
                                ("./mvnw test", "./mvnw spring-boot:run"),
                                ("ssh prod 'cd /srv && ./migrate.sh'", "ssh prod 'tail -f /srv/log'")] {
            assert!(resolutions(&[timed_out(hung), background(started)], None, |_| true).is_empty(), "{started}");
        }
        // nor is a look, a run that skips the checks, or one whose status
        // hides how it ended
        let look = |line: &str| {
            let mut s = bash(2, line);
            s.timeout = Some(600_000);
            s
        };
        assert!(resolutions(&[timed_out("pytest tests/"), look("pytest tests/ --collect-only -q")], None, |_| true).is_empty());
        assert!(resolutions(&[timed_out("git commit -m 'add parser'"), look("git commit --no-verify -m 'add parser'")],
                            None, |_| true).is_empty());
        assert!(resolutions(&[timed_out("npm test"), look("npm test || true")], None, |_| true).is_empty());
        // less time than the limit the message names is no more time
        let ten = error(1, "Bash", "go test ./...", "Exit code 143\nCommand timed out after 10m 0s");
        assert_eq!(time_limit_hit(&ten), Some(600_000));
        let mut shorter = bash(2, "go test ./...");
        shorter.timeout = Some(300_000);
        assert!(!more_time(&ten, &shorter, 600_000));
        shorter.timeout = Some(900_000);
        assert!(more_time(&ten, &shorter, 600_000));
        assert_eq!(time_limit_hit(&timed_out("x")), Some(120_000));
        let huge = error(1, "Bash", "x", "Exit code 143\nCommand timed out after 9223372036854775807m 0s");
        assert_eq!(time_limit_hit(&huge), None);
        // a command's own timeout is that command's error, not the shell's
        let own = error(1, "Bash", poll, "Exit code 1\nCommand timed out after 30000 milliseconds: git fetch origin");
        assert!(resolutions(&[own, background(&retried)], None, |_| true).is_empty());
        // Codex's shell: the time the line ran, after the header of a cut
        // output; run again with a longer timeout_ms
        let codex = |mut s: Step| {
            s.codex = true;
            s
        };
        let cut = "Exit code 124\nTotal output lines: 934\n\ncommand timed out after 10031 milliseconds\n   Compiling x";
        let stopped = || codex(error(1, "Bash", "cargo test --test embedded", cut));
        assert_eq!(time_limit_hit(&stopped()), Some(10_031));
        let mut again = codex(bash(2, "cargo test --test embedded"));
        again.timeout = Some(120_000);
        let found = resolutions(&[stopped(), again.clone()], None, |_| true);
        assert_eq!(found[0].changed, r#"["timeout 120000 ms"]"#);
        assert!(!found[0].weak);
        // its default again (no timeout of its own) changed nothing: a
        // plain retry, weak; and these words are Codex's shell's only
        let plain = resolutions(&[stopped(), codex(bash(2, "cargo test --test embedded"))], None, |_| true);
        assert!(plain[0].weak && plain[0].changed == "[]", "{:?}", plain[0].changed);
        let mut not_codex = stopped();
        not_codex.codex = false;
        assert_eq!(time_limit_hit(&not_codex), None);
        // nor a program's own line in other words
        let said = codex(error(1, "Bash", "cargo test", "Exit code 124\ncommand timed out after 10 s"));
        assert_eq!(time_limit_hit(&said), None);
    }

    #[test]
    fn another_message_is_no_change() {
        let failed = || error(1, "Bash", "git commit -m 'first try'", "✖ subject may not be empty [subject-empty]");
        let found = resolutions(&[failed(), bash(2, "git commit -m 'feat: second try'")], None, |_| true);
        assert!(found[0].weak, "{:?}", found[0].changed);
        let found = resolutions(&[failed(), bash(2, "git commit -m 'feat: x' --no-gpg-sign")], None, |_| true);
        assert_eq!(found[0].changed, r#"["--no-gpg-sign"]"#);
        // unless the error was about the message: the tool quoted it back
        let quoted = error(1, "Bash", "git commit -m 'feat: add the export button to the toolbar'",
                           "input: feat: add the export button to the toolbar\n✖ subject must be lower-case [subject-case]");
        let found = resolutions(&[quoted, bash(2, "git commit -m 'feat: add an export button'")], None, |_| true);
        assert!(!found[0].weak);
        let stream = [
            error(1, "Bash", "gh pr create --title t --body \"$(cat notes.md)\"", "GraphQL: Body is too long (createPullRequest)"),
            bash(2, "gh pr create --title t --body-file notes.md"),
        ];
        assert_eq!(resolutions(&stream, None, |_| true)[0].changed, r#"["--body-file","without --body"]"#);
    }

    #[test]
    fn a_fix_of_this_codes_own_logic_by_edits_alone_is_not_advised() {
        // a test's expectation met by editing the code or the test
        let mut failed = error(1, "Bash", "pytest tests/test_price.py",
                               "E       assert 10.5 == 10.0\nFAILED tests/test_price.py::test_total - assert 10.5 == 10.0");
        failed.headline = Some("AssertionError: assert 10.5 == 10.0".into());
        let stream = [failed.clone(), edit(2, "/w/price.py", "round(x, 1)", "round(x)"), bash(3, "pytest tests/test_price.py")];
        assert!(resolutions(&stream, None, |_| true)[0].weak);
        // an install in between may be more than this code's logic
        let stream = [failed, bash(2, "pip install freezegun"), bash(3, "pytest tests/test_price.py")];
        assert!(!resolutions(&stream, None, |_| true)[0].weak);
        // a conflict resolved by hand, then git's own steps (apart, or in
        // front of the retry in one line, with an assignment before it)
        let conflict = |line| {
            error(1, "Bash", line,
                  "CONFLICT (content): Merge conflict in src/cart.ts\nerror: could not apply 3f2a1b9... cart")
        };
        let resolved = || edit(2, "/w/src/cart.ts", "<<<<<<< HEAD", "");
        for stream in [
            vec![conflict("git rebase origin/main"), resolved(), bash(3, "git add src/cart.ts"),
                 bash(4, "git rebase --continue")],
            vec![conflict("git rebase --continue"), resolved(), bash(3, "git add . && git rebase --continue")],
            vec![conflict("git rebase --continue"), resolved(),
                 bash(3, "GIT_EDITOR=true git add . && git rebase --continue")],
        ] {
            let found = resolutions(&stream, None, |_| true);
            assert!(found.is_empty() || found[0].weak, "{found:?}");
        }
        // an error that is not about the code's own logic keeps its edit
        let mut missing = error(1, "Bash", "python3 app.py", "ModuleNotFoundError: No module named 'yml'");
        missing.headline = Some("ModuleNotFoundError: No module named 'yml'".into());
        let stream = [missing, edit(2, "/w/app.py", "import yml", "import yaml"), bash(3, "python3 app.py")];
        assert!(!resolutions(&stream, None, |_| true)[0].weak);
    }

    #[test]
    fn a_retry_may_leave_out_what_the_error_named_and_nothing_else() {
        let failed = || error(1, "Bash", "git add src/a.ts dist/app.js",
                              "The following paths are ignored by one of your .gitignore files:\ndist/app.js");
        let left_out = resolutions(&[failed(), bash(2, "git add src/a.ts")], None, |_| true);
        assert_eq!(left_out.len(), 1);
        // (what it left out is what changed: the fix says so, and is no flaky retry)
        assert_eq!((left_out[0].changed.as_str(), left_out[0].weak), (r#"["without dist/app.js"]"#, false));
        // or it acts on what was named only, in another way
        let forced = resolutions(&[failed(), bash(2, "git add -f dist/app.js")], None, |_| true);
        assert_eq!(forced.len(), 1);
        assert_eq!(forced[0].changed, r#"["-f"]"#);
        // git names the ignored folder, not the file in it
        let in_folder = || error(1, "Bash", "git add src/a.ts frontend/dist/output.css",
                                 "The following paths are ignored by one of your .gitignore files:\nfrontend/dist\n\
                                  hint: Use -f if you really want to add them.");
        let left_out = resolutions(&[in_folder(), bash(2, "git add src/a.ts")], None, |_| true);
        assert_eq!(left_out.len(), 1);
        assert_eq!(left_out[0].changed, r#"["without frontend/dist/output.css"]"#);
        // a word the error quotes is no folder it names
        let quoted = || error(1, "Bash", "node scripts/seed.js data/users.json data/posts.json",
                              "TypeError: Cannot read properties of undefined (reading 'data')");
        assert!(resolutions(&[quoted(), bash(2, "node scripts/seed.js data/users.json")], None, |_| true).is_empty());
        // one alone on a line of git's list is
        let listed = || error(1, "Bash", "git add src/a.ts dist/app.css",
                              "The following paths are ignored by one of your .gitignore files:\ndist\nhint: Use -f");
        assert_eq!(resolutions(&[listed(), bash(2, "git add src/a.ts")], None, |_| true).len(), 1);
        // (a folder no word of the error names whole is no such folder)
        let parent = || error(1, "Bash", "git add src/a.ts frontend/dist/output.css",
                              "The following paths are ignored by one of your .gitignore files:\nfrontend/distribution");
        assert!(resolutions(&[parent(), bash(2, "git add src/a.ts")], None, |_| true).is_empty());
        // a short word inside a named one is not named (`pod` in `pods "web-2"`)
        let pods = || error(1, "Bash", "kubectl delete pod web-1 web-2", "Error from server (NotFound): pods \"web-2\" not found");
        assert!(resolutions(&[pods(), bash(2, "kubectl delete pod web-2 --force")], None, |_| true).is_empty());
        // but one that puts another target in its place is another operation
        assert!(resolutions(&[failed(), bash(2, "git add src/a.ts docs/b.md")], None, |_| true).is_empty());
        let stream = [
            error(1, "Bash", "git push origin main", "remote: error: GH013: Repository rule violations found for refs/heads/main."),
            bash(2, "git push -u origin fix-readme"),
        ];
        assert!(resolutions(&stream, None, |_| true).is_empty());
        // inline code the error quoted back is named; other code is no retry of it
        let stream = [
            error(1, "Bash", "node -e 'run(/a/q); done()'", "[eval]:1\nrun(/a/q); done()\nSyntaxError: Invalid regular expression flags"),
            bash(2, "node -e 'report()'"),
        ];
        assert!(resolutions(&stream, None, |_| true).is_empty());
    }

    #[test]
    fn a_word_put_in_front_of_the_arguments_is_another_operation() {
        let failed = || error(1, "Bash", "docfx docfx.json", "TimeoutException: The operation has timed out.");
        assert!(resolutions(&[failed(), bash(2, "docfx build docfx.json")], None, |_| true).is_empty());
        // options, and arguments after the failed ones, keep the operation
        assert_eq!(resolutions(&[failed(), bash(2, "docfx docfx.json --logLevel verbose")], None, |_| true).len(), 1);
        assert_eq!(resolutions(&[failed(), bash(2, "docfx docfx.json --serve")], None, |_| true).len(), 1);
        let stream = [error(1, "Bash", "git push", "fatal: The current branch fix has no upstream branch."),
                      bash(2, "git push -u origin fix")];
        assert_eq!(resolutions(&stream, None, |_| true).len(), 1);
    }

    #[test]
    fn one_look_does_not_resolve_another() {
        let stream = [
            error(1, "Bash", "uv run pytest --collect-only -m unit", "collected 0 items / no tests ran"),
            bash(2, "uv run pytest --markers"),
        ];
        assert!(resolutions(&stream, None, |_| true).is_empty());
    }

    #[test]
    fn documented_substitutes_resolve_across_tools() {
        let mut grep = error(1, "Grep", "", "spawn /x/rg ENOENT");
        grep.file = None;
        let found = resolutions(&[grep, bash(2, "grep -rn foo src")], None, |_| true);
        assert_eq!(found[0].kind, "cross_tool_resolution");
        let found = resolutions(&[
                error(1, "Read", "/w/src", "EISDIR: illegal operation on a directory, read"),
                bash(2, "ls src/"),
            ], None, |_| true,
        );
        assert_eq!(found.len(), 1);
        // listed through a pipe whose output shows no error
        let listed = || [
            error(1, "Read", "/w/app", "EISDIR: illegal operation on a directory, read '/w/app'"),
            bash(2, "ls -la /w/app | grep -i changelog"),
        ];
        assert_eq!(resolutions(&listed(), Some("CHANGELOG.md  5.4K"), |_| true).len(), 1);
        assert!(resolutions(&listed(), Some("ls: cannot access '/w/app': No such file or directory"), |_| true)
            .is_empty());
        let found = resolutions(&[
                error(1, "Bash", "tree -L 2", "Exit code 127\nbash: tree: command not found"),
                bash(2, "find . -maxdepth 2"),
            ], None, |_| true,
        );
        assert_eq!(found.len(), 1);
        // but a listing of another folder is not
        let found = resolutions(&[
                error(1, "Read", "/w/src", "EISDIR: illegal operation"),
                bash(2, "ls docs/"),
            ], None, |_| true,
        );
        assert!(found.is_empty());
    }

    #[test]
    fn inline_code_the_shell_broke_is_resolved_by_running_it_from_a_file() {
        // (errors as the hooks store them: their headline and signature too)
        let failed = |line: &str, raw: &str| {
            let mut e = error(1, "Bash", line, raw);
            let sig = crate::text::signature::signature(raw);
            (e.headline, e.signature) = (Some(sig.headline), Some(sig.text));
            e
        };
        let learned = |steps: &[Step]| resolutions(steps, Some("ok"), |_| true);
        let indent = "Exit code 1\n  File \"<string>\", line 2\n    print(1)\nIndentationError: unexpected indent";
        let inline = "python3 -c \"import json\n    print(1)\"";
        // the code written to a scratch file, then run
        let write = tool(2, "Write", "/tmp/claude/scratchpad/check.py");
        let found = learned(&[failed(inline, indent), write.clone(), bash(3, "python3 \"$SP/check.py\"")]);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].kind, "cross_tool_resolution");
        assert_eq!(found[0].steps, "[2]", "the file written is the fix");
        // written in front of the run, on the same line
        let heredoc = "cat > check.py <<'EOF'\nimport json\nprint(1)\nEOF\npython3 check.py";
        assert_eq!(learned(&[failed(inline, indent), bash(2, heredoc)]).len(), 1);
        // node's inline code, its regex mangled by the shell's escaping
        let regex = "Exit code 1\n[eval]:3\nconst re = /\\x1b[/g;\n           ^\n\nSyntaxError: Invalid regular expression flags";
        assert_eq!(learned(&[failed("node -e \"const re=/\\x1b[/g\"", regex), tool(2, "Write", "/tmp/strip.js"),
                             bash(3, "node /tmp/strip.js")]).len(), 1);
        // an unquoted heredoc whose `\` the shell took: the same
        let pattern = "Exit code 1\nTraceback (most recent call last):\n  File \"<stdin>\", line 3, in <module>\n\
                       re.PatternError: missing ), unterminated subpattern at position 18";
        assert_eq!(learned(&[failed("python3 - <<PY\nimport re\nre.compile('(\\\\d')\nPY", pattern),
                             tool(2, "Write", "/tmp/claude/cmp.py"), bash(3, "python3 /tmp/claude/cmp.py")]).len(), 1);
        // not: an error the file does not change (a missing module, the
        // code's own SQL, a module that does not parse), a file there
        // before, a project's file edited or its new script, another
        // interpreter, a file of the same name elsewhere, a shell's `-e`,
        // a quoted heredoc (the shell changed nothing in it)
        let missing = "Exit code 1\nTraceback (most recent call last):\n  File \"<string>\", line 1, in <module>\n\
                       ModuleNotFoundError: No module named 'yaml'";
        let sql = "Exit code 1\nTraceback (most recent call last):\n  File \"<string>\", line 1, in <module>\n\
                   sqlite3.OperationalError: near \"SELEC\": syntax error";
        let module = "Exit code 1\nTraceback (most recent call last):\n  File \"<string>\", line 1, in <module>\n\
                      File \"/w/app/rules.py\", line 12\n    match kind:\n          ^\nSyntaxError: invalid syntax";
        for (line, raw) in [("python3 -c \"import yaml\"", missing), ("python3 -c \"import sqlite3\"", sql),
                            ("python3 -c \"from app.rules import classify\"", module)] {
            assert!(learned(&[failed(line, raw), write.clone(), bash(3, "python3 /tmp/claude/scratchpad/check.py")]).is_empty(),
                    "{raw}");
        }
        assert!(learned(&[failed(inline, indent), bash(2, "python3 check.py")]).is_empty());
        assert!(learned(&[failed(inline, indent), tool(2, "Edit", "/w/main.py"), bash(3, "python3 main.py")]).is_empty());
        assert!(learned(&[failed(inline, indent), tool(2, "Write", "/w/scripts/export.py"),
                          bash(3, "python3 scripts/export.py")]).is_empty());
        assert!(learned(&[failed(inline, indent), write.clone(), bash(3, ".venv/bin/python /tmp/claude/scratchpad/check.py")])
            .is_empty());
        assert!(learned(&[failed(inline, indent), write.clone(), bash(3, "python3 /tmp/other/check.py")]).is_empty());
        assert!(learned(&[failed(inline, indent), tool(2, "Write", "/tmp/check.js"), bash(3, "node /tmp/check.js")]).is_empty());
        let errexit = "Exit code 2\nscripts/release.sh: line 3: syntax error: unexpected end of file";
        assert!(learned(&[failed("bash -e scripts/release.sh", errexit), tool(2, "Write", "/tmp/release.sh"),
                          bash(3, "bash /tmp/release.sh")]).is_empty());
        let typo = "Exit code 1\n  File \"<stdin>\", line 2\n    print(len(rows)\n         ^\nSyntaxError: '(' was never closed";
        assert!(learned(&[failed("python3 - <<'EOF'\nrows = []\nprint(len(rows)\nEOF", typo), tool(2, "Write", "/tmp/n.py"),
                          bash(3, "python3 /tmp/n.py")]).is_empty());
    }

    #[test]
    fn a_kept_output_too_large_to_read_is_seen_by_running_its_command_into_a_filter() {
        let kept = "/h/.claude/projects/-w/0c4f/tool-results/toolu_01DG.txt";
        let too_large = "File content (50566 tokens) exceeds maximum allowed tokens (25000). Please use offset and limit";
        let stream = |rerun: &str| [
            bash(1, "cd /w/src && go test ./... -v 2>&1"),
            error(2, "Read", kept, too_large),
            bash(3, rerun),
        ];
        let found = resolutions(&stream("cd /w/src && go test ./... -v 2>&1 | tail -100"), Some("ok"), |_| true);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].kind, "cross_tool_resolution");
        // its options aside: fewer lines (no -v) is the point of the rerun
        assert_eq!(resolutions(&stream("cd /w/src && go test ./... 2>&1 | tail -50"), Some("ok"), |_| true).len(), 1);
        // another command, or the same one not filtered, is not
        assert!(resolutions(&stream("cd /w/src && go vet ./... 2>&1 | tail -100"), Some("ok"), |_| true).is_empty());
        assert!(resolutions(&stream("cd /w/src && go test ./... -v 2>&1 || true"), Some("ok"), |_| true).is_empty());
        // nor a file of the project that happens to be large
        let own = [
            bash(1, "cd /w/src && go test ./... -v 2>&1"),
            error(2, "Read", "/w/src/big.log", too_large),
            bash(3, "cd /w/src && go test ./... -v 2>&1 | tail -100"),
        ];
        assert!(resolutions(&own, Some("ok"), |_| true).is_empty());
        // a Read retried with an offset and a limit, still too large, is
        // the same look: its command is the one before the first Read
        let retried = [
            bash(1, "cd /w/src && go test ./... -v 2>&1"),
            error(2, "Read", kept, too_large),
            error(3, "Read", kept, too_large),
            error(4, "Read", kept, too_large),
            error(5, "Read", kept, too_large),
            bash(6, "cd /w/src && go test ./... 2>&1 | tail -50"),
        ];
        let found = resolutions(&retried, Some("ok"), |_| true);
        assert_eq!(found.iter().map(|r| r.event_id).collect::<Vec<_>>(), [2, 3, 4, 5], "{found:?}");
        // but not past another look between them
        let other = [
            bash(1, "cd /w/src && go test ./... -v 2>&1"),
            error(2, "Read", kept, too_large),
            tool(3, "Grep", "/w/src"),
            tool(4, "Grep", "/w/src"),
            tool(5, "Grep", "/w/src"),
            error(6, "Read", kept, too_large),
            bash(7, "cd /w/src && go test ./... 2>&1 | tail -50"),
        ];
        let found = resolutions(&other, Some("ok"), |_| true);
        assert_eq!(found.iter().map(|r| r.event_id).collect::<Vec<_>>(), [2], "{found:?}");
    }

    #[test]
    fn a_read_that_gave_nothing_resolves_nothing() {
        let too_large = "File content (118163 tokens) exceeds maximum allowed tokens (25000). Please use offset and limit";
        // a Read past the file's end gives no content: the next Read that
        // gave some is the one that read it
        let past_the_end = Step::from_event(
            2,
            false,
            r#"{"tool":"Read","meta":{"file":"/w/out.jsonl","target":"offset 4000, limit 200","readNothing":true}}"#,
            Some("/w".into()),
        );
        assert!(past_the_end.read_nothing);
        let read = tool(3, "Read", "/w/out.jsonl");
        let found = resolutions(&[error(1, "Read", "/w/out.jsonl", too_large), past_the_end.clone(), read], None, |_| true);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].success_event_id, 3);
        assert!(resolutions(&[error(1, "Read", "/w/out.jsonl", too_large), past_the_end], None, |_| true).is_empty());
    }

    #[test]
    fn a_failed_chains_command_is_the_one_its_error_names() {
        // the third command failed, as its error quotes its file: its retry with -f is the fix
        let rm = || error(1, "Bash", "git rm -q a.yml && git mv packages/msi packages/msix && git rm -q packages/msix/x.wxs && ls",
                          "error: the following file has changes staged in the index:\n    packages/msix/x.wxs\n(use --cached to keep the file, or -f to force removal)");
        let found = resolutions(&[rm(), bash(2, "git rm -qf packages/msix/x.wxs")], None, |_| true);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(!found[0].weak && found[0].changed.contains("-qf"), "{found:?}");
        // the first command failed (its program says so): the last one never ran, and running it is no fix
        let checkout = || error(1, "Bash", "git checkout release-2 && npm test",
                                "error: pathspec 'release-2' did not match any file(s) known to git");
        assert!(resolutions(&[checkout(), bash(2, "npm test")], None, |_| true).is_empty());
        // a Python traceback is the interpreter's, whatever else printed after it
        let traceback = || error(1, "Bash", "python -c 'import json' && go build -o x.exe . && rm x.exe",
                                 "  File \"<string>\", line 1\n    ||  goto :error\nIndentationError: unexpected indent\nrm: cannot remove 'x.exe': No such file or directory");
        assert!(resolutions(&[traceback(), bash(2, "go build -o x.exe . && rm x.exe")], None, |_| true).is_empty());
        // the program that starts the identifying line, not one that warned before it
        let built = |headline: &str| {
            let mut e = error(1, "Bash", "tar xzf vendor.tgz && make",
                              "tar: Ignoring unknown extended header keyword 'LIBARCHIVE.xattr'\nmake: *** No targets specified and no makefile found.  Stop.");
            e.headline = Some(headline.into());
            e.command().map(|c| c.program.clone())
        };
        assert_eq!(built("make: *** No targets specified and no makefile found.  Stop.").as_deref(), Some("make"));
        assert_eq!(built("tar: Ignoring unknown extended header keyword 'LIBARCHIVE.xattr'").as_deref(), Some("tar"));
        // of two commands of one program, the one the error names
        let cats = || error(1, "Bash", "cat notes/a.txt && cat notes/b.txt", "cat: notes/a.txt: No such file or directory");
        assert!(resolutions(&[cats(), bash(2, "cat notes/b.txt")], None, |_| true).is_empty());
        // what the earlier commands printed does not name the one that failed
        let branch = || error(1, "Bash", "git checkout main && git checkout -b feat/x",
                              "Switched to branch 'main'\nfatal: a branch named 'feat/x' already exists");
        assert_eq!(resolutions(&[branch(), bash(2, "git checkout feat/x")], None, |_| true).len(), 1);
    }

    #[test]
    fn a_test_run_that_chooses_other_tests_is_another_run() {
        let failed = || error(1, "Bash", "go test -v ./cmd -run TestHTMLOutput", "Exit code 1\n--- FAIL: TestHTMLOutput (0.00s)\n    export_html_test.go:381: HTML missing expected element");
        let resolved = |line: &str| resolutions(&[failed(), edit(2, "/w/cmd/x.go", "a", "b"), bash(3, line)], None, |_| true).len();
        // another test chosen, or some tests chosen where all failed: nothing shown
        assert_eq!(resolved("go test -v ./cmd -run TestDebug"), 0);
        // the same choice, or none (all tests), is the same run
        assert_eq!(resolved("go test -v ./cmd -run TestHTMLOutput"), 1);
        assert_eq!(resolved("go test ./cmd"), 1);
        let all = || error(1, "Bash", "pytest tests", "Exit code 1\nE   AssertionError: assert 1 == 2");
        let found = resolutions(&[all(), edit(2, "/w/app.py", "a", "b"), bash(3, "pytest tests -k test_total")], None, |_| true);
        assert!(found.is_empty(), "{found:?}");
    }

    #[test]
    fn a_test_runs_verdict_proves_a_piped_retry_whatever_its_tests_logged() {
        let stream = [
            error(1, "Bash", "rtk bun run test 2>&1", "Exit code 2\nerror: unrecognized subcommand 'bun'\n\nUsage: rtk [OPTIONS] <COMMAND>"),
            bash(2, "bun run test 2>&1 | tail -20"),
        ];
        let logged = "[Routes] Error in POST /api/evaluate\nerror: Database connection failed\n      at <anonymous> (src/api.test.ts:315:25)\n";
        let found = resolutions(&stream, Some(&format!("{logged}\n 1309 pass\n 0 fail\nRan 1309 tests across 58 files.")), |_| true);
        assert_eq!(found.len(), 1, "{found:?}");
        // the same output with a failure in its verdict, or with none, proves nothing
        assert!(resolutions(&stream, Some(&format!("{logged}\n 1308 pass\n 1 fail")), |_| true).is_empty());
        assert!(resolutions(&stream, Some(logged), |_| true).is_empty());
        // the verdict proves the test run, not what else the line ran
        let tsc = [
            error(1, "Bash", "npx tsc --noEmit", "Exit code 2\nsrc/a.ts(3,5): error TS2345: Argument of type 'string' is not assignable"),
            edit(2, "/w/src/a.ts", "f(x)", "f(String(x))"),
            bash(3, "npx tsc --noEmit 2>&1 | head -20; bun test 2>&1 | tail -5"),
        ];
        // (tsc now fails otherwise: its status hidden, its error another)
        let output = "src/b.ts(9,1): error TS2304: Cannot find name 'total'.\n 12 pass\n 0 fail";
        assert!(resolutions(&tsc, Some(output), |_| true).is_empty());
    }

    #[test]
    fn a_success_reported_in_words_is_one() {
        // `nc && echo OPEN || echo CLOSED` printing OPEN: nc ran well
        let redis = || error(1, "Bash", "redis-cli -h db -p 6380 ping 2>&1",
                             "Exit code 127\n(eval):1: command not found: redis-cli");
        let nc = "nc -z -w3 db 6380 2>&1 && echo \"REDIS PORT OPEN\" || echo \"REDIS PORT CLOSED\"";
        let found = resolutions(&[redis(), bash(2, nc)], Some("Connection succeeded!\nREDIS PORT OPEN"), |_| true);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].kind, "cross_tool_resolution");
        assert!(resolutions(&[redis(), bash(2, nc)], Some("REDIS PORT CLOSED"), |_| true).is_empty());
        // another port's check is no substitute for this one's
        let other_port = nc.replace("6380", "5432");
        assert!(resolutions(&[redis(), bash(2, &other_port)], Some("REDIS PORT OPEN"), |_| true).is_empty());
    }

    #[test]
    fn a_piped_retry_that_printed_values_is_proven() {
        // (the second line ran after the failed command, and failed for it)
        let failed = || error(1, "Bash", "omp config export data --shell pwsh --output o.json 2>&1 | head -3\nls -la o.json",
                              "Exit code 2\nError: unknown flag: --shell\nUsage:\n  omp config export data [flags]");
        let retry = || bash(2, "omp config export data --output o.json 2>&1 | head -2");
        // `name: value` lines are what the command printed, not an error
        let printed = "segments: git path session time\ntime: 10:41:00";
        assert_eq!(resolutions(&[failed(), retry()], Some(printed), |_| true).len(), 1);
        // a line that says something failed is one
        let still = "omp: unknown flag: --output";
        assert!(resolutions(&[failed(), retry()], Some(still), |_| true).is_empty());
        // and so is a program of the line signing its message, whatever its words
        let node = || error(1, "Bash", "node --experimental-strip-types app.ts", "Exit code 9\nnode: bad option: --experimental-strip-types");
        let piped = || bash(2, "node --experimental-transform-types app.ts 2>&1 | head -5");
        for said in ["node: bad option: --experimental-transform-types", "node: 옵션이 잘못되었습니다: --x"] {
            assert!(resolutions(&[node(), piped()], Some(said), |_| true).is_empty(), "{said}");
        }
        assert_eq!(resolutions(&[node(), piped()], Some("server: listening on 3000"), |_| true).len(), 1);
    }

    #[test]
    fn a_script_that_could_not_run_itself_runs_through_its_interpreter() {
        let denied = || error(1, "Bash", "./scripts/list-skills.py --all", "Exit code 126\nzsh:1: permission denied: ./scripts/list-skills.py");
        let found = resolutions(&[denied(), bash(2, "python3 scripts/list-skills.py --all")], Some("1. doc"), |_| true);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(!found[0].weak);
        assert_eq!(found[0].changed, r#"["through python3"]"#);
        // another script, or the interpreter on its own, is not the same run
        for other in ["python3 scripts/install.py --all", "python3 -c 'print(1)'", "python3 --version"] {
            assert!(resolutions(&[denied(), bash(2, other)], Some("ok"), |_| true).is_empty(), "{other}");
        }
        // a program found on PATH is no script to run through an interpreter
        let program = || error(1, "Bash", "black src", "Exit code 1\nerror: cannot format src/a.py");
        assert!(resolutions(&[program(), bash(2, "python3 black.py src")], Some("ok"), |_| true).is_empty());
        // nor is a script that ran, and failed on its own, or another file of the same name
        let ran = || error(1, "Bash", "./scripts/fetch.py", "Exit code 1\nrequests.exceptions.ConnectionError: refused");
        assert!(resolutions(&[ran(), bash(2, "python3 scripts/fetch.py")], Some("ok"), |_| true).is_empty());
        let elsewhere = bash(2, "python3 tools/list-skills.py --all");
        assert!(resolutions(&[denied(), elsewhere], Some("1. doc"), |_| true).is_empty());
    }

    #[test]
    fn a_fixing_task_that_failed_is_resolved_by_its_check_passing() {
        let failed = |raw: &str| {
            let mut e = error(1, "Bash", "bun run lint:fix 2>&1", raw);
            e.headline = Some(crate::text::signature::signature(raw).headline);
            e
        };
        let unfixable = "Exit code 1\nsrc/a.ts:3:20 lint/suspicious/noEmptyBlockStatements ━━━━\n  × Unexpected empty block.";
        let stream = |e: Step| [e, edit(2, "/w/src/a.ts", "catch {}", "catch { /* gone */ }"), bash(3, "bun run lint 2>&1")];
        let found = resolutions(&stream(failed(unfixable)), Some("Checked 12 files. No fixes applied."), |_| true);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].steps, "[2]");
        // the runner finding no such task: the fixing task found nothing
        let missing = "Exit code 1\nerror: Script not found \"lint:fix\"";
        assert!(resolutions(&stream(failed(missing)), Some("Checked 12 files."), |_| true).is_empty());
    }

    #[test]
    fn a_look_retried_where_the_thing_is_is_a_correction() {
        let raw = "Exit code 128\nfatal: cannot change to '/Users/alice/Projects/shop': No such file or directory";
        let look = || error(1, "Bash", "git -C ~/Projects/shop status", raw);
        let learned = |retry: &str| resolutions(&[look(), bash(2, retry)], Some("On branch main"), |_| true).len();
        // the same name in another place
        assert_eq!(learned("git -C ~/work/shop status"), 1);
        // another name, the same place spelt otherwise, the same place again
        for other in ["git -C ~/Projects/blog status", "git -C /Users/alice/Projects/shop status",
                      "git -C ~/Projects/shop status", "git -C ~/Projects status"] {
            assert_eq!(learned(other), 0, "{other}");
        }
    }
}
