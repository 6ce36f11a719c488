//! A command or filter as the analysis needs it: its structure and the kind of
//! each value. Both readers (structured JSON and the legacy shell syntax) make
//! this tree for one line at a time; shapes read names from it (fields,
//! collections, stages) and never copy a value out of it, because logs hold
//! personal data.

#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    Object(Vec<(String, Node)>),
    Array(Vec<Node>),
    /// A string: shapes read it only where it names something (a collection
    /// in `find: "users"`, `$lookup.from`, an `$unwind` path).
    Str(String),
    /// A number: its sign, which a sort direction needs, whether it is
    /// zero, which a delete's `limit: 0` (every match) needs, and its value
    /// where it could be read. Shapes copy a value out only where it is a
    /// setting of the query, not data: a `limit` and a geo search's radius
    /// (`shape::Observed`).
    Number {
        negative: bool,
        zero: bool,
        value: Option<f64>,
    },
    Regex(RegexFlags),
    Other(Scalar),
}

/// The kind of a value that is neither a string, a number, nor a regex.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scalar {
    Null,
    Date,
    ObjectId,
    /// `true` or `false`: an update's `multi` needs which.
    Bool(bool),
    /// Anything else: binary, UUID, timestamps, a redacted or unknown word.
    Other,
}

/// What the findings need to know of a regular expression, and nothing of its text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RegexFlags {
    /// Starts with `^` or `\A`, so an index can bound the scan.
    pub anchored: bool,
    /// Has the `i` option, which no index bounds.
    pub case_insensitive: bool,
}

impl RegexFlags {
    pub fn new(pattern: &str, options: &str) -> Self {
        RegexFlags {
            anchored: pattern.starts_with('^') || pattern.starts_with("\\A"),
            case_insensitive: options.contains('i'),
        }
    }
}

impl Node {
    /// The value under `key` when this is an object.
    pub fn get(&self, key: &str) -> Option<&Node> {
        match self {
            Node::Object(fields) => fields.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub fn fields(&self) -> &[(String, Node)] {
        match self {
            Node::Object(fields) => fields,
            _ => &[],
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Node::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The first key of an object: a command's name (`find`, `aggregate`).
    pub fn first_key(&self) -> Option<&str> {
        self.fields().first().map(|(k, _)| k.as_str())
    }

    /// An object whose keys are all Extended JSON or shell wrappers of one
    /// value (`{"$oid": …}`, `{"$date": …}`) is that value, not a sub-document.
    pub fn from_wrapper(fields: &[(String, Node)]) -> Option<Node> {
        let (key, value) = fields.first()?;
        let scalar = match key.as_str() {
            "$oid" => Node::Other(Scalar::ObjectId),
            "$date" => Node::Other(Scalar::Date),
            "$numberLong" | "$numberInt" | "$numberDouble" | "$numberDecimal" => {
                let digits = value.as_str().unwrap_or("");
                Node::Number {
                    negative: digits.starts_with('-'),
                    zero: digits.parse::<f64>().is_ok_and(|f| f == 0.0),
                    value: digits.parse::<f64>().ok(),
                }
            }
            "$regularExpression" => {
                let pattern = value.get("pattern").and_then(Node::as_str).unwrap_or("");
                let options = value.get("options").and_then(Node::as_str).unwrap_or("");
                Node::Regex(RegexFlags::new(pattern, options))
            }
            "$binary" | "$uuid" | "$timestamp" | "$symbol" | "$code" | "$minKey" | "$maxKey"
            | "$undefined" | "$dbPointer" => Node::Other(Scalar::Other),
            _ => return None,
        };
        Some(scalar)
    }
}

/// A `serde_json` value as a node (the structured log's Extended JSON).
pub(super) fn from_json(value: &serde_json::Value, depth: usize) -> Node {
    use serde_json::Value;
    // Deeper than any real filter: cut rather than recurse without end.
    if depth > 100 {
        return Node::Other(Scalar::Other);
    }
    match value {
        Value::Null => Node::Other(Scalar::Null),
        Value::Bool(b) => Node::Other(Scalar::Bool(*b)),
        Value::Number(n) => Node::Number {
            negative: n.as_f64().is_some_and(|f| f < 0.0),
            zero: n.as_f64().is_some_and(|f| f == 0.0),
            value: n.as_f64(),
        },
        Value::String(s) => Node::Str(s.clone()),
        Value::Array(items) => Node::Array(items.iter().map(|v| from_json(v, depth + 1)).collect()),
        Value::Object(map) => {
            let fields: Vec<(String, Node)> = map
                .iter()
                .map(|(k, v)| (k.clone(), from_json(v, depth + 1)))
                .collect();
            Node::from_wrapper(&fields).unwrap_or(Node::Object(fields))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extended_json_wrappers_are_values() {
        let v: serde_json::Value = serde_json::from_str(
            r#"{"a":{"$oid":"65f2"},"b":{"$date":"2023-01-01"},"c":{"$regularExpression":{"pattern":"^x","options":"i"}},"d":{"$numberLong":"-5"},"e":{"x":1}}"#,
        )
        .unwrap();
        let n = from_json(&v, 0);
        assert_eq!(n.get("a"), Some(&Node::Other(Scalar::ObjectId)));
        assert_eq!(n.get("b"), Some(&Node::Other(Scalar::Date)));
        assert_eq!(
            n.get("c"),
            Some(&Node::Regex(RegexFlags {
                anchored: true,
                case_insensitive: true
            }))
        );
        assert_eq!(
            n.get("d"),
            Some(&Node::Number {
                negative: true,
                zero: false,
                value: Some(-5.0)
            })
        );
        assert!(matches!(n.get("e"), Some(Node::Object(_))));
    }
}

/// Reads a node straight from JSON, without an intermediate
/// `serde_json::Value` (the structured log's hot path).
impl<'de> serde::Deserialize<'de> for Node {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Node, D::Error> {
        d.deserialize_any(NodeVisitor)
    }
}

struct NodeVisitor;

impl<'de> serde::de::Visitor<'de> for NodeVisitor {
    type Value = Node;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Node, E> {
        Ok(Node::Other(Scalar::Bool(v)))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Node, E> {
        Ok(Node::Number {
            negative: v < 0,
            zero: v == 0,
            value: Some(v as f64),
        })
    }

    fn visit_u64<E>(self, v: u64) -> Result<Node, E> {
        Ok(Node::Number {
            negative: false,
            zero: v == 0,
            value: Some(v as f64),
        })
    }

    fn visit_f64<E>(self, v: f64) -> Result<Node, E> {
        Ok(Node::Number {
            negative: v < 0.0,
            zero: v == 0.0,
            value: Some(v),
        })
    }

    fn visit_str<E>(self, v: &str) -> Result<Node, E> {
        Ok(Node::Str(v.to_string()))
    }

    fn visit_string<E>(self, v: String) -> Result<Node, E> {
        Ok(Node::Str(v))
    }

    fn visit_unit<E>(self) -> Result<Node, E> {
        Ok(Node::Other(Scalar::Null))
    }

    fn visit_none<E>(self) -> Result<Node, E> {
        Ok(Node::Other(Scalar::Null))
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Node::Array(items))
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
        let mut fields = Vec::new();
        while let Some((k, v)) = map.next_entry::<String, Node>()? {
            fields.push((k, v));
        }
        Ok(Node::from_wrapper(&fields).unwrap_or(Node::Object(fields)))
    }
}

#[cfg(test)]
mod deserialize_tests {
    use super::*;

    /// The direct reader and the one through `serde_json::Value` agree.
    #[test]
    fn reads_like_from_json() {
        let text = r#"{"a":{"$oid":"65f2"},"b":[1,-2.5,null,true,"x"],"c":{"$regularExpression":{"pattern":"^x","options":"i"}},"d":{"e":{"$numberLong":"-5"}}}"#;
        let direct: Node = serde_json::from_str(text).unwrap();
        let via: serde_json::Value = serde_json::from_str(text).unwrap();
        assert_eq!(direct, from_json(&via, 0));
    }

    /// A command is read without the fields no shape reads, but keeps its
    /// first field whatever it is; both readers agree.
    #[test]
    fn commands_leave_out_unread_fields() {
        for (text, keys) in [
            (
                r#"{"find":"c","filter":{"$db":1,"lsid":2},"lsid":{"id":{"$uuid":"x"}},"$db":"d","limit":1}"#,
                &["find", "filter", "limit"][..],
            ),
            (r#"{"$db":"d","find":"c","$db":"e"}"#, &["$db", "find"][..]),
        ] {
            let Command(direct) = serde_json::from_str(text).unwrap();
            let names: Vec<&str> = direct.fields().iter().map(|(k, _)| k.as_str()).collect();
            assert_eq!(names, keys, "{text}");
            // Fields of sub-documents stay.
            if let Some(filter) = direct.get("filter") {
                assert_eq!(filter.fields().len(), 2);
            }
            let via: serde_json::Value = serde_json::from_str(text).unwrap();
            let Command(again) = serde_json::from_str(text).unwrap();
            assert_eq!(again, direct);
            if !text.contains("\"$db\":\"e\"") {
                assert_eq!(Command::from_node(from_json(&via, 0)), direct);
            }
        }
        let Command(scalar) = serde_json::from_str(r#""x###""#).unwrap();
        assert_eq!(scalar, Node::Str("x###".into()));
    }
}

/// Fields of a command that no shape reads (session, cluster time,
/// concerns, the database again): skipped while reading a command rather
/// than built, as they come with most commands. Only after the first field,
/// which names the command.
const UNREAD: &[&str] = &[
    "lsid",
    "$clusterTime",
    "$db",
    "txnNumber",
    "autocommit",
    "startTransaction",
    "readConcern",
    "writeConcern",
    "$readPreference",
    "maxTimeMS",
    "cursor",
    "apiVersion",
    "apiStrict",
    "$audit",
    "$client",
    "shardVersion",
    "databaseVersion",
];

/// A command or originating command, as a node without its `UNREAD` fields.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Command(pub Node);

impl Command {
    /// The same node, without the fields a `Command` leaves out.
    pub(super) fn from_node(node: Node) -> Node {
        match node {
            Node::Object(mut fields) => {
                let mut first = true;
                fields.retain(|(k, _)| std::mem::take(&mut first) || !UNREAD.contains(&k.as_str()));
                Node::Object(fields)
            }
            other => other,
        }
    }
}

impl<'de> serde::Deserialize<'de> for Command {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Command, D::Error> {
        d.deserialize_any(CommandVisitor).map(Command)
    }
}

/// `NodeVisitor`, but for a command's own fields.
struct CommandVisitor;

impl<'de> serde::de::Visitor<'de> for CommandVisitor {
    type Value = Node;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<Node, E> {
        NodeVisitor.visit_bool(v)
    }

    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Node, E> {
        NodeVisitor.visit_i64(v)
    }

    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Node, E> {
        NodeVisitor.visit_u64(v)
    }

    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Node, E> {
        NodeVisitor.visit_f64(v)
    }

    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Node, E> {
        NodeVisitor.visit_str(v)
    }

    fn visit_string<E: serde::de::Error>(self, v: String) -> Result<Node, E> {
        NodeVisitor.visit_string(v)
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<Node, E> {
        NodeVisitor.visit_unit()
    }

    fn visit_none<E: serde::de::Error>(self) -> Result<Node, E> {
        NodeVisitor.visit_none()
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, seq: A) -> Result<Node, A::Error> {
        NodeVisitor.visit_seq(seq)
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
        let mut fields = Vec::new();
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            if !fields.is_empty() && UNREAD.contains(&key.as_ref()) {
                map.next_value::<serde::de::IgnoredAny>()?;
            } else {
                fields.push((key.into_owned(), map.next_value::<Node>()?));
            }
        }
        Ok(Node::from_wrapper(&fields).unwrap_or(Node::Object(fields)))
    }
}
