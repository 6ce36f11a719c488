//! The ids by which the parts of a model name each other: indexes into the
//! model's lists. Both entities and relationships use both, so they live
//! below either.

super::index_type!(
    /// Index of an entity in `Model::entities`.
    EntityId
);

super::index_type!(
    /// Index of a relationship in `Model::relationships`.
    RelationshipId
);
