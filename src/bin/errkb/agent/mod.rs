//! How errkb meets the agents: the table of hooks, a hook's payload,
//! Codex's forms of both (its payloads, session files and patches), their
//! settings files, and a past session's tool calls.

pub mod call;
pub mod codex;
pub mod codex_patch;
pub mod codex_rollout;
pub mod hooks;
pub mod payload;
pub mod settings_file;
