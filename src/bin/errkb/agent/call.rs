//! A tool call of a past session, as `errkb learn` reads it from Claude
//! Code's transcripts and Codex's session files alike.

use serde_json::value::RawValue;

/// One tool call with its result, as the hooks would have seen it.
pub struct Call {
    /// When the result arrived: the time PostToolUse(Failure) fires.
    pub ts: String,
    pub session_id: String,
    pub cwd: Option<String>,
    pub agent_id: Option<String>,
    pub tool_use_id: String,
    pub tool_name: String,
    pub tool_input: Box<RawValue>,
    pub outcome: Outcome,
    /// The agent an Agent (Task) call started.
    pub subagent: Option<String>,
    /// A Read whose result gave no content (past the file's end): the
    /// hook's `:file_content` is then empty, and the event says it read
    /// nothing. (Nothing else of a Read's content is used when importing.)
    pub read_gave_nothing: bool,
    /// The agent whose call it is, when not Claude Code's, and its turn.
    pub agent: Option<&'static str>,
    pub turn_id: Option<String>,
}

pub enum Outcome {
    /// With a shell command's output (as the hook gets it: `:output`).
    Success(Option<String>),
    Failure(String),
    Interrupt(String),
}
