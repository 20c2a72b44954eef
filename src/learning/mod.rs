//! Learning fixes: what a success resolves (`kb_resolves`), what a fix is
//! (`resolution`), and the one writer of learned fixes (`kb_learn`).

pub(crate) mod kb_learn;
pub mod resolution;
pub(crate) mod resolves;
