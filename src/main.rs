//! The `gotchas` binary: everything is in the library; see `gotchas::cli`.

fn main() -> std::process::ExitCode {
    gotchas::cli::main()
}
