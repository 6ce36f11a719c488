//! `squill scan mongodb://…` against the SecantusDB that scripts/test starts:
//! a database filled here is sampled through the driver and scanned as a
//! dump would be — collections, indexes, the reference between them, the
//! model with the counts the server estimates — and every command sent is
//! a read. Credentials never show; an unreachable server is a clear error.
//! Without the server the tests skip with a NOTICE, and fail under CI=true.

use crate::support::{TempDir, Test};
use std::process::Command;

/// (URI of the server, the venv's python).
fn server() -> Option<(String, String)> {
    match (
        std::env::var("SQUILL_TEST_MONGODB_URI"),
        std::env::var("SQUILL_TEST_PYTHON"),
    ) {
        (Ok(u), Ok(p)) => Some((u, p)),
        _ => {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "SQUILL_TEST_MONGODB_URI is not set and CI=true: scripts/test starts the server"
            );
            eprintln!("NOTICE: skipping: no MongoDB-compatible server (run through scripts/test)");
            None
        }
    }
}

/// `mongodb://host:port/DB?directConnection=true`.
fn with_db(uri: &str, db: &str) -> String {
    let base = uri.split('?').next().unwrap_or(uri).trim_end_matches('/');
    format!("{base}/{db}?directConnection=true")
}

#[test]
fn a_running_deployment_is_sampled_read_only_and_scanned_like_a_dump() {
    let Some((uri, python)) = server() else {
        return;
    };
    let db = format!("live_scan_{}", std::process::id());
    let fill = format!(
        "from pymongo import MongoClient\n\
         db = MongoClient('{uri}')['{db}']\n\
         db.authors.insert_many([{{'_id': i, 'name': 'author %d' % i}} for i in range(40)])\n\
         db.books.insert_many([{{'_id': i, 'title': 'book %d' % i, 'author_id': i % 40}} for i in range(2000)])\n\
         db.books.create_index('author_id')\n"
    );
    let out = Command::new(&python).args(["-c", &fill]).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dir = TempDir::new("scan-live");
    let commands = dir.path().join("commands.txt");
    let model = dir.path().join("model.yaml");
    let run = Test::new()
        .args([
            "scan",
            &with_db(&uri, &db),
            "--sample",
            "500",
            "--format",
            "json",
        ])
        .args(["--emit-model"])
        .args([&model])
        .env("SQUILL_RECORD_COMMANDS", commands.to_str().unwrap())
        .path_as(with_db(&uri, &db), "URI")
        .path_as(&db, "DB")
        .stdout_any()
        .stderr_matching(
            "squill scan: sampling URI
squill scan: DB.authors: sampling 40 of about 40 documents (all of them), about [..] s at the first batch's rate
squill scan: DB.books: sampling 500 of about 2,000 documents (25.0 %), about [..] s at the first batch's rate
squill scan: reading about [..] s in all
",
        )
        .check();
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let books = report["collections"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "books")
        .expect("books scanned");
    assert_eq!(books["documents"], 500);
    assert_eq!(books["sampled_from"], 2000);
    let indexes: Vec<&str> = books["indexes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["name"].as_str().unwrap())
        .collect();
    assert!(indexes.contains(&"author_id_1"), "{indexes:?}");
    let rel = &report["relationships"][0];
    assert_eq!(rel["field"], "author_id", "{rel}");
    // The model: the server's counts, fan-out scaled back from the sample
    // (50 books an author), and the reference as the layout of today.
    let yaml = std::fs::read_to_string(&model).unwrap();
    assert!(yaml.contains("count: 2000"), "{yaml}");
    assert!(
        yaml.contains("current:\n  books_author_id: parent-reference"),
        "{yaml}"
    );
    let typical: f64 = yaml
        .split("typical: ")
        .nth(1)
        .and_then(|t| t.split([',', '}']).next())
        .and_then(|t| t.trim().parse().ok())
        .expect("a typical fan-out");
    assert!((30.0..=70.0).contains(&typical), "{yaml}");
    // Only reads were sent.
    let sent = std::fs::read_to_string(&commands).unwrap();
    let names: Vec<&str> = sent.lines().filter(|l| !l.is_empty()).collect();
    assert!(
        names.contains(&"aggregate") && names.contains(&"listIndexes"),
        "{names:?}"
    );
    for name in &names {
        assert!(
            squill::inputs::live::READ_COMMANDS.contains(name),
            "`{name}` is not a read command"
        );
    }
}

#[test]
fn credentials_never_show_and_an_unreachable_server_is_a_clear_error() {
    if server().is_none() {
        return;
    }
    let run = Test::new()
        .args([
            "scan",
            "mongodb://reader:hunter2@127.0.0.1:1/shop",
            "--connect-timeout",
            "1",
        ])
        .status(2)
        // The driver's own words follow the URL, without its credentials.
        .stderr_matching(
            "squill scan: sampling mongodb://127.0.0.1:1/shop
error: mongodb://127.0.0.1:1/shop: [..]
",
        )
        .check();
    assert!(!run.stderr.contains("hunter2"), "{}", run.stderr);
    assert!(
        run.stderr.contains("Connection refused") || run.stderr.contains("timeout"),
        "{}",
        run.stderr
    );
}

/// Runs `python` with `code`, failing the test with its stderr.
fn python_run(python: &str, code: &str) {
    let out = Command::new(python).args(["-c", code]).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Scans database `db` of `uri` with `args`, recording the commands sent,
/// which must succeed with `stderr` (`Test::stderr_matching`, the URL
/// written `URI` and the database `DB`); the JSON report, the emitted
/// model and the command names.
fn scan_recorded(
    uri: &str,
    db: &str,
    args: &[&str],
    stderr: &str,
) -> (serde_json::Value, String, Vec<String>) {
    let dir = TempDir::new("scan-live-sampled");
    let commands = dir.path().join("commands.txt");
    let model = dir.path().join("model.yaml");
    let run = Test::new()
        .args([
            "scan",
            &with_db(uri, db),
            "--format",
            "json",
            "--fail-on",
            "never",
        ])
        .args(args)
        .args(["--emit-model"])
        .args([&model])
        .env("SQUILL_RECORD_COMMANDS", commands.to_str().unwrap())
        .path_as(with_db(uri, db), "URI")
        .path_as(db, "DB")
        .stdout_any()
        .stderr_matching(stderr)
        .check();
    let report = serde_json::from_str(&run.stdout).unwrap();
    let yaml = std::fs::read_to_string(&model).unwrap();
    let sent = std::fs::read_to_string(&commands).unwrap();
    let names = sent
        .lines()
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect();
    (report, yaml, names)
}

fn assert_read_only(names: &[String]) {
    for name in names {
        assert!(
            squill::inputs::live::READ_COMMANDS.contains(&name.as_str()),
            "`{name}` is not a read command"
        );
    }
}

fn relationship<'r>(report: &'r serde_json::Value, field: &str) -> &'r serde_json::Value {
    report["relationships"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["field"] == field)
        .unwrap_or_else(|| panic!("no relationship on {field}: {report:#}"))
}

fn finding_rules(report: &serde_json::Value) -> Vec<String> {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["rule"].as_str().map(str::to_string))
        .collect()
}

/// Issue 46, as filed: 2,000 customers, 20,000 orders of about 10 each,
/// scanned with the default sample of 1,000. The sampled orders were checked
/// against the sampled customers: half of them "dangling", a typical
/// fan-out of 0 in the emitted model. Each order matches a customer.
#[test]
fn issue_46_sampled_orders_are_not_dangling_and_their_fan_out_is_the_collections() {
    let Some((uri, python)) = server() else {
        return;
    };
    let db = format!("issue46_{}", std::process::id());
    python_run(
        &python,
        &format!(
            "from pymongo import MongoClient\n\
             import random\n\
             db = MongoClient('{uri}')['{db}']\n\
             r = random.Random(46)\n\
             db.customers.insert_many([{{'_id': i, 'name': 'c%d' % i}} for i in range(2000)])\n\
             db.orders.insert_many([{{'customer_id': r.randrange(2000), 'total': 5}} for i in range(20000)])\n"
        ),
    );
    let (report, yaml, names) = scan_recorded(
        &uri,
        &db,
        &[],
        "squill scan: sampling URI
squill scan: DB.customers: sampling 1,000 of about 2,000 documents (50.0 %), about [..] s at the first batch's rate
squill scan: DB.orders: sampling 1,000 of about 20,000 documents (5.0 %), about [..] s at the first batch's rate
squill scan: reading about [..] s in all
",
    );
    let rel = relationship(&report, "customer_id");
    assert_eq!(rel["dangling_share"], 0.0, "{rel:#}");
    assert!(
        !finding_rules(&report).contains(&"dangling-reference".to_string()),
        "{report:#}"
    );
    let estimate = &rel["estimate"];
    // No index on customer_id: the child sample, corrected for zeros.
    assert_eq!(estimate["fan_out_method"], "child-sample", "{estimate:#}");
    let typical = estimate["typical"].as_f64().unwrap();
    assert!((8.0..=12.0).contains(&typical), "{estimate:#}");
    let children = yaml_children(&yaml);
    assert!((8..=12).contains(&children.0), "{yaml}");
    assert!(yaml.contains("by child-sample"), "{yaml}");
    assert_read_only(&names);
}

/// (typical, max) of the first relationship's `children` in a model.
fn yaml_children(yaml: &str) -> (u64, u64) {
    let line = yaml
        .lines()
        .find(|l| l.trim_start().starts_with("children: {"))
        .unwrap_or_else(|| panic!("no children: {yaml}"));
    let figure = |name: &str| -> u64 {
        line.split(&format!("{name}: "))
            .nth(1)
            .and_then(|t| t.split([',', '}']).next())
            .and_then(|t| t.trim().parse().ok())
            .unwrap_or_else(|| panic!("no {name} in {line}"))
    };
    (figure("typical"), figure("max"))
}

/// A fixture of known truth: 2,000 customers; 20,000 orders whose customers
/// are Zipf-distributed (weight 1/rank, at least one order each: 10 on
/// average), `dangling` ‰ of them pointing at no customer, a `coupon` in 3 %
/// of them, an index on the reference; inserted in random order.
fn fill_zipf(python: &str, uri: &str, db: &str, dangling: u32) {
    python_run(
        python,
        &format!(
            "from pymongo import MongoClient\n\
             import random\n\
             db = MongoClient('{uri}')['{db}']\n\
             r = random.Random(7)\n\
             w = [1.0 / k for k in range(1, 2001)]\n\
             t = sum(w)\n\
             counts = [1 + int(x / t * 18000) for x in w]\n\
             i = 0\n\
             while sum(counts) < 20000:\n    counts[i % 2000] += 1\n    i += 1\n\
             refs = [c for c, n in enumerate(counts) for _ in range(n)]\n\
             r.shuffle(refs)\n\
             lost = len(refs) * {dangling} // 1000\n\
             refs = [c + 1000000 if k < lost else c for k, c in enumerate(refs)]\n\
             coupons = set(r.sample(range(20000), 600))\n\
             docs = []\n\
             for k, c in enumerate(refs):\n    d = {{'customer_id': c, 'total': 5}}\n    if k in coupons: d['coupon'] = 'WELCOME'\n    docs.append(d)\n\
             r.shuffle(docs)\n\
             db.customers.insert_many([{{'_id': k, 'name': 'c%d' % k}} for k in range(2000)])\n\
             db.orders.insert_many(docs)\n\
             db.orders.create_index('customer_id')\n"
        ),
    );
}

/// Issue 46's fixtures at a 5 % sample: the typical fan-out within 20 % of
/// the truth (children ÷ customers having any), the dangling share 0 % and
/// 10 ± 3 %, the 3 % field inside its stated interval, every command a read.
/// Each interval is at 99 %: this test misses about once in a hundred runs
/// by chance alone, the price of checking real intervals against a
/// server's real random sample.
#[test]
fn issue_46_a_five_percent_sample_estimates_the_collections() {
    let Some((uri, python)) = server() else {
        return;
    };
    for (dangling, truth) in [(0u32, 10.0), (100, 9.0)] {
        let db = format!("issue46_zipf{dangling}_{}", std::process::id());
        fill_zipf(&python, &uri, &db, dangling);
        let (report, yaml, names) = scan_recorded(
            &uri,
            &db,
            &["--sample-share", "5%"],
            "squill scan: sampling URI
squill scan: DB.customers: sampling 100 of about 2,000 documents (5.0 %), about [..] s at the first batch's rate
squill scan: DB.orders: sampling 1,000 of about 20,000 documents (5.0 %), about [..] s at the first batch's rate
squill scan: reading about [..] s in all
",
        );
        let rel = relationship(&report, "customer_id");
        let e = &rel["estimate"];
        // customer_id is indexed: 100 sampled customers' orders counted.
        assert_eq!(e["fan_out_method"], "parent-sample-counts", "{e:#}");
        let typical = e["typical"].as_f64().unwrap();
        assert!(
            (typical - truth).abs() <= truth * 0.2,
            "{dangling} ‰: typical {typical} vs {truth}: {e:#}"
        );
        let d = e["dangling"]["share"].as_f64().unwrap();
        if dangling == 0 {
            assert_eq!(d, 0.0, "{e:#}");
            assert!(!finding_rules(&report).contains(&"dangling-reference".to_string()));
        } else {
            assert!((d - 0.10).abs() <= 0.03, "{e:#}");
            assert!(finding_rules(&report).contains(&"dangling-reference".to_string()));
        }
        // p50 of 100 sampled customers holds; p99 cannot be claimed.
        let percentiles = e["percentiles"].as_array().unwrap();
        assert!(percentiles.iter().any(|p| p["p"] == 0.5), "{e:#}");
        assert!(
            e["notes"]
                .as_array()
                .unwrap()
                .iter()
                .any(|n| n["kind"] == "percentile-unsupported" && n["p"] == 0.99),
            "{e:#}"
        );
        let orders = report["collections"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == "orders")
            .unwrap();
        let coupon = orders["fields"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["path"] == "coupon")
            .expect("coupon sampled");
        let interval = &coupon["presence_interval"];
        let (low, high) = (interval[0].as_f64().unwrap(), interval[1].as_f64().unwrap());
        assert!(low <= 0.03 && 0.03 <= high, "{coupon:#}");
        assert!(yaml.contains("by parent-sample-counts"), "{yaml}");
        assert!(names.iter().any(|n| n == "find"), "{names:?}");
        assert_read_only(&names);
    }
}

/// `--sample all` reads each collection whole with `find`, and says how
/// long it should take before it reads; a bad share is refused.
#[test]
fn sample_all_reads_whole_collections_and_a_bad_share_is_refused() {
    let Some((uri, python)) = server() else {
        return;
    };
    let db = format!("sample_all_{}", std::process::id());
    python_run(
        &python,
        &format!(
            "from pymongo import MongoClient\n\
             db = MongoClient('{uri}')['{db}']\n\
             db.authors.insert_many([{{'_id': i}} for i in range(30)])\n\
             db.books.insert_many([{{'_id': i, 'author_id': i % 30}} for i in range(300)])\n"
        ),
    );
    let (report, _, names) = scan_recorded(
        &uri,
        &db,
        &["--sample", "all"],
        "squill scan: sampling URI
squill scan: DB.authors: reading all 30 documents, about [..] s at the first batch's rate
squill scan: DB.books: reading all 300 documents, about [..] s at the first batch's rate
squill scan: reading about [..] s in all
",
    );
    let books = report["collections"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "books")
        .unwrap();
    assert_eq!(books["documents"], 300);
    assert!(books["sampled_from"].is_null());
    assert_eq!(relationship(&report, "author_id")["fan_out"]["p50"], 10);
    assert!(names.iter().any(|n| n == "find"), "{names:?}");
    assert_read_only(&names);
    Test::new()
        .args(["scan", &with_db(&uri, &db), "--sample-share", "150%"])
        .status(2)
        .stderr(
            "error: invalid value '150%' for '--sample-share <P>': `150%` is not a share above 0 and at most 100%

For more information, try '--help'.
",
        )
        .check();
}

/// Issue 41: a live scan that samples a quarter of 2,000 restaurants
/// measures their density as a dump's scan does, scaled to the
/// collection: 800 lie in one 0.05° cell of Paris, 1,200 alone in a cell
/// each along the same latitude. The sample's busy cell (about 200 seen)
/// stands for about 800; a lone point stays one, so the typical density
/// is one restaurant a cell, not four.
#[test]
fn a_sampled_live_scan_measures_point_density_scaled_to_the_collection() {
    let Some((uri, python)) = server() else {
        return;
    };
    let db = format!("live_places_{}", std::process::id());
    python_run(
        &python,
        &format!(
            "from pymongo import MongoClient\n\
             db = MongoClient('{uri}')['{db}']\n\
             def at(i):\n\
             \x20   if i < 800:\n\
             \x20       return [2.301 + 0.0004 * (i % 100), 48.801 + 0.003 * (i // 100)]\n\
             \x20   return [-100.0 + 0.1 * (i - 800), 48.801]\n\
             db.restaurants.insert_many([{{'_id': i, 'location': {{'type': 'Point', 'coordinates': at(i)}}}} for i in range(2000)])\n"
        ),
    );
    let (report, yaml, names) = scan_recorded(
        &uri,
        &db,
        &["--sample", "500"],
        "squill scan: sampling URI
squill scan: DB.restaurants: sampling 500 of about 2,000 documents (25.0 %), about [..] s at the first batch's rate
squill scan: reading about [..] s in all
",
    );
    assert_read_only(&names);
    let geo = &report["collections"][0]["fields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == "location")
        .expect("location")["geo"];
    assert_eq!(geo["points"], 500, "{geo}");
    let line = yaml
        .lines()
        .find(|l| l.trim_start().starts_with("density:"))
        .unwrap_or_else(|| panic!("{yaml}"));
    let number = |key: &str| -> f64 {
        line.split(key).nth(1).unwrap()[1..]
            .trim()
            .split([',', '}'])
            .next()
            .unwrap()
            .trim()
            .parse()
            .unwrap()
    };
    let r: f64 = 6_371.008_8;
    let cell = r
        * r
        * 0.05_f64.to_radians()
        * (48.85_f64.to_radians().sin() - 48.8_f64.to_radians().sin());
    let (typical, max) = (number("typical:"), number("max:"));
    assert!((typical - 1.0 / cell).abs() <= typical * 1e-3, "{line}");
    assert!((max - 800.0 / cell).abs() <= 800.0 / cell * 0.2, "{line}");
    assert!(yaml.contains("other points scaled by 4"), "{yaml}");
    python_run(
        &python,
        &format!("from pymongo import MongoClient\nMongoClient('{uri}').drop_database('{db}')\n"),
    );
}

/// Issue 42: `--horizon` on a live scan projects the collection the server
/// holds, not the sample: 2,000 orders sampled at 500 start the projection
/// at 2,000, grown at the logged inserts' rate (7 in the half hour the
/// log spans: 336 a day). Against a running deployment `--since` needs the
/// time between the readings (`--interval`): a sample's newest `_id` need
/// not be the collection's.
#[test]
fn a_live_scan_projects_the_deployments_growth() {
    let Some((uri, python)) = server() else {
        return;
    };
    let db = format!("live_horizon_{}", std::process::id());
    python_run(
        &python,
        &format!(
            "from pymongo import MongoClient\n\
             db = MongoClient('{uri}')['{db}']\n\
             db.orders.insert_many([{{'_id': i, 'store': 's%d' % (i % 7)}} for i in range(2000)])\n"
        ),
    );
    let dir = TempDir::new("scan-live-horizon");
    let log = dir.path().join("mongod.log");
    let lines: String = (0..=6)
        .map(|m| {
            format!(
                "{{\"t\":{{\"$date\":\"2024-05-02T09:{:02}:00.000+00:00\"}},\"s\":\"I\",\"c\":\"COMMAND\",\"id\":51803,\"ctx\":\"conn1\",\"msg\":\"Slow query\",\"attr\":{{\"type\":\"command\",\"ns\":\"{db}.$cmd\",\"command\":{{\"insert\":\"orders\",\"documents\":[{{\"store\":\"s1\"}}],\"$db\":\"{db}\"}},\"durationMillis\":1}}}}\n",
                m * 5
            )
        })
        .collect();
    std::fs::write(&log, lines).unwrap();
    let run = Test::new()
        .args(["scan", &with_db(&uri, &db), "--sample", "500"])
        .args(["--workload"])
        .args([&log])
        .args(["--horizon", "2m", "--format", "json"])
        .stdout_any()
        .stderr_any()
        .check();
    let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let rate = json["growth"]["rates"][0]["documents_per_day"]
        .as_f64()
        .unwrap();
    // 7 inserts logged over the 30 minutes between the first and the last.
    assert!((rate - 7.0 * 48.0).abs() < 1e-6, "{rate}");
    let months = json["capacity"]["months"].as_array().unwrap();
    assert_eq!(months[0]["collections"][0]["documents"], 2000, "{json}");
    assert_eq!(
        months[2]["collections"][0]["documents"],
        (2000.0 + rate * 60.0).round() as u64
    );
    let old =
        crate::support::repo_root().join("crates/squill-cli/tests/fixtures/c4-deployment/dump");
    Test::new()
        .args(["scan", &with_db(&uri, &db), "--sample", "500", "--since"])
        .args([&old])
        .args(["--horizon", "2m"])
        .path_as(with_db(&uri, &db), "URI")
        .path_as(&db, "DB")
        .status(2)
        .stdout_any()
        .stderr_matching(
            "squill scan: sampling URI
squill scan: DB.orders: sampling 500 of about 2,000 documents (25.0 %), about [..] s at the first batch's rate
squill scan: reading about [..] s in all
error: --since against a running deployment (URI) needs --interval: the time between the dump and now
",
        )
        .check();
}
