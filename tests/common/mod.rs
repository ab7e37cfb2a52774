//! Helpers shared by the integration tests.
#![allow(dead_code)]

use mdae_rimis::syntax::ast::StoredDefinition;
use mdae_rimis::syntax::{Span, visit};

/// Runs `f` on a thread with a 256 MiB stack (as the CLI does).
pub fn in_big_thread<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    mdae_rimis::driver::with_big_stack(f)
}

/// Every span lies inside the source and is well-formed (start <= end).
pub fn check_spans(ast: &mut StoredDefinition, len: usize) -> Result<(), String> {
    let mut bad: Option<Span> = None;
    visit::walk_spans(ast, &mut |s| {
        if (s.start > s.end || s.end as usize > len) && bad.is_none() {
            bad = Some(*s);
        }
    });
    match bad {
        Some(s) => Err(format!("span {s:?} is outside the source of {len} bytes")),
        None => Ok(()),
    }
}
