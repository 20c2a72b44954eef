//! What the agent reads: the words of every advice (`render`), in the
//! user's language (`language`).

pub mod file_history;
pub mod language;
pub mod render;
