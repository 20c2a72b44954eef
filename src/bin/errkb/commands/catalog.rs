//! `errkb catalog`: read the machine's gettext catalogs for the user's
//! languages into the `message_catalog` table, so that a tool's localized
//! message finds the fix learned from its English original (and the other
//! way round). Run once (`errkb install` does it); again after installing
//! tools or languages.

use std::path::{Path, PathBuf};

use anyhow::Result;
use rusqlite::Connection;

/// Where catalogs live: Debian/Fedora/Arch, then Homebrew on both CPUs.
const LOCALE_DIRS: &[&str] = &[
    "/usr/share/locale",
    "/usr/local/share/locale",
    "/opt/homebrew/share/locale",
];

/// The text domains of tools whose errors an agent meets (a catalog's file
/// name starts with one of these); the rest (desktop, ISO code lists …)
/// would only grow the table.
const TOOL_DOMAINS: &[&str] = &[
    "bash",
    "coreutils",
    "findutils",
    "diffutils",
    "grep",
    "sed",
    "tar",
    "gzip",
    "xz",
    "wget",
    "make",
    "git",
    "libc",
    "gettext",
    "psql",
    "postgres",
    "libpq",
    "initdb",
    "pg_",
    "pgscripts",
    "plpgsql",
    "gcc",
    "cpplib",
    "binutils",
    "bfd",
    "ld",
    "gas",
    "gold",
    "gprof",
    "opcodes",
    "elfutils",
    "dpkg",
    "apt",
    "libapt",
    "procps",
    "psmisc",
    "shadow",
    "systemd",
    "util-linux",
    "e2fsprogs",
    "gnupg",
    "man-db",
    "Linux-PAM",
    "sudo",
    "rsync",
    "gdb",
    "m4",
    "bison",
    "flex",
    "patch",
    "cpio",
    "less",
    "nano",
    "vim",
    "mit-krb5",
    "gnutls",
    "libidn",
];

#[derive(Debug, Default)]
pub struct Summary {
    pub languages: Vec<String>,
    pub domains: usize,
    pub messages: usize,
}

/// The languages the user reads, from the usual locale variables
/// (`ko_KR.UTF-8` → `ko_KR` and `ko`); English and C give none.
pub fn user_languages() -> Vec<String> {
    let mut langs = Vec::new();
    let mut add = |value: &str| {
        for item in value.split(':') {
            let base = item.split(['.', '@']).next().unwrap_or("");
            if base.is_empty() || base == "C" || base == "POSIX" || base.starts_with("en") {
                continue;
            }
            for lang in [base, base.split('_').next().unwrap_or(base)] {
                if !langs.iter().any(|l| l == lang) {
                    langs.push(lang.to_string());
                }
            }
        }
    };
    for var in ["LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"] {
        if let Ok(value) = std::env::var(var) {
            add(&value);
        }
    }
    langs
}

fn catalog_files(lang: &str) -> Vec<(String, PathBuf)> {
    let mut files = Vec::new();
    for dir in LOCALE_DIRS {
        let Ok(entries) = std::fs::read_dir(Path::new(dir).join(lang).join("LC_MESSAGES")) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let Some(domain) = name.strip_suffix(".mo") else {
                continue;
            };
            if TOOL_DOMAINS.iter().any(|d| domain.starts_with(d)) && !files.iter().any(|(n, _)| n == domain) {
                files.push((domain.to_string(), entry.path()));
            }
        }
    }
    files.sort();
    files
}

/// Replace the catalog rows of `langs` with what the machine has now.
pub fn build(conn: &Connection, langs: &[String]) -> Result<Summary> {
    let tx = conn.unchecked_transaction()?;
    let mut summary = Summary::default();
    {
        let mut delete = tx.prepare("DELETE FROM message_catalog WHERE lang = ?1")?;
        let mut insert = tx
            .prepare("INSERT INTO message_catalog (lang, domain, anchor, msgid, msgstr) VALUES (?1, ?2, ?3, ?4, ?5)")?;
        for lang in langs {
            delete.execute([lang])?;
            let files = catalog_files(lang);
            if files.is_empty() {
                continue;
            }
            summary.languages.push(lang.clone());
            for (domain, path) in files {
                let Ok(bytes) = std::fs::read(&path) else { continue };
                let Some(pairs) = errkb::text::catalog::read_mo(&bytes) else {
                    continue;
                };
                summary.domains += 1;
                for (msgid, msgstr) in pairs {
                    if let Some(anchor) = errkb::text::catalog::anchor(&msgstr) {
                        insert.execute((lang, &domain, anchor, &msgid, &msgstr))?;
                        summary.messages += 1;
                    }
                }
            }
        }
    }
    tx.commit()?;
    Ok(summary)
}

/// `errkb catalog [--lang L,…]`: index the catalogs of these languages
/// (default: the user's).
pub fn command(db_path: &Path, langs: Vec<String>, out: &mut impl std::io::Write) -> Result<std::process::ExitCode> {
    let langs = if langs.is_empty() { user_languages() } else { langs };
    if langs.is_empty() {
        writeln!(
            out,
            "no language besides English in LANGUAGE/LC_ALL/LC_MESSAGES/LANG; pass --lang"
        )?;
        return Ok(std::process::ExitCode::SUCCESS);
    }
    let conn = errkb::runtime::db::open(db_path, errkb::runtime::db::Access::ReadWrite)?;
    let s = build(&conn, &langs)?;
    writeln!(
        out,
        "message catalog: {} from {} ({})",
        errkb::runtime::counted(s.messages, "message", "messages"),
        errkb::runtime::counted(s.domains, "catalog", "catalogs"),
        if s.languages.is_empty() {
            "no catalogs found".to_string()
        } else {
            s.languages.join(", ")
        }
    )?;
    Ok(std::process::ExitCode::SUCCESS)
}
