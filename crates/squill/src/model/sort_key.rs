//! One key of an order: a field and its direction. Its own file, below the
//! workload and the conditional writes that both sort (a claim takes the
//! first by an order), so that neither imports the other.

use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SortKey {
    pub field: String,
    pub descending: bool,
}
