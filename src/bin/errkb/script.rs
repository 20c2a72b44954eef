//! Running a `.sql` script: one statement at a time, named parameters
//! bound from the command line or standard input (never spliced into the
//! SQL), rows printed as the sqlite3 shell's default list mode prints them,
//! so a script gives the same output through either.

use std::collections::HashMap;
use std::io::Write;

use anyhow::{bail, Context, Result};
use fallible_iterator::FallibleIterator;
use rusqlite::types::ValueRef;
use rusqlite::{Batch, Connection};

/// Named parameter values, by name without the `:`, `@` or `$` sigil.
#[derive(Default)]
pub struct Params(HashMap<String, String>);

impl Params {
    pub fn set(&mut self, name: &str, value: impl Into<String>) {
        self.0.insert(name.to_owned(), value.into());
    }

    fn get(&self, sql_name: &str) -> Option<&str> {
        self.0
            .get(sql_name.trim_start_matches([':', '@', '$']))
            .map(String::as_str)
    }
}

/// Run every statement of `sql` in order, writing the rows of those that
/// return any. Parameters the script names but `params` lacks are NULL.
pub fn run(conn: &Connection, sql: &str, params: &Params, out: &mut impl Write) -> Result<()> {
    let mut batch = Batch::new(conn, sql);
    while let Some(mut stmt) = batch.next()? {
        for index in 1..=stmt.parameter_count() {
            let Some(name) = stmt.parameter_name(index).map(str::to_owned) else {
                bail!("scripts take named parameters (:name), not '?'");
            };
            if let Some(value) = params.get(&name) {
                stmt.raw_bind_parameter(index, value)?;
            }
        }
        let columns = stmt.column_count();
        let mut rows = stmt.raw_query();
        while let Some(row) = rows.next()? {
            for i in 0..columns {
                if i > 0 {
                    out.write_all(b"|")?;
                }
                write_value(out, row.get_ref(i)?)?;
            }
            if columns > 0 {
                out.write_all(b"\n")?;
            }
        }
    }
    Ok(())
}

fn write_value(out: &mut impl Write, value: ValueRef<'_>) -> std::io::Result<()> {
    match value {
        ValueRef::Null => Ok(()),
        ValueRef::Integer(n) => write!(out, "{n}"),
        ValueRef::Real(x) => write!(out, "{x}"),
        ValueRef::Text(bytes) | ValueRef::Blob(bytes) => out.write_all(bytes),
    }
}

/// `name=value` from the command line.
pub fn parse_param(arg: &str) -> Result<(String, String)> {
    let (name, value) = arg.split_once('=').context("expected NAME=VALUE")?;
    Ok((name.trim_start_matches([':', '@', '$']).to_owned(), value.to_owned()))
}
