//! The cost model: prices a candidate design on the workload (round trips,
//! documents and index keys examined, bytes read and written, sync writes,
//! transactions), weighted by the operations' rates. See docs/cost-model.md.
