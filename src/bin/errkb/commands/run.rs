//! `errkb run FILE`: any `.sql` file, standard input (when piped) bound as
//! `:stdin` and `--param NAME=VALUE` as `:NAME`, rows printed as the
//! sqlite3 shell prints them.

use std::io::{IsTerminal, Read, Write};
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result};

use errkb::runtime::db::{self, Access};
use errkb::runtime::script::{self, Params};

pub fn command(db_path: &Path, file: &Path, pairs: Vec<(String, String)>, out: &mut impl Write) -> Result<ExitCode> {
    let sql = std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))?;
    let conn = db::open(db_path, Access::ReadWrite)?;
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
    script::run(&conn, &sql, &params, out)?;
    Ok(ExitCode::SUCCESS)
}
