//! `make bench` helper: the vector stage's query at team scale, in
//! process, on the runner's SQLite with the built extension loaded.
//!
//!   vector_latency EXTENSION DB ROWS QUERIES
//!
//! Makes DB once (the schema, ROWS error_kb rows, their vectors in
//! vec_error_kb and, through the embedding job's sql/jobs/index_vectors.sql,
//! their bits). The vectors are synthetic but shaped like a sentence
//! model's: unit vectors around a shared mean direction (real embeddings
//! are not centred, which is what makes sign bits lose information). Each
//! query is a stored vector moved to an L2 distance of 0.3-0.7 from it (the
//! same error in other words); the answer sought is that stored row.
//!
//! Prints JSON: for the exact search (sql/search/vector.sql) and the two
//! passes (sql/search/vector_bits.sql), latency percentiles (ms) and how
//! often the nearest row answered is the one sought, and how often the two
//! agree.
use std::time::Instant;

use rusqlite::{params, Connection};

const DIMENSIONS: usize = 384;
const NEIGHBOURS: i64 = 5;
const FIRST_PASS: i64 = 32; // as src/search.rs

/// xorshift64*: deterministic, no dependency.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
    }
    /// Standard normal (Box-Muller).
    fn normal(&mut self) -> f64 {
        let (u, v) = (self.next().max(1e-12), self.next());
        (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
    }
}

fn unit(v: &mut [f64]) {
    let n = v.iter().map(|x| x * x).sum::<f64>().sqrt();
    v.iter_mut().for_each(|x| *x /= n);
}

fn blob(v: &[f64]) -> Vec<u8> {
    v.iter().flat_map(|x| (*x as f32).to_le_bytes()).collect()
}

/// A stored vector: the shared mean plus noise, on the unit sphere.
fn stored(rng: &mut Rng, mean: &[f64]) -> Vec<f64> {
    let mut v: Vec<f64> = mean
        .iter()
        .map(|m| m + rng.normal() / (DIMENSIONS as f64).sqrt())
        .collect();
    unit(&mut v);
    v
}

/// `v` moved to L2 distance `d` (unit vectors: cos = 1 - d²/2).
fn moved(rng: &mut Rng, v: &[f64], d: f64) -> Vec<f64> {
    let mut u: Vec<f64> = (0..DIMENSIONS).map(|_| rng.normal()).collect();
    let dot: f64 = u.iter().zip(v).map(|(a, b)| a * b).sum();
    u.iter_mut().zip(v).for_each(|(a, b)| *a -= dot * b);
    unit(&mut u);
    let cos = 1.0 - d * d / 2.0;
    let sin = (1.0 - cos * cos).sqrt();
    v.iter().zip(&u).map(|(a, b)| cos * a + sin * b).collect()
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn main() -> rusqlite::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let (extension, db, rows, queries) = (
        &args[1],
        &args[2],
        args[3].parse::<usize>().unwrap(),
        args[4].parse::<usize>().unwrap(),
    );
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let conn = Connection::open(db)?;
    unsafe {
        let _guard = rusqlite::LoadExtensionGuard::new(&conn)?;
        conn.load_extension(extension, Some("sqlite3_errkb_init"))?;
    }
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut mean: Vec<f64> = (0..DIMENSIONS).map(|_| rng.normal()).collect();
    unit(&mut mean);
    mean.iter_mut().for_each(|m| *m *= 0.6);
    let made: i64 = conn
        .query_row("SELECT count(*) FROM error_kb", [], |r| r.get(0))
        .unwrap_or(0);
    if made as usize != rows {
        conn.execute_batch(&std::fs::read_to_string(root.join("sql/schema.sql")).unwrap())?;
        conn.execute_batch("PRAGMA journal_mode = WAL; BEGIN")?;
        {
            let mut kb = conn.prepare(
                "INSERT INTO error_kb (id, ts, error_normalized, resolution) VALUES (?1, '2026-01-01T00:00:00Z', 'error ' || ?1, 'fix')",
            )?;
            let mut vec = conn.prepare("INSERT INTO vec_error_kb (error_kb_id, embedding) VALUES (?1, ?2)")?;
            let mut row_rng = Rng(1);
            for id in 1..=rows as i64 {
                kb.execute([id])?;
                vec.execute(params![id, blob(&stored(&mut row_rng, &mean))])?;
            }
        }
        conn.execute_batch("COMMIT")?;
    }
    // the embedding job's step, batch by batch as `errkb embed` runs it
    let index = std::fs::read_to_string(root.join("sql/jobs/index_vectors.sql")).unwrap();
    let mut after = 0i64;
    loop {
        let sql = index.replace(":after", &after.to_string()).replace(":batch", "5000");
        let (body, report) = sql.trim_end().trim_end_matches(';').rsplit_once(";\n").unwrap();
        conn.execute_batch(body)?;
        match conn.query_row(report, [], |r| r.get::<_, Option<i64>>(1))? {
            Some(last) => after = last,
            None => break,
        }
    }
    // Reads are timed from the database file, not through a WAL index of
    // a million frames the build left.
    conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))?;
    // The rows sought, and their stored vectors, read back to be moved.
    let wanted: Vec<i64> = (0..queries).map(|_| 1 + (rng.next() * rows as f64) as i64).collect();
    let mut sources = std::collections::HashMap::new();
    for id in &wanted {
        let stored: Vec<u8> =
            conn.query_row("SELECT embedding FROM vec_error_kb WHERE error_kb_id = ?1", [id], |r| r.get(0))?;
        let vector = stored.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64);
        sources.insert(*id, vector.collect::<Vec<f64>>());
    }
    let exact_sql = std::fs::read_to_string(root.join("sql/search/vector.sql")).unwrap();
    let bits_sql = std::fs::read_to_string(root.join("sql/search/vector_bits.sql")).unwrap();
    let mut exact = conn.prepare(&exact_sql)?;
    let mut bits = conn.prepare(&bits_sql)?;
    let (mut exact_ms, mut bits_ms) = (Vec::new(), Vec::new());
    let (mut exact_found, mut bits_found, mut agree) = (0, 0, 0);
    for round in 0..2 {
        for id in &wanted {
            let distance = 0.3 + 0.4 * rng.next();
            let q = blob(&moved(&mut rng, &sources[id], distance));
            let start = Instant::now();
            let e: i64 = exact.query_row(params![q, NEIGHBOURS], |r| r.get(0))?;
            let e_ms = start.elapsed().as_secs_f64() * 1e3;
            let start = Instant::now();
            let b: i64 = bits.query_row(params![q, NEIGHBOURS, FIRST_PASS], |r| r.get(0))?;
            let b_ms = start.elapsed().as_secs_f64() * 1e3;
            if round > 0 {
                // round 0 warms the page cache and is not counted
                exact_ms.push(e_ms);
                bits_ms.push(b_ms);
                exact_found += (e == *id) as usize;
                bits_found += (b == *id) as usize;
                agree += (e == b) as usize;
            }
        }
    }
    exact_ms.sort_by(f64::total_cmp);
    bits_ms.sort_by(f64::total_cmp);
    let n = exact_ms.len();
    println!(
        "{}",
        serde_json::json!({
            "rows": rows, "queries": n,
            "exact": {"p50_ms": percentile(&exact_ms, 0.5), "p90_ms": percentile(&exact_ms, 0.9), "found": exact_found},
            "two_passes": {"p50_ms": percentile(&bits_ms, 0.5), "p90_ms": percentile(&bits_ms, 0.9), "found": bits_found},
            "agree": agree,
        })
    );
    Ok(())
}
