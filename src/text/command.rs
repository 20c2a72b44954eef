//! `command_subject(command)`: what a shell command runs, to tell whether a
//! later command is the same one run again (SPEC §5.1).
//!
//! After `python3 app.py` fails, a successful `ls` or `git status` is not
//! its fix; `python app.py` (or `cd api && python3 app.py --port 1`) is its
//! retry. The subject is the program, plus what decides what it does: the
//! script of an interpreter, the module of `-m`, the subcommand of a tool
//! with subcommands (`git checkout`, `npm run build`, `cargo test`), the
//! target of make. Versions of an interpreter are one program
//! (`python3.11` → `python`); prefixes that do not change what runs (`cd
//! dir &&`, `VAR=x`, `sudo`, `time`) and what a pipe does with the output
//! are left out.

/// Interpreters: the subject is the script (or `-m module`, `-c`).
const INTERPRETERS: &[&str] = &[
    "python", "node", "deno", "ruby", "perl", "php", "bash", "sh", "zsh", "ts-node", "tsx", "lua", "Rscript",
];
/// Tools whose first argument is a subcommand.
const WITH_SUBCOMMANDS: &[&str] = &[
    "npm",
    "pnpm",
    "yarn",
    "bun",
    "npx",
    "cargo",
    "go",
    "git",
    "docker",
    "podman",
    "kubectl",
    "terraform",
    "pip",
    "uv",
    "poetry",
    "pipenv",
    "conda",
    "gradle",
    "./gradlew",
    "mvn",
    "dotnet",
    "rails",
    "bundle",
    "composer",
    "helm",
    "gh",
    "brew",
    "apt",
    "apt-get",
    "systemctl",
    "rustup",
    "swift",
    "flutter",
    "dart",
    "mix",
    "stack",
    "cabal",
    "make",
    "just",
    "rake",
    "invoke",
    "nx",
    "turbo",
    "firebase",
    "aws",
    "gcloud",
    "az",
    "heroku",
    "vercel",
    "wrangler",
    "supabase",
    "prisma",
    "alembic",
    "django-admin",
    "manage.py",
    "artisan",
];
/// Prefixes that do not change which program runs.
const WRAPPERS: &[&str] = &[
    "sudo", "time", "exec", "nohup", "env", "command", "nice", "timeout", "xvfb-run",
];

/// The subject of a shell command, or `None` when it has no program.
pub fn command_subject(command: &str) -> Option<String> {
    let last = last_command(command);
    let words = shell_words(last);
    let mut words = words.iter().map(String::as_str).peekable();
    // Leading assignments and wrappers (with their options, e.g. `timeout 5`).
    while let Some(&w) = words.peek() {
        if is_assignment(w) || WRAPPERS.contains(&w) || w.starts_with('-') || is_number(w) {
            words.next();
        } else {
            break;
        }
    }
    let program = program_name(words.next()?);
    let rest: Vec<&str> = words.collect();
    let first_arg = |skip_options: bool| {
        rest.iter()
            .copied()
            .find(|w| !(is_assignment(w) || skip_options && w.starts_with('-')))
    };
    let subject = if INTERPRETERS.contains(&program.as_str()) {
        match rest.iter().position(|w| *w == "-m" || *w == "-c" || *w == "-e") {
            Some(at) if rest[at] == "-m" => format!("{program} -m {}", rest.get(at + 1).unwrap_or(&"")),
            Some(at) => format!("{program} {}", rest[at]),
            None => match first_arg(true) {
                Some(script) => format!("{program} {}", path_tail(script)),
                None => program,
            },
        }
    } else if WITH_SUBCOMMANDS.contains(&program.as_str()) {
        match first_arg(true) {
            // `npm run build`, `yarn run test`: the script decides.
            Some(sub @ ("run" | "run-script" | "exec" | "x")) => {
                let script = rest
                    .iter()
                    .skip_while(|w| **w != sub)
                    .skip(1)
                    .find(|w| !w.starts_with('-'));
                format!("{program} {sub}{}", script.map(|s| format!(" {s}")).unwrap_or_default())
            }
            Some(sub) => format!("{program} {sub}"),
            None => program,
        }
    } else {
        program
    };
    Some(subject)
}

/// The last command of a `&&` / `||` / `;` chain, without what a pipe does
/// with its output: `cd api && npm test 2>&1 | tail` → `npm test 2>&1`.
fn last_command(command: &str) -> &str {
    let first_line = command.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let mut last = first_line;
    for separator in ["&&", "||", ";"] {
        if let Some((_, tail)) = last.rsplit_once(separator) {
            if !tail.trim().is_empty() {
                last = tail;
            }
        }
    }
    // A chain like `cd x && (npm test)`: the parentheses go.
    let last = last.split('|').next().unwrap_or(last);
    last.trim().trim_matches(|c| c == '(' || c == ')').trim()
}

/// Words of a simple command, quotes removed (no expansion).
fn shell_words(command: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quote: Option<char> = None;
    let mut in_word = false;
    for c in command.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                in_word = true;
            }
            (None, c) if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            (None, '>' | '<') => break, // redirections: the rest is not the command
            (None, c) => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

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
    !word.is_empty() && word.chars().all(|c| c.is_ascii_digit() || c == '.' || c == 's')
}

/// `/usr/bin/python3.11` → `python`, `./run.sh` → `run.sh`, `pip3` → `pip`.
fn program_name(word: &str) -> String {
    let name = path_tail(word);
    for family in ["python", "pip", "node", "ruby", "perl", "php"] {
        if let Some(version) = name.strip_prefix(family) {
            if version.chars().all(|c| c.is_ascii_digit() || c == '.') {
                return family.to_string();
            }
        }
    }
    if name == "nodejs" {
        return "node".to_string();
    }
    name.to_string()
}

/// The last component of a path: `./src/app.py` and `src/app.py` are one script.
fn path_tail(word: &str) -> &str {
    word.rsplit('/').find(|p| !p.is_empty()).unwrap_or(word)
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
        assert_eq!(subject("python -m pytest -q tests"), "python -m pytest");
        assert_eq!(subject("timeout 60 cargo test --release"), "cargo test");
    }

    #[test]
    fn unrelated_commands_have_other_subjects() {
        assert_ne!(subject("ls -la"), subject("python3 app.py"));
        assert_ne!(subject("git status"), subject("git checkout main"));
        assert_ne!(subject("npm run lint"), subject("npm run build"));
        assert_ne!(subject("python3 other.py"), subject("python3 app.py"));
        assert_eq!(command_subject("   "), None);
    }
}
