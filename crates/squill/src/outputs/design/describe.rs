//! Phrases shared by the text and Markdown reporters, so both say the same
//! thing about a layout, a step or a cost in the same words.

use crate::design::{
    Action, Cost, EntityDecision, FilterOp, Step, StepFilter, UpdateOp, ValueSource,
};
use crate::design::{Aggregation, BucketBy, Layout, Side};
use crate::model::AggregateFn;
use crate::words;

/// A step's command in words: the action, its update operators, the fields
/// it returns (`update $set status, $inc n returning _id`).
pub(crate) fn step_command(s: &Step) -> String {
    let mut command = action(s.action).to_string();
    if !s.updates.is_empty() {
        let ops: Vec<String> = s.updates.iter().map(update).collect();
        command.push_str(&format!(" {}", ops.join(", ")));
    }
    if !s.projection.is_empty() {
        command.push_str(&format!(" returning {}", s.projection.join(", ")));
    }
    for x in &s.slices {
        command.push_str(&format!(" with {}", slice(x)));
    }
    command
}

/// An embedded array returned cut (`comments cut to the first 3 by {at: -1}`).
pub(crate) fn slice(x: &crate::design::ArraySlice) -> String {
    let order = if x.sort.is_empty() {
        "as stored".to_string()
    } else {
        format!("by {}", keys(&x.sort))
    };
    // Only the elements that pass the tests (an outlier's children of
    // one kind), or how many pass: `{ kind: eq (parameter) }`.
    let inside = format!("{}.", x.path);
    let tests: Vec<String> = x
        .filter
        .iter()
        .map(|f| {
            let field = f.path.strip_prefix(&inside).unwrap_or(&f.path);
            format!("{field}: {} ({})", test(f), value_source(&f.value_from))
        })
        .collect();
    let matching = if tests.is_empty() {
        String::new()
    } else {
        format!(" that match {{ {} }}", tests.join(", "))
    };
    let mut text = match (x.count, x.limit) {
        (true, _) => format!(
            "the number of {}{matching}, counted on the server ($size{})",
            x.path,
            if tests.is_empty() { "" } else { " of $filter" }
        ),
        (false, Some(n)) => format!(
            "{}{matching} cut to the first {} {order}",
            x.path,
            words::int(n)
        ),
        (false, None) => format!("{}{matching}", x.path),
    };
    if x.stored {
        text.push_str(&format!(
            ", and the length of {} as stored (whether it is full)",
            x.path
        ));
    }
    if let Some(e) = &x.unexpired {
        text.push_str(&format!(
            " without the expired ({} more than {} old): nothing deletes them from the array, so each read leaves them out",
            e.field,
            words::duration_seconds(e.seconds)
        ));
    }
    for f in &x.figures {
        text.push_str(&format!(", and {}", slice_figure(&x.path, f)));
    }
    text
}

/// A figure computed beside an array (`tickets_count_status_open: the
/// number of the live tickets where status = "open", computed on the
/// server ($size of $filter)`).
fn slice_figure(array: &str, f: &crate::design::SliceFigure) -> String {
    let what = match (f.function, &f.field) {
        (crate::model::AggregateFn::Count, _) | (_, None) => "the number".to_string(),
        (func, Some(field)) => format!("the {} of {field}", crate::candidates::fn_name(func)),
    };
    let live = if f.unexpired.is_some() { "live " } else { "" };
    let test = f.test.as_ref().map_or(String::new(), |c| {
        let value = match &c.value {
            crate::model::Literal::Number(n) => words::num(*n),
            crate::model::Literal::Text(t) => format!("\"{t}\""),
            crate::model::Literal::Bool(b) => b.to_string(),
            crate::model::Literal::Amount(v)
            | crate::model::Literal::Field(v)
            | crate::model::Literal::Param(v) => v.clone(),
        };
        format!(" where {} {} {value}", c.path, c.test.symbol())
    });
    let how = match (f.function, f.test.is_some() || f.unexpired.is_some()) {
        (crate::model::AggregateFn::Count, true) => "$size of $filter",
        (crate::model::AggregateFn::Count, false) => "$size",
        (_, true) => "over $filter",
        (_, false) => "over the array",
    };
    format!(
        "{}: {what} of the {live}{array}{test}, computed on the server ({how})",
        f.name
    )
}

/// A step's filter with its sort and limit (`customer = ? sort {at: -1} limit 10`).
pub(crate) fn step_filter(s: &Step) -> String {
    let mut text = filter(s);
    if !s.sort.is_empty() {
        text.push_str(&format!(" sort {}", keys(&s.sort)));
    }
    if let Some(limit) = s.limit {
        text.push_str(&format!(" limit {}", words::int(limit)));
    }
    text
}

/// A relationship's layout in words, for its decision: a one-to-one keeps a
/// plain id where a one-to-many keeps an array.
/// Whether `d`'s chosen layout is the only one no rule rejects, with no
/// rule hit of its own to say why it was chosen (an expiring child whose
/// every other layout keeps it inside another document): the report then
/// says so, rather than print no reason at all.
pub(crate) fn only_one_left(d: &crate::design::RelationshipDecision) -> bool {
    d.rules.is_empty()
        && !d.alternatives.is_empty()
        && d.alternatives
            .iter()
            .all(|a| matches!(a.verdict, crate::design::Verdict::Rejected { .. }))
}

/// The sentence that says so.
pub(crate) const ONLY_ONE_LEFT: &str =
    "every other layout is rejected by a rule (see the alternatives)";

pub(crate) fn decided(d: &crate::design::RelationshipDecision, layout: &Layout) -> String {
    match layout {
        Layout::ChildReferences if d.class == "one-to-one" => "the child's id in the parent".into(),
        Layout::ExtendedReference {
            copies_into: Side::Child,
            fields,
        } if fields.iter().any(|f| d.snapshot.contains(f)) => copies_into_children(d, fields),
        other => self::layout(other),
    }
}

/// Copies into each child where some are snapshots (the model's
/// `snapshot:`): a snapshot is the parent's value frozen when the child
/// was written (an order line's price), which no update refreshes, so it
/// is not an extended reference, whose copies follow the parent.
fn copies_into_children(d: &crate::design::RelationshipDecision, fields: &[String]) -> String {
    let (frozen, live): (Vec<&String>, Vec<&String>) =
        fields.iter().partition(|f| d.snapshot.contains(f));
    let list = |v: &[&String]| v.iter().map(|f| f.as_str()).collect::<Vec<_>>().join(", ");
    let snapshot = format!(
        "snapshot (copies {} into each child once, when it is written; never refreshed)",
        list(&frozen)
    );
    if live.is_empty() {
        snapshot
    } else {
        format!(
            "extended reference (copies {} into each child, refreshed when they change) and {snapshot}",
            list(&live)
        )
    }
}

/// A layout in words: `extended reference (copies name, email into each child)`.
pub(crate) fn layout(layout: &Layout) -> String {
    match layout {
        Layout::Embed => "embed".into(),
        Layout::EmbedParentInChild => "embed the parent in each child".into(),
        Layout::ChildReferences => "array of child references in the parent".into(),
        Layout::ParentReference => "parent reference in each child".into(),
        Layout::TwoWayReferences => "two-way references".into(),
        Layout::SharedId => "the child under its parent's _id (shared _id)".into(),
        Layout::TreePath { fields } if fields.is_empty() => {
            "tree path (parent id, and the ids from the root to the node in each node)".into()
        }
        Layout::TreePath { fields } => format!(
            "tree path (parent id, and the ids and {} from the root to the node in each node)",
            fields.join(", ")
        ),
        Layout::PathReference => {
            "path reference (the parent's id and the ids of its ancestors in each child)".into()
        }
        Layout::ExtendedReference {
            copies_into,
            fields,
        } => {
            let into = match copies_into {
                Side::Parent => "into the parent's reference array",
                Side::Child => "into each child",
            };
            format!("extended reference (copies {} {into})", fields.join(", "))
        }
        Layout::Subset {
            k,
            sort_field,
            fields,
        } => {
            let mut text = format!("subset (latest {}", words::int(*k));
            if let Some(field) = sort_field {
                text.push_str(&format!(" by {field}"));
            }
            text.push_str(" in the parent");
            if !fields.is_empty() {
                text.push_str(&format!(", fields {}", fields.join(", ")));
            }
            text.push_str("; all in their own collection)");
            text
        }
        Layout::Outlier { threshold } => format!(
            "outlier (up to {} embedded in the parent; beyond, in their own collection)",
            words::int(*threshold)
        ),
        Layout::Bucket {
            by,
            per_bucket,
            aggregates,
        } => {
            let grouping = match by {
                BucketBy::Count => format!("{} per document", words::int(*per_bucket)),
                BucketBy::Time { field, unit } => {
                    format!(
                        "one document per {unit} of {field}, up to {}",
                        words::int(*per_bucket)
                    )
                }
            };
            if aggregates.is_empty() {
                format!("bucket ({grouping})")
            } else {
                let list: Vec<String> = aggregates.iter().map(aggregation).collect();
                format!("bucket ({grouping}; pre-computed {})", list.join(", "))
            }
        }
        Layout::ManyToManyOneWay { ids_in } => match ids_in {
            Side::Parent => "many-to-many, ids in the parent only".into(),
            Side::Child => "many-to-many, ids in the child only".into(),
        },
        Layout::ManyToManyTwoWay => "many-to-many, ids on both sides".into(),
        Layout::EdgeCollection { collection } => {
            format!("edge collection (`{collection}`: one document per link, with both references)")
        }
        Layout::TwoWayExtendedReference {
            copies_in_parent,
            copies_in_child,
        } => {
            let side = |fields: &[String], whose: &str| {
                if fields.is_empty() {
                    format!("bare ids in {whose}")
                } else {
                    format!("copies {} in {whose}", fields.join(", "))
                }
            };
            format!(
                "two-way extended reference ({}; {})",
                side(copies_in_parent, "the parent"),
                side(copies_in_child, "each child")
            )
        }
    }
}

/// `count`, `sum(value)`.
pub(crate) fn aggregation(aggregation: &Aggregation) -> String {
    let name = aggregate_fn(aggregation.function);
    match &aggregation.field {
        Some(field) => format!("{name}({field})"),
        None => name.to_string(),
    }
}

pub(crate) fn aggregate_fn(function: AggregateFn) -> &'static str {
    function.name()
}

/// The non-zero parts of a cost difference: `+2 round trips, +300 sync writes`.
/// A part that rounds to nothing (a float's noise) is left out: never
/// "-0 B read/s" (audit48 C3).
pub(crate) fn cost_delta(delta: &Cost) -> String {
    let mut parts = Vec::new();
    let signed = |v: f64| {
        if v > 0.0 {
            format!("+{}", words::num(v))
        } else {
            words::num(v)
        }
    };
    let signed_bytes = |v: f64| {
        if v > 0.0 {
            format!("+{}", words::bytes(v))
        } else {
            words::bytes(v)
        }
    };
    for (value, unit) in [
        (delta.round_trips, "round trips/s"),
        (delta.documents_examined, "documents examined/s"),
        (delta.index_keys_examined, "index keys/s"),
    ] {
        if !words::rounds_to_nothing(value) {
            parts.push(format!("{} {unit}", signed(value)));
        }
    }
    if !words::rounds_to_nothing(delta.bytes_read) {
        parts.push(format!("{} read/s", signed_bytes(delta.bytes_read)));
    }
    if !words::rounds_to_nothing(delta.bytes_written) {
        parts.push(format!("{} written/s", signed_bytes(delta.bytes_written)));
    }
    for (value, unit) in [
        (delta.documents_written, "documents written/s"),
        (delta.sync_writes, "sync writes/s"),
        (delta.transactions, "transactions/s"),
        (delta.index_entries, "index entries"),
    ] {
        if !words::rounds_to_nothing(value) {
            parts.push(format!("{} {unit}", signed(value)));
        }
    }
    // A sharded cluster's requests (zero on one replica set): two sums of
    // fractions of a shard differ by rounding where the designs agree.
    if delta.shard_requests.abs() >= 0.005 {
        let value = delta.shard_requests;
        let at = parts.len() - usize::from(!words::rounds_to_nothing(delta.index_entries));
        parts.insert(at, format!("{} requests to shards/s", signed(value)));
    }
    parts.push(format!("score {}", signed(delta.score)));
    parts.join(", ")
}

/// A workload-weighted cost, every per-second component: name and amount.
/// (`index_entries` and `score` are not rates; reporters show them apart.)
pub(crate) fn totals(cost: &Cost) -> Vec<(&'static str, String)> {
    let mut rows = vec![
        ("round trips", words::num(cost.round_trips)),
        ("documents examined", words::num(cost.documents_examined)),
        ("index keys examined", words::num(cost.index_keys_examined)),
        ("bytes read", words::bytes(cost.bytes_read)),
        ("bytes written", words::bytes(cost.bytes_written)),
        ("documents written", words::num(cost.documents_written)),
        ("sync writes", words::num(cost.sync_writes)),
        ("transactions", words::num(cost.transactions)),
    ];
    // Only on a sharded cluster: one replica set's report keeps its rows.
    if cost.shard_requests != 0.0 {
        rows.push(("requests to shards", words::num(cost.shard_requests)));
    }
    rows
}

/// One row of `totals` as words in a line: "262 round trips", and for a
/// figure shown as "1" the singular ("1 document written", not "1
/// documents written"): the number as shown decides, as in `per_run`.
/// Bytes read the amount and the verb ("58.9 KiB read").
pub(crate) fn total_words(name: &str, value: &str) -> String {
    let name = name.trim_start_matches("bytes ");
    if value != "1" {
        return format!("{value} {name}");
    }
    let one = match name {
        "round trips" => "round trip",
        "documents examined" => "document examined",
        "index keys examined" => "index key examined",
        "documents written" => "document written",
        "sync writes" => "sync write",
        "transactions" => "transaction",
        "requests to shards" => "request to a shard",
        other => other,
    };
    format!("1 {one}")
}

/// An example document shortened for reading: arrays keep their first
/// `ARRAY_SHOWN` elements and a string saying how many more there are, long
/// strings are cut. The JSON report keeps the full example.
pub(crate) fn abridge(value: &serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    const ARRAY_SHOWN: usize = 2;
    const STRING_SHOWN: usize = 40;
    match value {
        Value::Array(items) => {
            let mut out: Vec<Value> = items.iter().take(ARRAY_SHOWN).map(abridge).collect();
            if items.len() > ARRAY_SHOWN {
                out.push(Value::String(format!(
                    "… {} more",
                    words::int((items.len() - ARRAY_SHOWN) as u64)
                )));
            }
            Value::Array(out)
        }
        Value::Object(map) => {
            Value::Object(map.iter().map(|(k, v)| (k.clone(), abridge(v))).collect())
        }
        Value::String(s) if s.chars().count() > STRING_SHOWN + 1 => {
            let cut: String = s.chars().take(STRING_SHOWN).collect();
            Value::String(format!("{cut}…"))
        }
        other => other.clone(),
    }
}

/// JSON laid out for reading: an object or array that fits in `width`
/// characters stays on one line (`{ "$oid": "…" }`), bigger ones break.
pub(crate) fn pretty_json(value: &serde_json::Value) -> String {
    let mut out = String::new();
    write_json(value, 0, &mut out);
    out
}

const JSON_WIDTH: usize = 72;

fn write_json(value: &serde_json::Value, indent: usize, out: &mut String) {
    use serde_json::Value;
    let compact = compact_json(value);
    if indent * 2 + compact.len() <= JSON_WIDTH
        || !matches!(value, Value::Object(_) | Value::Array(_))
    {
        out.push_str(&compact);
        return;
    }
    let pad = "  ".repeat(indent + 1);
    match value {
        Value::Object(map) => {
            out.push_str("{\n");
            for (i, (key, child)) in map.iter().enumerate() {
                out.push_str(&pad);
                out.push_str(&serde_json::Value::String(key.clone()).to_string());
                out.push_str(": ");
                write_json(child, indent + 1, out);
                if i + 1 < map.len() {
                    out.push(',');
                }
                out.push('\n');
            }
        }
        Value::Array(items) => {
            out.push_str("[\n");
            for (i, child) in items.iter().enumerate() {
                out.push_str(&pad);
                write_json(child, indent + 1, out);
                if i + 1 < items.len() {
                    out.push(',');
                }
                out.push('\n');
            }
        }
        _ => {}
    }
    out.push_str(&"  ".repeat(indent));
    out.push(if value.is_object() { '}' } else { ']' });
}

fn compact_json(value: &serde_json::Value) -> String {
    use serde_json::Value;
    match value {
        Value::Object(map) if map.is_empty() => "{}".into(),
        Value::Object(map) => {
            let inner: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{}: {}", Value::String(k.clone()), compact_json(v)))
                .collect();
            format!("{{ {} }}", inner.join(", "))
        }
        Value::Array(items) => {
            let inner: Vec<String> = items.iter().map(compact_json).collect();
            format!("[{}]", inner.join(", "))
        }
        other => other.to_string(),
    }
}

/// One execution's cost in one line, zero parts left out.
/// How a paged step finds a later page and what a deep page costs:
/// "paged by keyset: a later page starts after created_at, the same keys
/// at any depth" or "paged by skip: 4.8 index keys skipped per run on
/// average, 24,975 to reach the deepest page".
pub(crate) fn paging(p: &crate::design::StepPaging) -> String {
    match p.by {
        // Children in count buckets (the only keyset pages that walk):
        // after the last child's tuple, walking past the newer buckets
        // (`costs/plan/bucket.rs`, `read_bucket_elements`).
        crate::model::PagingBy::Keyset if p.skipped > 0.0 || p.deepest_skipped > 0.0 => format!(
            "paged by keyset: a later page starts after the last {} seen (ties by bucket and position in it), {} bucket keys walked past per run on average, {} to reach the deepest page",
            p.after.as_deref().unwrap_or("sort key"),
            words::num(p.skipped),
            words::num(p.deepest_skipped)
        ),
        // A sort of several keys starts after the last item's tuple of
        // them (its `_id` last), not after its first key alone.
        crate::model::PagingBy::Keyset if !p.then.is_empty() => format!(
            "paged by keyset: a later page starts after the last ({}, _id) seen, {} at any depth",
            p.after
                .iter()
                .chain(&p.then)
                .map(String::as_str)
                .collect::<Vec<_>>()
                .join(", "),
            words::count(p.page, "key")
        ),
        crate::model::PagingBy::Keyset => format!(
            "paged by keyset: a later page starts after the last {} seen, {} at any depth",
            p.after.as_deref().unwrap_or("sort key"),
            words::count(p.page, "key")
        ),
        crate::model::PagingBy::Skip => format!(
            "paged by skip: {} index keys skipped per run on average, {} to reach the deepest page",
            words::num(p.skipped),
            words::num(p.deepest_skipped)
        ),
    }
}

/// A fan-out read at the largest parent, beside its typical price: "for
/// the largest user (7,500 follows): a $in of 7,500 ids, 100 documents
/// found, 100 examined, 7,600 index keys; not in the price, which is a
/// typical user's" (audit48 B3).
pub(crate) fn largest(l: &crate::design::StepLargest) -> String {
    let ids = l
        .ids
        .map(|n| format!("a $in of {} ids, ", words::num(n)))
        .unwrap_or_default();
    format!(
        "for the largest {} ({} {}): {ids}{} found, {} examined, {} index keys; not in the price, which is a typical {}'s",
        words::singular(&l.parent),
        words::num(l.children),
        words::plural(&l.child),
        words::count(l.documents, "document"),
        words::num(l.examined),
        words::num(l.keys),
        words::singular(&l.parent),
    )
}

/// A geo search's worst case, beside its typical price: "where the
/// places are densest (the density's max): 2,828 documents found,
/// 2,828 examined, 461.3 KiB read", and how much of the price it is:
/// "priced for 10% of the searches" with the model's `densest_share`,
/// else "not in the price: the model gives no densest_share".
pub(crate) fn densest(d: &crate::design::StepDensest) -> String {
    let priced = match d.share {
        Some(s) => format!("priced for {} of the searches", words::percent(s)),
        None => "not in the price: the model gives no `densest_share`".to_string(),
    };
    format!(
        "where the places are densest (the density's max): {} found, {} examined, {} read; {priced}",
        words::count(d.documents, "document"),
        words::num(d.examined),
        words::bytes(d.bytes_read)
    )
}

/// Why a write that moves what it finds out of its own selection is
/// priced at fewer documents than its filter matches today: "each run
/// finds only the documents that arrived since the run before (the write
/// moves what it finds out of its own filter): 4,790 documents; the first
/// run after deployment finds the backlog, 6,888,000 documents".
pub(crate) fn backlog(per_run: f64, backlog: f64) -> String {
    format!(
        "each run finds only what arrived since the run before (the write moves what it finds out of its own filter): {}; the first run after deployment finds the whole backlog, {}",
        words::count(per_run, "document"),
        words::count(backlog, "document")
    )
}

/// An operation's per-run line: its cost (`per_run`), and the index
/// entries its updates rewrite, which the keys examined do not say (an
/// update by `_id` that moves a key of two indexes examines 1 index key
/// and rewrites 2 entries).
pub(crate) fn per_run_of(plan: &crate::design::OperationPlan) -> String {
    let mut line = per_run(&plan.cost);
    if plan.index_entries_rewritten > 0.0 {
        line.push_str(", ");
        line.push_str(&words::count(plan.index_entries_rewritten, "index entry"));
        line.push_str(" rewritten");
    }
    line
}

pub(crate) fn per_run(cost: &Cost) -> String {
    let mut parts = vec![words::count(cost.round_trips, "round trip")];
    if cost.documents_examined != 0.0 {
        parts.push(words::count(cost.documents_examined, "document") + " examined");
    }
    if cost.index_keys_examined != 0.0 {
        parts.push(words::count(cost.index_keys_examined, "index key"));
    }
    if cost.bytes_read != 0.0 {
        parts.push(format!("{} read", words::bytes(cost.bytes_read)));
    }
    if cost.bytes_written != 0.0 {
        parts.push(format!("{} written", words::bytes(cost.bytes_written)));
    }
    if cost.documents_written != 0.0 {
        parts.push(words::count(cost.documents_written, "document") + " written");
    }
    if cost.sync_writes != 0.0 {
        parts.push(words::count(cost.sync_writes, "sync write"));
    }
    parts.join(", ")
}

pub(crate) fn action(action: Action) -> &'static str {
    match action {
        Action::Find => "find",
        Action::GraphLookup => "aggregate with $graphLookup",
        Action::InsertOne => "insertOne",
        Action::InsertMany => "insertMany",
        Action::UpdateOne => "updateOne",
        Action::UpdateMany => "updateMany",
        Action::Upsert => "upsert",
        Action::DeleteOne => "deleteOne",
        Action::DeleteMany => "deleteMany",
        Action::FindOneAndUpdate => "findOneAndUpdate",
        Action::BulkWrite => "bulkWrite",
    }
}

/// `{ host: 1, time: -1 }`.
pub(crate) fn keys(keys: &[(String, i32)]) -> String {
    if keys.is_empty() {
        return "{}".into();
    }
    let inner: Vec<String> = keys
        .iter()
        .map(|(k, d)| match crate::design::key_kind(*d) {
            crate::design::KeyKind::Named(n) => format!("{k}: \"{n}\""),
            kind => format!("{k}: {kind}"),
        })
        .collect();
    format!("{{ {} }}", inner.join(", "))
}

/// `{ host: $eq (parameter), time: $gte (parameter) }`.
pub(crate) fn filter(step: &Step) -> String {
    if step.filter.is_empty() {
        return "{}".into();
    }
    let term = |path: &str, f: &StepFilter| {
        format!("{path}: {} ({})", test(f), value_source(&f.value_from))
    };
    // A read of an array's elements: their tests hold for one element.
    let inside = step.elements.as_ref().map(|a| format!("{a}."));
    fn element<'f>(inside: Option<&str>, f: &'f StepFilter) -> Option<&'f str> {
        inside.and_then(|i| f.path.strip_prefix(i))
    }
    let inside = inside.as_deref();
    let mut inner: Vec<String> = Vec::new();
    let mut grouped: Vec<String> = step
        .filter
        .iter()
        .filter_map(|f| element(inside, f).map(|rest| term(rest, f)))
        .collect();
    for f in &step.filter {
        match (element(inside, f), &step.elements) {
            (None, _) => inner.push(term(&f.path, f)),
            (Some(_), Some(array)) if !grouped.is_empty() => inner.push(format!(
                "{array}: $elemMatch {{ {} }}",
                std::mem::take(&mut grouped).join(", ")
            )),
            _ => {}
        }
    }
    format!("{{ {} }}", inner.join(", "))
}

/// The test a filter makes: `eq`, `in`, `range`; `lt` below a constant,
/// `gt` above one.
fn test(f: &StepFilter) -> &'static str {
    match (f.op, &f.value_from) {
        (_, ValueSource::Below { .. }) => "lt",
        (_, ValueSource::RoomFor { .. }) => "lte",
        (_, ValueSource::Above { .. }) => "gt",
        (_, ValueSource::Missing) => "missing",
        (_, ValueSource::NotHeld) => "ne",
        (_, ValueSource::WindowStart { .. }) => "gte",
        (_, ValueSource::WindowEnd { .. }) => "lt",
        (_, ValueSource::Unexpired { .. }) => "gt",
        (FilterOp::Eq, _) => "eq",
        (FilterOp::In, _) => "in",
        (FilterOp::Range, _) => "range",
        (FilterOp::Under, _) => "under",
        (FilterOp::Near, _) => "near",
        (FilterOp::Within, _) => "within",
        (FilterOp::Intersects, _) => "intersects",
    }
}

/// Where a filter's value comes from, in words: `parameter`, `ids from step
/// 1`, `the old author_id`.
pub(crate) fn value_source(v: &ValueSource) -> String {
    match v {
        ValueSource::Param => "parameter".to_string(),
        ValueSource::FromStep { step } => format!("ids from step {step}"),
        ValueSource::FromSteps { steps } => {
            let steps: Vec<String> = steps.iter().map(ToString::to_string).collect();
            format!("ids from steps {}", steps.join(" and "))
        }
        ValueSource::Old { field } => format!("the old {field}"),
        ValueSource::New { field } => format!("the new {field}"),
        ValueSource::LinkId { field } => format!("the {field}'s id (parameter)"),
        ValueSource::Truncated { field, unit } => format!("{field} truncated to the {unit}"),
        ValueSource::Literal { value } => format!("\"{value}\""),
        ValueSource::Below { limit } | ValueSource::Above { limit } => words::int(*limit),
        ValueSource::RoomFor { limit } => format!("{} less the chunk's length", words::int(*limit)),
        ValueSource::Missing => "the array has room".to_string(),
        ValueSource::NotHeld => "parameter, held by no element yet".to_string(),
        ValueSource::WindowStart { field } => format!("the start of the window on {field}"),
        ValueSource::WindowEnd { field } => format!("the end of the window on {field}"),
        ValueSource::WindowKey { field, unit } => {
            format!("the window on {field}, its start truncated to the {unit}")
        }
        ValueSource::Unexpired { seconds } => {
            format!(
                "now less {} (not expired)",
                words::duration_seconds(*seconds)
            )
        }
    }
}

/// `$set name`, `$push logmsgs (sort time: -1, slice -1000)`.
pub(crate) fn update(op: &UpdateOp) -> String {
    match op {
        UpdateOp::Set { path } => format!("$set {path}"),
        UpdateOp::Unset { path } => format!("$unset {path}"),
        UpdateOp::Inc {
            path,
            by,
            amount: Some(amount),
        } => {
            let sign = if by.is_some_and(|b| b < 0.0) { "-" } else { "" };
            format!("$inc {path} by {sign}{amount} (the caller's amount)")
        }
        UpdateOp::Inc {
            path,
            by: Some(by),
            amount: None,
        } => format!("$inc {path} by {}", words::num(*by)),
        UpdateOp::Inc {
            path,
            by: None,
            amount: None,
        } => format!("$inc {path}"),
        UpdateOp::Dec { path } => format!("$inc {path} (down)"),
        UpdateOp::Min { path } => format!("$min {path}"),
        UpdateOp::SetOnInsert { path } => format!("$setOnInsert {path}"),
        UpdateOp::Max { path } => format!("$max {path}"),
        UpdateOp::Push { path, sort, slice } => {
            let mut extra = Vec::new();
            if let Some((field, dir)) = sort {
                extra.push(format!("$sort {field}: {dir}"));
            }
            if let Some(slice) = slice {
                extra.push(format!("$slice {slice}"));
            }
            if extra.is_empty() {
                format!("$push {path}")
            } else {
                format!("$push {path} ($each, {})", extra.join(", "))
            }
        }
        UpdateOp::AddToSet { path } => format!("$addToSet {path}"),
        UpdateOp::Pull { path } => format!("$pull {path}"),
        UpdateOp::Rebase { path } => format!("rebase {path} on the new parent's path"),
        UpdateOp::SetElements { path, fields, adds } => {
            // `$set x`, `$inc qty by 1`: each change of a matched element.
            let mut changes: Vec<String> = Vec::new();
            if !fields.is_empty() {
                changes.push(format!("$set {}", fields.join(", ")));
            }
            changes.extend(adds.iter().map(update));
            format!(
                "{} in the matched {path} (pipeline $map)",
                changes.join(", ")
            )
        }
        UpdateOp::SetOld { path, field } => format!("$set {path} to the old {field} (no change)"),
        UpdateOp::SetFrom {
            path, step, field, ..
        } => {
            format!("$set {path} to the {field} step {step} found")
        }
        UpdateOp::CopyFrom { path, step, field } => {
            format!("$set {path} to the {field} of the one step {step} found")
        }
        UpdateOp::DropElements { path } => format!("drop the matched {path} (pipeline $filter)"),
        UpdateOp::PullExpired {
            path,
            field,
            seconds,
        } => format!(
            "drop the {path} whose {field} is more than {} old (pipeline $filter)",
            crate::words::duration_seconds(*seconds)
        ),
        UpdateOp::Recompute {
            path,
            function,
            over,
            by: Some(by),
        } if matches!(
            function,
            crate::model::AggregateFn::First | crate::model::AggregateFn::Last
        ) =>
        {
            let end = if *function == crate::model::AggregateFn::First {
                "least"
            } else {
                "greatest"
            };
            format!("$set {path} to the {over} of the element with the {end} {by} (pipeline)")
        }
        UpdateOp::Recompute {
            path,
            function,
            over,
            ..
        } => {
            let of = match function {
                crate::model::AggregateFn::Count => "$size",
                crate::model::AggregateFn::Sum | crate::model::AggregateFn::Avg => "$sum",
                crate::model::AggregateFn::Min => "$min",
                crate::model::AggregateFn::Max => "$max",
                crate::model::AggregateFn::First => "the first of",
                crate::model::AggregateFn::Last => "the last of",
            };
            format!("$set {path} to {of} {over}")
        }
        UpdateOp::Reset { path, function } => match function {
            crate::model::AggregateFn::Count
            | crate::model::AggregateFn::Sum
            | crate::model::AggregateFn::Avg => format!("$set {path} to 0"),
            _ => format!("$set {path} to null"),
        },
    }
}

/// An update of a bulk write whose amount each document takes from the
/// found documents (`$inc stock by -items.quantity, each its own`), else
/// as `update` says it.
fn each_update(step: &Step, u: &UpdateOp) -> String {
    if let (Some(each), UpdateOp::Set { path }) = (&step.each, u)
        && let Some(x) = each.sets.iter().find(|x| x.path == *path)
    {
        return match (each.from_step, &each.ids_from) {
            // Each parent the ids name, found by the grouped read or not.
            (Some(n), Some(ids)) => format!(
                "$set {path} to the {} step {n} found for each {} of step {} ({} where it found none)",
                x.from,
                ids.path,
                ids.step,
                if x.zero { "0" } else { "null" }
            ),
            (Some(n), None) => {
                format!("$set {path} to the {} step {n} found, each its own", x.from)
            }
            (None, _) => format!("$set {path} to (the value given with each id)"),
        };
    }
    let (Some(each), UpdateOp::Inc { path, .. } | UpdateOp::Dec { path }) = (&step.each, u) else {
        return update(u);
    };
    match each.amounts.iter().find(|a| a.path == *path) {
        Some(a) => {
            let sign = if a.negative { "-" } else { "" };
            match each.from_step {
                Some(n) => format!(
                    "$inc {path} by {sign}{} from step {n}, each its own",
                    a.from
                ),
                None => format!("$inc {path} by {sign}(the amount given with each id)"),
            }
        }
        None => update(u),
    }
}

/// One step in one line: `find persons { _id: $eq (parameter) } via _id_ → 1 document`.
pub(crate) fn step(step: &Step) -> String {
    let verb = if step.count.is_some() && step.elements.is_some() {
        "aggregate"
    } else if step.count.is_some() {
        "countDocuments"
    } else {
        action(step.action)
    };
    let mut text = format!("{verb} {}", step.collection);
    if !step.filter.is_empty() {
        text.push(' ');
        text.push_str(&filter(step));
    }
    if !step.conditions.is_empty() {
        text.push_str(&format!(" only if {}", conditions(step)));
    }
    if !step.sort.is_empty() {
        text.push_str(&format!(" sort {}", keys(&step.sort)));
    }
    if let Some(limit) = step.limit {
        text.push_str(&format!(" limit {}", words::int(limit)));
    }
    match (&step.group_first, step.group_sums.as_slice()) {
        (Some(by), []) => text.push_str(&format!(", the first of each {by} ($group)")),
        (Some(by), sums) => {
            let names: Vec<&str> = sums.iter().map(|s| s.name.as_str()).collect();
            text.push_str(&format!(", {} of each {by} ($group)", names.join(", ")));
        }
        _ => {}
    }
    if !step.updates.is_empty() {
        let ops: Vec<String> = step.updates.iter().map(|u| each_update(step, u)).collect();
        text.push_str(&format!(" {}", ops.join(", ")));
    }
    match &step.index {
        Some(index) => text.push_str(&format!(" using index {index}")),
        None if matches!(step.action, Action::InsertOne | Action::InsertMany) => {}
        None => text.push_str(" (no index: collection scan)"),
    }
    // Elements of an array counted on the server: how many, not the
    // documents that hold them (those are the cost's documents examined).
    if let (Some(_), Some(array)) = (step.count, &step.elements) {
        text.push_str(&format!(
            " → {} counted on the server: each matching {array} element on its own ($unwind), then $count",
            words::count(step.documents, "element")
        ));
        return text;
    }
    text.push_str(&format!(" → {}", words::count(step.documents, "document")));
    match step.count {
        Some(c) if c.covered => text.push_str(" counted from the index keys alone"),
        Some(_) => text.push_str(" counted, each fetched to test the conditions the index lacks"),
        None => {}
    }
    if let Some(array) = &step.elements {
        // Children in buckets: the buckets a page of them needs, first.
        if let Some(b) = &step.bucket_order {
            let sort: Vec<String> = b.sort.iter().map(|(p, d)| format!("{p}: {d}")).collect();
            // A read of no order (children of every parent in a window):
            // the buckets in the order the index finds them.
            if sort.is_empty() {
                text.push_str(", the buckets as the index finds them");
            } else {
                text.push_str(&format!(", the buckets taken by {{ {} }}", sort.join(", ")));
            }
            if let Some(l) = b.limit {
                text.push_str(&format!(" limit {l}"));
            }
        }
        text.push_str(&format!(
            ", each matching {array} element on its own ($unwind)"
        ));
    }
    if let Some(g) = &step.figures {
        let per = g
            .per
            .as_ref()
            .map(|p| format!(" and {} {}", p.unit, p.field))
            .unwrap_or_default();
        let names: Vec<&str> = g.figures.iter().map(|f| f.name.as_str()).collect();
        text.push_str(&format!(
            ", grouped by {}{per} on the server ($group: {}) → {}",
            g.by,
            names.join(", "),
            words::count(g.rows, "row")
        ));
    }
    match (step.every, step.if_matched) {
        (Some(n), None) if step.if_full.is_some() => {
            let full = step.if_full.as_deref();
            text.push_str(&format!(
                ", only when a document of step {} holds {} full ({} items; about once every {} runs){}",
                full.map_or(0, |f| f.step),
                full.map_or("", |f| f.array.as_str()),
                words::int(full.map_or(0, |f| f.threshold)),
                words::int(n),
                if full.is_some_and(|f| f.each) {
                    ", once for each such document, its limit that document's"
                } else {
                    ""
                }
            ));
        }
        (Some(n), Some(k)) => text.push_str(&format!(
            ", only when step {k} matched (about once every {} runs)",
            words::int(n)
        )),
        (Some(n), None) => text.push_str(&format!(", once every {} runs", words::int(n))),
        (None, Some(k)) if step.if_changed => {
            text.push_str(&format!(", only when step {k} changed its document"));
        }
        (None, Some(k)) => text.push_str(&format!(", only when step {k} matched")),
        (None, None) => {}
    }
    if step.fallback {
        text.push_str(", when the write before matched nothing");
    }
    if let Some(gate) = deleted_all(step) {
        text.push_str(&format!(", {gate}"));
    }
    if let Some(o) = step.otherwise {
        let claim = step.action == crate::design::Action::FindOneAndUpdate;
        text.push_str(&format!("; if nothing matches: {}", otherwise(o, claim)));
    }
    text
}

/// When a step after a delete of many runs (`Step::if_deleted_all`):
/// only when that delete deleted every document the find returned, or
/// only when it deleted fewer (another delete took some of them first),
/// which is not priced.
pub(crate) fn deleted_all(step: &Step) -> Option<String> {
    let g = step.if_deleted_all.as_ref()?;
    Some(if g.holds {
        format!(
            "only when step {} deleted every document step {} found",
            g.delete, g.found
        )
    } else {
        format!(
            "only when step {} deleted fewer than step {} found (another delete took some first; not priced)",
            g.delete, g.found
        )
    })
}

/// A conditional write's tests: `remaining > 0 and status = "pending"`.
pub(crate) fn conditions(step: &Step) -> String {
    // The array whose elements the step writes one by one (`lines` of a
    // pipeline's rewrite, or of `lines.$`): a path in it is a field of
    // the element tested, not of the document.
    let element_of = |p: &str| -> Option<String> {
        p.rsplit_once('.').map(|(a, _)| a.to_string()).filter(|a| {
            step.updates.iter().any(|u| match u {
                UpdateOp::SetElements { path, .. } => path == a,
                u => u.path().starts_with(&format!("{a}.$")),
            })
        })
    };
    step.conditions
        .iter()
        .map(|c| {
            let value = match &c.value {
                crate::model::Literal::Number(n) => words::num(*n),
                crate::model::Literal::Text(t) => format!("\"{t}\""),
                crate::model::Literal::Bool(b) => b.to_string(),
                crate::model::Literal::Amount(a) => format!("{a} (the caller's amount)"),
                crate::model::Literal::Field(f)
                    if element_of(f).is_some() && element_of(f) == element_of(&c.path) =>
                {
                    format!("{f} (a field of the same element)")
                }
                crate::model::Literal::Field(f) => format!("{f} (a field of the same document)"),
                crate::model::Literal::Param(p) => format!("{p} (the caller's value)"),
            };
            let left = crate::model::left_side(&c.path, c.plus.as_ref());
            let amount = c.plus.as_ref().map_or(String::new(), |p| {
                format!(", {} being the caller's amount", p.amount)
            });
            format!("{left} {} {value}{amount}", c.test.symbol())
        })
        .collect::<Vec<_>>()
        .join(" and ")
}

/// What the application does when a conditional write (or, `claim`, a
/// claim) matches nothing.
pub(crate) fn otherwise(o: crate::model::Otherwise, claim: bool) -> &'static str {
    match o {
        crate::model::Otherwise::Fail => "the operation fails and tells the caller",
        crate::model::Otherwise::Undo => {
            "the application undoes the earlier writes of its atomic group"
        }
        // A claim that finds nothing has nothing to claim; only a write
        // whose condition is its own result was already done (audit46 D9).
        crate::model::Otherwise::Skip if claim => "nothing to do (none to claim)",
        crate::model::Otherwise::Skip => "nothing to do (already done)",
        crate::model::Otherwise::Insert => "the next steps add it",
    }
}

/// An entity-level decision in one line.
pub(crate) fn entity_decision(decision: &EntityDecision) -> String {
    match decision {
        EntityDecision::Polymorphic {
            collection,
            entities,
            discriminator,
            ..
        } => format!(
            "polymorphic collection {collection} holds {} (told apart by `{discriminator}`)",
            entities.join(", ")
        ),
        EntityDecision::ComputedField {
            entity,
            field,
            computes,
            maintained_by,
            ..
        } => format!(
            "computed field {entity}.{field} = {computes}, {}",
            upkeep(maintained_by)
        ),
        EntityDecision::Archive {
            entity,
            collection,
            archive,
            field,
            horizon_days,
            moved_per_second,
            working_set,
            without_archive,
            ..
        } => format!(
            "archive by age: {collection} keeps the {} of {} (by `{field}`), older ones move to {archive} ({} by a scheduled job); working set {} instead of {}",
            crate::words::plural(entity),
            crate::words::last_period(*horizon_days),
            crate::words::rate(*moved_per_second),
            working_set_words(working_set),
            working_set_words(without_archive),
        ),
        EntityDecision::Timeline {
            collection,
            reader,
            items,
            feed,
            limit,
            threshold,
            pushed,
            maintained_by,
            ..
        } => {
            let mut s = format!(
                "timeline (fan-out on write) {collection}: a document per {reader} with its feed {feed}'s newest {} {}, each new one pushed into about {} timelines; {}",
                crate::words::int(*limit),
                crate::words::plural(items),
                crate::words::num(*pushed),
                upkeep(maintained_by)
            );
            if let Some(t) = threshold {
                s.push_str(&format!(
                    "; parents with more than {} followers are not pushed: each timeline lists those it follows in `outliers`, whose {} the feed reads at read time",
                    crate::words::int(*t),
                    crate::words::plural(items)
                ));
            }
            s
        }
    }
}

/// "90 M documents (41.9 GiB) and 180 M index entries (5.7 GiB)".
pub(crate) fn working_set_words(w: &crate::design::WorkingSet) -> String {
    format!(
        "{} documents ({}) and {} index entries ({})",
        crate::words::num(w.documents as f64),
        crate::words::bytes(w.document_bytes as f64),
        crate::words::num(w.index_entries as f64),
        crate::words::bytes(w.index_bytes as f64)
    )
}

pub(crate) fn entity_decision_rules(decision: &EntityDecision) -> &[crate::design::RuleHit] {
    decision.rules()
}

/// Where a finding points, as text.
pub(crate) fn location(location: &crate::finding::Location) -> String {
    use crate::finding::Location;
    match location {
        Location::Model { path } => path.clone(),
        Location::Collection {
            file,
            database,
            collection,
            field,
            example_id,
        } => {
            let mut text = String::new();
            if let Some(file) = file {
                text.push_str(&format!("{}: ", file.display()));
            }
            if let Some(db) = database {
                text.push_str(&format!("{db}."));
            }
            text.push_str(collection);
            if let Some(field) = field {
                text.push_str(&format!(" field {field}"));
            }
            if let Some(id) = example_id {
                text.push_str(&format!(" (e.g. _id {id})"));
            }
            text
        }
        Location::File {
            path,
            line,
            byte_offset,
        } => {
            let mut text = path.display().to_string();
            if let Some(line) = line {
                text.push_str(&format!(":{line}"));
            }
            if let Some(offset) = byte_offset {
                text.push_str(&format!(" at byte {offset}"));
            }
            text
        }
    }
}

/// Evidence as `name = value` pairs.
pub(crate) fn evidence(evidence: &[crate::finding::Evidence]) -> String {
    evidence
        .iter()
        .map(|e| {
            let value = match &e.value {
                serde_json::Value::Number(n) => {
                    n.as_f64().map_or_else(|| n.to_string(), words::num)
                }
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            format!("{} = {value}", e.name)
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Who keeps a derived value up to date. A workload may change none of what
/// it is derived from (the children are loaded by a tool it does not list):
/// the value is then written with the data, and the sentence says so
/// instead of ending on "by".
fn upkeep(maintained_by: &[String]) -> String {
    if maintained_by.is_empty() {
        "written with the data: no operation of the workload changes what it is derived from"
            .to_string()
    } else {
        format!("kept up to date by {}", maintained_by.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Audit48 B3: the largest parent's line names the parent and its
    /// children, the ids of a `$in`, and says the price is the typical's.
    #[test]
    fn the_largest_parent_in_words() {
        let l = crate::design::StepLargest {
            relationship: "following".into(),
            parent: "user".into(),
            child: "follow".into(),
            children: 7_500.0,
            ids: Some(7_500.0),
            documents: 100.0,
            examined: 100.0,
            keys: 7_600.0,
        };
        insta::assert_snapshot!(largest(&l), @"for the largest user (7,500 follows): a $in of 7,500 ids, 100 documents found, 100 examined, 7,600 index keys; not in the price, which is a typical user's");
    }

    /// Audit48 C3: a part of a difference that rounds to nothing is left
    /// out, never "-0 B read/s"; the score is always there.
    #[test]
    fn a_difference_of_noise_is_left_out() {
        let delta = Cost {
            round_trips: 500.0,
            bytes_read: -1e-13,
            score: -1e-13,
            ..Cost::default()
        };
        assert_eq!(cost_delta(&delta), "+500 round trips/s, score 0");
    }

    /// audit46 D9: a claim with `otherwise: skip` that finds nothing had
    /// nothing to claim; a conditional update that matches nothing was
    /// already done. The claim once said "already done" too.
    #[test]
    fn a_skipped_claim_found_nothing_to_claim() {
        let yaml = "
entities:
  ticket:
    count: 100000
    fields:
      status: {type: string(8), enum: [new, open, done]}
      priority: int
operations:
  take_next:
    claim: ticket
    filter: {status: eq}
    sort: [-priority]
    when: ['status = new']
    changes: [status]
    otherwise: skip
    rate: 30
  close:
    update: ticket
    filter: {_id: eq}
    when: ['status = open']
    changes: [status]
    otherwise: skip
    rate: 10
";
        let model = crate::inputs::model_file::parse("claim.yaml", yaml).unwrap();
        let design =
            crate::advise::advise(&model, &crate::settings::Settings::default(), None).unwrap();
        let line = |op: &str| {
            let plan = design
                .operations
                .iter()
                .find(|o| o.operation == op)
                .unwrap();
            plan.steps.iter().map(step).collect::<Vec<_>>().join("\n")
        };
        assert!(
            line("take_next").ends_with("; if nothing matches: nothing to do (none to claim)"),
            "{}",
            line("take_next")
        );
        assert!(
            line("close").ends_with("; if nothing matches: nothing to do (already done)"),
            "{}",
            line("close")
        );
    }

    /// Issue 41: S7's copies frozen when a line or an invoice is written
    /// are labelled a snapshot, not an extended reference; a live copy
    /// beside a snapshot (the customer's name on an invoice) keeps its
    /// label.
    #[test]
    fn snapshots_are_labelled_snapshots() {
        let model = crate::inputs::model_file::parse(
            "s07.yaml",
            &crate::rules::testing::example("scenarios/s07-invoices.yaml"),
        )
        .unwrap();
        let design =
            crate::advise::advise(&model, &crate::settings::Settings::default(), None).unwrap();
        let label = |rel: &str| {
            let d = design
                .relationships
                .iter()
                .find(|d| d.relationship == rel)
                .unwrap();
            decided(d, &d.chosen)
        };
        assert_eq!(
            label("sold"),
            "snapshot (copies name, price into each child once, when it is written; never refreshed)"
        );
        assert_eq!(
            label("invoices"),
            "extended reference (copies name into each child, refreshed when they change) and \
             snapshot (copies billing_address into each child once, when it is written; never refreshed)"
        );
    }

    #[test]
    fn small_objects_stay_on_one_line() {
        let value = serde_json::json!({"_id": {"$oid": "65f1a2b3c4d5e6f708192a3b"}, "tags": ["a", "b"], "long": "x".repeat(80)});
        let text = pretty_json(&value);
        assert!(
            text.contains("\"_id\": { \"$oid\": \"65f1a2b3c4d5e6f708192a3b\" },"),
            "{text}"
        );
        assert!(text.contains("\"tags\": [\"a\", \"b\"],"), "{text}");
        let back: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back, value);
    }

    #[test]
    fn abridged_examples_say_what_they_left_out() {
        let value = serde_json::json!({"a": [1, 2, 3, 4], "s": "x".repeat(50), "b": [1]});
        assert_eq!(
            abridge(&value),
            serde_json::json!({"a": [1, 2, "… 2 more"], "s": format!("{}…", "x".repeat(40)), "b": [1]})
        );
    }
}
