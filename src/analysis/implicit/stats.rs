//! Measurements of one implicit run, for the scale benchmark (`benches/scale.rs`): the
//! wall time of each phase and the peak BDD size, the largest node count of any BDD the
//! phases keep (χ_E, σ, the levels and steps of the primal programme and its messages,
//! T_e, c, d, ⇝ and its closure, block conditions).

use biodivine_lib_bdd::Bdd;
use std::time::Instant;

#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// (phase, seconds), in the order the phases ran.
    pub phases: Vec<(&'static str, f64)>,
    /// Largest `Bdd::size()` seen.
    pub peak_nodes: usize,
    /// BDD variables of the encoding (mode variables + edges).
    pub bdd_vars: usize,
    started: Option<Instant>,
}

impl Stats {
    pub(super) fn start(&mut self) {
        self.started = Some(Instant::now());
    }

    /// Closes the phase that began at the last `start` or `phase`.
    pub(super) fn phase(&mut self, name: &'static str) {
        let now = Instant::now();
        let since = self.started.replace(now).unwrap_or(now);
        self.phases.push((name, now.duration_since(since).as_secs_f64()));
    }

    pub(super) fn see(&mut self, b: &Bdd) {
        self.peak_nodes = self.peak_nodes.max(b.size());
    }

    pub(super) fn see_all<'a>(&mut self, bdds: impl IntoIterator<Item = &'a Bdd>) {
        for b in bdds {
            self.see(b);
        }
    }
}
