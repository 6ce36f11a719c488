//! Damaged inputs made here.
