//! Stage 3, the exact multimode structural analysis (papers 002 §3–4, 000 §4.1).
//!
//! Input: an [`Mdae`]. Output: a [`Cdg`]: valid and singular modes, the offsets c and
//! orders d per mode, the blocks and their dependencies, every condition a BDD
//! (those of the regular modes as local sets, `local.rs`).
//! Two strategies compute the same [`Cdg`]: [`explicit`] (enumerate valid modes; the
//! reference) and the implicit one (all modes at once with BDDs, paper 002 §4).
//! Pure algorithms over dense indices live in their own files: [`matching`], [`dm`],
//! [`sigma`], [`scc`]; the BDD layer is [`modes`]; reports are written by [`report`].

pub mod care;
pub mod causal;
pub mod cdg;
pub mod dm;
pub mod every_mode;
pub mod explicit;
pub mod implicit;
pub mod impulse;
pub mod initial;
pub mod local;
pub mod matching;
pub mod meets;
pub mod modes;
pub mod oblivious;
pub mod one_mode;
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
        "the implicit analysis of this model's {modes} mode variables and atoms exceeds its budget ({nodes} BDD nodes kept, {levels} nodes at a cut of one block with more than {classes} structural classes, {work} nodes built); the model is refused, not analysed in part"
    )]
    TooLarge { modes: usize, nodes: usize, levels: usize, classes: usize, work: u64 },
    #[error(
        "the implicit analysis of this model's {modes} mode variables and atoms exceeds its memory budget ({held} BDD nodes held by the conditions of its result, about {megabytes} MB); the model is refused, not analysed in part"
    )]
    TooMuchMemory { modes: usize, held: u64, megabytes: u64 },
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
        Strategy::Auto => implicit::implicit(mdae),
    }
}

/// `auto` also enumerates when the work, assignments × equations, stays below this.
/// Measured on the 38 MSL examples that reach the analysis with work ≤ 2·10^6 (user
/// seconds of the main job, implicit / explicit): up to ~15,000 both within 0.05 s
/// (CascadeControlledDrive 256 × 46: 0.05 / 0.08); above, the enumeration loses every
/// time — PathPlanning6 256 × 230: 0.09 / 0.29, CCCV_CellRC 2,048 × 150: 0.05 / 0.91,
/// ThreeTanks 1,728 × 255: 0.50 / 2.33, Friction 20,736 × 92: 0.03 / 4.24 (the limit
/// was 2·10^6 before the structural classes made the implicit primal cheap).
pub const AUTO_EXPLICIT_MAX_WORK: u64 = 20_000;

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
