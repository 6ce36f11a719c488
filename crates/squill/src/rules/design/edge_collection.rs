//! `edge-collection`: A many-to-many whose links are many, or read from both sides with their own fields, as one document per link.

crate::rules::declare_rule! {
    id: "edge-collection",
    summary: "Keep a many-to-many's links as documents of their own (an edge collection) when arrays on either side would cost more or break a limit",
    kind: Design,
    severity: Info,
    sources: ["003_8caca105590b9080.txt", "004_16209cf0db7b32ff.txt"],
    check: Relationship { order: 215, check },
}

use crate::rules::judge::{Judgement, RelCheck};

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
        let coll = d.collections.iter().find(|c| c.name == "stars").unwrap();
        let names: Vec<&str> = coll.shape.fields.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["_id", "starred_at", "user", "repo"]);
    }

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
