//! Decision tests: golden scenarios, optimizer vs exhaustive search, every rule firing.

mod builder;
mod dump;
mod first;
pub mod golden;
mod exhaustive;
mod rules_fire;
