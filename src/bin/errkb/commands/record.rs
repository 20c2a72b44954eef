//! `errkb record`: learn a fix by hand, through the same table every
//! writer of fixes uses (`sql/record.sql` → `kb_learn`).

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;

use errkb::runtime::db::{self, Access};
use errkb::runtime::script::{self, Params};

const RECORD_SQL: &str = include_str!("../../../../sql/record.sql");

pub fn run(
    db_path: &Path,
    error: String,
    resolution: String,
    resolved_by: Option<String>,
    tool_sequence: Vec<String>,
    out: &mut impl Write,
) -> Result<ExitCode> {
    let conn = db::open(db_path, Access::ReadWrite)?;
    let mut params = Params::default();
    params.set("error", error);
    params.set("resolution", resolution);
    if let Some(tool) = resolved_by {
        params.set("resolved_by", tool);
    }
    if !tool_sequence.is_empty() {
        params.set("tool_sequence", serde_json::to_string(&tool_sequence)?);
    }
    script::run(&conn, RECORD_SQL, &params, out)?;
    Ok(ExitCode::SUCCESS)
}
