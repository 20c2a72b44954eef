//! `errkb model download|prepare`. The download is `errkb-hub`'s (the
//! program beside this one that reaches the network: see
//! `src/bin/errkb-hub/model_download.rs`); preparing a model folder is
//! this program's.

use anyhow::Result;

use crate::cli::ModelAction;
use crate::commands::hub;

/// `errkb model download|prepare`.
pub fn command(action: ModelAction, out: &mut impl std::io::Write) -> Result<std::process::ExitCode> {
    let dir = match action {
        ModelAction::Download { repo, fp32 } => {
            let args = ["model-download", "--repo", &repo].into_iter().chain(fp32.then_some("--fp32"));
            return hub::run(None, args.map(Into::into));
        }
        ModelAction::Prepare { dir } => dir,
    };
    let conn = errkb::runtime::db::open_in_memory()?;
    let prepared: String = conn.query_row("SELECT errkb_prepare_model(?1)", [dir.to_string_lossy()], |r| r.get(0))?;
    writeln!(out, "ready: {prepared}")?;
    Ok(std::process::ExitCode::SUCCESS)
}
