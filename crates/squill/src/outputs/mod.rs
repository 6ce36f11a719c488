//! Reporters: turn values (a `Design`, a scan report, rule docs) into text,
//! Markdown, JSON, SARIF. They write to a `String` or an `io::Write`; they never
//! decide exit codes.

pub mod design;
pub mod html;
pub mod rules;
pub(crate) mod sarif_uri;
pub mod scan;
pub mod shard_keys;
pub mod workload;
