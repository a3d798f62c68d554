//! What the file system says of a file, so that a file can be known unchanged without being
//! read: the check cache ([`crate::cache`]) recalls a record file whose stamp is the one it
//! kept, where opening, reading and hashing every file of a large corpus was most of a
//! repeated check.
//!
//! A stamp is the file's size, its device and inode, and the times its content and its
//! status last changed, as git's index keeps them. The status-change time (`ctime`) is set
//! by the kernel on every write, rename or change of the other times, and no program can set
//! it back, so a file written since has another stamp, with one exception that git calls
//! racy: a write within the same tick of the file system's clock as the stamp's times. A
//! stamp is therefore trusted only once it has [`settled`](Stamp::settled_before): its
//! times lie [`SETTLE`] or more before the run that took it started, so that any later
//! write falls in a later tick, even on file systems that keep times to two seconds.

use std::fs::Metadata;
use std::time::{Duration, SystemTime};

/// How long before a run's start a stamp's times must lie for it to be trusted: longer than
/// the coarsest tick of a common file system (FAT keeps modification times to two seconds).
pub const SETTLE: Duration = Duration::from_secs(2);

/// What the file system said of a file (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stamp {
    /// The size in bytes.
    pub len: u64,
    /// The device the file is on.
    pub device: u64,
    /// The inode number.
    pub inode: u64,
    /// When the content last changed, in nanoseconds since the Unix epoch.
    pub modified: u64,
    /// When the status (content, name, owner, times) last changed, in nanoseconds since the
    /// Unix epoch.
    pub changed: u64,
}

impl Stamp {
    /// The stamp of a file with metadata `meta`; `None` where the platform does not tell
    /// the status-change time and inode (every file is then read), or for a time at or
    /// before 1970 or past 2554: a file system that reports no times (zero, as some virtual
    /// ones do) would give a file the same stamp whatever is written to it.
    #[cfg(unix)]
    pub fn of(meta: &Metadata) -> Option<Stamp> {
        use std::os::unix::fs::MetadataExt;
        let nanos = |seconds: i64, nanoseconds: i64| {
            u64::try_from(seconds)
                .ok()
                .filter(|&seconds| seconds > 0)?
                .checked_mul(1_000_000_000)?
                .checked_add(u64::try_from(nanoseconds).ok()?)
        };
        Some(Stamp {
            len: meta.len(),
            device: meta.dev(),
            inode: meta.ino(),
            modified: nanos(meta.mtime(), meta.mtime_nsec())?,
            changed: nanos(meta.ctime(), meta.ctime_nsec())?,
        })
    }

    /// The stamp of a file with metadata `meta`: never, off Unix (see above).
    #[cfg(not(unix))]
    pub fn of(_meta: &Metadata) -> Option<Stamp> {
        None
    }

    /// The stamp of the file at `path` now, `None` when it cannot be read.
    pub fn read(path: &std::path::Path) -> Option<Stamp> {
        Stamp::of(&std::fs::metadata(path).ok()?)
    }

    /// Whether both its times lie [`SETTLE`] or more before `start`, the time a run started
    /// to read files: then a file with this stamp that is written after `start` gets
    /// another stamp.
    pub fn settled_before(&self, start: SystemTime) -> bool {
        let Some(bar) = start
            .checked_sub(SETTLE)
            .and_then(|bar| bar.duration_since(SystemTime::UNIX_EPOCH).ok())
        else {
            return false;
        };
        let bar = u64::try_from(bar.as_nanos()).unwrap_or(u64::MAX);
        self.modified < bar && self.changed < bar
    }
}

/// What a file held when a command read it, so that the command replaces or removes it only
/// while it still holds that: an edit saved while `--fix` or `convert` ran was written over,
/// or deleted with the old file. Nor is a file marked read-only replaced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AsRead {
    /// Its stamp as it was opened, where the platform tells one.
    pub stamp: Option<Stamp>,
    /// [`crate::source::text_hash`] of the text read.
    pub text_hash: u64,
}

/// Why a file read earlier is kept as it is rather than replaced or removed (see
/// [`AsRead::check`]).
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum Kept {
    /// Its stamp or its text is not what was read: someone wrote it meanwhile.
    #[error("it changed since it was read")]
    Changed,
    /// It is marked read-only: someone means it not to be written, as editors and other
    /// fixers (ruff, prettier) take it, though the folder would let it be replaced.
    #[error("it is read-only")]
    ReadOnly,
}

impl Kept {
    /// The reason an error of [`AsRead::check`] holds, if it holds one.
    pub fn of(err: &std::io::Error) -> Option<&Kept> {
        err.get_ref()?.downcast_ref()
    }
}

impl AsRead {
    /// What a file with stamp `stamp` held when `text` was read from it.
    pub fn new(stamp: Option<Stamp>, text: &str) -> AsRead {
        AsRead {
            stamp,
            text_hash: crate::source::text_hash(text),
        }
    }

    /// Whether the file at `path` may be replaced or removed: it is not marked read-only,
    /// and still is what was read; an error holding a [`Kept`] when not. Its text is read
    /// again even when its stamp is the same, since a write in the same tick of the file
    /// system's clock as the read leaves the same times (see the module documentation); a
    /// stamp that differs says enough without reading it.
    pub fn check(&self, path: &std::path::Path) -> std::io::Result<()> {
        let file = self.opened_as_stamped(path)?;
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut std::io::BufReader::new(file), &mut bytes)?;
        match crate::source::decode(bytes) {
            Ok((text, _)) if crate::source::text_hash(&text) == self.text_hash => Ok(()),
            _ => Err(std::io::Error::other(Kept::Changed)),
        }
    }

    /// What [`AsRead::check`] asks of the file at `path` short of reading it: that it is
    /// not marked read-only and has the stamp it was read with. Enough to turn a file away
    /// early, never to know it unchanged: a run about to write beside a file asks this, and
    /// asks [`AsRead::check`] before it removes the file.
    pub fn check_stamp(&self, path: &std::path::Path) -> std::io::Result<()> {
        self.opened_as_stamped(path).map(drop)
    }

    /// The file at `path`, opened, when it is not marked read-only and has the stamp it was
    /// read with.
    fn opened_as_stamped(&self, path: &std::path::Path) -> std::io::Result<std::fs::File> {
        let (file, meta) = crate::load::open_regular(path)?;
        if meta.permissions().readonly() {
            return Err(std::io::Error::other(Kept::ReadOnly));
        }
        if self.stamp.is_some() && Stamp::of(&meta) != self.stamp {
            return Err(std::io::Error::other(Kept::Changed));
        }
        Ok(file)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_changes_the_stamp_and_a_read_does_not() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.yaml");
        std::fs::write(&path, "id: a\n").unwrap();
        let first = Stamp::read(&path).unwrap();
        assert_eq!(first.len, 6);
        std::fs::read(&path).unwrap();
        assert_eq!(Stamp::read(&path), Some(first));
        // Same size, new content: the times (or, within one tick, nothing) tell it apart;
        // replacing the file by a rename, as editors and git do, changes the inode too.
        let replacement = dir.path().join("b.yaml");
        std::fs::write(&replacement, "id: b\n").unwrap();
        std::fs::rename(&replacement, &path).unwrap();
        assert_ne!(Stamp::read(&path), Some(first));
        assert_eq!(Stamp::read(&dir.path().join("missing.yaml")), None);
    }

    #[test]
    fn a_file_without_times_has_no_stamp() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.yaml");
        std::fs::write(&path, "id: a\n").unwrap();
        let file = std::fs::File::options().write(true).open(&path).unwrap();
        file.set_modified(SystemTime::UNIX_EPOCH).unwrap();
        assert_eq!(Stamp::read(&path), None);
    }

    #[test]
    fn a_stamp_settles_once_its_times_lie_well_before_the_start() {
        let at = |seconds: u64| SystemTime::UNIX_EPOCH + Duration::from_secs(seconds);
        let stamp = Stamp {
            len: 1,
            device: 1,
            inode: 1,
            modified: 100 * 1_000_000_000,
            changed: 101 * 1_000_000_000,
        };
        assert!(stamp.settled_before(at(104)));
        assert!(
            !stamp.settled_before(at(103)),
            "changed within SETTLE of the start"
        );
        assert!(!stamp.settled_before(at(50)), "from the future");
        let modified_late = Stamp {
            modified: 103 * 1_000_000_000,
            ..stamp
        };
        assert!(!modified_late.settled_before(at(104)));
    }

    /// A file whose stamp is unchanged passes `check_stamp` though its text changed (a
    /// write in the same tick), and only `check`, which reads it, turns it away.
    #[test]
    fn only_check_reads_the_file_again() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.yaml");
        std::fs::write(&path, "id: a\n").unwrap();
        let stamp = Stamp::read(&path);
        let read = AsRead::new(stamp, "id: a\n");
        assert!(read.check_stamp(&path).is_ok() && read.check(&path).is_ok());
        let edited_in_the_same_tick = AsRead::new(stamp, "id: b\n");
        assert!(edited_in_the_same_tick.check_stamp(&path).is_ok());
        let kept = edited_in_the_same_tick.check(&path).unwrap_err();
        assert_eq!(Kept::of(&kept), Some(&Kept::Changed));
        std::fs::write(&path, "id: a, b\n").unwrap();
        let kept = read.check_stamp(&path).unwrap_err();
        assert_eq!(Kept::of(&kept), Some(&Kept::Changed));
        let mut read_only = std::fs::metadata(&path).unwrap().permissions();
        read_only.set_readonly(true);
        std::fs::set_permissions(&path, read_only).unwrap();
        let read = AsRead::new(Stamp::read(&path), "id: a, b\n");
        let kept = read.check_stamp(&path).unwrap_err();
        assert_eq!(Kept::of(&kept), Some(&Kept::ReadOnly));
    }
}
