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

/// Makes `objects` (see `crate::temp_objects::TEMP_OBJECTS`) on this connection unless
/// it has them: for a script that names them.
pub fn ensure_temp_objects(conn: &Connection, objects: &crate::temp_objects::TempObjects) -> Result<()> {
    let made: bool = conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM temp.sqlite_schema WHERE name = ?1)",
        [objects.last],
        |r| r.get(0),
    )?;
    if !made {
        conn.execute_batch(objects.sql)?;
    }
    Ok(())
}

/// Named parameter values, by name without the `:`, `@` or `$` sigil.
#[derive(Default)]
pub struct Params(HashMap<String, String>);

impl Params {
    pub fn set(&mut self, name: &str, value: impl Into<String>) {
        self.0.insert(name.to_owned(), value.into());
    }

    pub fn get(&self, sql_name: &str) -> Option<&str> {
        self.0
            .get(sql_name.trim_start_matches([':', '@', '$']))
            .map(String::as_str)
    }
}

/// Run every statement of `sql` in order, writing the rows of those that
/// return any. Parameters the script names but `params` lacks are NULL.
///
/// Two conventions save work: a statement `CREATE TEMP TABLE
/// errkb_continue AS <query>` is a gate, and when its query gives no row
/// the rest of the script is not run; `CREATE TEMP TABLE errkb_if_<name>
/// AS <query>` is a condition, and when its query gives no row the next
/// statement is not run. (The runner only asks the query; it does not
/// make the table, which nothing reads.) A script must be written so that
/// what is skipped then does nothing (the sqlite3 shell, which knows
/// neither, runs it and must get the same result); the runner only skips
/// compiling it, which is most of a short script's time.
pub fn run(conn: &Connection, sql: &str, params: &Params, out: &mut impl Write) -> Result<()> {
    let mut guards = Guarded::default();
    // (an empty statement, `;;`, is none: a condition guards the next one)
    for piece in statements(sql).into_iter().filter(|p| !is_empty_statement(p)) {
        match guards.next(conn, Guard::of(&piece).as_ref(), params)? {
            Flow::Run => {}
            Flow::Skip => continue,
            Flow::Stop => break,
        }
        prepare_for(conn, &piece)?;
        let mut batch = Batch::new(conn, &piece);
        while let Some(mut stmt) = batch.next()? {
            bind(&mut stmt, params)?;
            write_rows(&mut stmt, out)?;
        }
    }
    Ok(())
}

/// Run a bound statement to its end, its rows written as the sqlite3
/// shell's list mode writes them (`a|b`, one row a line).
fn write_rows(stmt: &mut rusqlite::Statement<'_>, out: &mut impl Write) -> Result<()> {
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
    Ok(())
}

/// What a statement needs that a connection of the runner lacks until then:
/// the TEMP objects it names (the history views).
fn prepare_for(conn: &Connection, statement: &str) -> Result<()> {
    for objects in temp_objects_named(statement) {
        ensure_temp_objects(conn, objects)?;
    }
    Ok(())
}

/// The TEMP objects a statement (without comments, see `statements`) names.
pub fn temp_objects_named(statement: &str) -> Vec<&'static crate::temp_objects::TempObjects> {
    let statement = statement.to_ascii_lowercase();
    crate::temp_objects::TEMP_OBJECTS
        .iter()
        .filter(|objects| objects.names.iter().any(|name| statement.contains(name)))
        .collect()
}

/// A statement the runner asks instead of running (see `run`): a gate,
/// `CREATE TEMP TABLE errkb_continue… AS <query>`, or a condition,
/// `CREATE TEMP TABLE errkb_if_<name> AS <query>`, each holding the
/// question whether its query gives a row. The table itself is not made
/// (nothing reads it; the sqlite3 shell makes it, to no effect).
enum Guard {
    /// No row: the rest of the script is not run.
    Gate(String),
    /// No row: the next statement is not run.
    Condition(String),
}

impl Guard {
    fn of(statement: &str) -> Option<Guard> {
        let (table, query) = temp_table_query(statement)?;
        let question = format!("SELECT EXISTS ({query})");
        if table.starts_with("errkb_continue") {
            Some(Guard::Gate(question))
        } else if table.starts_with("errkb_if_") {
            Some(Guard::Condition(question))
        } else {
            None
        }
    }
}

/// What becomes of a statement, after the guards before it.
enum Flow {
    Run,
    Skip,
    Stop,
}

/// The guards met so far in a run of a script.
#[derive(Default)]
struct Guarded {
    /// A condition before this statement gave no row.
    skip_next: bool,
}

impl Guarded {
    /// What becomes of the next statement, whose guard (if it is one) is
    /// `guard`: a guard is asked and never run itself. What a false
    /// condition guards is the next statement whatever it is, a gate too
    /// (the shell runs on).
    fn next(&mut self, conn: &Connection, guard: Option<&Guard>, params: &Params) -> Result<Flow> {
        if std::mem::take(&mut self.skip_next) {
            return Ok(Flow::Skip);
        }
        Ok(match guard {
            None => Flow::Run,
            Some(Guard::Gate(question)) if !gate_open(conn, question, params)? => Flow::Stop,
            Some(Guard::Gate(_)) => Flow::Skip,
            Some(Guard::Condition(question)) => {
                self.skip_next = !gate_open(conn, question, params)?;
                Flow::Skip
            }
        })
    }
}

/// Whether a guard's query gives a row.
fn gate_open(conn: &Connection, question: &str, params: &Params) -> Result<bool> {
    let mut stmt = conn.prepare_cached(question)?;
    bind(&mut stmt, params)?;
    let mut rows = stmt.raw_query();
    let open = rows.next()?.is_some_and(|row| row.get::<_, bool>(0).unwrap_or(false));
    Ok(open)
}

/// Bind the statement's named parameters from `params` (NULL when absent).
fn bind(stmt: &mut rusqlite::Statement<'_>, params: &Params) -> Result<()> {
    for index in 1..=stmt.parameter_count() {
        let Some(name) = stmt.parameter_name(index).map(str::to_owned) else {
            bail!("scripts take named parameters (:name), not '?'");
        };
        match params.get(&name) {
            Some(value) => stmt.raw_bind_parameter(index, value)?,
            None => stmt.raw_bind_parameter(index, rusqlite::types::Null)?,
        }
    }
    Ok(())
}

/// The statements of `sql`, in order and without their comments, split
/// where SQLite says one ends (`sqlite3_complete`: a `;` in quotes, in a
/// comment or inside a trigger's body ends none). One pass over the text;
/// SQLite is asked only at a `;` outside quotes and comments of a
/// statement that names a trigger.
pub fn statements(sql: &str) -> Vec<String> {
    let bytes = sql.as_bytes();
    let mut out = Vec::new();
    let mut current = String::new();
    let mut at = 0;
    while at < bytes.len() {
        let rest = &bytes[at..];
        let taken = match rest[0] {
            b'-' if rest.starts_with(b"--") => {
                // to the end of the line; the line break stays
                memchr::memchr(b'\n', rest).unwrap_or(rest.len())
            }
            b'/' if rest.starts_with(b"/*") => {
                // a space, so that the words around it stay apart
                current.push(' ');
                rest[2..]
                    .windows(2)
                    .position(|w| w == b"*/")
                    .map_or(rest.len(), |end| end + 4)
            }
            quote @ (b'\'' | b'"' | b'`' | b'[') => {
                // to its closing quote (a doubled quote closes and reopens it)
                let close = if quote == b'[' { b']' } else { quote };
                let end = memchr::memchr(close, &rest[1..]).map_or(rest.len(), |end| end + 2);
                current.push_str(&sql[at..at + end]);
                end
            }
            b';' => {
                current.push(';');
                // Only a trigger's body holds a `;` that ends nothing: SQLite
                // is asked about a statement that makes one.
                let complete = !makes_trigger(&current) || crate::sqlite::linked::is_complete(&current);
                if complete {
                    out.push(current.trim().to_owned());
                    current.clear();
                }
                1
            }
            _ => {
                // up to the next byte that may start a quote, a comment or an end
                let end = rest[1..]
                    .iter()
                    .position(|b| matches!(b, b'-' | b'/' | b'\'' | b'"' | b'`' | b'[' | b';'))
                    .map_or(rest.len(), |end| end + 1);
                current.push_str(&sql[at..at + end]);
                end
            }
        };
        at += taken;
    }
    if !current.trim().is_empty() {
        out.push(current.trim().to_owned());
    }
    out
}

/// Whether a piece of a script is no statement (`;;` in a script a user
/// edited).
fn is_empty_statement(piece: &str) -> bool {
    piece.trim().trim_end_matches(';').trim().is_empty()
}

/// A table's name as written in a statement (`temp."Payload"`,
/// `[staged]`), without its schema or quotes, in lower case: SQLite's
/// names are not case-sensitive.
fn table_name(written: &str) -> String {
    let written = written.trim_end_matches(';');
    let name = written.rsplit_once('.').map_or(written, |(_, name)| name);
    name.trim_matches(['"', '`', '[', ']']).to_ascii_lowercase()
}

/// What an `ALTER TABLE` statement renames a table to, if it does (see
/// `table_name`).
fn table_renamed(statement: &str) -> Option<String> {
    let words: Vec<&str> = statement.split_ascii_whitespace().take(6).collect();
    let is = |i: usize, word: &str| words.get(i).is_some_and(|w| w.eq_ignore_ascii_case(word));
    if is(0, "alter") && is(1, "table") && is(3, "rename") && is(4, "to") {
        words.get(5).map(|name| table_name(name))
    } else {
        None
    }
}

/// Whether a statement (without comments) drops or alters a table.
fn remakes_a_table(statement: &str) -> bool {
    let mut words = statement.split_ascii_whitespace();
    words.next().is_some_and(|w| w.eq_ignore_ascii_case("alter") || w.eq_ignore_ascii_case("drop"))
        && words.next().is_some_and(|w| w.eq_ignore_ascii_case("table"))
}

/// Whether a statement (without comments) makes a trigger: `CREATE
/// [TEMP|TEMPORARY] TRIGGER …`.
fn makes_trigger(statement: &str) -> bool {
    let mut words = statement.split_ascii_whitespace();
    words.next().is_some_and(|w| w.eq_ignore_ascii_case("create"))
        && words.take(2).any(|w| w.eq_ignore_ascii_case("trigger"))
}

/// A script run many times on one connection (errkb learn runs a hook
/// script per imported tool call, a Codex patch's hook once per edit). A
/// process that runs its script once ends, which drops the script's temp
/// tables; here the second run would find them. So from the second run
/// on, `CREATE TEMP TABLE t AS <query>` runs as `DELETE FROM temp.t` and
/// `INSERT INTO temp.t <query>`, and `CREATE TEMP TABLE t (<columns>)` as
/// `DELETE FROM temp.t`:
/// the same rows, no schema change, and every statement stays prepared
/// (compiling the statements was most of a run's time). Two scripts on one
/// connection may both stage a `temp.payload`: each script's temp tables
/// get its own suffix (scripts name them `temp.<name>` everywhere; a bare
/// name would fail as "no such table", never read another script's).
pub struct Repeated {
    steps: Vec<Step>,
    /// The temp tables created so far on the connection.
    created: std::collections::HashSet<String>,
    /// Make every table the script declares before its first run's first
    /// statement (see `declaring_tables_first`).
    tables_first: bool,
    /// The script drops or alters a table (see `run`).
    remakes_tables: bool,
}

/// A statement of a repeated script. One that creates a temp table also
/// has the statements that refill it, and may be a gate (see `run`).
struct Step {
    sql: String,
    temp_table: Option<TempTable>,
    /// A gate's or a condition's question, asked instead of making its
    /// table (see `run`).
    guard: Option<Guard>,
    /// The TEMP objects it names, made before it runs.
    temp_objects: Vec<&'static crate::temp_objects::TempObjects>,
}

struct TempTable {
    name: String,
    /// Made with its columns (`CREATE TEMP TABLE t (a, b)`), not a query.
    declared: bool,
    /// What runs instead once the table exists: it is emptied, and
    /// refilled with its query when it was made from one.
    refill: Vec<String>,
}

impl Repeated {
    /// The script `sql`, its temp tables named with `suffix` (`payload` →
    /// `payload_<suffix>`); an empty one keeps their names, for the one
    /// script of a connection.
    pub fn new(sql: &str, suffix: &str) -> Self {
        // (an empty statement, `;;` in a script a user edited, runs nothing)
        let mut pieces: Vec<String> = statements(sql).into_iter().filter(|p| !is_empty_statement(p)).collect();
        if !suffix.is_empty() {
            let tables: Vec<String> = pieces
                .iter()
                .filter_map(|s| temp_table_made(s).map(|(table, _)| table.to_owned()))
                .collect();
            for piece in &mut pieces {
                // the table a statement makes, named where it stands (the
                // name is a slice of the statement: its offset is in it)
                if let Some((name, _)) = temp_table_made(piece) {
                    let at = name.as_ptr() as usize - piece.as_ptr() as usize;
                    let end = at + name.len();
                    *piece = format!("{}{}_{suffix}{}", &piece[..at], &piece[at..end], &piece[end..]);
                }
                for table in &tables {
                    *piece = rename_word(piece, &format!("temp.{table}"), &format!("temp.{table}_{suffix}"));
                }
            }
        }
        let steps: Vec<Step> = pieces
            .into_iter()
            .map(|statement| {
                let guard = Guard::of(&statement);
                let temp_table = temp_table_made(&statement)
                    .filter(|_| guard.is_none())
                    .map(|(name, query)| TempTable {
                        name: name.to_owned(),
                        declared: query.is_none(),
                        refill: std::iter::once(format!("DELETE FROM temp.{name}"))
                            .chain(query.map(|query| format!("INSERT INTO temp.{name} {query}")))
                            .collect(),
                    });
                Step {
                    guard,
                    temp_objects: temp_objects_named(&statement),
                    sql: statement,
                    temp_table,
                }
            })
            .collect();
        let remakes_tables = steps.iter().any(|step| remakes_a_table(&step.sql));
        Repeated {
            steps,
            created: Default::default(),
            tables_first: false,
            remakes_tables,
        }
    }

    /// For a script that will run more than once: every table it declares
    /// (with columns, not a query) is made before anything else of its
    /// first run. A change to the TEMP schema expires every statement the
    /// connection has prepared, so a table made past the first run's
    /// first statements (behind a gate: a file's history) made the next
    /// run compile all of those again. A script run once makes its tables
    /// where they stand, and none behind a gate that stays closed. (So in
    /// the first run, as in every later one, a statement before a
    /// declaration finds the table.) A script that drops or alters a table
    /// (a user's edited copy) keeps its order (see `run`).
    pub fn declaring_tables_first(mut self) -> Self {
        self.tables_first = !self.remakes_tables;
        self
    }

    /// One run with `params`: the rows the script selects are written to
    /// `out` as `run` writes them.
    pub fn run(&mut self, conn: &Connection, params: &Params, out: &mut impl Write) -> Result<()> {
        // A script that drops or alters its tables (a user's edited copy: a
        // table dropped and made again, a column added, a table renamed)
        // cannot be refilled: each run drops what it made and runs as
        // written, as a new process would.
        if self.remakes_tables {
            let made = self.steps.iter().filter_map(|s| s.temp_table.as_ref().map(|t| t.name.to_ascii_lowercase()));
            let renamed = self.steps.iter().filter_map(|s| table_renamed(&s.sql));
            for name in made.chain(renamed).collect::<std::collections::BTreeSet<_>>() {
                conn.execute_batch(&format!("DROP TABLE IF EXISTS temp.\"{}\"", name.replace('"', "\"\"")))?;
            }
            self.created.clear();
        }
        let mut declared_now = Vec::new();
        if self.tables_first {
            for step in &self.steps {
                if let Some(table) = step.temp_table.as_ref().filter(|t| t.declared && !self.created.contains(&t.name)) {
                    conn.prepare(&step.sql)?.raw_execute()?;
                    self.created.insert(table.name.clone());
                    declared_now.push(table.name.as_str());
                }
            }
        }
        let mut guards = Guarded::default();
        for step in &self.steps {
            match guards.next(conn, step.guard.as_ref(), params)? {
                Flow::Run => {}
                Flow::Skip => continue,
                Flow::Stop => break,
            }
            let statements: &[String] = match &step.temp_table {
                Some(table) if declared_now.contains(&table.name.as_str()) => continue,
                Some(table) if self.created.contains(&table.name) => &table.refill,
                _ => std::slice::from_ref(&step.sql),
            };
            for objects in &step.temp_objects {
                ensure_temp_objects(conn, objects)?;
            }
            for sql in statements {
                let mut stmt = conn.prepare_cached(sql)?;
                bind(&mut stmt, params)?;
                write_rows(&mut stmt, out)?;
            }
            if let Some(table) = &step.temp_table {
                self.created.insert(table.name.clone());
            }
        }
        Ok(())
    }

    /// After a run that failed and was rolled back: the temp tables it
    /// made may be gone, so each is made again by the next run.
    pub fn forget_tables(&mut self, conn: &Connection) {
        for name in self.created.drain() {
            let _ = conn.execute_batch(&format!("DROP TABLE IF EXISTS temp.{name}"));
        }
    }

    /// How many distinct statements a connection should keep prepared.
    pub fn statement_count(&self) -> usize {
        self.steps
            .iter()
            .map(|s| 1 + s.temp_table.as_ref().map_or(0, |t| t.refill.len()))
            .sum::<usize>()
            + 1
    }
}

/// `text` with every `from` that is not followed by a word character replaced.
fn rename_word(text: &str, from: &str, to: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(from) {
        let after = &rest[at + from.len()..];
        let whole = !after.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_');
        out.push_str(&rest[..at]);
        out.push_str(if whole { to } else { from });
        rest = after;
    }
    out.push_str(rest);
    out
}

/// `CREATE TEMP TABLE name AS query` → (name, query), of a statement
/// without comments (see `statements`).
fn temp_table_query(statement: &str) -> Option<(&str, &str)> {
    match temp_table_made(statement)? {
        (name, Some(query)) => Some((name, query)),
        (_, None) => None,
    }
}

/// The temp table a statement (without comments) makes: its name, and its
/// query for `CREATE TEMP TABLE name AS query` (none for `CREATE TEMP
/// TABLE name (columns)`). Spelled as SQLite takes it: any case,
/// `TEMPORARY`, `IF NOT EXISTS` (a script a user edited may).
fn temp_table_made(statement: &str) -> Option<(&str, Option<&str>)> {
    // the next word of `text`, if it is one of `words`, and what follows
    fn word<'s>(text: &'s str, words: &[&str]) -> Option<&'s str> {
        let end = text.find(char::is_whitespace).unwrap_or(text.len());
        words.iter().any(|w| text[..end].eq_ignore_ascii_case(w)).then(|| text[end..].trim_start())
    }
    let mut rest = statement.trim_start();
    for words in [&["CREATE"][..], &["TEMP", "TEMPORARY"], &["TABLE"]] {
        rest = word(rest, words)?;
    }
    if let Some(after) = word(rest, &["IF"]).and_then(|r| word(r, &["NOT"])).and_then(|r| word(r, &["EXISTS"])) {
        rest = after;
    }
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    let (name, definition) = rest.split_at(end);
    let definition = definition.trim_start();
    let query = match definition.get(..2).filter(|a| a.eq_ignore_ascii_case("AS")) {
        Some(_) if definition[2..].starts_with(char::is_whitespace) => Some(definition[2..].trim_end_matches(';')),
        _ if definition.starts_with('(') => None,
        _ => return None,
    };
    (!name.is_empty()).then_some((name, query))
}

/// Run every statement of `sql` in order and return the rows of the last
/// one that returned any, as values: how the runner reads a script's report
/// (`errkb embed`, `errkb migrate`) without printing and parsing text.
pub fn rows(conn: &Connection, sql: &str, params: &Params) -> Result<Vec<Vec<rusqlite::types::Value>>> {
    prepare_for(conn, sql)?;
    let mut batch = Batch::new(conn, sql);
    let mut last = Vec::new();
    while let Some(mut stmt) = batch.next()? {
        bind(&mut stmt, params)?;
        let columns = stmt.column_count();
        let mut found = Vec::new();
        let mut rows = stmt.raw_query();
        while let Some(row) = rows.next()? {
            found.push(
                (0..columns)
                    .map(|i| row.get::<_, rusqlite::types::Value>(i))
                    .collect::<rusqlite::Result<_>>()?,
            );
        }
        if !found.is_empty() {
            last = found;
        }
    }
    Ok(last)
}

/// A report row's integer column (NULL or another type: None).
pub fn integer(row: &[rusqlite::types::Value], column: usize) -> Option<i64> {
    match row.get(column) {
        Some(rusqlite::types::Value::Integer(n)) => Some(*n),
        _ => None,
    }
}

fn write_value(out: &mut impl Write, value: ValueRef<'_>) -> std::io::Result<()> {
    match value {
        ValueRef::Null => Ok(()),
        ValueRef::Integer(n) => write!(out, "{n}"),
        ValueRef::Real(x) => out.write_all(shell_real(x).as_bytes()),
        ValueRef::Text(bytes) | ValueRef::Blob(bytes) => out.write_all(bytes),
    }
}

/// A REAL as the sqlite3 shell prints it (`%!.15g`): 15 significant
/// digits, trailing zeros dropped but one decimal kept (`1.0`, `0.5`,
/// `0.142857142857143`, `1.0e+20`).
fn shell_real(x: f64) -> String {
    if x.is_nan() {
        return "NaN".into(); // what the shell prints for it (SQLite stores NULL instead)
    }
    if x.is_infinite() {
        return if x > 0.0 { "Inf".into() } else { "-Inf".into() };
    }
    if x == 0.0 {
        return if x.is_sign_negative() {
            "-0.0".into()
        } else {
            "0.0".into()
        };
    }
    // 15 significant digits, rounded: d.dddddddddddddde±X
    let scientific = format!("{x:.14e}");
    let (mantissa, exponent) = scientific.split_once('e').expect("an exponent");
    let exponent: i32 = exponent.parse().expect("an integer exponent");
    let negative = mantissa.starts_with('-');
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let digits = digits.trim_end_matches('0');
    let digits = if digits.is_empty() { "0" } else { digits };
    let sign = if negative { "-" } else { "" };
    if !(-4..15).contains(&exponent) {
        let (first, rest) = digits.split_at(1);
        let rest = if rest.is_empty() { "0" } else { rest };
        let exponent_sign = if exponent < 0 { '-' } else { '+' };
        return format!("{sign}{first}.{rest}e{exponent_sign}{:02}", exponent.abs());
    }
    let (whole, fraction) = if exponent >= 0 {
        let point = exponent as usize + 1;
        if digits.len() > point {
            (digits[..point].to_owned(), digits[point..].to_owned())
        } else {
            (format!("{digits}{}", "0".repeat(point - digits.len())), String::new())
        }
    } else {
        (
            "0".to_owned(),
            format!("{}{digits}", "0".repeat((-exponent - 1) as usize)),
        )
    };
    let fraction = if fraction.is_empty() { "0".to_owned() } else { fraction };
    format!("{sign}{whole}.{fraction}")
}

/// `name=value` from the command line.
pub fn parse_param(arg: &str) -> Result<(String, String)> {
    let (name, value) = arg.split_once('=').context("expected NAME=VALUE")?;
    Ok((name.trim_start_matches([':', '@', '$']).to_owned(), value.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reals_print_as_the_sqlite3_shell_prints_them() {
        for (x, shell) in [
            (1.0, "1.0"),
            (0.5, "0.5"),
            (1.0 / 7.0, "0.142857142857143"),
            (100.0, "100.0"),
            (-2.25, "-2.25"),
            (1e20, "1.0e+20"),
            (1.5e-7, "1.5e-07"),
            (0.0001, "0.0001"),
            (123456789012345.0, "123456789012345.0"),
            (1234567890123456.0, "1.23456789012346e+15"),
            (2.0 / 3.0 * 1000.0, "666.666666666667"),
        ] {
            assert_eq!(shell_real(x), shell, "{x}");
        }
    }

    #[test]
    fn comments_are_left_out_and_quoted_text_kept() {
        assert_eq!(
            statements("-- kb_learn;\nSELECT '--x;', \"a/*b\" /* c;\n*/ - 1 / 2, [x;y]; -- end;"),
            vec!["SELECT '--x;', \"a/*b\"   - 1 / 2, [x;y];"]
        );
        assert_eq!(statements("SELECT 'it''s -- x' -- y"), vec!["SELECT 'it''s -- x'"]);
        assert_eq!(statements("SELECT 1 /* open; "), vec!["SELECT 1"]);
        assert_eq!(statements("SELECT 'open; "), vec!["SELECT 'open;"]);
    }

    #[test]
    fn statements_split_where_sqlite_says_they_end() {
        let sql = "-- a; comment\nSELECT 'a;b';\nCREATE TEMP TABLE t AS\nSELECT 1; SELECT 2;\n\
                   CREATE TRIGGER g AFTER INSERT ON t BEGIN SELECT 3; SELECT 4; END; SELECT 5";
        assert_eq!(
            statements(sql),
            vec![
                "SELECT 'a;b';",
                "CREATE TEMP TABLE t AS\nSELECT 1;",
                "SELECT 2;",
                "CREATE TRIGGER g AFTER INSERT ON t BEGIN SELECT 3; SELECT 4; END;",
                "SELECT 5"
            ]
        );
        let temp = "create temporary trigger if not exists g after insert on t begin select 1; end; select 'trigger;';";
        assert_eq!(
            statements(temp),
            vec![
                "create temporary trigger if not exists g after insert on t begin select 1; end;",
                "select 'trigger;';"
            ]
        );
    }

    #[test]
    fn a_repeated_script_refills_its_temp_tables() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch("CREATE TABLE log (n)").unwrap();
        let text = "-- stage\nCREATE TEMP TABLE staged AS\nWITH v AS (SELECT :n AS n) SELECT n FROM v;\n\
                    INSERT INTO log SELECT n FROM temp.staged;";
        // two scripts with the same temp table, taking turns
        let (mut one, mut two) = (Repeated::new(text, "one"), Repeated::new(text, "two"));
        for n in ["1", "2", "3"] {
            let mut params = Params::default();
            params.set("n", n);
            one.run(&conn, &params, &mut std::io::sink()).unwrap();
            params.set("n", format!("{n}{n}"));
            two.run(&conn, &params, &mut std::io::sink()).unwrap();
        }
        let logged: Vec<String> = conn
            .prepare("SELECT n FROM log")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        assert_eq!(logged, ["1", "11", "2", "22", "3", "33"]);
    }

    /// What one run of `script` with `:n` bound prints.
    fn printed(script: &mut Repeated, conn: &Connection, n: &str) -> String {
        let mut params = Params::default();
        params.set("n", n);
        let mut out = Vec::new();
        script.run(conn, &params, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    /// A temp table declared with its columns, then filled, is emptied
    /// from the second run on: each run sees only its own rows, and
    /// prints only its own answer. Without a suffix the table keeps its
    /// name.
    #[test]
    fn a_repeated_script_empties_its_declared_temp_tables() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch("CREATE TABLE log (n, seen)").unwrap();
        let text = "CREATE TEMP TABLE staged(n);\nINSERT INTO temp.staged SELECT :n;\n\
                    INSERT INTO log SELECT n, (SELECT count(*) FROM temp.staged) FROM temp.staged;\n\
                    SELECT 'run', n, count(*) FROM temp.staged;";
        let mut script = Repeated::new(text, "");
        for n in ["1", "2", "3"] {
            assert_eq!(printed(&mut script, &conn, n), format!("run|{n}|1\n"));
        }
        let staged: String = conn.query_row("SELECT n FROM temp.staged", [], |r| r.get(0)).unwrap();
        assert_eq!(staged, "3");
        let logged: Vec<(String, i64)> = conn
            .prepare("SELECT n, seen FROM log")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        assert_eq!(logged, [("1".into(), 1), ("2".into(), 1), ("3".into(), 1)]);
    }

    /// A condition that gives no row skips the next statement only, run
    /// after run; one that gives a row runs it.
    #[test]
    fn a_repeated_script_skips_what_a_false_condition_guards() {
        let conn = Connection::open_in_memory().unwrap();
        let text = "CREATE TEMP TABLE errkb_if_odd AS SELECT 1 WHERE :n % 2 = 1;\n\
                    SELECT 'odd', :n;\nSELECT 'run', :n;";
        let mut script = Repeated::new(text, "x");
        let runs: Vec<String> = ["1", "2", "3"].iter().map(|n| printed(&mut script, &conn, n)).collect();
        assert_eq!(runs, ["odd|1\nrun|1\n", "run|2\n", "odd|3\nrun|3\n"]);
        // the condition is asked, its table never made
        let made: i64 = conn.query_row("SELECT count(*) FROM temp.sqlite_schema", [], |r| r.get(0)).unwrap();
        assert_eq!(made, 0);
        // what it guards is the next statement, whatever it is: an empty
        // one is none, and a gate it skips stops nothing (the shell runs on)
        let text = "CREATE TEMP TABLE errkb_if_odd AS SELECT 1 WHERE :n % 2 = 1;\n;\n\
                    CREATE TEMP TABLE errkb_continue AS SELECT 1 WHERE 0;\nSELECT 'run', :n;";
        let mut script = Repeated::new(text, "");
        assert_eq!(printed(&mut script, &conn, "2"), "run|2\n");
        assert_eq!(printed(&mut script, &conn, "1"), "");
        let mut out = Vec::new();
        let mut params = Params::default();
        params.set("n", "2");
        run(&conn, text, &params, &mut out).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "run|2\n");
    }

    /// A script run more than once, with a table declared behind a gate
    /// (made in the first run after the statements before it were
    /// prepared): declaring its tables first, the second run compiles
    /// nothing again; without, making the table expired every statement
    /// prepared before it. What the runs print is the same either way.
    #[test]
    fn a_script_declaring_its_tables_first_compiles_each_statement_once() {
        let text = "CREATE TEMP TABLE staged(n);\nINSERT INTO temp.staged SELECT :n;\n\
                    CREATE TEMP TABLE errkb_continue AS SELECT 1 FROM temp.staged WHERE n > 0;\n\
                    CREATE TEMP TABLE later(m);\nINSERT INTO temp.later SELECT n * 10 FROM temp.staged;\n\
                    SELECT 'run', n, (SELECT m FROM temp.later) FROM temp.staged;";
        // how often `INSERT INTO temp.staged` was compiled (SQLite asks the
        // authorizer while it compiles)
        let compiled = |first: bool| {
            let mut conn = Connection::open_in_memory().unwrap();
            let count = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
            let counter = count.clone();
            conn.authorizer(Some(move |context: rusqlite::hooks::AuthContext<'_>| {
                if let rusqlite::hooks::AuthAction::Insert { table_name: "staged" } = context.action {
                    counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                }
                rusqlite::hooks::Authorization::Allow
            }))
            .unwrap();
            let mut script = Repeated::new(text, "");
            if first {
                script = script.declaring_tables_first();
            }
            conn.set_prepared_statement_cache_capacity(script.statement_count());
            let printed: Vec<String> = ["1", "2", "3"].iter().map(|n| printed(&mut script, &conn, n)).collect();
            assert_eq!(printed, ["run|1|10\n", "run|2|20\n", "run|3|30\n"]);
            count.load(std::sync::atomic::Ordering::Relaxed)
        };
        assert_eq!(compiled(true), 1);
        assert_eq!(compiled(false), 2);
        // a script that drops a table before declaring it (a user's edited
        // copy, the name spelt any way SQLite takes it) runs every time, as
        // the sqlite3 shell runs it, either way
        for drop in ["DROP TABLE IF EXISTS temp.staged", "drop table if exists temp.STAGED",
                     "DROP TABLE IF EXISTS \"temp\".\"Staged\"", "DROP TABLE IF EXISTS [staged]"] {
            for runs in three_runs_each_way(&format!("{drop};\n{text}")) {
                assert_eq!(runs, ["run|1|10\n", "run|2|20\n", "run|3|30\n"], "{drop}");
            }
        }
    }

    /// What three runs of `text` (`:n` 1, 2, 3) print, on a new connection
    /// each way: its tables made first, and where they stand.
    fn three_runs_each_way(text: &str) -> Vec<Vec<String>> {
        [true, false]
            .into_iter()
            .map(|first| {
                let conn = Connection::open_in_memory().unwrap();
                let mut script = Repeated::new(text, "");
                if first {
                    script = script.declaring_tables_first();
                }
                ["1", "2", "3"].iter().map(|n| printed(&mut script, &conn, n)).collect()
            })
            .collect()
    }

    /// A script that alters its tables (a column added, a table renamed)
    /// runs as written each time, on tables made anew, as a new process
    /// would; either way it is asked to run.
    #[test]
    fn a_repeated_script_that_alters_its_tables_runs_as_written() {
        for text in [
            "CREATE TEMP TABLE staged(n);\nALTER TABLE temp.staged ADD COLUMN extra;\n\
             INSERT INTO temp.staged (n) SELECT :n;\nSELECT 'run', n, count(*) FROM temp.staged;",
            "CREATE TEMP TABLE staged(n);\nALTER TABLE temp.staged RENAME TO Moved;\n\
             INSERT INTO temp.moved SELECT :n;\nSELECT 'run', n, count(*) FROM temp.moved;",
        ] {
            for runs in three_runs_each_way(text) {
                assert_eq!(runs, ["run|1|1\n", "run|2|1\n", "run|3|1\n"], "{text}");
            }
        }
    }

    /// A script as a user may have edited it: empty statements, a temp
    /// table spelled in lower case or as TEMPORARY. Each run is its own.
    #[test]
    fn a_repeated_script_takes_what_sqlite_takes() {
        let conn = Connection::open_in_memory().unwrap();
        let text = "create temporary table staged(n);;\nINSERT INTO temp.staged SELECT :n;\n/* nothing */;\n\
                    SELECT n, count(*) FROM temp.staged;";
        // (with its tables' names, and renamed beside another script's)
        for suffix in ["", "learn"] {
            let mut script = Repeated::new(text, suffix);
            for n in ["1", "2"] {
                assert_eq!(printed(&mut script, &conn, n), format!("{n}|1\n"));
            }
        }
        let renamed: i64 = conn.query_row("SELECT count(*) FROM temp.staged_learn", [], |r| r.get(0)).unwrap();
        assert_eq!(renamed, 1);
    }

    #[test]
    fn temp_tables_are_recognised_in_both_forms() {
        assert_eq!(
            temp_table_made("CREATE TEMP TABLE t AS SELECT 1;"),
            Some(("t", Some(" SELECT 1")))
        );
        assert_eq!(temp_table_made("CREATE TEMP TABLE t (a, b);"), Some(("t", None)));
        assert_eq!(temp_table_made("CREATE TEMP TABLE t(a)"), Some(("t", None)));
        assert_eq!(
            temp_table_made("CREATE TEMP TABLE tASx AS SELECT 1"),
            Some(("tASx", Some(" SELECT 1")))
        );
        assert_eq!(temp_table_made("CREATE TEMP TABLE t ASSELECT"), None);
        // as a user may write it
        assert_eq!(temp_table_made("create temp table t as select 1"), Some(("t", Some(" select 1"))));
        assert_eq!(temp_table_made("CREATE TEMPORARY TABLE t (a)"), Some(("t", None)));
        assert_eq!(temp_table_made("CREATE TEMP TABLE IF NOT EXISTS t (a)"), Some(("t", None)));
        assert_eq!(temp_table_made("CREATE TEMP TABLE IF NOT EXISTS t AS SELECT 1"), Some(("t", Some(" SELECT 1"))));
        assert_eq!(temp_table_made("CREATE TEMP VIEW t AS SELECT 1"), None);
        assert_eq!(temp_table_made("CREATE TABLE t (a)"), None);
    }
}
