//! A project: a corpus root, its config and its compiled schemas. The entry point of the
//! library: open, load, check.
//!
//! ```no_run
//! let project = gotchas::Project::open(std::path::Path::new("."), None).expect("valid setup");
//! let corpus = project.load();
//! for diagnostic in project.check(&corpus) {
//!     println!("{}: {}", diagnostic.file, diagnostic.message);
//! }
//! ```

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::check;
use crate::config::{self, Config, Level};
use crate::corpus::{Corpus, LeaveOut, Recall, Renumber};
use crate::diagnostic::{Anchor, Diagnostic, Severity};
use crate::fix;
use crate::graph::Linked;
use crate::load::{self, Record};
use crate::schema::Schemas;
use crate::scope::{Changes, Scope};
use crate::site::Kept;
use crate::source::{Format, NamedFiles, ReadAgain, SourceFile, Span, TextAgain, first_line};
use crate::sourcemap::SourceMap;

/// A corpus root with its configuration and schemas, ready to load and check.
#[derive(Debug)]
pub struct Project {
    /// The corpus root.
    pub root: PathBuf,
    /// The configuration.
    pub config: Config,
    /// The collections.
    pub schemas: Schemas,
}

impl Project {
    /// Reads the config (`config_file`, else `gotchas.toml` at the root if present) and
    /// compiles the schemas. Errors here are fatal: the run cannot be trusted without them.
    pub fn open(root: &Path, config_file: Option<&Path>) -> Result<Project, Vec<Diagnostic>> {
        // Said first: a root that is not there would otherwise be reported as its schema
        // folder missing, which sends the reader to the wrong setting.
        if !root.is_dir() {
            let what = if root.exists() {
                "is not a folder"
            } else {
                "does not exist"
            };
            let shown = root.display().to_string();
            return Err(vec![
                Diagnostic::new(
                    crate::rules::INVALID_CONFIG,
                    &shown,
                    format!("the corpus root `{shown}` {what}"),
                )
                .with_help(
                    "pass --root the folder that holds records/ and schema/, or make one \
                     with `gotchas init`",
                ),
            ]);
        }
        let default_config = root.join(config::FILE_NAME);
        let config = match config_file {
            Some(path) => Config::read(path, &config::display(root, path))?,
            None if default_config.is_file() => Config::read(&default_config, config::FILE_NAME)?,
            // A pipe or a folder of that name: read, a pipe would wait for ever; passed
            // over, the run would go on without the corpus's settings.
            None if default_config.exists() => {
                return Err(vec![
                    Diagnostic::new(
                        crate::rules::INVALID_CONFIG,
                        config::FILE_NAME,
                        format!("{} is not a regular file", config::FILE_NAME),
                    )
                    .with_help("make it a file of settings, or remove it"),
                ]);
            }
            None => Config::default(),
        };
        // Said before any folder is looked for: outside a corpus, "cannot read the schema
        // folder" would send the reader after a setting of a file that is not there.
        if config.file.is_none() && !root.join(&config.schemas).exists() {
            let shown = root.display().to_string();
            return Err(vec![
                Diagnostic::new(
                    crate::rules::INVALID_CONFIG,
                    &shown,
                    format!(
                        "no corpus here: `{shown}` holds no {} and no schema folder",
                        config::FILE_NAME
                    ),
                )
                .with_note(format!(
                    "without --root the corpus is the nearest folder up holding a {}",
                    config::FILE_NAME
                ))
                .with_help("run in a corpus, pass --root the folder that holds records/ and schema/, or make one with `gotchas init`"),
            ]);
        }
        let schemas = Schemas::load(root, &config)?;
        Ok(Project {
            root: root.to_path_buf(),
            config,
            schemas,
        })
    }

    /// Discovers and loads every record.
    pub fn load(&self) -> Corpus {
        Corpus::load(&self.root, &self.config, &self.schemas)
    }

    /// Discovers and loads every record for the site: its fields, in the site's smaller form,
    /// the references written in them and a Markdown record's body (see [`Kept`]). Every
    /// record file's text is let go as it is parsed: of a corpus of JSON records that is as
    /// much memory as the corpus on disk, a quarter of a build's peak, which the kernel would
    /// have to zero before handing it out.
    pub fn load_for_site(&self) -> Corpus<Kept> {
        self.load_with(|record, index, file| Kept::draw(record, index, file, &self.schemas))
    }

    /// Discovers and loads every record for the graph commands: of each record, its
    /// references, name and enum values (see [`Linked`]).
    pub fn load_linked(&self) -> Corpus<Linked> {
        let enum_fields = self.schemas.enum_fields_by_collection();
        self.load_with(|record, index, file| {
            let fields = enum_fields
                .get(record.collection)
                .map_or(&[][..], Vec::as_slice);
            Linked::draw(record, index, file, &self.schemas, fields)
        })
    }

    /// Discovers and loads every record, keeping of each what `draw` makes of it as it is
    /// loaded (see [`Corpus::load_with`]): for a command that needs a little of every record,
    /// or the fields of a few.
    pub fn load_with<F, D>(&self, draw: D) -> Corpus<F>
    where
        F: Send + Renumber,
        D: Fn(Record, usize, &SourceFile) -> Record<F> + Sync,
    {
        Corpus::load_with(&self.root, &self.config, &self.schemas, draw, None)
    }

    /// Discovers and loads every record for [`Project::check`] alone: the rules that look at
    /// one record run as it is loaded, and its fields are not kept (see [`check::draw`]).
    pub fn load_for_check(&self) -> Corpus<check::Drawn> {
        self.load_for_check_recalling(None, None)
    }

    /// [`Project::load_for_check`], recalling from `recall` what an earlier run drew from
    /// record files whose text is unchanged (see [`crate::cache`]), and leaving out the
    /// files `leave_out` names. The files of records with findings keep their texts, for
    /// the report to quote (see [`Corpus::load_for_report`]).
    pub fn load_for_check_recalling(
        &self,
        recall: Option<&dyn Recall<check::Drawn>>,
        leave_out: Option<LeaveOut<'_>>,
    ) -> Corpus<check::Drawn> {
        Corpus::load_for_report(
            &self.root,
            &self.config,
            &self.schemas,
            self.draw_for_check(),
            recall,
            check::Drawn::has_findings,
            leave_out,
        )
    }

    /// What [`Project::load_for_check`] keeps of each record ([`check::draw`]): also how
    /// [`Project::settle_fixes`] keeps a record it parses again after fixing its file, which
    /// must be drawn as the rest were.
    fn draw_for_check(
        &self,
    ) -> impl Fn(Record, usize, &SourceFile) -> Record<check::Drawn> + Sync + '_ {
        |record, index, file| check::draw(record, index, file, &self.schemas)
    }

    /// Applies the certain fixes of `diagnostics` to a corpus loaded by
    /// [`Project::load_for_check`], in memory, until `check` finds none left (see
    /// [`crate::fix::settle`]); each fixed file's record is drawn again as the corpus was.
    pub fn settle_fixes(
        &self,
        corpus: &mut Corpus<check::Drawn>,
        diagnostics: Vec<Diagnostic>,
        check: impl FnMut(&Corpus<check::Drawn>) -> Vec<Diagnostic>,
    ) -> crate::fix::Settled {
        crate::fix::settle(
            corpus,
            diagnostics,
            &self.schemas,
            &self.config,
            self.draw_for_check(),
            check,
        )
    }

    /// What a check cache made for this project is valid for: see [`crate::cache::fingerprint`].
    pub fn cache_fingerprint(&self) -> u64 {
        crate::cache::fingerprint(
            &self.config.loading_settings(),
            self.schemas.documents_hash(),
        )
    }

    /// Every diagnostic for the corpus: load problems and rule findings, with rule levels
    /// applied, positions resolved, in file and position order.
    pub fn check<F: check::Checkable>(&self, corpus: &Corpus<F>) -> Vec<Diagnostic> {
        self.check_observed(corpus, None, &mut |_| {}).diagnostics
    }

    /// [`Project::check`], narrowed to the scope of `changes` if given (see
    /// [`crate::scope`]), calling `stage_done` as each of its stages ends (see
    /// [`check::check_observed`]; then `scope`, `levels` and `locate`), with the texts that
    /// locating read again, for the report to quote
    /// ([`crate::report::Sources::collect_with`]).
    pub fn check_observed<F: check::Checkable>(
        &self,
        corpus: &Corpus<F>,
        changes: Option<Changes<'_>>,
        stage_done: &mut dyn FnMut(&'static str),
    ) -> Found {
        let (mut diagnostics, scope) = self.leveled(corpus, changes, stage_done);
        let read_again = locate(&mut diagnostics, corpus, &self.schemas);
        diagnostics.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
        stage_done("locate");
        Found {
            diagnostics,
            scope,
            read_again,
        }
    }

    /// [`Project::check_observed`] without placing the diagnostics in their files but those
    /// with a fix: each keeps the JSON pointer it was found at, which the baseline matches
    /// on, and they come in no particular order. For a count of them (`check
    /// --statistics`), which shows no position: placing them reads again every file they
    /// point into, a third of a second and 114 MiB for a hundred thousand problems in
    /// 38,772 files. A fix is counted only if `--fix` could apply it, which placing it
    /// tells (see [`locate`]).
    pub fn check_unplaced<F: check::Checkable>(
        &self,
        corpus: &Corpus<F>,
        changes: Option<Changes<'_>>,
        stage_done: &mut dyn FnMut(&'static str),
    ) -> Found {
        let (diagnostics, scope) = self.leveled(corpus, changes, stage_done);
        // Whether `--fix` could apply a fix only placing its edits tells: the diagnostics
        // that have one, few but for a corpus renamed at once, are placed for it.
        let (mut fixed, mut diagnostics): (Vec<Diagnostic>, Vec<Diagnostic>) =
            diagnostics.into_iter().partition(|d| d.fix.is_some());
        keep_pointers(&mut diagnostics);
        locate(&mut fixed, corpus, &self.schemas);
        diagnostics.append(&mut fixed);
        Found {
            diagnostics,
            scope,
            read_again: ReadAgain::default(),
        }
    }

    /// Load problems and rule findings with the config's rule levels applied, as a check
    /// finds them, neither placed nor in order, and with `changes`, only those in their
    /// scope. The scope is worked out halfway through the check, from what it resolved
    /// (rather than by resolving the corpus a second time), so that the references written
    /// out of scope are not diagnosed, their did-you-mean not looked up; and the
    /// diagnostics are narrowed before they are placed, so only files in scope are read
    /// again.
    fn leveled<F: check::Checkable>(
        &self,
        corpus: &Corpus<F>,
        changes: Option<Changes<'_>>,
        stage_done: &mut dyn FnMut(&'static str),
    ) -> (Vec<Diagnostic>, Option<Scope>) {
        let mut diagnostics = corpus.diagnostics.clone();
        let resolving = check::Resolving::new(corpus, &self.schemas, &self.config, stage_done);
        let scope = changes.map(|changes| {
            let scope = Scope::new(
                self,
                corpus,
                changes,
                resolving.resolved(),
                resolving.index(),
            );
            stage_done("scope");
            scope
        });
        let reported = scope.as_ref().map(|scope| {
            move |file: usize| {
                corpus
                    .files
                    .get(file)
                    .is_some_and(|file| scope.contains(&file.display))
            }
        });
        let reported = reported.as_ref().map(|r| r as &check::Reported<'_>);
        diagnostics.extend(resolving.finish(reported, stage_done));
        let mut diagnostics = self.apply_levels(diagnostics);
        if let Some(scope) = &scope {
            diagnostics = scope.select(diagnostics);
        }
        stage_done("levels");
        (diagnostics, scope)
    }

    /// Applies the config's rule levels: allowed rules are dropped, the others get their
    /// severity.
    pub fn apply_levels(&self, diagnostics: Vec<Diagnostic>) -> Vec<Diagnostic> {
        diagnostics
            .into_iter()
            .filter_map(|mut diagnostic| {
                diagnostic.severity = match self.config.level(diagnostic.code) {
                    Level::Allow => return None,
                    Level::Warn => Severity::Warning,
                    Level::Error => Severity::Error,
                };
                Some(diagnostic)
            })
            .collect()
    }
}

/// What a check found (see [`Project::check_observed`]).
#[derive(Debug)]
pub struct Found {
    /// The diagnostics, in their scope if the check had one.
    pub diagnostics: Vec<Diagnostic>,
    /// The changed files the diagnostics were narrowed to, if any.
    pub scope: Option<Scope>,
    /// The texts locating read again, for the report to quote.
    pub read_again: ReadAgain,
}

/// Resolves pointer anchors to byte spans, building a source map only for the files that
/// have a diagnostic anchored by pointer. Whole-mapping spans are cut to their first line.
///
/// The texts come from [`SourceFile::text_again`](crate::source::SourceFile::text_again):
/// after a check that let them go, only the files pointed into are read again, in
/// parallel. An anchor in a file that changed since it was loaded stays unresolved, and
/// the diagnostic names the file without a position rather than a wrong one. A record
/// pointed at only at its root is not read again: the line its root starts on was kept as
/// it was loaded ([`crate::source::Head`]), and it is what the report quotes.
///
/// Each file's anchors are resolved, and placed on lines and columns, as the file is
/// mapped, on whichever thread maps it: done afterwards, one diagnostic after another,
/// every text and map was fetched from memory again (a thousand files at 100,000 records,
/// more than a core's cache holds), and resolving and placing took longer than mapping.
///
/// A fix with an edit that cannot be placed (its file changed since it was loaded, or a
/// link's target is not in its value as written, as in an escaped JSON string) is dropped:
/// `--fix` could not apply it, so no report may offer it, nor count it.
///
/// Returns the texts of every file a diagnostic names, pointed into or not, as far as they
/// could be had, with the places found in them: the report quotes the same files, and
/// reading them a second time took 19-21 ms of the 175 that followed the load at 100,000
/// records (1% of them with a problem); and with every text in hand, the report need not
/// look for the files it quotes among all the corpus's (7 ms at 100,000 records, reading a
/// path per file).
// Record, file and collection indices come from the corpus and schemas they index.
#[allow(clippy::indexing_slicing)]
pub fn locate<F>(
    diagnostics: &mut [Diagnostic],
    corpus: &Corpus<F>,
    schemas: &crate::schema::Schemas,
) -> ReadAgain {
    keep_pointers(diagnostics);
    // Each file named, what of it is wanted and the anchors into it: the files are found
    // by walking the corpus's in order.
    let mut wanted: NamedFiles<'_, Wanted<'_>> = NamedFiles::default();
    for (index, diagnostic) in diagnostics.iter().enumerate() {
        for (file, anchor, slot, replacement) in anchors(diagnostic) {
            let wants = wanted.entry(file);
            match anchor {
                Anchor::File | Anchor::Span(_) => wants.text = true,
                // An edit replaces the whole root, which a head does not hold.
                Anchor::Value(pointer) if pointer.is_empty() && !matches!(slot, Slot::Edit(_)) => {
                    wants.root = true
                }
                _ => wants.values = true,
            }
            if !matches!(anchor, Anchor::File) {
                wants.anchors.push((index, slot, anchor, replacement));
            }
        }
    }
    let file_collections = &corpus.file_collections;
    let located: Vec<(&str, TextAgain, Vec<Resolved>)> = corpus
        .files
        .par_iter()
        .enumerate()
        .filter_map(|(index, source)| {
            let wants = wanted.get(source)?;
            // A record pointed at only at its root, whose text was let go as it was loaded,
            // has kept the line the report quotes: it is not read again.
            let head = (wants.root && !wants.values && !wants.text && source.text.is_none())
                .then(|| source.head())
                .flatten();
            let format = Format::of_path(&source.path);
            let (text, map) = match head {
                Some(head) => (
                    Cow::Borrowed(&*head.text),
                    SourceMap::of_root(head.root.clone()),
                ),
                None => {
                    let text = source.text_again()?;
                    let fields = file_collections
                        .get(index)
                        .copied()
                        .flatten()
                        .map(|c| &schemas.collections[c].text_fields);
                    let map = match (format, fields) {
                        _ if !wants.root && !wants.values => SourceMap::default(),
                        // The root of a JSON record, where orphans are reported (nearly
                        // three in four of the files pointed into at 100,000 records), is
                        // found without mapping the whole file: the records that rules
                        // point into parsed.
                        (Some(Format::Json), Some(_)) if !wants.values => {
                            SourceMap::of_root(load::json::root_span(&text))
                        }
                        (Some(format), Some(fields)) => load::source_map(&text, format, fields),
                        _ => SourceMap::default(),
                    };
                    (text, map)
                }
            };
            let json = format == Some(Format::Json);
            let resolved: Vec<Resolved> = wants
                .anchors
                .iter()
                .filter_map(|&(diagnostic, slot, anchor, replacement)| {
                    let (span, written) = match (anchor, replacement) {
                        (Anchor::Span(span), _) => (span.clone(), None),
                        (anchor, Some(replacement)) => {
                            let (span, written) =
                                place_edit(&text, &map, anchor, replacement, json)?;
                            (span, Some(written))
                        }
                        (anchor, None) => (resolve(&text, &map, anchor)?, None),
                    };
                    Some(Resolved {
                        diagnostic,
                        slot,
                        span,
                        written,
                    })
                })
                .collect();
            let placed = TextAgain::new(
                text.into_owned(),
                resolved.iter().map(|resolved| resolved.span.clone()),
            );
            Some((source.display.as_str(), placed, resolved))
        })
        .collect();
    // It borrows the diagnostics' paths and anchors, which are updated below.
    drop(wanted);
    let mut read_again = ReadAgain::default();
    for (display, text, resolved) in located {
        for resolved in resolved {
            let diagnostic = &mut diagnostics[resolved.diagnostic];
            if let Some(anchor) = resolved.slot.anchor_mut(diagnostic) {
                *anchor = Anchor::Span(resolved.span);
            }
            if let (Some(written), Slot::Edit(edit)) = (resolved.written, resolved.slot)
                && let Some(edit) = diagnostic
                    .fix
                    .as_mut()
                    .and_then(|fix| fix.edits.get_mut(edit))
            {
                edit.replacement = written;
            }
        }
        read_again.insert(display.to_string(), text);
    }
    for diagnostic in diagnostics.iter_mut() {
        let unplaced = diagnostic.fix.as_ref().is_some_and(|fix| {
            fix.edits
                .iter()
                .any(|edit| !matches!(edit.anchor, Anchor::Span(_)))
        });
        if unplaced {
            diagnostic.fix = None;
        }
    }
    read_again
}

/// The span an anchor names in `text`, as `map` maps it, cut to its first line for
/// underlining: `None` when the map has no place for it.
fn resolve(text: &str, map: &SourceMap, anchor: &Anchor) -> Option<Span> {
    let span = map.locate(anchor)?;
    let span = match anchor {
        Anchor::Within {
            needle,
            place,
            from,
            ..
        } => within(text, &span, needle, *place, *from).unwrap_or(span),
        _ => span,
    };
    Some(first_line(text, &span))
}

/// Where an edit anchored by `anchor` goes in `text`, as `map` maps it, and what it writes
/// there: `replacement` in the syntax of the scalar it replaces (see [`fix::written_in`]).
/// `None` when the map has no place for it, a link's target is not in its value as written
/// (an edit of the whole value would replace the prose around the link), or the
/// replacement cannot be written where the target is.
fn place_edit(
    text: &str,
    map: &SourceMap,
    anchor: &Anchor,
    replacement: &str,
    json: bool,
) -> Option<(Span, String)> {
    let node = map.locate_exactly(anchor)?;
    let part = match anchor {
        Anchor::Within {
            needle,
            place,
            from,
            ..
        } => Some(within(text, &node, needle, *place, *from)?),
        _ => None,
    };
    fix::written_in(text, node, part, replacement, json)
}

/// Every anchor of a diagnostic, with the file it is in, which of its anchors it is, and
/// for an edit's, what the edit writes.
fn anchors(diagnostic: &Diagnostic) -> impl Iterator<Item = (&str, &Anchor, Slot, Option<&str>)> {
    let labels = diagnostic
        .labels
        .iter()
        .enumerate()
        .map(|(i, label)| (label.file.as_str(), &label.anchor, Slot::Label(i), None));
    let edits = diagnostic.fix.iter().flat_map(|fix| {
        fix.edits.iter().enumerate().map(|(i, edit)| {
            (
                diagnostic.file.as_str(),
                &edit.anchor,
                Slot::Edit(i),
                Some(edit.replacement.as_str()),
            )
        })
    });
    std::iter::once((
        diagnostic.file.as_str(),
        &diagnostic.anchor,
        Slot::Main,
        None,
    ))
    .chain(labels)
    .chain(edits)
}

/// The span an anchor was resolved to in its file.
struct Resolved {
    /// Whose anchor: the diagnostic's index.
    diagnostic: usize,
    /// Which of its anchors.
    slot: Slot,
    span: Span,
    /// For an edit, what it writes there (see [`fix::written_in`]).
    written: Option<String>,
}

/// Which of a diagnostic's anchors: its own, a label's, or an edit's of its fix.
#[derive(Clone, Copy, Debug)]
enum Slot {
    Main,
    Label(usize),
    Edit(usize),
}

impl Slot {
    fn anchor_mut(self, diagnostic: &mut Diagnostic) -> Option<&mut Anchor> {
        match self {
            Slot::Main => Some(&mut diagnostic.anchor),
            Slot::Label(i) => diagnostic.labels.get_mut(i).map(|label| &mut label.anchor),
            Slot::Edit(i) => diagnostic
                .fix
                .as_mut()?
                .edits
                .get_mut(i)
                .map(|edit| &mut edit.anchor),
        }
    }
}

/// Keeps in each diagnostic anchored by a JSON pointer that pointer, which placing it in its
/// file replaces with a span: the baseline matches diagnostics by pointer.
fn keep_pointers(diagnostics: &mut [Diagnostic]) {
    for diagnostic in diagnostics {
        if let Anchor::Value(pointer) | Anchor::Key(pointer) | Anchor::Within { pointer, .. } =
            &diagnostic.anchor
        {
            diagnostic.pointer = Some(pointer.clone());
        }
    }
}

/// What [`locate`] wants of a file the diagnostics name, by what their anchors name.
#[derive(Default)]
struct Wanted<'d> {
    /// Its whole text, for the report: it is named by span, or as a whole.
    text: bool,
    /// Its root value's span, for a diagnostic or a label (not an edit) at the root.
    root: bool,
    /// A source map of its values, for a pointer below the root or an edit.
    values: bool,
    /// The anchors into it to resolve and place: which diagnostic, which of its anchors,
    /// and the anchor.
    anchors: Vec<(usize, Slot, &'d Anchor, Option<&'d str>)>,
}

/// Narrows a value's span to a link target inside it: the target's `place`th writing as
/// a link target ([`crate::links::target_places`]), from its byte `from` on. `None` when
/// the value does not hold it as written: a target with escaped characters.
fn within(
    text: &str,
    span: &crate::source::Span,
    needle: &str,
    place: usize,
    from: usize,
) -> Option<crate::source::Span> {
    let value = text.get(span.clone())?;
    let at = *crate::links::target_places(value, needle).get(place)?;
    let from = from.min(needle.len());
    Some(span.start + at + from..span.start + at + needle.len())
}

/// A scalar value's span without its quotes: what an edit of the value replaces.
pub fn scalar_content(text: &str, span: crate::source::Span) -> crate::source::Span {
    let slice = text.get(span.clone()).unwrap_or_default();
    let quoted = slice.len() >= 2
        && ((slice.starts_with('"') && slice.ends_with('"'))
            || (slice.starts_with('\'') && slice.ends_with('\'')));
    if quoted {
        span.start + 1..span.end - 1
    } else {
        span
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{SourceFile, first_line, line_col, line_cols};
    use proptest::prelude::*;

    /// Locates an orphan diagnostic at the root of `text` (the file `display`) from the head
    /// kept of it, given where `root` lies, with the text let go and no file to read again
    /// (there is none here), and checks it against `map`, a source map of the whole text:
    /// the same span, cut to its first line, and a head that puts it on the same line and
    /// column and holds all of that line.
    fn located_from_the_head(
        text: &str,
        display: &str,
        root: &crate::source::Span,
        map: &SourceMap,
    ) -> Result<(), TestCaseError> {
        let expected = first_line(text, &map.get("").unwrap().value);
        let path = std::path::Path::new("/nowhere").join(display);
        let mut file = SourceFile::new(path, display.into(), Some(text.to_string()), false);
        file.keep_head(root);
        file.let_go();
        let corpus: Corpus = Corpus {
            files: vec![file],
            file_collections: vec![None],
            ..Corpus::default()
        };
        let mut diagnostics = vec![
            Diagnostic::new(crate::rules::ORPHAN, display, "an orphan")
                .at(Anchor::Value(String::new())),
        ];
        let texts = locate(
            &mut diagnostics,
            &corpus,
            &crate::schema::Schemas::default(),
        );
        prop_assert_eq!(&diagnostics[0].anchor, &Anchor::Span(expected.clone()));
        let again = texts.get(display).unwrap();
        let head = again.text.as_str();
        prop_assert!(text.starts_with(head));
        for offset in [expected.start, expected.end] {
            prop_assert_eq!(line_col(head, offset), line_col(text, offset));
        }
        prop_assert_eq!(again.line_cols(&expected), line_cols(text, &expected));
        let line = |text: &str| {
            let start = crate::source::line_start(text, expected.start);
            text[start..crate::source::line_end(text, start)].to_string()
        };
        prop_assert_eq!(line(head), line(text));
        Ok(())
    }

    proptest! {
        /// A JSON record's root, found from the ends of its text, is located from the head
        /// as a source map of the whole text locates it.
        #[test]
        fn a_json_root_is_located_in_the_head_as_in_the_whole_text(
            fields in proptest::collection::btree_map("[a-z]{1,6}", "[a-z ]{0,12}", 0..4),
            pretty in any::<bool>(),
            crlf in any::<bool>(),
            before in "[ \t\r\n]{0,4}",
            after in "[ \t\r\n]{0,4}",
        ) {
            let value = serde_json::to_value(&fields).unwrap();
            let written = if pretty {
                serde_json::to_string_pretty(&value).unwrap()
            } else {
                value.to_string()
            };
            let written = if crlf { written.replace('\n', "\r\n") } else { written };
            let text = format!("{before}{written}{after}");
            let (map, _) = load::json::scan(&text);
            located_from_the_head(&text, "r.json", &load::json::root_span(&text), &map)?;
        }

        /// A YAML or Markdown record's root, where the parser that loaded it found it, is
        /// located from the head as a source map of the whole text locates it: after
        /// comments, directives and a document marker, in flow style with a comment on its
        /// line, in front matter, or at the opening `---` of empty front matter.
        #[test]
        fn a_yaml_root_is_located_in_the_head_as_in_the_whole_text(
            fields in proptest::collection::btree_map("k[a-z]{0,5}", "[a-z ]{0,12}", 1..4),
            flow in any::<bool>(),
            comment in any::<bool>(),
            markdown in any::<bool>(),
            crlf in any::<bool>(),
            before in prop::sample::select(vec![
                "", "\n", "# a comment\n", "---\n", "--- # c\n", "%YAML 1.2\n---\n",
            ]),
            after in prop::sample::select(vec!["", "\n", "# the end\n", "...\n"]),
        ) {
            let pairs: Vec<String> = fields.iter().map(|(k, v)| format!("{k}: {v}")).collect();
            let comment = if comment { "  # a comment" } else { "" };
            let document = if flow {
                format!("{{{}}}{comment}\n", pairs.join(", "))
            } else {
                format!("{}{comment}\n", pairs.join("\n"))
            };
            let (text, format, display) = if markdown {
                // Front matter holds no directives or markers of its own; `before` may
                // leave it empty.
                let front = if before.starts_with('%') || before.starts_with("---") {
                    String::new()
                } else {
                    format!("{before}{document}")
                };
                (format!("---\n{front}---\n\nThe body.\n"), Format::Markdown, "r.md")
            } else {
                (format!("{before}{document}{after}"), Format::Yaml, "r.yaml")
            };
            let text = if crlf { text.replace('\n', "\r\n") } else { text };
            let no_fields = std::collections::HashSet::new();
            let context = load::LoadContext { text_fields: &no_fields, max_file_size: u64::MAX };
            let loaded = load::parse(&text, display, format, &context, &mut Vec::new());
            let root = loaded.expect("the record parses").root;
            let map = load::source_map(&text, format, &no_fields);
            located_from_the_head(&text, display, &root, &map)?;
        }
    }

    #[test]
    fn a_link_target_is_found_where_it_ends_as_written() {
        fn found<'v>(value: &'v str, needle: &str) -> Option<&'v str> {
            within(value, &(0..value.len()), needle, 0, 0)
                .map(|span| &value[span.start - 2..span.end + 1])
        }
        let value = "see [[engines/vllm]], [[engines/vll|it]] and [the doc](../a.md#top)";
        assert_eq!(found(value, "engines/vll"), Some("[[engines/vll|"));
        assert_eq!(found(value, "engines/vllm"), Some("[[engines/vllm]"));
        assert_eq!(found(value, "../a.md"), Some("](../a.md#"));
        assert_eq!(found(value, "engines"), None);
        // Written with an escape, the target is not in the text as it is named.
        assert_eq!(found("see \\u005b[engines/vllm]]", "engines/vllm"), None);
        // The second writing, after one in code, is the link a parse found second.
        let value = "write `[[vllm]]`, see [[vllm|it]]";
        assert_eq!(within(value, &(0..value.len()), "vllm", 1, 0), Some(24..28));
        assert_eq!(within(value, &(0..value.len()), "vllm", 2, 0), None);
        // A fragment is found by its destination, and named from its `from` on.
        let value = "[[vllm#setup]], then [[vllm#setup|again]]";
        let second = within(value, &(0..value.len()), "vllm#setup", 1, 5);
        assert_eq!(
            second.map(|span| &value[span.start - 1..span.end + 1]),
            Some("#setup|")
        );
        assert_eq!(
            within(value, &(0..value.len()), "vllm#setup", 0, 99),
            Some(12..12)
        );
    }

    #[test]
    fn locate_leaves_spans_as_they_are_in_a_file_it_maps() {
        let text = "{\n  \"id\": \"vllm\",\n  \"name\": \"vLLM\"\n}\n";
        let corpus: Corpus = Corpus {
            files: vec![SourceFile::new(
                "vllm.json".into(),
                "vllm.json".into(),
                Some(text.into()),
                false,
            )],
            file_collections: vec![None],
            ..Corpus::default()
        };
        let whole = 0..text.len();
        let mut diagnostics = vec![
            Diagnostic::new(crate::rules::INVALID_VALUE, "vllm.json", "by pointer")
                .at(Anchor::Value("/name".into())),
            Diagnostic::new(crate::rules::INVALID_VALUE, "vllm.json", "by span")
                .at(Anchor::Span(whole.clone())),
        ];
        locate(
            &mut diagnostics,
            &corpus,
            &crate::schema::Schemas::default(),
        );
        assert_eq!(diagnostics[1].anchor, Anchor::Span(whole));
    }
}
