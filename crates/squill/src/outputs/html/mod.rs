//! The HTML reports: one self-contained page per report (the stylesheet and
//! every diagram and chart inline as SVG, no script, nothing fetched), to
//! attach to a pull request or a ticket. Light and dark follow the reader's
//! system, print gets its own palette, and every link and `<details>` is
//! reachable from the keyboard.

mod canvas;
mod capacity;
mod chart;
mod design;
mod diagram;
mod docs;
mod findings;
mod page;
mod scan;
mod shard_keys;
mod sharding;
mod split;
mod workload;

pub use design::render as design;
pub use design::render_run as design_run;
pub use scan::render as scan;
pub use scan::with_capacity as scan_with_capacity;
pub use scan::with_shard_keys as scan_with_shard_keys;
pub use workload::render as workload;
