//! Paging on a sort of two keys (issue 41, the audit's G3) and a claim's
//! partial index beside a full one on the same keys (G6). A queue of
//! tickets, highest priority first and oldest first within a priority:
//! priority takes 4 values, so most tickets share their priority with
//! the last one of a page. Each test fails on the code before its fix.

use crate::advise::advise;
use crate::artifacts::cookbook::{mongosh_function, node_function, op_code, python_function};
use crate::design::{Design, OperationPlan};
use crate::settings::Settings;

/// The queue; `BY` is the paging (`keyset` or `skip`), `CLAIM` holds the
/// claim of the next open ticket (or nothing).
const QUEUE: &str = r"
name: queue
tenant: org
entities:
  org: {count: 2000, fields: {name: string(30)}}
  ticket:
    count: 3000000
    fields:
      status: {type: string(8), enum: [open, claimed, solved]}
      priority: {type: int, distinct: 4}
      created_at: date
      claimed_by: {type: objectId, required: false}
relationships:
  tickets: {parent: org, child: ticket, children: {min: 0, typical: 1500, max: 40000}, child_field: org, layout: parent-reference}
operations:
  open_queue:
    read: ticket
    rate: 800
    filter: {status: eq}
    sort: [-priority, created_at]
    limit: 50
    paging: {by: BY, past_first: 0.3, depth: {typical: 4, max: 2000}}
  open_ticket: {insert: ticket, links: [tickets], rate: 400}
CLAIM";

const CLAIM: &str = r#"  claim_next:
    claim: ticket
    filter: {status: eq}
    sort: [-priority, created_at]
    when: ["status = open"]
    changes: [status, claimed_by]
    rate: 400
"#;

fn design(by: &str, claim: &str) -> Design {
    let text = QUEUE.replace("BY", by).replace("CLAIM", claim);
    let model =
        crate::inputs::model_file::parse("queue.yaml", &text).unwrap_or_else(|e| panic!("{e}"));
    advise(&model, &Settings::default(), None).unwrap_or_else(|e| panic!("{e}"))
}

fn plan<'d>(d: &'d Design, name: &str) -> &'d OperationPlan {
    d.operations
        .iter()
        .find(|p| p.operation == name)
        .unwrap_or_else(|| panic!("no plan {name}"))
}

/// The keys of the index `step` uses, from its collection's list.
fn index_of(d: &Design, plan: &OperationPlan) -> Vec<(String, i32)> {
    let step = &plan.steps[0];
    let name = step.index.as_ref().expect("an index");
    d.collections
        .iter()
        .flat_map(|c| &c.indexes)
        .find(|i| &i.name == name)
        .unwrap_or_else(|| panic!("no index {name}"))
        .keys
        .clone()
}

/// Whether the index's keys from `priority` on give the sort `wanted` walked
/// one way or the other: the server then sorts nothing.
fn walks_in(keys: &[(String, i32)], wanted: &[(&str, i32)]) -> bool {
    let at = keys
        .iter()
        .position(|(k, _)| k == "priority")
        .expect("priority");
    let tail = &keys[at..];
    tail.len() == wanted.len()
        && [1, -1].iter().any(|sign| {
            tail.iter()
                .zip(wanted)
                .all(|((k, d), (w, e))| k == w && *d == sign * e)
        })
}

/// Keyset: a later page starts after the last ticket's priority, its
/// created_at and its `_id`, compared in turn (`$or` of three ranges);
/// the first key alone (`priority < last`) skipped every other ticket of
/// the last priority seen. The index serves the whole sort, `_id` too.
#[test]
fn keyset_pages_of_two_sort_keys_start_after_the_whole_tuple() {
    let d = design("keyset", "");
    let p = plan(&d, "open_queue");
    let paging = p.steps[0].paging.as_deref().expect("paged");
    assert_eq!(paging.after.as_deref(), Some("priority"));
    assert_eq!(paging.then, ["created_at"]);
    let text = crate::outputs::design::text::render(&d, false);
    assert!(
        text.contains("paged by keyset: a later page starts after the last (priority, created_at, _id) seen, 50 keys at any depth"),
        "{text}"
    );
    let keys = index_of(&d, p);
    assert!(
        walks_in(&keys, &[("priority", -1), ("created_at", 1), ("_id", 1)]),
        "{keys:?}"
    );
    let code = op_code(&d, p);
    let range = r#"{"$or": [{"priority": {"$lt": after_priority}}, {"priority": after_priority, "created_at": {"$gt": after_created_at}}, {"priority": after_priority, "created_at": after_created_at, "_id": {"$gt": after_ticket_id}}]}"#;
    let py = python_function(&code);
    assert!(py.contains(range), "{py}");
    assert!(
        py.contains(r#".sort([("priority", -1), ("created_at", 1), ("_id", 1)])"#),
        "{py}"
    );
    assert!(
        py.contains("after_priority=None, after_created_at=None, after_ticket_id=None)"),
        "{py}"
    );
    for js in [mongosh_function(&code), node_function(&code)] {
        assert!(js.contains(range), "{js}");
        assert!(
            js.contains(r#".sort({"priority": -1, "created_at": 1, "_id": 1})"#),
            "{js}"
        );
    }
}

/// Skip: pages are in `(priority desc, created_at asc, _id)` order, and
/// the index, walked one way or the other, gives that order with its
/// `_id` (it once kept `_id` ascending while the other sort keys were
/// turned, so the cookbook's sort was a blocking one).
#[test]
fn skip_pages_of_two_sort_keys_sort_on_the_index() {
    let d = design("skip", "");
    let p = plan(&d, "open_queue");
    let keys = index_of(&d, p);
    assert!(
        walks_in(&keys, &[("priority", -1), ("created_at", 1), ("_id", 1)]),
        "{keys:?}"
    );
    let py = python_function(&op_code(&d, p));
    assert!(
        py.contains(r#".sort([("priority", -1), ("created_at", 1), ("_id", 1)]).skip("#),
        "{py}"
    );
}

/// The claim of the next open ticket and the queue's pages read the same
/// keys: `{org, status}` by equality, then priority descending and
/// created_at ascending. The queue's full index serves the claim walked
/// backwards (the equality keys' direction does not matter), so no
/// partial index of the open tickets is kept beside it.
#[test]
fn a_claim_uses_the_full_index_of_its_keys() {
    let d = design("keyset", CLAIM);
    let queue = index_of(&d, plan(&d, "open_queue"));
    let claim = plan(&d, "claim_next");
    assert_eq!(index_of(&d, claim), queue);
    let ticket = d
        .collections
        .iter()
        .find(|c| c.name == "ticket")
        .expect("ticket");
    assert!(
        ticket.indexes.iter().all(|i| i.partial.is_empty()),
        "{:?}",
        ticket.indexes
    );
}
