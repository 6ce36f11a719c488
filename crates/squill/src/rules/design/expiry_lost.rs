//! `expiry-lost`: an entity the model says expires, kept by the design
//! where no TTL index can delete it (inside another document): it is
//! never deleted, and nothing else said so (audit44 D).

crate::rules::declare_rule! {
    id: "expiry-lost",
    summary: "An entity that expires is kept where no TTL index can delete it (embedded in another document): it is never deleted",
    kind: Design,
    severity: Warning,
    sources: ["MongoDB manual: Expire Data from Collections by Setting TTL"],
    check: Design(check),
}

use crate::finding::{Evidence, Finding};
use crate::rules::judge::DesignCheck;
use crate::words;

/// One warning per expiring entity that no collection of the design
/// holds with a TTL index: a TTL index deletes whole documents, so an
/// entity embedded in another's document is never deleted by it. An
/// entity of its own, or in buckets (by the bucket's newest date), has
/// its index (`advise::build`, `expiry_indexes`).
pub fn check(cx: &DesignCheck<'_>) -> Vec<Finding> {
    let model = cx.facts.model;
    let mut out = Vec::new();
    for e in model.entity_ids() {
        let entity = model.entity(e);
        let Some(x) = &entity.expires else { continue };
        let name = &entity.name;
        let expires = cx.design.collections.iter().any(|c| {
            c.entities.iter().any(|n| n == name)
                && c.indexes.iter().any(|i| i.expire_after_seconds.is_some())
        });
        if expires {
            continue;
        }
        let plural = words::plural(name);
        out.push(Finding {
            rule: RULE.id,
            severity: RULE.default_severity,
            message: format!(
                "{name} expires {} after its `{}`, but the design keeps it inside other documents, where no TTL index deletes it: {plural} are never deleted",
                words::duration_seconds(x.seconds),
                x.field
            ),
            location: DesignCheck::at(format!("entities.{name}.expires")),
            evidence: vec![
                Evidence::new("entity", name.as_str()),
                Evidence::new("expire_after_seconds", x.seconds),
            ],
            help: Some(format!(
                "keep {plural} in a collection of their own or in buckets (pin the relationship's `layout:`), where a TTL index deletes them; or delete them with an operation of the workload (a `$pull` of the old ones), priced like any other write"
            )),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::RULE;
    use crate::settings::Settings;

    /// Sessions of a user, each deleted a day after its last use.
    const SESSIONS: &str = r"
entities:
  user:
    count: 10000
    fields: {name: string(18)}
  session:
    count: 20000
    fields: {last_used: date, token: string(40)}
    expires: {from: last_used, after: 1 day}
relationships:
  sessions:
    parent: user
    child: session
    children: {min: 0, typical: 2, max: 10}
    child_field: user
    layout: LAYOUT
operations:
  open:
    insert: session
    links: [sessions]
    rate: 0.2
  profile:
    read: user
    filter: {_id: eq}
    include: [sessions]
    rate: 20
";

    fn findings_of(yaml: &str) -> Vec<crate::finding::Finding> {
        let model = crate::inputs::model_file::parse("test.yaml", yaml).expect("a valid model");
        let settings = Settings::default();
        let design = crate::advise::advise(&model, &settings, None).expect("a design");
        let facts = crate::candidates::facts::Facts::new(&model, &settings, 0);
        (super::check)(&crate::rules::judge::DesignCheck {
            facts: &facts,
            design: &design,
        })
    }

    /// Embedded in the user: no TTL index can delete a session.
    #[test]
    fn fires_on_an_expiring_entity_embedded_in_another() {
        let found = findings_of(&SESSIONS.replace("LAYOUT", "embed"));
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].rule, RULE.id);
        assert!(
            found[0]
                .message
                .starts_with("session expires 1 day after its `last_used`"),
            "{}",
            found[0].message
        );
    }

    /// The near miss: the same sessions in a collection of their own
    /// have their TTL index.
    #[test]
    fn stays_quiet_when_the_entity_has_its_ttl_index() {
        assert!(findings_of(&SESSIONS.replace("LAYOUT", "parent-reference")).is_empty());
    }
}
