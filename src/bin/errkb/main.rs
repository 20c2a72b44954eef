//! `errkb`: the command-line runner of the errkb knowledge base.
//!
//! It opens the database with the extension compiled in (the same code the
//! sqlite3 shell loads as `errkb.so`) and runs SQL: the scripts under `sql/`
//! hold the logic, this binary only binds parameters and prints results.
//!
//! No Rust `main`: the C `main` below starts the program without the
//! standard library's start-up, which finds the main thread's stack by
//! reading `/proc/self/maps` and sets up a stack-overflow handler; in a
//! hook process, which lives a few milliseconds, that was about 0.2 ms.
#![cfg_attr(not(test), no_main)]
// Under `cargo test` the harness's `main` replaces it, and what only `main`
// reaches is unused there (as it is for a Rust `main`, which the harness
// exempts).
#![cfg_attr(test, allow(dead_code))]

mod catalog;
mod db;
mod doctor;
mod embed_job;
mod hook;
mod install;
mod learn;
mod model_download;
mod paths;
mod payload;
mod private;
mod script;
mod search;
mod shared_libraries;

use std::io::{IsTerminal, Read, Write};
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};

use db::Access;
use script::Params;

const RECORD_SQL: &str = include_str!("../../../sql/record.sql");
const RENORMALIZE_SQL: &str = include_str!("../../../sql/jobs/renormalize_keys.sql");

#[derive(Parser)]
#[command(name = "errkb", version, about = "Error knowledge base for AI coding agents")]
struct Cli {
    /// Database file [default: ~/.reflexion/data/reflexion.db]
    #[arg(long, global = true, env = "ERRKB_DB")]
    db: Option<PathBuf>,
    /// The extension file for the sqlite3 shell, which install copies and doctor
    /// checks (errkb itself has it built in) [default: errkb.so next to this
    /// program, then ~/.reflexion/lib/]
    #[arg(long, global = true, env = "ERRKB_EXTENSION")]
    extension: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Create the database and its schema (writes do this by themselves)
    Init,
    /// Find how an error was fixed before; exits 1 when nothing matches
    Search {
        /// The error text, as a tool printed it (normalised here)
        error: String,
        /// Print the matching row as JSON
        #[arg(long)]
        json: bool,
    },
    /// Record how an error was fixed
    Record {
        /// The error text, as a tool printed it (normalised into the key)
        #[arg(long)]
        error: String,
        /// How it was fixed: a JSON object ({"resolvedBy", "tool", "toolSequence", ...}) or plain text
        #[arg(long)]
        resolution: String,
        /// The tool that fixed it
        #[arg(long)]
        resolved_by: Option<String>,
        /// Tools used to fix it, comma-separated (e.g. Read,Edit)
        #[arg(long, value_delimiter = ',')]
        tool_sequence: Vec<String>,
    },
    /// Run a Claude Code hook: the payload on stdin, the answer on stdout;
    /// always exits 0 (failures go to ~/.reflexion/logs/hooks.log)
    Hook {
        /// The hook event, e.g. PostToolUseFailure
        event: String,
    },
    /// Install the hooks into Claude Code (~/.claude/settings.json) and
    /// what they run into ~/.reflexion
    Install {
        /// Show what would change; change nothing
        #[arg(long)]
        dry_run: bool,
    },
    /// Remove errkb's hooks from Claude Code's settings (data stays)
    Uninstall {
        /// Show what would change; change nothing
        #[arg(long)]
        dry_run: bool,
    },
    /// Check the database, extension, model and hooks; show recent hook failures
    Doctor,
    /// Print the hooks as a Claude Code plugin's hooks/hooks.json
    PluginHooks,
    /// Recompute the knowledge base's keys with the current normalize_error
    /// (for a database whose keys the original JavaScript code made)
    Migrate,
    /// Embed every knowledge-base entry that has no vector yet
    Embed,
    /// Learn from Claude Code's transcripts what the hooks would have
    /// learned (errors, and the fixes that followed); safe to run again
    Learn {
        /// Transcript files or folders [default: ~/.claude/projects]
        paths: Vec<PathBuf>,
    },
    /// Read the machine's gettext catalogs for your languages, so that
    /// localized tool messages match their English originals
    Catalog {
        /// Languages (e.g. ko, de_DE) [default: from LANGUAGE, LC_ALL, LC_MESSAGES, LANG]
        #[arg(long = "lang", value_delimiter = ',')]
        langs: Vec<String>,
    },
    /// Get or prepare the embedding model
    Model {
        #[command(subcommand)]
        action: ModelAction,
    },
    /// Run a .sql file; standard input (when piped) is bound as :stdin
    Run {
        file: PathBuf,
        /// Bind a named parameter (repeatable): --param name=value
        #[arg(long = "param", value_name = "NAME=VALUE", value_parser = script::parse_param)]
        params: Vec<(String, String)>,
    },
}

#[derive(Subcommand)]
enum ModelAction {
    /// Download the production model from Hugging Face (checksums verified)
    /// into ~/.reflexion/models/, then prepare it
    Download {
        /// Hugging Face repository
        #[arg(long, default_value = model_download::PRODUCTION_REPO)]
        repo: String,
        /// The float32 model instead of the int8 one
        #[arg(long)]
        fp32: bool,
    },
    /// Write the fast-loading copy (model.onnx + model.onnx.data) of a model directory
    Prepare { dir: PathBuf },
}

/// A process's exit status (the standard library's cannot be turned into
/// the number `main` returns).
#[derive(Clone, Copy)]
pub struct ExitCode(u8);

impl ExitCode {
    pub const SUCCESS: ExitCode = ExitCode(0);
}

impl From<u8> for ExitCode {
    fn from(code: u8) -> Self {
        ExitCode(code)
    }
}

/// The program's entry point. Of what the standard library's start-up
/// does, errkb needs two things, done here: standard input, output and
/// error are open (a closed one is `/dev/null`, so no file of ours takes
/// its number), and a closed pipe is an error to write to, not a signal
/// that kills the process.
#[cfg(not(test))] // the test harness has its own
#[no_mangle]
pub extern "C" fn main(_argc: std::ffi::c_int, _argv: *const *const std::ffi::c_char) -> std::ffi::c_int {
    // SAFETY: plain system calls on descriptors 0 to 2 and one signal's
    // disposition, before any other code runs.
    unsafe {
        for fd in 0..3 {
            if libc::fcntl(fd, libc::F_GETFD) == -1 {
                libc::open(c"/dev/null".as_ptr(), libc::O_RDWR);
            }
        }
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
    // A panic has been printed by then (a hook catches its own); it ends
    // the process with status 101, as a Rust `main` would.
    let ExitCode(code) = std::panic::catch_unwind(errkb_main).unwrap_or(ExitCode(101));
    // Everything is written and committed by now; what `exit` would still
    // do is run the C++ destructors of ONNX Runtime, once loaded, which
    // free the model piece by piece (about 10 ms of a hook that searched
    // by meaning). Standard output is flushed first, as `exit` would.
    let _ = std::io::stdout().flush();
    // SAFETY: ends the process; no Rust code runs after it.
    unsafe { libc::_exit(code.into()) }
}

fn errkb_main() -> ExitCode {
    private::restrict_process();
    // `errkb hook <Event>`, as Claude Code runs it, without building the
    // whole command line's parser (a few percent of a hook's work).
    if let [_, command, event] = &std::env::args_os().collect::<Vec<_>>()[..] {
        if let (Some("hook"), Some(event)) = (command.to_str(), event.to_str()) {
            if !event.starts_with('-') {
                let db = std::env::var_os("ERRKB_DB")
                    .filter(|db| !db.is_empty())
                    .map(PathBuf::from);
                hook::run(event, db);
                return ExitCode::SUCCESS;
            }
        }
    }
    let cli = Cli::parse();
    if let Command::Hook { event } = &cli.command {
        // Paths are resolved inside, so that even a missing HOME is logged, not fatal.
        hook::run(event, cli.db);
        return ExitCode::SUCCESS;
    }
    match run(cli) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("errkb: {err:#}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode> {
    let db_path = paths::database(cli.db)?;
    if let Command::Doctor = cli.command {
        let healthy = doctor::run(&db_path, paths::extension(cli.extension), &mut std::io::stdout().lock())?;
        return Ok(if healthy { ExitCode::SUCCESS } else { ExitCode::from(1) });
    }
    let mut out = std::io::stdout().lock();
    match cli.command {
        Command::Init => {
            db::open(&db_path, Access::ReadWrite)?;
            writeln!(out, "knowledge base ready: {}", db_path.display())?;
        }
        Command::Search { error, json } => return search::run(&db_path, &error, json, &mut out),
        Command::Record {
            error,
            resolution,
            resolved_by,
            tool_sequence,
        } => {
            let conn = db::open(&db_path, Access::ReadWrite)?;
            let mut params = Params::default();
            params.set("error", error);
            params.set("resolution", resolution);
            if let Some(tool) = resolved_by {
                params.set("resolved_by", tool);
            }
            if !tool_sequence.is_empty() {
                params.set("tool_sequence", serde_json::to_string(&tool_sequence)?);
            }
            script::run(&conn, RECORD_SQL, &params, &mut out)?;
        }
        Command::Embed => {
            // The batch job may use every core; the realtime path keeps one.
            if std::env::var_os("ERRKB_EMBED_THREADS").is_none() {
                errkb::embedding::embed::set_threads(std::thread::available_parallelism().map_or(1, |n| n.get()));
            }
            let conn = db::open(&db_path, Access::ReadWrite)?;
            match embed_job::run(&conn, &db_path)? {
                embed_job::Outcome::Ran(s) => writeln!(out, "embedded {}, skipped {}", s.embedded, s.skipped)?,
                embed_job::Outcome::AlreadyRunning => writeln!(out, "another embedding job is running")?,
            }
        }
        Command::Catalog { langs } => {
            let langs = if langs.is_empty() {
                catalog::user_languages()
            } else {
                langs
            };
            if langs.is_empty() {
                writeln!(
                    out,
                    "no language besides English in LANGUAGE/LC_ALL/LC_MESSAGES/LANG; pass --lang"
                )?;
                return Ok(ExitCode::SUCCESS);
            }
            let conn = db::open(&db_path, Access::ReadWrite)?;
            let s = catalog::build(&conn, &langs)?;
            writeln!(
                out,
                "message catalog: {} messages from {} catalogs ({})",
                s.messages,
                s.domains,
                if s.languages.is_empty() {
                    "no catalogs found".to_string()
                } else {
                    s.languages.join(", ")
                }
            )?;
        }
        Command::Hook { .. } | Command::Doctor => unreachable!("handled above"),
        Command::Migrate => {
            let conn = db::open(&db_path, Access::ReadWrite)?;
            // the job's report: (entries re-keyed, entries merged)
            let report = script::rows(&conn, RENORMALIZE_SQL, &Params::default())?;
            let row = report.first().context("renormalize_keys.sql reported nothing")?;
            let (rekeyed, merged) = (
                script::integer(row, 0).unwrap_or(0),
                script::integer(row, 1).unwrap_or(0),
            );
            writeln!(
                out,
                "re-keyed {rekeyed} entries, merged {merged}; run errkb embed for their vectors"
            )?;
        }
        Command::Learn { paths } => {
            let paths = if paths.is_empty() {
                let default = learn::default_transcripts()?;
                if !default.is_dir() {
                    writeln!(
                        out,
                        "no Claude Code transcripts in {} (nothing to learn)",
                        default.display()
                    )?;
                    return Ok(ExitCode::SUCCESS);
                }
                vec![default]
            } else {
                paths
            };
            let conn = db::open(&db_path, Access::ReadWrite)?;
            let summary = learn::run(&conn, &paths)?;
            write!(out, "{summary}")?;
            if summary.fixes_learned > 0 {
                writeln!(out, "run 'errkb embed' to make them findable by meaning too")?;
            }
        }
        Command::PluginHooks => write!(out, "{}", install::plugin_hooks_json())?,
        Command::Install { dry_run } => {
            install::install(&paths::extension(cli.extension)?, dry_run, &mut out)?;
            // Localized tool messages match their English originals once the
            // catalogs of the user's languages are indexed.
            let langs = catalog::user_languages();
            if !langs.is_empty() {
                if dry_run {
                    writeln!(out, "would index the message catalogs of: {}", langs.join(", "))?;
                } else {
                    let conn = db::open(&db_path, Access::ReadWrite)?;
                    let s = catalog::build(&conn, &langs)?;
                    writeln!(out, "indexed {} localized messages ({})", s.messages, langs.join(", "))?;
                }
            }
            if !dry_run {
                learn::offer(&db_path, &mut out)?;
            }
        }
        Command::Uninstall { dry_run } => install::uninstall(dry_run, &mut out)?,
        Command::Model { action } => {
            let dir = match action {
                ModelAction::Download { repo, fp32 } => {
                    let dest = paths::data_root()?.join("models").join(&repo);
                    let onnx = if fp32 {
                        "onnx/model.onnx"
                    } else {
                        "onnx/model_quantized.onnx"
                    };
                    for file in ["tokenizer.json", "tokenizer_config.json", onnx] {
                        if dest.join(file).is_file() {
                            writeln!(out, "{file}: already there")?;
                            continue;
                        }
                        model_download::fetch(&repo, file, &dest, &|msg| eprintln!("{msg}"))?;
                        writeln!(out, "{file}: downloaded and verified")?;
                    }
                    dest
                }
                ModelAction::Prepare { dir } => dir,
            };
            let conn = db::open_in_memory()?;
            let prepared: String =
                conn.query_row("SELECT errkb_prepare_model(?1)", [dir.to_string_lossy()], |r| r.get(0))?;
            writeln!(out, "ready: {prepared}")?;
        }
        Command::Run { file, params: pairs } => {
            let sql = std::fs::read_to_string(&file).with_context(|| format!("cannot read {}", file.display()))?;
            let conn = db::open(&db_path, Access::ReadWrite)?;
            let mut params = Params::default();
            if !std::io::stdin().is_terminal() {
                let mut input = Vec::new();
                std::io::stdin()
                    .read_to_end(&mut input)
                    .context("cannot read standard input")?;
                params.set("stdin", String::from_utf8_lossy(&input));
            }
            for (name, value) in pairs {
                params.set(&name, value);
            }
            script::run(&conn, &sql, &params, &mut out)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
