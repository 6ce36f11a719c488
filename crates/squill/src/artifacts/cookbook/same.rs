//! An atomic group with `same: auction` promises that every write of the
//! group addresses one auction. Its function takes that auction's id for
//! the update (`raise_price(auction_id, …)`) and, for an insert of a child,
//! the caller's whole document (`new_bid`), whose own reference may name
//! another auction: the bid would then be recorded there while the first
//! auction's price changed (audit48 A5). Before any write, the group's
//! function refuses a document whose reference names another instance,
//! and sets the reference where the document has none.
//!
//! Refused, not overwritten: a bid that names auction B in a call for
//! auction A is a caller's mistake, and which auction the bidder meant is
//! not known here. Writing it on A records a bid on an auction the bidder
//! may never have seen; failing before any write says so and writes
//! nothing.

use super::code::{OpCode, ParamKind};
use crate::design::{Design, FieldOrigin, ShapeType, Side, Warning};
use crate::words::script;
use std::fmt::Write as _;

/// What ties a group's writes to its one instance: the parameter holding
/// that instance's id, and each inserted document's reference to it.
#[derive(Debug, Clone, PartialEq, Default)]
pub(super) struct One {
    /// The `same:` entity's name, for messages.
    pub entity: String,
    /// The operation (an index into the cookbook's) and parameter that
    /// hold the instance's id.
    pub id: (usize, String),
    /// Each insert's document parameter (operation, parameter) and the
    /// path of its reference to the instance (`auction`, or `auction._id`
    /// for an extended reference).
    pub docs: Vec<(usize, String, Vec<String>)>,
    /// Every value parameter (operation, parameter) that names the
    /// instance, `id` first: its `_id` in its own collection, or a
    /// reference to it in a child's filter (`seat.show`). The group's
    /// function takes them as one parameter (compensate.rs `params`):
    /// two parameters would let a call sell a seat of show A while taking
    /// the count of show B (audit49 A6).
    pub ids: Vec<(usize, String)>,
}

/// The binding of a group made of operations `group_ops`, named `group`:
/// `None` when the model gives it no `same:` (no `NotMerged` warning
/// names the entity), when no operation takes the instance's id, or when
/// only one parameter names it and no insert's document refers to it.
pub(super) fn bind(
    design: &Design,
    ops: &[OpCode],
    group: &str,
    group_ops: &[usize],
) -> Option<One> {
    let entity = group_ops.iter().find_map(|&i| {
        design
            .operations
            .get(i)?
            .warnings
            .iter()
            .find_map(|w| match w {
                Warning::NotMerged {
                    group: g, entity, ..
                } if g == group => Some(entity.clone()),
                _ => None,
            })
    })?;
    let home = design
        .collections
        .iter()
        .find(|c| c.entities.contains(&entity))?;
    // The parameters naming the instance: its `_id` in its own
    // collection, or a child's one reference to it.
    let mut ids: Vec<(usize, String)> = Vec::new();
    let mut own = None;
    for &i in group_ops {
        for p in ops[i].params.iter().filter(|p| p.kind == ParamKind::Value) {
            let names_it = if p.collection == home.name {
                p.path == "_id"
            } else {
                reference(design, &p.collection, &entity).is_some_and(|r| r.join(".") == p.path)
            };
            if names_it {
                if own.is_none() && p.collection == home.name {
                    own = Some(ids.len());
                }
                ids.push((i, p.name.clone()));
            }
        }
    }
    if let Some(k) = own {
        let first = ids.remove(k);
        ids.insert(0, first);
    }
    let id = ids.first()?.clone();
    let mut docs = Vec::new();
    for &i in group_ops {
        for p in ops[i]
            .params
            .iter()
            .filter(|p| p.kind == ParamKind::Document)
        {
            if let Some(path) = reference(design, &p.collection, &entity) {
                docs.push((i, p.name.clone(), path));
            }
        }
    }
    (!docs.is_empty() || ids.len() > 1).then_some(One {
        entity,
        id,
        docs,
        ids,
    })
}

/// The path, in a document of `collection`, of its one reference to an
/// instance of `entity` (a parent): a top-level id (`auction`), or the
/// `_id` of an extended reference (`auction._id`). `None` when it holds
/// none, or two (a message's sender and receiver, both users: which one
/// the group means is not said).
fn reference(design: &Design, collection: &str, entity: &str) -> Option<Vec<String>> {
    let coll = design.collections.iter().find(|c| c.name == collection)?;
    let mut found: Vec<Vec<String>> = Vec::new();
    for f in &coll.shape.fields {
        let FieldOrigin::Reference { relationship, side } = &f.origin else {
            continue;
        };
        if matches!(side, Some(Side::Parent)) {
            continue;
        }
        let Some(rel) = design
            .relationships
            .iter()
            .find(|r| r.relationship == *relationship)
        else {
            continue;
        };
        if rel.parent != entity || !coll.entities.contains(&rel.child) {
            continue;
        }
        match &f.ty {
            ShapeType::Scalar { .. } => found.push(vec![f.name.clone()]),
            ShapeType::Object { shape } if shape.fields.iter().any(|x| x.name == "_id") => {
                found.push(vec![f.name.clone(), "_id".into()]);
            }
            _ => {}
        }
    }
    match found.as_slice() {
        [one] => Some(one.clone()),
        _ => None,
    }
}

/// The names the group's function gives a parameter of operation `op`.
type Named<'a> = &'a dyn Fn(usize, &str) -> Option<String>;

fn message(group: &str, doc: &str, path: &[String], entity: &str, id: &str) -> String {
    // "one item" of an entity named `items`, as the plan's warning says.
    let entity = crate::words::singular(entity);
    format!(
        "{group}: {doc}.{} names another {entity} than {id}; every write of the group addresses one {entity}",
        path.join(".")
    )
}

/// The Python lines, at `indent`, that check (and set) each document's
/// reference before the group's first write.
pub(super) fn python(one: &One, group: &str, name: Named, indent: &str) -> String {
    let mut out = String::new();
    let Some(id) = name(one.id.0, &one.id.1) else {
        return out;
    };
    for (op, param, path) in &one.docs {
        let Some(doc) = name(*op, param) else {
            continue;
        };
        let mut held = doc.clone();
        for (k, part) in path.iter().enumerate() {
            let key = script::js_string(part);
            held = if k + 1 == path.len() {
                format!("{held}.get({key}, {id})")
            } else {
                format!("({held}.get({key}) or {{}})")
            };
        }
        let msg = script::js_string(&message(group, &doc, path, &one.entity, &id));
        let _ = writeln!(
            out,
            "{indent}# `same: {}`: the document must not name another {}\n{indent}if {held} != {id}:\n{indent}    raise ValueError({msg})",
            script::comment(&one.entity),
            script::comment(&crate::words::singular(&one.entity)),
        );
        if let [field] = path.as_slice() {
            let _ = writeln!(
                out,
                "{indent}{doc} = {{**{doc}, {}: {id}}}",
                script::js_string(field)
            );
        }
    }
    out
}

/// The JavaScript lines (mongosh and Node.js), as `python`. Ids compare
/// with `equals` (two ObjectIds of one value are two objects), and only
/// within one type: a string never equals an ObjectId in a filter either.
pub(super) fn js(one: &One, group: &str, name: Named, indent: &str) -> String {
    let mut out = String::new();
    let Some(id) = name(one.id.0, &one.id.1) else {
        return out;
    };
    for (op, param, path) in &one.docs {
        let Some(doc) = name(*op, param) else {
            continue;
        };
        let mut held = doc.clone();
        for (k, part) in path.iter().enumerate() {
            let key = script::js_string(part);
            held = if k + 1 == path.len() {
                format!("{held}[{key}]")
            } else {
                format!("({held}[{key}] || {{}})")
            };
        }
        let msg = script::js_string(&message(group, &doc, path, &one.entity, &id));
        let _ = writeln!(
            out,
            "{indent}// `same: {}`: the document must not name another {}\n{indent}if ({held} !== undefined && !({held} === {id} || ({held} !== null && {id} !== null && typeof {held} === \"object\" && typeof {id} === \"object\" && typeof {held}.equals === \"function\" && {held}.equals({id})))) throw new Error({msg});",
            script::comment(&one.entity),
            script::comment(&crate::words::singular(&one.entity)),
        );
        if let [field] = path.as_slice() {
            let _ = writeln!(
                out,
                "{indent}{doc} = {{ ...{doc}, {}: {id} }};",
                script::js_string(field)
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    fn bid(otherwise: &str) -> (crate::design::Design, Vec<super::OpCode>) {
        let text = include_str!("../../../tests/fixtures/bid-one-auction.yaml")
            .replace("otherwise: undo", otherwise);
        let model = crate::inputs::model_file::parse("m.yaml", &text).unwrap();
        let d = crate::advise::advise(&model, &crate::settings::Settings::default(), None).unwrap();
        let ops = super::super::op_codes(&d);
        (d, ops)
    }

    const PY_CHECK: &str = "    # `same: auction`: the document must not name another auction\n    if new_bid.get(\"auction\", auction_id) != auction_id:\n        raise ValueError(\"place_bid: new_bid.auction names another auction than auction_id; every write of the group addresses one auction\")\n    new_bid = {**new_bid, \"auction\": auction_id}\n";
    const JS_CHECK: &str = "  if (new_bid[\"auction\"] !== undefined && !(new_bid[\"auction\"] === auction_id || (new_bid[\"auction\"] !== null && auction_id !== null && typeof new_bid[\"auction\"] === \"object\" && typeof auction_id === \"object\" && typeof new_bid[\"auction\"].equals === \"function\" && new_bid[\"auction\"].equals(auction_id)))) throw new Error(\"place_bid: new_bid.auction names another auction than auction_id; every write of the group addresses one auction\");\n  new_bid = { ...new_bid, \"auction\": auction_id };\n";

    /// Audit48 A5: `place_bid` (`same: auction`, kept by undo) tests the
    /// bid's own `auction` against the id it raises, before its first
    /// write (outside the `try` whose handler undoes), and fills it where
    /// the bid has none, in every language; the warnings beside it no
    /// longer say "in a transaction" where none runs (audit48 C1).
    #[test]
    fn an_undo_group_of_one_auction_refuses_a_bid_naming_another_before_any_write() {
        let (d, ops) = bid("otherwise: undo");
        let py = super::super::python(&d, &ops);
        assert!(
            py.contains(&format!(
                "def place_bid(db, new_bid, auction_id, new_current_price):\n{PY_CHECK}    out = {{}}\n    try:\n"
            )),
            "{py}"
        );
        for (text, head) in [
            (
                super::super::node(&d, &ops),
                "async function place_bid(db, new_bid, auction_id, new_current_price) {\n",
            ),
            (
                super::super::mongosh(&d, &ops),
                "function place_bid(new_bid, auction_id, new_current_price) {\n",
            ),
        ] {
            assert!(
                text.contains(&format!(
                    "{head}  // `same: auction`: the document must not name another auction\n{JS_CHECK}  const out = {{}};\n  try {{\n"
                )),
                "{text}"
            );
        }
        let text = crate::outputs::design::text::render(&d, false);
        assert!(
            text.contains("warning: atomic group `place_bid` writes one auction, but its writes stay separate calls: this design keeps them in more than one document\n")
                && !text.contains("in a transaction"),
            "{text}"
        );
    }

    /// The same group kept by a transaction (`otherwise: fail`): the test
    /// comes before the session starts, in every language.
    #[test]
    fn a_transaction_group_of_one_auction_refuses_a_bid_naming_another_before_its_session() {
        let (d, ops) = bid("otherwise: fail");
        let py = super::super::python(&d, &ops);
        assert!(
            py.contains(&format!(
                "def place_bid(db, auction_id, new_current_price, new_bid):\n{PY_CHECK}    def in_transaction(session):\n"
            )),
            "{py}"
        );
        let node = super::super::node(&d, &ops);
        assert!(
            node.contains(&format!(
                "{JS_CHECK}  const session = db.client.startSession();\n"
            )),
            "{node}"
        );
        let sh = super::super::mongosh(&d, &ops);
        let body = sh.split("function place_bid(").nth(1).unwrap();
        assert!(
            body.contains(JS_CHECK) && body.find(JS_CHECK) < body.find("session"),
            "{sh}"
        );
    }
}

#[cfg(test)]
mod two_updates {
    /// A seat sold and its show's count taken, atomic together and of one
    /// show, with no insert: the seat's filter names the show by its
    /// reference, the count's by `_id` (audit49 A6).
    const MODEL: &str = "name: sell_one_show
entities:
  show:
    count: 1000
    fields: {seats_left: int}
  seat:
    count: 100000
    fields:
      label: {type: string(6), unique_within: show}
      state: {type: string(8), enum: [free, held, sold]}
relationships:
  seats:
    parent: show
    child: seat
    children: {min: 10, typical: 100, max: 8000}
    child_field: show
    layout: parent-reference
operations:
  buy_seat:
    update: seat
    filter: {show: eq, label: eq}
    when: [\"state = held\"]
    changes: [state]
    rate: 10
  take_count:
    update: show
    filter: {_id: eq}
    increments: {seats_left: -1}
    when: [\"seats_left > 0\"]
    rate: 10
  seat_page:
    read: seat
    filter: {show: eq}
    limit: 50
    rate: 10
atomic:
  sell: {writes: [buy_seat, take_count], same: show}
";

    fn cookbook(otherwise: &str) -> (String, String, String) {
        let text = MODEL.replace(
            "when: [\"seats_left > 0\"]",
            &format!("when: [\"seats_left > 0\"]\n    otherwise: {otherwise}"),
        );
        let model = crate::inputs::model_file::parse("m.yaml", &text).unwrap();
        let d = crate::advise::advise(&model, &crate::settings::Settings::default(), None).unwrap();
        let ops = super::super::op_codes(&d);
        (
            super::super::python(&d, &ops),
            super::super::node(&d, &ops),
            super::super::mongosh(&d, &ops),
        )
    }

    /// The group's function takes the show once and passes it to both
    /// writes, kept by a transaction or by undo, in every language: with
    /// two parameters a call sold a seat of show A and took the count of
    /// show B (audit49 A6, on SecantusDB).
    #[test]
    fn a_group_of_two_updates_of_one_show_takes_the_show_once() {
        for otherwise in ["fail", "undo"] {
            let (py, node, sh) = cookbook(otherwise);
            let def = py
                .lines()
                .find(|l| l.starts_with("def sell"))
                .unwrap_or_else(|| panic!("{py}"));
            assert_eq!(def.matches("show_id").count(), 1, "{otherwise}: {def}");
            assert!(
                py.contains("buy_seat(db, show_id, ") && py.contains("take_count(db, show_id"),
                "{otherwise}: {py}"
            );
            for js in [&node, &sh] {
                let head = js
                    .lines()
                    .find(|l| l.contains("function sell("))
                    .unwrap_or_else(|| panic!("{js}"));
                assert_eq!(head.matches("show_id").count(), 1, "{otherwise}: {head}");
                assert!(
                    !js.contains("buy_seat_show_id") && !js.contains("take_count_show_id"),
                    "{otherwise}: {js}"
                );
            }
        }
    }
}

#[cfg(test)]
mod merged_values {
    /// Two updates of one auction, merged into one `updateOne`: the one
    /// the model gives a caller's value (`current_price = :offer`) is not
    /// the one that carries the merged write.
    const MODEL: &str = "name: merged_offer
entities:
  auction:
    count: 1000
    fields:
      status: {type: string(8), enum: [open, closed]}
      current_price: int
      last_offer: int
      bid_count: int
operations:
  raise_price:
    update: auction
    filter: {_id: eq}
    when: [\"current_price < :offer\", \"status = open\"]
    changes: [\"current_price = :offer\"]
    increments: {bid_count: 1}
    rate: 10
  note_offer:
    update: auction
    filter: {_id: eq}
    changes: [\"last_offer = :offer\"]
    rate: 10
atomic:
  place_bid: {writes: [note_offer, raise_price], same: auction}
";

    /// The merged `$set` writes the offer the condition tests into the
    /// price: it took a separate `new_current_price`, and on SecantusDB an
    /// offer of 150 left the price at 90 (review49 A1).
    #[test]
    fn a_merged_group_sets_each_field_to_its_callers_value() {
        let model = crate::inputs::model_file::parse("m.yaml", MODEL).unwrap();
        let d = crate::advise::advise(&model, &crate::settings::Settings::default(), None).unwrap();
        let ops = super::super::op_codes(&d);
        let py = super::super::python(&d, &ops);
        assert!(!py.contains("new_current_price"), "{py}");
        assert!(
            py.contains("\"current_price\": offer") && py.contains("\"last_offer\": offer"),
            "{py}"
        );
    }
}
