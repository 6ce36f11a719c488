//! Whole-reader tests: several lines through the collector, gzip, the
//! write dedup, getMore folding, and that no literal value reaches the report.

use super::problem::Reason;
use super::{Options, WorkloadReport, read_bytes};

fn report(text: &str) -> WorkloadReport {
    read_bytes("t.log", text.as_bytes(), Options::default())
}

fn shape_texts(r: &WorkloadReport) -> Vec<String> {
    r.namespaces
        .iter()
        .flat_map(|n| {
            n.shapes
                .iter()
                .map(move |s| format!("{} {} x{}", n.namespace, s.text, s.count))
        })
        .collect()
}

const WRITE: &str = r#"{"t":{"$date":"2023-09-23T16:25:13.420-04:00"},"s":"I","c":"WRITE","id":51803,"ctx":"conn22","msg":"Slow query","attr":{"type":"update","ns":"shop.dealers","command":{"q":{"_id":"DEALER-1"},"u":{"$set":{"name":"Atlanta Auto"}},"multi":false,"upsert":true},"planSummary":"IDHACK","keysExamined":1,"docsExamined":1,"nMatched":1,"durationMillis":11}}"#;
const COMMAND: &str = r#"{"t":{"$date":"2023-09-23T16:25:13.421-04:00"},"s":"I","c":"COMMAND","id":51803,"ctx":"conn22","msg":"Slow query","attr":{"type":"command","ns":"shop.$cmd","command":{"update":"dealers","ordered":true,"$db":"shop"},"numYields":0,"reslen":60,"durationMillis":12}}"#;

#[test]
fn a_write_is_counted_once_not_from_both_entries() {
    let r = report(&format!("{WRITE}\n{COMMAND}\n"));
    assert_eq!(
        shape_texts(&r),
        ["shop.dealers update {_id: eq} $set {name} x1"]
    );
    assert_eq!(r.totals.duplicate_write_commands, 1);
    // Out of order (the command's entry first), still one.
    let reversed = report(&format!("{COMMAND}\n{WRITE}\n"));
    assert_eq!(
        shape_texts(&reversed),
        ["shop.dealers update {_id: eq} $set {name} x1"]
    );
    // A COMMAND entry without a WRITE entry is the only record.
    let alone = report(&format!("{COMMAND}\n"));
    assert_eq!(shape_texts(&alone), ["shop.dealers update x1"]);
    assert_eq!(alone.totals.duplicate_write_commands, 0);
}

#[test]
fn legacy_write_lines_and_their_command_count_once() {
    let text = "\
2014-04-09T23:25:32.500+0000 [conn3] update shop.users query: { _id: 1 } update: { $set: { a: 1 } } nMatched:1 nModified:1 1ms
2014-04-09T23:25:32.508+0000 [conn3] command shop.$cmd command: update { update: \"users\", updates: [ { q: { _id: 1 }, u: { $set: { a: 1 } } } ], ordered: true } keyUpdates:0 reslen:95 2ms
2014-04-09T23:25:32.509+0000 [conn4] command shop.$cmd command: insert { insert: \"users\", documents: 1 } reslen:95 2ms
";
    let r = report(text);
    assert_eq!(
        shape_texts(&r),
        [
            "shop.users insert x1",
            "shop.users update {_id: eq} $set {a} x1"
        ]
    );
    assert_eq!(r.totals.duplicate_write_commands, 1);
}

#[test]
fn getmore_folds_into_its_originating_find() {
    let find = r#"{"t":{"$date":"2023-09-23T16:25:00.000Z"},"c":"COMMAND","ctx":"conn2","msg":"Slow query","attr":{"type":"command","ns":"shop.cars","command":{"find":"cars","filter":{"a":1}},"planSummary":"COLLSCAN","docsExamined":100,"nreturned":101,"durationMillis":5}}"#;
    let more = r#"{"t":{"$date":"2023-09-23T16:25:01.000Z"},"c":"COMMAND","ctx":"conn2","msg":"Slow query","attr":{"type":"command","ns":"shop.cars","command":{"getMore":12,"collection":"cars"},"originatingCommand":{"find":"cars","filter":{"a":2}},"planSummary":"COLLSCAN","docsExamined":50,"nreturned":50,"durationMillis":3}}"#;
    let lone = r#"{"t":{"$date":"2023-09-23T16:25:02.000Z"},"c":"COMMAND","ctx":"conn2","msg":"Slow query","attr":{"type":"command","ns":"shop.cars","command":{"getMore":12,"collection":"cars"},"durationMillis":1}}"#;
    let r = report(&format!("{find}\n{more}\n{lone}\n"));
    assert_eq!(
        shape_texts(&r),
        ["shop.cars find {a: eq} x1", "shop.cars getMore x1"]
    );
    let s = &r.namespaces[0].shapes[0];
    assert_eq!(
        (s.getmores, s.total_ms, s.docs_examined, s.returned),
        (1, 8, 150, 151)
    );
    assert_eq!(
        s.latency_ms.max,
        Some(5),
        "a getMore is not an execution's latency"
    );
    assert_eq!(r.totals.folded_getmores, 1);
    let span = r.span.as_ref().unwrap();
    assert_eq!(span.seconds, 2.0);
}

#[test]
fn legacy_and_json_lines_in_one_report_with_rates_and_plans() {
    let text = "\
2019-06-18T12:00:00.000+0000 I COMMAND  [conn1] command shop.orders command: find { find: \"orders\", filter: { status: \"A\" }, sort: { at: -1 } } planSummary: COLLSCAN keysExamined:0 docsExamined:1000 hasSortStage:1 nreturned:10 100ms
2019-06-18T12:30:00.000+0000 I COMMAND  [conn1] command shop.orders command: find { find: \"orders\", filter: { status: \"B\" }, sort: { at: -1 } } planSummary: COLLSCAN keysExamined:0 docsExamined:1000 hasSortStage:1 nreturned:10 300ms
2019-06-18T13:00:00.000+0000 I COMMAND  [conn1] command shop.orders command: find { find: \"orders\", filter: { status: \"C\" }, sort: { at: -1 } } planSummary: IXSCAN { status: 1 } keysExamined:10 docsExamined:10 nreturned:10 ok:0 errCode:50 errName:MaxTimeMSExpired 200ms
";
    let r = report(text);
    let s = &r.namespaces[0].shapes[0];
    assert_eq!(s.text, "find {status: eq} sort {at: -1}");
    assert_eq!(s.count, 3);
    assert_eq!(s.rate_per_hour, Some(3.0));
    assert_eq!((s.latency_ms.p50, s.latency_ms.max), (Some(200), Some(300)));
    assert_eq!(s.docs_examined_per_returned, Some(2010.0 / 30.0));
    assert_eq!(s.collection_scans(), 2);
    assert_eq!(s.in_memory_sorts, 2);
    assert_eq!(s.errors.len(), 1);
    assert_eq!(s.errors[0].code, Some(50));
    assert_eq!(r.files[0].format, "text");
}

#[test]
fn unreadable_lines_are_counted_with_their_place_and_the_rest_is_read() {
    let cut = &WRITE[..WRITE.len() - 20];
    let text = format!("{WRITE}\n{cut}\n*** garbage ***\n\n{WRITE}\n");
    let r = report(&text);
    assert_eq!(r.namespaces[0].shapes[0].count, 2);
    let places: Vec<(u64, Reason)> = r
        .problems
        .examples
        .iter()
        .map(|p| (p.line, p.reason))
        .collect();
    assert_eq!(places, [(2, Reason::CutShort), (3, Reason::NotALogLine)]);
    assert_eq!(r.totals.unreadable_lines, 2);
    assert_eq!(r.files[0].lines, 5);
}

#[test]
fn gzip_and_truncated_gzip() {
    use std::io::Write;
    let plain = format!("{WRITE}\n").repeat(200);
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(plain.as_bytes()).unwrap();
    let bytes = gz.finish().unwrap();
    let whole = read_bytes("w.log.gz", &bytes, Options::default());
    assert!(whole.files[0].gzip);
    assert_eq!(whole.namespaces[0].shapes[0].count, 200);
    assert_eq!(whole.totals.unreadable_lines, 0);
    let cut = read_bytes("w.log.gz", &bytes[..bytes.len() / 2], Options::default());
    assert_eq!(cut.problems.by_reason.len(), 1);
    assert_eq!(cut.problems.by_reason[0].reason, Reason::TruncatedGzip);
    let read = cut.namespaces.first().map_or(0, |n| n.shapes[0].count);
    assert!(read < 200, "{read}");
}

#[test]
fn values_stay_out_unless_asked_for() {
    let legacy = "2014-04-09T23:25:32.508+0000 [conn3] query shop.users query: { email: \"secret@example.com\", name: /^Jo/i } nreturned:1 2ms";
    let text = format!("{WRITE}\n{legacy}\n");
    let quiet = serde_json::to_string(&report(&text)).unwrap();
    for secret in ["secret@example.com", "DEALER-1", "Atlanta", "^Jo"] {
        assert!(!quiet.contains(secret), "{secret} in {quiet}");
    }
    let shown = serde_json::to_string(&read_bytes(
        "t.log",
        text.as_bytes(),
        Options { show_values: true },
    ))
    .unwrap();
    assert!(shown.contains("secret@example.com") && shown.contains("DEALER-1"));
}

#[test]
fn server_internal_namespaces_and_other_commands_stay_out_of_the_shapes() {
    let text = "\
2019-06-18T12:00:00.000+0000 I COMMAND  [conn1] command admin.$cmd command: isMaster { isMaster: 1.0, $db: \"admin\" } numYields:0 reslen:224 0ms
2019-06-18T12:00:00.000+0000 I COMMAND  [conn1] command local.oplog.rs command: find { find: \"oplog.rs\", filter: { ts: { $gte: Timestamp(1, 1) } } } planSummary: COLLSCAN 1ms
";
    let r = report(text);
    assert!(r.namespaces.is_empty());
    assert_eq!(r.totals.internal_operations, 1);
    assert_eq!(r.other_commands[0].name, "isMaster");
}

#[test]
fn never_panics_on_arbitrary_bytes() {
    let samples: [&[u8]; 6] = [
        b"\xff\xfe\x00garbage\n{\"msg\":\"Slow query\"\n",
        b"{\"msg\":\"Slow query\",\"attr\":{\"ns\":\"a.b\",\"command\":[1,2]}}\n",
        b"{\"msg\":\"Slow query\",\"attr\":{\"ns\":\"a\",\"command\":{\"find\":5}}}\n",
        "2019-06-18T12:00:00.000+0000 I COMMAND [conn1] command a.b command: find { find: \"é\", filter: { \"é\": /é/ } } 1ms\n".as_bytes(),
        b"2019-06-18T12:00:00.000+0000 I COMMAND [conn1] query a. 1ms\n2019-06-18T12:00:00 [ ] getmore . 5ms\n",
        b"\x1f\x8b\x08\x00garbage",
    ];
    for bytes in samples {
        let r = read_bytes("x", bytes, Options::default());
        let _ = serde_json::to_string(&r).unwrap();
    }
    let legacy = "2019-06-18T12:02:00.506+0100 I COMMAND  [conn7] command shop.orders command: find { find: \"orders\", filter: { status: \"A\", qty: { $in: [ 1, 2 ] }, t: /x/ } } planSummary: IXSCAN { status: 1 } keysExamined:12 docsExamined:10 nreturned:3 12ms";
    // Every byte prefix (split characters included) of real lines.
    for line in [WRITE, COMMAND, legacy] {
        for end in 0..line.len() {
            let _ = read_bytes("x", &line.as_bytes()[..end], Options::default());
        }
    }
}

/// The report of `bytes` read in blocks of `block` bytes, lines over
/// `max_line` counted as too long.
fn report_in_blocks(bytes: &[u8], block: usize, max_line: usize) -> String {
    let mut collector = super::collect::Collector::default();
    let limits = super::lines::Limits { block, max_line };
    let summary = super::lines::read(
        bytes,
        "t.log",
        false,
        &Options::default(),
        limits,
        &mut collector,
    );
    collector.file(summary);
    serde_json::to_string_pretty(&collector.finish(false)).unwrap()
}

/// Issue 21: a log is cut into blocks that are parsed on every core; the
/// report is the same whatever the cuts, a write's two entries on either
/// side of one included.
#[test]
fn the_report_is_the_same_in_one_block_and_in_many() {
    let json = include_str!("../../../squill-cli/tests/fixtures/logs/shop-json.log");
    let legacy = include_str!("../../../squill-cli/tests/fixtures/logs/shop-legacy.log");
    let cut = &WRITE[..WRITE.len() - 20];
    let mut text = String::new();
    for i in 0..20 {
        text.push_str(json);
        text.push_str(&format!("{WRITE}\n{COMMAND}\n{COMMAND}\r\n{WRITE}\n\n"));
        text.push_str(legacy);
        text.push_str(&format!("{cut}\n*** garbage {i} ***\n"));
    }
    // The last line has no newline.
    text.push_str(WRITE);
    let whole = report_in_blocks(text.as_bytes(), 1 << 30, 1 << 30);
    let r: serde_json::Value = serde_json::from_str(&whole).unwrap();
    assert!(r["totals"]["operations"].as_u64().unwrap() > 200, "{whole}");
    assert!(r["totals"]["duplicate_write_commands"].as_u64().unwrap() > 40);
    assert_eq!(r["files"][0]["format"], "mixed");
    for block in [1, 2, 3, 7, 64, 100, 333, 4096, 1 << 20] {
        assert_eq!(
            report_in_blocks(text.as_bytes(), block, 1 << 30),
            whole,
            "block of {block} bytes"
        );
    }
    // Lines over a cap are counted the same wherever the cuts fall.
    let capped = report_in_blocks(text.as_bytes(), 1 << 30, 300);
    let r: serde_json::Value = serde_json::from_str(&capped).unwrap();
    assert_eq!(
        r["files"][0]["lines"],
        serde_json::json!(text.lines().count())
    );
    assert!(capped.contains("too-long"), "{capped}");
    for block in [1, 5, 64, 299, 300, 301, 1000, 1 << 20] {
        assert_eq!(
            report_in_blocks(text.as_bytes(), block, 300),
            capped,
            "block of {block} bytes, lines capped at 300"
        );
    }
}

/// Issue 40, item 20: mongod logs an insert into a time-series collection
/// as a write to its buckets (`db.system.buckets.X`); that is the
/// application's work on `db.X`, not the server's own.
#[test]
fn bucket_writes_belong_to_their_time_series_collection() {
    let bucket = |conn: u32, ms: u32| {
        format!(
            r#"{{"t":{{"$date":"2024-05-02T09:00:01.000+00:00"}},"s":"I","c":"WRITE","id":51803,"ctx":"conn{conn}","msg":"Slow query","attr":{{"type":"update","ns":"metrics.system.buckets.weather","command":{{"q":{{"_id":{{"$oid":"663355c1a0b1c2d3e4f50607"}}}},"u":{{"$set":{{"control.max.t":1}}}},"multi":false,"upsert":false}},"planSummary":"IDHACK","keysExamined":1,"docsExamined":1,"nMatched":1,"durationMillis":{ms}}}}}"#
        )
    };
    // A read of the buckets themselves stays the server's (or a tool's).
    let read = r#"{"t":{"$date":"2024-05-02T09:00:02.000+00:00"},"s":"I","c":"COMMAND","id":51803,"ctx":"conn9","msg":"Slow query","attr":{"type":"command","ns":"metrics.system.buckets.weather","command":{"find":"system.buckets.weather","filter":{"meta":1},"$db":"metrics"},"planSummary":"COLLSCAN","docsExamined":5,"nreturned":1,"durationMillis":101}}"#;
    let r = report(&format!("{}\n{}\n{read}\n", bucket(1, 240), bucket(2, 310)));
    assert_eq!(r.totals.bucket_writes, 2);
    assert_eq!(r.totals.internal_operations, 1);
    assert_eq!(r.namespaces.len(), 1);
    let ns = &r.namespaces[0];
    assert_eq!(ns.namespace, "metrics.weather");
    assert!(ns.shapes.is_empty());
    assert_eq!(
        ns.bucket_writes,
        super::report::BucketWrites {
            operations: 2,
            total_ms: 550,
            max_ms: 310
        }
    );
    assert_eq!((ns.operations, ns.total_ms), (2, 550));
    assert_eq!(r.totals.total_ms, 550);
}

/// Issue 40, item 19: one namespace with more distinct shapes than are
/// kept reports the heaviest and says what the others did.
#[test]
fn shapes_beyond_the_cap_are_folded_and_counted() {
    use super::shape_table::KEPT_SHAPES;
    let n = KEPT_SHAPES * 2 + 5;
    let mut log = String::with_capacity(n * 330);
    for i in 0..n {
        // The last five are the slowest: they come after the first pruning
        // and must still be listed.
        let ms = if i >= n - 5 { 5_000 } else { 100 };
        log.push_str(&format!(
            r#"{{"t":{{"$date":"2024-03-01T10:00:00.000+00:00"}},"s":"I","c":"COMMAND","id":51803,"ctx":"conn1","msg":"Slow query","attr":{{"type":"command","ns":"shop.orders","command":{{"find":"orders","filter":{{"f{i}":1}},"$db":"shop"}},"planSummary":"COLLSCAN","docsExamined":48000,"nreturned":1,"durationMillis":{ms}}}}}"#
        ));
        log.push('\n');
    }
    let r = report(&log);
    let ns = &r.namespaces[0];
    assert_eq!(ns.shapes.len(), KEPT_SHAPES);
    assert_eq!(ns.shapes_not_kept.shapes as usize, n - KEPT_SHAPES);
    assert_eq!(ns.shapes_not_kept.operations as usize, n - KEPT_SHAPES);
    assert_eq!(ns.operations as usize, n);
    assert_eq!(r.totals.operations as usize, n);
    assert_eq!(r.totals.shapes as usize, KEPT_SHAPES);
    let slowest: Vec<u64> = ns.shapes.iter().take(6).map(|s| s.total_ms).collect();
    assert_eq!(slowest, [5_000, 5_000, 5_000, 5_000, 5_000, 100]);
    assert_eq!(ns.total_ms, 100 * (n as u64 - 5) + 5 * 5_000);
}
