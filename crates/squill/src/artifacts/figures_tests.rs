//! An aggregate read over children kept in their own collection (issue 41,
//! audit D): the figures are computed on the server, per parent and per
//! unit of the window, by one aggregation, not by shipping every child
//! (a device's hourly min, max and average temperature of the last week
//! was a find of its 10,080 readings, the window lost).

use super::external_tests::{run_inline_python, server_tools};
use super::*;

/// Devices and their readings, kept apart; a device's hourly figures of
/// its last week's readings.
const FLEET: &str = "
name: fleet-hourly
entities:
  device:
    count: 1000
    fields:
      serial: string(16)
  reading:
    count: 10000000
    fields:
      ts: date
      temp: double
relationships:
  readings:
    parent: device
    child: reading
    children: {min: 0, typical: 10000, max: 100000, growth: {typical: 1440, max: 86400, per: day}}
    child_field: device
    layout: parent-reference
operations:
  ingest:
    insert: reading
    links: [readings]
    rate: 1000
  hourly:
    read: device
    filter: {_id: eq}
    aggregates: [min(readings.temp), max(readings.temp), avg(readings.temp)]
    window: {per: hour, last: 168}
    rate: 10
";

fn fleet() -> (crate::model::Model, crate::design::Design) {
    let model =
        crate::inputs::model_file::parse("fleet-hourly.yaml", FLEET).expect("the model parses");
    let design =
        crate::advise::advise(&model, &crate::settings::Settings::default(), None).expect("advise");
    (model, design)
}

/// The plan groups on the server, priced at its rows; each language
/// runs the one aggregation: `$match`, `$group` by the device and the
/// hour (`$dateTrunc`) with each figure, `$sort` by the group.
#[test]
fn an_aggregate_over_children_apart_is_one_aggregation_per_hour() {
    let (_, d) = fleet();
    let plan = d
        .operations
        .iter()
        .find(|p| p.operation == "hourly")
        .expect("hourly");
    let step = plan.steps.last().expect("a step");
    let g = step
        .figures
        .as_ref()
        .expect("the children are grouped on the server");
    assert_eq!(g.by, "device");
    assert_eq!(
        g.per.as_ref().map(|p| (p.field.as_str(), p.unit.as_str())),
        Some(("ts", "hour"))
    );
    let names: Vec<&str> = g.figures.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["min_temp", "max_temp", "avg_temp"]);
    // A row per hour of the window, not a document per reading: what
    // comes back is the rows, what is examined the readings.
    assert_eq!(g.rows, 168.0);
    assert!(step.documents > 1000.0, "{}", step.documents);
    assert!(plan.cost.bytes_read < 20_000.0, "{:?}", plan.cost);
    let ops = cookbook::op_codes(&d);
    let hourly = ops.iter().find(|o| o.name == "hourly").expect("hourly");
    let group = r#"{"$group": {"_id": {"device": "$device", "ts": {"$dateTrunc": {"date": "$ts", "unit": "hour"}}}, "min_temp": {"$min": "$temp"}, "max_temp": {"$max": "$temp"}, "avg_temp": {"$avg": "$temp"}}}, {"$sort": {"_id.device": 1, "_id.ts": 1}}]"#;
    for text in [
        cookbook::mongosh_function(hourly),
        cookbook::node_function(hourly),
        cookbook::python_function(hourly),
    ] {
        assert!(
            text.contains(".aggregate([{\"$match\": {\"device\": "),
            "{text}"
        );
        assert!(text.contains(group), "{text}");
    }
}

/// Against the server (SecantusDB supports `$dateTrunc`): readings of
/// two devices over five hours, the Python cookbook's `hourly` for one
/// of them returns that device's per-hour minimum, maximum and average,
/// equal to those Python computes from the readings it inserted.
#[test]
fn hourly_figures_equal_those_of_the_readings_against_a_server() {
    let Some((uri, python, _)) = server_tools() else {
        return;
    };
    let (model, design) = fleet();
    let script = r#"
import sys, random, datetime
from pymongo import MongoClient
sys.path.insert(0, sys.argv[1])
import cookbook
db = MongoClient(sys.argv[2])[sys.argv[3]]
db["reading"].drop()
db["device"].drop()
db["device"].insert_many([{"_id": 1, "serial": "a"}, {"_id": 2, "serial": "b"}])
random.seed(7)
start = datetime.datetime(2026, 1, 1, 10, 0)
rows = []
for device in (1, 2):
    for minute in range(0, 300, 7):
        rows.append({"device": device, "ts": start + datetime.timedelta(minutes=minute, seconds=13), "temp": round(random.uniform(-20, 40), 3)})
db["reading"].insert_many(rows)
got = cookbook.hourly(db, 1, start, start + datetime.timedelta(hours=5))["reading"]
want = {}
for r in rows:
    if r["device"] == 1:
        want.setdefault(r["ts"].replace(minute=0, second=0), []).append(r["temp"])
assert [g["_id"]["ts"] for g in got] == sorted(want), (got, sorted(want))
for g in got:
    temps = want[g["_id"]["ts"]]
    assert g["_id"]["device"] == 1, g
    assert g["min_temp"] == min(temps) and g["max_temp"] == max(temps), (g, temps)
    assert abs(g["avg_temp"] - sum(temps) / len(temps)) < 1e-9, (g, temps)
print("ok: %d hours" % len(got))
"#;
    let out = run_inline_python(
        (&uri, &python),
        (&model, &design),
        ("figures", "squill_figures"),
        script,
    );
    assert!(out.contains("ok: 5 hours"), "{out}");
}

/// Queues and their tickets apart; a queue's page shows the number of
/// its open tickets and the sum of their cost (review48 B5). Tickets
/// expire, so no figure is kept: the read computes both.
const QUEUES: &str = "
name: open-queue-figures
entities:
  queue:
    count: 1000
    fields:
      name: string(24)
  ticket:
    count: 2000000
    fields:
      title: string(80)
      status: {type: string(8), enum: [open, pending, closed], required: true}
      cost: {type: int, required: true}
      opened_at: {type: date, required: true}
    expires: {from: opened_at, after: 30 days}
relationships:
  tickets:
    parent: queue
    child: ticket
    children: {min: 0, typical: 2000, max: unbounded}
    child_field: queue_id
    standalone: true
    layout: parent-reference
operations:
  queue_page:
    read: queue
    rate: 200
    filter: {_id: eq}
    aggregates: [count(tickets where status = open), sum(tickets.cost where status = open)]
  open_ticket:
    insert: ticket
    links: [tickets]
    rate: 5
";

fn queues() -> (crate::model::Model, crate::design::Design) {
    let model = crate::inputs::model_file::parse("open-queue-figures.yaml", QUEUES)
        .expect("the model parses");
    let design = crate::advise::advise(&model, &crate::settings::Settings::default(), None)
        .expect("the model advises");
    (model, design)
}

/// A count and a sum of the same open tickets are two accumulators of
/// one `$group`, not two aggregations; the walk is over the open tickets
/// of the queue only, on `{queue_id, status}`: the subset's equality is a
/// key of the index, not a test of every ticket of the queue.
#[test]
fn two_figures_of_one_subset_are_one_aggregation_on_the_subsets_index() {
    let (_, d) = queues();
    let page = d
        .operations
        .iter()
        .find(|o| o.operation == "queue_page")
        .expect("queue_page");
    let grouped: Vec<_> = page.steps.iter().filter(|s| s.figures.is_some()).collect();
    assert_eq!(grouped.len(), 1, "{:#?}", page.steps);
    let names: Vec<&str> = grouped[0]
        .figures
        .as_ref()
        .map(|g| g.figures.iter().map(|f| f.name.as_str()).collect())
        .unwrap_or_default();
    assert_eq!(names, ["count", "sum_cost"]);
    assert_eq!(
        grouped[0].index.as_deref(),
        Some("queue_id_1_status_1"),
        "{:#?}",
        grouped[0]
    );
    // A third of the queue's 2,000 tickets are open.
    assert!(
        grouped[0].documents < 1000.0,
        "{} documents",
        grouped[0].documents
    );
}

/// Against the server: the one aggregation gives each figure of the open
/// tickets of the queue read, and no other queue's.
#[test]
fn two_figures_of_one_subset_against_a_server() {
    let Some((uri, python, _)) = server_tools() else {
        return;
    };
    let (model, design) = queues();
    let script = r#"
import sys, datetime
from pymongo import MongoClient
sys.path.insert(0, sys.argv[1])
import cookbook
db = MongoClient(sys.argv[2])[sys.argv[3]]
now = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None, microsecond=0)
db["ticket"].drop()
db["queue"].drop()
db["queue"].insert_many([{"_id": 1, "name": "a"}, {"_id": 2, "name": "b"}])
db["ticket"].insert_many([
    {"queue_id": 1, "title": "x", "status": "open", "cost": 10, "opened_at": now},
    {"queue_id": 1, "title": "y", "status": "closed", "cost": 7, "opened_at": now},
    {"queue_id": 1, "title": "z", "status": "open", "cost": 3, "opened_at": now},
    {"queue_id": 2, "title": "w", "status": "open", "cost": 100, "opened_at": now},
])
got = cookbook.queue_page(db, 1)
rows = got["ticket"]
assert len(rows) == 1, got
row = rows[0]
assert row["count"] == 2 and row["sum_cost"] == 13, got
print("ok: 2 open tickets costing 13 in one aggregation")
"#;
    let out = run_inline_python(
        (&uri, &python),
        (&model, &design),
        ("open-queue-figures", "squill_open_queue_figures"),
        script,
    );
    assert!(out.contains("ok: 2 open tickets costing 13"), "{out}");
}
