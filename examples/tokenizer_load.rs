//! `make bench` helper: time and peak memory to load a tokenizer.json, with
//! the `tokenizers` library as is or with errkb's loader (compact Unigram).
//!
//!   tokenizer_load library|errkb TOKENIZER.json
use std::time::Instant;

fn peak_rss_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (how, path) = (args[1].as_str(), std::path::Path::new(&args[2]));
    let text = "Cannot find module <STR> imported from <PATH>";
    let start = Instant::now();
    let ids = match how {
        "library" => {
            let mut t = tokenizers::Tokenizer::from_file(path).expect("tokenizer");
            t.with_padding(None); // as errkb configures it
            t.encode(text, true).expect("encode").get_ids().to_vec()
        }
        _ => {
            let (t, _) = errkb::embedding::embed::AnyTokenizer::load(path, 512).expect("tokenizer");
            t.encode(text).expect("encode").get_ids().to_vec()
        }
    };
    let ms = start.elapsed().as_secs_f64() * 1e3;
    println!(
        "{}",
        serde_json::json!({"load_and_encode_ms": ms, "peak_rss_mb": peak_rss_mb(), "ids": ids})
    );
}
