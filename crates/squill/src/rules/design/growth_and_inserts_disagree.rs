//! `growth-and-inserts-disagree`: A relationship's growth per parent and
//! the rate its children are inserted at describe one fact; when they
//! disagree beyond 2×, the model says two things and the design can only
//! follow one.

crate::rules::declare_rule! {
    id: "growth-and-inserts-disagree",
    summary: "A relationship's growth per parent and its children's insert rate describe one fact; beyond 2× apart, squill follows the inserts and says so",
    kind: Design,
    severity: Warning,
    sources: ["002_6843193bac1933d0.txt"],
    check: Design(check),
}

use crate::candidates::growth::{DISAGREE_FACTOR, GrowthFigures};
use crate::design::Figure;
use crate::finding::{Evidence, Finding};
use crate::model::{Growth, RelationshipId};
use crate::rules::judge::DesignCheck;
use crate::words;

/// One warning per relationship whose stated growth and inserts disagree
/// beyond `DISAGREE_FACTOR`: both figures, and the growth squill uses.
pub fn check(cx: &DesignCheck<'_>) -> Vec<Finding> {
    let model = cx.facts.model;
    let mut out = Vec::new();
    for (i, rel) in model.relationships.iter().enumerate() {
        let r = RelationshipId::from_index(i);
        let Some(g) = cx.facts.growth_figures(r).filter(GrowthFigures::disagree) else {
            continue;
        };
        let parent = words::singular(&model.entity(rel.parent).name);
        let child = words::plural(&model.entity(rel.child).name);
        let parents = cx.facts.count(rel.parent);
        let per = g.stated.per;
        let in_period = |v: f64| words::num(per.from_per_day(v));
        let spread = |g: &Growth| -> String {
            let figures: Vec<String> = g
                .figures()
                .iter()
                .map(|(p, v)| format!("{} {}", p.name(), in_period(*v)))
                .collect();
            figures.join(", ")
        };
        let (stated, used) = (spread(&g.stated), spread(&g.used));
        let parents_word = words::plural(&model.entity(rel.parent).name);
        let (least, most) = g.mean_bounds;
        let batches = super::subset::Batches::of(cx.facts.rel(r));
        let stated_rate = |v: f64| format!("{} {child}/s", words::num(v * parents / 86_400.0));
        let mean = if least == most {
            stated_rate(least)
        } else if most.is_finite() {
            format!("{} to {}", stated_rate(least), stated_rate(most))
        } else {
            format!("at least {}", stated_rate(least))
        };
        out.push(Finding {
            rule: RULE.id,
            severity: RULE.default_severity,
            message: format!(
                "{}: the growth per {parent} ({} a {}) adds {mean} over the {} {}; the inserts add {} {child}/s{} ({} a day per {parent} on average): more than {}× apart. squill follows the inserts: {} a {}",
                rel.name,
                stated,
                per.name(),
                words::num(parents),
                parents_word,
                words::num(g.inserts),
                super::subset::in_batches(&Figure::per_second(g.inserts), batches.as_ref()),
                words::num(g.inserts_per_parent),
                words::num(DISAGREE_FACTOR),
                used,
                per.name(),
            ),
            location: DesignCheck::at(format!("relationships.{}", rel.name)),
            evidence: vec![
                Evidence::new("stated_typical_per_day", g.stated.typical),
                Evidence::new("stated_busiest_per_day", g.stated.busiest().1),
                Evidence::new("stated_mean_least_per_day", least),
                Evidence::new(
                    "stated_mean_most_per_day",
                    if most.is_finite() {
                        serde_json::json!(most)
                    } else {
                        serde_json::Value::Null
                    },
                ),
                Evidence::new("inserts_per_second", g.inserts),
                Evidence::new("inserts_per_parent_per_day", g.inserts_per_parent),
                Evidence::new("used_typical_per_day", g.used.typical),
                Evidence::new("used_busiest_per_day", g.used.busiest().1),
            ],
            help: Some(format!(
                "make the two agree: the growth per {parent} times the {} is the insert rate of {child}; the inserts are the figure every write of the design is priced on, so squill keeps them and scales the growth's spread",
                parents_word,
            )),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::RULE;
    use crate::settings::Settings;

    /// 1,000 hosts, each logging about `GROWTH` messages a day; 200
    /// messages/s in all (17,280 a day per host).
    const HOSTS: &str = r"
entities:
  host:
    count: 1000
    fields: {name: string(18)}
  logmsg:
    count: 500000000
    fields: {time: date, message: string(60)}
relationships:
  messages:
    parent: host
    child: logmsg
    children: {min: 0, typical: 500000, max: unbounded, GROWTH}
    child_field: host
operations:
  log:
    insert: logmsg
    links: [messages]
    rate: 200
  latest:
    read: logmsg
    rate: 2
    filter: {host: eq}
    sort: -time
    limit: 50
";

    fn findings(growth: &str) -> Vec<crate::finding::Finding> {
        findings_of(&HOSTS.replace("GROWTH", growth))
    }

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

    fn evidence(f: &crate::finding::Finding, name: &str) -> serde_json::Value {
        f.evidence
            .iter()
            .find(|e| e.name == name)
            .map(|e| e.value.clone())
            .unwrap_or_else(|| panic!("no {name}"))
    }

    /// Messages shipped 1,000 at a time read as a steady 200/s unless the
    /// finding says they come in batches (issue 41).
    #[test]
    fn inserts_in_batches_say_so() {
        let yaml = HOSTS
            .replace("GROWTH", "growth_per_day: 8000")
            .replace("    rate: 200\n", "    rate: 0.2\n    count: 1000\n");
        let f = findings_of(&yaml);
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(
            f[0].message.contains("the inserts add 200 logmsgs/s, in batches of 1,000 (0.2 batches/s) ("),
            "{}",
            f[0].message
        );
    }

    /// 8,000 a day per host against the inserts' 17,280: 2.16× apart.
    #[test]
    fn fires_beyond_twice() {
        let f = findings("growth_per_day: 8000");
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].rule, RULE.id);
        assert_eq!(evidence(&f[0], "stated_typical_per_day"), 8000.0);
        assert_eq!(evidence(&f[0], "inserts_per_second"), 200.0);
        assert_eq!(evidence(&f[0], "inserts_per_parent_per_day"), 17280.0);
        // The inserts are used: the typical host gains their mean.
        assert_eq!(evidence(&f[0], "used_typical_per_day"), 17280.0);
        insta::assert_snapshot!(f[0].message, @"messages: the growth per host (typical 8,000 a day) adds 93 logmsgs/s over the 1,000 hosts; the inserts add 200 logmsgs/s (17,280 a day per host on average): more than 2× apart. squill follows the inserts: typical 17,280 a day");
    }

    /// A spread admits a range of means: 0.49 × 1,000 + 0.01 × 20,000 =
    /// 690 a day at least, 0.5 × 1,000 + 0.49 × 20,000 + 0.01 × 1,000,000
    /// = 20,300 at most. 17,280 lies inside: no warning.
    #[test]
    fn a_spread_that_holds_the_inserts_stays_quiet() {
        assert!(
            findings("growth: {typical: 1000, p99: 20000, max: 1000000}").is_empty(),
            "{:?}",
            findings("growth: {typical: 1000, p99: 20000, max: 1000000}")
        );
    }

    /// Near miss: 8,640 a day per host, exactly half the inserts' 17,280.
    #[test]
    fn stays_quiet_just_under() {
        assert!(findings("growth_per_day: 8640").is_empty());
    }

    /// The other way: 40,000 a day per host, 2.3× the inserts.
    #[test]
    fn fires_below_half() {
        let f = findings("growth_per_day: 40000");
        assert_eq!(f.len(), 1);
        assert_eq!(evidence(&f[0], "used_typical_per_day"), 17280.0);
    }
}
