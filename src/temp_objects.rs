//! SQL objects a connection makes for itself (TEMP), kept out of the
//! database file: every connection parses the file's schema when it
//! opens, and most of errkb's (the hooks) use none of these.

pub struct TempObjects {
    /// The names statements use them by.
    pub names: &'static [&'static str],
    /// The last object `sql` makes: when it exists, all do.
    pub last: &'static str,
    pub sql: &'static str,
}

/// The history views (see the file); install also copies it to
/// ~/.reflexion/sql, for a sqlite3 that cannot load the extension.
pub const HISTORY_VIEWS_SQL: &str = include_str!("../sql/history_views.sql");

pub const TEMP_OBJECTS: &[TempObjects] = &[
    // the questions users ask of their history
    TempObjects {
        names: &[
            "kb_frequent_errors",
            "kb_unresolved_errors",
            "kb_reused_fixes",
            "kb_advice_hit_rate",
        ],
        last: "kb_advice_hit_rate",
        sql: HISTORY_VIEWS_SQL,
    },
];
