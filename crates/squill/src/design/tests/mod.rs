//! Decision tests: golden scenarios, optimizer vs exhaustive search, every rule firing.

mod builder;
mod first;
