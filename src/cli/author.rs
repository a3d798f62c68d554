//! `gotchas new` and `gotchas convert`: writing records.

use std::io::Write;
use std::process::ExitCode;

use clap::ValueEnum;

use super::Cli;
use crate::check;
use crate::convert;
use crate::corpus::Corpus;
use crate::diagnostic::{Anchor, Diagnostic, pointer_segments};
use crate::discover::Candidate;
use crate::graph::Linked;
use crate::index::{self, IdIndex, Problem, Source};
use crate::project::Project;
use crate::rules;
use crate::serialize;
use crate::skeleton;
use crate::source::Format;
use crate::stamp::Kept;
use crate::suggest;
use crate::write::{
    sync_file_system, write_atomic, write_atomic_over, write_new, write_new_unsynced,
};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum RecordFormat {
    /// Markdown with front matter; long text fields as `## Heading` sections.
    Md,
    /// YAML.
    Yaml,
    /// JSON.
    Json,
}

impl RecordFormat {
    fn format(self) -> Format {
        match self {
            RecordFormat::Md => Format::Markdown,
            RecordFormat::Yaml => Format::Yaml,
            RecordFormat::Json => Format::Json,
        }
    }
}

#[derive(Debug, clap::Args)]
pub(crate) struct NewArgs {
    /// The collection (type name such as `gotcha`, or its folder).
    collection: String,
    /// The record's name.
    #[arg(long)]
    name: String,
    /// The id; derived from the name when omitted (lower-case ASCII words joined by dashes:
    /// `Café Engine` -> `cafe-engine`).
    #[arg(long)]
    id: Option<String>,
    /// A source id to cite (repeatable); each must exist.
    #[arg(long = "source", value_name = "ID")]
    sources: Vec<String>,
    /// The file format.
    #[arg(long, value_enum, default_value_t = RecordFormat::Md)]
    format: RecordFormat,
    /// Overwrite an existing record of the same format, in its file (a `.yml` one stays
    /// `.yml`).
    #[arg(long)]
    force: bool,
}

#[derive(Debug, clap::Args)]
pub(crate) struct ConvertArgs {
    /// The target format.
    #[arg(long, value_enum)]
    to: RecordFormat,
    /// Records to convert (`engines/vllm` or `vllm`).
    ids: Vec<String>,
    /// Convert every record.
    #[arg(long, conflicts_with = "ids")]
    all: bool,
    /// Replace the files (the old file is removed when the extension changes); without it the
    /// converted text is printed.
    #[arg(long)]
    in_place: bool,
}

pub(crate) fn new(cli: &Cli, args: &NewArgs, out: &mut impl Write) -> ExitCode {
    let project = match cli.open_project() {
        Ok(project) => project,
        Err(code) => return code,
    };
    let schemas = &project.schemas;
    let Some(collection_index) = schemas
        .collections
        .iter()
        .position(|c| c.name == args.collection || c.folder == args.collection)
    else {
        let names = schemas.collections.iter().map(|c| c.name.as_str());
        let help = suggest::did_you_mean(&suggest::suggest(&args.collection, names, 3))
            .map(|h| format!("\nhelp: {h}"))
            .unwrap_or_default();
        say!("error: no collection `{}`{help}", args.collection);
        return ExitCode::from(2);
    };
    // The index was found among the schemas.
    #[allow(clippy::indexing_slicing)]
    let collection = &schemas.collections[collection_index];
    let id = args
        .id
        .clone()
        .unwrap_or_else(|| skeleton::id_from_name(&args.name));
    // The id is the record's file name: a pattern loose enough to let `../x` or `/tmp/x`
    // through must not send the record out of its folder, nor over a schema.
    if let Some(why) = not_a_file_name(&id) {
        say!("error: the id `{id}` cannot name a record's file: {why}");
        return ExitCode::from(2);
    }
    if !collection.id_pattern.is_match(&id) {
        let help = if args.id.is_some() {
            "pass an --id that matches it"
        } else {
            "pass --id, as the id made from the name does not match it"
        };
        say!(
            "error: the id `{id}` does not match the id pattern `{}`\nhelp: {help}",
            collection.id_pattern.as_str()
        );
        return ExitCode::from(2);
    }
    let today = match skeleton::today() {
        Ok(today) => today,
        Err(why) => {
            say!("error: {why}");
            return ExitCode::from(2);
        }
    };
    // Only ids are looked at: the corpus is loaded as the graph commands load it.
    let corpus = project.load_linked();
    let index = IdIndex::new(&corpus, schemas);
    let source_targets = collection
        .references
        .iter()
        .find(|r| r.path == ["sources"])
        .map(|r| r.targets)
        .unwrap_or_default();
    if !args.sources.is_empty() && source_targets.is_empty() {
        say!(
            "error: `{}` records have no `sources` reference field to cite sources in",
            collection.name
        );
        return ExitCode::from(2);
    }
    for source in &args.sources {
        if index.resolve(source, source_targets).is_err() {
            let help = index.help_line(source, source_targets);
            say!("error: the source `{source}` names no record{help}");
            return ExitCode::from(2);
        }
    }
    let first_record = |targets: &[usize]| -> Option<String> {
        corpus
            .records
            .iter()
            .filter(|r| targets.contains(&r.collection))
            .map(|r| r.id.clone())
            .min()
    };
    let (value, placeholders) = skeleton::skeleton(
        collection,
        &id,
        &args.name,
        &args.sources,
        &today,
        &first_record,
    );
    let format = args.format.format();
    let text = match format {
        Format::Json => serialize::to_json(&value),
        Format::Yaml => serialize::to_yaml(&value),
        Format::Markdown => serialize::to_markdown_skeleton(&value, &collection.text_fields),
    };
    let dir = project
        .root
        .join(&project.config.records)
        .join(&collection.folder);
    let existing = record_files(&dir, &id);
    // A record already in this format is overwritten where it is: a `.yml` file stays
    // `.yml`, as `--format yaml` is all there is to ask for it.
    let path = existing
        .iter()
        .find(|p| Format::of_path(p) == Some(format))
        .cloned()
        .unwrap_or_else(|| dir.join(format!("{id}.{}", convert::extension(format))));
    if !args.force
        && let Some(first) = existing.first()
    {
        say!(
            "error: a record with the id `{id}` already exists: {}\nhelp: pass --force to overwrite it",
            crate::source::display_path(&project.root, first)
        );
        return ExitCode::from(2);
    }
    // Overwriting is replacing the file; a file of another format would be left beside the
    // new one, two records with one id.
    if let Some(other) = existing.iter().find(|p| **p != path) {
        let shown = crate::source::display_path(&project.root, other);
        // Both `.yaml` and `.yml` there: no `--format` names the other one.
        let help = match Format::of_path(other) {
            Some(written) if written != format => format!(
                "pass --format {} to overwrite it, or delete it first",
                convert::extension(written)
            ),
            _ => "delete one of the two first".to_string(),
        };
        say!(
            "error: a record with the id `{id}` already exists in another file: {shown}\nhelp: {help}"
        );
        return ExitCode::from(2);
    }
    let candidate = Candidate {
        path: path.clone(),
        display: crate::source::display_path(&project.root, &path),
        collection: collection_index,
        format,
    };
    let unmet = project.apply_levels(unmet(&project, candidate, &text, &index));
    if let Err(code) = write_record(&project, args.force, &path, &id, &text) {
        return code;
    }
    let _ = writeln!(
        out,
        "created {}",
        crate::source::display_path(&project.root, &path)
    );
    for placeholder in placeholders {
        say!(
            "note: the required reference `{}` was set to `{}` so the record validates; point it at the right record",
            pointer_segments(&placeholder.field).join("/"),
            placeholder.id
        );
    }
    if !unmet.is_empty() {
        let mut listed = String::new();
        for diagnostic in unmet.iter().take(MAX_LISTED) {
            listed.push_str(&format!("\n  {} [{}]", placed(diagnostic), diagnostic.code));
        }
        if unmet.len() > MAX_LISTED {
            listed.push_str(&format!(
                "\n  and {} more, which `gotchas check` lists",
                unmet.len() - MAX_LISTED
            ));
        }
        say!(
            "warning: the new record does not validate until {} filled in (`gotchas check` reports {}):{listed}",
            if unmet.len() == 1 {
                "this is"
            } else {
                "these are"
            },
            if unmet.len() == 1 { "it" } else { "them" },
        );
    }
    if value.get("name").is_none() {
        say!(
            "note: `{}` records have no `name` field: the name only made the id",
            collection.name
        );
    }
    ExitCode::SUCCESS
}

pub(crate) fn convert(cli: &Cli, args: &ConvertArgs, out: &mut impl Write) -> ExitCode {
    let project = match cli.open_project() {
        Ok(project) => project,
        Err(code) => return code,
    };
    let to = args.to.format();
    let outcomes: Vec<Result<convert::Converted, convert::Refused>> = if args.all {
        // Each record is converted as it is loaded, and only its new text kept.
        let corpus = project.load_with(|record, _, file| {
            let converted = convert::convert_record(&record, file, &project.schemas, to);
            record.keeping(converted)
        });
        // A record file that did not load is a record not converted, named in its place
        // among the others: left out, `--all` would claim a whole corpus converted.
        let mut outcomes: Vec<Option<Result<convert::Converted, convert::Refused>>> =
            corpus.files.iter().map(|_| None).collect();
        for record in corpus.records {
            let outcome = match corpus.files.get(record.file) {
                Some(file) => convert::unless_set_twice(record.value, file, &corpus.diagnostics),
                None => record.value,
            };
            if let Some(slot) = outcomes.get_mut(record.file) {
                *slot = Some(outcome);
            }
        }
        outcomes
            .into_iter()
            .zip(&corpus.files)
            .zip(&corpus.file_collections)
            .filter_map(|((outcome, file), collection)| {
                outcome.or_else(|| {
                    collection.map(|_| {
                        Err(convert::Refused {
                            file: file.display.clone(),
                            reason: "it did not load (`gotchas check` says why)".into(),
                        })
                    })
                })
            })
            .collect()
    } else {
        match named_records(&project, &args.ids) {
            Ok((corpus, records)) => convert::convert(&corpus, &project.schemas, &records, to),
            Err(code) => return code,
        }
    };
    if outcomes.is_empty() {
        say!("error: name records to convert, or pass --all");
        return ExitCode::from(2);
    }
    let count = outcomes.len();
    let mut failed = false;
    let mut items = Vec::with_capacity(count);
    for outcome in outcomes {
        match outcome {
            Ok(item) => items.push(item),
            Err(refused) => {
                say!(
                    "error: {} was not converted: {}",
                    refused.file,
                    refused.reason
                );
                failed = true;
            }
        }
    }
    if !args.in_place {
        let several = count > 1;
        for item in &items {
            let display = crate::source::display_path(&project.root, &item.to);
            // The converted text is the command's output: lost, the run failed.
            let shown = if several {
                writeln!(out, "==> {display} <==")
            } else {
                Ok(())
            };
            if let Err(err) = shown.and_then(|()| out.write_all(item.text.as_bytes())) {
                return super::unwritten(&err);
            }
        }
    } else {
        let (converted, all) = replace_files(&project, &items);
        failed |= !all;
        let _ = writeln!(out, "converted {converted} of {count} records");
    }
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// Writes converted records in place of their files: how many were, and whether all. A
/// record in its own format replaces its file as `--fix` does. One in another format is
/// written beside its file, never over another, and not flushed; once all are written the
/// file system is flushed at once (a flush per file took 51 s for 20,000 records), and only
/// then is each old file removed. A file is replaced or removed only while it holds what
/// was read and is not marked read-only: one changed since keeps the change, its new file
/// is removed, and it is named. Before its new file is written beside it, a file is only
/// asked whether its stamp is the one read, which turns most such files away early.
fn replace_files(project: &Project, items: &[convert::Converted]) -> (usize, bool) {
    let mut all = true;
    let mut replaced = 0;
    let mut beside = Vec::new();
    for item in items {
        let written = if item.to == item.from {
            write_atomic_over(&item.to, item.text.as_bytes(), &|| {
                item.as_read.check(&item.from)
            })
        } else {
            // The old file is read again, to know it unchanged, only before it is removed.
            item.as_read
                .check_stamp(&item.from)
                .and_then(|()| write_new_unsynced(&item.to, &item.from, item.text.as_bytes()))
        };
        match written {
            Ok(()) if item.to == item.from => replaced += 1,
            Ok(()) => beside.push(item),
            Err(err) => {
                all = false;
                not_converted(project, item, &err);
            }
        }
    }
    if beside.is_empty() {
        return (replaced, all);
    }
    let records = project.root.join(&project.config.records);
    let written: Vec<&std::path::Path> = beside.iter().map(|item| item.to.as_path()).collect();
    if let Err(err) = sync_file_system(&records, &written) {
        say!("error: cannot flush the converted records to disk: {err}; the old files are kept");
        for item in beside {
            let _ = std::fs::remove_file(&item.to);
        }
        return (replaced, false);
    }
    for item in beside {
        let removed = item
            .as_read
            .check(&item.from)
            .and_then(|()| std::fs::remove_file(&item.from));
        match removed {
            Ok(()) => replaced += 1,
            Err(err) => {
                all = false;
                let _ = std::fs::remove_file(&item.to);
                not_converted(project, item, &err);
            }
        }
    }
    // The removals are flushed too; were they lost, the old files would be back beside the
    // new ones, which no longer loses anything.
    let _ = sync_file_system(&records, &written);
    (replaced, all)
}

/// Says why a converted record was not written in place of its file.
fn not_converted(project: &Project, item: &convert::Converted, err: &std::io::Error) {
    let from = crate::source::display_path(&project.root, &item.from);
    let to = crate::source::display_path(&project.root, &item.to);
    match Kept::of(err) {
        Some(Kept::ReadOnly) => say!("error: {from} is read-only, so it was not converted"),
        Some(Kept::Changed) => {
            say!("error: {from} changed since it was read, so it was not converted; run again")
        }
        None if err.kind() == std::io::ErrorKind::AlreadyExists => {
            say!("error: {to} already exists; {from} was not converted");
        }
        None => say!("error: cannot write {to}: {err}"),
    }
}

/// The files in `dir` that are records of the id `id`, in any format.
fn record_files(dir: &std::path::Path, id: &str) -> Vec<std::path::PathBuf> {
    ["json", "yaml", "yml", "md"]
        .iter()
        .map(|ext| dir.join(format!("{id}.{ext}")))
        .filter(|p| p.exists())
        .collect()
}

/// Writes the new record `text` at `path`. Without `force` it never lands over a file that
/// appeared since none was found there, and is taken back when a record of the same id
/// appeared in another format meanwhile: two `new` of one id at once made one record, said
/// "created" twice, and replaced the first silently, or left two files of one id.
fn write_record(
    project: &Project,
    force: bool,
    path: &std::path::Path,
    id: &str,
    text: &str,
) -> Result<(), ExitCode> {
    let shown = |path: &std::path::Path| crate::source::display_path(&project.root, path);
    let dir = path.parent().unwrap_or(&project.root);
    let written = std::fs::create_dir_all(dir).and_then(|()| {
        if force {
            write_atomic(path, text.as_bytes())
        } else {
            write_new(path, text.as_bytes())
        }
    });
    match written {
        Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => {
            say!(
                "error: a record with the id `{id}` was made meanwhile: {}\nhelp: pass --force to overwrite it",
                shown(path)
            );
            return Err(ExitCode::from(2));
        }
        Err(err) => {
            say!("error: cannot write {}: {err}", path.display());
            return Err(ExitCode::from(2));
        }
        Ok(()) => {}
    }
    let others = record_files(dir, id);
    if let Some(other) = others
        .iter()
        .find(|other| *other != path)
        .filter(|_| !force)
    {
        let _ = std::fs::remove_file(path);
        say!(
            "error: a record with the id `{id}` was made meanwhile in another file: {}; {} was not kept",
            shown(other),
            shown(path)
        );
        return Err(ExitCode::from(2));
    }
    Ok(())
}

/// The records `ids` name, as a corpus of their files alone, and their indices in it in the
/// order named; an id that names no single record is reported with a did-you-mean, one
/// several collections hold with each record's qualified id, and one whose file did not
/// load with that file. The ids
/// are looked up in the corpus loaded as `graph` loads it (ids, references and names), and
/// only the files they name are parsed again for their fields: converting or showing one
/// record of a large corpus holds one record's fields, not every record's.
// Record and file indices come from the corpus they index.
#[allow(clippy::indexing_slicing)]
pub(super) fn named_records(
    project: &Project,
    ids: &[String],
) -> Result<(Corpus, Vec<usize>), ExitCode> {
    let corpus = project.load_linked();
    let index = IdIndex::new(&corpus, &project.schemas);
    let every: Vec<usize> = (0..project.schemas.collections.len()).collect();
    let mut found = Vec::new();
    for id in ids {
        match index.resolve(id, &every) {
            Ok(record) => {
                // Its collection has the id more than once: which record is meant is not
                // for the command to choose (`check` reports each as `duplicate-id`).
                let files: Vec<&str> = std::iter::once(record)
                    .chain(
                        index
                            .duplicates()
                            .iter()
                            .filter(|&&(_, first)| first == record)
                            .map(|&(duplicate, _)| duplicate),
                    )
                    .map(|r| corpus.file_of(&corpus.records[r]).display.as_str())
                    .collect();
                if files.len() > 1 {
                    say!(
                        "error: `{id}` names {} records, one id in one collection: {}\nhelp: give each its own id (`gotchas check` reports them as `duplicate-id`)",
                        files.len(),
                        files.join(", ")
                    );
                    return Err(ExitCode::from(2));
                }
                found.push(record);
            }
            Err(Problem::Ambiguous(records)) => {
                let qualified: Vec<String> =
                    records.iter().map(|&r| index.qualified_id(r)).collect();
                return Err(super::ambiguous(id, qualified.iter().map(String::as_str)));
            }
            Err(_) => {
                if let Some(file) = index.unloaded_file(id, &every) {
                    say!(
                        "error: `{id}` is in {}, which did not load (`gotchas check` says why)",
                        corpus.files[file].display
                    );
                    super::note_load_problems(corpus.diagnostics.len());
                    return Err(ExitCode::from(2));
                }
                let help = index.help_line(id, &every);
                say!("error: `{id}` names no single record{help}");
                super::note_load_problems(corpus.diagnostics.len());
                return Err(ExitCode::from(2));
            }
        }
    }
    let mut distinct = found.clone();
    distinct.sort_unstable();
    distinct.dedup();
    let mut named = Corpus::default();
    for &record in &distinct {
        let record = &corpus.records[record];
        let file = &corpus.files[record.file];
        let Some(text) = file.text_again() else {
            say!(
                "error: {} changed or went while it was read; run the command again",
                file.display
            );
            return Err(ExitCode::from(2));
        };
        let candidate = Candidate {
            path: file.path.clone(),
            display: file.display.clone(),
            collection: record.collection,
            format: record.format,
        };
        named.insert_file(
            candidate,
            text.into_owned(),
            &project.schemas,
            &project.config,
        );
    }
    // Files are inserted in path order, as `distinct` is, and each text is the one that
    // parsed before: the named record at `distinct[i]` is record `i` of the new corpus.
    if named.records.len() != distinct.len() {
        say!("error: a record named no longer parses; run the command again");
        return Err(ExitCode::from(2));
    }
    let order = found
        .iter()
        .filter_map(|record| distinct.binary_search(record).ok())
        .collect();
    Ok((named, order))
}

/// The most unmet fields `new` lists: a schema a skeleton cannot meet at all (one that
/// requires itself, without end) would list thousands.
const MAX_LISTED: usize = 20;

/// What `check` would find wrong with the new record `text`, to be written as `candidate`:
/// the rules that look at a record alone, its load problems (a Markdown section read as
/// no field), and each reference in it that names no record of `index`, the corpus's.
fn unmet(
    project: &Project,
    candidate: Candidate,
    text: &str,
    index: &IdIndex<'_, Linked>,
) -> Vec<Diagnostic> {
    let display = candidate.display.clone();
    let mut alone = Corpus::default();
    alone.insert_file(
        candidate,
        text.to_string(),
        &project.schemas,
        &project.config,
    );
    let mut found = std::mem::take(&mut alone.diagnostics);
    let Some(record) = alone.records.first() else {
        if found.is_empty() {
            found.push(Diagnostic::new(
                rules::SYNTAX_ERROR,
                &display,
                "the skeleton does not read back as a record",
            ));
        }
        return found;
    };
    found.extend(check::check_record(&alone, record, &project.schemas));
    for written in index::written_in_record(&alone, &project.schemas, 0) {
        let Source::Field { pointer, .. } = written.source else {
            continue;
        };
        if index.resolve(&written.text, written.allowed).is_ok() {
            continue;
        }
        let targets: Vec<String> = written
            .allowed
            .iter()
            .filter_map(|&target| project.schemas.collections.get(target))
            .map(|target| format!("`{}`", target.name))
            .collect();
        found.push(
            Diagnostic::new(
                rules::UNRESOLVED_REF,
                &display,
                if written.text.is_empty() {
                    format!(
                        "a reference to a {} record, and there is none to point it at yet",
                        targets.join(" or ")
                    )
                } else {
                    format!(
                        "`{}` names no {} record",
                        written.text,
                        targets.join(" or ")
                    )
                },
            )
            .at(Anchor::Value(pointer.to_string())),
        );
    }
    found
}

/// A diagnostic's message, led by the field it is about (`owner/team`) unless it leads with
/// it already, as check's messages about a value do.
fn placed(diagnostic: &Diagnostic) -> String {
    let pointer = match &diagnostic.anchor {
        Anchor::Value(pointer) | Anchor::Key(pointer) | Anchor::Within { pointer, .. } => pointer,
        Anchor::File | Anchor::Span(_) => return diagnostic.message.clone(),
    };
    let field = format!("`{}`", pointer_segments(pointer).join("/"));
    if pointer.is_empty() || diagnostic.message.starts_with(&field) {
        diagnostic.message.clone()
    } else {
        format!("{field}: {}", diagnostic.message)
    }
}

/// Why `id` cannot be the name of a record file in its collection's folder, if it cannot.
fn not_a_file_name(id: &str) -> Option<&'static str> {
    if id.is_empty() {
        Some("it is empty")
    } else if id.contains(['/', '\\']) {
        Some("it holds a path separator, which would place the file in another folder")
    } else if id.starts_with('.') {
        Some("a file whose name starts with `.` is hidden, and hidden files are not checked")
    } else {
        None
    }
}
