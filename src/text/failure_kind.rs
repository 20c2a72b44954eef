//! `failure_kind(text)`: whether a failed tool call is the tool's own
//! error, or something else that Claude Code reports the same way.
//!
//! Only the tool's own failure (a command that failed, a file missing, a
//! search that crashed) is an error to learn a fix for and to advise on.
//! The rest is recorded as what it is, without its text (a user's words
//! are theirs), and never learned or advised:
//!
//! - `interrupt`: the user stopped the call;
//! - `rejected`: the user said no to the call (with or without a reason),
//!   or declined to answer a question;
//! - `denied`: a permission was not granted, a path is outside the
//!   folders the session may touch, or Claude Code runs no tools in that
//!   context (a warm-up subagent, a prompt suggestion);
//! - `hook`: a hook blocked the call;
//! - `sandbox`: the sandbox refused the call itself (a command that failed
//!   inside the sandbox is an error, and its retry with the sandbox
//!   disabled its fix);
//! - `invalid`: Claude Code refused the input before the tool ran
//!   (`<tool_use_error>`: the text to replace is not in the file, the file
//!   was not read first, a sibling call failed, an unknown tool …).
//!
//! The texts are Claude Code's own (checked with the real client and on
//! real transcripts of clients 1.0 to 2.1); they are matched at the start
//! of the result, where Claude Code puts them.

/// What a failed call is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailureKind {
    Error,
    Interrupt,
    Rejected,
    Denied,
    Hook,
    Sandbox,
    Invalid,
}

impl FailureKind {
    pub fn name(self) -> &'static str {
        match self {
            FailureKind::Error => "error",
            FailureKind::Interrupt => "interrupt",
            FailureKind::Rejected => "rejected",
            FailureKind::Denied => "denied",
            FailureKind::Hook => "hook",
            FailureKind::Sandbox => "sandbox",
            FailureKind::Invalid => "invalid",
        }
    }
}

/// How the result starts, for each kind that is not an error.
const STARTS: &[(&str, FailureKind)] = &[
    ("[Request interrupted by user", FailureKind::Interrupt),
    (
        "The user doesn't want to proceed with this tool use",
        FailureKind::Rejected,
    ),
    (
        "The user doesn't want to take this action right now",
        FailureKind::Rejected,
    ),
    ("The user doesn't want to", FailureKind::Rejected),
    ("User rejected tool use", FailureKind::Rejected),
    ("Tool use was rejected", FailureKind::Rejected),
    ("Claude requested permissions to ", FailureKind::Denied),
    ("This command requires approval", FailureKind::Denied),
    (
        "This Bash command contains multiple operations. The following part",
        FailureKind::Denied,
    ),
    ("This Bash command requires approval", FailureKind::Denied),
    ("Permission to use ", FailureKind::Denied),
    ("Permission denied by ", FailureKind::Denied),
    // Claude Code's auto mode: "Permission for this action was denied by
    // the Claude Code auto mode classifier. Reason: …"
    ("Permission for this action was denied", FailureKind::Denied),
    // ... and client 2.1's: "Permission for this tool use was denied. It
    // requires approval, and this session has no approval surface", "…
    // was denied: it requires interactive approval", "Permission for this
    // command was denied by a built-in Claude Code safety check"
    ("Permission for this tool use was denied", FailureKind::Denied),
    ("Permission for this command was denied", FailureKind::Denied),
    // a Read, Edit or Write of a path a deny rule covers (client 2.1)
    ("File is in a directory that is denied by your permission settings", FailureKind::Denied),
    ("File is covered by a Read deny rule in your permission settings", FailureKind::Denied),
    ("<tool_use_error>", FailureKind::Invalid),
    ("InputValidationError", FailureKind::Invalid),
    ("String to replace not found in file", FailureKind::Invalid),
    ("File has not been read yet", FailureKind::Invalid),
    ("File has been modified since read", FailureKind::Invalid),
    ("File has been unexpectedly modified", FailureKind::Invalid),
    ("No changes to make: old_string and new_string", FailureKind::Invalid),
    ("Sibling tool call errored", FailureKind::Invalid),
    ("No such tool available", FailureKind::Invalid),
    ("Error: No such tool available", FailureKind::Invalid),
    ("Found ", FailureKind::Invalid), // "Found N matches of the string to replace, but replace_all is false"
    ("Sandbox mode requested but not available", FailureKind::Sandbox),
];

/// The whole result, for refusals that are one word or phrase: a warm-up
/// subagent's calls (`Warmup`), calls made while Claude Code writes a
/// prompt suggestion (`No tools needed for suggestion`).
const WHOLE: &[(&str, FailureKind)] = &[
    ("Warmup", FailureKind::Denied),
    ("No tools needed for suggestion", FailureKind::Denied),
];

/// Said somewhere in the first line.
const CONTAINS: &[(&str, FailureKind)] = &[
    (" hook error: ", FailureKind::Hook),
    ("Blocked by hook", FailureKind::Hook),
    (" hook blocked ", FailureKind::Hook),
    (
        " may only list files in the allowed working directories",
        FailureKind::Denied,
    ),
    (
        " may only read files in the allowed working directories",
        FailureKind::Denied,
    ),
    (
        " may only access files in the allowed working directories",
        FailureKind::Denied,
    ),
    (" was blocked. For security, Claude Code", FailureKind::Denied),
    (" needs approval. ", FailureKind::Denied),
    ("so auto mode cannot determine the safety of", FailureKind::Denied),
    ("has been denied", FailureKind::Denied),
    ("disabled by policy in this environment", FailureKind::Sandbox),
    ("blocked by the sandbox", FailureKind::Sandbox),
    ("blocked by sandbox", FailureKind::Sandbox),
];

/// What a failed call's result text says it is.
pub fn failure_kind(text: &str) -> FailureKind {
    let text = text.trim_start();
    if let Some((_, kind)) = WHOLE.iter().find(|(whole, _)| text.trim_end() == *whole) {
        return *kind;
    }
    let first_line = text.lines().next().unwrap_or("");
    for (start, kind) in STARTS {
        if text.starts_with(start) {
            if *start == "Found " && !first_line.contains("matches of the string to replace") {
                continue;
            }
            return *kind;
        }
    }
    // `PreToolUse:Bash hook error: …`, `Error: PreToolUse:Read hook error: …`
    let head = first_line.strip_prefix("Error: ").unwrap_or(first_line);
    if head.starts_with("PreToolUse:") && head.contains(" hook ") {
        return FailureKind::Hook;
    }
    for (part, kind) in CONTAINS {
        if first_line.contains(part) {
            return *kind;
        }
    }
    FailureKind::Error
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_codes_own_refusals_are_not_errors() {
        let cases = [
            ("The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.", FailureKind::Rejected),
            ("The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). The user provided the following reason for the rejection:  use pnpm", FailureKind::Rejected),
            ("The user doesn't want to take this action right now. STOP what you are doing and wait for the user to tell you how to proceed.", FailureKind::Rejected),
            ("Claude requested permissions to write to /w/CLAUDE.md, but you haven't granted it yet.", FailureKind::Denied),
            ("Permission for this tool use was denied. It requires approval, and this session has no approval surface", FailureKind::Denied),
            ("Permission for this command was denied by a built-in Claude Code safety check", FailureKind::Denied),
            ("File is in a directory that is denied by your permission settings.", FailureKind::Denied),
            ("File is covered by a Read deny rule in your permission settings and cannot be edited.", FailureKind::Denied),
            ("This command requires approval", FailureKind::Denied),
            ("touch in '/tmp/p/made' needs approval. The path is inside the working directories for this session ('/tmp/p'), and Claude Code asks before a shell command creates, changes or removes files there.", FailureKind::Denied),
            ("ls in '~/.claude' was blocked. For security, Claude Code may only list files in the allowed working directories for this session: '/src/x'.", FailureKind::Denied),
            ("PreToolUse:Bash hook error: [/w/check.py]: BLOCKED", FailureKind::Hook),
            ("PreToolUse:Read hook error: Blocked by secrets-protection hook", FailureKind::Hook),
            ("<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>", FailureKind::Invalid),
            ("String to replace not found in file.\nString: def main():", FailureKind::Invalid),
            ("Found 3 matches of the string to replace, but replace_all is false.", FailureKind::Invalid),
            ("[Request interrupted by user for tool use]", FailureKind::Interrupt),
            ("Warmup", FailureKind::Denied),
            ("No tools needed for suggestion", FailureKind::Denied),
        ];
        for (text, kind) in cases {
            assert_eq!(failure_kind(text), kind, "{text}");
        }
    }

    #[test]
    fn the_tools_own_failures_are_errors() {
        for text in [
            "Exit code 1\nTraceback (most recent call last):\nModuleNotFoundError: No module named 'yaml'",
            "EISDIR: illegal operation on a directory, read '/w/src'",
            "File does not exist. Note: your current working directory is /w.",
            "Exit code 1\nFound 2 errors in 1 file.",
            "Exit code 1\ngo: failed to trim cache: open /x/trim.txt: operation not permitted",
            "Exit code 128\nfatal: the user does not exist",
            // a program's own "Permission denied" is not Claude Code's
            "git@github.com: Permission denied (publickey).\nfatal: Could not read from remote repository.",
            "Exit code 126\n/bin/sh: ./run.sh: Permission denied",
            // only the whole result is a refusal
            "Exit code 1\nWarmup",
            "Warmup failed: cache directory missing",
        ] {
            assert_eq!(failure_kind(text), FailureKind::Error, "{text}");
        }
    }
}
