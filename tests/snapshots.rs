//! One insta snapshot per fixture of its canonical print (hand-written and
//! omc-flattened forms), plus the round-trip property on each fixture.

mod common;

use std::path::Path;

fn fixture(rel: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures").join(rel);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn canonical(rel: &str) -> String {
    common::round_trip(rel, &fixture(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

macro_rules! snapshot_fixtures {
    ($($test:ident => $path:literal),* $(,)?) => {$(
        #[test]
        fn $test() {
            insta::assert_snapshot!(stringify!($test), canonical($path));
        }
    )*};
}

snapshot_fixtures! {
    canonical_two_equations => "TwoEquations.mo",
    canonical_water_tank => "WaterTank.mo",
    canonical_rldc2 => "RLDC2.mo",
    canonical_clutch_basic => "ClutchBasic.mo",
    canonical_cup_and_ball => "CupAndBall.mo",
    canonical_omc_two_equations => "omc-flat/TwoEquations.mo",
    canonical_omc_water_tank => "omc-flat/WaterTank.mo",
    canonical_omc_rldc2 => "omc-flat/RLDC2.mo",
    canonical_omc_clutch_basic => "omc-flat/ClutchBasic.mo",
    canonical_omc_cup_and_ball => "omc-flat/CupAndBall.mo",
}
