//! The structured log of mongod and mongos 4.4 and later: one JSON object per
//! line. Operations are the `"Slow query"` entries (id 51803): `attr.ns`,
//! `attr.command`, `attr.planSummary`, the examined and returned counts,
//! `attr.durationMillis`, `attr.errCode`. A write is logged once per
//! statement as a WRITE entry (`attr.type` `update` or `remove`, the
//! statement in `attr.command`) and once more as a COMMAND entry on
//! `db.$cmd` without its statements; the collector keeps one of the two.

use super::entry::{Entry, Metrics};
use super::legacy_line::{Line, clip};
use super::node::{Command, Node, from_json};
use super::problem::Reason;
use super::timestamp::parse_iso;
use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::Value;
use std::borrow::Cow;

/// Reads one line that starts with `{`.
pub(super) fn read(line: &str, keep_example: bool) -> Line {
    let trimmed = line.trim_end();
    // Most lines of a busy log are not operations: look for the message
    // before paying for a parse.
    if !trimmed.contains("\"Slow query\"") {
        return if trimmed.ends_with('}') {
            Line::Other
        } else {
            Line::Unreadable(Reason::CutShort)
        };
    }
    if keep_example {
        read_value(trimmed)
    } else {
        read_typed(trimmed)
    }
}

/// The fields of an entry the reader uses; the rest (locks, storage, …) is
/// skipped without being built, and the command is read straight into a `Node`.
#[derive(Deserialize)]
struct RawLine<'a> {
    #[serde(borrow)]
    t: Option<Time<'a>>,
    #[serde(borrow)]
    c: Option<Cow<'a, str>>,
    #[serde(borrow)]
    ctx: Option<Cow<'a, str>>,
    #[serde(borrow)]
    msg: Option<Cow<'a, str>>,
    #[serde(borrow)]
    attr: Option<RawAttr<'a>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawAttr<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow)]
    ns: Option<Cow<'a, str>>,
    command: Option<Command>,
    originating_command: Option<Command>,
    #[serde(borrow)]
    plan_summary: Option<Cow<'a, str>>,
    keys_examined: Option<f64>,
    docs_examined: Option<f64>,
    nreturned: Option<f64>,
    duration_millis: Option<f64>,
    has_sort_stage: Option<Flag>,
    err_code: Option<f64>,
    truncated: Option<IgnoredAny>,
}

/// The entry's time (`"t": {"$date": "…"}`): any JSON value, of which only
/// the text of a `$date` key is kept (the last one, as `serde_json::Value`
/// would), without building a map for every line.
struct Time<'a> {
    date: Option<Cow<'a, str>>,
}

impl<'de: 'a, 'a> Deserialize<'de> for Time<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Time<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Time<'de>, A::Error> {
                let mut date = None;
                while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                    if key == "$date" {
                        date = map.next_value::<Any<'de>>()?.0;
                    } else {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
                Ok(Time { date })
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                seq: A,
            ) -> Result<Time<'de>, A::Error> {
                IgnoredAny.visit_seq(seq)?;
                Ok(Time { date: None })
            }
            fn visit_bool<E>(self, _: bool) -> Result<Time<'de>, E> {
                Ok(Time { date: None })
            }
            fn visit_i64<E>(self, _: i64) -> Result<Time<'de>, E> {
                Ok(Time { date: None })
            }
            fn visit_u64<E>(self, _: u64) -> Result<Time<'de>, E> {
                Ok(Time { date: None })
            }
            fn visit_f64<E>(self, _: f64) -> Result<Time<'de>, E> {
                Ok(Time { date: None })
            }
            fn visit_str<E>(self, _: &str) -> Result<Time<'de>, E> {
                Ok(Time { date: None })
            }
            fn visit_unit<E>(self) -> Result<Time<'de>, E> {
                Ok(Time { date: None })
            }
        }
        d.deserialize_any(V)
    }
}

/// Any JSON value, kept only when it is a string.
struct Any<'a>(Option<Cow<'a, str>>);

impl<'de: 'a, 'a> Deserialize<'de> for Any<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Any<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Any<'de>, E> {
                Ok(Any(Some(Cow::Borrowed(v))))
            }
            fn visit_str<E>(self, v: &str) -> Result<Any<'de>, E> {
                Ok(Any(Some(Cow::Owned(v.to_string()))))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<Any<'de>, A::Error> {
                IgnoredAny.visit_map(map)?;
                Ok(Any(None))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, seq: A) -> Result<Any<'de>, A::Error> {
                IgnoredAny.visit_seq(seq)?;
                Ok(Any(None))
            }
            fn visit_bool<E>(self, _: bool) -> Result<Any<'de>, E> {
                Ok(Any(None))
            }
            fn visit_i64<E>(self, _: i64) -> Result<Any<'de>, E> {
                Ok(Any(None))
            }
            fn visit_u64<E>(self, _: u64) -> Result<Any<'de>, E> {
                Ok(Any(None))
            }
            fn visit_f64<E>(self, _: f64) -> Result<Any<'de>, E> {
                Ok(Any(None))
            }
            fn visit_unit<E>(self) -> Result<Any<'de>, E> {
                Ok(Any(None))
            }
        }
        d.deserialize_any(V)
    }
}

/// `hasSortStage`: true for `true` and for the integer 1 (any other value,
/// of any type, is false).
struct Flag(bool);

impl<'de> Deserialize<'de> for Flag {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Flag;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_bool<E>(self, v: bool) -> Result<Flag, E> {
                Ok(Flag(v))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Flag, E> {
                Ok(Flag(v == 1))
            }
            fn visit_i64<E>(self, _: i64) -> Result<Flag, E> {
                Ok(Flag(false))
            }
            fn visit_f64<E>(self, _: f64) -> Result<Flag, E> {
                Ok(Flag(false))
            }
            fn visit_str<E>(self, _: &str) -> Result<Flag, E> {
                Ok(Flag(false))
            }
            fn visit_unit<E>(self) -> Result<Flag, E> {
                Ok(Flag(false))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<Flag, A::Error> {
                IgnoredAny.visit_map(map)?;
                Ok(Flag(false))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, seq: A) -> Result<Flag, A::Error> {
                IgnoredAny.visit_seq(seq)?;
                Ok(Flag(false))
            }
        }
        d.deserialize_any(V)
    }
}

/// A count as mongod writes it (an integer, sometimes a double).
fn count(v: Option<f64>) -> Option<u64> {
    v.filter(|n| n.is_finite() && *n >= 0.0).map(|n| n as u64)
}

fn read_typed(trimmed: &str) -> Line {
    let raw: RawLine<'_> = match serde_json::from_str(trimmed) {
        Ok(v) => v,
        Err(e) if e.is_eof() => return Line::Unreadable(Reason::CutShort),
        Err(_) => return Line::Unreadable(Reason::Corrupt),
    };
    if raw.msg.as_deref() != Some("Slow query") {
        return Line::Other;
    }
    let Some(attr) = raw.attr else {
        return Line::Unreadable(Reason::Corrupt);
    };
    if attr.truncated.is_some() {
        return Line::Unreadable(Reason::TruncatedByMongod);
    }
    let (Some(ns), Some(Command(command))) = (attr.ns, attr.command) else {
        return Line::Other;
    };
    if command.as_str().is_some_and(|s| s.contains("###")) {
        return Line::Unreadable(Reason::Redacted);
    }
    let time = raw
        .t
        .and_then(|t| t.date)
        .and_then(|d| parse_iso(&d))
        .map(|(ms, _)| ms);
    let kind = attr.kind.as_deref().unwrap_or("command");
    let write_statement = raw.c.as_deref() == Some("WRITE") && matches!(kind, "update" | "remove");
    let coll = ns.split_once('.').map_or("", |(_, c)| c);
    let mut folded_getmore = false;
    let command = if write_statement {
        statement(kind, coll, command)
    } else {
        match attr.originating_command {
            Some(Command(origin)) if command.first_key() == Some("getMore") => {
                folded_getmore = true;
                origin
            }
            _ => command,
        }
    };
    let has_sort_stage = attr.has_sort_stage.is_some_and(|f| f.0);
    Line::Operation(Box::new(Entry {
        time,
        ns: ns.into_owned(),
        command,
        folded_getmore,
        metrics: Metrics {
            duration_ms: count(attr.duration_millis),
            keys_examined: count(attr.keys_examined),
            docs_examined: count(attr.docs_examined),
            returned: count(attr.nreturned),
            in_memory_sort: has_sort_stage,
            error_code: attr.err_code.filter(|n| n.is_finite()).map(|n| n as i64),
        },
        plan: attr.plan_summary.map(Cow::into_owned),
        connection: raw.ctx.map(Cow::into_owned),
        write_statement,
        example: None,
    }))
}

/// A WRITE entry's command is one statement (`{q, u, multi}`): as the
/// command that carries it.
pub(super) fn statement(kind: &str, coll: &str, statement: Node) -> Node {
    let (name, list) = if kind == "update" {
        ("update", "updates")
    } else {
        ("delete", "deletes")
    };
    Node::Object(vec![
        (name.to_string(), Node::Str(coll.to_string())),
        (list.to_string(), Node::Array(vec![statement])),
    ])
}

/// The same as `read_typed` through a `serde_json::Value`, which keeps the
/// filter's text for `--show-values`.
fn read_value(trimmed: &str) -> Line {
    let value: Value = match serde_json::from_str(trimmed) {
        Ok(v) => v,
        Err(e) if e.is_eof() => return Line::Unreadable(Reason::CutShort),
        Err(_) => return Line::Unreadable(Reason::Corrupt),
    };
    if value.get("msg").and_then(Value::as_str) != Some("Slow query") {
        return Line::Other;
    }
    let Some(attr) = value.get("attr") else {
        return Line::Unreadable(Reason::Corrupt);
    };
    if attr.get("truncated").is_some() {
        return Line::Unreadable(Reason::TruncatedByMongod);
    }
    let Some(ns) = attr.get("ns").and_then(Value::as_str) else {
        return Line::Other;
    };
    let Some(raw_command) = attr.get("command") else {
        return Line::Other;
    };
    if raw_command.as_str().is_some_and(|s| s.contains("###")) {
        return Line::Unreadable(Reason::Redacted);
    }
    let time = value
        .get("t")
        .and_then(|t| t.get("$date"))
        .and_then(Value::as_str)
        .and_then(parse_iso)
        .map(|(ms, _)| ms);
    let component = value.get("c").and_then(Value::as_str).unwrap_or("");
    let kind = attr
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("command");
    let write_statement = component == "WRITE" && matches!(kind, "update" | "remove");
    let coll = ns.split_once('.').map_or("", |(_, c)| c);
    let mut folded_getmore = false;
    let command = if write_statement {
        // The WRITE entry's command is one statement (`{q, u, multi}`).
        statement(kind, coll, Command::from_node(from_json(raw_command, 0)))
    } else {
        let command = Command::from_node(from_json(raw_command, 0));
        match attr.get("originatingCommand") {
            Some(origin) if command.first_key() == Some("getMore") => {
                folded_getmore = true;
                Command::from_node(from_json(origin, 0))
            }
            _ => command,
        }
    };
    let number = |key: &str| count(attr.get(key).and_then(Value::as_f64));
    let metrics = Metrics {
        duration_ms: number("durationMillis"),
        keys_examined: number("keysExamined"),
        docs_examined: number("docsExamined"),
        returned: number("nreturned"),
        in_memory_sort: attr
            .get("hasSortStage")
            .is_some_and(|v| v.as_bool() == Some(true) || v.as_u64() == Some(1)),
        error_code: attr
            .get("errCode")
            .and_then(Value::as_f64)
            .filter(|n| n.is_finite())
            .map(|n| n as i64),
    };
    let filter = raw_command
        .get("filter")
        .or_else(|| raw_command.get("q"))
        .or_else(|| raw_command.get("query"))
        .or_else(|| raw_command.get("pipeline"))
        .unwrap_or(raw_command);
    let example = Some(clip(&filter.to_string()));
    Line::Operation(Box::new(Entry {
        time,
        ns: ns.to_string(),
        command,
        folded_getmore,
        metrics,
        plan: attr
            .get("planSummary")
            .and_then(Value::as_str)
            .map(str::to_string),
        connection: value.get("ctx").and_then(Value::as_str).map(str::to_string),
        write_statement,
        example,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(line: &str) -> Entry {
        match read(line, false) {
            Line::Operation(e) => *e,
            other => panic!("{other:?}"),
        }
    }

    const FIND: &str = r#"{"t":{"$date":"2023-09-23T16:25:13.475-04:00"},"s":"I","c":"COMMAND","id":51803,"ctx":"conn25","msg":"Slow query","attr":{"type":"command","ns":"shop.cars","command":{"find":"cars","filter":{"color":"Red"},"sort":{"brand":-1},"$db":"shop"},"planSummary":"IXSCAN { color: 1, brand: 1 }","keysExamined":101,"docsExamined":0,"hasSortStage":true,"nreturned":101,"durationMillis":7}}"#;

    #[test]
    fn slow_query_find() {
        let e = entry(FIND);
        assert_eq!(e.ns, "shop.cars");
        assert_eq!(e.time, parse_iso("2023-09-23T20:25:13.475Z").map(|t| t.0));
        assert_eq!(e.plan.as_deref(), Some("IXSCAN { color: 1, brand: 1 }"));
        assert_eq!(e.metrics.duration_ms, Some(7));
        assert_eq!(e.metrics.keys_examined, Some(101));
        assert!(e.metrics.in_memory_sort);
        assert!(!e.write_statement);
        assert!(e.example.is_none());
        match read(FIND, true) {
            Line::Operation(e) => assert_eq!(e.example.as_deref(), Some(r#"{"color":"Red"}"#)),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn write_statement_and_getmore() {
        let w = entry(
            r#"{"t":{"$date":"2023-09-23T16:25:13.420-04:00"},"s":"I","c":"WRITE","id":51803,"ctx":"conn22","msg":"Slow query","attr":{"type":"update","ns":"shop.dealers","command":{"q":{"_id":"D-1"},"u":{"$set":{"name":"A"}},"multi":false,"upsert":true},"planSummary":"IDHACK","keysExamined":1,"docsExamined":1,"nMatched":1,"durationMillis":11}}"#,
        );
        assert!(w.write_statement);
        assert_eq!(w.command.first_key(), Some("update"));
        let g = entry(
            r#"{"t":{"$date":"2023-09-23T16:25:13.420-04:00"},"c":"COMMAND","ctx":"conn2","msg":"Slow query","attr":{"type":"command","ns":"shop.cars","command":{"getMore":12,"collection":"cars"},"originatingCommand":{"find":"cars","filter":{"a":1}},"nreturned":5,"durationMillis":1}}"#,
        );
        assert!(g.folded_getmore);
        assert_eq!(g.command.first_key(), Some("find"));
    }

    /// Both readers (the fast one and the one that keeps examples) agree.
    #[test]
    fn both_paths_agree() {
        let getmore = r#"{"t":{"$date":"2023-09-23T16:25:13.420-04:00"},"c":"COMMAND","ctx":"conn2","msg":"Slow query","attr":{"type":"command","ns":"shop.cars","command":{"getMore":12,"collection":"cars"},"originatingCommand":{"find":"cars","filter":{"a":{"$regularExpression":{"pattern":"x","options":""}}}},"nreturned":5.0,"errCode":50,"durationMillis":1}}"#;
        let write = r#"{"t":{"$date":"2023-09-23T16:25:13.420Z"},"c":"WRITE","ctx":"conn22","msg":"Slow query","attr":{"type":"remove","ns":"shop.d","command":{"q":{"_id":{"$oid":"65f2"}},"limit":1},"planSummary":"IDHACK","keysExamined":1,"durationMillis":11}}"#;
        // The time and the sort flag in every form a line may hold.
        let odd: Vec<String> = [
            (
                r#""t":{"$date":"2023-09-23T16:25:13.475Z","$date":5}"#,
                "true",
            ),
            (
                r#""t":{"x":[1,{"$date":"y"}],"$date":"2023-09-23T16:25:13Z"}"#,
                "1",
            ),
            (r#""t":"2023-09-23T16:25:13Z""#, "1.0"),
            (r#""t":null"#, "{\"a\":[true]}"),
            (r#""t":[{"$date":"2023-09-23T16:25:13Z"}]"#, "null"),
            (r#""t":{"$d\u0061te":"2023-09-23T16:25:13Z"}"#, "-1"),
        ]
        .iter()
        .map(|(t, sorted)| {
            FIND.replacen(r#""t":{"$date":"2023-09-23T16:25:13.475-04:00"}"#, t, 1)
                .replacen(
                    r#""hasSortStage":true"#,
                    &format!(r#""hasSortStage":{sorted}"#),
                    1,
                )
        })
        .collect();
        assert!(odd.iter().all(|l| l != FIND));
        for line in [FIND, getmore, write]
            .into_iter()
            .chain(odd.iter().map(String::as_str))
        {
            let (Line::Operation(fast), Line::Operation(slow)) =
                (read(line, false), read(line, true))
            else {
                panic!("{line}");
            };
            assert_eq!(
                *fast,
                Entry {
                    example: None,
                    ..*slow
                }
            );
        }
    }

    #[test]
    fn unreadable_lines_say_why() {
        let cut = &FIND[..FIND.len() - 30];
        assert_eq!(read(cut, false), Line::Unreadable(Reason::CutShort));
        let corrupt = FIND.replace("\"keysExamined\":101", "\"keysExamined\":1 01");
        assert_eq!(read(&corrupt, false), Line::Unreadable(Reason::Corrupt));
        let truncated = FIND.replace("\"durationMillis\":7", "\"durationMillis\":7,\"truncated\":{\"command\":{\"filter\":{\"type\":\"object\",\"size\":9000}}}");
        assert_eq!(
            read(&truncated, false),
            Line::Unreadable(Reason::TruncatedByMongod)
        );
        assert_eq!(
            read(
                r#"{"t":{"$date":"2023-09-23T16:25:13.420-04:00"},"c":"NETWORK","msg":"Connection ended"}"#,
                false
            ),
            Line::Other
        );
        assert_eq!(
            read(
                r#"{"t":{"$date":"2023-09-23T16:25:13.420-04:00"},"c":"NETW"#,
                false
            ),
            Line::Unreadable(Reason::CutShort)
        );
    }
}
