//! Completion: record ids in reference fields and inside `[[...]]`, enum values in enum
//! fields.
//!
//! The text being typed rarely parses, so the context is read from the text before the cursor
//! alone: for YAML (and Markdown front matter) the key of the line or of the enclosing block,
//! found by indentation; for JSON the keys of the containers the cursor is inside, found by
//! scanning the text up to it. The field path found is matched against the collection's
//! reference fields and its schema, so `affects` offers engines only.

use lsp_types::{
    CompletionItem, CompletionItemKind, CompletionList, CompletionTextEdit, Range, TextEdit,
};
use serde_json::Value;

use super::convert;
use super::workspace::Workspace;
use crate::load::markdown;
use crate::source::Format;

/// Most items sent at once; the list is marked incomplete past it, so the editor asks again
/// as more is typed.
const MAX_ITEMS: usize = 200;

/// Characters that end the word being completed.
const DELIMITERS: &[char] = &[' ', '\t', '[', ']', ',', ':', '"', '\'', '{', '}'];

/// What the cursor is in.
#[derive(Debug, PartialEq, Eq)]
enum Context {
    /// Inside `[[...`: any record or page.
    Wiki,
    /// A value of a record's field.
    Field {
        /// The record's collection.
        collection: usize,
        /// The field's path of object keys (arrays looked through).
        path: Vec<String>,
        /// Whether the value must be quoted (JSON, typed outside quotes).
        quote: bool,
    },
}

/// The completions at `offset` in `file`.
pub fn complete(workspace: &Workspace, file: usize, offset: usize) -> Option<CompletionList> {
    let text = workspace.text(file);
    let offset = crate::source::floor_char_boundary(text, offset);
    let before = text.get(..offset)?;
    let line_start = crate::source::line_start(text, offset);
    let line = before.get(line_start..)?;
    let (context, start) = match wiki_start(line) {
        Some(at) => (Context::Wiki, line_start + at),
        None => {
            let collection = (*workspace.corpus.file_collections.get(file)?)?;
            let source = workspace.corpus.files.get(file)?;
            let format = Format::from_extension(source.path.extension()?.to_str()?)?;
            let path = match format {
                Format::Json => json_path(before)?,
                Format::Yaml => yaml_path(text, offset)?,
                Format::Markdown => {
                    let front = markdown::split_front_matter(text).ok()?;
                    if !(front.yaml.start <= offset && offset <= front.yaml.end) {
                        return None;
                    }
                    yaml_path(text, offset)?
                }
            };
            let word = line
                .rfind(DELIMITERS)
                .map_or(line_start, |i| line_start + i + 1);
            // In JSON a value typed outside quotes gets them with the completion.
            let quote = format == Format::Json && !before.get(..word)?.ends_with('"');
            (
                Context::Field {
                    collection,
                    path,
                    quote,
                },
                word,
            )
        }
    };
    let prefix = text.get(start..offset)?;
    let range = convert::range(workspace.buffer(file), &(start..offset));
    let (candidates, quote) = match context {
        Context::Wiki => (wiki_candidates(workspace), false),
        Context::Field {
            collection,
            path,
            quote,
        } => (field_candidates(workspace, collection, &path), quote),
    };
    Some(list(candidates, prefix, range, quote))
}

/// A completion before it is filtered: the text to insert, what it is, its kind.
struct Candidate {
    insert: String,
    detail: String,
    kind: CompletionItemKind,
}

fn list(candidates: Vec<Candidate>, prefix: &str, range: Range, quote: bool) -> CompletionList {
    let prefix = prefix.to_lowercase();
    let mut matching: Vec<(bool, Candidate)> = candidates
        .into_iter()
        .filter_map(|c| {
            let insert = c.insert.to_lowercase();
            let bare = insert.rsplit('/').next().unwrap_or(&insert);
            if insert.starts_with(&prefix) || bare.starts_with(&prefix) {
                Some((false, c))
            } else if insert.contains(&prefix) {
                Some((true, c))
            } else {
                None
            }
        })
        .collect();
    matching.sort_by(|a, b| (a.0, &a.1.insert).cmp(&(b.0, &b.1.insert)));
    let is_incomplete = matching.len() > MAX_ITEMS;
    let items = matching
        .into_iter()
        .take(MAX_ITEMS)
        .enumerate()
        .map(|(rank, (_, c))| CompletionItem {
            label: c.insert.clone(),
            kind: Some(c.kind),
            detail: Some(c.detail),
            sort_text: Some(format!("{rank:05}")),
            filter_text: Some(c.insert.clone()),
            text_edit: Some(CompletionTextEdit::Edit(TextEdit {
                range,
                new_text: if quote {
                    format!("\"{}\"", c.insert)
                } else {
                    c.insert
                },
            })),
            ..CompletionItem::default()
        })
        .collect();
    CompletionList {
        is_incomplete,
        items,
    }
}

/// Every record by qualified id, and every prose page by stem.
// Record, doc, file and collection indices come from the corpus and schemas they index.
#[allow(clippy::indexing_slicing)]
fn wiki_candidates(workspace: &Workspace) -> Vec<Candidate> {
    let schemas = &workspace.project.schemas;
    let mut candidates: Vec<Candidate> = workspace
        .corpus
        .records
        .iter()
        .map(|record| Candidate {
            insert: schemas.qualified_id(record),
            detail: name(record),
            kind: CompletionItemKind::REFERENCE,
        })
        .collect();
    candidates.extend(workspace.corpus.docs.iter().map(|doc| Candidate {
        insert: doc.stem.clone(),
        detail: workspace.corpus.files[doc.file].display.clone(),
        kind: CompletionItemKind::FILE,
    }));
    candidates
}

fn name(record: &crate::load::Record) -> String {
    record
        .value
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or(&record.id)
        .to_string()
}

/// The ids a reference field may hold (bare unless another allowed collection has the same
/// id), or the values an enum field allows.
// Record, file and collection indices come from the corpus and schemas they index.
#[allow(clippy::indexing_slicing)]
fn field_candidates(workspace: &Workspace, collection: usize, path: &[String]) -> Vec<Candidate> {
    let schemas = &workspace.project.schemas;
    let owner = &schemas.collections[collection];
    if let Some(reference) = owner.references.iter().find(|r| r.path == path) {
        let allowed: Vec<&crate::load::Record> = workspace
            .corpus
            .records
            .iter()
            .filter(|r| reference.targets.contains(&r.collection))
            .collect();
        let mut seen: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
        for record in &allowed {
            *seen.entry(record.id.as_str()).or_default() += 1;
        }
        return allowed
            .iter()
            .map(|record| Candidate {
                insert: if seen.get(record.id.as_str()) == Some(&1) {
                    record.id.clone()
                } else {
                    schemas.qualified_id(record)
                },
                detail: name(record),
                kind: CompletionItemKind::REFERENCE,
            })
            .collect();
    }
    crate::schema::enum_values(&owner.schema, path)
        .into_iter()
        .map(|value| Candidate {
            insert: value,
            detail: format!("`{}` value", path.join(".")),
            kind: CompletionItemKind::ENUM_MEMBER,
        })
        .collect()
}

/// Where the target of an unclosed `[[` on the line starts, if the cursor is in one.
fn wiki_start(line: &str) -> Option<usize> {
    let open = line.rfind("[[")?;
    let inside = line.get(open + 2..)?;
    (!inside.contains("]]") && !inside.contains('|')).then_some(open + 2)
}

/// The keys of the containers the cursor is in, in JSON text cut at the cursor; `None` when
/// the cursor is on a key rather than a value.
fn json_path(before: &str) -> Option<Vec<String>> {
    enum Frame {
        Object { key: Option<String>, on_key: bool },
        Array,
    }
    let mut stack: Vec<Frame> = Vec::new();
    let mut string: Option<String> = None;
    let mut escaped = false;
    for c in before.chars() {
        if let Some(s) = &mut string {
            if escaped {
                escaped = false;
                s.push(c);
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                let done = string.take().unwrap_or_default();
                if let Some(Frame::Object { key, on_key: true }) = stack.last_mut() {
                    *key = Some(done);
                }
            } else {
                s.push(c);
            }
            continue;
        }
        match c {
            '"' => string = Some(String::new()),
            '{' => stack.push(Frame::Object {
                key: None,
                on_key: true,
            }),
            '[' => stack.push(Frame::Array),
            '}' | ']' => {
                stack.pop();
            }
            ':' => {
                if let Some(Frame::Object { on_key, .. }) = stack.last_mut() {
                    *on_key = false;
                }
            }
            ',' => {
                if let Some(Frame::Object { key, on_key }) = stack.last_mut() {
                    *key = None;
                    *on_key = true;
                }
            }
            _ => {}
        }
    }
    if let Some(Frame::Object { on_key: true, .. }) = stack.last() {
        return None;
    }
    stack
        .iter()
        .filter_map(|frame| match frame {
            Frame::Object { key, .. } => Some(key.clone()),
            Frame::Array => None,
        })
        .collect()
}

/// A YAML line's key: its indentation (of the key, after any `- `), the key and what
/// follows the colon.
fn key_of(line: &str) -> Option<(usize, &str, &str)> {
    let trimmed = line.trim_start_matches(' ');
    let mut indent = line.len() - trimmed.len();
    let trimmed = match trimmed.strip_prefix("- ") {
        Some(rest) => {
            indent += 2;
            rest
        }
        None => trimmed,
    };
    let colon = trimmed.find(':')?;
    let key = trimmed.get(..colon)?;
    let rest = trimmed.get(colon + 1..)?;
    let is_key = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '-');
    (is_key && (rest.is_empty() || rest.starts_with(' '))).then_some((indent, key, rest))
}

/// The field path of the value being typed at `offset` in YAML: the key of the line
/// (`affects: [vllm, |`, `severity: |`) or of the block a `- |` item belongs to, with the
/// keys of the mappings around it.
fn yaml_path(text: &str, offset: usize) -> Option<Vec<String>> {
    let line_start = crate::source::line_start(text, offset);
    let line = text.get(line_start..offset)?;
    let word = line.rfind(DELIMITERS).map_or(0, |i| i + 1);
    let before = line.get(..word)?;
    let previous = text.get(..line_start)?.split(['\n', '\r']).rev();
    if let Some((indent, key, rest)) = key_of(before) {
        let rest = rest.trim_start();
        let in_flow = rest.starts_with('[') && !rest.contains(']');
        let scalar = rest.is_empty() || rest == "\"" || rest == "'";
        if !(in_flow || scalar) {
            return None;
        }
        let mut path = parents(previous, indent);
        path.push(key.to_string());
        return Some(path);
    }
    let dash = before.trim_start_matches(' ');
    if dash.trim_end_matches(['"', '\'']).trim_end() != "-" {
        return None;
    }
    let indent = before.len() - dash.len();
    let mut lines = previous;
    for candidate in lines.by_ref() {
        let content = candidate.trim_start_matches(' ');
        let at = candidate.len() - content.len();
        if content.is_empty() || content.starts_with('#') || at > indent {
            continue;
        }
        if at == indent && content.starts_with('-') {
            continue;
        }
        let (key_indent, key, rest) = key_of(candidate)?;
        if !rest.trim().is_empty() {
            return None;
        }
        let mut path = parents(lines, key_indent);
        path.push(key.to_string());
        return Some(path);
    }
    None
}

/// The keys of the mappings enclosing a key indented by `indent`, outermost first, read from
/// the lines above it (nearest first).
fn parents<'t>(lines: impl Iterator<Item = &'t str>, mut indent: usize) -> Vec<String> {
    let mut keys = Vec::new();
    for line in lines {
        if indent == 0 {
            break;
        }
        if let Some((at, key, rest)) = key_of(line)
            && at < indent
            && rest.trim().is_empty()
        {
            keys.push(key.to_string());
            indent = line.len() - line.trim_start_matches(' ').len();
        }
    }
    keys.reverse();
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    fn yaml(text_with_cursor: &str) -> Option<Vec<String>> {
        let offset = text_with_cursor.find('|').unwrap();
        let text = text_with_cursor.replacen('|', "", 1);
        yaml_path(&text, offset)
    }

    #[test]
    fn yaml_paths_from_flow_block_and_scalar_positions() {
        assert_eq!(
            yaml("id: x\naffects: [vllm, moon|"),
            Some(vec!["affects".into()])
        );
        assert_eq!(yaml("affects: [|"), Some(vec!["affects".into()]));
        assert_eq!(yaml("sources:\n  - a\n  - |"), Some(vec!["sources".into()]));
        assert_eq!(yaml("sources:\n- |"), Some(vec!["sources".into()]));
        assert_eq!(yaml("severity: ma|"), Some(vec!["severity".into()]));
        assert_eq!(
            yaml("flops:\n  - source_id: |"),
            Some(vec!["flops".into(), "source_id".into()])
        );
        assert_eq!(
            yaml("meta:\n  owner:\n    - |"),
            Some(vec!["meta".into(), "owner".into()])
        );
        assert_eq!(yaml("affects: [a] |"), None);
        assert_eq!(yaml("name: some words|"), None);
    }

    #[test]
    fn json_paths_follow_open_containers() {
        assert_eq!(
            json_path(r#"{"id": "x", "affects": ["vllm", "moo"#),
            Some(vec!["affects".into()])
        );
        assert_eq!(
            json_path(r#"{"flops": [{"source_id": ""#),
            Some(vec!["flops".into(), "source_id".into()])
        );
        assert_eq!(json_path(r#"{"affects": ["a"], "sev"#), None);
        assert_eq!(
            json_path(r#"{"a\"b": {"c": ["#),
            Some(vec!["a\"b".into(), "c".into()])
        );
    }

    #[test]
    fn wiki_start_only_in_an_unclosed_target() {
        assert_eq!(wiki_start("see [[eng"), Some(6));
        assert_eq!(wiki_start("see [[a]] and"), None);
        assert_eq!(wiki_start("see [[a|lab"), None);
    }
}
