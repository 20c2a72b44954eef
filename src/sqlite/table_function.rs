//! Table-valued functions (`kb_search(q)`, `kb_resolves(s, a)`,
//! `embed_batch(texts)`), written once: each says its columns and how to
//! compute its rows from its arguments; this module is the virtual table
//! and cursor SQLite needs around that.
//!
//! A table function's arguments are hidden columns after its visible ones,
//! constrained with `=` (`FROM kb_search(?)` is `WHERE query = ?`). The
//! arguments given are handed to `xFilter` in column order; `idxNum` says
//! which were given. The rows are computed in `xFilter`, all at once: these
//! functions give a handful of rows.

use std::ffi::c_int;
use std::marker::PhantomData;
use std::panic::{catch_unwind, AssertUnwindSafe};

use sqlite_loadable::prelude::*;
use sqlite_loadable::table::{BestIndexError, ConstraintOperator, IndexInfo, VTab, VTabArguments, VTabCursor};
use sqlite_loadable::{api, define_table_function, Error, Result};

use crate::sqlite::ffi::{Connection, StatementCache, Value};

/// What a table function is: its columns and its rows.
pub trait TableFunction: 'static {
    /// `name()` in its error messages.
    const NAME: &'static str;
    /// `CREATE TABLE x(visible columns…, arguments… HIDDEN)`.
    const SCHEMA: &'static str;
    /// Its visible columns; the arguments follow them, in order.
    const COLUMNS: c_int;
    /// Its arguments.
    const ARGUMENTS: c_int;
    /// How many leading arguments must be given (the rest may be left out).
    const REQUIRED: c_int;
    /// Whether a failure is an empty result rather than an SQL error:
    /// the searches never raise; a batch job's inference does.
    const NEVER_RAISES: bool;

    /// The rows for the arguments given (`None`: left out, or SQL NULL).
    /// `statements`: this connection's prepared statements, kept between
    /// calls.
    fn rows(
        db: Connection,
        statements: &mut StatementCache,
        arguments: &[Option<&[u8]>],
    ) -> std::result::Result<Vec<Vec<Value>>, String>;
}

/// Register `T` as the table function `name` on `db`.
pub fn define<T: TableFunction>(db: Connection, name: &str) -> Result<()> {
    define_table_function::<Table<T>>(db.raw(), name, None)
}

#[repr(C)]
pub struct Table<T: TableFunction> {
    /// Must come first: SQLite sees this struct as a `sqlite3_vtab`.
    base: sqlite3_vtab,
    db: Connection,
    /// Kept for the connection's life (an eponymous table lasts as long).
    statements: StatementCache,
    function: PhantomData<T>,
}

impl<'vtab, T: TableFunction> VTab<'vtab> for Table<T> {
    type Aux = ();
    type Cursor = Cursor<T>;

    fn connect(db: *mut sqlite3, _aux: Option<&()>, _args: VTabArguments) -> Result<(String, Self)> {
        // SAFETY: an all-zero sqlite3_vtab is its documented initial state.
        let base = unsafe { std::mem::zeroed() };
        Ok((
            T::SCHEMA.to_owned(),
            Table {
                base,
                db: Connection::from_raw(db),
                statements: StatementCache::default(),
                function: PhantomData,
            },
        ))
    }

    fn best_index(&self, mut info: IndexInfo) -> std::result::Result<(), BestIndexError> {
        let argument_of = |column: c_int| {
            let argument = column - T::COLUMNS;
            (0..T::ARGUMENTS).contains(&argument).then_some(argument)
        };
        let mut given: c_int = 0;
        for constraint in info.constraints() {
            if let Some(argument) = argument_of(constraint.column_idx()) {
                if constraint.op() == Some(ConstraintOperator::EQ) {
                    if !constraint.usable() {
                        return Err(BestIndexError::Constraint);
                    }
                    given |= 1 << argument;
                }
            }
        }
        let required = (1 << T::REQUIRED) - 1;
        if given & required != required {
            return Err(BestIndexError::Constraint);
        }
        for mut constraint in info.constraints() {
            if let Some(argument) = argument_of(constraint.column_idx()) {
                if constraint.op() == Some(ConstraintOperator::EQ) {
                    // its place among the arguments given
                    let before = (given & ((1 << argument) - 1)).count_ones() as c_int;
                    constraint.set_argv_index(before + 1);
                    constraint.set_omit(true);
                }
            }
        }
        info.set_idxnum(given);
        info.set_estimated_cost(1.0);
        info.set_estimated_rows(1);
        Ok(())
    }

    fn open(&'vtab mut self) -> Result<Cursor<T>> {
        // SAFETY: as in connect.
        let base = unsafe { std::mem::zeroed() };
        Ok(Cursor {
            base,
            db: self.db,
            // the table outlives its cursors, at this address (boxed)
            statements: &mut self.statements,
            rows: Vec::new(),
            at: 0,
            function: PhantomData,
        })
    }
}

#[repr(C)]
pub struct Cursor<T: TableFunction> {
    /// Must come first: SQLite sees this struct as a `sqlite3_vtab_cursor`.
    base: sqlite3_vtab_cursor,
    db: Connection,
    statements: *mut StatementCache,
    rows: Vec<Vec<Value>>,
    at: usize,
    function: PhantomData<T>,
}

impl<T: TableFunction> VTabCursor for Cursor<T> {
    fn filter(&mut self, idx_num: c_int, _idx_str: Option<&str>, values: &[*mut sqlite3_value]) -> Result<()> {
        self.rows.clear();
        self.at = 0;
        let arguments: Vec<Option<&[u8]>> = (0..T::ARGUMENTS)
            .map(|i| {
                let given = idx_num & (1 << i) != 0;
                let position = (idx_num & ((1 << i) - 1)).count_ones() as usize;
                given
                    .then(|| values.get(position))
                    .flatten()
                    .and_then(crate::sqlite::ffi::value_bytes)
            })
            .collect();
        let db = self.db;
        // SAFETY: the table outlives the cursor, and SQLite runs one of
        // its calls at a time per connection.
        let statements = unsafe { &mut *self.statements };
        // A panic must not cross into SQLite: it would abort the host.
        let rows = catch_unwind(AssertUnwindSafe(|| T::rows(db, statements, &arguments)))
            .unwrap_or_else(|_| Err("internal error".to_owned()));
        match rows {
            Ok(rows) => self.rows = rows,
            Err(_) if T::NEVER_RAISES => {}
            Err(e) => return Err(Error::new_message(format!("{}(): {e}", T::NAME))),
        }
        Ok(())
    }

    fn next(&mut self) -> Result<()> {
        self.at += 1;
        Ok(())
    }

    fn eof(&self) -> bool {
        self.at >= self.rows.len()
    }

    fn column(&self, ctx: *mut sqlite3_context, i: c_int) -> Result<()> {
        match self.rows.get(self.at).and_then(|row| row.get(i as usize)) {
            Some(value) => result_value(ctx, value),
            None => {
                api::result_null(ctx);
                Ok(())
            }
        }
    }

    fn rowid(&self) -> Result<i64> {
        Ok(self.at as i64)
    }
}

/// An owned value as the function's result.
pub fn result_value(ctx: *mut sqlite3_context, value: &Value) -> Result<()> {
    match value {
        Value::Null => api::result_null(ctx),
        Value::Integer(n) => api::result_int64(ctx, *n),
        Value::Real(x) => api::result_double(ctx, *x),
        Value::Text(s) => api::result_text(ctx, s)?,
        Value::Blob(b) => api::result_blob(ctx, b),
    }
    Ok(())
}

/// A text column: NULL for `None`.
pub fn text(value: Option<&str>) -> Value {
    value.map_or(Value::Null, |s| Value::Text(s.to_owned()))
}
