//! Id rules: the id is the file name, follows the collection's pattern, is unique within its
//! collection, and the record's `type` names its collection.

use serde_json::Value;

use crate::corpus::Corpus;
use crate::diagnostic::{Anchor, Applicability, Diagnostic, Edit, Fix, Label};
use crate::discover::{file_extension, file_stem};
use crate::index::{Cites, IdIndex};
use crate::load::Record;
use crate::rules;
use crate::schema::{Collection, Schemas};
use crate::unicode;

/// The per-record id and type rules.
pub fn check_record(
    record: &Record,
    collection: &Collection,
    schemas: &Schemas,
    display: &str,
) -> Vec<Diagnostic> {
    let mut diagnostics = Vec::new();
    let stem = file_stem(display);
    let id_field = record.value.get("id");
    let id_anchor = match id_field {
        Some(Value::String(_)) => Anchor::Value("/id".into()),
        _ => Anchor::File,
    };
    if let Some(Value::String(id)) = id_field
        && id != stem
    {
        let mut diagnostic = Diagnostic::new(
            rules::ID_MISMATCH,
            display,
            format!("the id `{id}` differs from the file name `{stem}`"),
        )
        .at(id_anchor.clone())
        .with_label(format!("expected `{stem}`"))
        .with_help(format!(
            "rename the file to `{id}.{}`, or change the id to `{stem}`",
            file_extension(display).unwrap_or_default(),
        ))
        .with_fix(Fix {
            applicability: Applicability::MaybeIncorrect,
            edits: vec![Edit {
                anchor: id_anchor.clone(),
                replacement: stem.to_string(),
            }],
        });
        for note in look_alike_notes(id, stem) {
            diagnostic = diagnostic.with_note(note);
        }
        diagnostics.push(diagnostic);
    }
    if !collection.id_pattern.is_match(&record.id) {
        let suggestion = kebab_case(&record.id);
        let mut diagnostic = Diagnostic::new(
            rules::ID_FORMAT,
            display,
            format!(
                "the id `{}` does not match the id pattern `{}`",
                record.id,
                collection.id_pattern.as_str()
            ),
        )
        .at(id_anchor)
        .with_label("not a valid id");
        if collection.id_pattern.is_match(&suggestion) {
            diagnostic =
                diagnostic.with_help(format!("use `{suggestion}` (and rename the file to match)"));
        }
        diagnostics.push(diagnostic);
    }
    if let Some(Value::String(kind)) = record.value.get("type")
        && *kind != collection.name
    {
        let mut diagnostic = Diagnostic::new(
            rules::TYPE_MISMATCH,
            display,
            format!(
                "the type `{kind}` differs from the collection `{}` of the folder `{}`",
                collection.name, collection.folder
            ),
        )
        .at(Anchor::Value("/type".into()))
        .with_label(format!("expected `{}`", collection.name));
        diagnostic = match schemas.collections.iter().find(|c| c.name == *kind) {
            Some(other) => diagnostic.with_help(format!(
                "move the file to `{}/`, or set the type to `{}`",
                other.folder, collection.name
            )),
            None => diagnostic.with_help(format!("set the type to `{}`", collection.name)),
        };
        diagnostics.push(diagnostic);
    }
    diagnostics
}

/// Records of one collection that share an id: the second and later are reported, pointing
/// back at the first. The index found them as it was built.
// Record and collection indices come from the corpus and schemas they index.
#[allow(clippy::indexing_slicing)]
pub fn duplicate_ids<F: Cites>(
    corpus: &Corpus<F>,
    schemas: &Schemas,
    index: &IdIndex<'_, F>,
) -> Vec<Diagnostic> {
    index
        .duplicates()
        .iter()
        .map(|&(record, first)| {
            let (record, original) = (&corpus.records[record], &corpus.records[first]);
            let collection = &schemas.collections[record.collection];
            Diagnostic::new(
                rules::DUPLICATE_ID,
                &corpus.file_of(record).display,
                format!(
                    "the id `{}` is already used by another `{}` record",
                    record.id, collection.name
                ),
            )
            .at(id_anchor(record))
            .with_label("duplicate id")
            .with_secondary(Label {
                file: corpus.file_of(original).display.clone(),
                anchor: id_anchor(original),
                message: "first used here".into(),
            })
            .with_help("merge the two records, or give one of them another id")
        })
        .collect()
}

/// What tells an id and its file's name apart when they look alike: the invisible characters
/// either holds, and how the two differ if they read the same (macOS stores file names
/// decomposed, so an id typed composed differs from its file's name in bytes alone).
fn look_alike_notes(id: &str, stem: &str) -> Vec<String> {
    let difference = unicode::only_difference(("the id", id), ("the file name", stem));
    unicode::invisible_note(id)
        .into_iter()
        .chain(unicode::invisible_note(stem))
        .chain(difference)
        .collect()
}

fn id_anchor<F>(record: &Record<F>) -> Anchor {
    if record.id_in_fields {
        Anchor::Value("/id".into())
    } else {
        Anchor::File
    }
}

/// Lower-case ASCII words joined by dashes, spelt as `new` makes ids: `Kv_Cache Foo` ->
/// `kv-cache-foo`, `café` -> `cafe` (not `caf`).
fn kebab_case(id: &str) -> String {
    crate::skeleton::ascii_words(id)
        .iter()
        .map(|word| word.to_ascii_lowercase())
        .collect::<Vec<_>>()
        .join("-")
}
