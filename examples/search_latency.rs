//! `make bench` helper: kb_search latency per query, in process, on the
//! runner's SQLite with the built extension loaded.
//!
//!   search_latency EXTENSION DB QUERIES.json ROUNDS
//!
//! QUERIES.json maps a label to a list of normalised queries; the output
//! maps each label to latency percentiles (µs) and the stages that answered.
use std::collections::BTreeMap;
use std::time::Instant;

use rusqlite::{Connection, OptionalExtension};

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn main() -> rusqlite::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let (extension, db, queries, rounds) = (&args[1], &args[2], &args[3], args[4].parse::<usize>().unwrap());
    let queries: BTreeMap<String, Vec<String>> =
        serde_json::from_str(&std::fs::read_to_string(queries).unwrap()).unwrap();
    let conn = Connection::open(db)?;
    unsafe {
        let _guard = rusqlite::LoadExtensionGuard::new(&conn)?;
        conn.load_extension(extension, Some("sqlite3_errkb_init"))?;
    }
    let mut stmt = conn.prepare("SELECT stage FROM kb_search(?1)")?;
    let mut report = serde_json::Map::new();
    for (label, list) in &queries {
        let mut micros = Vec::new();
        let mut stages: BTreeMap<String, usize> = BTreeMap::new();
        for round in 0..=rounds {
            for q in list {
                let start = Instant::now();
                let stage: Option<String> = stmt.query_row([q], |r| r.get(0)).optional()?;
                let elapsed = start.elapsed().as_secs_f64() * 1e6;
                if round > 0 {
                    // Round 0 warms the page cache and is not counted.
                    micros.push(elapsed);
                    *stages.entry(stage.unwrap_or_else(|| "none".into())).or_default() += 1;
                }
            }
        }
        micros.sort_by(f64::total_cmp);
        report.insert(
            label.clone(),
            serde_json::json!({
                "p50_us": percentile(&micros, 0.5), "p90_us": percentile(&micros, 0.9),
                "p99_us": percentile(&micros, 0.99), "n": micros.len(), "stages": stages,
            }),
        );
    }
    println!("{}", serde_json::Value::Object(report));
    Ok(())
}
