//! `read-then-write`: A write that changes the documents an earlier step
//! of its plan found by a field the workload changes, by their ids, with
//! no condition and no transaction: between the read and the write another
//! client can change that field, and both act on what they read ("check
//! then act": two clients read "seat free" and both book it).

crate::rules::declare_rule! {
    id: "read-then-write",
    summary: "A plan finds documents by a field the workload changes, then writes them by id with no condition and no transaction: two clients can both act on what they read; test the field in the write (when:) or claim",
    kind: Design,
    severity: Warning,
    sources: [
        "001_5782b55841006ac6.txt",
        "MongoDB manual: Atomicity and Transactions",
        "MongoDB manual: db.collection.findOneAndUpdate()",
    ],
    check: Design(check),
}

use crate::design::{Action, OperationPlan, Step, ValueSource};
use crate::finding::{Evidence, Finding};
use crate::model::{EntityId, Model, Operation, OperationKind};
use crate::rules::judge::DesignCheck;

/// A race one plan leaves open: the step that reads, the field it tests,
/// the step that writes what it found, and the operations that change the
/// field in between.
#[derive(Debug, Clone, PartialEq)]
pub struct Race {
    pub operation: String,
    /// 1-based, as plans number their steps.
    pub read_step: usize,
    pub write_step: usize,
    pub field: String,
    pub changed_by: Vec<String>,
}

/// Every write step with no condition, in a plan with no transaction,
/// whose filter takes the ids an earlier `find` of the same collection
/// returned, where that find tests a field some write of the workload
/// changes (the operation's own, or another's).
pub fn races(model: &Model, plan: &OperationPlan) -> Vec<Race> {
    match model
        .workload
        .operations
        .iter()
        .find(|o| o.name == plan.operation)
    {
        Some(op) => races_of(model, op, plan),
        None => Vec::new(),
    }
}

/// `races` of `plan`, the plan of `op`.
fn races_of(model: &Model, op: &Operation, plan: &OperationPlan) -> Vec<Race> {
    let mut out = Vec::new();
    if plan.transaction || !op.is_write() {
        return out;
    }
    // Found on first need: most writes (inserts) have no find before them,
    // and a pass over the workload per write was quadratic (issue 45).
    let mut changed: Option<Vec<(String, Vec<String>)>> = None;
    for (w, write) in plan.steps.iter().enumerate() {
        if !writes(write) || !write.conditions.is_empty() {
            continue;
        }
        let found_by = write.filter.iter().flat_map(|f| match &f.value_from {
            ValueSource::FromStep { step } => vec![*step],
            ValueSource::FromSteps { steps } => steps.clone(),
            _ => Vec::new(),
        });
        for k in found_by {
            let Some(read) = k.checked_sub(1).and_then(|i| plan.steps.get(i)) else {
                continue;
            };
            if read.action != Action::Find || read.collection != write.collection {
                continue;
            }
            for test in &read.filter {
                let changed = changed.get_or_insert_with(|| changed_fields(model, op.entity_in(model)));
                let Some((field, by)) = changed.iter().find(|(f, _)| tests(&test.path, f)) else {
                    continue;
                };
                let race = Race {
                    operation: plan.operation.clone(),
                    read_step: k,
                    write_step: w + 1,
                    field: field.clone(),
                    changed_by: by.clone(),
                };
                if !out.contains(&race) {
                    out.push(race);
                }
            }
        }
    }
    out
}

/// Whether a step changes documents (a claim's `findOneAndUpdate` reads
/// and writes in one command, so it is no window).
fn writes(s: &Step) -> bool {
    matches!(
        s.action,
        Action::UpdateOne
            | Action::UpdateMany
            | Action::BulkWrite
            | Action::Upsert
            | Action::DeleteOne
            | Action::DeleteMany
    )
}

/// Whether a filter path tests `field` of the entity: the field itself, or
/// it inside the document that holds the entity (`seats.state`).
fn tests(path: &str, field: &str) -> bool {
    path == field || path.ends_with(&format!(".{field}"))
}

/// Each field of `e` some write of the workload changes, with the writes
/// that change it: an update's `changes` and `increments`, and the
/// reference to a parent it re-points.
fn changed_fields(model: &Model, e: EntityId) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    for op in &model.workload.operations {
        let OperationKind::Update {
            entity,
            changes,
            relinks,
            ..
        } = &op.kind
        else {
            continue;
        };
        if *entity != e {
            continue;
        }
        let fields = changes
            .iter()
            .cloned()
            .chain(op.terms.increments.iter().map(|i| i.field.clone()))
            .chain(
                relinks
                    .iter()
                    .map(|r| model.relationship(*r).child_field.clone()),
            );
        for f in fields.filter(|f| f != "_id") {
            match out.iter_mut().find(|(x, _)| *x == f) {
                Some((_, by)) if !by.contains(&op.name) => by.push(op.name.clone()),
                Some(_) => {}
                None => out.push((f, vec![op.name.clone()])),
            }
        }
    }
    out
}

/// One warning per race a plan of the design leaves open.
pub fn check(cx: &DesignCheck<'_>) -> Vec<Finding> {
    let model = cx.facts.model;
    let mut out = Vec::new();
    let mut by_name: rustc_hash::FxHashMap<&str, &Operation> = rustc_hash::FxHashMap::default();
    for op in &model.workload.operations {
        // The first of a name, as `races` finds it.
        by_name.entry(op.name.as_str()).or_insert(op);
    }
    for plan in &cx.design.operations {
        let Some(op) = by_name.get(plan.operation.as_str()) else {
            continue;
        };
        for race in races_of(model, op, plan) {
            let by = race.changed_by.join(", ");
            // The operation itself, run by another client, is one of them.
            let who: Vec<String> = race
                .changed_by
                .iter()
                .map(|o| {
                    if *o == race.operation {
                        format!("another run of {o}")
                    } else {
                        o.clone()
                    }
                })
                .collect();
            out.push(Finding {
                rule: RULE.id,
                severity: RULE.default_severity,
                message: format!(
                    "{} finds documents by {} (step {}), then writes them by the ids it found (step {}) with no condition and no transaction: {} can change {} in between, and the write acts on a value that no longer holds",
                    race.operation,
                    race.field,
                    race.read_step,
                    race.write_step,
                    who.join(" or "),
                    race.field,
                ),
                location: DesignCheck::at(format!("operations.{}", race.operation)),
                evidence: vec![
                    Evidence::new("read_step", race.read_step),
                    Evidence::new("write_step", race.write_step),
                    Evidence::new("field", race.field.clone()),
                    Evidence::new("changed_by", by.clone()),
                ],
                help: Some(format!(
                    "test {} again in the write: `when: [\"{} = …\"]` on {} makes the test part of the write's filter (one conditional single-document write; `otherwise:` says what happens when it matches nothing), or `claim:` finds one document and changes it in one findOneAndUpdate",
                    race.field, race.field, race.operation
                )),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{RULE, Race, races};
    use crate::settings::Settings;

    /// Seats of a show, their ids and states copied into the show's seat
    /// map (pinned, so the copy must be refreshed): booking finds a free
    /// seat, updates it by its id, then refreshes the copy. `WHEN` is the
    /// booking's condition, if any.
    const SEATS: &str = r"
name: seats
entities:
  show:
    count: 10000
    fields: {title: string(40)}
  seat:
    count: 5000000
    fields:
      label: string(4)
      price: decimal
      state: {type: string(8), enum: [free, held, sold]}
relationships:
  seats:
    parent: show
    child: seat
    children: {typical: 500, max: 2000}
    child_field: show
    standalone: true
    layout: extended-reference
operations:
  seat_map:
    read: show
    rate: 1000
    filter: {_id: eq}
    include:
      seats: {fields: [label, state]}
  book:
    update: seat
    rate: 50
    filter: {show: eq, state: eq}
    changes: [state]
    WHEN
";

    fn advised(when: &str) -> (crate::model::Model, crate::design::Design) {
        let model = crate::inputs::model_file::parse("seats.yaml", &SEATS.replace("WHEN", when))
            .unwrap_or_else(|e| panic!("{e}"));
        let design = crate::advise::advise(&model, &Settings::default(), None).expect("a design");
        (model, design)
    }

    fn book_races(when: &str) -> Vec<Race> {
        let (model, design) = advised(when);
        let plan = design
            .operations
            .iter()
            .find(|p| p.operation == "book")
            .expect("book");
        races(&model, plan)
    }

    /// Booking finds a seat by its state (step 2), then sets the state of
    /// the seat it found by id (step 3): two bookings can both find the
    /// same free seat.
    #[test]
    fn fires_on_a_find_then_an_unconditional_write_of_the_field_it_tested() {
        assert_eq!(
            book_races(""),
            vec![Race {
                operation: "book".into(),
                read_step: 2,
                write_step: 3,
                field: "state".into(),
                changed_by: vec!["book".into()],
            }]
        );
        let (model, design) = advised("");
        let settings = Settings::default();
        let facts = crate::candidates::facts::Facts::new(&model, &settings, 0);
        let found = (super::check)(&crate::rules::judge::DesignCheck {
            facts: &facts,
            design: &design,
        });
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].rule, RULE.id);
        insta::assert_snapshot!(found[0].message, @"book finds documents by state (step 2), then writes them by the ids it found (step 3) with no condition and no transaction: another run of book can change state in between, and the write acts on a value that no longer holds");
    }

    /// Near miss: the same plan, the write conditional on the state it
    /// read (`when:`): the write tests it again on the document, so a
    /// second booking matches nothing.
    #[test]
    fn stays_quiet_when_the_write_tests_the_field_again() {
        assert_eq!(book_races(r#"when: ["state = free"]"#), Vec::new());
    }

    /// Near miss: the same find then write, but of a field no write of
    /// the workload changes (the price is tested, the state set).
    #[test]
    fn stays_quiet_when_nothing_changes_the_field_it_tested() {
        let (model, design) = advised("");
        let mut plan = design
            .operations
            .iter()
            .find(|p| p.operation == "book")
            .expect("book")
            .clone();
        for s in &mut plan.steps {
            for f in &mut s.filter {
                if f.path == "state" {
                    f.path = "price".into();
                }
            }
        }
        assert_eq!(races(&model, &plan), Vec::new());
    }

    /// Near miss: the same find then write inside a transaction (an
    /// atomic group that needs one): the read and the write see one
    /// snapshot, and a conflicting booking aborts.
    #[test]
    fn stays_quiet_in_a_transaction() {
        let (model, design) = advised("");
        let mut plan = design
            .operations
            .iter()
            .find(|p| p.operation == "book")
            .expect("book")
            .clone();
        assert_eq!(races(&model, &plan).len(), 1);
        plan.transaction = true;
        assert_eq!(races(&model, &plan), Vec::new());
    }
}
