//! Integration tests of `squill scan`.
