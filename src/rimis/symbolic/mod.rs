//! The symbolic layer of the RIMIS transformation (work in progress).
