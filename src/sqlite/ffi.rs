//! A small safe layer over the SQLite C API, as handed to the extension:
//! the connection, its statements, and the values they hold.
//!
//! sqlite-loadable covers defining functions and virtual tables, but its
//! statement API cannot bind blobs, read column types or report SQLite's
//! error message. kb_search needs all three, so this module wraps the few
//! calls it uses from the `sqlite3_api_routines` table the host passes to
//! the entry point. The connection pointer travels as a `Connection`.

use std::ffi::{c_char, c_int, c_void, CStr};
use std::ptr;
use std::sync::atomic::{AtomicPtr, Ordering};

use sqlite3ext_sys::sqlite3_stmt;
use sqlite_loadable::prelude::{sqlite3, sqlite3_api_routines, sqlite3_context};

const SQLITE_ROW: c_int = 100;
const SQLITE_DONE: c_int = 101;
const SQLITE_INTEGER: c_int = 1;
const SQLITE_FLOAT: c_int = 2;
const SQLITE_TEXT: c_int = 3;
const SQLITE_BLOB: c_int = 4;

static API: AtomicPtr<sqlite3_api_routines> = AtomicPtr::new(ptr::null_mut());

/// Remember the host's API table; called from the entry point.
pub fn set_api(api: *mut sqlite3_api_routines) {
    if !api.is_null() {
        API.store(api, Ordering::Release);
    }
}

fn api() -> Result<&'static sqlite3_api_routines, String> {
    let api = API.load(Ordering::Acquire);
    // SAFETY: the pointer comes from SQLite's entry point call and the table
    // it points to lives as long as the SQLite library itself.
    unsafe { api.as_ref() }.ok_or_else(|| "errkb: extension not initialised".to_owned())
}

macro_rules! call {
    ($api:expr, $name:ident ( $($arg:expr),* )) => {
        ($api.$name.ok_or(concat!("errkb: this SQLite lacks sqlite3_", stringify!($name)))?)($($arg),*)
    };
}

/// SQLite's version string at run time (the host's, not the headers').
pub fn libversion() -> String {
    api()
        .and_then(|api| unsafe {
            let p = call!(api, libversion());
            Ok(CStr::from_ptr(p).to_string_lossy().into_owned())
        })
        .unwrap_or_else(|e| e)
}

/// A connection SQLite handed the extension: to an entry point, to a
/// virtual table, or with a function's call. Borrowed: SQLite owns it,
/// and it outlives each of these (a virtual table is disconnected before
/// its connection closes), so a copy is valid wherever one is kept.
#[derive(Clone, Copy)]
pub struct Connection(*mut sqlite3);

impl Connection {
    /// Only this layer makes one, from what SQLite passed it.
    pub(in crate::sqlite) fn from_raw(db: *mut sqlite3) -> Self {
        Connection(db)
    }

    pub(in crate::sqlite) fn raw(self) -> *mut sqlite3 {
        self.0
    }

    /// The connection a SQL function is being called on.
    pub fn of_call(ctx: *mut sqlite3_context) -> Self {
        Connection(sqlite_loadable::api::context_db_handle(ctx))
    }

    /// Run `sql` (any number of statements, no parameters, no rows wanted).
    pub fn exec(self, sql: &str) -> Result<(), String> {
        exec(self.0, sql)
    }
}

fn exec(db: *mut sqlite3, sql: &str) -> Result<(), String> {
    let api = api()?;
    let sql = std::ffi::CString::new(sql).map_err(|_| "a NUL in SQL".to_owned())?;
    // SAFETY: db is the live connection SQLite called us with; sql is
    // NUL-terminated; no callback, and the error message is read from the
    // connection instead of being allocated.
    let rc = unsafe {
        call!(
            api,
            exec(db.cast(), sql.as_ptr(), None, ptr::null_mut(), ptr::null_mut())
        )
    };
    if rc != 0 {
        return Err(errmsg(api, db));
    }
    Ok(())
}

/// An owned SQLite value, detached from the statement that produced it.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Integer(i64),
    Real(f64),
    Text(String),
    Blob(Vec<u8>),
}

impl Value {
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Value::Text(s) => Some(s),
            _ => None,
        }
    }
}

/// A prepared statement on a borrowed connection; finalised on drop.
pub struct Statement {
    db: Connection,
    stmt: *mut sqlite3_stmt,
    api: &'static sqlite3_api_routines,
}

impl Statement {
    pub fn prepare(db: Connection, sql: &str) -> Result<Self, String> {
        match Self::prepare_first(db, sql.as_bytes())? {
            (Some(statement), _) => Ok(statement),
            (None, _) => Err("no SQL statement to prepare".to_owned()),
        }
    }

    /// Every statement of `sql`, in order (a script of several; comments
    /// and blank space between them are skipped).
    pub fn prepare_all(db: Connection, sql: &str) -> Result<Vec<Self>, String> {
        let mut statements = Vec::new();
        let mut rest = sql.as_bytes();
        while let (Some(statement), used) = Self::prepare_first(db, rest)? {
            statements.push(statement);
            rest = &rest[used..];
        }
        Ok(statements)
    }

    /// The first statement of `sql` and how many bytes it took; `None`
    /// when only comments or blank space are left.
    fn prepare_first(db: Connection, sql: &[u8]) -> Result<(Option<Self>, usize), String> {
        let api = api()?;
        let mut stmt = ptr::null_mut();
        let mut tail: *const c_char = ptr::null();
        let len = c_int::try_from(sql.len()).map_err(|_| "statement too long".to_owned())?;
        // SAFETY: db is the live connection SQLite called us with; the text
        // is passed with its length (no NUL terminator needed), and SQLite
        // points `tail` into it.
        let rc = unsafe {
            call!(
                api,
                prepare_v2(db.0.cast(), sql.as_ptr().cast::<c_char>(), len, &mut stmt, &mut tail)
            )
        };
        if rc != 0 {
            return Err(errmsg(api, db.0));
        }
        // SAFETY: `tail` is the first byte after the statement compiled,
        // inside `sql` or at its end.
        let used = usize::try_from(unsafe { tail.cast::<u8>().offset_from(sql.as_ptr()) })
            .map_or(sql.len(), |used| used.min(sql.len()));
        let statement = (!stmt.is_null()).then(|| Statement {
            db,
            stmt: stmt.cast(),
            api,
        });
        Ok((statement, used))
    }

    /// The names of the statement's parameters (`:name`), by index from 1;
    /// `None` for a nameless `?`.
    pub fn parameter_names(&self) -> Vec<Option<String>> {
        let names = || -> Result<Vec<Option<String>>, String> {
            // SAFETY: the statement is live until drop; the names are
            // NUL-terminated strings owned by it, copied out at once.
            unsafe {
                let count = call!(self.api, bind_parameter_count(self.stmt.cast()));
                let mut names = Vec::new();
                for i in 1..=count {
                    let p = call!(self.api, bind_parameter_name(self.stmt.cast(), i));
                    names.push((!p.is_null()).then(|| CStr::from_ptr(p).to_string_lossy().into_owned()));
                }
                Ok(names)
            }
        };
        names().unwrap_or_default()
    }

    /// Bind a value SQLite handed to the extension (a copy is made).
    pub(in crate::sqlite) fn bind_value(
        &mut self,
        index: c_int,
        value: *mut sqlite_loadable::prelude::sqlite3_value,
    ) -> Result<(), String> {
        // SAFETY: value is live for the current call; bind_value copies it.
        let rc = unsafe { call!(self.api, bind_value(self.stmt.cast(), index, value.cast())) };
        self.check(rc)
    }

    /// Run the statement to its end (its rows, if any, unread), and make it
    /// ready to run again.
    pub fn execute(&mut self) -> Result<(), String> {
        let mut run = || -> Result<(), String> {
            while self.step()? {}
            Ok(())
        };
        let outcome = run();
        // reset after a failure returns the same error: the step's is kept
        let _ = self.reset();
        outcome
    }

    pub fn bind_text(&mut self, index: c_int, text: &str) -> Result<(), String> {
        self.bind_text_bytes(index, text.as_bytes())
    }

    /// Bind bytes as TEXT without checking that they are UTF-8 (range bounds
    /// may end in a byte that no UTF-8 text contains).
    pub fn bind_text_bytes(&mut self, index: c_int, text: &[u8]) -> Result<(), String> {
        let len = c_int::try_from(text.len()).map_err(|_| "text too long".to_owned())?;
        // SAFETY: SQLITE_TRANSIENT makes SQLite copy the bytes before returning.
        let rc = unsafe {
            call!(
                self.api,
                bind_text(
                    self.stmt.cast(),
                    index,
                    text.as_ptr().cast::<c_char>(),
                    len,
                    transient()
                )
            )
        };
        self.check(rc)
    }

    pub fn bind_null(&mut self, index: c_int) -> Result<(), String> {
        // SAFETY: the statement is live until drop.
        let rc = unsafe { call!(self.api, bind_null(self.stmt.cast(), index)) };
        self.check(rc)
    }

    /// TEXT, or NULL for `None`.
    pub fn bind_optional_text(&mut self, index: c_int, text: Option<&[u8]>) -> Result<(), String> {
        match text {
            Some(text) => self.bind_text_bytes(index, text),
            None => self.bind_null(index),
        }
    }

    pub fn bind_double(&mut self, index: c_int, value: f64) -> Result<(), String> {
        // SAFETY: plain value.
        let rc = unsafe { call!(self.api, bind_double(self.stmt.cast(), index, value)) };
        self.check(rc)
    }

    pub fn bind_int64(&mut self, index: c_int, value: i64) -> Result<(), String> {
        // SAFETY: the statement is live until drop.
        let rc = unsafe { call!(self.api, bind_int64(self.stmt.cast(), index, value)) };
        self.check(rc)
    }

    pub fn bind_blob(&mut self, index: c_int, blob: &[u8]) -> Result<(), String> {
        let len = c_int::try_from(blob.len()).map_err(|_| "blob too long".to_owned())?;
        // SAFETY: SQLITE_TRANSIENT makes SQLite copy the bytes before returning.
        let rc = unsafe {
            call!(
                self.api,
                bind_blob(
                    self.stmt.cast(),
                    index,
                    blob.as_ptr().cast::<c_void>(),
                    len,
                    transient()
                )
            )
        };
        self.check(rc)
    }

    /// Advance to the next row: `Ok(true)` when there is one.
    pub fn step(&mut self) -> Result<bool, String> {
        // SAFETY: the statement is live until drop.
        match unsafe { call!(self.api, step(self.stmt.cast())) } {
            SQLITE_ROW => Ok(true),
            SQLITE_DONE => Ok(false),
            _ => Err(errmsg(self.api, self.db.0)),
        }
    }

    /// Ready to run again with new bindings.
    pub fn reset(&mut self) -> Result<(), String> {
        // SAFETY: the statement is live until drop.
        let rc = unsafe { call!(self.api, reset(self.stmt.cast())) };
        self.check(rc)
    }

    pub fn column_count(&self) -> c_int {
        // SAFETY: the statement is live until drop.
        self.api
            .column_count
            .map_or(0, |count| unsafe { count(self.stmt.cast()) })
    }

    /// Column `i` of the current row; NULL past the last column.
    pub fn column(&self, i: c_int) -> Value {
        if i < 0 || i >= self.column_count() {
            return Value::Null;
        }
        let stmt = self.stmt.cast();
        let column = || -> Result<Value, String> {
            // SAFETY: only called after step() returned a row; pointers
            // returned by column_text/blob are valid until the next step, and
            // are copied out at once.
            unsafe {
                Ok(match call!(self.api, column_type(stmt, i)) {
                    SQLITE_INTEGER => Value::Integer(call!(self.api, column_int64(stmt, i))),
                    SQLITE_FLOAT => Value::Real(call!(self.api, column_double(stmt, i))),
                    SQLITE_TEXT => {
                        let p = call!(self.api, column_text(stmt, i));
                        let n = call!(self.api, column_bytes(stmt, i));
                        Value::Text(String::from_utf8_lossy(raw_bytes(p.cast(), n)).into_owned())
                    }
                    SQLITE_BLOB => {
                        let p = call!(self.api, column_blob(stmt, i));
                        let n = call!(self.api, column_bytes(stmt, i));
                        Value::Blob(raw_bytes(p.cast(), n).to_vec())
                    }
                    _ => Value::Null,
                })
            }
        };
        column().unwrap_or(Value::Null)
    }

    /// Column `i` of the current row as the bytes of its text, borrowed
    /// from SQLite until the next step (which the borrow forbids); None
    /// when it is not text. For reading many rows without a copy of each.
    pub fn column_text_bytes(&self, i: c_int) -> Option<&[u8]> {
        if i < 0 || i >= self.column_count() {
            return None;
        }
        let stmt = self.stmt.cast();
        let read = || -> Result<Option<&[u8]>, String> {
            // SAFETY: only called after step() returned a row; the text is
            // valid until the statement steps, resets or is finalised, all
            // of which take `&mut self` or `self`, so not while it is borrowed.
            unsafe {
                if call!(self.api, column_type(stmt, i)) != SQLITE_TEXT {
                    return Ok(None);
                }
                let p = call!(self.api, column_text(stmt, i));
                let n = call!(self.api, column_bytes(stmt, i));
                Ok(Some(raw_bytes(p.cast(), n)))
            }
        };
        read().ok().flatten()
    }

    fn check(&self, rc: c_int) -> Result<(), String> {
        if rc == 0 {
            Ok(())
        } else {
            Err(errmsg(self.api, self.db.0))
        }
    }
}

/// Prepared statements kept for the life of a connection, found by their
/// SQL text. A search runs the same few statements every time, and
/// preparing them again each time was most of a text stage's cost. Each
/// is reset after use, so a kept statement holds no read transaction.
/// Its bindings are not cleared: every use binds all of them again, and
/// clearing a binding the planner looked at would make SQLite prepare the
/// statement again at the next step. The owner (a table function's virtual table) is
/// dropped when SQLite disconnects it, before the connection closes,
/// which finalizes them.
#[derive(Default)]
pub struct StatementCache {
    statements: Vec<(&'static str, Statement)>,
}

impl StatementCache {
    /// Run `f` on the statement for `sql`, prepared the first time.
    pub fn with<R>(
        &mut self,
        db: Connection,
        sql: &'static str,
        f: impl FnOnce(&mut Statement) -> Result<R, String>,
    ) -> Result<R, String> {
        let at = match self.statements.iter().position(|(kept, _)| *kept == sql) {
            Some(at) => at,
            None => {
                self.statements.push((sql, Statement::prepare(db, sql)?));
                self.statements.len() - 1
            }
        };
        let statement = &mut self.statements[at].1;
        let out = f(statement);
        // (a reset repeats the last step's error, which `f` has reported)
        let _ = statement.reset();
        out
    }
}

impl Drop for Statement {
    fn drop(&mut self) {
        if let Some(finalize) = self.api.finalize {
            // SAFETY: finalised exactly once.
            unsafe { finalize(self.stmt.cast()) };
        }
    }
}

/// SQLITE_TRANSIENT: "copy the value now" (the C macro is `(destructor)-1`).
fn transient() -> Option<unsafe extern "C" fn(*mut c_void)> {
    // SAFETY: SQLite compares this pointer against -1 and never calls it.
    unsafe { std::mem::transmute::<isize, Option<unsafe extern "C" fn(*mut c_void)>>(-1) }
}

/// # Safety
/// `p` must point to `n` readable bytes (or be null).
unsafe fn raw_bytes<'a>(p: *const u8, n: c_int) -> &'a [u8] {
    if p.is_null() || n <= 0 {
        &[]
    } else {
        std::slice::from_raw_parts(p, n as usize)
    }
}

fn errmsg(api: &sqlite3_api_routines, db: *mut sqlite3) -> String {
    let message = || -> Result<String, String> {
        // SAFETY: errmsg returns a NUL-terminated string owned by SQLite.
        unsafe {
            let p = call!(api, errmsg(db.cast()));
            Ok(if p.is_null() {
                "unknown SQLite error".into()
            } else {
                CStr::from_ptr(p).to_string_lossy().into_owned()
            })
        }
    };
    message().unwrap_or_else(|e| e)
}

/// The bytes of a function argument, or `None` for SQL NULL. Text, numbers
/// and blobs all come back as their bytes (numbers as SQLite's text form).
pub fn value_bytes<'a>(value: &*mut sqlite_loadable::prelude::sqlite3_value) -> Option<&'a [u8]> {
    let api = api().ok()?;
    // SAFETY: value is an argument SQLite passed to the current call; per the
    // SQLite docs, value_blob is called before value_bytes. The bytes stay
    // valid for the duration of the call, which outlives every use here.
    unsafe {
        if api.value_type?(*value) == 5 {
            return None;
        }
        let p = api.value_blob?(*value);
        let n = api.value_bytes?(*value);
        Some(raw_bytes(p.cast(), n))
    }
}
