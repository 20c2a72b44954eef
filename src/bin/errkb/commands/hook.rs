//! `errkb hook <Event>`: what Claude Code runs. Reads the payload from
//! standard input, runs `sql/hooks/<Event>.sql` with it bound as `:stdin`,
//! and prints what the script selects (the JSON to inject), or nothing.
//! `errkb hook --agent codex <Event>` is what Codex runs: its payload is
//! made into the ones the same scripts read (`runtime/codex.rs`), and the
//! answer into Codex's.
//!
//! A hook never blocks the agent: whatever happens it exits 0 and prints
//! nothing but the script's answer; a failure is written to the hook log
//! (`~/.reflexion/logs/hooks.log`, or a fallback: `paths::hook_logs`) for
//! `errkb doctor` and the user. The
//! script's statements commit one by one, so the event is stored before
//! the search starts; the search is abandoned once the time budget is spent.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use crate::cli::Agent;
use crate::agent::codex;
use errkb::runtime::db::{self, Access};
use crate::agent::hooks;
use errkb::runtime::script::{self, Params};
use crate::agent::payload;
use errkb::runtime::{paths, storage};

/// Claude Code waits for hooks; past this the search gives up.
const BUDGET: Duration = Duration::from_millis(1800);

/// Run the hook; errors are logged, never returned. Always "success".
pub fn run(event: &str, agent: Agent, db_path: Option<PathBuf>) {
    // A panic is caught and logged below; the default hook would also
    // print it to stderr, which Claude Code shows the user.
    std::panic::set_hook(Box::new(|_| {}));
    // a failure's search may load the model, and runs it once
    errkb::embedding::embed::load_for_one_run();
    let started = Instant::now();
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        run_script(event, agent, db_path, started)
    }));
    let failure = match outcome {
        Ok(Ok(())) => return,
        Ok(Err(e)) => format!("{e:#}"),
        Err(_) => "internal error (panic)".to_owned(),
    };
    log_failure(event, &failure);
}

fn run_script(event: &str, agent: Agent, db_path: Option<PathBuf>, started: Instant) -> Result<()> {
    // (room for a usual payload first: read in a few calls, not in steps
    // from 32 bytes up)
    let mut payload = Vec::with_capacity(64 << 10);
    std::io::stdin()
        .read_to_end(&mut payload)
        .context("cannot read the payload")?;
    if !enabled() {
        return Ok(());
    }
    // The scripts to run, each with its payload: Claude Code's event's own;
    // for Codex, what its payload amounts to (see runtime/codex.rs).
    let (runs, turn_id) = match agent {
        Agent::Claude => {
            let hook = hooks::find(event)?;
            (
                vec![codex::Run {
                    event: hook.event,
                    payload,
                }],
                None,
            )
        }
        Agent::Codex => {
            let hook = codex::find(event)?;
            let adapted = codex::adapt(hook.event, payload);
            if let Some(note) = adapted.note {
                log_failure(event, &format!("warning: {note}"));
            }
            (adapted.runs, adapted.turn_id)
        }
    };
    if runs.is_empty() {
        return Ok(());
    }
    let db_path = paths::database(db_path)?;
    let mut conn = db::open(&db_path, Access::ReadWrite)?;
    if runs.iter().any(|run| hooks::find(run.event).is_ok_and(|h| h.writes)) {
        conn.checkpoint_if_long();
    }
    // Interrupt whatever statement runs past the budget (checked every
    // 1000 VM steps; a statement waiting on a lock is bounded by the busy
    // timeout instead, and writing the event may wait for it).
    conn.progress_handler(1000, Some(move || started.elapsed() > BUDGET))?;
    // Each event's script, compiled once however often it runs (a patch's
    // edits run the success script in turn: its statements stay prepared,
    // its temp tables are refilled).
    let mut scripts: Vec<(&str, script::Repeated)> = Vec::new();
    let mut outputs = Vec::with_capacity(runs.len());
    // (a script run more than once: a Codex patch's edits)
    let events: Vec<&str> = runs.iter().map(|run| run.event).collect();
    for run in runs {
        let hook = hooks::find(run.event)?;
        let at = match scripts.iter().position(|(event, _)| *event == hook.event) {
            Some(at) => at,
            None => {
                // (the first script's temp tables keep their names; a
                // second script's get its event's)
                let suffix = if scripts.is_empty() { "" } else { hook.event };
                let sql = hooks::script_of(hook)?;
                let mut script = script::Repeated::new(&sql, suffix);
                if events.iter().filter(|&&e| e == hook.event).count() > 1 {
                    script = script.declaring_tables_first();
                }
                scripts.push((hook.event, script));
                conn.set_prepared_statement_cache_capacity(scripts.iter().map(|(_, s)| s.statement_count()).sum());
                scripts.len() - 1
            }
        };
        let input = payload::for_script(run.event, run.payload, hook.unread, hook.read_for)?;
        for problem in input.problems {
            log_failure(event, &format!("warning: {problem}"));
        }
        let mut params = Params::default();
        params.set("stdin", input.stdin);
        if let Some(content) = input.file_content {
            params.set("file_content", content);
        }
        if let Some(output) = input.output {
            params.set("output", output);
        }
        if let Some(subagent) = input.subagent {
            params.set("subagent", subagent);
        }
        // every event stored says it came from Codex, and from which turn
        if matches!(agent, Agent::Codex) {
            params.set("agent", codex::AGENT);
        }
        if let Some(turn_id) = &turn_id {
            params.set("turn_id", turn_id.clone());
        }
        let mut out = Vec::new();
        let result = scripts[at].1.run(&conn, &params, &mut out).with_context(|| {
            format!(
                "{}.sql on {}{}",
                run.event,
                db_path.display(),
                storage::note(&db_path)
            )
        });
        // A search stage that failed is passed over (no advice); say why in the
        // log. (What errkb_last_search_error() answers, asked of the extension
        // linked in: no statement to compile.)
        if let Some(failure) = errkb::take_last_search_failure() {
            log_failure(event, &format!("search stage skipped: {failure}"));
        }
        result?;
        outputs.push(out);
    }
    conn.leave_open();
    if event == "SessionEnd" {
        // Sync with the team's hub and embed whatever needs it, in a
        // process of its own, and return now.
        return start_after_session_job(&db_path);
    }
    let answer = match agent {
        Agent::Claude => outputs.concat(),
        Agent::Codex => codex::answer(event, &outputs).unwrap_or_default().into_bytes(),
    };
    std::io::stdout().write_all(&answer)?;
    Ok(())
}

/// `errkb after-session` (sync with the hub when due, then `errkb embed`)
/// as a detached process: its own process group (Claude Code
/// may kill the hook's), no inherited pipes, and its errors in the hook
/// log. The job's lock keeps two from running at once. (A process group,
/// not a session of its own: `setsid` needs code run in the child, which
/// makes std fork the hook's whole process instead of spawning the job
/// with `posix_spawn`, a millisecond on the hook's time.)
fn start_after_session_job(db_path: &Path) -> Result<()> {
    use std::os::unix::process::CommandExt;
    let (_, log) = paths::open_hook_log().context("no hook log can be written")?;
    let mut command = std::process::Command::new(std::env::current_exe()?);
    command
        .arg("--db")
        .arg(db_path)
        .arg("after-session")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(log)
        .process_group(0);
    command.spawn().context("cannot start the after-session job")?;
    Ok(())
}

/// `"enabled": false` in ~/.reflexion/config.json turns every hook off.
fn enabled() -> bool {
    errkb::config::hooks_enabled()
}

/// One line per failure: time, event, what went wrong (secrets redacted:
/// a message may quote the payload). Best effort and never a panic: a hook
/// that cannot even log still exits 0.
fn log_failure(event: &str, failure: &str) {
    let _ = std::panic::catch_unwind(|| {
        let line = format!("{} {event}: {}", now_utc(), failure.replace('\n', " "));
        if let Ok((_, mut log)) = paths::open_hook_log() {
            let _ = log.write_all(format!("{}\n", errkb::text::redact::redact_secrets(&line)).as_bytes());
        }
    });
}

/// RFC 3339 time of day; a clock outside what RFC 3339 can write (before
/// 1970, after 9999) is logged as such, and doctor reports the clock.
fn now_utc() -> String {
    let now = std::time::SystemTime::now();
    if errkb::clock::in_range(now) {
        errkb::clock::seconds(now)
    } else {
        "(clock out of range)".to_owned()
    }
}
