//! `errkb plugin path`: a Claude Code plugin marketplace that offers errkb,
//! made of this errkb's own files, for
//! `claude plugin marketplace add "$(errkb plugin path)"`.
//!
//! errkb's packages lay their files out as `make plugin` does: the runner
//! is `<marketplace>/errkb/bin/errkb`, beside the extension, the hub's
//! program and the test model, with `.claude-plugin/marketplace.json` two
//! folders up. When that folder holds everything the plugin's hooks need
//! (ONNX Runtime beside the runner: the npm package, the release archive,
//! `make plugin`), it is the answer. The Python wheel leaves ONNX Runtime
//! to the onnxruntime wheel, outside that folder, and Claude Code runs a
//! plugin from its own copy, where that would not be found: the
//! marketplace is then copied to `~/.reflexion/marketplace` with the
//! library added, and the copy is the answer.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};

use errkb::runtime::paths;
use errkb::embedding::model_files;

const OFFER: &str = ".claude-plugin/marketplace.json";

pub fn path(out: &mut impl std::io::Write) -> Result<ExitCode> {
    let exe = std::env::current_exe()?;
    let bin = exe.parent().context("the program's folder")?;
    let market = bin.parent().and_then(Path::parent).filter(|m| m.join(OFFER).is_file());
    let Some(market) = market else {
        anyhow::bail!(
            "{} is not part of a plugin marketplace; run 'errkb plugin path' with errkb from its packages \
             (pip install errkb, npm install -g errkb) or the release archive, or build one with 'make plugin'",
            exe.display()
        );
    };
    let library = model_files::resolve_onnxruntime_for(Some(bin)).map_err(anyhow::Error::msg)?;
    if library.parent() == Some(bin) {
        writeln!(out, "{}", market.display())?;
        return Ok(ExitCode::SUCCESS);
    }
    let copy = paths::data_root()?.join("marketplace");
    if !current(market, &copy, &library) {
        crate::commands::install::copy_folder(market, &copy)?;
        let name = library.file_name().context("the library's name")?;
        std::fs::copy(&library, copy.join("errkb").join("bin").join(name))
            .with_context(|| format!("cannot copy {}", library.display()))?;
        // copies keep the package's modes; ~/.reflexion is private
        errkb::runtime::private::fix_tree(&copy)?;
        eprintln!(
            "errkb: the marketplace of {} with {} beside the runner, copied to {}",
            market.display(),
            library.display(),
            copy.display()
        );
    }
    writeln!(out, "{}", copy.display())?;
    Ok(ExitCode::SUCCESS)
}

/// Whether `copy` is `market` as copied with `library` added: the same
/// plugin manifest, runner and library (by size).
fn current(market: &Path, copy: &Path, library: &Path) -> bool {
    let same_text = |rel: &str| {
        let a = std::fs::read(market.join(rel)).ok();
        a.is_some() && a == std::fs::read(copy.join(rel)).ok()
    };
    let size = |p: PathBuf| std::fs::metadata(p).ok().map(|m| m.len());
    let runner = Path::new("errkb").join("bin").join("errkb");
    let copied_library = copy
        .join("errkb")
        .join("bin")
        .join(library.file_name().unwrap_or_default());
    same_text(OFFER)
        && same_text("errkb/.claude-plugin/plugin.json")
        && size(market.join(&runner)).is_some()
        && size(market.join(&runner)) == size(copy.join(&runner))
        && size(library.to_owned()) == size(copied_library)
}
