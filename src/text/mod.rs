//! The text rules: what an error's text says, what a command runs, what
//! must not be stored. Pure functions on strings, each module one rule set.

pub mod catalog;
pub mod command;
pub mod failure_kind;
pub mod js;
pub mod normalize;
pub mod paths_in_text;
pub mod redact;
pub mod signature;
pub mod similarity;
pub mod terminal;
pub mod test_verdict;
