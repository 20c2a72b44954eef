//! Scalar SQL functions: how one is described, and the panic guard every
//! one of them runs under when it is registered.

use std::ffi::c_int;
use std::panic::{catch_unwind, AssertUnwindSafe};

use sqlite_loadable::prelude::*;
use sqlite_loadable::{define_scalar_function, Error, FunctionFlags, Result};

use crate::sqlite::ffi::Connection;

pub type ScalarFn = fn(*mut sqlite3_context, &[*mut sqlite3_value]) -> Result<()>;

pub struct ScalarFunction {
    pub name: &'static str,
    pub n_args: c_int,
    pub func: ScalarFn,
    pub flags: FunctionFlags,
}

/// Register `f` on `db`, guarded.
pub fn define(db: Connection, f: &ScalarFunction) -> Result<()> {
    define_scalar_function(db.raw(), f.name, f.n_args, guarded(f.name, f.func), f.flags)
}

/// Run `func`, turning a panic into a SQL error: unwinding into SQLite's C
/// frames would abort the user's shell.
fn guarded(name: &'static str, func: ScalarFn) -> impl Fn(*mut sqlite3_context, &[*mut sqlite3_value]) -> Result<()> {
    move |ctx, args| {
        catch_unwind(AssertUnwindSafe(|| func(ctx, args))).unwrap_or_else(|panic| {
            let detail = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            Err(Error::new_message(format!(
                "{name}(): internal error ({detail}); the database is unchanged, please report this"
            )))
        })
    }
}
