//! `gotchas query` and `gotchas index`: reading the corpus.

use std::io::Write;
use std::process::ExitCode;

use clap::{Subcommand, ValueEnum};
use serde::Serialize;
use serde_json::{Value, json};

use super::{Cli, emit};
use crate::catalog;
use crate::fix::unified_diff;
use crate::project::Project;
use crate::query::{self, Condition};
use crate::schema::Collection;
use crate::serialize;
use crate::serialize::to_json;
use crate::suggest;
use crate::write::{Each, json_document, write_atomic};

#[derive(Debug, clap::Args)]
pub(crate) struct QueryArgs {
    #[command(subcommand)]
    command: QueryCommand,
    /// The output format.
    #[arg(long, value_enum, default_value_t = Output::Table, global = true)]
    format: Output,
}

#[derive(Debug, Subcommand)]
enum QueryCommand {
    /// List the records of a collection.
    List {
        /// The collection (type name or folder).
        collection: String,
        /// Keep records where FIELD equals VALUE (dotted paths; repeatable).
        #[arg(long = "where", value_name = "FIELD=VALUE")]
        conditions: Vec<String>,
        /// Sort by this field (then by id).
        #[arg(long, value_name = "FIELD")]
        sort: Option<String>,
    },
    /// Show one record (`engines/vllm` or `vllm`).
    Get {
        /// The record's id.
        id: String,
    },
    /// Find records mentioning a text: id and name matches first, then any text field.
    Search {
        /// The text to look for (case-insensitive).
        text: String,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Output {
    /// Aligned columns (YAML for `get`).
    Table,
    /// JSON.
    Json,
}

#[derive(Debug, clap::Args)]
pub(crate) struct IndexArgs {
    /// Write the index to this file (atomically) instead of printing it.
    #[arg(long, value_name = "FILE")]
    out: Option<std::path::PathBuf>,
    /// Compare with the committed file (`--out`, default `INDEX.md` at the root); exit 1 and
    /// print a diff when it is stale.
    #[arg(long)]
    check: bool,
}

/// Aligned columns with a header row.
fn table(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let line = |cells: Vec<&str>| -> String {
        let mut text: String = cells
            .iter()
            .zip(&widths)
            .map(|(cell, width)| format!("{cell:<width$}"))
            .collect::<Vec<_>>()
            .join("  ");
        text.truncate(text.trim_end().len());
        text.push('\n');
        text
    };
    let mut out = line(header.to_vec());
    for row in rows {
        out.push_str(&line(row.iter().map(String::as_str).collect()));
    }
    out
}

/// Refuses a `--where` or `--sort` field the collection's schema does not declare, and a
/// `--where` value its schema does not allow: either would list nothing, or list unsorted,
/// and say nothing of the typo.
fn known_fields(
    collection: &Collection,
    conditions: &[Condition],
    sort: &Option<String>,
) -> Result<(), String> {
    let fields = conditions
        .iter()
        .map(|c| ("--where", c.field.as_str()))
        .chain(sort.iter().map(|s| ("--sort", s.as_str())));
    for (flag, field) in fields {
        // Every key on the way is checked where the schema declares it, as a reference's
        // path is: a typo under `misc.` or an array's items lists nothing as surely.
        let path: Vec<String> = field
            .split('.')
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect();
        if let Err((at, declared)) = collection.field(&path) {
            let unknown = path.get(..=at).unwrap_or(&path).join(".");
            // Suggested whole, `flops.precision` for `flops.precison`, to be pasted back.
            let parent = path.get(..at).unwrap_or_default();
            let candidates: Vec<String> = declared
                .iter()
                .map(|name| {
                    parent
                        .iter()
                        .chain([name])
                        .cloned()
                        .collect::<Vec<_>>()
                        .join(".")
                })
                .collect();
            let help = suggest::did_you_mean(&suggest::suggest(
                &unknown,
                candidates.iter().map(String::as_str),
                3,
            ))
            .map(|h| format!("\nhelp: {h}"))
            .unwrap_or_else(|| format!("\nnote: declared fields: {}", declared.join(", ")));
            return Err(format!(
                "{flag} `{field}`: `{}` records have no field `{unknown}`{help}",
                collection.name
            ));
        }
    }
    for condition in conditions {
        let path: Vec<String> = condition.field.split('.').map(str::to_string).collect();
        let members = crate::schema::enum_members(&collection.schema, &path);
        if !members.is_empty() && !members.iter().any(|m| condition.is_wanted(m)) {
            let allowed: Vec<String> = members.iter().map(query::text_of).collect();
            let help = suggest::did_you_mean(&suggest::suggest(
                &condition.value,
                allowed.iter().map(String::as_str),
                3,
            ))
            .map(|h| format!("\nhelp: {h}"))
            .unwrap_or_else(|| format!("\nnote: allowed values: {}", allowed.join(", ")));
            return Err(format!(
                "--where `{}={}`: `{}` is not an allowed value of `{}`{help}",
                condition.field, condition.value, condition.value, condition.field
            ));
        }
    }
    Ok(())
}

// Record, file and collection indices come from the corpus and schemas they index.
#[allow(clippy::indexing_slicing)]
pub(crate) fn query(cli: &Cli, args: &QueryArgs, out: &mut impl Write) -> ExitCode {
    let project = match cli.open_project() {
        Ok(project) => project,
        Err(code) => return code,
    };
    let schemas = &project.schemas;
    match &args.command {
        QueryCommand::List {
            collection,
            conditions,
            sort,
        } => {
            let Some(index) = schemas
                .collections
                .iter()
                .position(|c| &c.name == collection || &c.folder == collection)
            else {
                let names = schemas.collections.iter().map(|c| c.folder.as_str());
                let help = suggest::did_you_mean(&suggest::suggest(collection, names, 3))
                    .map(|h| format!("\nhelp: {h}"))
                    .unwrap_or_default();
                say!("error: no collection `{collection}`{help}");
                return ExitCode::from(2);
            };
            let parsed: Result<Vec<Condition>, String> =
                conditions.iter().map(|c| Condition::parse(c)).collect();
            let conditions = match parsed {
                Ok(conditions) => conditions,
                Err(message) => {
                    say!("error: {message}");
                    return ExitCode::from(2);
                }
            };
            if let Err(message) = known_fields(&schemas.collections[index], &conditions, sort) {
                say!("error: {message}");
                return ExitCode::from(2);
            }
            let corpus =
                project.load_with(|record, _, _| query::listed(record, index, &conditions));
            super::note_load_problems(corpus.diagnostics.len());
            let found = query::list(&corpus, sort.as_deref());
            let fields = |record: usize| corpus.records[record].value.0.as_ref();
            let qualified = |record: usize| schemas.qualified_id(&corpus.records[record]);
            let name_of = |record: usize| {
                let r = &corpus.records[record];
                let name = fields(record).and_then(|value| value.get("name"));
                short_name(name.and_then(Value::as_str).unwrap_or(&r.id))
            };
            let mut columns: Vec<&str> = conditions.iter().map(|c| c.field.as_str()).collect();
            // The sort field gets a column, unless it has one: `id` and `name` always do.
            if let Some(sort) = sort
                && !columns.contains(&sort.as_str())
                && !["id", "name"].contains(&sort.as_str())
            {
                columns.push(sort);
            }
            let cell = |record: usize, field: &str| -> String {
                fields(record)
                    .map(|value| query::values_at(value, field))
                    .unwrap_or_default()
                    .into_iter()
                    .map(query::text_of)
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            match args.format {
                Output::Json => {
                    // Written as it is serialized, each record's fields borrowed: a copy of
                    // every listed record's fields and the document held whole took 814 MiB
                    // to list the 80,000 gotchas of 100,000 generated records.
                    let items = Each {
                        items: &found,
                        each: |&r| Listed {
                            id: qualified(r),
                            record: fields(r),
                        },
                    };
                    super::stream(out, |out| json_document(out, &items))
                }
                Output::Table => {
                    let mut header = vec!["id", "name"];
                    header.extend(&columns);
                    let rows: Vec<Vec<String>> = found
                        .iter()
                        .map(|&r| {
                            let mut row = vec![qualified(r), name_of(r)];
                            row.extend(columns.iter().map(|field| one_line(&cell(r, field))));
                            row
                        })
                        .collect();
                    emit(out, table(&header, &rows).as_bytes())
                }
            }
        }
        QueryCommand::Get { id } => {
            let (named, order) =
                match super::author::named_records(&project, std::slice::from_ref(id)) {
                    Ok(named) => named,
                    Err(code) => return code,
                };
            let Some(record) = order.first().and_then(|&at| named.records.get(at)) else {
                say!("error: `{id}` names no single record");
                return ExitCode::from(2);
            };
            match args.format {
                Output::Json => emit(out, to_json(&record.value).as_bytes()),
                Output::Table => emit(
                    out,
                    format!(
                        "# {}\n{}",
                        schemas.qualified_id(record),
                        serialize::to_yaml(&record.value)
                    )
                    .as_bytes(),
                ),
            }
        }
        QueryCommand::Search { text } => search(&project, text, args.format, out),
    }
}

/// A record of `query list --format json`: its qualified id and its fields.
#[derive(Serialize)]
struct Listed<'a> {
    id: String,
    record: Option<&'a Value>,
}

/// A record's name for a table column: names can be sentences, and a column stays readable
/// at fifty characters.
fn short_name(name: &str) -> String {
    let name = one_line(name);
    if name.chars().count() > 50 {
        format!("{}…", name.chars().take(49).collect::<String>())
    } else {
        name
    }
}

/// `text` for a cell of a table: a line break or tab in it would break the row, so each
/// control character is shown as a space.
fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// `query search TEXT`: each record is matched as it is loaded, and only the hits are kept.
// Record and collection indices come from the corpus and schemas they index.
#[allow(clippy::indexing_slicing)]
fn search(project: &Project, text: &str, format: Output, out: &mut impl Write) -> ExitCode {
    // Every text holds the empty text: such a search would list the whole corpus.
    if text.trim().is_empty() {
        say!("error: the search text is empty\nhelp: give a word the records should mention");
        return ExitCode::from(2);
    }
    let needle = text.to_lowercase();
    let schemas = &project.schemas;
    let corpus = project.load_with(|record, _, _| {
        let matched = query::match_record(&record, &needle);
        record.keeping(matched)
    });
    super::note_load_problems(corpus.diagnostics.len());
    let hits = query::search(&corpus, schemas);
    let qualified = |record: usize| schemas.qualified_id(&corpus.records[record]);
    let name_of = |record: usize| {
        let r = &corpus.records[record];
        r.value.name.as_deref().unwrap_or(&r.id)
    };
    match format {
        Output::Json => {
            // A script reads the whole name; only a table column is cut short.
            let items: Vec<Value> = hits
                .iter()
                .map(|h| json!({"id": qualified(h.record), "name": name_of(h.record), "field": h.field, "excerpt": h.excerpt}))
                .collect();
            emit(out, to_json(&items).as_bytes())
        }
        Output::Table => {
            let rows: Vec<Vec<String>> = hits
                .iter()
                .map(|h| {
                    vec![
                        qualified(h.record),
                        short_name(name_of(h.record)),
                        h.field.clone(),
                        one_line(&h.excerpt),
                    ]
                })
                .collect();
            emit(
                out,
                table(&["id", "name", "field", "match"], &rows).as_bytes(),
            )
        }
    }
}

pub(crate) fn index(cli: &Cli, args: &IndexArgs, out: &mut impl Write) -> ExitCode {
    let project = match cli.open_project() {
        Ok(project) => project,
        Err(code) => return code,
    };
    let schemas = &project.schemas;
    let enums = schemas.enum_fields_by_collection();
    let corpus = project.load_with(|record, _, _| {
        let enums = enums.get(record.collection).map_or(&[][..], Vec::as_slice);
        let card = catalog::card(&record, schemas, enums);
        record.keeping(card)
    });
    super::note_load_problems(corpus.diagnostics.len());
    let text = catalog::render(&corpus, schemas);
    let target = args
        .out
        .clone()
        .unwrap_or_else(|| project.root.join("INDEX.md"));
    if args.check {
        let shown = target.display().to_string();
        let committed = match crate::load::read_regular_to_string(&target) {
            Ok(committed) => committed,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
                say!("error: {shown} does not exist; run `gotchas index --out {shown}`");
                return ExitCode::from(1);
            }
            Err(err) => {
                say!("error: cannot read {shown}: {err}");
                return ExitCode::from(2);
            }
        };
        if committed == text {
            return emit(out, format!("{shown} is up to date\n").as_bytes());
        }
        let _ = out.write_all(unified_diff(&shown, &committed, &text).as_bytes());
        say!("error: {shown} is stale; run `gotchas index --out {shown}`");
        return ExitCode::from(1);
    }
    match &args.out {
        None => emit(out, text.as_bytes()),
        Some(path) if let Err(code) = super::refuse_corpus_file(&project, path) => code,
        Some(path) => match write_atomic(path, text.as_bytes()) {
            Ok(()) => emit(out, format!("wrote {}\n", path.display()).as_bytes()),
            Err(err) => {
                say!("error: cannot write {}: {err}", path.display());
                ExitCode::from(2)
            }
        },
    }
}
