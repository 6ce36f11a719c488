//! The legacy text format of mongod and mongos 2.4–4.2:
//!
//! ```text
//! 2019-06-18T12:02:00.506+0100 I COMMAND  [conn1] command shop.orders appName: "x" command: find { find: "orders", filter: { a: 1 } } planSummary: IXSCAN { a: 1 } keysExamined:1 docsExamined:1 nreturned:1 … 12ms
//! Wed Mar  5 17:14:57.407 [conn4] query test.docs query: { query: { foo: 33.0 }, orderby: { foo: -1.0 } } nscanned:100000 scanAndOrder:1 nreturned:1 29ms
//! ```
//!
//! An operation line is a timestamp, an optional severity and component, the
//! context in brackets, the operation (`query`, `getmore`, `command`,
//! `update`, `insert`, `remove`), the namespace, `key: value` pairs, and the
//! duration. Other lines (start-up, connections, replication) are not
//! operations and are passed over.

use super::entry::{Entry, Metrics};
use super::node::{Node, Scalar};
use super::problem::Reason;
use super::shape::COMMANDS;
use super::shell_syntax::{SyntaxError, parse_value_at};
use super::timestamp::{parse_ctime, parse_iso};

/// What one text line holds.
#[derive(Debug, PartialEq)]
pub(super) enum Line {
    Operation(Box<Entry>),
    /// A log line, but not an operation.
    Other,
    Unreadable(Reason),
}

const OPERATIONS: &[&str] = &["query", "getmore", "command", "update", "insert", "remove"];

/// Reads one line (without its newline); `keep_example` keeps the command's
/// text (`--show-values`).
pub(super) fn read(line: &str, keep_example: bool) -> Line {
    let Some((time, after_time)) = parse_iso(line).or_else(|| parse_ctime(line)) else {
        return Line::Unreadable(Reason::NotALogLine);
    };
    let rest = line.get(after_time..).unwrap_or("");
    let Some(open) = rest.find('[') else {
        return Line::Other;
    };
    // Between the time and the context: nothing, or a severity and a component.
    if rest
        .get(..open)
        .is_some_and(|s| s.split_whitespace().count() > 2)
    {
        return Line::Other;
    }
    let after_open = rest.get(open + 1..).unwrap_or("");
    let Some(close) = after_open.find(']') else {
        return Line::Other;
    };
    let body_start = after_time + open + 1 + close + 1;
    let body = line.get(body_start..).unwrap_or("");
    let mut words = body.split_whitespace();
    let (Some(op), Some(ns)) = (words.next(), words.next()) else {
        return Line::Other;
    };
    if !OPERATIONS.contains(&op) || !ns.contains('.') {
        return Line::Other;
    }
    let connection = after_open.get(..close).unwrap_or("").to_string();
    let Some(duration_ms) = trailing_duration(body) else {
        return Line::Unreadable(Reason::CutShort);
    };
    // Where the namespace word ends: it is a piece of `body` (and the
    // operation's name before it has no dot, so no earlier text is it).
    let ns_end = ns.as_ptr() as usize - body.as_ptr() as usize + ns.len();
    let mut fields = match Fields::read(body, ns_end) {
        Ok(f) => f,
        Err(reason) => return Line::Unreadable(reason),
    };
    let metrics = Metrics {
        duration_ms: Some(duration_ms),
        ..fields.metrics
    };
    let coll = ns.split_once('.').map_or("", |(_, c)| c).to_string();
    let (command, folded_getmore) = match normalize(op, &coll, &mut fields) {
        Ok(c) => c,
        Err(reason) => return Line::Unreadable(reason),
    };
    let example = if keep_example {
        fields
            .example
            .map(|(from, to)| clip(body.get(from..to).unwrap_or("")))
    } else {
        None
    };
    Line::Operation(Box::new(Entry {
        time: Some(time),
        ns: ns.to_string(),
        command,
        folded_getmore,
        metrics,
        plan: fields.plan,
        connection: Some(connection),
        // 2.6–4.2 log each statement of a write command on its own line
        // (`update shop.users query: …`) and the command again on `db.$cmd`.
        write_statement: matches!(op, "update" | "remove" | "insert"),
        example,
    }))
}

/// The example text of a filter, at most 1,000 bytes (cut on a character boundary).
pub(super) fn clip(text: &str) -> String {
    let mut end = text.len().min(1000);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.get(..end).unwrap_or("").to_string()
}

/// The `NNNms` that ends every operation line.
fn trailing_duration(body: &str) -> Option<u64> {
    let last = body.trim_end().rsplit(char::is_whitespace).next()?;
    last.strip_suffix("ms")?.parse().ok()
}

/// The parts of an operation line the shape and statistics need.
#[derive(Default)]
struct Fields {
    query: Option<Node>,
    command: Option<Node>,
    update: Option<Node>,
    originating: Option<Node>,
    plan: Option<String>,
    metrics: Metrics,
    /// Byte range of the query or command object, for `--show-values`.
    example: Option<(usize, usize)>,
}

impl Fields {
    fn read(body: &str, from: usize) -> Result<Fields, Reason> {
        let bytes = body.as_bytes();
        let mut f = Fields::default();
        let mut pos = from;
        loop {
            while bytes.get(pos).is_some_and(u8::is_ascii_whitespace) {
                pos += 1;
            }
            if pos >= bytes.len() {
                break;
            }
            let start = pos;
            while bytes
                .get(pos)
                .is_some_and(|b| !b.is_ascii_whitespace() && *b != b':' && *b != b'{')
            {
                pos += 1;
            }
            if bytes.get(pos) != Some(&b':') {
                // A word that is not a key (`locks(micros)`, exception text): skip it.
                if bytes.get(pos) == Some(&b'{') {
                    match skip_balanced(bytes, pos) {
                        Some(end) => pos = end,
                        None => break,
                    }
                } else if pos == start {
                    pos += 1;
                }
                continue;
            }
            let key = body.get(start..pos).unwrap_or("");
            pos += 1;
            while bytes.get(pos) == Some(&b' ') {
                pos += 1;
            }
            match key {
                "planSummary" => {
                    let (plan, end) = read_plan(body, pos);
                    f.plan = Some(plan);
                    pos = end;
                }
                "query" | "command" | "update" | "updateobj" | "originatingCommand" => {
                    let mut name = None;
                    if key == "command" && bytes.get(pos) != Some(&b'{') {
                        // `command: find { … }`: the command's name, then its
                        // object, which names it again as its first key.
                        let end = body
                            .get(pos..)
                            .and_then(|s| s.find(' '))
                            .map_or(bytes.len(), |i| pos + i);
                        name = body.get(pos..end);
                        pos = end;
                        while bytes.get(pos) == Some(&b' ') {
                            pos += 1;
                        }
                    }
                    if bytes.get(pos) != Some(&b'{') {
                        continue;
                    }
                    if let Some(name) = name.filter(|n| !COMMANDS.contains(n)) {
                        // Not a read or write of a collection (`isMaster`,
                        // `buildInfo`): its name is all the report keeps, so
                        // its object is skipped, not read.
                        let Some(end) = skip_balanced(bytes, pos) else {
                            return Err(Reason::CutShort);
                        };
                        f.command = Some(Node::Object(vec![(
                            name.to_string(),
                            Node::Other(Scalar::Null),
                        )]));
                        pos = end;
                        continue;
                    }
                    let (node, end) = parse_value_at(body, pos).map_err(|(e, _)| match e {
                        SyntaxError::Elided => Reason::TruncatedByMongod,
                        SyntaxError::Unterminated => Reason::CutShort,
                        SyntaxError::TooDeep | SyntaxError::Unexpected => Reason::Corrupt,
                    })?;
                    if key != "originatingCommand"
                        && key != "update"
                        && key != "updateobj"
                        && f.example.is_none()
                    {
                        f.example = Some((pos, end));
                    }
                    match key {
                        "query" => f.query = Some(node),
                        "command" => f.command = Some(node),
                        "originatingCommand" => f.originating = Some(node),
                        _ => f.update = Some(node),
                    }
                    pos = end;
                }
                _ => {
                    let value_end = match bytes.get(pos) {
                        Some(b'{') => match skip_balanced(bytes, pos) {
                            Some(end) => end,
                            None => break,
                        },
                        Some(b'"') => match body.get(pos + 1..).and_then(|s| s.find('"')) {
                            Some(i) => pos + 1 + i + 1,
                            None => break,
                        },
                        _ => body
                            .get(pos..)
                            .and_then(|s| s.find(char::is_whitespace))
                            .map_or(bytes.len(), |i| pos + i),
                    };
                    let value = body.get(pos..value_end).unwrap_or("");
                    f.metric(key, value);
                    pos = value_end;
                }
            }
        }
        Ok(f)
    }

    fn metric(&mut self, key: &str, value: &str) {
        let n = || value.parse::<u64>().ok();
        let m = &mut self.metrics;
        match key {
            "keysExamined" | "nscanned" => m.keys_examined = n(),
            "docsExamined" | "nscannedObjects" => m.docs_examined = n(),
            "nreturned" => m.returned = n(),
            "hasSortStage" | "scanAndOrder" => m.in_memory_sort = value == "1" || value == "true",
            "errCode" | "code" => m.error_code = value.parse().ok(),
            _ => {}
        }
    }
}

/// Skips a `{ … }` group (with quoted strings), returning the offset past it.
/// Jumps from one brace or quote to the next (`locks:{ … }` is most of a
/// long line), and inside a string from one quote or backslash to the next.
fn skip_balanced(bytes: &[u8], from: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = from;
    loop {
        let at = i + memchr::memchr3(b'"', b'{', b'}', bytes.get(i..)?)?;
        match bytes[at] {
            b'"' => {
                let mut j = at + 1;
                loop {
                    let k = j + memchr::memchr2(b'"', b'\\', bytes.get(j..)?)?;
                    if bytes[k] == b'\\' {
                        j = k + 2;
                    } else {
                        i = k + 1;
                        break;
                    }
                }
            }
            b'{' => {
                depth += 1;
                i = at + 1;
            }
            _ => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(at + 1);
                }
                i = at + 1;
            }
        }
    }
}

/// `COLLSCAN`, `IXSCAN { a: 1 }`, `IXSCAN { a: 1 }, IXSCAN { b: 1 }`: stage
/// names in capitals, each with an optional key pattern, joined by commas.
fn read_plan(body: &str, from: usize) -> (String, usize) {
    let bytes = body.as_bytes();
    let mut pos = from;
    loop {
        // A stage's name may hold digits after its first letter
        // (`GEO_NEAR_2DSPHERE`, `GEO_NEAR_2D`).
        let name_start = pos;
        while bytes.get(pos).is_some_and(|b| {
            b.is_ascii_uppercase() || *b == b'_' || (pos > name_start && b.is_ascii_digit())
        }) {
            pos += 1;
        }
        let mut look = pos;
        while bytes.get(look) == Some(&b' ') {
            look += 1;
        }
        if bytes.get(look) == Some(&b'{') {
            match skip_balanced(bytes, look) {
                Some(end) => pos = end,
                None => break,
            }
        }
        if bytes.get(pos) == Some(&b',') && bytes.get(pos + 2).is_some_and(u8::is_ascii_uppercase) {
            pos += 2;
            continue;
        }
        break;
    }
    (body.get(from..pos).unwrap_or("").trim().to_string(), pos)
}

/// The operation as a modern command: `{find: c, filter, sort}` for a legacy
/// query, `{update: c, updates: [{q, u}]}` for a legacy update, and so on.
/// Whether it is a getMore folded into its originating command comes second.
fn normalize(op: &str, coll: &str, f: &mut Fields) -> Result<(Node, bool), Reason> {
    let name = |s: &str| (s.to_string(), Node::Str(coll.to_string()));
    let statement = |q: Option<Node>, u: Option<Node>| {
        let mut s = Vec::new();
        if let Some(q) = q {
            s.push(("q".to_string(), q));
        }
        if let Some(u) = u {
            s.push(("u".to_string(), u));
        }
        Node::Object(s)
    };
    match op {
        "query" | "getmore" => {
            let Some(query) = f.query.take() else {
                return if op == "getmore" {
                    Ok((
                        Node::Object(vec![
                            (
                                "getMore".into(),
                                Node::Number {
                                    negative: false,
                                    zero: false,
                                    value: None,
                                },
                            ),
                            ("collection".into(), Node::Str(coll.to_string())),
                        ]),
                        false,
                    ))
                } else {
                    Ok((Node::Object(vec![name("find")]), false))
                };
            };
            Ok((find_from_query(coll, query), op == "getmore"))
        }
        "update" => {
            let stmt = match f.command.take() {
                Some(c) => c,
                None => statement(f.query.take(), f.update.take()),
            };
            Ok((
                Node::Object(vec![
                    name("update"),
                    ("updates".into(), Node::Array(vec![stmt])),
                ]),
                false,
            ))
        }
        "remove" => {
            let stmt = match f.command.take() {
                Some(c) => c,
                None => statement(f.query.take(), None),
            };
            Ok((
                Node::Object(vec![
                    name("delete"),
                    ("deletes".into(), Node::Array(vec![stmt])),
                ]),
                false,
            ))
        }
        "insert" => Ok((Node::Object(vec![name("insert")]), false)),
        _ => {
            let Some(command) = f.command.take() else {
                return Err(Reason::Corrupt);
            };
            if command.first_key() == Some("$msg") {
                return Err(Reason::Redacted);
            }
            if command.first_key() == Some("getMore")
                && let Some(origin) = f.originating.take()
            {
                return Ok((origin, true));
            }
            Ok((command, false))
        }
    }
}

/// A legacy query (`{ query: F, orderby: S }`, `{ $query: F, $orderby: S }`
/// or a bare filter) as a find command.
fn find_from_query(coll: &str, query: Node) -> Node {
    let wrapped = matches!(query.first_key(), Some("query" | "$query"))
        && matches!(
            query.fields().first().map(|(_, v)| v),
            Some(Node::Object(_))
        );
    let mut cmd = vec![("find".to_string(), Node::Str(coll.to_string()))];
    match query {
        Node::Object(fields) if wrapped => {
            for (k, v) in fields {
                match k.as_str() {
                    "query" | "$query" => cmd.push(("filter".into(), v)),
                    "orderby" | "$orderby" => cmd.push(("sort".into(), v)),
                    _ => {}
                }
            }
        }
        query => cmd.push(("filter".into(), query)),
    }
    Node::Object(cmd)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `skip_balanced` as it was, one byte at a time: the reference.
    fn skip_balanced_bytewise(bytes: &[u8], from: usize) -> Option<usize> {
        let mut depth = 0usize;
        let mut quote = None;
        let mut escaped = false;
        for (i, &b) in bytes.iter().enumerate().skip(from) {
            match quote {
                Some(q) => {
                    if escaped {
                        escaped = false;
                    } else if b == b'\\' {
                        escaped = true;
                    } else if b == q {
                        quote = None;
                    }
                }
                None => match b {
                    b'"' => quote = Some(b),
                    b'{' => depth += 1,
                    b'}' => {
                        depth = depth.checked_sub(1)?;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                },
            }
        }
        None
    }

    #[test]
    fn skip_balanced_jumps_like_it_walks() {
        let samples = [
            r#"{ a: { b: "x}y" }, c: "q\"}" } tail"#,
            r#"{ "\\" } {"#,
            r#"locks:{ Global: { acquireCount: { r: 2 } }, Database: { acquireCount: { r: 1 } } } 5ms"#,
            r#"{ a: "unterminated }"#,
            r#"} { "\"#,
            "{{}}{}\"\\\"}",
        ];
        for text in samples {
            let bytes = text.as_bytes();
            for from in 0..=bytes.len() + 1 {
                for end in from..=bytes.len() {
                    assert_eq!(
                        skip_balanced(&bytes[..end], from),
                        skip_balanced_bytewise(&bytes[..end], from),
                        "{text:?} {from}..{end}"
                    );
                }
            }
        }
    }

    fn entry(line: &str) -> Entry {
        match read(line, false) {
            Line::Operation(e) => *e,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn modern_text_find_with_plan_and_metrics() {
        let e = entry(
            r#"2019-06-18T12:02:00.506+0100 I COMMAND  [conn7] command shop.orders appName: "app x" command: find { find: "orders", filter: { status: "A", qty: { $gt: 5 } }, sort: { qty: -1 }, $db: "shop" } planSummary: IXSCAN { status: 1 }, IXSCAN { qty: 1 } keysExamined:12 docsExamined:10 hasSortStage:1 cursorExhausted:1 numYields:0 nreturned:3 reslen:300 locks:{ Global: { acquireCount: { r: 1 } } } protocol:op_msg 12ms"#,
        );
        assert_eq!(e.ns, "shop.orders");
        assert_eq!(e.connection.as_deref(), Some("conn7"));
        assert_eq!(
            e.plan.as_deref(),
            Some("IXSCAN { status: 1 }, IXSCAN { qty: 1 }")
        );
        assert_eq!(
            e.metrics,
            Metrics {
                duration_ms: Some(12),
                keys_examined: Some(12),
                docs_examined: Some(10),
                returned: Some(3),
                in_memory_sort: true,
                error_code: None
            }
        );
        assert_eq!(e.command.first_key(), Some("find"));
        assert!(e.command.get("filter").and_then(|f| f.get("qty")).is_some());
        assert!(e.example.is_none());
    }

    #[test]
    fn old_query_wrapper_becomes_a_find_with_its_sort() {
        let e = entry(
            "Wed Mar  5 17:14:57.407 [conn4] query test.docs query: { query: { foo: 33.0 }, orderby: { foo: -1.0 } } ntoreturn:0 ntoskip:0 nscanned:100000 scanAndOrder:1 keyUpdates:0 locks(micros) r:29773 nreturned:1 reslen:68 29ms",
        );
        assert_eq!(
            e.command.get("sort").and_then(|s| s.get("foo")),
            Some(&Node::Number {
                negative: true,
                zero: false,
                value: Some(-1.0)
            })
        );
        assert_eq!(e.metrics.keys_examined, Some(100_000));
        assert!(e.metrics.in_memory_sort);
    }

    #[test]
    fn legacy_writes_and_getmore() {
        let u = entry(
            r#"2014-04-09T23:25:32.508+0000 [conn3] update shop.users query: { _id: ObjectId('503ead0bf1a5dd0b002fb069') } update: { $push: { tags: "x" } } nscanned:1 nMatched:1 nModified:1 keyUpdates:0 numYields:0 2ms"#,
        );
        assert_eq!(u.command.first_key(), Some("update"));
        let g = entry(
            "Wed Jul 13 16:14:35.324 I QUERY [conn39] getmore db.collection query: { Header._id: null, Header.flag: true } cursorid:47273143030 ntoreturn:0 nreturned:10024 reslen:1929777 220ms",
        );
        assert!(g.folded_getmore);
        assert_eq!(g.command.first_key(), Some("find"));
        let i = entry(
            "Mon Aug  5 20:22:10 [conn4] insert test.docs keyUpdates:0 locks(micros) w:288340 288ms",
        );
        assert_eq!(i.command.first_key(), Some("insert"));
        let gm = entry(
            r#"2019-06-18T12:02:00.506+0100 I COMMAND  [conn7] command shop.orders command: getMore { getMore: 123, collection: "orders" } originatingCommand: { find: "orders", filter: { a: 1 } } planSummary: COLLSCAN nreturned:101 1ms"#,
        );
        assert!(gm.folded_getmore);
        assert_eq!(gm.command.first_key(), Some("find"));
    }

    #[test]
    fn errors_and_exceptions() {
        let e = entry(
            r#"2014-04-09T23:25:32.508+0000 [conn3] insert shop.users ninserted:0 keyUpdates:0 exception: E11000 duplicate key error index: shop.users.$email_1 dup key: { : "a@b.c" } code:11000 numYields:0 0ms"#,
        );
        assert_eq!(e.metrics.error_code, Some(11000));
    }

    #[test]
    fn unreadable_lines_say_why() {
        let cut = "2018-03-28T15:34:44.104-0400 I COMMAND [conn3291] command abc.xyz command: find { find: \"xyz\", filter: { x: 1 } } planSummary: COLLSCAN 369525ms2018-07-04T13:06:03.521+1000 I REPL";
        assert_eq!(read(cut, false), Line::Unreadable(Reason::CutShort));
        let elided = r#"2019-06-18T12:02:00.506+0100 I COMMAND  [conn1] command shop.invoices appName: "B" command: insert {...} planSummary: IXSCAN { a: 1 } nreturned:21 5ms"#;
        assert_eq!(
            read(elided, false),
            Line::Unreadable(Reason::TruncatedByMongod)
        );
        let redacted = "2014-04-09T23:25:32.512+0000 [conn3466] command toothsome.$cmd command: update { $msg: 70f2c4e066bff1d86b0ab4fea0c54fd3 } keyUpdates:0 300ms";
        assert_eq!(read(redacted, false), Line::Unreadable(Reason::Redacted));
        let broken = "2019-06-18T12:02:00.506+0100 I COMMAND  [conn1] command shop.x command: find { find: \"x\", filter: { a b } } 5ms";
        assert_eq!(read(broken, false), Line::Unreadable(Reason::Corrupt));
        assert_eq!(
            read("****************************", false),
            Line::Unreadable(Reason::NotALogLine)
        );
        assert_eq!(
            read("2014-04-0 [conn48] buil", false),
            Line::Unreadable(Reason::NotALogLine)
        );
        assert_eq!(
            read(
                "Wed Mar  5 17:14:24.639 [initandlisten] connection accepted from 127.0.0.1:57498 #1",
                false
            ),
            Line::Other
        );
    }

    #[test]
    fn show_values_keeps_the_filter_text() {
        let line = "2014-04-09T23:25:32.508+0000 [conn3] query shop.users query: { email: \"a@b.c\" } nreturned:1 2ms";
        match read(line, true) {
            Line::Operation(e) => assert_eq!(e.example.as_deref(), Some("{ email: \"a@b.c\" }")),
            other => panic!("{other:?}"),
        }
        match read(line, false) {
            Line::Operation(e) => assert!(e.example.is_none()),
            other => panic!("{other:?}"),
        }
    }
}
