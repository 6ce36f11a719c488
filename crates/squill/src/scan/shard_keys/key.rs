//! A shard key. The type lives in `design` (`design::shard_key`), where
//! advise's choice from a model (`Design`'s `sharding`) uses it too; the
//! scan names it here as before.

pub use crate::design::shard_key::{KeyError, KeyField, ShardKey};
