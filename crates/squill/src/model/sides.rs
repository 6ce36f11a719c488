//! A many-to-many's links are counted twice in a model: the first side's
//! count times its `children` (organizers × fans per organizer) and the
//! second side's count times its `parents` (fans × organizers per fan).
//! They are one fact. Beyond `DISAGREE_FACTOR` apart (audit46 D6: 20
//! million links one way, 200 million the other), the layouts priced on
//! one side and the documents sized on the other disagree with each other;
//! squill keeps the first side's figure, which the edge collection's count
//! already follows (`junction`), and derives the second side's typical
//! from it, keeping what was stated (`Relationship::stated_parents`) for
//! the warning (`rules/design/many_to_many_sides_disagree.rs`).

use super::{Model, RelationshipKind};

/// Two figures of one fact further apart than this disagree (the same
/// factor as a growth against its inserts, `candidates::growth`).
pub const DISAGREE_FACTOR: f64 = 2.0;

/// The links of a many-to-many counted from each side: (first side's
/// count × its typical children, second side's count × its typical
/// parents, as stated).
pub fn links_by_side(model: &Model, r: super::RelationshipId) -> (f64, f64) {
    let rel = model.relationship(r);
    let parents = rel.stated_parents.unwrap_or(rel.parents.typical);
    (
        model.entity(rel.parent).count as f64 * rel.children.typical as f64,
        model.entity(rel.child).count as f64 * parents as f64,
    )
}

/// Makes the two sides of every many-to-many agree where they disagree
/// beyond `DISAGREE_FACTOR`: the second side's typical parents becomes
/// the first side's links over the second side's count (within its
/// stated min and max), and the stated figure is kept.
pub fn agree_sides(model: &mut Model) {
    for i in 0..model.relationships.len() {
        let r = super::RelationshipId::from_index(i);
        let rel = model.relationship(r);
        if rel.kind != RelationshipKind::ManyToMany || rel.stated_parents.is_some() {
            continue;
        }
        let (first, second) = links_by_side(model, r);
        if first <= 0.0 || second <= 0.0 || first.max(second) <= first.min(second) * DISAGREE_FACTOR
        {
            continue;
        }
        let count = model.entity(rel.child).count.max(1) as f64;
        let max = rel.parents.max.finite().unwrap_or(u64::MAX);
        let derived =
            ((first / count).round() as u64).clamp(rel.parents.min, max.max(rel.parents.min));
        let rel = &mut model.relationships[i];
        rel.stated_parents = Some(rel.parents.typical);
        rel.parents.typical = derived;
    }
}

#[cfg(test)]
mod tests {
    const FOLLOWS: &str = "
entities:
  fan: {count: 20000000, fields: {handle: string(20)}}
  organizer: {count: 100000, fields: {brand: string(30)}}
relationships:
  follows:
    kind: many-to-many
    parent: organizer
    child: fan
    children: {typical: 200, max: 40000000}
    parents: {typical: PARENTS, max: 2000}
operations:
  fans_of: {read: fan, filter: {follows: eq}, rate: 10}
";

    fn follows(parents: &str) -> crate::model::Relationship {
        let m = crate::inputs::model_file::parse("f.yaml", &FOLLOWS.replace("PARENTS", parents))
            .expect("the model parses");
        m.relationships[0].clone()
    }

    /// 100,000 organizers × 200 = 20 M links; 20 M fans × 10 = 200 M:
    /// the fans' side follows the organizers' (1 organizer per fan).
    #[test]
    fn the_second_side_follows_the_first_beyond_twice() {
        let r = follows("10");
        assert_eq!((r.parents.typical, r.stated_parents), (1, Some(10)));
    }

    /// Near miss: 2 per fan is 40 M links, exactly twice: left as stated.
    #[test]
    fn within_twice_stays_as_stated() {
        let r = follows("2");
        assert_eq!((r.parents.typical, r.stated_parents), (2, None));
    }
}
