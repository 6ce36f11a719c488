//! A shard key: its fields in order, each ranged (`1`) or hashed. Written
//! on the command line as `FIELD[,FIELD…]`, a hashed field as `FIELD:hashed`
//! (`--shard-key tenant,_id`, `--shard-key user:hashed`); serialized as the
//! key document the server takes (`{"tenant": 1, "_id": 1}`).

use serde::ser::SerializeMap;

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ShardKey {
    pub fields: Vec<KeyField>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct KeyField {
    pub path: String,
    pub hashed: bool,
}

/// Why a `--shard-key` argument is not a key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    #[error("`{0}`: a shard key names at least one field")]
    Empty(String),
    #[error("`{0}`: a field name is empty (write FIELD[,FIELD], a hashed one FIELD:hashed)")]
    EmptyField(String),
    #[error("`{0}`: `{1}` is not a kind of key field (only `hashed` is)")]
    Kind(String, String),
    #[error("`{0}`: a shard key has at most one hashed field")]
    TwoHashed(String),
    #[error("`{0}`: `{1}` is named twice")]
    Repeated(String, String),
}

impl ShardKey {
    pub fn ranged(paths: &[&str]) -> ShardKey {
        ShardKey {
            fields: paths
                .iter()
                .map(|p| KeyField {
                    path: (*p).to_string(),
                    hashed: false,
                })
                .collect(),
        }
    }

    /// Reads `a,b:hashed`.
    pub fn parse(text: &str) -> Result<ShardKey, KeyError> {
        if text.trim().is_empty() {
            return Err(KeyError::Empty(text.to_string()));
        }
        let mut fields: Vec<KeyField> = Vec::new();
        for part in text.split(',') {
            let (path, kind) = match part.rsplit_once(':') {
                Some((p, k)) => (p.trim(), Some(k.trim())),
                None => (part.trim(), None),
            };
            if path.is_empty() {
                return Err(KeyError::EmptyField(text.to_string()));
            }
            let hashed = match kind {
                None | Some("1") => false,
                Some("hashed") => true,
                Some(other) => return Err(KeyError::Kind(text.to_string(), other.to_string())),
            };
            if fields.iter().any(|f| f.path == path) {
                return Err(KeyError::Repeated(text.to_string(), path.to_string()));
            }
            fields.push(KeyField {
                path: path.to_string(),
                hashed,
            });
        }
        if fields.iter().filter(|f| f.hashed).count() > 1 {
            return Err(KeyError::TwoHashed(text.to_string()));
        }
        Ok(ShardKey { fields })
    }

    pub fn is_hashed(&self) -> bool {
        self.fields.iter().any(|f| f.hashed)
    }

    /// `{tenant: 1, _id: 1}`: names as written, for text outputs (a
    /// reporter escapes them for where they land).
    pub fn paths(&self) -> Vec<&str> {
        self.fields.iter().map(|f| f.path.as_str()).collect()
    }
}

impl serde::Serialize for ShardKey {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.fields.len()))?;
        for f in &self.fields {
            if f.hashed {
                map.serialize_entry(&f.path, "hashed")?;
            } else {
                map.serialize_entry(&f.path, &1)?;
            }
        }
        map.end()
    }
}

impl schemars::JsonSchema for ShardKey {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ShardKey".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "object",
            "description": "The key document sh.shardCollection takes: each field, in order, 1 (ranged) or \"hashed\".",
            "additionalProperties": {"oneOf": [{"const": 1}, {"const": "hashed"}]}
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_ranged_hashed_and_compound_keys() {
        let k = ShardKey::parse("tenant, user:hashed").unwrap();
        assert_eq!(
            serde_json::to_string(&k).unwrap(),
            r#"{"tenant":1,"user":"hashed"}"#
        );
        assert!(k.is_hashed());
        assert_eq!(ShardKey::parse("a.b").unwrap(), ShardKey::ranged(&["a.b"]));
    }

    #[test]
    fn refuses_what_the_server_would() {
        assert!(matches!(ShardKey::parse(""), Err(KeyError::Empty(_))));
        assert!(matches!(
            ShardKey::parse("a,"),
            Err(KeyError::EmptyField(_))
        ));
        assert!(matches!(
            ShardKey::parse("a:2d"),
            Err(KeyError::Kind(_, k)) if k == "2d"
        ));
        assert!(matches!(
            ShardKey::parse("a:hashed,b:hashed"),
            Err(KeyError::TwoHashed(_))
        ));
        assert!(matches!(
            ShardKey::parse("a,a"),
            Err(KeyError::Repeated(_, f)) if f == "a"
        ));
    }
}
