//! One insta snapshot per fixture of its canonical print (hand-written and
//! omc-flattened forms), plus the round-trip property on each fixture.

mod common;

use mdae_rimis::syntax::{self, visit};
use std::path::Path;

fn fixture(rel: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures").join(rel);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn canonical(rel: &str) -> String {
    let src = fixture(rel);
    let file = syntax::SourceFile::new(rel, src);
    let mut ast = syntax::parse(&file.text).unwrap_or_else(|e| panic!("{}", e.render(&file)));
    common::check_spans(&mut ast, file.text.len()).unwrap();
    let printed = syntax::print(&ast);
    let mut again = syntax::parse(&printed).expect("the canonical print re-parses");
    visit::erase_spans(&mut ast);
    visit::erase_spans(&mut again);
    assert_eq!(ast, again, "parse(print(ast)) == ast for {rel}");
    printed
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
