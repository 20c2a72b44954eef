//! `redact_secrets(text)`: credentials replaced by `[REDACTED]` before
//! anything from a tool call is stored or shown to an agent: API keys and
//! tokens of the common providers, `Authorization:` headers, `password=`
//! style assignments, credentials in URLs, private key blocks.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;

pub const REDACTED: &str = "[REDACTED]";

/// Secrets recognised by their own shape, replaced whole.
static TOKENS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|\z)",
        r"|\bsk-ant-[A-Za-z0-9_\-]{16,}",               // Anthropic
        r"|\bsk-(?:proj-)?[A-Za-z0-9_\-]{20,}",         // OpenAI
        r"|\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{30,}", // GitHub
        r"|\bgithub_pat_[A-Za-z0-9_]{30,}",
        r"|\bglpat-[A-Za-z0-9_\-]{20,}",                                        // GitLab
        r"|\bxox[abposr]-[A-Za-z0-9\-]{10,}",                                   // Slack
        r"|\b(?:AKIA|ASIA)[0-9A-Z]{16}\b",                                      // AWS access key id
        r"|\bAIza[0-9A-Za-z_\-]{35}",                                           // Google API key
        r"|\b[rs]k_(?:live|test)_[A-Za-z0-9]{20,}",                             // Stripe
        r"|\bnpm_[A-Za-z0-9]{36}",                                              // npm
        r"|\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}", // JWT
    ))
    .expect("valid pattern")
});

/// Secrets recognised by what precedes them: keep the label, hide the value.
static LABELLED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?i)(authorization\s*[:=]\s*(?:bearer|basic|token)?\s*)[^\s'\x22]+",
        r"|(?i)((?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|client[_-]?secret)\x22?\s*[:=]\s*\x22?)[^\s'\x22&]+",
        r"|([a-z][a-z0-9+.\-]*://[^/\s:@]+:)[^@\s/]+(@)",  // scheme://user:password@host
    ))
    .expect("valid pattern")
});

/// Every secret the patterns know contains one of these (ASCII
/// case-insensitive): text without any is returned as is, without
/// compiling the patterns, which would cost each hook process about a
/// millisecond.
const TRIGGERS: &[&str] = &[
    "private key",
    "sk-",
    "sk_",
    "rk_",
    "gh",
    "github_pat_",
    "glpat-",
    "xox",
    "akia",
    "asia",
    "aiza",
    "npm_",
    "eyj",
    "authorization",
    "pass",
    "pwd",
    "secret",
    "token",
    "key",
    "://",
];

fn may_hold_secret(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    TRIGGERS.iter().any(|t| lower.contains(t))
}

pub fn redact_secrets(text: &str) -> Cow<'_, str> {
    if !may_hold_secret(text) {
        return Cow::Borrowed(text);
    }
    let tokens = TOKENS.replace_all(text, REDACTED);
    match LABELLED.replace_all(&tokens, |c: &regex::Captures<'_>| {
        let label = c
            .get(1)
            .or_else(|| c.get(2))
            .or_else(|| c.get(3))
            .map_or("", |m| m.as_str());
        let tail = c.get(4).map_or("", |m| m.as_str());
        format!("{label}{REDACTED}{tail}")
    }) {
        Cow::Borrowed(_) => tokens,
        Cow::Owned(s) => Cow::Owned(s),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redacts_known_shapes() {
        for (input, want) in [
            (
                "curl -H 'Authorization: Bearer abc.def-123' x",
                "curl -H 'Authorization: Bearer [REDACTED]' x",
            ),
            (
                "export OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuv",
                "export OPENAI_API_KEY=[REDACTED]",
            ),
            ("key sk-ant-api03-abcdefghijklmnopqrstuvwx here", "key [REDACTED] here"),
            (
                "git clone https://alice:hunter2@github.com/a/b",
                "git clone https://alice:[REDACTED]@github.com/a/b",
            ),
            ("mysql --password=s3cr3t -u root", "mysql --password=[REDACTED] -u root"),
            ("token ghp_abcdefghijklmnopqrstuvwxyz0123456789", "token [REDACTED]"),
            ("aws AKIAIOSFODNN7EXAMPLE ok", "aws [REDACTED] ok"),
            (
                "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY----- tail",
                "[REDACTED] tail",
            ),
            (r#"{"api_key": "abc123"}"#, r#"{"api_key": "[REDACTED]"}"#),
        ] {
            assert_eq!(redact_secrets(input), want, "{input}");
        }
    }

    #[test]
    fn every_pattern_has_a_trigger() {
        // Each redacted sample must pass the cheap check, or it would be missed.
        for sample in [
            "-----BEGIN PRIVATE KEY-----",
            "sk-ant-x",
            "sk-proj-x",
            "ghp_x",
            "github_pat_x",
            "glpat-x",
            "xoxb-x",
            "AKIAX",
            "ASIAX",
            "AIzaX",
            "sk_live_x",
            "rk_test_x",
            "npm_x",
            "eyJx",
            "Authorization: x",
            "password=x",
            "passwd=x",
            "pwd=x",
            "secret=x",
            "token=x",
            "api_key=x",
            "access-key=x",
            "client_secret=x",
            "https://a:b@c",
        ] {
            assert!(may_hold_secret(sample), "{sample}");
        }
    }

    #[test]
    fn leaves_ordinary_text_alone() {
        for text in [
            "npm install left-pad",
            "Cannot find module './key.ts'",
            "tokenizer.json",
            "https://example.com/a",
        ] {
            assert!(matches!(redact_secrets(text), Cow::Borrowed(_)), "{text}");
        }
    }
}
