//! What the runner's two programs (`errkb`, `errkb-hub`) share: opening
//! the database (with the extension built in, the schema upgraded), running
//! a script, where files live, private file modes, whether the disk takes
//! writes, and changing config.json. It uses rusqlite's SQLite, linked into the programs; the
//! extension (`errkb.so`) never calls it.

pub mod config_file;
pub mod db;
pub mod paths;
pub mod private;
pub mod script;
pub mod storage;

/// A count and its noun, the noun singular for one: `1 fix`, `2 fixes`,
/// `0 fixes` (what a command prints of its counts).
pub fn counted(n: impl std::fmt::Display, one: &str, many: &str) -> String {
    let n = n.to_string();
    let noun = if n == "1" { one } else { many };
    format!("{n} {noun}")
}

#[cfg(test)]
mod tests {
    #[test]
    fn one_is_singular_and_everything_else_plural() {
        assert_eq!(super::counted(1, "fix", "fixes"), "1 fix");
        assert_eq!(super::counted(0u64, "fix", "fixes"), "0 fixes");
        assert_eq!(super::counted(11usize, "entry", "entries"), "11 entries");
        assert_eq!(super::counted(-1i64, "row", "rows"), "-1 rows");
    }
}
