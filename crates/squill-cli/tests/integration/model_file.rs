//! Integration tests of `squill model file`.
