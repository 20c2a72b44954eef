//! The command line: every command, argument and flag, as clap reads them.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

use errkb::config::PRODUCTION_MODEL;
use errkb::runtime::script;

#[derive(Parser)]
#[command(name = "errkb", version, about = "Error knowledge base for AI coding agents")]
pub struct Cli {
    /// Database file [default: ~/.reflexion/data/reflexion.db]
    #[arg(long, global = true, env = "ERRKB_DB")]
    pub db: Option<PathBuf>,
    /// The extension file for the sqlite3 shell, which install copies and doctor
    /// checks (errkb itself has it built in) [default: errkb.so next to this
    /// program, then ~/.reflexion/lib/]
    #[arg(long, global = true, env = "ERRKB_EXTENSION")]
    pub extension: Option<PathBuf>,
    #[command(subcommand)]
    pub command: Command,
}

// (each command's arguments are built when it is the one run: a hook
// does not build the other commands' definitions)
#[derive(Subcommand)]
#[command(defer = true)]
pub enum Command {
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
    /// Run a hook of an agent: the payload on stdin, the answer on stdout;
    /// always exits 0 (failures go to ~/.reflexion/logs/hooks.log)
    Hook {
        /// The agent that runs it
        #[arg(long, value_enum, default_value_t = Agent::Claude)]
        agent: Agent,
        /// The hook event, e.g. PostToolUseFailure
        event: String,
    },
    /// Install the hooks into Claude Code (~/.claude/settings.json) and
    /// Codex (~/.codex/hooks.json), and what they run into ~/.reflexion
    Install {
        /// Show what would change; change nothing
        #[arg(long)]
        dry_run: bool,
        /// The agents to set up (repeatable) [default: each one found on
        /// this machine; Claude Code when none is]
        #[arg(long, value_enum)]
        agent: Vec<Agent>,
    },
    /// Remove errkb's hooks from Claude Code and Codex (data stays)
    Uninstall {
        /// Show what would change; change nothing
        #[arg(long)]
        dry_run: bool,
        /// The agents to remove them from (repeatable) [default: both]
        #[arg(long, value_enum)]
        agent: Vec<Agent>,
    },
    /// Check the database, extension, model and hooks; show recent hook failures
    Doctor,
    /// Print the hooks as a plugin's hooks file (Claude Code's
    /// hooks/hooks.json, or with --agent codex Codex's)
    PluginHooks {
        #[arg(long, value_enum, default_value_t = Agent::Claude)]
        agent: Agent,
    },
    /// errkb as a plugin (Claude Code's marketplace, which Codex reads too)
    Plugin {
        #[command(subcommand)]
        action: PluginAction,
    },
    /// Recompute the knowledge base's keys with the current normalize_error
    /// (for a database whose keys the original JavaScript code made)
    Migrate,
    /// Embed every knowledge-base entry that has no vector yet
    Embed,
    /// Learn from Claude Code's transcripts and Codex's session files what
    /// the hooks would have learned (errors, and the fixes that followed);
    /// safe to run again
    Learn {
        /// Transcript or session files, or folders [default: ~/.claude/projects,
        /// ~/.codex/sessions and ~/.codex/archived_sessions]
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
    /// Share fixes with a team through a PostgreSQL hub: init, join, leave,
    /// status, and the owner's retract and remove-member (errkb hub --help)
    #[command(disable_help_flag = true)]
    Hub {
        /// What errkb-hub, the program beside this one, is to do
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<std::ffi::OsString>,
    },
    /// Send this machine's new fixes and counts to the hub, then receive
    /// the team's
    Sync {
        /// Only when no recent failure asks to wait (the background runs)
        #[arg(long, hide = true)]
        if_due: bool,
    },
    /// Retract a fix here, and withdraw your copy of it from the team's
    /// hub at the next sync
    Forget {
        /// The fix: its id (errkb search --json shows it) or its uid
        fix: String,
    },
    /// What the end of a session starts, detached: sync with the hub when
    /// one is joined and due, then embed what needs a vector
    #[command(hide = true)]
    AfterSession,
    /// Run a .sql file; standard input (when piped) is bound as :stdin
    Run {
        file: PathBuf,
        /// Bind a named parameter (repeatable): --param name=value
        #[arg(long = "param", value_name = "NAME=VALUE", value_parser = script::parse_param)]
        params: Vec<(String, String)>,
    },
}

/// The coding agents errkb serves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Agent {
    /// Anthropic's Claude Code
    Claude,
    /// OpenAI's Codex CLI
    Codex,
}

impl Agent {
    pub fn name(self) -> &'static str {
        match self {
            Agent::Claude => "Claude Code",
            Agent::Codex => "Codex",
        }
    }
}

#[derive(Subcommand)]
pub enum ModelAction {
    /// Download the production model from Hugging Face (checksums verified)
    /// into ~/.reflexion/models/, then prepare it
    Download {
        /// Hugging Face repository
        #[arg(long, default_value = PRODUCTION_MODEL)]
        repo: String,
        /// The float32 model instead of the int8 one
        #[arg(long)]
        fp32: bool,
    },
    /// Write the fast-loading copy (model.onnx + model.onnx.data) of a model directory
    Prepare { dir: PathBuf },
}

#[derive(Subcommand)]
pub enum PluginAction {
    /// Print the folder of a plugin marketplace offering this errkb, for
    /// claude plugin marketplace add "$(errkb plugin path)"
    Path,
}
