//! mdae-rimis: exact multimode structural analysis and the RIMIS transformation for
//! flattened Modelica. Stages: `syntax` (AST, parser, printer) → `validate` (a
//! well-formed model) → `flat` (scalar equations, continuous/discrete split) → `mdae` →
//! `analysis` → `rimis` → `emit`; `driver` ties them to the command line.

pub mod analysis;
pub mod driver;
pub mod emit;
pub mod flat;
pub mod mdae;
pub mod rimis;
pub mod syntax;
pub mod validate;
