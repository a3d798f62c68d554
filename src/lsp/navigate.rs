//! Hover, go-to-definition, find-references and rename: everything that starts from a
//! reference under the cursor and follows it.
//!
//! References are found once, by the same resolution `check` runs (the workspace keeps its
//! edges), and only located here, in the few files a request is about: a field value through
//! the file's source map, a link by its span.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use lsp_types::{
    DocumentChangeOperation, DocumentChanges, Hover, HoverContents, Location, MarkupContent,
    MarkupKind, OneOf, OptionalVersionedTextDocumentIdentifier, RenameFile, ResourceOp,
    TextDocumentEdit, TextEdit, WorkspaceEdit,
};
use serde_json::Value;

use super::convert;
use super::workspace::Workspace;
use crate::diagnostic::Anchor;
use crate::index::{Edge, IdIndex, Source, Target};
use crate::links::{self, LinkKind};
use crate::project::scalar_content;
use crate::source::Span;
use crate::sourcemap::SourceMap;

/// The fields whose first sentence summarises a record, in order of preference.
const SUMMARY_FIELDS: [&str; 4] = ["summary", "description", "symptom", "notes"];

/// What a request looks things up in, each made once, when first needed: the source maps
/// of the files it looks into, and the id index, which resolves a link found again in a
/// string value.
#[derive(Default)]
struct Maps<'w> {
    sources: HashMap<usize, SourceMap>,
    index: Option<IdIndex<'w>>,
}

impl<'w> Maps<'w> {
    fn get(&mut self, workspace: &Workspace, file: usize) -> &SourceMap {
        self.sources
            .entry(file)
            .or_insert_with(|| workspace.source_map(file))
    }

    fn index(&mut self, workspace: &'w Workspace) -> &IdIndex<'w> {
        self.index
            .get_or_insert_with(|| IdIndex::new(&workspace.corpus, &workspace.project.schemas))
    }
}

/// The file a reference is written in.
// Record, file and collection indices come from the corpus and schemas they index.
#[allow(clippy::indexing_slicing)]
fn file_of(workspace: &Workspace, source: &Source) -> usize {
    match source {
        Source::Field { record, .. } | Source::FieldLink { record, .. } => {
            workspace.corpus.records[*record].file
        }
        Source::Link { file, .. } => *file,
    }
}

/// Where an edge's reference is written: the id's span (without quotes), or each link in a
/// string value that names the edge's target.
fn spans<'w>(workspace: &'w Workspace, edge: &Edge, maps: &mut Maps<'w>) -> Vec<Span> {
    let file = file_of(workspace, &edge.source);
    let text = workspace.text(file);
    match &edge.source {
        Source::Field { pointer, .. } => maps
            .get(workspace, file)
            .locate(&Anchor::Value(pointer.to_string()))
            .map(|span| scalar_content(text, span))
            .into_iter()
            .collect(),
        Source::FieldLink { pointer, kind, .. } => {
            let Some(value) = maps
                .get(workspace, file)
                .locate(&Anchor::Value(pointer.to_string()))
            else {
                return Vec::new();
            };
            // Each link of the value is resolved as `check` resolved the one the edge is,
            // so that it is found whatever name it gives its target (a page by its stem or
            // its path, a file with `%20` in its name).
            let every = workspace.project.schemas.every_collection();
            let index = maps.index(workspace);
            links::extract(text, &value)
                .into_iter()
                .filter(|link| {
                    link.kind == *kind
                        && index.resolve_prose_link(file, link, every) == Ok(edge.target)
                })
                .map(|link| link.span)
                .collect()
        }
        Source::Link { span, .. } => vec![span.clone()],
    }
}

/// Every resolved reference written in `file`, located.
fn in_file(workspace: &Workspace, file: usize) -> Vec<(Span, Target)> {
    let mut maps = Maps::default();
    let mut found = Vec::new();
    for edge in workspace.edges_in(file) {
        for span in spans(workspace, edge, &mut maps) {
            found.push((span, edge.target));
        }
    }
    found
}

/// The reference under the cursor and what it names.
fn at(workspace: &Workspace, file: usize, offset: usize) -> Option<(Span, Target)> {
    in_file(workspace, file)
        .into_iter()
        .find(|(span, _)| span.start <= offset && offset <= span.end)
}

/// Every place `target` is cited, by file, in position order.
fn citations(workspace: &Workspace, target: Target) -> BTreeMap<usize, BTreeSet<(usize, usize)>> {
    let mut maps = Maps::default();
    let mut found: BTreeMap<usize, BTreeSet<(usize, usize)>> = BTreeMap::new();
    for edge in workspace.edges().filter(|e| e.target == target) {
        let file = file_of(workspace, &edge.source);
        for span in spans(workspace, edge, &mut maps) {
            found
                .entry(file)
                .or_default()
                .insert((span.start, span.end));
        }
    }
    found
}

/// Where a record's `id` value is, else the top of its file.
fn id_location(workspace: &Workspace, record: usize) -> (usize, Span) {
    #[allow(clippy::indexing_slicing)]
    // Record, file and collection indices come from the corpus and schemas they index.
    let file = workspace.corpus.records[record].file;
    let span = workspace.source_map(file).get("/id").map_or(0..0, |node| {
        scalar_content(workspace.text(file), node.value.clone())
    });
    (file, span)
}

// File indices come from the workspace's corpus.
#[allow(clippy::indexing_slicing)]
fn location(workspace: &Workspace, file: usize, span: &Span) -> Option<Location> {
    Some(Location {
        uri: convert::uri(&workspace.corpus.files[file].path)?,
        range: convert::range(workspace.buffer(file), span),
    })
}

/// The target of the reference under the cursor, or else the record (or page) of the file
/// itself.
fn subject(workspace: &Workspace, file: usize, offset: usize) -> Option<Target> {
    let corpus = &workspace.corpus;
    match at(workspace, file, offset) {
        Some((_, target)) => Some(target),
        None => corpus.record_of_file(file).map(Target::Record).or_else(|| {
            let page = corpus.docs.iter().position(|doc| doc.file == file);
            page.map(Target::Doc)
        }),
    }
}

/// Hover on a reference: the target's name, qualified id, collection, status and the first
/// sentence of its summary.
// Record, doc, file and collection indices come from the corpus and schemas they index.
#[allow(clippy::indexing_slicing)]
pub fn hover(workspace: &Workspace, file: usize, offset: usize) -> Option<Hover> {
    let (span, target) = at(workspace, file, offset)?;
    let markdown = match target {
        Target::Record(record) => {
            let record = &workspace.corpus.records[record];
            let folder = &workspace.project.schemas.collections[record.collection].folder;
            let text = |field: &str| record.value.get(field).and_then(Value::as_str);
            let mut lines = vec![format!(
                "**{}** `{folder}/{}`",
                text("name").unwrap_or(&record.id),
                record.id
            )];
            let mut facts = vec![format!("collection `{folder}`")];
            if let Some(status) = text("status") {
                facts.push(format!("status `{status}`"));
            }
            lines.push(facts.join(" · "));
            if let Some(summary) = SUMMARY_FIELDS.iter().find_map(|f| text(f)) {
                lines.push(first_sentence(summary));
            }
            lines.join("\n\n")
        }
        Target::Doc(doc) => {
            let file = &workspace.corpus.files[workspace.corpus.docs[doc].file];
            format!("page `{}`", file.display)
        }
        Target::File => return None,
    };
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: markdown,
        }),
        range: Some(convert::range(workspace.buffer(file), &span)),
    })
}

/// The first sentence of a text, on one line.
fn first_sentence(text: &str) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match flat.find(". ").and_then(|end| flat.get(..=end)) {
        Some(sentence) => sentence.to_string(),
        None => flat,
    }
}

/// Go-to-definition: the `id` of the record a reference names, or the page a link names.
// Record, doc, file and collection indices come from the corpus and schemas they index.
#[allow(clippy::indexing_slicing)]
pub fn definition(workspace: &Workspace, file: usize, offset: usize) -> Option<Location> {
    let (_, target) = at(workspace, file, offset)?;
    match target {
        Target::Record(record) => {
            let (file, span) = id_location(workspace, record);
            location(workspace, file, &span)
        }
        Target::Doc(doc) => location(workspace, workspace.corpus.docs[doc].file, &(0..0)),
        Target::File => None,
    }
}

/// Find-references: every reference to the record (or page) under the cursor, or to the
/// record of the current file; with the declaration, its `id` first.
pub fn references(
    workspace: &Workspace,
    file: usize,
    offset: usize,
    include_declaration: bool,
) -> Vec<Location> {
    let Some(target) = subject(workspace, file, offset) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    if let (true, Target::Record(record)) = (include_declaration, target) {
        let (file, span) = id_location(workspace, record);
        found.extend(location(workspace, file, &span));
    }
    for (file, spans) in citations(workspace, target) {
        found.extend(
            spans
                .into_iter()
                .filter_map(|(start, end)| location(workspace, file, &(start..end))),
        );
    }
    found
}

/// Rename a record: its file, its `id` and every reference and wiki-link to it, as one edit.
/// The record is the one named under the cursor, or the current file's when the cursor is on
/// its `id`.
// Record, file and collection indices come from the corpus and schemas they index.
#[allow(clippy::indexing_slicing)]
pub fn rename(
    workspace: &Workspace,
    file: usize,
    offset: usize,
    new_id: &str,
) -> Result<WorkspaceEdit, String> {
    let record = match at(workspace, file, offset) {
        Some((_, Target::Record(record))) => record,
        Some(_) => return Err("only records can be renamed".into()),
        None => {
            let own = workspace.corpus.record_of_file(file).filter(|&record| {
                let (_, span) = id_location(workspace, record);
                span.start <= offset && offset <= span.end && !span.is_empty()
            });
            own.ok_or("put the cursor on a record id or a reference to one")?
        }
    };
    let schemas = &workspace.project.schemas;
    let renamed = &workspace.corpus.records[record];
    let collection = &schemas.collections[renamed.collection];
    if !collection.id_pattern.is_match(new_id) {
        return Err(format!(
            "`{new_id}` does not match the id pattern `{}`",
            collection.id_pattern.as_str()
        ));
    }
    if workspace
        .corpus
        .records
        .iter()
        .any(|r| r.collection == renamed.collection && r.id == new_id)
    {
        return Err(format!("`{}/{new_id}` already exists", collection.folder));
    }
    // A bare id is resolved among the collections a field allows, a bare wiki-link among
    // pages first: an id another collection or a page has would make references written
    // bare name something else, or nothing for sure.
    if let Some(other) = workspace.corpus.records.iter().find(|r| r.id == new_id) {
        return Err(format!(
            "`{new_id}` is the id of `{}` already: references written bare could name either",
            schemas.qualified_id(other)
        ));
    }
    if let Some(page) = workspace.corpus.docs.iter().find(|d| d.stem == new_id) {
        return Err(format!(
            "`{new_id}` names the page {} already: a wiki-link `[[{new_id}]]` would lead there",
            workspace.corpus.files[page.file].display
        ));
    }
    let mut edits: BTreeMap<usize, Vec<TextEdit>> = BTreeMap::new();
    let (id_file, id_span) = id_location(workspace, record);
    if !id_span.is_empty() {
        edits.entry(id_file).or_default().push(TextEdit {
            range: convert::range(workspace.buffer(id_file), &id_span),
            new_text: new_id.to_string(),
        });
    }
    let old_path = &workspace.corpus.files[renamed.file].path;
    let extension = old_path
        .extension()
        .map(|e| e.to_string_lossy().into_owned())
        .unwrap_or_default();
    let new_name = format!("{new_id}.{extension}");
    let new_path = old_path.with_file_name(&new_name);
    // An id is written again as the new id, qualified as it was; a link to the record's
    // file (in prose or in a string field) with the file's new name, in its folder.
    let mut maps = Maps::default();
    let target = Target::Record(record);
    for edge in workspace.edges().filter(|e| e.target == target) {
        let file = file_of(workspace, &edge.source);
        let to_file = matches!(
            edge.source,
            Source::Link {
                kind: LinkKind::File,
                ..
            } | Source::FieldLink {
                kind: LinkKind::File,
                ..
            }
        );
        for span in spans(workspace, edge, &mut maps) {
            let text = workspace.text(file);
            let written = text.get(span.clone()).unwrap_or_default();
            let new_text = if to_file {
                match written.rsplit_once('/') {
                    Some((folder, _)) => format!("{folder}/{new_name}"),
                    None => new_name.clone(),
                }
            } else {
                match written.split_once('/') {
                    Some((folder, _)) => format!("{folder}/{new_id}"),
                    None => new_id.to_string(),
                }
            };
            let edit = TextEdit {
                range: convert::range(workspace.buffer(file), &span),
                new_text,
            };
            let edits = edits.entry(file).or_default();
            if !edits.contains(&edit) {
                edits.push(edit);
            }
        }
    }
    let mut operations = Vec::new();
    for (file, mut edits) in edits {
        edits.sort_by_key(|edit| (edit.range.start.line, edit.range.start.character));
        let path = &workspace.corpus.files[file].path;
        operations.push(DocumentChangeOperation::Edit(TextDocumentEdit {
            text_document: OptionalVersionedTextDocumentIdentifier {
                uri: convert::uri(path).ok_or("a path that is no URI")?,
                version: workspace.version(path),
            },
            edits: edits.into_iter().map(OneOf::Left).collect(),
        }));
    }
    if new_path != *old_path {
        operations.push(DocumentChangeOperation::Op(ResourceOp::Rename(
            RenameFile {
                old_uri: convert::uri(old_path).ok_or("a path that is no URI")?,
                new_uri: convert::uri(&new_path).ok_or("a path that is no URI")?,
                options: None,
                annotation_id: None,
            },
        )));
    }
    Ok(WorkspaceEdit {
        document_changes: Some(DocumentChanges::Operations(operations)),
        ..WorkspaceEdit::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_sentence_stops_at_the_first_full_stop_and_joins_lines() {
        assert_eq!(
            first_sentence("The cache\nis stale. Then more."),
            "The cache is stale."
        );
        assert_eq!(first_sentence("v0.29 only"), "v0.29 only");
    }
}
