//! The scale-model generators of `benches/gen` (Westinghouse brake, building), checked here:
//! bench targets are not built by `cargo test`, so their unit tests run from this file.

#[path = "../benches/gen/mod.rs"]
mod r#gen;
