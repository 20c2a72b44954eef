//! `errkb`: the command-line runner of the errkb knowledge base.
//!
//! It opens the database with the extension compiled in (the same code the
//! sqlite3 shell loads as `errkb.so`) and runs SQL: the scripts under `sql/`
//! hold the logic, this binary binds parameters and prints results. This
//! file only dispatches: the command line is `cli.rs`, each command a
//! module of `commands/`, how the agents' hooks and files are read is
//! `agent/`; opening the database and running scripts is the library's
//! `errkb::runtime`, which errkb-hub shares.

mod agent;
mod cli;
mod commands;

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;
use clap::Parser;

use cli::{Cli, Command};
use commands::{
    catalog, doctor, embed, hook, hub, install, install_codex, learn, migrate, model, plugin, record, run, search,
};
use errkb::runtime::{db, paths};

// The unwinder (panics, backtraces) linked in from GCC's static libgcc_eh,
// so that the program no longer needs libgcc_s.so: every hook process
// loaded that library and ran its constructor, which queries the CPU's
// features, and on a virtual machine each such query traps to the
// hypervisor (what that cost is in docs/DESIGN.md, Hooks). The same
// unwinder, so panics are caught and reported as before; a library loaded
// later that needs libgcc_s (ONNX Runtime) loads its own copy for its own
// frames.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[link(name = "gcc_eh", kind = "static", modifiers = "-bundle")]
extern "C" {}

fn main() -> ExitCode {
    errkb::runtime::private::restrict_process();
    let cli = Cli::parse();
    match dispatch(cli) {
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
        // A hook never fails: it logs what went wrong and exits 0. Paths are
        // resolved inside, so that even a missing HOME is logged.
        Command::Hook { event, agent } => {
            hook::run(&event, agent, cli.db);
            Ok(ExitCode::SUCCESS)
        }
        Command::Doctor => doctor::command(&paths::database(cli.db)?, paths::extension(cli.extension), out),
        Command::Init => {
            let db_path = paths::database(cli.db)?;
            db::open(&db_path, db::Access::ReadWrite)?;
            writeln!(out, "knowledge base ready: {}", db_path.display())?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Search { error, json } => search::run(&paths::database(cli.db)?, &error, json, out),
        Command::Record {
            error,
            resolution,
            resolved_by,
            tool_sequence,
        } => record::run(
            &paths::database(cli.db)?,
            error,
            resolution,
            resolved_by,
            tool_sequence,
            out,
        ),
        Command::Embed => embed::command(&paths::database(cli.db)?, out),
        Command::Catalog { langs } => catalog::command(&paths::database(cli.db)?, langs, out),
        Command::Migrate => migrate::run(&paths::database(cli.db)?, out),
        Command::Learn { paths: files } => learn::command(&paths::database(cli.db)?, files, out),
        Command::PluginHooks { agent } => {
            let hooks = match agent {
                cli::Agent::Claude => install::plugin_hooks_json(),
                cli::Agent::Codex => install_codex::plugin_hooks_json(),
            };
            write!(out, "{hooks}")?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Plugin {
            action: cli::PluginAction::Path,
        } => plugin::path(out),
        Command::Install { dry_run, agent } => install::command(
            &paths::database(cli.db)?,
            &paths::extension(cli.extension)?,
            dry_run,
            &agent,
            out,
        ),
        Command::Uninstall { dry_run, agent } => {
            install::uninstall(dry_run, &agent, out)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Model { action } => model::command(action, out),
        Command::Run { file, params } => run::command(&paths::database(cli.db)?, &file, params, out),
        // the team hub is errkb-hub's (see commands/hub.rs)
        Command::Hub { args } => hub::run(cli.db, args),
        Command::Sync { if_due } => hub::run(
            cli.db,
            ["sync"].into_iter().chain(if_due.then_some("--if-due")).map(Into::into),
        ),
        Command::Forget { fix } => hub::run(cli.db, ["forget".into(), fix.into()]),
        Command::AfterSession => {
            // a hub that fails is recorded and tried later; the embedding runs anyway
            if let Err(e) = hub::sync_if_joined(cli.db.clone()) {
                eprintln!("errkb: {e:#}");
            }
            let db_path = paths::database(cli.db)?;
            embed::command(&db_path, out)
        }
    }
}
