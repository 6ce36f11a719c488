//! Integration tests of `squill advise`.
