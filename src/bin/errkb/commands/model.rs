//! `errkb model download|prepare`. The download is `errkb-hub`'s (the
//! program beside this one that reaches the network: see
//! `src/bin/errkb-hub/model_download.rs`), into the folder this program
//! names; preparing the folder is this program's, after a download as
//! for `errkb model prepare`.

use std::ffi::OsString;
use std::process::ExitCode;

use anyhow::Result;

use crate::cli::ModelAction;
use crate::commands::hub;

/// `errkb model download|prepare`.
pub fn command(action: ModelAction, out: &mut impl std::io::Write) -> Result<ExitCode> {
    let dir = match action {
        ModelAction::Download { repo, fp32 } => {
            let dest = errkb::runtime::paths::data_root()?.join("models").join(&repo);
            let mut args: Vec<OsString> = vec!["model-download".into(), "--repo".into(), repo.into()];
            args.extend(["--into".into(), dest.clone().into_os_string()]);
            if fp32 {
                args.push("--fp32".into());
            }
            let downloaded = hub::run(None, args)?;
            if downloaded != ExitCode::SUCCESS {
                return Ok(downloaded);
            }
            dest
        }
        ModelAction::Prepare { dir } => dir,
    };
    let conn = errkb::runtime::db::open_in_memory()?;
    let prepared: String = conn.query_row("SELECT errkb_prepare_model(?1)", [dir.to_string_lossy()], |r| r.get(0))?;
    writeln!(out, "ready: {prepared}")?;
    Ok(ExitCode::SUCCESS)
}
