//! `errkb model download` (errkb runs `errkb-hub model-download`, then
//! prepares the folder itself): fetch the production model from Hugging
//! Face into the folder errkb names (`~/.reflexion/models/<repo>/`, the
//! Transformers.js cache layout the original system uses), and verify
//! every file against the hash Hugging Face publishes. Here, not in
//! `errkb`, so that the hooks' program has no HTTP or TLS client in it.
//!
//! As huggingface_hub does: a HEAD request without following redirects
//! gives `X-Linked-Etag` (the SHA-256 of a large file kept in Git LFS) or
//! `ETag` (the git blob SHA-1 of a small one); the file is streamed to a
//! temporary name while hashed and only renamed into place if the hash
//! matches. `ERRKB_HF_ENDPOINT` (or `HF_ENDPOINT`) points elsewhere, e.g.
//! a mirror.

use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{bail, Context, Result};
use sha1::Digest;

/// The hash a file must have, as Hugging Face states it.
#[derive(Debug, PartialEq, Eq)]
enum Expected {
    Sha256(String),
    GitBlobSha1(String),
}

fn endpoint() -> String {
    std::env::var("ERRKB_HF_ENDPOINT")
        .or_else(|_| std::env::var("HF_ENDPOINT"))
        .unwrap_or_else(|_| "https://huggingface.co".to_owned())
        .trim_end_matches('/')
        .to_owned()
}

fn agent(follow_redirects: bool) -> ureq::Agent {
    ureq::Agent::config_builder()
        .max_redirects(if follow_redirects { 10 } else { 0 })
        .max_redirects_will_error(false)
        .http_status_as_error(false)
        .timeout_connect(Some(Duration::from_secs(15)))
        .user_agent(concat!("errkb/", env!("CARGO_PKG_VERSION")))
        .build()
        .into()
}

fn expected_hash(headers: &ureq::http::HeaderMap) -> Option<Expected> {
    let value = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(|v| v.trim_start_matches("W/").trim_matches('"').to_owned())
    };
    let is_hex = |s: &str, len: usize| s.len() == len && s.bytes().all(|b| b.is_ascii_hexdigit());
    if let Some(sha256) = value("x-linked-etag").filter(|v| is_hex(v, 64)) {
        return Some(Expected::Sha256(sha256.to_ascii_lowercase()));
    }
    match value("etag") {
        Some(v) if is_hex(&v, 64) => Some(Expected::Sha256(v.to_ascii_lowercase())),
        Some(v) if is_hex(&v, 40) => Some(Expected::GitBlobSha1(v.to_ascii_lowercase())),
        _ => None,
    }
}

/// Download `file` of `repo` into `dest/file`, verified. Returns the path.
fn fetch(repo: &str, file: &str, dest: &Path, progress: &dyn Fn(&str)) -> Result<PathBuf> {
    let url = format!("{}/{repo}/resolve/main/{file}", endpoint());
    let head = agent(false)
        .head(&url)
        .call()
        .with_context(|| format!("cannot reach {url}"))?;
    let status = head.status().as_u16();
    if !(200..400).contains(&status) {
        bail!("{url} answered HTTP {status}");
    }
    let expected = expected_hash(head.headers())
        .with_context(|| format!("{url} publishes no checksum (no X-Linked-Etag or ETag); not installing it"))?;
    let target = dest.join(file);
    std::fs::create_dir_all(target.parent().unwrap_or(dest))?;
    let partial = target.with_extension("part");
    progress(&format!("downloading {file}"));
    let mut response = agent(true)
        .get(&url)
        .call()
        .with_context(|| format!("cannot download {url}"))?;
    if response.status().as_u16() != 200 {
        bail!("{url} answered HTTP {}", response.status());
    }
    let length = response
        .headers()
        .get("content-length")
        .and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    let mut reader = response.body_mut().as_reader();
    let mut out = File::create(&partial).with_context(|| format!("cannot write {}", partial.display()))?;
    let mut sha256 = sha2::Sha256::new();
    let mut bytes = Vec::new(); // kept only for the git blob header, which needs the length first
    let mut buffer = vec![0u8; 1 << 16];
    let mut total = 0u64;
    loop {
        let n = reader.read(&mut buffer)?;
        if n == 0 {
            break;
        }
        out.write_all(&buffer[..n])?;
        sha256.update(&buffer[..n]);
        if matches!(expected, Expected::GitBlobSha1(_)) {
            bytes.extend_from_slice(&buffer[..n]);
        }
        total += n as u64;
    }
    out.sync_all()?;
    if let Some(length) = length.filter(|&l| l != total) {
        std::fs::remove_file(&partial).ok();
        bail!("{url}: got {total} of {length} bytes");
    }
    let actual = match &expected {
        Expected::Sha256(_) => Expected::Sha256(hex(&sha256.finalize())),
        Expected::GitBlobSha1(_) => {
            let mut sha1 = sha1::Sha1::new();
            sha1.update(format!("blob {}\0", bytes.len()).as_bytes());
            sha1.update(&bytes);
            Expected::GitBlobSha1(hex(&sha1.finalize()))
        }
    };
    if actual != expected {
        std::fs::remove_file(&partial).ok();
        bail!("{file}: checksum mismatch (expected {expected:?}, got {actual:?}); nothing was installed");
    }
    std::fs::rename(&partial, &target)?;
    Ok(target)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Download what `repo` needs (the int8 model, or the float32 one) into
/// `dest`, each file once.
pub fn command(repo: &str, dest: &Path, fp32: bool, out: &mut impl Write) -> Result<std::process::ExitCode> {
    let onnx = if fp32 {
        "onnx/model.onnx"
    } else {
        "onnx/model_quantized.onnx"
    };
    for file in ["tokenizer.json", "tokenizer_config.json", onnx] {
        if dest.join(file).is_file() {
            writeln!(out, "{file}: already there")?;
            continue;
        }
        fetch(repo, file, dest, &|msg| eprintln!("{msg}"))?;
        writeln!(out, "{file}: downloaded and verified")?;
    }
    Ok(std::process::ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_hash_hugging_face_publishes() {
        let mut headers = ureq::http::HeaderMap::new();
        headers.insert("etag", "\"0123456789abcdef0123456789abcdef01234567\"".parse().unwrap());
        assert_eq!(
            expected_hash(&headers),
            Some(Expected::GitBlobSha1("0123456789abcdef0123456789abcdef01234567".into()))
        );
        let sha = "A".repeat(64);
        headers.insert("x-linked-etag", format!("\"{sha}\"").parse().unwrap());
        assert_eq!(expected_hash(&headers), Some(Expected::Sha256("a".repeat(64))));
        headers.clear();
        headers.insert("etag", "W/\"not-a-hash\"".parse().unwrap());
        assert_eq!(expected_hash(&headers), None);
    }
}
