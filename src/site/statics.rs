//! The corpus's `static/` folder, copied into the site as it is, as Zola copies its own:
//! `static/CNAME` is the site's `CNAME`, `static/img/logo.png` its `img/logo.png`. Each
//! build replaces the output folder whole, so a file the site needs at its root (`CNAME`
//! for a custom domain, `robots.txt`, `favicon.ico`) has no other place to live.
//!
//! Everything in it is published, hidden files included: GitHub Pages needs `.nojekyll`.
//! Its files are looked at as the templates folder's are, since they are published: a
//! symbolic link leading out of the corpus, or to a folder that holds it (which would
//! never end), and a pipe or a device stop the build rather than being followed or read.

use std::path::{Component, Path, PathBuf};

use crate::diagnostic::Diagnostic;
use crate::index;
use crate::rules;
use crate::schema::Refused;
use crate::source::display_path;

/// The folder of a corpus whose files the site publishes as they are.
pub const FOLDER: &str = "static";

/// The files of the static folder.
#[derive(Debug, Default)]
pub struct Statics {
    /// Each file's path in the site and on disk, by site path.
    files: Vec<(String, PathBuf)>,
    /// The folder, normalized as a link's path is ([`index::IdIndex::file_link`]).
    folder: PathBuf,
}

impl Statics {
    /// The files of `<root>/static/`, none when there is no such folder.
    pub fn find(root: &Path) -> Result<Statics, Vec<Diagnostic>> {
        let folder = root.join(FOLDER);
        let mut walk = Walk {
            root,
            real_root: std::fs::canonicalize(root).ok(),
            open: Vec::new(),
            files: Vec::new(),
            errors: Vec::new(),
        };
        if folder.is_dir() {
            walk.folder(&folder, "");
        }
        if !walk.errors.is_empty() {
            return Err(walk.errors);
        }
        let mut files = walk.files;
        files.sort();
        Ok(Statics {
            files,
            folder: index::normalize(&folder),
        })
    }

    /// Each file, by its path in the site, with its path on disk.
    pub fn files(&self) -> &[(String, PathBuf)] {
        &self.files
    }

    /// Where the site has the file a link's path names (a path [`index::IdIndex::file_link`]
    /// gives), if it is one of these.
    pub fn site_path(&self, link: &Path) -> Option<&str> {
        let mut parts = Vec::new();
        for component in link.strip_prefix(&self.folder).ok()?.components() {
            match component {
                Component::Normal(part) => parts.push(part.to_str()?),
                _ => return None,
            }
        }
        self.get(&parts.join("/"))
    }

    /// The file at `path` in the site, if it is one of these.
    pub fn get(&self, path: &str) -> Option<&str> {
        let at = self
            .files
            .binary_search_by(|(file, _)| file.as_str().cmp(path))
            .ok()?;
        self.files.get(at).map(|(file, _)| file.as_str())
    }
}

/// A walk through the static folder.
struct Walk<'r> {
    root: &'r Path,
    /// The root with its links resolved, which every symbolic link must lead into.
    real_root: Option<PathBuf>,
    /// The folders being walked, resolved: a link to one of them would be walked for ever.
    open: Vec<PathBuf>,
    files: Vec<(String, PathBuf)>,
    errors: Vec<Diagnostic>,
}

/// What an entry of the static folder is, once any symbolic link is followed.
enum Kind {
    File,
    Folder,
}

impl Walk<'_> {
    /// Walks `dir`, whose files are at `prefix` in the site (empty, or ending with `/`).
    fn folder(&mut self, dir: &Path, prefix: &str) {
        let Ok(real) = std::fs::canonicalize(dir) else {
            return;
        };
        if self.open.contains(&real) {
            self.refuse(
                dir,
                "this symlink leads to a folder that holds it, so it is not followed".into(),
            );
            return;
        }
        let mut entries: Vec<PathBuf> = match std::fs::read_dir(dir) {
            Ok(entries) => entries.filter_map(|e| e.ok().map(|e| e.path())).collect(),
            Err(err) => {
                self.refuse(dir, format!("cannot read the static folder: {err}"));
                return;
            }
        };
        entries.sort();
        self.open.push(real);
        for path in entries {
            let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
                self.refuse(
                    &path,
                    "the name is not valid UTF-8, so it cannot be published".into(),
                );
                continue;
            };
            let site_path = format!("{prefix}{name}");
            match self.kind(&path) {
                Ok(Kind::File) => self.files.push((site_path, path)),
                Ok(Kind::Folder) => self.folder(&path, &format!("{site_path}/")),
                Err(refused) => {
                    let display = display_path(self.root, &path);
                    let diagnostic =
                        refused.diagnostic(rules::INVALID_CONFIG, &display, "static file");
                    self.errors.push(diagnostic);
                }
            }
        }
        self.open.pop();
    }

    /// A file or a folder, a symbolic link followed only into the corpus.
    fn kind(&self, path: &Path) -> Result<Kind, Refused> {
        let link = std::fs::symlink_metadata(path).map_err(Refused::Unreadable)?;
        if link.file_type().is_symlink() {
            let target = std::fs::canonicalize(path).map_err(Refused::Unreadable)?;
            if !self
                .real_root
                .as_ref()
                .is_some_and(|r| target.starts_with(r))
            {
                return Err(Refused::OutOfCorpus(target));
            }
        }
        let metadata = std::fs::metadata(path).map_err(Refused::Unreadable)?;
        if metadata.is_file() {
            Ok(Kind::File)
        } else if metadata.is_dir() {
            Ok(Kind::Folder)
        } else {
            Err(Refused::NotRegular)
        }
    }

    fn refuse(&mut self, path: &Path, message: String) {
        let display = display_path(self.root, path);
        self.errors
            .push(Diagnostic::new(rules::INVALID_CONFIG, &display, message));
    }
}
