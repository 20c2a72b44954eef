//! Where the hub is and how to log in, read as libpq reads it, so that a
//! team's existing PostgreSQL setup works as it is: a `postgresql://` URL,
//! a `service=` entry of the service file, the `PG*` environment variables,
//! and the password from `PGPASSWORD` or the password file (`~/.pgpass`).
//! A password written in the URL is used, never stored: what is kept in
//! config.json and shown anywhere is `Conninfo::display`, without it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{bail, Context, Result};

/// libpq's `sslmode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SslMode {
    Disable,
    Allow,
    Prefer,
    Require,
    VerifyCa,
    VerifyFull,
}

impl SslMode {
    fn parse(value: &str) -> Result<Self> {
        Ok(match value {
            "disable" => Self::Disable,
            "allow" => Self::Allow,
            "prefer" => Self::Prefer,
            "require" => Self::Require,
            "verify-ca" => Self::VerifyCa,
            "verify-full" => Self::VerifyFull,
            other => bail!("sslmode={other} is not one of disable, allow, prefer, require, verify-ca, verify-full"),
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Disable => "disable",
            Self::Allow => "allow",
            Self::Prefer => "prefer",
            Self::Require => "require",
            Self::VerifyCa => "verify-ca",
            Self::VerifyFull => "verify-full",
        }
    }
}

/// Everything needed to connect, resolved.
#[derive(Clone)]
pub struct Conninfo {
    pub host: String,
    pub port: u16,
    pub user: String,
    pub dbname: String,
    password: Option<String>,
    /// Where the password came from, for messages (never the password).
    pub password_source: &'static str,
    pub password_in_url: bool,
    pub sslmode: SslMode,
    /// `sslrootcert`: a file of CA certificates, or `system`.
    pub sslrootcert: Option<String>,
    pub connect_timeout: Duration,
    /// The URL as the user gave it, without a password: what config.json
    /// keeps and messages show.
    pub display: String,
}

impl std::fmt::Debug for Conninfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.display) // never the password
    }
}

/// How long connecting may take when the URL does not say
/// (`connect_timeout`): a hub that accepts and never answers must not hang
/// a sync.
const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// Parameters errkb understands; others are refused rather than ignored.
const KNOWN: &[&str] = &[
    "host",
    "hostaddr",
    "port",
    "user",
    "password",
    "dbname",
    "sslmode",
    "sslrootcert",
    "connect_timeout",
    "service",
    "application_name",
    "passfile",
];

impl Conninfo {
    pub fn password(&self) -> Option<&str> {
        self.password.as_deref()
    }

    /// Read `url` (`postgresql://user[:password]@host[:port]/dbname?param=…`,
    /// or `postgresql:///?service=NAME`) as libpq does: the URL first, then
    /// the service's entry, then `PG*` variables, then libpq's defaults.
    pub fn parse(url: &str) -> Result<Self> {
        let parsed = url::Url::parse(url).with_context(|| {
            "the hub is a PostgreSQL URL: postgresql://USER@HOST:PORT/DBNAME?sslmode=verify-full".to_owned()
        })?;
        if !matches!(parsed.scheme(), "postgres" | "postgresql") {
            bail!("the hub's URL starts with postgresql://, not {}://", parsed.scheme());
        }
        let mut params: BTreeMap<String, String> = BTreeMap::new();
        for (key, value) in parsed.query_pairs() {
            if !KNOWN.contains(&key.as_ref()) {
                bail!(
                    "the hub's URL has {key}=, which errkb does not use (it knows: {})",
                    KNOWN.join(", ")
                );
            }
            params.insert(key.into_owned(), value.into_owned());
        }
        let decode = |s: &str| percent_encoding::percent_decode_str(s).decode_utf8_lossy().into_owned();
        if let Some(host) = parsed.host_str().filter(|h| !h.is_empty()) {
            params
                .entry("host".into())
                .or_insert_with(|| host.trim_start_matches('[').trim_end_matches(']').to_owned());
        }
        if let Some(port) = parsed.port() {
            params.entry("port".into()).or_insert_with(|| port.to_string());
        }
        if !parsed.username().is_empty() {
            params.entry("user".into()).or_insert_with(|| decode(parsed.username()));
        }
        let password_in_url = parsed.password().is_some() || params.contains_key("password");
        if let Some(password) = parsed.password() {
            params.entry("password".into()).or_insert_with(|| decode(password));
        }
        let path = parsed.path().trim_start_matches('/');
        if !path.is_empty() {
            params.entry("dbname".into()).or_insert_with(|| decode(path));
        }
        // the service's entry fills what the URL leaves out
        if let Some(service) = params.get("service").cloned() {
            for (key, value) in service_entry(&service)? {
                params.entry(key).or_insert(value);
            }
        }
        for (key, var) in [
            ("host", "PGHOST"),
            ("port", "PGPORT"),
            ("user", "PGUSER"),
            ("dbname", "PGDATABASE"),
            ("sslmode", "PGSSLMODE"),
            ("sslrootcert", "PGSSLROOTCERT"),
            ("connect_timeout", "PGCONNECT_TIMEOUT"),
            ("passfile", "PGPASSFILE"),
        ] {
            if let Some(value) = std::env::var(var).ok().filter(|v| !v.is_empty()) {
                params.entry(key.into()).or_insert(value);
            }
        }
        let host = params.get("host").cloned().unwrap_or_else(|| "localhost".into());
        if host.starts_with('/') {
            bail!("the hub is reached over TCP: give a host name, not the socket folder {host}");
        }
        let port = match params.get("port") {
            Some(p) => p.parse().with_context(|| format!("port={p} is not a port number"))?,
            None => 5432,
        };
        let user = match params.get("user") {
            Some(user) => user.clone(),
            None => std::env::var("USER").context("no user name: put it in the URL (postgresql://USER@HOST/DB)")?,
        };
        let dbname = params.get("dbname").cloned().unwrap_or_else(|| user.clone());
        let sslmode = SslMode::parse(params.get("sslmode").map_or("prefer", String::as_str))?;
        let connect_timeout = match params.get("connect_timeout") {
            // libpq: zero or negative means wait forever; errkb keeps a bound
            Some(t) => match t.parse::<i64>() {
                Ok(s) if s > 0 => Duration::from_secs(s.max(2) as u64),
                Ok(_) => DEFAULT_CONNECT_TIMEOUT,
                Err(_) => bail!("connect_timeout={t} is not a number of seconds"),
            },
            None => DEFAULT_CONNECT_TIMEOUT,
        };
        let (password, password_source) = match params.get("password") {
            Some(p) => (Some(p.clone()), "the URL"),
            None => match std::env::var("PGPASSWORD").ok().filter(|p| !p.is_empty()) {
                Some(p) => (Some(p), "PGPASSWORD"),
                None => {
                    let file = params.get("passfile").map(PathBuf::from).or_else(default_passfile);
                    match file.and_then(|f| passfile_lookup(&f, &host, port, &dbname, &user)) {
                        Some(p) => (Some(p), "the password file"),
                        None => (None, "none"),
                    }
                }
            },
        };
        let mut shown = parsed.clone();
        let _ = shown.set_password(None);
        let kept: Vec<(String, String)> = shown
            .query_pairs()
            .filter(|(k, _)| k != "password")
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect();
        shown.set_query(None);
        if !kept.is_empty() {
            shown.query_pairs_mut().extend_pairs(kept);
        }
        Ok(Conninfo {
            host,
            port,
            user,
            dbname,
            password,
            password_source,
            password_in_url,
            sslmode,
            sslrootcert: params.get("sslrootcert").cloned(),
            connect_timeout,
            display: shown.to_string(),
        })
    }

    /// The line of `~/.pgpass` that would give this hub its password.
    pub fn passfile_line(&self) -> String {
        format!("{}:{}:{}:{}:<password>", self.host, self.port, self.dbname, self.user)
    }
}

fn home() -> Option<PathBuf> {
    errkb::config::home()
}

fn default_passfile() -> Option<PathBuf> {
    #[cfg(windows)]
    {
        std::env::var_os("APPDATA").map(|d| PathBuf::from(d).join("postgresql").join("pgpass.conf"))
    }
    #[cfg(not(windows))]
    {
        home().map(|h| h.join(".pgpass"))
    }
}

/// The password file's first line that matches (`host:port:db:user:pass`,
/// `*` for any, `\:` and `\\` escaped), as libpq reads it; a file others
/// can read is ignored, as libpq does.
fn passfile_lookup(file: &Path, host: &str, port: u16, dbname: &str, user: &str) -> Option<String> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(file).ok()?.permissions().mode();
        if mode & 0o077 != 0 {
            eprintln!(
                "errkb: {} is readable by others and is ignored (chmod 0600 {})",
                file.display(),
                file.display()
            );
            return None;
        }
    }
    let text = std::fs::read_to_string(file).ok()?;
    let port = port.to_string();
    for line in text.lines() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let fields = split_passfile_line(line);
        if fields.len() < 5 {
            continue;
        }
        let matches = |field: &str, value: &str| field == "*" || field == value;
        if matches(&fields[0], host)
            && matches(&fields[1], &port)
            && matches(&fields[2], dbname)
            && matches(&fields[3], user)
        {
            return Some(fields[4..].join(":"));
        }
    }
    None
}

fn split_passfile_line(line: &str) -> Vec<String> {
    let mut fields = vec![String::new()];
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                if let Some(next) = chars.next() {
                    fields.last_mut().expect("one field at least").push(next);
                }
            }
            ':' if fields.len() < 5 => fields.push(String::new()),
            c => fields.last_mut().expect("one field at least").push(c),
        }
    }
    fields
}

/// The parameters of `service` in the connection service file:
/// `$PGSERVICEFILE` or `~/.pg_service.conf`, then `$PGSYSCONFDIR/pg_service.conf`.
fn service_entry(service: &str) -> Result<Vec<(String, String)>> {
    let mut files: Vec<PathBuf> = Vec::new();
    match std::env::var_os("PGSERVICEFILE") {
        Some(f) => files.push(PathBuf::from(f)),
        None => files.extend(home().map(|h| h.join(".pg_service.conf"))),
    }
    if let Some(dir) = std::env::var_os("PGSYSCONFDIR") {
        files.push(PathBuf::from(dir).join("pg_service.conf"));
    }
    for file in &files {
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        let mut in_section = false;
        let mut entry = Vec::new();
        for line in text.lines().map(str::trim) {
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
                if in_section {
                    break;
                }
                in_section = name == service;
            } else if in_section {
                if let Some((key, value)) = line.split_once('=') {
                    entry.push((key.trim().to_owned(), value.trim().to_owned()));
                }
            }
        }
        if in_section {
            return Ok(entry);
        }
    }
    let looked: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    bail!("no service \"{service}\" in {}", looked.join(" or "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_password_file_line_is_read_as_libpq_reads_it() {
        assert_eq!(
            split_passfile_line(r"db\:1:5432:*:alice:pa\:ss:word"),
            vec!["db:1", "5432", "*", "alice", "pa:ss:word"]
        );
        assert_eq!(
            split_passfile_line(r"h:1:d:u:back\\slash"),
            vec!["h", "1", "d", "u", r"back\slash"]
        );
    }

    #[test]
    fn the_password_never_shows() {
        let c = Conninfo::parse("postgresql://alice:s3cret@db.example.com:6543/team?sslmode=verify-full").unwrap();
        assert_eq!(c.password(), Some("s3cret"));
        assert!(c.password_in_url);
        assert_eq!(
            c.display,
            "postgresql://alice@db.example.com:6543/team?sslmode=verify-full"
        );
        assert!(!format!("{c:?}").contains("s3cret"));
        assert_eq!(
            (c.host.as_str(), c.port, c.dbname.as_str()),
            ("db.example.com", 6543, "team")
        );
        assert_eq!(c.sslmode, SslMode::VerifyFull);
    }

    #[test]
    fn unknown_parameters_and_modes_are_refused() {
        assert!(Conninfo::parse("postgresql://a@h/d?sslmode=verify").is_err());
        assert!(Conninfo::parse("postgresql://a@h/d?gssencmode=require").is_err());
        assert!(Conninfo::parse("mysql://a@h/d").is_err());
    }
}
