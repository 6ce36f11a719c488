//! No code: this crate only asks cargo for dependency features, so that
//! squill's default build and its every-feature test build compile each
//! shared dependency once (see its Cargo.toml).
