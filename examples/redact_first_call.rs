//! Time of redact_secrets' first call in a process (pattern compilation
//! included) and of a second call, for the text given as the argument.
fn main() {
    let text = std::env::args().nth(1).unwrap_or_default();
    let t = std::time::Instant::now();
    let out = errkb::text::redact::redact_secrets(&text).into_owned();
    let first = t.elapsed();
    let t = std::time::Instant::now();
    let _ = errkb::text::redact::redact_secrets(&text);
    println!("first {:?} second {:?} -> {out}", first, t.elapsed());
}
