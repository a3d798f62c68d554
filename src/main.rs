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
        if !cli.builds_a_site() {
            without_huge_pages();
        }
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

/// Turns transparent huge pages off for the process. mimalloc asks the kernel for them on the
/// memory it reserves (`madvise`), so the first touch anywhere in a 2 MiB stretch of the heap
/// has the kernel find and zero a whole 2 MiB page, and a run uses its heap in many stretches
/// left part empty: without huge pages a `check` of 1,000 records holds 22 MB instead of 36,
/// of 10,000 records 41 MB instead of 68, of 100,000 records 204 MB instead of 220. On the
/// development machine, a virtual machine where memory touched for the first time is dear,
/// that is time too when the machine is slow (medians of ten runs in ABBA order: 10,000 JSON
/// records 0.08 s against 0.125, 100,000 records 0.88 s against 1.2) and none when it is
/// fast. `build` keeps them: its heap passes a gigabyte at 100,000 records, and it was the one
/// command measured slower without them (medians of six, 11.4 s against 9.8).
/// A run with `MIMALLOC_ALLOW_THP` set is left as mimalloc reads it.
fn without_huge_pages() {
    #[cfg(target_os = "linux")]
    if std::env::var_os("MIMALLOC_ALLOW_THP").is_none() {
        // SAFETY: `PR_SET_THP_DISABLE` takes integer arguments and touches no memory of the
        // process; the kernel reads the setting at each page fault, so pages already mapped
        // are left as they are. A kernel without it returns an error, and nothing changes.
        unsafe { libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0) };
    }
}
