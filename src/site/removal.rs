//! Removing a site folder the tool wrote: an old site a build replaced, or one a killed
//! build left.
//!
//! Such a folder is the tool's own, so a folder in it made read-only (`chmod -R a-w site`,
//! a checkout's permissions) is made writable by its owner before what it holds is removed:
//! a removal ignoring its errors left the whole old site beside the new one, unsaid. What
//! still cannot be removed (another user's folder in it) is returned, for a warning to
//! name.

use std::fmt;
use std::fs::Metadata;
use std::io;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

/// What could not be removed of a folder, and why.
#[derive(Debug)]
pub struct Left {
    /// The folder.
    pub folder: PathBuf,
    /// Each path that could not be removed, with the error.
    pub failures: Vec<(PathBuf, io::Error)>,
}

impl fmt::Display for Left {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.folder.display())?;
        if let Some((path, err)) = self.failures.first() {
            let more = match self.failures.len() {
                1 => String::new(),
                n => format!(" and {} more", n - 1),
            };
            write!(f, " ({}: {err}{more})", path.display())?;
        }
        Ok(())
    }
}

/// Removes `folder` and what it holds, folders in parallel: for a large site this takes
/// about as long as writing one, most of it waiting on the file system. Links are removed,
/// never followed; what is gone already (another build's sweep removing it too) is no
/// failure. Each removal holds off an interruption's clean-up, which may remove the same
/// folder (see [`crate::interrupt::meanwhile`]).
pub fn remove(folder: &Path) -> Result<(), Left> {
    let failures = match std::fs::symlink_metadata(folder) {
        Ok(meta) => remove_folder(folder, &meta),
        Err(err) if err.kind() == io::ErrorKind::NotFound => Vec::new(),
        Err(err) => vec![(folder.to_path_buf(), err)],
    };
    if failures.is_empty() {
        Ok(())
    } else {
        Err(Left {
            folder: folder.to_path_buf(),
            failures,
        })
    }
}

type Failures = Vec<(PathBuf, io::Error)>;

/// Removes a folder whose metadata is `meta`, and what it holds.
fn remove_folder(folder: &Path, meta: &Metadata) -> Failures {
    if let Err(err) = writable(folder, meta) {
        return vec![(folder.to_path_buf(), err)];
    }
    let entries: Vec<PathBuf> = match std::fs::read_dir(folder) {
        Ok(entries) => entries.filter_map(|e| e.ok().map(|e| e.path())).collect(),
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Vec::new(),
        Err(err) => return vec![(folder.to_path_buf(), err)],
    };
    let failures =
        entries
            .par_iter()
            .map(|path| remove_entry(path))
            .reduce(Vec::new, |mut all, some| {
                all.extend(some);
                all
            });
    if !failures.is_empty() {
        return failures;
    }
    gone(
        folder,
        crate::interrupt::meanwhile(|| std::fs::remove_dir(folder)),
    )
}

fn remove_entry(path: &Path) -> Failures {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => remove_folder(path, &meta),
        Ok(_) => gone(
            path,
            crate::interrupt::meanwhile(|| std::fs::remove_file(path)),
        ),
        Err(err) => gone(path, Err(err)),
    }
}

/// The failure of a removal, if it failed other than for want of the path.
fn gone(path: &Path, removed: io::Result<()>) -> Failures {
    match removed {
        Err(err) if err.kind() != io::ErrorKind::NotFound => vec![(path.to_path_buf(), err)],
        _ => Vec::new(),
    }
}

/// Gives a folder's owner the right to list it and remove what it holds, if they lack it.
fn writable(folder: &Path, meta: &Metadata) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = meta.permissions().mode();
        if mode & 0o700 != 0o700 {
            std::fs::set_permissions(folder, std::fs::Permissions::from_mode(mode | 0o700))?;
        }
    }
    #[cfg(not(unix))]
    if meta.permissions().readonly() {
        let mut permissions = meta.permissions();
        permissions.set_readonly(false);
        std::fs::set_permissions(folder, permissions)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_read_only_folder_is_made_writable_and_removed() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let site = dir.path().join("site");
        std::fs::create_dir_all(site.join("engines/vllm")).unwrap();
        std::fs::write(site.join("engines/vllm/index.html"), "<p>").unwrap();
        for folder in [
            site.join("engines/vllm"),
            site.join("engines"),
            site.clone(),
        ] {
            std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o555)).unwrap();
        }
        remove(&site).unwrap();
        assert!(!site.exists());
        assert!(remove(&site).is_ok(), "a folder gone already is removed");
    }
}
