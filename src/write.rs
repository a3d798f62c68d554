//! Writing files without ever leaving a half-written one.
//!
//! Every file the tool writes in place (fixes now; converted records later) goes through
//! [`write_atomic`], which writes the new content to a temporary file in the same folder,
//! flushes it to disk, gives it the original's permissions, and renames it over the target.
//! (A built site is written whole into a fresh folder and swapped in: see `site::output`.)
//! A rename within a folder is atomic, so a reader sees the old file or the new one, never a
//! mix, and a failure at any step leaves the original untouched.
//!
//! Large output (a report of every problem, an export of the whole graph, a list of every
//! record) is written as it is made, never held whole: through [`STREAM_BUFFER`], and, for
//! a JSON array, an item at a time ([`Each`]).

use std::io::Write;
use std::path::Path;

use serde::{Serialize, Serializer};

/// The buffer between a writer that streams its output (a report, an export, a large file
/// of the site) and where it goes: few system calls, little memory.
pub const STREAM_BUFFER: usize = 256 * 1024;

/// A sequence serialized an item at a time, each made from one of `items` by `each` as it is
/// written: the made items are never all held at once, nor copies of what they borrow.
pub struct Each<'a, T, F> {
    /// What the items are made from, in order.
    pub items: &'a [T],
    /// Makes an item.
    pub each: F,
}

impl<'a, T, S: Serialize, F: Fn(&'a T) -> S> Serialize for Each<'a, T, F> {
    fn serialize<Z: Serializer>(&self, serializer: Z) -> Result<Z::Ok, Z::Error> {
        serializer.collect_seq(self.items.iter().map(&self.each))
    }
}

/// Writes `value` to `out` as pretty-printed JSON ending in a newline, as it is serialized:
/// the form of every JSON document the tool writes.
pub fn json_document(out: &mut dyn Write, value: &impl Serialize) -> std::io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, value)?;
    out.write_all(b"\n")
}

/// Replaces `path` with `bytes` atomically, keeping its permissions when it exists.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    replace(path, |file| file.write_all(bytes))
}

/// [`write_atomic`] of what `write` writes, as it writes it, through [`STREAM_BUFFER`]: a
/// report of a hundred thousand problems is streamed to the temporary file, never held
/// whole in memory. When `write` fails, the temporary file is removed and `path` is left as
/// it was.
pub fn write_atomic_with(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    replace(path, |file| {
        let mut buffered = std::io::BufWriter::with_capacity(STREAM_BUFFER, file);
        write(&mut buffered)?;
        buffered.flush()
    })
}

/// Replaces `path` with what `write` writes to a temporary file beside it (see the module's
/// documentation). Bytes already in hand are written to the file as they are: `--fix`
/// writes thousands of files of a few kilobytes, side by side, each of which a buffer would
/// only copy.
fn replace(
    path: &Path,
    write: impl FnOnce(&mut std::fs::File) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let permissions = std::fs::metadata(path).ok().map(|m| m.permissions());
    let mut temporary = tempfile::Builder::new()
        .prefix(".gotchas-")
        .suffix(".tmp")
        .tempfile_in(dir)?;
    write(temporary.as_file_mut())?;
    temporary.as_file().sync_all()?;
    if let Some(permissions) = permissions {
        temporary.as_file().set_permissions(permissions)?;
    }
    temporary.persist(path).map_err(|err| err.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_content_and_keeps_permissions() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.yaml");
        std::fs::write(&path, "old").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
        }
        write_atomic(&path, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o640);
        }
        let leftovers = std::fs::read_dir(dir.path()).unwrap().count();
        assert_eq!(leftovers, 1, "no temporary file is left behind");
    }

    #[test]
    fn a_sequence_made_as_it_is_written_is_the_sequence_made_first() {
        let words = ["vllm", "sglang", ""];
        let made = |word: &&str| serde_json::json!({ "id": word, "length": word.len() });
        let each = Each {
            items: &words,
            each: made,
        };
        let collected: Vec<serde_json::Value> = words.iter().map(made).collect();
        assert_eq!(
            serde_json::to_string_pretty(&each).unwrap(),
            serde_json::to_string_pretty(&collected).unwrap()
        );
        let none = Each {
            items: &[] as &[&str],
            each: made,
        };
        assert_eq!(serde_json::to_string(&none).unwrap(), "[]");
    }

    #[test]
    fn a_write_that_fails_halfway_leaves_the_original_and_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("report.json");
        std::fs::write(&path, "old").unwrap();
        let failed = write_atomic_with(&path, |out| {
            out.write_all(b"half a rep")?;
            Err(std::io::Error::other("the renderer failed"))
        });
        assert_eq!(failed.unwrap_err().to_string(), "the renderer failed");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old");
        let leftovers = std::fs::read_dir(dir.path()).unwrap().count();
        assert_eq!(leftovers, 1, "no temporary file is left behind");
        write_atomic_with(&path, |out| {
            out.write_all(b"new ")?;
            out.write_all(b"report")
        })
        .unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new report");
    }
}
