//! `generate`: turns a `Design` into what a team runs: validators, indexes, a
//! setup script, example documents, the query cookbook, synthetic data.
