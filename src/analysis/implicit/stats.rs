//! Measurements of one implicit run, for the scale benchmark (`benches/scale.rs`): the
//! wall time of each phase and the peak BDD size, the largest node count of any BDD the
//! phases keep (χ_E, σ, the levels and steps of the primal programme and its messages,
//! T_e, c, d, ⇝ and its closure, block conditions).

use biodivine_lib_bdd::Bdd;
use std::time::Instant;

/// The largest BDD (nodes) an implicit run may keep: about 24 MB. The paper's models and
/// the scale generators stay far below (peak 10^5 nodes at Westinghouse N = 1000).
pub const NODE_LIMIT: usize = 2_000_000;

/// The most BDD work an implicit run may do, counted as the sum of the sizes of the BDDs
/// the primal programme builds (each operation costs at least its result): an MSL model
/// with 67 structural modes (BatchPlant_StandardWater) ran for minutes on BDDs of a few
/// MB. Deterministic (a count, not a clock).
pub const WORK_LIMIT: u64 = 400_000_000;

/// The most BDD nodes the result of a run may hold in all — the CDG's conditions, local
/// sets of the regular modes (`cdg.rs`): 384 MB (12 bytes a node). A model is refused when
/// the count passes this, before the memory is used. As whole BDDs every condition of the
/// compressible building carried its N rooms' invariant (O(N) nodes), O(N²) in all
/// (18·10^6 at N = 300, about 2·10^8 at N = 1000); as local sets each reads the rooms it is
/// about (3·10^4 nodes in all at N = 100). Deterministic (a count).
pub const HELD_LIMIT: u64 = 32_000_000;

#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// (phase, seconds), in the order the phases ran.
    pub phases: Vec<(&'static str, f64)>,
    /// Largest `Bdd::size()` seen.
    pub peak_nodes: usize,
    /// BDD variables of the encoding (mode variables + edges).
    pub bdd_vars: usize,
    /// A BDD the run kept grew past [`NODE_LIMIT`]: the run stops (deterministically, by
    /// size, not by time) and the analysis refuses the model.
    pub over_limit: bool,
    /// Nodes of the BDDs seen so far, summed ([`WORK_LIMIT`]).
    pub work: u64,
    /// Nodes of the BDDs the result holds, summed ([`HELD_LIMIT`]).
    pub held: u64,
    /// A budget for `held` other than [`HELD_LIMIT`]: for tests of the refusal.
    pub held_limit: Option<u64>,
    /// Solve every block by the BDD programme (`optimal.rs`), never by its structural
    /// classes (`classes.rs`): for tests and benchmarks of the programme.
    pub no_classes: bool,
    /// Solve every block by its structural classes factor by factor (`factors.rs`), never
    /// by the classes of the whole block (`classes.rs`): for tests of the factored split.
    pub factors_only: bool,
    /// Try the structural classes of the whole block before the factored split (the
    /// order before the split came first): for tests of `classes.rs`, which the split
    /// otherwise leaves little to do.
    pub classes_first: bool,
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
        self.work += b.size() as u64;
        self.over_limit |= self.peak_nodes > NODE_LIMIT || self.work > WORK_LIMIT;
    }

    /// `b` is kept in the result.
    pub(super) fn hold(&mut self, b: &Bdd) {
        self.held += b.size() as u64;
        self.over_limit |= self.held > self.held_limit();
    }

    /// The budget of nodes held ([`HELD_LIMIT`] unless a test set another).
    pub fn held_limit(&self) -> u64 {
        self.held_limit.unwrap_or(HELD_LIMIT)
    }

    pub(super) fn see_all<'a>(&mut self, bdds: impl IntoIterator<Item = &'a Bdd>) {
        for b in bdds {
            self.see(b);
        }
    }
}
