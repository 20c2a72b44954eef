//! `errkb migrate`: recompute the knowledge base's keys with the current
//! normalize_error, for a database whose keys the original JavaScript code
//! made; rows that then share a key are merged without losing counts.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result};

use errkb::runtime::db::{self, Access};
use errkb::runtime::script::{self, Params};

const RENORMALIZE_SQL: &str = include_str!("../../../../sql/jobs/renormalize_keys.sql");

pub fn run(db_path: &Path, out: &mut impl Write) -> Result<ExitCode> {
    let conn = db::open(db_path, Access::ReadWrite)?;
    // the job's report: (entries re-keyed, entries merged)
    let report = script::rows(&conn, RENORMALIZE_SQL, &Params::default())?;
    let row = report.first().context("renormalize_keys.sql reported nothing")?;
    let (rekeyed, merged) = (
        script::integer(row, 0).unwrap_or(0),
        script::integer(row, 1).unwrap_or(0),
    );
    writeln!(
        out,
        "re-keyed {}, merged {merged}; run errkb embed for their vectors",
        errkb::runtime::counted(rekeyed, "entry", "entries")
    )?;
    Ok(ExitCode::SUCCESS)
}
