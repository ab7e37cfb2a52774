//! Stage 4, the RIMIS transformation (paper 000 §4.6): from an mDAE and its CDG to a
//! model whose single-mode (approximate) structural analysis contains every block of the
//! CDG. `symbolic` is the expression layer it stands on: simplification, partial
//! evaluation π_q, time differentiation δ_k.

pub mod symbolic;
