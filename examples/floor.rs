//! The physical floor for `gotchas check`: read every record file under a corpus's
//! `records/` and parse it with the same parsers `gotchas` uses (serde_json, saphyr's event
//! parser, pulldown-cmark for Markdown bodies), on the same number of threads, and nothing
//! else. `bench/run.sh` times it beside `gotchas check` so the ratio is measured in one run.
//!
//! ```text
//! cargo run --release --example floor -- CORPUS_ROOT
//! ```

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use rayon::prelude::*;

fn main() -> ExitCode {
    let Some(root) = std::env::args().nth(1) else {
        eprintln!("usage: floor CORPUS_ROOT");
        return ExitCode::from(2);
    };
    let mut files = Vec::new();
    collect(&Path::new(&root).join("records"), &mut files);
    let parsed: usize = files.par_iter().map(|path| parse(path)).sum();
    println!("parsed {parsed} of {} files", files.len());
    ExitCode::SUCCESS
}

fn collect(dir: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, files);
        } else {
            files.push(path);
        }
    }
}

/// Parses one file; 1 when it parsed.
fn parse(path: &Path) -> usize {
    let Ok(text) = std::fs::read_to_string(path) else {
        return 0;
    };
    let ok = match path.extension().and_then(|e| e.to_str()) {
        Some("json") => serde_json::from_str::<serde_json::Value>(&text).is_ok(),
        Some("yaml" | "yml") => yaml(&text),
        Some("md") => {
            let rest = text.strip_prefix("---\n").unwrap_or(&text);
            match rest.find("\n---\n") {
                Some(end) => {
                    let body = &rest[end + 5..];
                    let events = pulldown_cmark::Parser::new(body).count();
                    yaml(&rest[..end + 1]) && events > 0
                }
                None => false,
            }
        }
        _ => false,
    };
    usize::from(ok)
}

fn yaml(text: &str) -> bool {
    saphyr_parser::Parser::new_from_str(text).all(|event| event.is_ok())
}
