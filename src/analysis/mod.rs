//! Stage 3, the exact multimode structural analysis (papers 002 §3–4, 000 §4.1).
//!
//! Input: an [`Mdae`]. Output: a [`Cdg`]: valid and singular modes, the offsets c and
//! orders d per mode, the blocks and their dependencies, every condition a BDD.
//! Two strategies compute the same [`Cdg`]: [`explicit`] (enumerate valid modes; the
//! reference) and the implicit one (all modes at once with BDDs, paper 002 §4).
//! Pure algorithms over dense indices live in their own files: [`matching`], [`dm`],
//! [`sigma`], [`scc`]; the BDD layer is [`modes`]; reports are written by [`report`].

pub mod care;
pub mod causal;
pub mod cdg;
pub mod dm;
pub mod explicit;
pub mod implicit;
pub mod impulse;
pub mod matching;
pub mod modes;
pub mod oblivious;
pub mod report;
pub mod scc;
pub mod sigma;

pub use cdg::Cdg;
pub use explicit::explicit;

use crate::mdae::Mdae;

/// Which algorithm computes the CDG.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    Explicit,
    Implicit,
    Auto,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AnalysisError {
    #[error(
        "the explicit strategy enumerates at most 2^{limit} modes; this model has {dimensions} mode variables and atoms"
    )]
    TooManyModes { dimensions: usize, limit: usize },
    #[error("unsupported by the analysis: {0}")]
    Unsupported(String),
    #[error(
        "one irreducible block of this model depends on {modes} mode variables and atoms; the implicit analysis of more than {limit} in one block is beyond its budget (use --strategy implicit to try anyway)"
    )]
    TooManyLocalModes { modes: usize, limit: usize },
    #[error(
        "the implicit analysis of this model's {modes} mode variables and atoms exceeds its budget ({nodes} BDD nodes kept, {work} nodes built); the model is refused, not analysed in part"
    )]
    TooLarge { modes: usize, nodes: usize, work: u64 },
}

/// `auto` enumerates modes when there are at most this many valid assignments of the
/// structural modes ([`explicit::structural_modes`]). Measured by
/// `benches/scale.rs` (explicit / implicit seconds of the `--check` job): Westinghouse 64
/// valid modes 0.017 / 0.042, 256 modes 0.097 / 0.053; compressible building 108 modes
/// 0.059 / 0.134, 648 modes 0.26 / 0.28, 3,888 modes 2.6 / 0.27; incompressible building
/// 108 modes 0.024 / 0.095, 648 modes 0.20 / 0.17.
pub const AUTO_EXPLICIT_MAX_MODES: u64 = 128;

/// Runs the analysis with `strategy`.
pub fn analyse(mdae: &Mdae, strategy: Strategy) -> Result<Cdg, AnalysisError> {
    match strategy {
        Strategy::Explicit => explicit(mdae),
        Strategy::Implicit => implicit::implicit(mdae),
        Strategy::Auto if explicit_is_cheap(mdae) => explicit(mdae),
        Strategy::Auto => {
            let local = local_modes(mdae);
            if local > LOCAL_MODES_LIMIT {
                return Err(AnalysisError::TooManyLocalModes { modes: local, limit: LOCAL_MODES_LIMIT });
            }
            implicit::implicit(mdae)
        }
    }
}

/// `auto` also enumerates when the work, assignments × equations, stays below this
/// (a Σ-method per assignment is linear in the model; ThreeTanks: 1,024 × 255).
pub const AUTO_EXPLICIT_MAX_WORK: u64 = 2_000_000;

/// `auto` refuses a model one of whose irreducible blocks (of the union graph over all
/// modes) depends on more mode variables and atoms than this, rather than run without an
/// end: the implicit programme over such a block ran for minutes on small BDDs
/// (BatchPlant_StandardWater: 48 modes in one block; neither a node nor a work budget on
/// the primal programme caught it). `--strategy implicit` still tries.
pub const LOCAL_MODES_LIMIT: usize = usize::MAX; // TRIAL

/// The most modes the guards of one irreducible block of the union graph mention (0 when
/// the union graph has no perfect matching: the analysis then reports the singularity).
pub fn local_modes(mdae: &Mdae) -> usize {
    let union: matching::Graph = mdae
        .equations
        .iter()
        .map(|e| {
            let mut row: Vec<(usize, i64)> = e.incidence.iter().map(|i| (i.var.index(), 0)).collect();
            row.sort_unstable();
            row.dedup();
            row
        })
        .collect();
    let Some(fine) = dm::fine_blocks(&union, mdae.vars.len()) else { return 0 };
    let mut modes: Vec<Vec<crate::mdae::ModeId>> = vec![Vec::new(); fine.count];
    for (i, e) in mdae.equations.iter().enumerate() {
        let b = &mut modes[fine.eq_block[i]];
        e.active.modes(b);
        for inc in &e.incidence {
            inc.when.modes(b);
        }
    }
    modes
        .into_iter()
        .map(|mut m| {
            m.sort_unstable();
            m.dedup();
            m.len()
        })
        .max()
        .unwrap_or(0)
}

/// Whether the explicit strategy enumerates few assignments of the structural modes
/// (at most [`AUTO_EXPLICIT_MAX_MODES`], or a small total work).
fn explicit_is_cheap(mdae: &Mdae) -> bool {
    if mdae.modes.len() > u16::MAX as usize - 2 {
        return false;
    }
    explicit::enumerated_modes(mdae).is_some_and(|n| {
        n <= AUTO_EXPLICIT_MAX_MODES || n.saturating_mul(mdae.equations.len() as u64 + 1) <= AUTO_EXPLICIT_MAX_WORK
    })
}
