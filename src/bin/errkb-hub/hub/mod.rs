//! The team hub: fixes shared through a PostgreSQL database the team
//! already runs. Hooks never come here: only `errkb hub`, `errkb sync`,
//! `errkb forget`, the detached end-of-session job and `errkb learn` talk
//! to the hub; the local SQLite file stays every hook's only store.
//!
//! - `conninfo`: where the hub is and how to log in, as libpq reads it
//! - `tls`: sslmode as libpq means it, on rustls
//! - `client`: a connection with a deadline on everything
//! - `project`: a project's identity across machines (its git remote), and
//!   which projects are shared
//! - `outgoing`: what of a fix's text may leave the laptop
//! - `sync`: the protocol (what is sent, how it is received and checked)

pub mod client;
pub mod conninfo;
pub mod outgoing;
pub mod project;
pub mod sync;
pub mod tls;
