//! The `gotchas` binary: everything is in the library; see `gotchas::cli`.

/// mimalloc instead of the system allocator: loading a corpus makes millions of small
/// allocations from every thread at once, which glibc's malloc serves by growing per-thread
/// arenas a page-protection call at a time.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    gotchas::cli::main()
}
