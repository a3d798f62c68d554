//! `gotchas check`'s stages run on the calling thread alone, for counting each stage's
//! instructions with callgrind (`bench/instructions.sh`). With rayon's pool made of the
//! main thread, a stage's parallel work runs inside the stage's own call, so callgrind's
//! inclusive count of the stage's function is all of its work; with worker threads, that
//! work would be counted under rayon's frames on other threads instead.
//!
//! ```text
//! cargo build --profile profiling --example one_thread
//! valgrind --tool=callgrind target/profiling/examples/one_thread CORPUS_ROOT
//! ```

use std::path::Path;
use std::process::ExitCode;

use gotchas::project::Project;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let Some(root) = std::env::args().nth(1) else {
        eprintln!("usage: one_thread CORPUS_ROOT");
        return ExitCode::from(2);
    };
    if let Err(error) = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .use_current_thread()
        .build_global()
    {
        eprintln!("one_thread: {error}");
        return ExitCode::FAILURE;
    }
    let project = match Project::open(Path::new(&root), None) {
        Ok(project) => project,
        Err(diagnostics) => {
            for diagnostic in diagnostics {
                eprintln!("one_thread: {}", diagnostic.message);
            }
            return ExitCode::FAILURE;
        }
    };
    let corpus = project.load_for_check();
    let diagnostics = project.check(&corpus);
    println!("{} diagnostics", diagnostics.len());
    ExitCode::SUCCESS
}
