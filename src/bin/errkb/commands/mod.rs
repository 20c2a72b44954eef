//! One module per command of the runner; `main.rs` dispatches to them.

pub mod catalog;
pub mod doctor;
pub mod embed;
pub mod hook;
pub mod hub;
pub mod install;
pub mod install_codex;
pub mod learn;
pub mod learn_codex;
pub mod migrate;
pub mod model;
pub mod plugin;
pub mod record;
pub mod run;
pub mod search;
