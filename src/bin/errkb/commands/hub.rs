//! `errkb hub …`, `errkb sync`, `errkb forget`, `errkb model download`,
//! and the sync the end-of-session job and `errkb learn` start: all run
//! `errkb-hub`, the program beside this one that holds the team hub's code
//! and the model download, so that this program (every hook's) has no
//! network, TLS or PostgreSQL client in it.

use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, ExitCode};

use anyhow::{bail, Context, Result};

/// Run errkb-hub with `args` (and the database, when one was named), its
/// output this command's; its exit code is this command's.
pub fn run(db: Option<PathBuf>, args: impl IntoIterator<Item = OsString>) -> Result<ExitCode> {
    let program = program()?;
    std::io::stdout().flush()?;
    let mut command = Command::new(&program);
    if let Some(db) = db {
        command.arg("--db").arg(db);
    }
    let status = command
        .args(args)
        .status()
        .with_context(|| format!("cannot run {}", program.display()))?;
    Ok(status
        .code()
        .and_then(|c| u8::try_from(c).ok())
        .map_or(ExitCode::from(2), ExitCode::from))
}

/// The sync that runs unasked (the detached end-of-session job, the end of
/// `errkb learn`): only when a hub is joined, and only when due (errkb-hub
/// records a failure and backs off). Waits for it.
pub fn sync_if_joined(db: Option<PathBuf>) -> Result<()> {
    if errkb::config::hub_url().is_some() {
        run(db, ["sync".into(), "--if-due".into()])?;
    }
    Ok(())
}

/// errkb-hub, beside this program (as make, errkb install and the plugin
/// place it).
fn program() -> Result<PathBuf> {
    let exe = std::env::current_exe().context("cannot tell where errkb is")?;
    let program = exe.with_file_name(format!("errkb-hub{}", std::env::consts::EXE_SUFFIX));
    if !program.exists() {
        bail!(
            "{} is missing: the team hub and the model download are that program, installed beside errkb \
             (make loadable, errkb install and the plugin put it there)",
            program.display()
        );
    }
    Ok(program)
}
