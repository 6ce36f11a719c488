//! The shared real data read end to end.
