//! The `gotchas` binary: everything is in the library; see `gotchas::cli`.

use std::process::ExitCode;

/// mimalloc instead of the system allocator: loading a corpus makes millions of small
/// allocations from every thread at once, which glibc's malloc serves by growing per-thread
/// arenas a page-protection call at a time.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `mi_option_purge_delay` (its place in `mi_option_e`, mimalloc 3's
/// include/mimalloc.h; libmimalloc-sys names no constant for it).
const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

fn main() -> ExitCode {
    let cli = match gotchas::cli::Cli::from_env() {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    if !cli.runs_until_stopped() {
        keep_freed_memory();
    }
    cli.run()
}

/// Tells mimalloc never to give freed memory back to the system. By default it does so 10 ms
/// after a page empties, and the next allocation there faults the page in again, zeroed by
/// the kernel: a `check` of 100,000 records frees and reallocates enough (each file's text,
/// each record's fields once drawn) that page zeroing was a fifth of its profile and system
/// time halved without purging (`MIMALLOC_PURGE_DELAY=-1`: 0.6-0.7 s instead of 0.9-1.4 s,
/// peak memory 5% higher). A one-shot run exits soon after its peak, so nothing is lost;
/// `serve` and `lsp` keep the default, and so does a run with `MIMALLOC_PURGE_DELAY` set.
fn keep_freed_memory() {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: called on the main thread before any other thread exists; mimalloc's
        // options are plain integers read when it purges.
        unsafe { libmimalloc_sys::mi_option_set(PURGE_DELAY, -1) };
    }
}
