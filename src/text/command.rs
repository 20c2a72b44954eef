//! What a shell command line does, to tell a retry of a failed command
//! from an unrelated one, and a change from a look around.
//!
//! `command_subject(line)` is the operation a line runs, at the grain that
//! identifies it: a program and what decides what it does (`git push`,
//! `cargo test`), the task or script of a runner (`npm run build`, `mise
//! run lint:full`, `make deploy`, `just test`, `python app.py`). After
//! `python3 app.py` fails, a successful `ls` is not its fix and `cd api &&
//! python app.py --port 1` is its retry. What does not change the operation
//! is peeled off: `cd DIR &&`, `VAR=x`, `sudo`, `env`, `time`, `timeout N`,
//! `nice`, `npx`/`uv run`/`bundle exec` before a tool, `-C DIR` and its
//! kind, `|| true`, what a pipe does with the output (`2>&1 | head`),
//! redirections, a trailing `\`.
//!
//! `analyse(line)` also gives the operation's positional arguments and
//! options (to compare a retry with the failure: a flag added, the same
//! targets), whether it only looks around (`ls`, `cat`, `git status` …),
//! and what it installs.
//!
//! The line is read with a small shell lexer (quotes, escapes, operators,
//! here-documents, comments); nothing is expanded. Which word of which
//! program is a subcommand, and which options take a value, comes from the
//! tables below: what agents run most.

/// A command line, analysed: its main command.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Command {
    /// The program, versions folded (`python3.11` → `python`).
    pub program: String,
    /// The operation: the program and what decides what it does.
    pub subject: String,
    /// Positional words after those of the subject (files, targets, test
    /// filters), in order.
    pub arguments: Vec<String>,
    /// Options, as written (`--force`, `-u`, `--target=x`).
    pub options: Vec<String>,
    /// Whether it only reads (lists, prints, searches, shows state).
    pub inspection: bool,
    /// The packages or programs it installs, when it is an install.
    pub installs: Vec<String>,
    /// The program word as written (`python3`, `./node_modules/.bin/jest`).
    pub invoked: String,
    /// What came before it: assignments (`CI=1`) and wrappers (`sudo`).
    pub prefix: Vec<String>,
    /// An interpreter's script, as written (`/tmp/probe.py`).
    pub script: Option<String>,
}

/// The operation of a command line, or `None` when it runs nothing.
pub fn command_subject(line: &str) -> Option<String> {
    analyse(line).map(|c| c.subject)
}

/// The commands a line's success proves succeeded (see `proven_commands`),
/// but setup and chatter (`cd`, `echo` …) unless there is nothing else.
pub fn analyse_chain(line: &str) -> Vec<Command> {
    let all: Vec<Command> = proven_commands(line).iter().filter_map(|w| read_command(w)).collect();
    let (trivial, work): (Vec<Command>, Vec<Command>) =
        all.into_iter().partition(|c| TRIVIAL.contains(&c.program.as_str()));
    if work.is_empty() {
        trivial.into_iter().last().into_iter().collect()
    } else {
        work
    }
}

/// Every command a line runs, whatever joins them (`;`, `&&`, `||`, the
/// work of each pipeline), setup and chatter included, in order.
pub fn analyse_all(line: &str) -> Vec<Command> {
    let lexed = lex(line);
    let mut out = Vec::new();
    let mut pipeline: Vec<Vec<String>> = Vec::new();
    for (words, joint) in lexed {
        pipeline.push(words);
        if joint != Joint::Pipe {
            out.extend(main_of_pipeline(std::mem::take(&mut pipeline)).and_then(|w| read_command(&w)));
        }
    }
    out.extend(main_of_pipeline(pipeline).and_then(|w| read_command(&w)));
    out
}

/// The folder a line's main command runs in, when the line says it: the
/// target of the last `cd` (or `pushd`) before that command, as written.
pub fn working_directory(line: &str) -> Option<String> {
    let (mut folder, mut at_main) = (None, None);
    for command in analyse_all(line) {
        if matches!(command.program.as_str(), "cd" | "pushd" | "Set-Location" | "sl") {
            folder = command.arguments.first().cloned();
        } else if !TRIVIAL.contains(&command.program.as_str()) {
            at_main = Some(folder.clone());
        }
    }
    at_main.unwrap_or(folder)
}

/// Options that ask a tool what it would do, or what it has: with one, a
/// run of it is a look, and which one says which look.
const LOOK_OPTIONS: &[&str] = &["--markers", "--collect-only", "--co", "--dry-run", "--list", "--list-tests", "--fixtures"];

/// The options of `command` that make it a look (LOOK_OPTIONS).
pub fn looks(command: &Command) -> Vec<&str> {
    command
        .options
        .iter()
        .map(String::as_str)
        .filter(|o| LOOK_OPTIONS.contains(o))
        .collect()
}

/// Tests, type checkers and linters that change nothing unless asked to
/// (`--fix`, `--write`): a run of one shows whether the code is right.
/// (Builds and formatters write what they make.)
const LOOKING_CHECKERS: &[&str] = &[
    "pytest", "jest", "vitest", "mocha", "ava", "tap", "jasmine", "karma", "cypress", "phpunit", "rspec",
    "minitest", "ctest", "tox", "nox", "bun test", "deno test", "deno lint", "deno check", "go test", "go vet",
    "cargo test", "cargo check", "cargo clippy", "cargo nextest", "npm test", "yarn test", "pnpm test", "mypy",
    "pyright", "ty", "ty check", "pylint", "flake8", "eslint", "ruff check", "biome check", "biome lint",
    "golangci-lint", "staticcheck", "markdownlint", "markdownlint-cli2", "shellcheck", "rubocop", "stylelint",
    "oxlint", "knip", "swiftlint", "ktlint", "detekt", "dotnet test", "terraform validate", "vale",
];

/// Options and words that make a checker write.
const WRITES_FIXES: &[&str] = &[
    "--fix", "--fix-only", "--write", "-w", "--apply", "--unsafe-fixes", "-u", "--update-snapshots",
    "--updateSnapshot", "--autofix", "-a", "-A", "--auto-correct", "--autocorrect", "-i", "--in-place",
];

/// Whether `command` only checks: a test run, a type check or a lint (of
/// LOOKING_CHECKERS, or a runner's test, lint or check task) that was not
/// asked to fix what it finds. It changes nothing.
pub fn only_checks(command: &Command) -> bool {
    let task = command.subject.rsplit(' ').next().unwrap_or("");
    let checking_task = runs_task_among(command, &["test", "tests", "lint", "check", "typecheck", "type-check", "verify"])
        && !["fix", "format", "write", "update"].iter().any(|w| task.contains(w));
    let checker = LOOKING_CHECKERS.contains(&command.subject.as_str())
        || LOOKING_CHECKERS.contains(&command.program.as_str())
        || command.program == "tsc" && command.options.iter().any(|o| o == "--noEmit")
        || checking_task;
    let fixes = command
        .options
        .iter()
        .chain(&command.arguments)
        .any(|o| WRITES_FIXES.contains(&o.split('=').next().unwrap_or(o)));
    checker && !fixes && !command.arguments.iter().any(|a| a.starts_with('>'))
}

/// The check a runner's fixing task stands for: its task without the
/// fixing word (`bun run lint` for `bun run lint:fix`, `npm run format`
/// for `npm run format-write`). A fix the task could not make (biome
/// leaves unsafe fixes) is shown fixed when that check passes.
pub fn check_of_fixing_task(command: &Command) -> Option<Command> {
    let task = command.subject.rsplit(' ').next().unwrap_or("");
    let checked = ["fix", "write"].iter().find_map(|w| {
        task.strip_suffix(w)
            .and_then(|t| t.strip_suffix([':', '-']))
            .filter(|t| ["lint", "format", "fmt", "check", "style"].iter().any(|name| t.starts_with(name)))
    })?;
    (command.subject != command.program).then(|| {
        let runner = &command.subject[..command.subject.len() - task.len()];
        Command { subject: format!("{runner}{checked}"), ..command.clone() }
    })
}

/// Whether `path` is in a temporary folder (`/tmp`, `$TMPDIR`, Windows'
/// `AppData/Local/Temp` …): a scratch file.
pub fn is_temp_path(path: &str) -> bool {
    let path = path.replace('\\', "/").to_ascii_lowercase();
    let path = path.trim_start_matches(['>', '"', '\'']);
    ["/tmp/", "/var/tmp/", "/private/tmp/", "/private/var/folders/", "/var/folders/", "$tmpdir", "${tmpdir",
     "$env:temp", "%temp%", "/appdata/local/temp/"]
        .iter()
        .any(|t| path.starts_with(t) || *t == "/appdata/local/temp/" && path.contains(t))
}

/// Whether `command`'s work is in a temporary folder: what it writes, or
/// the script it runs, and every path it names, is there. A probe, not a
/// change of the project.
pub fn works_in_temp(command: &Command) -> bool {
    let paths: Vec<&str> = command
        .script
        .iter()
        .chain(&command.arguments)
        .map(String::as_str)
        .filter(|a| !a.starts_with("<<") && (a.contains('/') || a.contains('\\')))
        .collect();
    !paths.is_empty() && paths.iter().all(|p| is_temp_path(p))
}

/// Whether folders `a` and `b` (as `cd` names them) are known to be
/// apart: both absolute, and neither is, nor holds, the other. Relative
/// folders are relative to a folder the line does not say: never apart.
pub fn folders_apart(a: &str, b: &str) -> bool {
    fn parts(folder: &str) -> Option<Vec<String>> {
        let folder = folder.replace('\\', "/");
        let absolute = folder.starts_with('/')
            || folder.starts_with('~')
            || folder.as_bytes().get(1) == Some(&b':') && folder.as_bytes()[0].is_ascii_alphabetic();
        absolute.then(|| {
            folder
                .split('/')
                .filter(|p| !p.is_empty() && *p != ".")
                // (a drive letter is spelt `D:` or, in Git Bash, `/d`)
                .map(|p| p.trim_end_matches(':').to_ascii_lowercase())
                .collect()
        })
    }
    match (parts(a), parts(b)) {
        (Some(a), Some(b)) => {
            let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
            common < a.len().min(b.len())
        }
        _ => false,
    }
}

/// Programs and subjects that run tests.
const TEST_RUNS: &[&str] = &[
    "pytest", "jest", "vitest", "mocha", "ava", "tap", "jasmine", "karma", "playwright", "cypress", "phpunit",
    "rspec", "minitest", "ctest", "tox", "nox", "bun test", "deno test", "go test", "cargo test", "cargo nextest",
    "npm test", "yarn test", "pnpm test", "dotnet test", "unittest",
];

/// Programs and subjects that check (lint, type-check, build) without
/// running tests.
const OTHER_CHECKS: &[&str] = &[
    "deno lint", "deno check", "go vet", "cargo check", "cargo clippy", "cargo build", "tsc", "eslint", "ruff",
    "ruff check", "ruff format", "mypy", "pyright", "ty", "ty check", "pylint", "flake8", "black", "isort", "biome",
    "biome check", "biome lint", "biome format", "prettier", "golangci-lint", "staticcheck", "markdownlint",
    "markdownlint-cli2", "shellcheck", "rubocop", "stylelint", "oxlint", "knip", "swiftlint", "ktlint", "detekt",
    "dotnet build", "mvn", "gradle", "terraform validate",
];

/// Whether a command checks (a test run, a linter, a type checker, a
/// build), its arguments only choosing what: a run of fewer files than
/// failed does not show the failure fixed (`pytest` failed, `pytest
/// tests/a.py` passed). TEST_RUNS, OTHER_CHECKS, and a runner's test or
/// lint task (`npm run test:unit`, `make lint`).
pub fn is_checker(command: &Command) -> bool {
    is_test_run(command)
        || OTHER_CHECKS.contains(&command.subject.as_str())
        || OTHER_CHECKS.contains(&command.program.as_str())
        || runs_task_among(command, &["lint", "check", "typecheck", "build", "ci", "verify"])
}

/// Whether a command runs tests: TEST_RUNS, or a runner's test task (`npm
/// run test:unit`, `make test`).
pub fn is_test_run(command: &Command) -> bool {
    TEST_RUNS.contains(&command.subject.as_str())
        || TEST_RUNS.contains(&command.program.as_str())
        || runs_task_among(command, &["test", "tests"])
}

/// Whether `command` runs a task of a task runner (`npm run test:unit`,
/// `make lint`, `just check-all`) named by one of `names`, alone or
/// before a `:` or `-`. The program itself is no task: `test -f x` is the
/// shell's test.
fn runs_task_among(command: &Command, names: &[&str]) -> bool {
    let task = command.subject.rsplit(' ').next().unwrap_or("");
    command.subject != command.program
        && names
            .iter()
            .any(|t| task.strip_prefix(t).is_some_and(|rest| rest.is_empty() || rest.starts_with([':', '-'])))
}

/// How the commands of a line's `A && echo YES || echo NO` ended, as its
/// output says: well (true) when it shows YES and not NO, badly (false)
/// when it shows NO and not YES. The idiom reports how A ended in words
/// instead of its exit status (which the `||` hides): `nc -z -w3 db 5432
/// && echo OPEN || echo CLOSED` printing OPEN ran nc well. (A that is a
/// pipeline's last command only: the others' status is not what `&&` saw.)
pub fn reported_ends(line: &str, output: &str) -> Vec<(Command, bool)> {
    let lexed = lex(line);
    let said = |words: &[String]| -> Option<String> {
        let (program, rest) = words.split_first()?;
        let text = rest.iter().filter(|w| !w.starts_with('-')).cloned().collect::<Vec<_>>().join(" ");
        let text = text.trim().to_owned();
        (matches!(program.as_str(), "echo" | "printf") && text.chars().count() >= 2 && !text.contains(['$', '`', '%']))
            .then_some(text)
    };
    let mut out = Vec::new();
    for at in 0..lexed.len().saturating_sub(2) {
        let ((ran, first), (yes, second), (no, _)) = (&lexed[at], &lexed[at + 1], &lexed[at + 2]);
        if *first != Joint::And || *second != Joint::Or || at > 0 && lexed[at - 1].1 == Joint::Pipe {
            continue;
        }
        let (Some(yes), Some(no)) = (said(yes), said(no)) else { continue };
        if yes.contains(&no) || no.contains(&yes) {
            continue;
        }
        let ended = match (output.contains(&yes), output.contains(&no)) {
            (true, false) => true,
            (false, true) => false,
            _ => continue,
        };
        out.extend(read_command(ran).map(|c| (c, ended)));
    }
    out
}

/// Commands that show what reaches them, line for line (some of it): a
/// command piped into one of these printed its own report, so its output
/// can show whether it failed. (`grep`, `sort`, `awk` … change what is
/// shown: a failure can be filtered or summed away.)
const VIEWERS: &[&str] = &["head", "tail", "tee", "cat", "less", "more"];

/// The commands a line ran whose exit status a `||` fallback, a later `;`
/// item or a pipe into a viewer (`2>&1 | tail -20`) hid, and whose own
/// output was shown whole or at its ends: a success's output then has to
/// show that they succeeded.
pub fn analyse_shown(line: &str) -> Vec<Command> {
    let lexed = lex(line);
    let mut out = Vec::new();
    let mut pipeline: Vec<&Vec<String>> = Vec::new();
    for (words, joint) in &lexed {
        pipeline.push(words);
        if *joint == Joint::Pipe {
            continue;
        }
        let program = |w: &Vec<String>| {
            w.iter()
                .find(|w| !is_assignment(w))
                .map(|w| program_name(w))
                .unwrap_or_default()
        };
        let shown = pipeline[1..].iter().all(|w| VIEWERS.contains(&program(w).as_str()));
        if shown {
            if let Some(command) = pipeline.first().and_then(|w| read_command(w)) {
                if !TRIVIAL.contains(&command.program.as_str()) {
                    out.push(command);
                }
            }
        }
        pipeline.clear();
    }
    out
}

/// Each pipeline of a line, as its commands in order (a command alone is
/// a pipeline of one), whatever joins the pipelines.
pub fn pipelines(line: &str) -> Vec<Vec<Command>> {
    split_pipelines(&lex(line))
}

/// The pipelines whose last command's exit status the line's proves:
/// those of its last list item (after the last `;` or newline), joined by
/// `&&`; none when a `||` could have stood in for a failure.
pub fn status_pipelines(line: &str) -> Vec<Vec<Command>> {
    last_item(&lex(line)).map(split_pipelines).unwrap_or_default()
}

/// A lexed line's last list item: after the last `;`, `&` or newline that
/// has something after it. None when its exit status is not the line's
/// or proves nothing: a `||` in it could have stood in for a failure
/// (`cmd || true`), `!` turns a failure into success, or it ran in the
/// background (`cmd &`: the shell says 0 at once).
fn last_item(lexed: &[(Vec<String>, Joint)]) -> Option<&[(Vec<String>, Joint)]> {
    let mut start = 0;
    for (i, (_, joint)) in lexed.iter().enumerate() {
        if matches!(joint, Joint::Then | Joint::Background) && lexed[i + 1..].iter().any(|(w, _)| !w.is_empty()) {
            start = i + 1;
        }
    }
    let item = &lexed[start..];
    let backgrounded = item.iter().rev().find(|(w, _)| !w.is_empty()).is_some_and(|(_, j)| *j == Joint::Background);
    let negated = item.iter().any(|(w, _)| w.first().is_some_and(|w| w == "!"));
    let fallback = item.iter().any(|(_, joint)| *joint == Joint::Or);
    (!backgrounded && !negated && !fallback).then_some(item)
}

fn split_pipelines(lexed: &[(Vec<String>, Joint)]) -> Vec<Vec<Command>> {
    let mut out = Vec::new();
    let mut pipeline = Vec::new();
    for (words, joint) in lexed {
        pipeline.extend(read_command(words));
        if *joint != Joint::Pipe && !pipeline.is_empty() {
            out.push(std::mem::take(&mut pipeline));
        }
    }
    out
}

/// Whether `program` shows what reaches it, line for line (`VIEWERS`).
pub fn is_viewer(program: &str) -> bool {
    VIEWERS.contains(&program)
}

/// A command as its words: what comes before the program, the program as
/// invoked, its subcommand, options, then arguments (quotes are gone).
pub fn words_of(c: &Command) -> String {
    let words = std::iter::once(c.invoked.as_str())
        .chain(c.subject.split_whitespace().skip(1))
        .chain(c.options.iter().map(String::as_str))
        .chain(c.arguments.iter().map(String::as_str));
    c.prefix.iter().map(String::as_str).chain(words).collect::<Vec<_>>().join(" ")
}

/// The same command without an unknown program in front of a known tool:
/// `rtk bun run test` → `bun run test`, `mytool git push` → `git push`.
/// A program that only looks (`which pytest`, `file app.py`) runs nothing.
pub fn without_front(command: &Command) -> Option<Command> {
    if is_known(&command.program) || INSPECTION.contains(&command.program.as_str()) {
        return None;
    }
    // its positional words are the inner command's (its options were
    // taken as the front program's: the subject does not need them)
    let inner = read_command(&command.arguments)?;
    is_known(&inner.program).then_some(inner)
}

/// An interpreter's run of a script as the script's own run, as a path
/// run directly reads (`python3 scripts/list.py -v` → `scripts/list.py
/// -v`): a script that could not run itself (not executable, a shebang
/// the system cannot find) runs through its interpreter.
pub fn as_script_run(command: &Command) -> Option<Command> {
    let script = command.script.as_deref()?;
    let name = script.rsplit(['/', '\\']).next().filter(|n| !n.is_empty())?;
    Some(Command {
        program: name.to_owned(),
        subject: name.to_owned(),
        invoked: script.to_owned(),
        script: None,
        ..command.clone()
    })
}

/// Whether two paths as written name the same file: the same, but for a
/// leading `./` (`./scripts/x.py`, `scripts/x.py`).
pub fn same_path(a: &str, b: &str) -> bool {
    let plain = |p: &str| p.trim_start_matches("./").replace('\\', "/");
    plain(a) == plain(b)
}

/// Whether `command` runs a file by its path (`./build.sh`,
/// `scripts/list.py`), not a program found on PATH.
pub fn runs_a_path(command: &Command) -> bool {
    command.script.is_none() && command.invoked.contains(['/', '\\']) && command.invoked.ends_with(command.program.as_str())
}

/// The names a line's programs sign their messages with (`prog: …`): each
/// command's program as invoked and as known (`python3`, `python`), what
/// runs in front of it (`sudo`, `timeout`), and the shells, which report
/// for the line (`bash: x: command not found`).
pub fn programs_of(line: &str) -> Vec<String> {
    let mut names: Vec<String> = ["bash", "sh", "zsh", "dash", "fish"].map(str::to_owned).to_vec();
    for c in analyse_all(line) {
        let tail = c.invoked.rsplit(['/', '\\']).next().unwrap_or(&c.invoked).to_owned();
        names.extend([c.program.clone(), tail]);
        names.extend(c.prefix.iter().filter(|w| !w.contains('=')).cloned());
    }
    names.sort();
    names.dedup();
    names
}

/// A program errkb knows the operations of.
pub fn is_known(program: &str) -> bool {
    WITH_SUBCOMMANDS.iter().any(|(p, _)| *p == program)
        || INTERPRETERS.contains(&program)
        || VALUE_OPTIONS.iter().any(|(p, _)| *p == program)
}

/// The main command of a line: of a `&&` / `;` chain the last one that is
/// not setup or chatter (`cd`, `export`, `echo` …), of `a || b` the left
/// side, of a pipeline the first command that is not a feeder (`cat x |`,
/// `echo y |`).
pub fn analyse(line: &str) -> Option<Command> {
    let commands = simple_commands(line);
    let mut chosen: Option<Command> = None;
    for words in &commands {
        let Some(command) = read_command(words) else { continue };
        let trivial = TRIVIAL.contains(&command.program.as_str());
        if chosen.is_none() || !trivial {
            chosen = Some(command);
        }
    }
    chosen
}

// ---- the lexer ---------------------------------------------------------------

/// How a simple command ended: what joins it to the next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Joint {
    /// `&&`: the next one runs if this one succeeded.
    And,
    /// `;`, a newline, the end: the next one runs anyway.
    Then,
    /// `&`: this one runs in the background (its status is not the
    /// line's: the shell's is 0), the next one runs at once.
    Background,
    /// `||`: the next one is a fallback.
    Or,
    /// `|`: the next one reads this one's output.
    Pipe,
}

/// Marks a word the lexer adds for what a command writes (`> file`) and
/// for the text a here-document feeds it: they are arguments of the
/// command, not words the user typed.
const WRITES: char = '\u{1}';
const HEREDOC: char = '\u{2}';
/// How much of a here-document tells two apart.
const HEREDOC_CHARS: usize = 80;

/// Commands a pipeline's output goes through that do not fail when the
/// command before them does: a success of `npm test | tail -20` says
/// nothing about the tests.
const PASSIVE_FILTERS: &[&str] = &[
    "head", "tail", "grep", "egrep", "fgrep", "sort", "uniq", "wc", "cat", "tee", "less", "more", "cut", "tr", "awk",
    "sed", "column", "fold", "nl", "pv", "rev", "fmt", "strings", "ts",
];

/// The commands a line's success proves ran and succeeded: those of its
/// last list item (after the last `;` or newline) joined by `&&`, each but
/// for what feeds a passive filter; none when a `||` could have stood in
/// for a failure (`cmd || true`).
fn proven_commands(line: &str) -> Vec<Vec<String>> {
    let lexed = lex(line);
    let Some(item) = last_item(&lexed) else {
        return Vec::new();
    };
    let mut proven = Vec::new();
    let mut pipeline: Vec<&Vec<String>> = Vec::new();
    for (words, joint) in item {
        pipeline.push(words);
        if *joint == Joint::Pipe {
            continue;
        }
        // in a pipeline, a command is proven when no passive filter follows it
        for (at, words) in pipeline.iter().enumerate() {
            let passive_after = pipeline[at + 1..].iter().any(|w| {
                w.iter()
                    .find(|w| !is_assignment(w))
                    .is_some_and(|w| PASSIVE_FILTERS.contains(&program_name(w).as_str()))
            });
            // (a filter that read a pipe proves only that it read it)
            let filters_a_pipe = at > 0
                && words
                    .iter()
                    .find(|w| !is_assignment(w))
                    .is_some_and(|w| PASSIVE_FILTERS.contains(&program_name(w).as_str()));
            if !passive_after && !filters_a_pipe && !words.is_empty() {
                proven.push((*words).clone());
            }
        }
        pipeline.clear();
    }
    proven
}

/// The simple commands of a line that matter, as words: the commands of a
/// `&&`/`;` chain, each pipeline reduced to its first non-feeder command,
/// and of `a || b` only `a`.
fn simple_commands(line: &str) -> Vec<Vec<String>> {
    let lexed = lex(line);
    let mut out: Vec<Vec<String>> = Vec::new();
    let mut pipeline: Vec<Vec<String>> = Vec::new();
    let mut skipping_fallback = false;
    for (words, joint) in lexed {
        if !skipping_fallback {
            pipeline.push(words);
        }
        match joint {
            Joint::Pipe => continue,
            Joint::Or => {
                if !skipping_fallback {
                    out.extend(main_of_pipeline(std::mem::take(&mut pipeline)));
                }
                skipping_fallback = true;
            }
            Joint::And | Joint::Then | Joint::Background => {
                if !skipping_fallback {
                    out.extend(main_of_pipeline(std::mem::take(&mut pipeline)));
                }
                pipeline.clear();
                skipping_fallback = false;
            }
        }
    }
    if !skipping_fallback {
        out.extend(main_of_pipeline(pipeline));
    }
    out
}

/// The command of a pipeline that does the work: the first one, unless it
/// only feeds the next (`cat x | python y.py`, `echo n | npx z`).
fn main_of_pipeline(pipeline: Vec<Vec<String>>) -> Option<Vec<String>> {
    let feeds = |words: &Vec<String>| {
        words
            .iter()
            .find(|w| !is_assignment(w))
            .is_some_and(|w| FEEDERS.contains(&program_name(w).as_str()))
    };
    let n = pipeline.len();
    let mut iter = pipeline.into_iter().filter(|w| !w.is_empty()).peekable();
    let mut first = iter.next()?;
    if n > 1 && feeds(&first) {
        if let Some(next) = iter.next() {
            first = next;
        }
    }
    Some(first)
}

/// The words of each simple command and what follows it. Quotes are
/// removed, `\` escapes, comments and here-document bodies skipped,
/// redirections (with their targets) dropped.
// (the macros reset state that the last use leaves unread)
#[allow(unused_assignments)]
fn lex(line: &str) -> Vec<(Vec<String>, Joint)> {
    let chars: Vec<char> = line.chars().collect();
    let mut commands = Vec::new();
    let mut words: Vec<String> = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    // here-documents whose bodies start at the next newline: (delimiter,
    // strip tabs, the command they feed)
    let mut heredocs: Vec<(String, bool, usize)> = Vec::new();
    // the next word is a redirection's target: dropped (an input), or kept
    // as what the command writes
    #[derive(PartialEq)]
    enum Target {
        No,
        Input,
        Output,
    }
    let mut redirect_target = Target::No;
    let mut i = 0;
    let n = chars.len();

    macro_rules! end_word {
        () => {
            if in_word {
                let w = std::mem::take(&mut word);
                match std::mem::replace(&mut redirect_target, Target::No) {
                    Target::No => words.push(w),
                    Target::Output if w != "/dev/null" => words.push(format!("{WRITES}{w}")),
                    _ => {}
                }
                in_word = false;
            }
        };
    }
    macro_rules! end_command {
        ($joint:expr) => {
            end_word!();
            commands.push((std::mem::take(&mut words), $joint));
        };
    }

    while i < n {
        let c = chars[i];
        match c {
            '\\' => {
                if i + 1 < n && chars[i + 1] == '\n' {
                    i += 2; // a line continued
                    continue;
                }
                if i + 1 < n {
                    word.push(chars[i + 1]);
                    in_word = true;
                    i += 2;
                    continue;
                }
                i += 1;
            }
            '\'' => {
                in_word = true;
                i += 1;
                while i < n && chars[i] != '\'' {
                    word.push(chars[i]);
                    i += 1;
                }
                i += 1;
            }
            '"' => {
                in_word = true;
                i += 1;
                while i < n && chars[i] != '"' {
                    if chars[i] == '\\' && i + 1 < n && matches!(chars[i + 1], '"' | '\\' | '$' | '`') {
                        i += 1;
                    }
                    word.push(chars[i]);
                    i += 1;
                }
                i += 1;
            }
            '#' if !in_word => {
                while i < n && chars[i] != '\n' {
                    i += 1;
                }
            }
            '\n' => {
                end_command!(Joint::Then);
                i += 1;
                // here-document bodies, in order
                for (delimiter, strip, fed) in std::mem::take(&mut heredocs) {
                    let body_start = i;
                    let mut body_end = i;
                    while i < n {
                        let end = chars[i..].iter().position(|&c| c == '\n').map_or(n, |p| i + p);
                        let body_line: String = chars[i..end].iter().collect();
                        i = (end + 1).min(n);
                        let body_line = if strip {
                            body_line.trim_start_matches('\t')
                        } else {
                            &body_line
                        };
                        if body_line == delimiter {
                            break;
                        }
                        body_end = i;
                    }
                    // the text fed tells one here-document from another
                    let body: String = chars[body_start..body_end.max(body_start)]
                        .iter()
                        .take(HEREDOC_CHARS)
                        .collect();
                    if let Some((fed_words, _)) = commands.get_mut(fed) {
                        fed_words.push(format!("{HEREDOC}{}", body.trim()));
                    }
                }
            }
            ';' => {
                end_command!(Joint::Then);
                i += 1;
            }
            '&' if i + 1 < n && chars[i + 1] == '&' => {
                end_command!(Joint::And);
                i += 2;
            }
            '&' if i + 1 < n && chars[i + 1] == '>' => {
                // &> file, &>> file
                end_word!();
                i += 2;
                if i < n && chars[i] == '>' {
                    i += 1;
                }
                redirect_target = Target::Output;
            }
            '&' => {
                end_command!(Joint::Background);
                i += 1;
            }
            '|' if i + 1 < n && chars[i + 1] == '|' => {
                end_command!(Joint::Or);
                i += 2;
            }
            '|' => {
                end_command!(Joint::Pipe);
                i += 1;
                if i < n && chars[i] == '&' {
                    i += 1;
                }
            }
            '(' | ')' | '{' | '}' if !in_word => {
                // subshells and groups: their commands are commands
                end_word!();
                i += 1;
            }
            ')' => {
                // a subshell's end right after a word: `(cd x && pytest)`
                end_word!();
                i += 1;
            }
            '<' | '>' => {
                // a redirection: `2>&1`, `>file`, `< in`, `<<EOF`
                let fd_prefix = in_word && word.chars().all(|c| c.is_ascii_digit());
                if fd_prefix {
                    word.clear();
                    in_word = false;
                } else {
                    end_word!();
                }
                if c == '<' && i + 1 < n && chars[i + 1] == '<' {
                    i += 2;
                    if i < n && chars[i] == '<' {
                        i += 1; // here-string: the word is the input
                        redirect_target = Target::Input;
                        continue;
                    }
                    let strip = i < n && chars[i] == '-';
                    if strip {
                        i += 1;
                    }
                    while i < n && chars[i] == ' ' {
                        i += 1;
                    }
                    let mut delimiter = String::new();
                    while i < n && !chars[i].is_whitespace() && !matches!(chars[i], ';' | '&' | '|' | ')') {
                        if !matches!(chars[i], '\'' | '"' | '\\') {
                            delimiter.push(chars[i]);
                        }
                        i += 1;
                    }
                    if !delimiter.is_empty() {
                        heredocs.push((delimiter, strip, commands.len()));
                    }
                    continue;
                }
                i += 1;
                while i < n && matches!(chars[i], '>' | '|') {
                    i += 1;
                }
                if i < n && chars[i] == '&' {
                    // >&2, 2>&1: a descriptor, not a file
                    i += 1;
                    while i < n && (chars[i].is_ascii_digit() || chars[i] == '-') {
                        i += 1;
                    }
                    continue;
                }
                redirect_target = if c == '<' { Target::Input } else { Target::Output };
            }
            '$' if i + 1 < n && chars[i + 1] == '(' => {
                // a command substitution, kept as one word
                in_word = true;
                let mut depth = 0;
                while i < n {
                    match chars[i] {
                        '(' => depth += 1,
                        ')' => {
                            depth -= 1;
                            if depth == 0 {
                                word.push(')');
                                i += 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                    word.push(chars[i]);
                    i += 1;
                }
            }
            c if c.is_whitespace() => {
                end_word!();
                i += 1;
            }
            c => {
                word.push(c);
                in_word = true;
                i += 1;
            }
        }
    }
    end_command!(Joint::Then);
    commands
}

// ---- one simple command ------------------------------------------------------

/// Commands that set up or chat rather than do the work: in a chain, the
/// main command is the last one that is not one of these. (The shell's
/// own steps in a loop or function, `break`, `continue`, `return` and
/// `shift`, say where it goes next, not what it does: a polling loop's
/// work is what it runs before it breaks out.)
pub const TRIVIAL: &[&str] = &[
    "for", "case", "select", "done", "fi", "esac", "function", "cd", "pushd", "popd", "export", "source", ".", "set",
    "unset", "echo", "printf", "true", "false", ":", "exit", "sleep", "clear", "wait", "alias", "local", "declare",
    "break", "continue", "return", "shift",
    "shopt", "trap", "read", "eval", "ulimit", "umask", "Set-Location", "Push-Location", "Pop-Location", "sl",
    "Write-Host", "Write-Output",
];

/// Commands that only feed a pipe: `cat x | python y.py`.
const FEEDERS: &[&str] = &["cat", "echo", "printf", "yes", "seq"];

/// Prefixes that run the rest as it is, with their options that take a value.
const WRAPPERS: &[(&str, &[&str])] = &[
    ("sudo", &["-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U"]),
    ("doas", &["-u", "-C"]),
    ("env", &["-u", "-C", "-S", "--chdir", "--unset"]),
    ("time", &["-f", "-o"]),
    ("timeout", &["-s", "-k", "--signal", "--kill-after"]),
    ("gtimeout", &["-s", "-k", "--signal", "--kill-after"]),
    ("nice", &["-n", "--adjustment"]),
    ("ionice", &["-c", "-n", "-p"]),
    ("nohup", &[]),
    ("exec", &["-a"]),
    ("stdbuf", &["-i", "-o", "-e"]),
    ("xvfb-run", &["-n", "-s", "-e", "-f", "-p", "-w"]),
    ("caffeinate", &["-t", "-w"]),
    ("npx", &["-p", "--package", "-c", "--call"]),
    ("bunx", &["-p", "--package"]),
    ("pnpx", &[]),
    ("dotenv", &["-e", "-f", "-c", "-v"]),
];

/// Runners of a tool: `uv run pytest` runs pytest. (program, subcommand)
const TOOL_RUNNERS: &[(&str, &str)] = &[
    ("uv", "run"),
    ("uvx", ""),
    ("poetry", "run"),
    ("pipenv", "run"),
    ("pdm", "run"),
    ("rye", "run"),
    ("hatch", "run"),
    ("bundle", "exec"),
    ("pnpm", "exec"),
    ("pnpm", "dlx"),
    ("yarn", "dlx"),
    ("yarn", "exec"),
    ("npm", "exec"),
    ("conda", "run"),
    ("mise", "exec"),
    ("mise", "x"),
    ("nix", "run"),
    ("direnv", "exec"),
    ("dotnet", "tool"),
];

/// Interpreters: the subject is the script (or `-m module`, `-c`).
const INTERPRETERS: &[&str] = &[
    "python",
    "node",
    "deno",
    "ruby",
    "perl",
    "php",
    "bash",
    "sh",
    "zsh",
    "ts-node",
    "tsx",
    "lua",
    "Rscript",
    "osascript",
];

/// Tools whose first argument is a subcommand, and the options before it
/// that take a value (`git -C DIR push`, `make -C DIR deploy`).
const WITH_SUBCOMMANDS: &[(&str, &[&str])] = &[
    (
        "git",
        &["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path"],
    ),
    ("npm", &["--prefix", "-w", "--workspace", "-C"]),
    ("pnpm", &["-C", "--dir", "--filter", "-F", "-w", "--workspace"]),
    ("yarn", &["--cwd", "--modules-folder"]),
    ("bun", &["--cwd", "-c", "--config"]),
    ("cargo", &["--manifest-path", "--config", "-Z", "-C", "--color"]),
    ("go", &["-C"]),
    (
        "docker",
        &["-H", "--host", "--context", "-c", "--config", "-l", "--log-level"],
    ),
    (
        "docker-compose",
        &["-f", "--file", "-p", "--project-name", "--env-file", "--profile"],
    ),
    ("podman", &["--url", "-c", "--connection"]),
    (
        "kubectl",
        &[
            "-n",
            "--namespace",
            "--context",
            "--kubeconfig",
            "-s",
            "--server",
            "--cluster",
            "--user",
        ],
    ),
    ("helm", &["-n", "--namespace", "--kube-context", "--kubeconfig"]),
    ("terraform", &["-chdir"]),
    ("tofu", &["-chdir"]),
    ("pip", &[]),
    ("uv", &["--directory", "--project"]),
    ("poetry", &["-C", "--directory", "-P", "--project"]),
    ("pipenv", &[]),
    ("conda", &[]),
    ("gradle", &["-p", "--project-dir", "-b", "--build-file"]),
    ("./gradlew", &["-p", "--project-dir", "-b", "--build-file"]),
    ("gradlew", &["-p", "--project-dir", "-b", "--build-file"]),
    ("mvn", &["-f", "--file", "-pl", "--projects", "-P"]),
    ("./mvnw", &["-f", "--file", "-pl", "--projects", "-P"]),
    ("dotnet", &[]),
    ("rails", &[]),
    ("bundle", &["--gemfile"]),
    ("composer", &["-d", "--working-dir"]),
    ("gh", &["-R", "--repo"]),
    ("glab", &["-R", "--repo"]),
    ("brew", &[]),
    ("apt", &["-o", "-c"]),
    ("apt-get", &["-o", "-c"]),
    ("dnf", &[]),
    ("yum", &[]),
    ("pacman", &[]),
    ("systemctl", &["-H", "--host", "-M", "--machine"]),
    ("journalctl", &[]),
    ("rustup", &[]),
    ("swift", &[]),
    ("flutter", &[]),
    ("dart", &[]),
    ("mix", &[]),
    ("stack", &[]),
    ("cabal", &[]),
    (
        "make",
        &[
            "-C",
            "--directory",
            "-f",
            "--file",
            "--makefile",
            "-j",
            "--jobs",
            "-l",
            "-I",
            "-o",
            "-W",
        ],
    ),
    ("gmake", &["-C", "--directory", "-f", "--file", "-j", "--jobs"]),
    ("just", &["-f", "--justfile", "-d", "--working-directory", "--set"]),
    ("task", &["-d", "--dir", "-t", "--taskfile"]),
    ("mise", &["-C", "--cd", "-E", "--env"]),
    ("rake", &["-f", "-C", "--directory"]),
    ("invoke", &["-c", "--collection", "-r", "--search-root"]),
    ("nx", &[]),
    ("turbo", &["--filter", "-F"]),
    ("lerna", &[]),
    ("firebase", &["-P", "--project"]),
    ("aws", &["--profile", "--region", "--output"]),
    ("gcloud", &["--project", "--account", "--configuration"]),
    ("az", &[]),
    ("heroku", &["-a", "--app"]),
    ("vercel", &["--cwd", "--scope", "-S"]),
    ("netlify", &[]),
    ("wrangler", &["-c", "--config", "-e", "--env"]),
    ("supabase", &["--workdir"]),
    ("prisma", &["--schema"]),
    ("alembic", &["-c", "--config", "-n", "--name"]),
    ("django-admin", &["--settings", "--pythonpath"]),
    ("manage.py", &["--settings", "--pythonpath"]),
    ("artisan", &[]),
    ("deno", &["-c", "--config"]),
    ("claude", &[]),
    ("pre-commit", &["-c", "--config"]),
    ("lefthook", &[]),
    ("sqlx", &["-D", "--database-url"]),
    ("diesel", &["--database-url"]),
    ("ansible-galaxy", &[]),
    ("hugo", &["-s", "--source"]),
    ("zig", &[]),
    ("pulumi", &["-C", "--cwd", "-s", "--stack"]),
    ("pwsh", &[]),
    ("openssl", &[]),
];

/// Options that take a value, of programs without subcommands and of
/// subcommands (`go test -run X`, `cargo test -p crate`).
const VALUE_OPTIONS: &[(&str, &[&str])] = &[
    (
        "pytest",
        &[
            "-k",
            "-m",
            "-p",
            "-c",
            "-n",
            "-o",
            "--maxfail",
            "--deselect",
            "--ignore",
            "--rootdir",
            "--junitxml",
        ],
    ),
    (
        "jest",
        &["-t", "--testNamePattern", "-c", "--config", "--testPathPattern"],
    ),
    ("vitest", &["-t", "--testNamePattern", "-c", "--config", "--project"]),
    (
        "curl",
        &[
            "-o",
            "-d",
            "-H",
            "-X",
            "-u",
            "-A",
            "-e",
            "-b",
            "-c",
            "-w",
            "-F",
            "-T",
            "-x",
            "--data-raw",
            "--data-binary",
        ],
    ),
    ("wget", &["-O", "-o", "-P", "--header"]),
    (
        "grep",
        &[
            "-e",
            "-f",
            "-A",
            "-B",
            "-C",
            "-m",
            "--include",
            "--exclude",
            "--exclude-dir",
        ],
    ),
    (
        "rg",
        &[
            "-e",
            "-f",
            "-A",
            "-B",
            "-C",
            "-m",
            "-g",
            "-t",
            "-T",
            "--glob",
            "--type",
            "--type-not",
            "-M",
        ],
    ),
    (
        "find",
        &[
            "-name",
            "-iname",
            "-path",
            "-ipath",
            "-type",
            "-maxdepth",
            "-mindepth",
            "-newer",
            "-mtime",
            "-size",
            "-user",
            "-perm",
            "-regex",
            "-not",
        ],
    ),
    (
        "fd",
        &[
            "-e",
            "-t",
            "-E",
            "-d",
            "--extension",
            "--type",
            "--exclude",
            "--max-depth",
        ],
    ),
    ("head", &["-n", "-c"]),
    ("tail", &["-n", "-c"]),
    ("sort", &["-k", "-t", "-o"]),
    ("cut", &["-d", "-f", "-c", "-b"]),
    ("xargs", &["-I", "-n", "-P", "-d", "-L"]),
    ("tar", &["-C", "-f", "--exclude"]),
    ("ssh", &["-i", "-p", "-o", "-l", "-F", "-J", "-L", "-R"]),
    ("scp", &["-i", "-P", "-o", "-F"]),
    ("rsync", &["-e", "--exclude", "--include", "--rsh"]),
    ("psql", &["-h", "-p", "-U", "-d", "-c", "-f", "-v"]),
    ("mysql", &["-h", "-P", "-u", "-D", "-e"]),
    (
        "go",
        &[
            "-run",
            "-tags",
            "-count",
            "-timeout",
            "-p",
            "-o",
            "-ldflags",
            "-gcflags",
            "-bench",
            "-coverprofile",
        ],
    ),
    (
        "cargo",
        &[
            "-p",
            "--package",
            "--bin",
            "--test",
            "--example",
            "--bench",
            "-j",
            "--jobs",
            "--profile",
        ],
    ),
    (
        "docker",
        &[
            "-f",
            "-t",
            "-v",
            "-e",
            "-p",
            "-w",
            "-u",
            "--name",
            "--network",
            "--platform",
            "--entrypoint",
            "--mount",
            "--volume",
            "--publish",
            "--workdir",
            "--env-file",
            "-c",
        ],
    ),
    (
        "kubectl",
        &[
            "-f",
            "-o",
            "-l",
            "-c",
            "--selector",
            "--container",
            "--image",
            "--replicas",
            "--type",
        ],
    ),
    (
        "gh",
        &[
            "-t",
            "-b",
            "-B",
            "-H",
            "-l",
            "-a",
            "-r",
            "--base",
            "--head",
            "--label",
            "--assignee",
            "--reviewer",
            "--limit",
            "-L",
            "--json",
            "-q",
            "--jq",
            "-f",
            "-F",
            "--method",
            "-X",
        ],
    ),
    (
        "git",
        &[
            "-n",
            "-b",
            "-B",
            "-o",
            "--depth",
            "--since",
            "--pretty",
            "-U",
            "--onto",
            "-s",
            "-X",
            "-S",
            "--strategy",
        ],
    ),
    ("npm", &["--tag", "--registry", "--cache", "-w"]),
    (
        "node",
        &[
            "-r",
            "--require",
            "--import",
            "--loader",
            "--max-old-space-size",
            "--inspect-port",
        ],
    ),
    ("python", &["-W", "-X", "-Q"]),
    (
        "ruff",
        &["--select", "--ignore", "--config", "--line-length", "--target-version"],
    ),
    ("mypy", &["--config-file", "--python-version", "-p", "-m", "--exclude"]),
    (
        "eslint",
        &[
            "-c",
            "--config",
            "--ext",
            "-f",
            "--format",
            "--rule",
            "--parser",
            "--max-warnings",
        ],
    ),
    (
        "tsc",
        &[
            "-p",
            "--project",
            "--target",
            "--module",
            "--outDir",
            "--rootDir",
            "--lib",
            "--jsx",
        ],
    ),
];

/// Subcommands that name a task or script after them: `npm run build`.
const TASK_SUBCOMMANDS: &[&str] = &["run", "run-script", "exec", "x", "task"];

/// Programs that only read: listing, printing, searching, showing state.
const INSPECTION: &[&str] = &[
    "ls",
    "ll",
    "la",
    "dir",
    "cat",
    "bat",
    "less",
    "more",
    "head",
    "tail",
    "wc",
    "pwd",
    "which",
    "whereis",
    "type",
    "file",
    "stat",
    "tree",
    "find",
    "fd",
    "fdfind",
    "grep",
    "egrep",
    "fgrep",
    "rg",
    "ag",
    "ack",
    "du",
    "df",
    "env",
    "printenv",
    "whoami",
    "id",
    "date",
    "uname",
    "hostname",
    "ps",
    "pgrep",
    "lsof",
    "jq",
    "yq",
    "diff",
    "cmp",
    "md5sum",
    "sha256sum",
    "shasum",
    "readlink",
    "realpath",
    "basename",
    "dirname",
    "test",
    "[",
    "[[",
    "nproc",
    "free",
    "uptime",
    "od",
    "xxd",
    "hexdump",
    "strings",
    "nm",
    "objdump",
    "readelf",
    "ldd",
    "otool",
    "column",
    "sort",
    "uniq",
    "cut",
    "awk",
    "tr",
    "echo",
    "printf",
    "true",
    "sleep",
    "man",
    "info",
    "help",
    "tldr",
    "Get-ChildItem",
    "Get-Content",
    "Select-String",
];

/// Subcommands that only read, for tools that also change things.
const INSPECTION_SUBCOMMANDS: &[&str] = &[
    "git status",
    "git log",
    "git diff",
    "git show",
    "git branch",
    "git remote",
    "git rev-parse",
    "git ls-files",
    "git blame",
    "git describe",
    "git shortlog",
    "git reflog",
    "git config",
    "git grep",
    "git tag",
    "git stash list",
    "git ls-remote",
    "git cat-file",
    "git whatchanged",
    "git worktree list",
    "npm ls",
    "npm list",
    "npm view",
    "npm info",
    "npm outdated",
    "npm search",
    "npm config",
    "npm root",
    "npm bin",
    "pnpm ls",
    "pnpm list",
    "yarn list",
    "yarn info",
    "yarn why",
    "pip list",
    "pip show",
    "pip freeze",
    "pip search",
    "pip index",
    "cargo tree",
    "cargo metadata",
    "cargo search",
    "go list",
    "go env",
    "go version",
    "docker ps",
    "docker images",
    "docker logs",
    "docker inspect",
    "docker version",
    "docker info",
    "kubectl get",
    "kubectl describe",
    "kubectl logs",
    "gh pr view",
    "gh pr list",
    "gh issue view",
    "gh issue list",
    "gh run view",
    "gh run list",
    "gh api",
    "gh repo view",
    "gh pr checks",
    "gh pr diff",
    "brew list",
    "brew info",
    "brew search",
    "apt list",
    "apt search",
    "apt show",
    "apt-cache",
    "systemctl status",
    "journalctl",
    "terraform show",
    "terraform output",
    "helm list",
    "helm status",
    "rustup show",
    "node --version",
    "python --version",
    "uv pip list",
];

/// Installs: (program, subcommand); the packages are the arguments.
const INSTALLS: &[(&str, &str)] = &[
    ("pip", "install"),
    ("uv", "add"),
    ("uv", "pip"),
    ("poetry", "add"),
    ("pipenv", "install"),
    ("conda", "install"),
    ("npm", "install"),
    ("npm", "i"),
    ("npm", "add"),
    ("pnpm", "add"),
    ("pnpm", "install"),
    ("pnpm", "i"),
    ("yarn", "add"),
    ("bun", "add"),
    ("bun", "install"),
    ("cargo", "add"),
    ("cargo", "install"),
    ("go", "get"),
    ("go", "install"),
    ("gem", "install"),
    ("composer", "require"),
    ("brew", "install"),
    ("apt", "install"),
    ("apt-get", "install"),
    ("dnf", "install"),
    ("yum", "install"),
    ("pacman", "-S"),
    ("apk", "add"),
    ("rustup", "component"),
    ("rustup", "target"),
    ("dotnet", "add"),
    ("pipx", "install"),
];

fn options_with_value(table: &[(&'static str, &'static [&'static str])], program: &str) -> &'static [&'static str] {
    table.iter().find(|(p, _)| *p == program).map_or(&[], |(_, o)| *o)
}

/// Reads one simple command's words.
fn read_command(words: &[String]) -> Option<Command> {
    // what it writes and what a here-document feeds it, apart from its words
    let (extra, words): (Vec<&String>, Vec<&String>) = words
        .iter()
        .partition(|w| w.starts_with(WRITES) || w.starts_with(HEREDOC));
    let words: Vec<String> = words.into_iter().cloned().collect();
    let mut command = read_words(&words)?;
    for word in extra {
        if let Some(file) = word.strip_prefix(WRITES) {
            command.inspection = false;
            command.arguments.push(format!(">{file}"));
        } else if let Some(text) = word.strip_prefix(HEREDOC) {
            command.arguments.push(format!("<<{text}"));
        }
    }
    Some(command)
}

fn read_words(words: &[String]) -> Option<Command> {
    let mut at = 0;
    let mut prefix = Vec::new();
    // assignments and wrappers, with their options
    loop {
        let word = words.get(at)?;
        if is_assignment(word) {
            prefix.push(word.clone());
            at += 1;
            continue;
        }
        let name = program_name(word);
        // the shell's own words before a command: `if grep …; then make; fi`
        if matches!(
            name.as_str(),
            "do" | "then" | "else" | "elif" | "if" | "while" | "until" | "!"
        ) {
            at += 1;
            continue;
        }
        if let Some((_, takes_value)) = WRAPPERS.iter().find(|(w, _)| *w == name) {
            prefix.push(name.clone());
            at += 1;
            // `command -v x` asks where x is: a look, not a run of x
            while let Some(w) = words.get(at) {
                if w == "--" {
                    at += 1;
                    break;
                }
                if w.starts_with('-') {
                    at += if takes_value.contains(&w.as_str()) { 2 } else { 1 };
                } else if is_assignment(w)
                    || (name.contains("timeout") && is_duration(w))
                    || (name == "nice" && is_number(w))
                {
                    at += 1;
                } else {
                    break;
                }
            }
            continue;
        }
        if name == "command" && words.get(at + 1).is_some_and(|w| !w.starts_with('-')) {
            at += 1;
            continue;
        }
        break;
    }
    let first = &words[at];
    // a program named by a variable (`$CMD args`, PowerShell's `$lines |
    // …`) or by a quoted phrase is not known
    if first.starts_with('$') && !first.contains(['/', '\\']) || first.contains(char::is_whitespace) {
        return None;
    }
    let mut program = program_name(first);
    let mut rest: Vec<&str> = words[at + 1..].iter().map(String::as_str).collect();
    // `uv run pytest`: the tool that runs
    if let Some(runner) = TOOL_RUNNERS.iter().find(|(p, sub)| {
        *p == program && (sub.is_empty() || first_positional(&rest, &[]).is_some_and(|(_, w)| w == *sub))
    }) {
        let mut skip = rest.clone();
        if !runner.1.is_empty() {
            let (i, _) = first_positional(&rest, &[])?;
            skip = rest[i + 1..].to_vec();
        }
        if let Some((i, tool)) = first_positional(&skip, &[]) {
            if !tool.starts_with('-') {
                program = program_name(tool);
                rest = skip[i + 1..].to_vec();
            }
        }
    }
    // `python -m pip install x` is pip's install; `python -m pytest` is pytest
    if program == "python" {
        if let Some(at) = rest.iter().position(|w| *w == "-m") {
            if let Some(module) = rest.get(at + 1) {
                let module = module.to_string();
                if module != "http.server" && !module.contains('.') {
                    program = program_name(&module);
                    rest = rest[at + 2..].to_vec();
                }
            }
        }
    }
    let mut command = Command {
        program: program.clone(),
        subject: program.clone(),
        invoked: first.clone(),
        prefix,
        ..Command::default()
    };
    let takes_value: Vec<&str> = options_with_value(WITH_SUBCOMMANDS, &program)
        .iter()
        .chain(options_with_value(VALUE_OPTIONS, &program))
        .copied()
        .collect();
    let (options, positional) = split_options(&rest, &takes_value);
    command.options = options;
    if INTERPRETERS.contains(&program.as_str()) {
        // the script, or the module or inline code
        match rest.iter().position(|w| matches!(*w, "-m" | "-c" | "-e" | "-")) {
            Some(at) if rest[at] == "-m" => {
                command.subject = format!("{program} -m {}", rest.get(at + 1).unwrap_or(&""));
                command.arguments = rest
                    .iter()
                    .skip(at + 2)
                    .filter(|w| !w.starts_with('-'))
                    .map(|w| w.to_string())
                    .collect();
            }
            Some(at) => {
                command.subject = format!("{program} {}", rest[at]);
                command.arguments = rest.get(at + 1).map(|w| vec![w.to_string()]).unwrap_or_default();
            }
            None => match positional.first() {
                Some(script) => {
                    command.subject = format!("{program} {}", path_tail(script));
                    command.script = Some(script.clone());
                    command.arguments = positional[1..].to_vec();
                }
                None => command.arguments = Vec::new(),
            },
        }
    } else if WITH_SUBCOMMANDS.iter().any(|(p, _)| *p == program) || program.ends_with("manage.py") {
        match positional.first().map(String::as_str) {
            Some(sub) if TASK_SUBCOMMANDS.contains(&sub) => {
                // `npm run build`, `mise run lint:full`: the task decides
                match positional.get(1) {
                    Some(task) => {
                        command.subject = format!("{program} {sub} {task}");
                        command.arguments = positional[2..].to_vec();
                    }
                    None => command.subject = format!("{program} {sub}"),
                }
            }
            Some(sub) => {
                command.subject = format!("{program} {sub}");
                command.arguments = positional[1..].to_vec();
                // `make deploy`, `just test`, `task build`: the target is the subject's
                if TASK_RUNNERS.contains(&program.as_str()) {
                    command.arguments = positional[1..].to_vec();
                }
            }
            None => {}
        }
    } else {
        command.arguments = positional;
    }
    // `git stash list`, `docker compose up`: a second word that decides
    for two in [
        "git stash",
        "git worktree",
        "git remote",
        "docker compose",
        "gh pr",
        "gh issue",
        "gh run",
        "gh repo",
        "docker container",
        "docker image",
        "kubectl rollout",
        "uv pip",
        "npm config",
        "cargo +nightly",
    ] {
        if command.subject == two {
            if let Some(next) = command.arguments.first().cloned() {
                command.subject = format!("{two} {next}");
                command.arguments.remove(0);
            }
        }
    }
    command.inspection = INSPECTION.contains(&program.as_str())
        || INSPECTION_SUBCOMMANDS
            .iter()
            .any(|s| command.subject.strip_prefix(s).is_some_and(|rest| rest.is_empty() || rest.starts_with(' ')))
        || (command.subject == "git branch" && command.arguments.is_empty())
        || (program == "command" && rest.first().is_some_and(|w| *w == "-v"))
        || (program == "sed" && !rest.iter().any(|w| w.starts_with("-i")))
        || command.options.iter().any(|o| o == "--version" || o == "--help") && command.arguments.is_empty()
        // asking a tool what it would do, or what it has, is a look
        || !looks(&command).is_empty()
        || command.subject.ends_with(" help");
    if command.subject == "git branch"
        && command
            .options
            .iter()
            .any(|o| matches!(o.as_str(), "-d" | "-D" | "-m" | "-M" | "-c" | "-C"))
    {
        command.inspection = false;
    }
    // `git config KEY` reads; `git config KEY VALUE` (or `--unset KEY`,
    // `--add …`) sets
    if command.subject == "git config"
        && !command.options.iter().any(|o| o.starts_with("--get") || o == "--list" || o == "-l")
        && (command.arguments.len() >= 2
            || command.options.iter().any(|o| {
                matches!(
                    o.as_str(),
                    "--unset" | "--unset-all" | "--add" | "--replace-all" | "--remove-section" | "--rename-section"
                )
            }))
    {
        command.inspection = false;
    }
    let sub = command.subject.split(' ').nth(1).unwrap_or("");
    if INSTALLS.iter().any(|(p, s)| *p == program && *s == sub) {
        command.installs = command
            .arguments
            .iter()
            .filter(|a| !a.starts_with('-') && !a.contains('/') || a.starts_with('@'))
            .map(|a| package_name(a))
            .collect();
    }
    Some(command)
}

/// Task runners: their first argument is the task.
const TASK_RUNNERS: &[&str] = &["make", "gmake", "just", "task", "rake", "invoke", "mise"];

/// The first word that is not an option (skipping option values).
fn first_positional<'a>(words: &[&'a str], takes_value: &[&str]) -> Option<(usize, &'a str)> {
    let mut i = 0;
    while i < words.len() {
        let w = words[i];
        if w == "--" {
            return words.get(i + 1).map(|w| (i + 1, *w));
        }
        if w.starts_with('-') && w.len() > 1 {
            i += if takes_value.contains(&w) { 2 } else { 1 };
            continue;
        }
        return Some((i, w));
    }
    None
}

/// Options (with the values of those known to take one folded in:
/// `-C dir` is one option) and positional words. Words after `--` are
/// positional.
fn split_options(words: &[&str], takes_value: &[&str]) -> (Vec<String>, Vec<String>) {
    let mut options = Vec::new();
    let mut positional = Vec::new();
    let mut i = 0;
    let mut only_positional = false;
    while i < words.len() {
        let w = words[i];
        if only_positional {
            positional.push(w.to_string());
        } else if w == "--" {
            only_positional = true;
        } else if w.starts_with('-') && w.len() > 1 && !is_number(w) {
            if (takes_value.contains(&w) || COMMON_VALUE_OPTIONS.contains(&w)) && i + 1 < words.len() {
                options.push(format!("{w} {}", words[i + 1]));
                i += 1;
            } else {
                options.push(w.to_string());
            }
        } else {
            positional.push(w.to_string());
        }
        i += 1;
    }
    (options, positional)
}

/// Options that take a value with any program that has them (a commit
/// message is not a target). Short options mean different things to
/// different programs (`-f file`, `rm -f`): only these two are safe.
const COMMON_VALUE_OPTIONS: &[&str] = &[
    "-m",
    "-F",
    "--message",
    "--title",
    "--body",
    "--grep",
    "--output",
    "--header",
    "--data",
    "--request",
    "--name",
    "--format",
    "--since",
    "--until",
    "--author",
    "--port",
    "--timeout",
    "--features",
    "--target",
    "--config",
    "--filter",
    "--workspace",
    "--branch",
    "--tag",
    "--env",
    "--user",
];

fn is_assignment(word: &str) -> bool {
    match word.split_once('=') {
        Some((name, _)) => {
            !name.is_empty()
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !name.starts_with(|c: char| c.is_ascii_digit())
        }
        None => false,
    }
}

fn is_number(word: &str) -> bool {
    let digits = word.strip_prefix('-').unwrap_or(word);
    !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit() || c == '.')
}

/// `30`, `5s`, `2m`, `1.5h`: timeout's duration.
fn is_duration(word: &str) -> bool {
    let number = word.trim_end_matches(['s', 'm', 'h', 'd']);
    !number.is_empty() && number.chars().all(|c| c.is_ascii_digit() || c == '.')
}

/// `/usr/bin/python3.11` → `python`, `./run.sh` → `run.sh`, `pip3` → `pip`.
pub fn program_name(word: &str) -> String {
    let name = path_tail(word);
    for family in ["python", "pip", "node", "ruby", "perl", "php"] {
        if let Some(version) = name.strip_prefix(family) {
            if version.chars().all(|c| c.is_ascii_digit() || c == '.') {
                return family.to_string();
            }
        }
    }
    match name {
        "nodejs" => "node".to_string(),
        "docker-compose" => "docker-compose".to_string(),
        _ if name.ends_with(".exe") => name.trim_end_matches(".exe").to_string(),
        _ => name.to_string(),
    }
}

/// A package's name without its version: `pyyaml==6.0` → `pyyaml`,
/// `express@4` → `express`, `@types/node@20` → `@types/node`.
fn package_name(word: &str) -> String {
    let (scope, rest) = match word.strip_prefix('@') {
        Some(rest) => ("@", rest),
        None => ("", word),
    };
    let end = rest
        .find(['=', '<', '>', '~', '!', '@', '[', ';'])
        .unwrap_or(rest.len());
    format!("{scope}{}", &rest[..end]).to_ascii_lowercase()
}

/// The last component of a path: `./src/app.py` and `src/app.py` are one script.
pub fn path_tail(word: &str) -> &str {
    word.rsplit(['/', '\\']).find(|p| !p.is_empty()).unwrap_or(word)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn subject(c: &str) -> String {
        command_subject(c).unwrap_or_default()
    }

    #[test]
    fn a_retry_has_the_subject_of_the_failure() {
        assert_eq!(subject("python3 app.py"), "python app.py");
        assert_eq!(subject("cd api && python app.py --port 1"), "python app.py");
        assert_eq!(
            subject("PYTHONPATH=. /usr/bin/python3.11 ./app.py 2>&1 | tail -5"),
            "python app.py"
        );
        assert_eq!(subject("npm run build"), "npm run build");
        assert_eq!(subject("npm run --silent build"), "npm run build");
        assert_eq!(subject("git checkout -b feature"), "git checkout");
        assert_eq!(subject("python -m pytest -q tests"), "pytest");
        assert_eq!(subject("timeout 60 cargo test --release"), "cargo test");
    }

    #[test]
    fn a_loops_own_steps_are_not_its_work() {
        // a polling loop that breaks out once its check passes
        let poll = "for i in $(seq 1 60); do\n  out=$(gh pr view 538 --json statusCheckRollup)\n  \
                    [ -z \"$out\" ] && { sleep 30; continue; }\n  if [ \"$out\" = done ]; then\n    \
                    gh pr view 538 --json mergeable\n    break\n  fi\n  sleep 30\ndone";
        assert_eq!(subject(poll), "gh pr view");
        assert_eq!(subject("while read f; do shift; wc -l \"$f\"; done < list"), "wc");
        assert_eq!(subject("for f in a.log b.log; do gzip \"$f\"; continue; done"), "gzip");
    }

    #[test]
    fn wrappers_and_directories_are_peeled_off() {
        assert_eq!(subject("mise run lint:full"), "mise run lint:full");
        assert_eq!(subject("git -C /srv/repo gc --prune=now"), "git gc");
        assert_eq!(subject("make -C build install"), "make install");
        assert_eq!(subject("make -j4 test"), "make test");
        assert_eq!(subject("cargo test || true"), "cargo test");
        assert_eq!(subject("npm test 2>&1 | head -50"), "npm test");
        assert_eq!(subject("cargo build \\\n  --release"), "cargo build");
        assert_eq!(
            subject("sudo -u www env X=1 time timeout 5 nice -n 10 ./deploy.sh"),
            "deploy.sh"
        );
        assert_eq!(subject("npx tsc --noEmit"), "tsc");
        assert_eq!(subject("uv run pytest -x"), "pytest");
        assert_eq!(subject("bundle exec rspec spec/a_spec.rb"), "rspec");
        assert_eq!(
            subject("cd web && npm install && npm run build; echo done"),
            "npm run build"
        );
        assert_eq!(subject("npm --prefix web run test"), "npm run test");
        assert_eq!(subject("(cd api && go test ./...)"), "go test");
        assert_eq!(subject("cat input.json | python3 process.py"), "python process.py");
        assert_eq!(subject("just test"), "just test");
    }

    #[test]
    fn the_folder_a_command_runs_in() {
        assert_eq!(working_directory("cd ~/code/a && git commit -m x").as_deref(), Some("~/code/a"));
        assert_eq!(working_directory("cd /srv/app; make; cd /tmp").as_deref(), Some("/srv/app"));
        assert_eq!(working_directory("make test"), None);
        // siblings are apart; a folder and one inside it are not; relative ones never
        assert!(folders_apart("~/code/shop", "~/code/blog"));
        assert!(!folders_apart("~/code/shop", "~/code/shop/api/"));
        assert!(!folders_apart("D:\\work\\shop", "/d/work/shop"));
        assert!(!folders_apart("api", "/srv/blog"));
        let all: Vec<String> = analyse_all("git stash && go test ./... ; git stash pop")
            .into_iter()
            .map(|c| c.subject)
            .collect();
        assert_eq!(all, ["git stash", "go test", "git stash pop"]);
    }

    #[test]
    fn a_fixing_task_has_the_check_it_stands_for() {
        let check = |line: &str| check_of_fixing_task(&analyse(line).unwrap()).map(|c| words_of(&c));
        assert_eq!(check("bun run lint:fix").as_deref(), Some("bun run lint"));
        assert_eq!(check("npm run format-write").as_deref(), Some("npm run format"));
        // no fixing task, a test run, a task that is no check's (a checker's
        // own fixing option is the same operation already: options aside)
        for line in ["bun run lint", "npx eslint --fix src", "jest -u", "npm run db:fix", "git commit --fixup HEAD"] {
            assert_eq!(check(line), None, "{line}");
        }
    }

    #[test]
    fn checks_and_scratch_work_change_nothing() {
        let read = |line: &str| analyse(line).unwrap();
        assert!(only_checks(&read("go vet ./...")));
        assert!(only_checks(&read("npx tsc --noEmit")));
        assert!(only_checks(&read("npm run lint 2>&1 | tail")));
        assert!(!only_checks(&read("npm run lint -- --fix")));
        assert!(!only_checks(&read("npm run lint:fix")));
        assert!(!only_checks(&read("npx eslint --fix src")));
        assert!(!only_checks(&read("npm run build")));
        assert!(!only_checks(&read("npx tsc")));
        // `A && echo YES || echo NO`: the words say how A ended
        let nc = "nc -z -w3 db 6380 && echo \"PORT OPEN\" || echo \"PORT CLOSED\"";
        let ends = |out: &str| reported_ends(nc, out).into_iter().map(|(c, ok)| (c.subject, ok)).collect::<Vec<_>>();
        assert_eq!(ends("PORT OPEN\n"), [("nc".to_owned(), true)]);
        assert_eq!(ends("PORT CLOSED\n"), [("nc".to_owned(), false)]);
        assert!(ends("").is_empty());
        assert!(reported_ends("curl -s x | grep -q ok && echo up || echo down", "up").is_empty());
        // a runner's test task is a checker; the shell's `test` is not
        assert!(is_checker(&read("npm run test:unit")) && is_checker(&read("make lint")));
        assert!(!is_checker(&read("test -f package.json")) && !is_checker(&read("npm run db:seed")));
        assert!(works_in_temp(&read("cat > /tmp/probe.go <<'EOF'\npackage main\nEOF")));
        assert!(works_in_temp(&read("python3 /tmp/probe.py")));
        assert!(works_in_temp(&read("node \"$TMPDIR/x.js\"")));
        assert!(!works_in_temp(&read("python3 scripts/migrate.py /tmp/out")));
        assert!(!works_in_temp(&read("cat > src/config.json <<'EOF'\n{}\nEOF")));
        assert!(is_temp_path("C:\\Users\\u\\AppData\\Local\\Temp\\claude\\x.md"));
        // a program named by a variable is not known
        assert_eq!(subject("$lines | ForEach-Object { $_ }"), "");
        assert_eq!(subject("Set-Location D:\\app; npm run build"), "npm run build");
        assert_eq!(subject("{ make lint; } 2>&1"), "make lint");
    }

    #[test]
    fn here_documents_and_comments_are_not_commands() {
        let line = "cat > /tmp/x.py <<'EOF'\nimport os\nrm -rf /\nEOF\npython3 /tmp/x.py";
        assert_eq!(subject(line), "python x.py");
        assert_eq!(subject("git commit -m \"$(cat <<'EOF'\nfix: x\nEOF\n)\""), "git commit");
        assert_eq!(subject("# build it\nmake all"), "make all");
    }

    #[test]
    fn arguments_and_options_are_told_apart() {
        let c = analyse("git push -u origin feature/x").unwrap();
        assert_eq!(c.subject, "git push");
        assert_eq!(c.arguments, ["origin", "feature/x"]);
        assert_eq!(c.options, ["-u"]);
        let c = analyse("git commit -m 'a message' src/a.rs").unwrap();
        assert_eq!(c.arguments, ["src/a.rs"]);
        let c = analyse("pytest tests/test_a.py::test_x -k slow").unwrap();
        assert_eq!(
            (c.subject.as_str(), c.arguments.as_slice()),
            ("pytest", &["tests/test_a.py::test_x".to_string()][..])
        );
        let c = analyse("python3 -c 'import yaml'").unwrap();
        assert_eq!(
            (c.subject.as_str(), c.arguments.as_slice()),
            ("python -c", &["import yaml".to_string()][..])
        );
    }

    #[test]
    fn looking_around_is_inspection() {
        for line in [
            "ls -la src",
            "cat a.txt | head",
            "git status",
            "git log --oneline -5",
            "which python3",
            "grep -rn foo src",
            "command -v jq",
            "sed -n 1,5p a.txt",
            "node --version",
            "git config user.email",
            "git config --get-regexp user a",
            "git config --list",
        ] {
            assert!(analyse(line).unwrap().inspection, "{line}");
        }
        for line in [
            "npm install",
            "git commit -m x",
            "sed -i s/a/b/ f",
            "git branch -D old",
            "git config user.email me@example.com",
            "git config --global user.name \"A B\"",
            "git config --unset core.hooksPath",
            "make",
            "rm -rf x",
        ] {
            assert!(!analyse(line).unwrap().inspection, "{line}");
        }
    }

    #[test]
    fn a_success_proves_what_it_could_not_hide() {
        let subjects = |line| analyse_chain(line).into_iter().map(|c| c.subject).collect::<Vec<_>>();
        assert_eq!(
            subjects("cd web && bun run lint && bun run typecheck"),
            ["bun run lint", "bun run typecheck"]
        );
        // a fallback, a filter after it, an earlier item of a list: no proof
        assert!(subjects("npm test || echo failed").is_empty());
        assert!(subjects("npm run build 2>&1 | head -50").is_empty());
        assert_eq!(subjects("npm test; git status"), ["git status"]);
        // a consumer after it is proof
        assert_eq!(subjects("gh api x | jq .name"), ["gh api", "jq"]);
        assert_eq!(subjects("cd x"), ["cd"]);
    }

    #[test]
    fn what_a_command_writes_and_is_fed_are_its_arguments() {
        let c = analyse("cat >> notes.md << 'EOF'\nhello\nEOF").unwrap();
        assert!(!c.inspection);
        assert_eq!(c.arguments, [">notes.md", "<<hello"]);
        let a = analyse("python3 - <<PY\nprint(1)\nPY").unwrap();
        let b = analyse("python3 - <<PY\nprint(2)\nPY").unwrap();
        assert_eq!(a.subject, b.subject);
        assert_ne!(a.arguments, b.arguments);
        assert!(analyse("ls > /dev/null").unwrap().inspection);
    }

    #[test]
    fn a_front_program_comes_off_a_known_tool() {
        let inner = without_front(&analyse("rtk bun run test 2>&1").unwrap()).unwrap();
        assert_eq!(inner.subject, "bun run test");
        assert!(without_front(&analyse("npm test").unwrap()).is_none());
        assert!(without_front(&analyse("mytool --fast report.txt").unwrap()).is_none());
        assert!(without_front(&analyse("which pytest").unwrap()).is_none());
    }

    #[test]
    fn installs_name_their_packages() {
        assert_eq!(
            analyse("pip install pyyaml==6.0 requests").unwrap().installs,
            ["pyyaml", "requests"]
        );
        assert_eq!(
            analyse("python3 -m pip install -U PyYAML").unwrap().installs,
            ["pyyaml"]
        );
        assert_eq!(analyse("npm i -D @types/node@20").unwrap().installs, ["@types/node"]);
        assert_eq!(analyse("sudo apt-get install -y tree").unwrap().installs, ["tree"]);
        assert!(analyse("npm install").unwrap().installs.is_empty());
    }

    #[test]
    fn unrelated_commands_have_other_subjects() {
        assert_ne!(subject("ls -la"), subject("python3 app.py"));
        assert_ne!(subject("git status"), subject("git checkout main"));
        assert_ne!(subject("npm run lint"), subject("npm run build"));
        assert_ne!(subject("python3 other.py"), subject("python3 app.py"));
        assert_ne!(subject("mise run lint:full"), subject("mise run test"));
        assert_eq!(command_subject("   "), None);
        assert_eq!(command_subject("# only a comment"), None);
    }
}
