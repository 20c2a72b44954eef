//! Where errkb keeps its files and what `~/.reflexion/config.json` says:
//! one module for the extension (the model's location) and the runner
//! (hooks on or off, the database, installed files).
//!
//! The layout follows the original system's, so an existing knowledge
//! base is picked up as it is: `~/.reflexion/data/reflexion.db`,
//! `~/.reflexion/config.json`, `~/.reflexion/models/<repo>`.

use std::path::PathBuf;

/// The model `errkb model download` fetches and the extension looks for
/// under `~/.reflexion/models/` (a Hugging Face repository).
pub const PRODUCTION_MODEL: &str = "Xenova/paraphrase-multilingual-MiniLM-L12-v2";

/// `$HOME`, when set and not empty.
pub fn home() -> Option<PathBuf> {
    std::env::var_os("HOME").filter(|h| !h.is_empty()).map(PathBuf::from)
}

/// `~/.reflexion`: the database, the config, installed files, models.
pub fn data_root() -> Option<PathBuf> {
    Some(home()?.join(".reflexion"))
}

/// `~/.reflexion/config.json`, parsed; None when it is missing or not JSON
/// (every setting then has its default).
pub fn read() -> Option<serde_json::Value> {
    let text = std::fs::read_to_string(data_root()?.join("config.json")).ok()?;
    serde_json::from_str(&text).ok()
}

/// `"enabled": false` turns every hook off; anything else leaves them on.
pub fn hooks_enabled() -> bool {
    read()
        .and_then(|c| c.get("enabled").and_then(serde_json::Value::as_bool))
        .unwrap_or(true)
}

/// `"hub": {"url": …}`: the team hub this machine joined (errkb hub join),
/// its URL without a password; None when none is joined.
pub fn hub_url() -> Option<String> {
    read()?.get("hub")?.get("url")?.as_str().map(str::to_owned)
}

/// `"model": "<dir>"`: the embedding model's directory, when configured.
pub fn model_dir() -> Option<PathBuf> {
    read()?.get("model")?.as_str().map(PathBuf::from)
}
