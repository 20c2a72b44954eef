//! `errkb-hub`: errkb's team hub, and the one program of errkb's that
//! reaches the network. `errkb hub …`, `errkb sync`, `errkb forget` and
//! `errkb model download` run it (it sits beside `errkb`), as do the
//! detached end-of-session job and `errkb learn` when a hub is joined.
//!
//! A program of its own so that the hooks' program has no network,
//! TLS or PostgreSQL client code in it: a hook's start-up is what it is
//! without them (`make bench` compares). It shares `errkb`'s runtime (opening the
//! database, running the scripts, the config file): `errkb::runtime`.

mod commands;
mod hub;
mod model_download;

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::{Parser, Subcommand};

use errkb::runtime::{self, paths};

#[derive(Parser)]
// bin_name: its usage as people type it (errkb hub …), not the name of
// the program errkb starts
#[command(
    name = "errkb hub",
    bin_name = "errkb hub",
    version,
    about = "Share fixes with a team through a PostgreSQL hub"
)]
struct Cli {
    /// Database file [default: ~/.reflexion/data/reflexion.db]
    #[arg(long, global = true, env = "ERRKB_DB")]
    db: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Create or upgrade the hub in a PostgreSQL database (as its owner):
    /// the schema, the members' role and what each member may do
    Init {
        /// postgresql://USER@HOST:PORT/DBNAME?sslmode=verify-full, or - to
        /// read it from standard input (the password belongs in ~/.pgpass or
        /// PGPASSWORD: a command line is visible to every user of the machine)
        url: String,
    },
    /// Share through this hub from now on (recorded in config.json, without
    /// a password), and sync once
    Join {
        /// postgresql://LOGIN@HOST:PORT/DBNAME, or - to read it from standard input
        url: String,
    },
    /// Stop sharing (what was received stays)
    Leave,
    /// Whether the hub is reachable, the last sync, what waits to be sent
    Status,
    /// Send this machine's new fixes and counts to the hub, then receive
    /// the team's (`errkb sync`)
    Sync {
        /// Only when a hub is joined and no recent failure asks to wait
        /// (the background runs)
        #[arg(long, hide = true)]
        if_due: bool,
    },
    /// Retract a fix here, and withdraw your copy of it from the hub at
    /// the next sync (`errkb forget`)
    Forget {
        /// The fix: its id (errkb search --json shows it) or its uid
        fix: String,
    },
    /// As the hub's owner: retract a fix for everyone
    Retract {
        /// The fix: its id or uid here, or its uid on the hub
        fix: String,
        /// The hub, logged in as its owner [default: the joined hub]
        #[arg(long)]
        url: Option<String>,
    },
    /// As the hub's owner: remove a member and everything it sent
    RemoveMember {
        /// The member's login
        name: String,
        /// The hub, logged in as its owner [default: the joined hub]
        #[arg(long)]
        url: Option<String>,
    },
    /// Download the production model into a folder (`errkb model
    /// download`, which documents it, names the folder and prepares it)
    #[command(hide = true)]
    ModelDownload {
        #[arg(long)]
        repo: String,
        #[arg(long)]
        into: PathBuf,
        #[arg(long)]
        fp32: bool,
    },
}

fn main() -> ExitCode {
    runtime::private::restrict_process();
    match dispatch(Cli::parse()) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("errkb: {err:#}");
            ExitCode::from(2)
        }
    }
}

fn dispatch(cli: Cli) -> Result<ExitCode> {
    let out = &mut std::io::stdout().lock();
    match cli.command {
        Command::Init { url } => commands::init(&url, out),
        Command::Join { url } => commands::join(&paths::database(cli.db)?, &url, out),
        Command::Leave => commands::leave(out),
        Command::Status => commands::status(&paths::database(cli.db)?, out),
        Command::Sync { if_due } => commands::run_sync(&paths::database(cli.db)?, if_due, out),
        Command::Forget { fix } => commands::forget(&paths::database(cli.db)?, &fix, out),
        Command::Retract { fix, url } => commands::retract(&paths::database(cli.db)?, &fix, url.as_deref(), out),
        Command::RemoveMember { name, url } => commands::remove_member(&name, url.as_deref(), out),
        Command::ModelDownload { repo, into, fp32 } => model_download::command(&repo, &into, fp32, out),
    }
}
