//! `gotchas init`: a new corpus to start from, which checks clean.
//!
//! It writes a commented `gotchas.toml`, one example collection whose schema declares a
//! reference field with `x-ref`, one example record, and a prose page that links to it (a
//! record nothing cites would be an orphan), all kept as plain files in `src/init/` so that
//! they read like what they produce. It never overwrites: when any of its
//! targets exists, nothing at all is written, so running it twice, or in an existing corpus,
//! cannot lose anyone's work.

use std::io::Write;
use std::path::{Path, PathBuf};

/// The files written, by path relative to the corpus root.
pub const FILES: &[(&str, &str)] = &[
    ("gotchas.toml", include_str!("init/gotchas.toml")),
    (
        "schema/gotcha.schema.json",
        include_str!("init/gotcha.schema.json"),
    ),
    (
        "records/gotchas/example-gotcha.md",
        include_str!("init/example-gotcha.md"),
    ),
    ("docs/index.md", include_str!("init/index.md")),
];

/// Why nothing was written.
#[derive(Debug, thiserror::Error)]
pub enum InitError {
    /// Targets that exist already.
    #[error("already there: {}", .0.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", "))]
    Exists(Vec<PathBuf>),
    /// The folder to write into is a file.
    #[error("{} is a file, not a folder to make the corpus in", .0.display())]
    NotAFolder(PathBuf),
    /// A folder or file could not be written.
    #[error("cannot write {0}: {1}")]
    Io(PathBuf, std::io::Error),
}

/// Writes the example corpus into `dir` (created if missing) and returns the files written.
/// The targets are the config file and the `schema/`, `records/` and `docs/` folders: if any
/// exists, nothing is written.
pub fn init(dir: &Path) -> Result<Vec<PathBuf>, InitError> {
    if dir.exists() && !dir.is_dir() {
        return Err(InitError::NotAFolder(dir.to_path_buf()));
    }
    let mut targets: Vec<&str> = FILES
        .iter()
        .map(|(path, _)| path.split('/').next().unwrap_or(path))
        .collect();
    targets.dedup();
    let existing: Vec<PathBuf> = targets
        .iter()
        .map(|target| dir.join(target))
        .filter(|path| path.symlink_metadata().is_ok())
        .collect();
    if !existing.is_empty() {
        return Err(InitError::Exists(existing));
    }
    let mut written = Vec::new();
    for (relative, content) in FILES {
        let path = dir.join(relative);
        create_new(&path, content).map_err(|err| InitError::Io(path.clone(), err))?;
        written.push(path);
    }
    Ok(written)
}

/// Creates a file that must not exist yet, with its folders.
fn create_new(path: &Path, content: &str) -> std::io::Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)?
        .write_all(content.as_bytes())
}
