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
    let made_dir = !dir.exists();
    std::fs::create_dir_all(dir).map_err(|err| InitError::Io(dir.to_path_buf(), err))?;
    let result = stage_and_move(dir, &targets);
    if result.is_err() && made_dir {
        // Only if empty: nothing of anyone else's is removed.
        let _ = std::fs::remove_dir(dir);
    }
    result
}

/// Writes the files into a hidden folder in `dir`, then moves each target into place: a
/// full disk, or a run killed half-way, leaves none of them behind, so that the next run
/// is not refused for a half-made corpus. A target that appears meanwhile is never
/// replaced, and the targets already moved are taken back.
///
/// The hidden folder is in flight ([`crate::interrupt`]): an interrupted run removes it,
/// and the moves are made holding off the interruption, so that all of the targets are
/// moved or none.
fn stage_and_move(dir: &Path, targets: &[&str]) -> Result<Vec<PathBuf>, InitError> {
    let staging = crate::interrupt::InFlight::make(
        || {
            tempfile::Builder::new()
                .prefix(".gotchas-init-")
                .tempdir_in(dir)
        },
        |t| t.path(),
    )
    .map_err(|err| InitError::Io(dir.to_path_buf(), crate::write::without_temporary_name(err)))?;
    let mut written = Vec::new();
    for (relative, content) in FILES {
        create_new(&staging.path().join(relative), content)
            .map_err(|err| InitError::Io(dir.join(relative), err))?;
        written.push(dir.join(relative));
    }
    staging.hold(|staged| move_all(staged.path(), dir, targets))?;
    Ok(written)
}

/// Moves each target from `staged` into `dir`; on a failure, takes back those moved.
fn move_all(staged: &Path, dir: &Path, targets: &[&str]) -> Result<(), InitError> {
    let mut moved: Vec<PathBuf> = Vec::new();
    for target in targets {
        let (from, to) = (staged.join(target), dir.join(target));
        if let Err(err) = move_new(&from, &to) {
            for done in moved.iter().rev() {
                let _ = remove(done);
            }
            return Err(InitError::Io(to, err));
        }
        moved.push(to);
    }
    Ok(())
}

/// Moves `from` to `to`, which must not exist: a file is linked there first (which fails on
/// an existing one, where a rename would replace it), or, on a file system without links,
/// written there anew; a folder is renamed (which fails on a folder with anything in it).
fn move_new(from: &Path, to: &Path) -> std::io::Result<()> {
    if from.is_dir() {
        return std::fs::rename(from, to);
    }
    match std::fs::hard_link(from, to) {
        Ok(()) => std::fs::remove_file(from),
        Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => Err(err),
        Err(_) => create_new(to, &std::fs::read_to_string(from)?),
    }
}

fn remove(path: &Path) -> std::io::Result<()> {
    if path.is_dir() {
        std::fs::remove_dir_all(path)
    } else {
        std::fs::remove_file(path)
    }
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
