//! `unmaintained-copy`: a copy the design keeps of a relationship's other
//! side (a subset of the latest children, copies of their fields, figures
//! computed over them, or the parent's fields in each child) is kept true
//! by the writes that link through the relationship. An insert of the
//! child that does not link through it cannot reach the copy: the model
//! says every child has a parent there, and the insert does not name it.
//! The model contradicts itself, so it is incomplete (the insert should
//! name the parent); as written, the copy is stale by construction. squill
//! says so, and prices the copy as the model says (no arrivals from that
//! insert).

crate::rules::declare_rule! {
    id: "unmaintained-copy",
    summary: "A copy kept through a relationship that an insert of its children does not link through: the insert cannot reach it, so the model is incomplete or the copy is stale",
    kind: Design,
    severity: Warning,
    sources: ["001_5782b55841006ac6.txt"],
    check: Design(check),
}

use crate::design::{FieldOrigin, Layout, Shape, ShapeType};
use crate::finding::{Evidence, Finding};
use crate::model::{OperationKind, RelationshipId};
use crate::rules::judge::DesignCheck;
use crate::words;

/// What a relationship's layout keeps of the other side, in words, which
/// side holds it, and how many things the words name (the verb agrees:
/// "copies …, which are stale"); `None` when it keeps no copy an insert
/// of the child must write.
pub(super) fn kept(
    cx: &DesignCheck<'_>,
    r: RelationshipId,
) -> Option<(String, &'static str, u64)> {
    let model = cx.facts.model;
    let rel = model.relationship(r);
    let (parent, child) = (
        words::singular(&model.entity(rel.parent).name),
        words::plural(&model.entity(rel.child).name),
    );
    let layout = &cx
        .design
        .relationships
        .iter()
        .find(|d| d.relationship == rel.name)?
        .chosen;
    if let Layout::Subset { k, .. } = layout {
        return Some((
            format!(
                "{} kept in the {parent} (a subset)",
                words::latest(*k, &model.entity(rel.child).name)
            ),
            "parent",
            1,
        ));
    }
    let copies = layout.copies_in(crate::design::Side::Parent);
    if !copies.is_empty() {
        return Some((
            format!("the {parent}'s copies of {} from its {child}", copies.join(", ")),
            // One copy per child: "copies", whatever the fields.
            "parent",
            2,
        ));
    }
    let figures: Vec<String> = cx
        .design
        .collections
        .iter()
        .flat_map(|c| computed_over(&c.shape, &rel.name))
        .collect();
    if !figures.is_empty() {
        return Some((
            format!(
                "the {parent}'s computed {} {}",
                if figures.len() == 1 {
                    "field".to_string()
                } else {
                    words::plural("field")
                },
                figures.join(", ")
            ),
            "parent",
            figures.len() as u64,
        ));
    }
    let copies = layout.copies_in(crate::design::Side::Child);
    (!copies.is_empty()).then(|| {
        (
            format!(
                "each {}'s copy of its {parent}'s {}",
                words::singular(&model.entity(rel.child).name),
                copies.join(", ")
            ),
            "child",
            1,
        )
    })
}

/// The figures `shape` (and the shapes inside it) computes over
/// relationship `rel`, by their field names.
fn computed_over(shape: &Shape, rel: &str) -> Vec<String> {
    let mut out = Vec::new();
    for f in &shape.fields {
        if let FieldOrigin::Computed { relationship, .. } = &f.origin
            && relationship == rel
        {
            out.push(f.name.clone());
        }
        let mut ty = &f.ty;
        while let ShapeType::Array { items, .. } = ty {
            ty = items;
        }
        if let ShapeType::Object { shape } = ty {
            out.extend(computed_over(shape, rel));
        }
    }
    out
}

/// One warning per insert of a relationship's child that does not link
/// through it, where every child has a parent there and the design keeps
/// a copy through it.
pub fn check(cx: &DesignCheck<'_>) -> Vec<Finding> {
    let model = cx.facts.model;
    let mut out = Vec::new();
    for (i, rel) in model.relationships.iter().enumerate() {
        let r = RelationshipId::from_index(i);
        // A child with no parent through `rel` (`parents.min: 0`) has no
        // holder: its insert leaves no copy behind.
        if !rel.one_parent() || rel.parents.min == 0 || rel.parent == rel.child {
            continue;
        }
        let Some((what, holder, named)) = kept(cx, r) else {
            continue;
        };
        // A `link:` operation on the relationship gives existing children
        // their parent: the plan writes the copy there (a subset's `$push`,
        // the copies, the figures), so the insert that leaves it out is
        // the first half of a two-step arrival, not a contradiction.
        let linked = model.workload.operations.iter().any(|op| {
            matches!(
                op.kind,
                OperationKind::Link { relationship, unlink: false } if relationship == r
            )
        });
        if linked {
            continue;
        }
        for op in &model.workload.operations {
            let OperationKind::Insert { entity, links, .. } = &op.kind else {
                continue;
            };
            if *entity != rel.child || links.contains(&r) {
                continue;
            }
            let parent = words::singular(&model.entity(rel.parent).name);
            let child = words::singular(&model.entity(rel.child).name);
            let rate = op.rate(cx.facts.mix);
            out.push(Finding {
                rule: RULE.id,
                severity: RULE.default_severity,
                message: format!(
                    "{}: inserts {} {}/s without linking them through {} (no `links: [{}]`), though the model gives every {child} its {parent} there: the model is incomplete. As written, the insert never reaches {what}, which {} stale by construction; squill prices it with no arrivals from {}",
                    op.name,
                    words::num(rate),
                    words::plural(&model.entity(rel.child).name),
                    rel.name,
                    rel.name,
                    words::is_are(named),
                    op.name,
                ),
                location: DesignCheck::at(format!("operations.{}", op.name)),
                evidence: vec![
                    Evidence::new("operation", op.name.as_str()),
                    Evidence::new("entity", model.entity(rel.child).name.as_str()),
                    Evidence::new("relationship", rel.name.as_str()),
                    Evidence::new("holder", holder),
                    Evidence::new("inserts_per_second", rate),
                ],
                help: Some(format!(
                    "if {} knows the {child}'s {parent}, add `links: [{}]` to it: the plan then writes the copy with each {child}; if the {child} has no {parent}, say so with `parents: {{min: 0}}` on {}",
                    op.name, rel.name, rel.name
                )),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::RULE;
    use crate::settings::Settings;

    /// Students and their submissions, read as the latest 20 of a student
    /// (a subset kept in the student); `LINKS` says whether the insert
    /// names the student.
    const COURSE: &str = r"
entities:
  student:
    count: 200000
    fields: {name: string(40)}
  submission:
    count: 30000000
    fields: {score: double, submitted_at: date, answers: string(500)}
relationships:
  submissions:
    parent: student
    child: submission
    children: {min: 0, typical: 150, max: 20000}
    PARENTS
    LAYOUT
operations:
  submit:
    insert: submission
    LINKS
    rate: 300
  recent:
    read: submission
    rate: 50
    filter: {student: eq}
    sort: {submitted_at: -1}
    limit: 20
  student_page:
    read: student
    rate: 400
    filter: {_id: eq}
    include:
      submissions: {sort: -submitted_at, limit: 20}
";

    fn findings(
        links: &str,
        parents: &str,
        layout: &str,
    ) -> (Vec<crate::finding::Finding>, String) {
        let yaml = COURSE
            .replace("LINKS", links)
            .replace("PARENTS", parents)
            .replace("LAYOUT", layout);
        let model = crate::inputs::model_file::parse("test.yaml", &yaml).expect("a valid model");
        let settings = Settings::default();
        let design = crate::advise::advise(&model, &settings, None).expect("a design");
        let chosen = design
            .relationships
            .iter()
            .map(|d| d.chosen.kind().to_string())
            .collect::<Vec<_>>()
            .join(",");
        let facts = crate::candidates::facts::Facts::new(&model, &settings, 0);
        let f = (super::check)(&crate::rules::judge::DesignCheck {
            facts: &facts,
            design: &design,
        });
        (f, chosen)
    }

    fn evidence(f: &crate::finding::Finding, name: &str) -> serde_json::Value {
        f.evidence
            .iter()
            .find(|e| e.name == name)
            .map(|e| e.value.clone())
            .unwrap_or_else(|| panic!("no {name}"))
    }

    /// The insert names no student: the subset the design keeps in the
    /// student never gets the new submissions.
    #[test]
    fn fires_on_an_insert_that_does_not_link() {
        let (f, chosen) = findings("", "", "");
        assert_eq!(chosen, "subset", "the design this test is about");
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].rule, RULE.id);
        assert_eq!(evidence(&f[0], "operation"), "submit");
        assert_eq!(evidence(&f[0], "entity"), "submission");
        assert_eq!(evidence(&f[0], "relationship"), "submissions");
        assert_eq!(evidence(&f[0], "holder"), "parent");
        assert_eq!(evidence(&f[0], "inserts_per_second"), 300.0);
        insta::assert_snapshot!(f[0].message, @"submit: inserts 300 submissions/s without linking them through submissions (no `links: [submissions]`), though the model gives every submission its student there: the model is incomplete. As written, the insert never reaches the latest 20 submissions kept in the student (a subset), which is stale by construction; squill prices it with no arrivals from submit");
    }

    /// Near miss: the same insert with `links: [submissions]`, the same
    /// subset (pinned: with the 300 arrivals a second it is not the
    /// cheapest): its plan pushes each submission into the student.
    #[test]
    fn stays_quiet_when_the_insert_links() {
        let (f, chosen) = findings("links: [submissions]", "", "layout: subset");
        assert_eq!(chosen, "subset");
        assert!(f.is_empty(), "{f:?}");
    }

    /// The class, not the subset alone: a count of the reviews kept in
    /// the product (a computed field) that the insert of a review does
    /// not reach.
    #[test]
    fn fires_on_figures_the_insert_cannot_move() {
        let yaml = r"
entities:
  product: {count: 1000, fields: {name: string(30)}}
  review: {count: 50000, fields: {rating: int, text: string(200)}}
relationships:
  reviews: {parent: product, child: review, children: {min: 0, typical: 50, max: 5000}, layout: parent-reference}
operations:
  product_page: {read: product, filter: {_id: eq}, rate: 500, aggregates: [count(reviews)]}
  add_review: {insert: review, rate: 5}
";
        let model = crate::inputs::model_file::parse("test.yaml", yaml).expect("a valid model");
        let settings = Settings::default();
        let design = crate::advise::advise(&model, &settings, None).expect("a design");
        let facts = crate::candidates::facts::Facts::new(&model, &settings, 0);
        let f = (super::check)(&crate::rules::judge::DesignCheck {
            facts: &facts,
            design: &design,
        });
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(evidence(&f[0], "operation"), "add_review");
        insta::assert_snapshot!(f[0].message, @"add_review: inserts 5 reviews/s without linking them through reviews (no `links: [reviews]`), though the model gives every review its product there: the model is incomplete. As written, the insert never reaches the product's computed field reviews_count, which is stale by construction; squill prices it with no arrivals from add_review");
    }

    /// Near miss: a submission may have no student (`parents.min: 0`):
    /// the unlinked insert makes one, which no subset holds.
    #[test]
    fn stays_quiet_when_a_child_may_have_no_parent() {
        let (f, _) = findings("", "parents: {min: 0, typical: 1, max: 1}", "layout: subset");
        assert!(f.is_empty(), "{f:?}");
    }

    /// Review 40, finding 4. Near miss: the same unlinked insert, and a
    /// `link: submissions` operation that gives a submission its student
    /// afterwards (its plan pushes into the subset): the copy is kept.
    /// The same operation as an `unlink:` keeps nothing, and it fires.
    #[test]
    fn stays_quiet_when_a_link_operation_maintains_the_copy() {
        let attach = |kind: &str| {
            let yaml = COURSE
                .replace("LINKS", "")
                .replace("PARENTS", "")
                .replace("LAYOUT", "layout: subset")
                + &format!("  attach:\n    {kind}: submissions\n    rate: 300\n");
            let model =
                crate::inputs::model_file::parse("test.yaml", &yaml).expect("a valid model");
            let settings = Settings::default();
            let design = crate::advise::advise(&model, &settings, None).expect("a design");
            let facts = crate::candidates::facts::Facts::new(&model, &settings, 0);
            (super::check)(&crate::rules::judge::DesignCheck {
                facts: &facts,
                design: &design,
            })
        };
        let linked = attach("link");
        assert!(linked.is_empty(), "{linked:?}");
        let unlinked = attach("unlink");
        assert_eq!(unlinked.len(), 1, "{unlinked:?}");
        assert_eq!(evidence(&unlinked[0], "operation"), "submit");
    }

    /// Review 40, finding 10.2: an irregular plural (people) and the verb
    /// agreeing with the copies.
    #[test]
    fn names_copies_of_people_in_plain_english() {
        let yaml = r"
entities:
  team: {count: 1000, fields: {title: string(40)}}
  person: {count: 50000, fields: {name: string(30), email: string(40)}}
relationships:
  members: {parent: team, child: person, children: {min: 0, typical: 50, max: 200}, layout: extended-reference}
operations:
  team_page: {read: team, rate: 500, filter: {_id: eq}, include: {members: {fields: [name]}}}
  hire: {insert: person, rate: 5}
";
        let model = crate::inputs::model_file::parse("test.yaml", yaml).expect("a valid model");
        let settings = Settings::default();
        let design = crate::advise::advise(&model, &settings, None).expect("a design");
        let facts = crate::candidates::facts::Facts::new(&model, &settings, 0);
        let f = (super::check)(&crate::rules::judge::DesignCheck {
            facts: &facts,
            design: &design,
        });
        assert_eq!(f.len(), 1, "{f:?}");
        insta::assert_snapshot!(f[0].message, @"hire: inserts 5 people/s without linking them through members (no `links: [members]`), though the model gives every person its team there: the model is incomplete. As written, the insert never reaches the team's copies of name from its people, which are stale by construction; squill prices it with no arrivals from hire");
    }
}
