//! Text rules' results worked out ahead of the SQL calls that ask for them.
//!
//! `errkb learn` stores a transcript's tool calls one after another on its
//! one connection, each by running a hook script, while another thread
//! reads and parses the transcripts ahead of it. The scripts' costliest
//! steps are the text rules run on a failure's output (secrets and home
//! folders redacted, the excerpt, the signature): pure functions of that
//! text, about a fifth of the storing thread's instructions. The parsing
//! thread works them out for each failure it reads (`offer`); while the
//! import stores that call (`begin_call`), the SQL functions use a result
//! of that call's whose rule and input text are the ones they were given
//! (`text_of`, `signature_of`), instead of computing it. The same rule on
//! the same text gives the same answer, so what is stored does not
//! change; an input the script derives otherwise (a localized message
//! translated first) finds nothing and is computed as before.
//!
//! Nothing is offered outside `errkb learn`: a hook process, or the sqlite3
//! shell, pays one atomic load per call. The results waiting hold at most
//! `BUDGET` bytes of text: past that, the parsing thread offers nothing
//! (the import works those out itself). The results of the calls the
//! import has passed are dropped when it begins the next; the last call's
//! stay until the process ends.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use crate::text::signature::Signature;

/// The rules whose results are offered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// `redact_secrets()`
    RedactSecrets,
    /// `redact_private()`
    RedactPrivate,
    /// `error_excerpt()`
    Excerpt,
    /// `signature::signature()`, behind `error_signature()`,
    /// `error_headline()` and `error_identified()`
    Signature,
}

enum Output {
    Text(String),
    Signature(Signature),
}

/// The results worked out for one call: the `call`th the parsing thread
/// read (counted from 0 over the whole import, as the import counts the
/// calls it receives).
pub struct Worked {
    call: u64,
    results: Vec<(Rule, String, Output)>,
    /// The bytes of text it holds.
    bytes: usize,
}

impl Worked {
    pub fn new(call: u64) -> Worked {
        Worked {
            call,
            results: Vec::new(),
            bytes: 0,
        }
    }

    /// `output` is `rule` of `input`.
    pub fn text(&mut self, rule: Rule, input: String, output: String) {
        self.bytes += input.len() + output.len();
        self.results.push((rule, input, Output::Text(output)));
    }

    /// `signature` is the signature of `input`.
    pub fn signature(&mut self, input: String, signature: Signature) {
        self.bytes += input.len() + signature.text.len() + signature.headline.len();
        self.results.push((Rule::Signature, input, Output::Signature(signature)));
    }
}

struct Queue {
    waiting: VecDeque<Worked>,
    /// The bytes of text `waiting` holds.
    bytes: usize,
    /// The results of the call being stored.
    current: Option<Worked>,
}

/// Most bytes of text the waiting results hold. The parsing thread reads
/// up to a few thousand calls ahead (see `errkb learn`): room for their
/// failures' results, as usual outputs go, so that those the import comes
/// to are there; a bound, whatever the outputs.
pub const BUDGET: usize = 64 << 20;

/// Whether anything was ever offered in this process.
static IN_USE: AtomicBool = AtomicBool::new(false);
static QUEUE: Mutex<Queue> = Mutex::new(Queue {
    waiting: VecDeque::new(),
    bytes: 0,
    current: None,
});

/// Whether results of `bytes` bytes more would be kept: the parsing
/// thread asks before it works them out.
pub fn has_room(bytes: usize) -> bool {
    QUEUE.lock().is_ok_and(|queue| queue.bytes + bytes <= BUDGET)
}

/// Offers one call's results.
pub fn offer(worked: Worked) {
    if let Ok(mut queue) = QUEUE.lock() {
        if queue.bytes + worked.bytes <= BUDGET {
            queue.bytes += worked.bytes;
            queue.waiting.push_back(worked);
            IN_USE.store(true, Ordering::Release);
        }
    }
}

/// The import stores its `call`th call now: that call's results are the
/// ones used; those of the calls before it are dropped.
pub fn begin_call(call: u64) {
    if !IN_USE.load(Ordering::Acquire) {
        return;
    }
    if let Ok(mut queue) = QUEUE.lock() {
        queue.current = None;
        while queue.waiting.front().is_some_and(|w| w.call <= call) {
            let Some(passed) = queue.waiting.pop_front() else { break };
            queue.bytes -= passed.bytes;
            if passed.call == call {
                queue.current = Some(passed);
            }
        }
    }
}

/// `rule` of `input`, when the call being stored offered it.
pub fn text_of(rule: Rule, input: &str) -> Option<String> {
    find(rule, input, |output| match output {
        Output::Text(text) => Some(text.clone()),
        Output::Signature(_) => None,
    })
}

/// The signature of `input`, when the call being stored offered it (the
/// script asks for it three times: the signature, its headline, whether
/// it is identified).
pub fn signature_of(input: &str) -> Option<Signature> {
    find(Rule::Signature, input, |output| match output {
        Output::Signature(signature) => Some(signature.clone()),
        Output::Text(_) => None,
    })
}

fn find<T>(rule: Rule, input: &str, copy: impl FnOnce(&Output) -> Option<T>) -> Option<T> {
    if !IN_USE.load(Ordering::Acquire) {
        return None;
    }
    let queue = QUEUE.lock().ok()?;
    let (_, _, output) = queue
        .current
        .as_ref()?
        .results
        .iter()
        .find(|(r, i, _)| *r == rule && i == input)?;
    copy(output)
}

#[cfg(test)]
mod tests {
    use super::*;

    // One test for the process-wide queue: tests run in parallel threads.
    // (Call numbers and texts no other test uses.)
    #[test]
    fn a_result_is_used_while_its_call_is_stored_for_its_own_rule_and_text() {
        let text = |s: &str| format!("ahead test: {s}");
        let base = 1 << 40;
        let mut first = Worked::new(base);
        first.text(Rule::RedactSecrets, text("a"), "A".into());
        first.text(Rule::RedactPrivate, text("b"), "B".into());
        offer(first);
        let mut third = Worked::new(base + 2);
        third.text(Rule::Excerpt, text("c"), "C".into());
        offer(third);
        // nothing before its call is stored
        assert_eq!(text_of(Rule::RedactSecrets, &text("a")), None);
        begin_call(base);
        // another rule, another text: nothing
        assert_eq!(text_of(Rule::Excerpt, &text("a")), None);
        assert_eq!(text_of(Rule::RedactPrivate, &text("bb")), None);
        assert!(signature_of(&text("b")).is_none());
        // as often as asked, in any order; another call's not
        assert_eq!(text_of(Rule::RedactPrivate, &text("b")).as_deref(), Some("B"));
        assert_eq!(text_of(Rule::RedactPrivate, &text("b")).as_deref(), Some("B"));
        assert_eq!(text_of(Rule::Excerpt, &text("c")), None);
        assert_eq!(text_of(Rule::RedactSecrets, &text("a")).as_deref(), Some("A"));
        // a call with none offered, then one with
        begin_call(base + 1);
        assert_eq!(text_of(Rule::Excerpt, &text("c")), None);
        begin_call(base + 2);
        assert_eq!(text_of(Rule::Excerpt, &text("c")).as_deref(), Some("C"));
        // the results of a call passed over are dropped
        let mut fourth = Worked::new(base + 3);
        fourth.text(Rule::Excerpt, text("d"), "D".into());
        offer(fourth);
        begin_call(base + 4);
        assert_eq!(text_of(Rule::Excerpt, &text("d")), None);
        // a full queue takes no more
        assert!(has_room(BUDGET));
        let big = "x".repeat(BUDGET / 3);
        for n in 0..2 {
            let mut worked = Worked::new(base + 10 + n);
            worked.text(Rule::Excerpt, text(&n.to_string()), big.clone());
            offer(worked);
        }
        assert!(!has_room(BUDGET / 3));
        let mut refused = Worked::new(base + 12);
        refused.text(Rule::Excerpt, text("refused"), big.clone());
        offer(refused);
        begin_call(base + 12);
        assert_eq!(text_of(Rule::Excerpt, &text("refused")), None);
        assert!(has_room(BUDGET));
    }
}
