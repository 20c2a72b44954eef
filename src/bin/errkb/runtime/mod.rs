//! What the commands share: opening the database, running a script,
//! reading a hook's payload, where files live, private file modes, and the
//! table of hooks.

pub mod codex;
pub mod codex_patch;
pub mod codex_rollout;
pub mod config_file;
pub mod db;
pub mod hooks;
pub mod paths;
pub mod payload;
pub mod private;
pub mod script;
