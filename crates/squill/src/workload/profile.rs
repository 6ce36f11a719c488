//! The database profiler's documents (`system.profile`), exported one per
//! line as Extended JSON (`mongoexport --collection system.profile`,
//! relaxed or canonical), or dumped as BSON (`profile_dump`). A document has the operation (`op`), its
//! namespace, the command (for an update or a delete: the one statement
//! `{q, u, multi}`), what the server examined and returned, `millis` and
//! the plan: the same figures as a slow-query line of the log, so the
//! entry it becomes is counted the same way.

use super::entry::{Entry, Metrics};
use super::legacy_line::Line;
use super::node::from_json;
use super::problem::Reason;
use super::timestamp::parse_iso;
use serde_json::Value;

/// Whether a JSON line looks like a profiler document rather than a log
/// line (which has `msg`).
pub(super) fn looks_like(line: &str) -> bool {
    // A log line's `msg` comes early: looked for first, it ends the search
    // soonest on a log.
    !line.contains("\"msg\"") && line.contains("\"millis\"") && line.contains("\"op\"")
}

/// Reads one profiler document.
pub(super) fn read(line: &str, keep_example: bool) -> Line {
    match serde_json::from_str(line.trim_end()) {
        Ok(value) => from_value(&value, keep_example),
        Err(e) if e.is_eof() => Line::Unreadable(Reason::CutShort),
        Err(_) => Line::Unreadable(Reason::Corrupt),
    }
}

/// One profiler document as Extended JSON, relaxed or canonical: a line of
/// a JSON export, or a document of a dump's `.bson` rendered as canonical
/// Extended JSON (`profile_dump`).
pub(super) fn from_value(value: &Value, keep_example: bool) -> Line {
    let (Some(op), Some(ns)) = (
        value.get("op").and_then(Value::as_str),
        value.get("ns").and_then(Value::as_str),
    ) else {
        return Line::Other;
    };
    let Some(raw) = value.get("command") else {
        return Line::Other;
    };
    let coll = ns.split_once('.').map_or("", |(_, c)| c);
    let mut folded_getmore = false;
    let command = match op {
        // One statement, as the command that carries it.
        "update" | "remove" => super::json_line::statement(op, coll, from_json(raw, 0)),
        "getmore" => match value.get("originatingCommand") {
            Some(origin) => {
                folded_getmore = true;
                from_json(origin, 0)
            }
            None => from_json(raw, 0),
        },
        _ => from_json(raw, 0),
    };
    let time = value.get("ts").and_then(date);
    let sorted = value
        .get("hasSortStage")
        .is_some_and(|v| v.as_bool() == Some(true) || number(v) == Some(1.0));
    let example = keep_example.then(|| {
        raw.get("filter")
            .or_else(|| raw.get("q"))
            .unwrap_or(raw)
            .to_string()
    });
    Line::Operation(Box::new(Entry {
        time,
        ns: ns.to_string(),
        command,
        folded_getmore,
        metrics: Metrics {
            duration_ms: count(value.get("millis")),
            keys_examined: count(value.get("keysExamined")),
            docs_examined: count(value.get("docsExamined")),
            returned: count(value.get("nreturned")),
            in_memory_sort: sorted,
            error_code: value.get("errCode").and_then(number).map(|n| n as i64),
        },
        plan: value
            .get("planSummary")
            .and_then(Value::as_str)
            .map(str::to_string),
        // Each document is one whole operation: no entries to pair.
        connection: None,
        write_statement: false,
        example,
    }))
}

/// A number, plain or as canonical Extended JSON (`{"$numberLong": "5"}`).
fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::Object(m) if m.len() == 1 => {
            let (k, x) = m.iter().next()?;
            matches!(k.as_str(), "$numberInt" | "$numberLong" | "$numberDouble")
                .then(|| x.as_str()?.parse().ok())
                .flatten()
        }
        _ => None,
    }
    .filter(|n: &f64| n.is_finite())
}

fn count(v: Option<&Value>) -> Option<u64> {
    v.and_then(number).filter(|n| *n >= 0.0).map(|n| n as u64)
}

/// `{"$date": "2024-…Z"}` or `{"$date": {"$numberLong": "…"}}`, in ms.
fn date(v: &Value) -> Option<i64> {
    let d = v.get("$date")?;
    match d {
        Value::String(s) => parse_iso(s).map(|(ms, _)| ms),
        other => number(other).map(|n| n as i64),
    }
}

#[cfg(test)]
mod tests {
    use super::{looks_like, read};
    use crate::workload::legacy_line::Line;

    #[test]
    fn profiler_documents_become_entries_with_their_figures() {
        let find = r#"{"op":"query","ns":"shop.orders","command":{"find":"orders","filter":{"status":"paid"},"sort":{"at":-1},"limit":{"$numberInt":"10"}},"keysExamined":0,"docsExamined":{"$numberLong":"5000"},"nreturned":10,"hasSortStage":true,"millis":42,"planSummary":"COLLSCAN","ts":{"$date":"2024-03-01T10:00:00.000Z"}}"#;
        assert!(looks_like(find));
        let Line::Operation(e) = read(find, false) else {
            panic!("an operation")
        };
        assert_eq!(e.ns, "shop.orders");
        assert_eq!(e.metrics.docs_examined, Some(5000));
        assert_eq!(e.metrics.duration_ms, Some(42));
        assert!(e.metrics.in_memory_sort);
        assert_eq!(e.plan.as_deref(), Some("COLLSCAN"));
        assert_eq!(e.time, Some(1_709_287_200_000));
        assert_eq!(e.example, None);
        let update = r#"{"op":"update","ns":"shop.orders","command":{"q":{"_id":1},"u":{"$set":{"status":"paid"}}},"keysExamined":1,"docsExamined":1,"millis":3,"ts":{"$date":{"$numberLong":"1709287200000"}}}"#;
        let Line::Operation(u) = read(update, true) else {
            panic!("an operation")
        };
        assert_eq!(u.command.first_key(), Some("update"));
        assert_eq!(u.time, Some(1_709_287_200_000));
        assert!(u.example.is_some());
        assert!(!looks_like(
            r#"{"t":{"$date":"x"},"msg":"Slow query","attr":{"millis":1,"op":2}}"#
        ));
        assert!(matches!(
            read(r#"{"op":"query","ns":"a.b","millis":1"#, false),
            Line::Unreadable(_)
        ));
    }
}
