//! `scan`: measures existing data (sizes, field trees, arrays, references and
//! their fan-out) and finds anti-patterns, without a server.
