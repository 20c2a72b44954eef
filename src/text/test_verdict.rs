//! `all_passed(output)`: whether a test runner's output ends in its own
//! verdict that every test passed. A test run prints what its tests print
//! (a test that checks an error logs that error), so an output can hold
//! error lines although the run succeeded; its summary line is what tells.
//! A success whose exit status a pipe hid (`bun test 2>&1 | tail -20`) is
//! proven by that verdict as by an output with no error in it.
//!
//! The summaries known, each as its runner prints it:
//!
//! | runner | passed | failed |
//! |---|---|---|
//! | bun | `N pass` and `0 fail` | `N fail` (N > 0) |
//! | jest | `Tests: N passed, N total` | `Tests: … N failed` |
//! | vitest | `Tests  N passed (N)` | `Tests  N failed …` |
//! | pytest | `==== N passed in 1.2s ====` | `failed` or `error` in it |
//! | cargo test | `test result: ok. N passed; 0 failed` | `test result: FAILED` |
//! | go test | `ok  pkg 0.1s`, `PASS` | `FAIL`, `--- FAIL` |
//! | mocha | `N passing` | `N failing` |
//! | rspec | `N examples, 0 failures` | `N examples, M failures` |
//! | unittest | `OK` after `Ran N tests` | `FAILED (…)` |
//! | phpunit | `OK (N tests, …)` | `FAILURES!`, `ERRORS!` |
//!
//! A verdict needs a line that says passed and none that says failed
//! (several runs in one output, `cargo test`'s one per crate, all count).
//! Lines are read with terminal controls removed (a colour inside `0 fail`
//! hides nothing).

/// Whether `output` holds a test runner's verdict that all passed, and none
/// that something failed (see the module's comment).
pub fn all_passed(output: &str) -> bool {
    let text = crate::text::terminal::inert(output);
    let mut passed = false;
    let mut ran_unittest = false;
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        if says_failed(line) {
            return false;
        }
        if line.starts_with("Ran ") && line.contains(" test") {
            ran_unittest = true;
        }
        passed |= says_passed(line) || ran_unittest && (line == "OK" || line.starts_with("OK ("));
    }
    passed
}

/// `N word` at the start of `line` (after `words` before it, if any): N.
fn count_before(line: &str, word: &str) -> Option<u64> {
    let (number, rest) = line.split_once(' ')?;
    let rest = rest.trim_start();
    (rest == word || rest.starts_with(&format!("{word} ")) || rest.starts_with(&format!("{word},")))
        .then(|| number.parse().ok())
        .flatten()
}

/// The counts `N word` anywhere in `line` (`3 passed, 1 failed`).
fn counts_of(line: &str, word: &str) -> Vec<u64> {
    let words: Vec<&str> = line
        .split(|c: char| c.is_whitespace() || c == ',' || c == ';' || c == '(' || c == ')')
        .filter(|w| !w.is_empty())
        .collect();
    words
        .windows(2)
        .filter(|pair| pair[1].trim_end_matches(['.', ':']) == word)
        .filter_map(|pair| pair[0].parse().ok())
        .collect()
}

fn says_passed(line: &str) -> bool {
    // bun (`12 pass`), mocha (`12 passing`)
    count_before(line, "pass").is_some_and(|n| n > 0)
        || count_before(line, "passing").is_some_and(|n| n > 0)
        // jest's `Tests:       12 passed, 12 total`, vitest's `Tests  12 passed (12)`
        || (line.starts_with("Tests:") || line.starts_with("Tests ")) && counts_of(line, "passed").iter().any(|&n| n > 0)
        // pytest's `===== 12 passed in 0.31s =====`
        || line.starts_with("==") && line.ends_with("==") && counts_of(line, "passed").iter().any(|&n| n > 0)
        // cargo test
        || line.starts_with("test result: ok.")
        // go test: a package's `ok` line, or the test binary's `PASS`
        || line == "PASS"
        || line.starts_with("ok ") && line.split_whitespace().nth(1).is_some_and(|p| p.contains('/') || p.contains('.'))
        // rspec's `12 examples, 0 failures`
        || counts_of(line, "examples").iter().any(|&n| n > 0) && counts_of(line, "failures") == [0]
}

fn says_failed(line: &str) -> bool {
    counts_of(line, "fail").iter().any(|&n| n > 0)
        || counts_of(line, "failed").iter().any(|&n| n > 0)
        || counts_of(line, "failing").iter().any(|&n| n > 0)
        || counts_of(line, "failure").iter().any(|&n| n > 0)
        || counts_of(line, "failures").iter().any(|&n| n > 0)
        || counts_of(line, "errors").iter().any(|&n| n > 0)
        || counts_of(line, "error").iter().any(|&n| n > 0)
        || line.starts_with("test result: FAILED")
        || line == "FAIL"
        || line.starts_with("FAIL ")
        || line.starts_with("FAIL\t")
        || line.starts_with("--- FAIL")
        || line.starts_with("FAILED")
        || line.starts_with("FAILURES!")
        || line.starts_with("ERRORS!")
        // jest's coverage below its threshold fails the run, all tests passed
        || line.contains("coverage threshold") && line.contains("not met")
}

#[cfg(test)]
mod tests {
    use super::all_passed;

    #[test]
    fn each_runners_verdict_that_all_passed() {
        for output in [
            "[Repo] Error in POST: boom\nerror: Database connection failed\n\n 1309 pass\n 0 fail\n 2849 expect() calls\nRan 1309 tests across 58 files. [869.00ms]",
            "console.error\n    Error: nope\n\nTest Suites: 4 passed, 4 total\nTests:       31 passed, 31 total",
            " Test Files  3 passed (3)\n      Tests  12 passed (12)\n   Start at  10:00:01",
            "E   logged: ValueError\n============================== 12 passed in 0.31s ==============================",
            "running 3 tests\ntest a ... ok\ntest result: ok. 3 passed; 0 failed; 0 ignored\n\ntest result: ok. 0 passed; 0 failed",
            "=== RUN   TestX\nlog: error: bad input (expected)\n--- PASS: TestX (0.00s)\nPASS\nok  \tgithub.com/a/b\t0.012s",
            "  12 passing (40ms)",
            "Finished in 0.1 seconds\n12 examples, 0 failures",
            "ERROR: expected in a log\n----------------------------------------------------------------------\nRan 4 tests in 0.002s\n\nOK",
            "\x1b[32m 12 pass\x1b[0m\n\x1b[2m 0 fail\x1b[0m",
        ] {
            assert!(all_passed(output), "{output:?}");
        }
    }

    #[test]
    fn a_failure_anywhere_or_no_verdict_is_no_pass() {
        for output in [
            " 1308 pass\n 1 fail\nRan 1309 tests across 58 files.",
            "Tests:       1 failed, 30 passed, 31 total",
            "      Tests  1 failed | 11 passed (12)",
            "========================= 1 failed, 11 passed in 0.50s =========================",
            "========================= 11 passed, 1 error in 0.50s =========================",
            "test result: ok. 3 passed; 0 failed\ntest result: FAILED. 1 passed; 1 failed",
            "--- FAIL: TestX (0.00s)\nFAIL\nFAIL\tgithub.com/a/b\t0.012s\nok  \tgithub.com/a/c\t0.01s",
            "  11 passing (40ms)\n  1 failing",
            "12 examples, 1 failure\n12 examples, 2 failures",
            "Ran 4 tests in 0.002s\n\nFAILED (failures=1)",
            "Jest: \"global\" coverage threshold for lines (80%) not met: 70%\nTests:       31 passed, 31 total",
            "error: Database connection failed",
            "all good",
            "",
            "OK",
            "ok",
        ] {
            assert!(!all_passed(output), "{output:?}");
        }
    }
}
