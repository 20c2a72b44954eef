//! Tables that take INSERTs only and read as empty (`kb_learn`), written
//! once: each says its columns and what an inserted row does; this module
//! is the eponymous virtual table and cursor SQLite needs around that.
//!
//! It is WITHOUT ROWID, so an INSERT can name no rowid; its PRIMARY KEY is
//! only there because SQLite requires one (a single column) of such a
//! table, and constrains nothing.

use std::ffi::c_int;
use std::marker::PhantomData;
use std::panic::{catch_unwind, AssertUnwindSafe};

use sqlite_loadable::prelude::*;
use sqlite_loadable::table::{
    define_virtual_table_writeablex, BestIndexError, IndexInfo, UpdateOperation, VTab, VTabArguments, VTabCursor,
    VTabWriteable,
};
use sqlite_loadable::{Error, Result};

use crate::sqlite::ffi::{Connection, Statement};

/// What an insert-only table is: its columns and what a row does.
pub trait InsertTarget: Sized + 'static {
    /// Its name, which starts its error messages.
    const NAME: &'static str;
    /// `CREATE TABLE x(columns…, PRIMARY KEY (one of them)) WITHOUT ROWID`.
    const SCHEMA: &'static str;

    /// The table's state on `db`, made when a statement first names it
    /// (it lasts as long as the connection).
    fn new(db: Connection) -> Self;

    /// Do what inserting `row` means.
    fn insert(&mut self, row: &Row) -> std::result::Result<(), String>;
}

/// The values of an inserted row, in the table's column order.
pub struct Row<'a> {
    values: &'a [*mut sqlite3_value],
}

impl Row<'_> {
    /// Bind column `column`'s value (a copy, of its own type) to
    /// parameter `index` of `statement`.
    pub fn bind_to(&self, column: usize, statement: &mut Statement, index: c_int) -> std::result::Result<(), String> {
        let value = self.values.get(column).copied().ok_or("a column is missing")?;
        statement.bind_value(index, value)
    }
}

/// Register `T` as the table `name` on `db`.
pub fn define<T: InsertTarget>(db: Connection, name: &str) -> Result<()> {
    define_virtual_table_writeablex::<InsertTable<T>>(db.raw(), name, None)
}

#[repr(C)]
pub struct InsertTable<T: InsertTarget> {
    /// Must come first: SQLite sees this struct as a `sqlite3_vtab`.
    base: sqlite3_vtab,
    target: T,
}

impl<T: InsertTarget> InsertTable<T> {
    /// SQLite reports a virtual table's error from its `zErrMsg`.
    fn fail(&mut self, message: String) -> Error {
        let message = format!("{}: {message}", T::NAME);
        if let Ok(copy) = sqlite_loadable::api::mprintf(&message) {
            // SAFETY: SQLite frees zErrMsg (sqlite3_free) when it takes the
            // message after the failed call, and leaves it null again.
            self.base.zErrMsg = copy;
        }
        Error::new_message(message)
    }
}

impl<'vtab, T: InsertTarget> VTab<'vtab> for InsertTable<T> {
    type Aux = ();
    type Cursor = EmptyCursor<T>;

    fn connect(db: *mut sqlite3, _aux: Option<&()>, _args: VTabArguments) -> Result<(String, Self)> {
        // SAFETY: an all-zero sqlite3_vtab is its documented initial state.
        let base = unsafe { std::mem::zeroed() };
        let target = T::new(Connection::from_raw(db));
        Ok((T::SCHEMA.to_owned(), InsertTable { base, target }))
    }

    fn best_index(&self, mut info: IndexInfo) -> std::result::Result<(), BestIndexError> {
        info.set_estimated_cost(1.0);
        info.set_estimated_rows(0);
        Ok(())
    }

    fn open(&'vtab mut self) -> Result<EmptyCursor<T>> {
        // SAFETY: as in connect.
        let base = unsafe { std::mem::zeroed() };
        Ok(EmptyCursor {
            base,
            table: PhantomData,
        })
    }
}

impl<'vtab, T: InsertTarget> VTabWriteable<'vtab> for InsertTable<T> {
    fn update(&'vtab mut self, operation: UpdateOperation, _p_rowid: *mut i64) -> Result<()> {
        let UpdateOperation::Insert { values, .. } = operation else {
            // unreachable: the table has no rows to update or delete
            return Err(self.fail("takes INSERTs only".to_owned()));
        };
        // A panic would abort the host process: contain it.
        let target = &mut self.target;
        let outcome = catch_unwind(AssertUnwindSafe(|| target.insert(&Row { values })))
            .unwrap_or_else(|_| Err("internal error".to_owned()));
        outcome.map_err(|message| self.fail(message))
    }
}

/// Reading an insert-only table gives no rows.
#[repr(C)]
pub struct EmptyCursor<T> {
    /// Must come first: SQLite sees this struct as a `sqlite3_vtab_cursor`.
    base: sqlite3_vtab_cursor,
    table: PhantomData<T>,
}

impl<T> VTabCursor for EmptyCursor<T> {
    fn filter(&mut self, _idx_num: c_int, _idx_str: Option<&str>, _values: &[*mut sqlite3_value]) -> Result<()> {
        Ok(())
    }

    fn next(&mut self) -> Result<()> {
        Ok(())
    }

    fn eof(&self) -> bool {
        true
    }

    fn column(&self, _ctx: *mut sqlite3_context, _i: c_int) -> Result<()> {
        Ok(())
    }

    fn rowid(&self) -> Result<i64> {
        Ok(0)
    }
}
