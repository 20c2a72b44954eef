//! Compiles the vendored sqlite-vec into the extension and records version
//! facts for `errkb_debug()`.
use std::process::Command;

fn main() {
    // Without SQLITE_CORE: sqlite-vec then calls SQLite through the API
    // table the host passes at `.load`, as the rest of the extension does.
    let mut build = cc::Build::new();
    // sqlite-vec's SIMD distance kernels: KNN at 10k vectors is several times
    // faster with them. AVX is on every x86-64 CPU since 2011.
    match std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() {
        Ok("x86_64") => {
            // popcnt: the Hamming distance of the vector stage's bit vectors
            // is a popcount per word (a loop without it); every CPU with
            // AVX has it.
            build
                .define("SQLITE_VEC_ENABLE_AVX", None)
                .flag("-mavx")
                .flag("-mpopcnt");
        }
        Ok("aarch64") => {
            build.define("SQLITE_VEC_ENABLE_NEON", None);
        }
        _ => {}
    }
    build
        .file("vendor/sqlite-vec/sqlite-vec.c")
        .include("vendor/sqlite-vec")
        .define("SQLITE_VEC_STATIC", None)
        // Third-party code, compiled as published; its warnings are not ours.
        .warnings(false)
        .flag("-w")
        .opt_level(3)
        .compile("sqlite_vec");
    println!("cargo:rerun-if-changed=vendor/sqlite-vec");

    let vec_version = std::fs::read_to_string("vendor/sqlite-vec/VERSION").expect("vendor/sqlite-vec/VERSION");
    println!("cargo:rustc-env=ERRKB_SQLITE_VEC_VERSION={}", vec_version.trim());

    let git_hash = Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_owned())
        .unwrap_or_else(|| "unknown".to_owned());
    println!("cargo:rustc-env=ERRKB_GIT_HASH={git_hash}");
    println!("cargo:rerun-if-changed=.git/HEAD");
    println!("cargo:rerun-if-changed=.git/refs/heads");
}
