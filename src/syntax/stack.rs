//! Running a recursive pass on a thread with a known, large stack. The parser bounds
//! nesting and tree height; this makes the bound safe whatever thread the caller is
//! on (test threads have 2 MiB, and unoptimised frames are large).

/// Stack for the parser and the printer: ample for `MAX_DEPTH` nesting and trees of
/// `MAX_HEIGHT`, even unoptimised. Reserved virtual memory, touched only as used.
pub const STACK_BYTES: usize = 64 << 20;

/// Runs `f` on a scoped thread with [`STACK_BYTES`] of stack; if no thread can be
/// started, runs it on the current one.
pub fn with_stack<T: Send, F: FnOnce() -> T + Send>(f: F) -> T {
    let slot = std::sync::Mutex::new(Some(f));
    let take = || slot.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take();
    let on_thread = std::thread::scope(|s| {
        let spawned = std::thread::Builder::new()
            .name("mdae-syntax".into())
            .stack_size(STACK_BYTES)
            .spawn_scoped(s, || take().map(|f| f()));
        match spawned {
            Ok(h) => h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)),
            Err(_) => None,
        }
    });
    match on_thread {
        Some(v) => v,
        None => take().map(|f| f()).expect("the closure runs exactly once"),
    }
}
