//! `make bench` helper: normalize_error throughput as a plain Rust loop,
//! the same shape as the JavaScript reference's `--bench` loop.
//!
//!   cargo run --release --example normalize_throughput -- CORPUS.json ROUNDS
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let corpus: Vec<String> = serde_json::from_str(&std::fs::read_to_string(&args[1]).expect("corpus file"))
        .expect("a JSON array of strings");
    let rounds: usize = args.get(2).map_or(5, |r| r.parse().expect("rounds"));
    let mut rates = Vec::new();
    let mut sink = 0usize;
    for _ in 0..rounds {
        let start = Instant::now();
        for message in &corpus {
            sink += errkb::text::normalize::normalize_error(message).len();
        }
        rates.push(corpus.len() as f64 / start.elapsed().as_secs_f64());
    }
    rates.sort_by(f64::total_cmp);
    println!(
        "{}",
        serde_json::json!({ "rates": rates, "median": rates[rates.len() / 2], "sink": sink })
    );
}
