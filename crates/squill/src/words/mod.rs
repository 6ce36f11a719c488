//! English for people, made at the edge: numbers with separators and units,
//! plurals and articles of a model's names, suggestions for misspelt names,
//! names with their control characters escaped for a terminal; names from
//! data as file names (`file_name`), in generated code (`script`) and in
//! Markdown (`markdown`).
//! The lowest layer: everything that writes a sentence calls here, nothing here
//! knows a stage of the pipeline.

mod date;
pub mod file_name;
mod grammar;
pub mod markdown;
mod number;
pub mod script;
mod suggest;
mod ttl;
mod visible;

pub use date::utc;
pub use grammar::{
    a, article, count, duration_seconds, is_are, items, items_named, last_period, latest, plural,
    sides, singular, snake,
};
pub use number::{at_most, bytes, how_many, int, num, percent, rate, rounds_to_nothing};
pub use suggest::edit_distance;
pub use ttl::{MONITOR_SECONDS, ttl_deleted, ttl_monitor_delay, ttl_monitor_share};
pub use visible::{is_hidden, visible, visible_lines, visible_styled};
