//! Why a rule supports or forbids a layout, as a value: the rule's own
//! evidence (figures with their units, the limits they are held to, the
//! model's names), turned into English only when a report asks for it.
//!
//! The shape follows ruff's violations: each rule declares a struct of what
//! it found and implements `Explain::words` beside it; the check returns the
//! struct, and reporters call `words()` (cargo-deny's checks likewise return
//! typed results that `diags.rs` renders last). The JSON carries both the
//! sentence (`reason`) and the evidence (`evidence`), so a tool can plot a
//! rule's numbers without parsing prose.

use serde::Serialize;
use std::any::Any;
use std::fmt::Debug;
use std::sync::Arc;

/// What a rule found, in its own typed fields; `words` is its sentence.
///
/// Implement it on a `#[derive(Debug, Clone, PartialEq, Serialize)]` struct
/// (or enum) whose fields are the evidence: `Figure` for a number with a
/// unit, `String` for a name from the model.
pub trait Explain: Any + Debug + Send + Sync {
    /// The sentence a report shows, made from the fields with `crate::words`.
    fn words(&self) -> String;
    /// The fields as JSON (the design JSON's `evidence`).
    fn evidence(&self) -> serde_json::Value;
}

/// Implements `Explain` for evidence types: `words` from the given
/// function, `evidence` from the type's `Serialize`.
macro_rules! explain {
    ($ty:ty, $words:expr) => {
        impl $crate::design::reason::Explain for $ty {
            fn words(&self) -> String {
                let words: fn(&$ty) -> String = $words;
                words(self)
            }
            fn evidence(&self) -> serde_json::Value {
                serde_json::to_value(self).unwrap_or(serde_json::Value::Null)
            }
        }
    };
}
pub(crate) use explain;

/// A rule's reason: shared, cheap to clone, rendered on demand.
#[derive(Clone)]
pub struct Reason(Arc<dyn Explain>);

impl Reason {
    pub fn new(why: impl Explain) -> Self {
        Reason(Arc::new(why))
    }
    /// The sentence, in English.
    pub fn words(&self) -> String {
        self.0.words()
    }
    /// The evidence as JSON: an object of the rule's fields.
    pub fn evidence(&self) -> serde_json::Value {
        self.0.evidence()
    }
    /// The typed evidence, when it is a `T` (tests assert it this way).
    pub fn get<T: Explain>(&self) -> Option<&T> {
        let any: &dyn Any = self.0.as_ref();
        any.downcast_ref()
    }
}

impl Debug for Reason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// The sentence (`words`).
impl std::fmt::Display for Reason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.words())
    }
}

impl PartialEq for Reason {
    fn eq(&self, other: &Self) -> bool {
        let (a, b): (&dyn Any, &dyn Any) = (self.0.as_ref(), other.0.as_ref());
        a.type_id() == b.type_id()
            && self.evidence() == other.evidence()
            && self.words() == other.words()
    }
}

/// Serialized flattened into its holder: `reason` (the sentence) then
/// `evidence` (the typed fields).
impl Serialize for Reason {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(2))?;
        m.serialize_entry("reason", &self.words())?;
        m.serialize_entry("evidence", &self.evidence())?;
        m.end()
    }
}

impl schemars::JsonSchema for Reason {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Reason".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "object",
            "properties": {
                "reason": {
                    "type": "string",
                    "description": "Why it applies here, with the model's numbers, in English."
                },
                "evidence": {
                    "type": "object",
                    "description": "The rule's evidence, typed: each figure as {value, unit}, names as strings (docs/design-json.md, \"Evidence\")."
                }
            },
            "required": ["reason", "evidence"]
        })
    }
}

/// A number with its unit: one figure of a rule's evidence.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Figure {
    pub value: f64,
    pub unit: Unit,
}

/// The unit of a `Figure`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    /// A number of things (documents, children, fields, indexes, levels).
    Count,
    /// Operations (or things) per second.
    PerSecond,
    /// Bytes.
    Bytes,
    /// A plain ratio (reads per write, a share between 0 and 1).
    Ratio,
    /// Seconds.
    Seconds,
    /// Milliseconds.
    Milliseconds,
    /// Days.
    Days,
}

impl Figure {
    pub fn count(value: f64) -> Self {
        Figure {
            value,
            unit: Unit::Count,
        }
    }
    pub fn per_second(value: f64) -> Self {
        Figure {
            value,
            unit: Unit::PerSecond,
        }
    }
    pub fn bytes(value: f64) -> Self {
        Figure {
            value,
            unit: Unit::Bytes,
        }
    }
    pub fn ratio(value: f64) -> Self {
        Figure {
            value,
            unit: Unit::Ratio,
        }
    }
    pub fn seconds(value: f64) -> Self {
        Figure {
            value,
            unit: Unit::Seconds,
        }
    }
    pub fn milliseconds(value: f64) -> Self {
        Figure {
            value,
            unit: Unit::Milliseconds,
        }
    }
    pub fn days(value: f64) -> Self {
        Figure {
            value,
            unit: Unit::Days,
        }
    }
    /// A relationship's maximum: `None` (JSON `null`) when unbounded.
    pub fn max(count: crate::model::Count) -> Option<Self> {
        count.finite().map(|n| Figure::count(n as f64))
    }
}
