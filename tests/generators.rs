//! The scale-model generators of `benches/gen` (Westinghouse brake, building, and the
//! pipeline benchmark's families), checked here: bench targets are not built by
//! `cargo test`, so their unit tests run from this file.

#[path = "../benches/gen/mod.rs"]
mod r#gen;

#[allow(dead_code)]
#[path = "../benches/gen/families.rs"]
mod families;
