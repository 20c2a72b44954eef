//! How the agents reach errkb: the table of hooks, a hook's payload, and
//! Codex's forms of both (its payloads, session files and patches).

pub mod codex;
pub mod codex_patch;
pub mod codex_rollout;
pub mod hooks;
pub mod payload;
