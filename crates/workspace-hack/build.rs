//! Empty: present so that the `[build-dependencies]` of Cargo.toml (the
//! host's syn features) take part in feature resolution.
fn main() {}
