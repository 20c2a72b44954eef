//! A connection to the hub with a deadline on everything, so that a hub
//! that accepts and never answers, or a table someone holds locked, fails
//! a sync within a minute instead of hanging it: connecting
//! (`connect_timeout`), each statement on the server (`statement_timeout`,
//! `lock_timeout`), and each exchange on this side (`ROUND_TRIP`).
//! tokio-postgres runs on a runtime of one thread, made here, only by the
//! commands that talk to the hub: no hook ever starts one.

use std::time::Duration;

use anyhow::{anyhow, Context, Result};
use tokio::runtime::Runtime;

use super::conninfo::Conninfo;

/// The longest one exchange with the hub (a statement, or a transaction
/// of them) may take on this side.
const ROUND_TRIP: Duration = Duration::from_secs(45);
/// What the server is told to give up after: one statement, and waiting
/// for a lock (a table someone holds locked fails the sync in seconds).
/// (Set after connecting, not as start-up options, which some connection
/// poolers of managed services refuse.)
const SERVER_TIMEOUTS: &str =
    "SET statement_timeout = '30s'; SET lock_timeout = '10s'; SET idle_in_transaction_session_timeout = '60s'";

pub struct Hub {
    runtime: Runtime,
    pub client: tokio_postgres::Client,
    pub info: Conninfo,
}

impl Hub {
    pub fn connect(info: &Conninfo) -> Result<Hub> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .context("cannot start the network runtime")?;
        let (sslmode, tls) = super::tls::connector(info)?;
        let mut config = tokio_postgres::Config::new();
        config
            .host(&info.host)
            .port(info.port)
            .user(&info.user)
            .dbname(&info.dbname)
            .ssl_mode(sslmode)
            .connect_timeout(info.connect_timeout)
            .keepalives_idle(Duration::from_secs(30))
            .application_name(concat!("errkb ", env!("CARGO_PKG_VERSION")));
        if let Some(password) = info.password() {
            config.password(password);
        }
        let client = runtime.block_on(async {
            let (client, connection) =
                tokio::time::timeout(info.connect_timeout + Duration::from_secs(2), config.connect(tls))
                    .await
                    .map_err(|_| {
                        anyhow!(
                            "{} did not answer within {} s",
                            info.display,
                            info.connect_timeout.as_secs()
                        )
                    })?
                    .map_err(|e| connect_error(info, e))?;
            tokio::spawn(async move {
                let _ = connection.await; // ends with the client
            });
            tokio::time::timeout(ROUND_TRIP, client.batch_execute(SERVER_TIMEOUTS))
                .await
                .map_err(|_| anyhow!("{} did not answer within {} s", info.display, ROUND_TRIP.as_secs()))?
                .map_err(|e| anyhow!("cannot set up the session on {}: {}", info.display, describe(&e)))?;
            Ok::<_, anyhow::Error>(client)
        })?;
        Ok(Hub {
            runtime,
            client,
            info: info.clone(),
        })
    }

    /// Run `f` with the connection (it may open a transaction), within
    /// `ROUND_TRIP`.
    pub fn with<T>(&mut self, f: impl AsyncFnOnce(&mut tokio_postgres::Client) -> Result<T>) -> Result<T> {
        let limit = ROUND_TRIP;
        let client = &mut self.client;
        self.runtime.block_on(async move {
            tokio::time::timeout(limit, f(client))
                .await
                .map_err(|_| anyhow!("the hub did not answer within {} s", limit.as_secs()))?
        })
    }
}

/// A connection error in words, with the password's absence explained.
fn connect_error(info: &Conninfo, e: tokio_postgres::Error) -> anyhow::Error {
    let said = describe(&e);
    if said.contains("password authentication failed") || said.contains("password missing") {
        let hint = if info.password().is_none() {
            format!(
                "; errkb found no password: set PGPASSWORD, or add this line to ~/.pgpass (chmod 0600): {}",
                info.passfile_line()
            )
        } else {
            format!(" (the password came from {})", info.password_source)
        };
        return anyhow!("cannot log in to {}: {said}{hint}", info.display);
    }
    anyhow!("cannot connect to {}: {said}", info.display)
}

/// The server's message when there is one (tokio-postgres's Display says
/// only "db error").
pub fn describe(e: &tokio_postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => format!("{}: {}", db.severity(), db.message()),
        None => {
            let mut text = e.to_string();
            let mut source = std::error::Error::source(e);
            while let Some(s) = source {
                text.push_str(": ");
                text.push_str(&s.to_string());
                source = s.source();
            }
            text
        }
    }
}

/// tokio-postgres's errors, in the server's words.
pub trait Described<T> {
    fn described(self) -> Result<T>;
}

impl<T> Described<T> for Result<T, tokio_postgres::Error> {
    fn described(self) -> Result<T> {
        self.map_err(|e| anyhow!(describe(&e)))
    }
}
