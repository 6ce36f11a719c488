//! Integration tests of `squill generate`.
