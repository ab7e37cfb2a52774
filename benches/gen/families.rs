//! Generators of the pipeline benchmark's other families (issue 15), as flat Modelica text:
//! models without modes of 10^3–10^5 equations, and the product constraint of
//! `../shared/repro/slow_product_x129.mo` with any number of factors.
//!
//! - [`chain`]`(n)`: `x_1 = sin(time)`, `x_i = 0.5*x_{i-1} + sin(time)*i - cos(x_{i-1})`:
//!   n equations, n one-equation blocks in a line (the chain).
//! - [`independent`]`(n)`: `x_i = i*time`: n equations, no coupling at all.
//! - [`network`]`(n)`: a thermal RC network of n nodes on a ring with one chord per node (a
//!   fixed pseudo-random pairing): every fourth node is massless (`0 = Σ Q`, algebraic), the
//!   others are capacities (`C*der(T_i) = Σ Q + q_i`); each link carries `Q_e = G*(T_a - T_b)`.
//!   n + 1.5n links = 3.5n equations (n a multiple of 4); blocks of at most two massless nodes
//!   and their links (a chord pairs at most two of them), so bounded.
//! - [`product`]`(k)`: CupAndBall (paper 000) with its rope constraint replaced by
//!   `0 = x*x*…*x` (k factors), differentiated twice by RIMIS: the expression blow-up of
//!   `slow_product_x129.mo` for any k (one mode variable, two modes).
//!
//! Output: one `model … end …;` per call, deterministic, one declaration or equation per line.

/// The chain `x_i = 0.5*x_{i-1} + sin(time)*i - cos(x_{i-1})` of `n` equations (`n ≥ 1`).
pub fn chain(n: usize) -> String {
    let mut s = format!("model Chain{n}\n");
    for i in 1..=n {
        s.push_str(&format!("  Real x_{i};\n"));
    }
    s.push_str("equation\n  x_1 = sin(time);\n");
    for i in 2..=n {
        let h = i - 1;
        s.push_str(&format!("  x_{i} = 0.5*x_{h} + sin(time)*{i} - cos(x_{h});\n"));
    }
    s.push_str(&format!("end Chain{n};\n"));
    s
}

/// `n` independent equations `x_i = i*time`.
pub fn independent(n: usize) -> String {
    let mut s = format!("model Independent{n}\n");
    for i in 1..=n {
        s.push_str(&format!("  Real x_{i};\n"));
    }
    s.push_str("equation\n");
    for i in 1..=n {
        s.push_str(&format!("  x_{i} = {i}*time;\n"));
    }
    s.push_str(&format!("end Independent{n};\n"));
    s
}

/// The chord partner of every node: a pseudo-random perfect pairing of `0..n` (`n` even),
/// from a fixed linear congruential generator (deterministic).
fn pairing(n: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for i in (1..n).rev() {
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        order.swap(i, (seed >> 33) as usize % (i + 1));
    }
    let mut partner = vec![0; n];
    for p in order.chunks(2) {
        partner[p[0]] = p[1];
        partner[p[1]] = p[0];
    }
    partner
}

/// The thermal network of `n` nodes (`n` a positive multiple of 4): 3.5n equations.
///
/// # Panics
/// If `n` is not a positive multiple of 4.
pub fn network(n: usize) -> String {
    assert!(n > 0 && n.is_multiple_of(4), "the network has a multiple of 4 nodes");
    let partner = pairing(n);
    // Links: ring i -> i+1, then chords i -> partner(i) for i < partner(i).
    let mut links: Vec<(usize, usize)> = (0..n).map(|i| (i, (i + 1) % n)).collect();
    links.extend((0..n).filter(|&i| i < partner[i]).map(|i| (i, partner[i])));
    let mut at: Vec<Vec<(usize, bool)>> = vec![Vec::new(); n];
    for (e, &(a, b)) in links.iter().enumerate() {
        at[a].push((e, false)); // Q_e leaves a
        at[b].push((e, true)); // and enters b
    }
    let massless = |i: usize| i % 4 == 3;
    let mut s = format!("model Network{n}\n  parameter Real C = 1000.0;\n  parameter Real G = 2.5;\n");
    for i in 0..n {
        let start = if massless(i) { String::new() } else { "(start = 293.15, fixed = true)".to_string() };
        s.push_str(&format!("  Real T_{i}{start};\n"));
    }
    for e in 0..links.len() {
        s.push_str(&format!("  Real Q_{e};\n"));
    }
    s.push_str("equation\n");
    for (i, links_here) in at.iter().enumerate() {
        let flows: Vec<String> =
            links_here.iter().map(|&(e, into)| format!("{}Q_{e}", if into { " + " } else { " - " })).collect();
        let sum = flows.concat();
        if massless(i) {
            s.push_str(&format!("  0 = 0{sum};\n"));
        } else {
            s.push_str(&format!("  C*der(T_{i}) = {}.0*sin(time){sum};\n", i % 7));
        }
    }
    for (e, &(a, b)) in links.iter().enumerate() {
        s.push_str(&format!("  Q_{e} = G*(T_{a} - T_{b});\n"));
    }
    s.push_str(&format!("end Network{n};\n"));
    s
}

/// CupAndBall with the constraint `0 = x*x*…*x` of `k` factors (`k ≥ 1`), as
/// `../shared/repro/slow_product_x129.mo` writes it for k = 129.
pub fn product(k: usize) -> String {
    let factors = vec!["x"; k].join(" * ");
    format!(
        "model CupAndBall
  constant Real g = 9.81; constant Real L = 1.0;
  Real x(start=0,fixed=true); Real y(start=0, fixed=true);
  Real u(start=0, fixed=true); Real v(start=0,fixed=true);
  Real lambda; Real s;
  Boolean gamma(start=false,fixed=true);
equation
  der(x) = u; der(y) = v;
  /* e1: */ der(u) + lambda*x = 0;
  /* e2: */ der(v) + lambda*y + g = 0;
  gamma = (s <= 0);
  /* k1: */ 0 = {factors};
  /* k2: */ s = if gamma then -lambda else L^2 - (x^2 + y^2);
end CupAndBall;
"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (declared Reals, equations) counted line by line.
    fn counts(model: &str) -> (usize, usize) {
        let (decls, body) = model.split_once("\nequation\n").expect("an equation section");
        let reals = decls.lines().filter(|l| l.trim_start().starts_with("Real ")).count();
        let eqs = body.lines().filter(|l| l.ends_with(';') && !l.starts_with("end ")).count();
        (reals, eqs)
    }

    #[test]
    fn the_families_are_square_with_the_documented_sizes() {
        assert_eq!(counts(&chain(10)), (10, 10));
        assert_eq!(counts(&independent(7)), (7, 7));
        // 8 nodes, 8 ring links, 4 chords: 8 + 12 = 20 = 3.5 * 8 unknowns and equations.
        assert_eq!(counts(&network(8)), (20, 20));
        assert!(chain(3).contains("  x_3 = 0.5*x_2 + sin(time)*3 - cos(x_2);\n"));
    }

    #[test]
    fn the_pairing_is_a_fixed_perfect_pairing() {
        for n in [4, 8, 400] {
            let p = pairing(n);
            assert!((0..n).all(|i| p[p[i]] == i && p[i] != i), "n = {n}");
        }
        assert_eq!(network(400), network(400));
    }

    #[test]
    fn product_is_the_shared_reproducer_for_129_factors() {
        let m = product(129);
        assert_eq!(m.matches("x * ").count(), 128);
        assert!(m.contains("/* k1: */ 0 = x * x * x"));
        let repro = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/repro/slow_product_x129.mo");
        if let Ok(text) = std::fs::read_to_string(repro) {
            assert_eq!(text.trim_end(), m.trim_end(), "the shared reproducer");
        }
    }
}
