//! What a migration has done so far, kept beside its output
//! (`.squill-migrate.json`): per collection whether it is complete, and if
//! not, the last key written and the bytes of each file at that checkpoint
//! (a resumed run cuts the files there and goes on after the key); the
//! point in the source's history the data reflects (the baseline a later
//! run moves the changes since); and which design it follows.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The file's name in the output directory.
pub const FILE: &str = ".squill-migrate.json";

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct State {
    /// `host:port/database` of the source.
    pub source: String,
    /// A fingerprint of the design's collections: a different design
    /// cannot resume this one.
    pub design: String,
    /// The oldest transaction (32-bit xid) still running when the data was
    /// read, and the time: changes since come from it.
    pub baseline_xmin: u32,
    pub baseline_time: String,
    pub collections: BTreeMap<String, CollectionState>,
    /// Incremental runs done after the full one.
    pub increments: u32,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct CollectionState {
    pub done: bool,
    pub documents: u64,
    /// Bytes of the BSON and JSON files at the last checkpoint.
    pub bson_bytes: u64,
    pub json_bytes: u64,
    /// The last key written (resume after it).
    pub last_key: Option<String>,
}

impl State {
    pub fn path(dir: &Path) -> PathBuf {
        dir.join(FILE)
    }

    /// The state in `dir`, if a migration left one; an unreadable file is
    /// an error (not a fresh start that would overwrite its output).
    pub fn load(dir: &Path) -> Result<Option<State>, String> {
        let path = State::path(dir);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(format!("{}: {e}", path.display())),
        };
        serde_json::from_str(&text).map(Some).map_err(|e| {
            format!(
                "{}: not a migration state ({e}); remove it to start over",
                path.display()
            )
        })
    }

    /// Written whole or not at all.
    pub fn save(&self, dir: &Path) -> Result<(), String> {
        let path = State::path(dir);
        let text = serde_json::to_string_pretty(self).map_err(|e| e.to_string())?;
        crate::synthetic::write::write_file(&path, text.as_bytes())
            .map(|_| ())
            .map_err(|e| format!("{}: {e}", path.display()))
    }

    pub fn complete(&self) -> bool {
        !self.collections.is_empty() && self.collections.values().all(|c| c.done)
    }
}

/// A short fingerprint of `text` (FNV-1a, 64 bits, in hex).
pub fn fingerprint(text: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}
