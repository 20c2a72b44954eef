//! `make bench` helper for the embedding side, in process on the runner's
//! SQLite with the built extension (model from ERRKB_MODEL as usual).
//!
//!   embed_bench EXTENSION single ROUNDS           warm embed() latency, µs
//!   embed_bench EXTENSION batch ROUNDS            embed_batch throughput, sentences/s
//!   embed_bench EXTENSION knn DB ROUNDS           vec0 k=3 query latency, µs
use std::time::Instant;

use rusqlite::Connection;

const SENTENCES: [&str; 5] = [
    "Cannot find module <STR> imported from <PATH>",
    "TypeError: Cannot read properties of undefined (reading <STR>)",
    "error[E<N>]: cannot find value <STR> in this scope",
    "fatal: not a git repository (or any of the parent directories): .git",
    "ModuleNotFoundError: No module named <STR>",
];

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn main() -> rusqlite::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let (extension, mode) = (&args[1], args[2].as_str());
    let db = if mode == "knn" {
        args[3].clone()
    } else {
        ":memory:".to_owned()
    };
    let rounds: usize = args.last().unwrap().parse().expect("rounds");
    let conn = Connection::open(&db)?;
    unsafe {
        let _guard = rusqlite::LoadExtensionGuard::new(&conn)?;
        conn.load_extension(extension, Some("sqlite3_errkb_init"))?;
    }
    let report = match mode {
        "single" => {
            let mut stmt = conn.prepare("SELECT length(embed(?1))")?;
            stmt.query_row(["warm-up"], |r| r.get::<_, i64>(0))?;
            let mut micros = Vec::new();
            for i in 0..rounds {
                let start = Instant::now();
                stmt.query_row([SENTENCES[i % SENTENCES.len()]], |r| r.get::<_, i64>(0))?;
                micros.push(start.elapsed().as_secs_f64() * 1e6);
            }
            micros.sort_by(f64::total_cmp);
            serde_json::json!({"p50_us": percentile(&micros, 0.5), "p90_us": percentile(&micros, 0.9)})
        }
        "batch" => {
            let texts: Vec<String> = (0..50)
                .map(|i| format!("{} #{i}", SENTENCES[i % SENTENCES.len()]))
                .collect();
            let json = serde_json::to_string(&texts).unwrap();
            let mut stmt = conn.prepare("SELECT count(embedding) FROM embed_batch(?1)")?;
            stmt.query_row([&json], |r| r.get::<_, i64>(0))?;
            let start = Instant::now();
            for _ in 0..rounds {
                stmt.query_row([&json], |r| r.get::<_, i64>(0))?;
            }
            serde_json::json!({"sentences_per_s": (rounds * 50) as f64 / start.elapsed().as_secs_f64()})
        }
        _ => {
            let queries: Vec<Vec<u8>> = conn
                .prepare("SELECT embedding FROM vec_error_kb ORDER BY random() LIMIT 50")?
                .query_map([], |r| r.get(0))?
                .collect::<Result<_, _>>()?;
            let mut stmt = conn.prepare(
                "SELECT count(*) FROM (SELECT error_kb_id FROM vec_error_kb WHERE embedding MATCH ?1 AND k = 3)",
            )?;
            let mut micros = Vec::new();
            for round in 0..=rounds {
                for q in &queries {
                    let start = Instant::now();
                    stmt.query_row([q], |r| r.get::<_, i64>(0))?;
                    if round > 0 {
                        micros.push(start.elapsed().as_secs_f64() * 1e6);
                    }
                }
            }
            micros.sort_by(f64::total_cmp);
            serde_json::json!({"p50_us": percentile(&micros, 0.5), "p90_us": percentile(&micros, 0.9)})
        }
    };
    println!("{report}");
    Ok(())
}
