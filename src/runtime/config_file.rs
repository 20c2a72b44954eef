//! Changing `~/.reflexion/config.json` (reading it is `errkb::config`'s):
//! the settings other than the one changed stay as they are, in their
//! order; the file is replaced whole, never half-written; a file that is
//! not a JSON object is left alone with a message.

use anyhow::{bail, Context, Result};
use serde_json::{Map, Value};

use crate::runtime::paths;

pub fn path() -> Result<std::path::PathBuf> {
    Ok(paths::data_root()?.join("config.json"))
}

/// The settings, or none when there is no file.
pub fn read() -> Result<Map<String, Value>> {
    let path = path()?;
    match std::fs::read_to_string(&path) {
        Ok(text) if text.trim().is_empty() => Ok(Map::new()),
        Ok(text) => match serde_json::from_str::<Value>(&text) {
            Ok(Value::Object(map)) => Ok(map),
            _ => bail!(
                "{} is not a JSON object: mend it first (errkb doctor says what is wrong)",
                path.display()
            ),
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Map::new()),
        Err(e) => Err(e).with_context(|| format!("cannot read {}", path.display())),
    }
}

pub fn write(config: &Map<String, Value>) -> Result<()> {
    let path = path()?;
    std::fs::create_dir_all(path.parent().context("config folder")?)?;
    let staging = path.with_extension("json.errkb-tmp");
    std::fs::write(
        &staging,
        serde_json::to_string_pretty(&Value::Object(config.clone()))? + "\n",
    )?;
    std::fs::rename(&staging, &path)?;
    Ok(())
}
