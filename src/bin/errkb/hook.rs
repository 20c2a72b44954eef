//! `errkb hook <Event>`: what Claude Code runs. Reads the payload from
//! standard input, runs `sql/hooks/<Event>.sql` with it bound as `:stdin`,
//! and prints what the script selects (the JSON to inject), or nothing.
//!
//! A hook never blocks the agent: whatever happens it exits 0 and prints
//! nothing but the script's answer; a failure is written to the hook log
//! (`~/.reflexion/logs/hooks.log`) for `errkb doctor` and the user. The
//! script's statements commit one by one, so the event is stored before
//! the search starts; the search is abandoned once the time budget is spent.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

use crate::db::{self, Access};
use crate::paths;
use crate::payload;
use crate::script::{self, Params};

/// Claude Code waits for hooks; past this the search gives up.
const BUDGET: Duration = Duration::from_millis(1800);

/// One hook errkb ships: the event, which calls Claude Code runs it for
/// (`matcher`), how long Claude Code waits for it, and the script it runs
/// (compiled in; a copy under ~/.reflexion/sql/hooks wins). install.rs
/// writes settings.json from this table, the plugin's hooks/hooks.json is
/// checked against it, doctor looks for each event.
pub struct Hook {
    pub event: &'static str,
    /// Claude Code's rule: letters, digits, `_ - , |` and spaces only is a
    /// list of exact names; anything else an unanchored regex.
    pub matcher: Option<&'static str>,
    pub timeout_secs: u64,
    pub script: &'static str,
    /// Payload fields the script never reads, left out of `:stdin` so that
    /// SQLite does not parse them: a Read's whole file, a command's whole
    /// output (the sqlite3 shell, given them, gets the same result).
    pub unread: &'static [&'static str],
    /// Whether the script writes (stores the call): such a hook keeps the
    /// write-ahead log short, before it writes.
    pub writes: bool,
}

/// The subagent types that write code: the seed's list (matched anywhere
/// in the type, so `oh-my-claudecode:executor-high` counts), plus the stock
/// `general-purpose` agent, which does the coding when no custom agents
/// are installed. The parentheses make Claude Code read it as a regex (a
/// bare `a|b` would be an exact list and miss namespaced types). The stock
/// read-only `Explore` and `Plan` agents start no process.
pub const CODE_AGENT_TYPES: &str = "(executor|architect|designer|build-fixer|general-purpose)";

pub const HOOKS: &[Hook] = &[
    Hook {
        event: "PreToolUse",
        // only the tools it has something to say about
        matcher: Some("Read|Edit|Write|NotebookEdit|Bash"),
        timeout_secs: 3,
        script: include_str!("../../../sql/hooks/PreToolUse.sql"),
        writes: false,
        unread: &[],
    },
    Hook {
        event: "PostToolUse",
        matcher: Some("*"),
        timeout_secs: 5,
        script: include_str!("../../../sql/hooks/PostToolUse.sql"),
        writes: true,
        unread: &["tool_response"],
    },
    Hook {
        event: "PostToolUseFailure",
        matcher: Some("*"),
        timeout_secs: 5,
        script: include_str!("../../../sql/hooks/PostToolUseFailure.sql"),
        writes: true,
        unread: &[],
    },
    Hook {
        event: "SubagentStart",
        matcher: Some(CODE_AGENT_TYPES),
        timeout_secs: 3,
        script: include_str!("../../../sql/hooks/SubagentStart.sql"),
        writes: false,
        unread: &[],
    },
    // starts the embedding job in a process of its own and returns at once
    Hook {
        event: "SessionEnd",
        matcher: None,
        timeout_secs: 2,
        script: include_str!("../../../sql/hooks/SessionEnd.sql"),
        writes: false,
        unread: &[],
    },
];

pub fn events() -> impl Iterator<Item = &'static str> {
    HOOKS.iter().map(|h| h.event)
}

/// Run the hook; errors are logged, never returned. Always "success".
pub fn run(event: &str, db_path: Option<PathBuf>) {
    // A panic is caught and logged below; the default hook would also
    // print it to stderr, which Claude Code shows the user.
    std::panic::set_hook(Box::new(|_| {}));
    // a failure's search may load the model, and runs it once
    errkb::embedding::embed::load_for_one_run();
    let started = Instant::now();
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run_script(event, db_path, started)));
    let failure = match outcome {
        Ok(Ok(())) => return,
        Ok(Err(e)) => format!("{e:#}"),
        Err(_) => "internal error (panic)".to_owned(),
    };
    log_failure(event, &failure);
}

fn run_script(event: &str, db_path: Option<PathBuf>, started: Instant) -> Result<()> {
    let mut payload = Vec::new();
    std::io::stdin()
        .read_to_end(&mut payload)
        .context("cannot read the payload")?;
    if !enabled() {
        return Ok(());
    }
    let hook = find(event)?;
    let sql = script_of(hook)?;
    let db_path = paths::database(db_path)?;
    let mut conn = db::open(&db_path, Access::ReadWrite)?;
    if hook.writes {
        conn.checkpoint_if_long();
    }
    // Interrupt whatever statement runs past the budget (checked every
    // 1000 VM steps; a statement waiting on a lock is bounded by the busy
    // timeout instead, and writing the event may wait for it).
    conn.progress_handler(1000, Some(move || started.elapsed() > BUDGET))?;
    let (stdin, problems) = payload::for_script(event, payload, hook.unread)?;
    for problem in problems {
        log_failure(event, &format!("warning: {problem}"));
    }
    let mut params = Params::default();
    params.set("stdin", stdin);
    let mut out = Vec::new();
    let result = script::run(&conn, &sql, &params, &mut out)
        .with_context(|| format!("{event}.sql on {}{}", db_path.display(), db::storage_hint(&db_path)));
    // A search stage that failed is passed over (no advice); say why in the
    // log. (What errkb_last_search_error() answers, asked of the extension
    // linked in: no statement to compile.)
    if let Some(failure) = errkb::take_last_search_failure() {
        log_failure(event, &format!("search stage skipped: {failure}"));
    }
    result?;
    conn.leave_open();
    if event == "SessionEnd" {
        // Embed in a process of their own whatever needs it, and return now.
        return start_embed_job(&db_path);
    }
    std::io::stdout().write_all(&out)?;
    Ok(())
}

/// `errkb embed` as a detached process: its own process group (Claude Code
/// may kill the hook's), no inherited pipes, and its errors in the hook
/// log. The job's lock keeps two from running at once. (A process group,
/// not a session of its own: `setsid` needs code run in the child, which
/// makes std fork the hook's whole process instead of spawning the job
/// with `posix_spawn`, a millisecond on the hook's time.)
fn start_embed_job(db_path: &Path) -> Result<()> {
    use std::os::unix::process::CommandExt;
    let log = crate::private::open_append(&{
        let path = log_path()?;
        std::fs::create_dir_all(path.parent().context("log directory")?)?;
        path
    })?;
    let mut command = std::process::Command::new(std::env::current_exe()?);
    command
        .arg("--db")
        .arg(db_path)
        .arg("embed")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(log)
        .process_group(0);
    command.spawn().context("cannot start the embedding job")?;
    Ok(())
}

/// `"enabled": false` in ~/.reflexion/config.json turns every hook off.
fn enabled() -> bool {
    errkb::config::hooks_enabled()
}

fn find(event: &str) -> Result<&'static Hook> {
    let Some(hook) = HOOKS.iter().find(|h| h.event == event) else {
        bail!(
            "no hook for event {event:?} (known: {})",
            events().collect::<Vec<_>>().join(", ")
        );
    };
    Ok(hook)
}

/// The script a hook runs: the user's copy under ~/.reflexion/sql/hooks,
/// else the built-in one.
pub fn script_for(event: &str) -> Result<String> {
    script_of(find(event)?)
}

fn script_of(hook: &Hook) -> Result<String> {
    if let Ok(root) = paths::data_root() {
        let installed = root.join("sql").join("hooks").join(format!("{}.sql", hook.event));
        if let Ok(sql) = std::fs::read_to_string(&installed) {
            return Ok(sql);
        }
    }
    Ok(hook.script.to_owned())
}

/// `~/.reflexion/logs/hooks.log`; without a HOME, `errkb-hooks.log` in the
/// temporary directory, so that even that failure leaves a trace.
pub fn log_path() -> Result<PathBuf> {
    Ok(match paths::data_root() {
        Ok(root) => root.join("logs").join("hooks.log"),
        Err(_) => std::env::temp_dir().join("errkb-hooks.log"),
    })
}

/// One line per failure: time, event, what went wrong (secrets redacted:
/// a message may quote the payload). Best effort and never a panic: a hook
/// that cannot even log still exits 0.
fn log_failure(event: &str, failure: &str) {
    let _ = std::panic::catch_unwind(|| {
        let Ok(path) = log_path() else { return };
        let line = format!("{} {event}: {}", now_utc(), failure.replace('\n', " "));
        let _ = append(&path, &format!("{}\n", errkb::text::redact::redact_secrets(&line)));
    });
}

fn append(path: &Path, line: &str) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    crate::private::open_append(path)?.write_all(line.as_bytes())
}

/// RFC 3339 time of day; a clock outside what RFC 3339 can write (before
/// 1970, after 9999) is logged as such instead of panicking.
fn now_utc() -> String {
    let now = std::time::SystemTime::now();
    let in_range = now
        .duration_since(std::time::UNIX_EPOCH)
        .is_ok_and(|d| d.as_secs() < 253_402_300_800); // 10000-01-01T00:00:00Z
    if in_range {
        humantime::format_rfc3339_seconds(now).to_string()
    } else {
        "(clock out of range)".to_owned()
    }
}
