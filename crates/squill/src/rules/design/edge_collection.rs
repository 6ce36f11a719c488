//! `edge-collection`: A many-to-many whose links are many, or read from both sides with their own fields, as one document per link.

crate::rules::declare_rule! {
    id: "edge-collection",
    summary: "Keep a many-to-many's links as documents of their own (an edge collection) when arrays on either side would cost more or break a limit",
    kind: Design,
    severity: Info,
    sources: ["003_8caca105590b9080.txt", "004_16209cf0db7b32ff.txt"],
    check: Relationship { order: 215, check },
}

use crate::design::reason::{Figure, explain};
use crate::rules::judge::{Judgement, RelCheck};
use crate::words;
use serde::Serialize;

/// Why advise keeps a many-to-many's links in a collection of their own.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "because", rename_all = "snake_case")]
pub enum Chosen {
    /// The best layout with arrays costs `margin` more per second.
    Cheaper {
        relationship: String,
        margin: Figure,
    },
    /// Every layout with arrays breaks `rule`; the edge collection none.
    ArraysBreakARule {
        relationship: String,
        rule: &'static str,
    },
    /// A read counts a `child`'s `field` (its parents): each side of an
    /// edge collection counts its own links.
    CountedFromChild { child: String, field: String },
    /// The model pins the relationship to an edge collection.
    Pinned { relationship: String },
}

explain!(Chosen, |w| match w {
    Chosen::Cheaper {
        relationship,
        margin,
    } => format!(
        "the links of {relationship} in a collection of their own cost {} less per second than the best layout that keeps them in arrays",
        words::num(margin.value)
    ),
    Chosen::ArraysBreakARule { relationship, rule } => format!(
        "every layout that keeps the links of {relationship} in arrays breaks `{rule}`; a collection of their own breaks none"
    ),
    Chosen::CountedFromChild { child, field } => format!(
        "a read counts {}'s {field}: with the links in a collection of their own each side counts its links",
        words::a(child)
    ),
    Chosen::Pinned { relationship } => {
        format!("the model pins {relationship} to an edge collection")
    }
});

/// The links' two homes, by the rules each design breaks: `rejected` is
/// the one that breaks more.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MoreRulesBroken {
    pub relationship: String,
    /// `arrays` or `edge_collection`.
    pub rejected: Links,
    /// Rules the design breaks with the links in arrays, and with an edge
    /// collection.
    pub with_arrays: Figure,
    pub with_edge_collection: Figure,
}

/// Where a many-to-many's links are kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Links {
    Arrays,
    EdgeCollection,
}

explain!(MoreRulesBroken, |w| {
    // Counts of rules: whole numbers, written as such.
    let (arrays, edge) = (
        w.with_arrays.value as u64,
        w.with_edge_collection.value as u64,
    );
    match w.rejected {
        Links::Arrays => format!(
            "with the links of {} in arrays, the design breaks {arrays} rules; with an edge collection, {edge}",
            w.relationship
        ),
        Links::EdgeCollection => format!(
            "with an edge collection for {}, the design breaks {edge} rules; with the links in arrays, {arrays}",
            w.relationship
        ),
    }
});

/// The edge collection is not one of a relationship's own candidates:
/// advise prices it as the model with the link written as an entity and
/// states the comparison in the decision (see `advise::advise_with_model`).
/// Judging one array layout, this rule has nothing to say.
pub fn check(_cx: &RelCheck<'_>) -> Option<Judgement> {
    None
}

#[cfg(test)]
mod tests {
    use crate::advise::advise;
    use crate::settings::Settings;

    /// Stars written as a many-to-many with an attribute, the way a
    /// relational designer draws the join table: arrays on either side break
    /// a limit, so the links get a collection, as in scenario S2.
    #[test]
    fn fires() {
        let model = crate::inputs::model_file::parse("stars.yaml", STARS).unwrap();
        let d = advise(&model, &Settings::default(), None).unwrap();
        let stars = d.relationships.iter().find(|r| r.relationship == "stars").unwrap();
        assert_eq!(
            stars.chosen,
            crate::design::Layout::EdgeCollection {
                collection: "stars".into()
            }
        );
        assert_eq!(stars.rules[0].rule, "edge-collection");
        assert_eq!(
            stars.rules[0].reason.get::<super::Chosen>(),
            Some(&super::Chosen::ArraysBreakARule {
                relationship: "stars".into(),
                rule: "unbounded-array",
            })
        );
        // The arrays lost on the rule they break: its evidence, with the
        // arrays' layout.
        let [lost] = stars.alternatives.as_slice() else {
            panic!("{:?}", stars.alternatives)
        };
        let crate::design::Verdict::Rejected { rule, reason } = &lost.verdict else {
            panic!("{lost:?}")
        };
        assert_eq!(*rule, "unbounded-array");
        let evidence = reason.evidence();
        assert_eq!(
            (&evidence["relationship"], &evidence["layout"], &evidence["pinned"]),
            (
                &serde_json::json!("stars"),
                &serde_json::json!("many-to-many-one-way"),
                &serde_json::json!(false)
            )
        );
        assert_eq!(evidence["count"], serde_json::json!({"value": 200000.0, "unit": "count"}));
        insta::assert_snapshot!(stars.rules[0].reason.words(), @"every layout that keeps the links of stars in arrays breaks `unbounded-array`; a collection of their own breaks none");
        let coll = d.collections.iter().find(|c| c.name == "stars").unwrap();
        let names: Vec<&str> = coll.shape.fields.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["_id", "starred_at", "user", "repo"]);
    }

    /// A follow graph written as a many-to-many of users with themselves:
    /// the links get a collection whose references are named after the
    /// roles (`follower`, `following`), each indexed for its page.
    #[test]
    fn fires_on_a_many_to_many_of_an_entity_with_itself() {
        let model = crate::inputs::model_file::parse("follows.yaml", FOLLOWS).unwrap();
        let d = advise(&model, &Settings::default(), None).unwrap();
        let follows = d.relationships.iter().find(|r| r.relationship == "follows").unwrap();
        assert_eq!(
            follows.chosen,
            crate::design::Layout::EdgeCollection {
                collection: "follows".into()
            }
        );
        assert_eq!(
            follows.tradeoffs,
            ["a user's following (and their followers) take a query of the links first"]
        );
        let coll = d.collections.iter().find(|c| c.name == "follows").unwrap();
        let names: Vec<&str> = coll.shape.fields.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["_id", "since", "follower", "following"]);
        let keys: Vec<Vec<&str>> = coll
            .indexes
            .iter()
            .map(|i| i.keys.iter().map(|(k, _)| k.as_str()).collect())
            .collect();
        assert!(keys.iter().any(|k| k[0].starts_with("follower")), "{keys:?}");
        assert!(keys.iter().any(|k| k[0].starts_with("following")), "{keys:?}");
    }

    /// A user page counts the user's teams: the links get a collection
    /// and each side keeps its count, maintained by the join.
    #[test]
    fn a_count_of_a_childs_parents_keeps_the_links_apart() {
        let model = crate::inputs::model_file::parse("teams.yaml", TEAMS).unwrap();
        let d = advise(&model, &Settings::default(), None).unwrap();
        let m = d.relationships.iter().find(|r| r.relationship == "memberships").unwrap();
        assert!(matches!(m.chosen, crate::design::Layout::EdgeCollection { .. }));
        assert!(m.rules[0].reason.words().starts_with("a read counts a user's teams"), "{}", m.rules[0].reason);
        let counts: Vec<(String, Vec<String>)> = d
            .entities
            .iter()
            .filter_map(|e| match e {
                crate::design::EntityDecision::ComputedField {
                    entity,
                    field,
                    maintained_by,
                    ..
                } => Some((format!("{entity}.{field}"), maintained_by.clone())),
                _ => None,
            })
            .collect();
        assert!(counts.contains(&("user.teams_count".into(), vec!["join".into(), "leave".into()])), "{counts:?}");
        // Pinned to arrays, the count cannot be kept: an error says why.
        let pinned = TEAMS.replace("    child_field: teams\n", "    child_field: teams\n    layout: many-to-many-two-way\n");
        assert_ne!(pinned, TEAMS);
        let model = crate::inputs::model_file::parse("teams.yaml", &pinned).unwrap();
        let err = advise(&model, &Settings::default(), None).unwrap_err().to_string();
        assert!(err.contains("pinned to `layout: many-to-many-two-way`"), "{err}");
    }

    const TEAMS: &str = r"
name: teams
entities:
  user: {count: 1000, fields: {name: string(20)}}
  team: {count: 100, fields: {name: string(20)}}
relationships:
  memberships:
    kind: many-to-many
    parent: team
    child: user
    children: {typical: 10, max: 50}
    parents: {typical: 2, max: 10}
    parent_field: members
    child_field: teams
operations:
  user_page: {read: user, rate: 100, filter: {_id: eq}, aggregates: [count(teams)]}
  team_page: {read: team, rate: 100, filter: {_id: eq}, aggregates: [count(members)]}
  join: {link: memberships, rate: 1}
  leave: {unlink: memberships, rate: 1}
";

    const FOLLOWS: &str = r"
name: follows
entities:
  user: {count: 50000000, fields: {name: string(20)}}
relationships:
  follows:
    kind: many-to-many
    parent: user
    child: user
    children: {typical: 150, max: 20000}
    parents: {typical: 150, p99: 5000, max: 80000000}
    parent_field: following
    child_field: followers
    attributes: {since: date}
operations:
  following_page: {read: user, rate: 2000, filter: {_id: eq}, include: {following: {fields: [name], limit: 50}}}
  followers_page: {read: user, rate: 1000, filter: {_id: eq}, include: {followers: {fields: [name], limit: 50}}}
  follow: {link: follows, rate: 500}
  unfollow: {unlink: follows, rate: 100}
";

    #[test]
    fn stays_quiet() {
        // Small sides: the arrays win and the edge collection is an
        // alternative with its cost.
        let model = crate::inputs::model_file::parse(
            "s09.yaml",
            &crate::rules::testing::example("scenarios/s09-teams.yaml"),
        )
        .unwrap();
        let d = advise(&model, &Settings::default(), None).unwrap();
        let m = d.relationships.iter().find(|r| r.relationship == "memberships").unwrap();
        assert!(!matches!(m.chosen, crate::design::Layout::EdgeCollection { .. }));
        assert!(m.alternatives.iter().any(|a| matches!(
            (&a.layout, &a.verdict),
            (crate::design::Layout::EdgeCollection { .. }, crate::design::Verdict::Costlier { .. })
        )));
    }

    const STARS: &str = r"
name: stars
entities:
  user: {count: 100000000, fields: {login: string(16)}}
  repo: {count: 300000000, fields: {full_name: string(40)}}
relationships:
  stars:
    kind: many-to-many
    parent: user
    child: repo
    children: {min: 0, typical: 20, max: 200000}
    parents: {min: 0, typical: 3, max: 400000}
    standalone: true
    attributes: {starred_at: date}
operations:
  my_stars: {read: user, rate: 500, filter: {_id: eq}, include: {stars: {fields: [full_name, starred_at], limit: 20}}}
  star: {link: stars, rate: 2000}
  unstar: {unlink: stars, rate: 300}
";
}
