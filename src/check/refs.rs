//! Reference rules: every id in a reference field and every link in prose must name exactly
//! one record (or page) that the field may point at.

use std::collections::HashMap;

use rayon::prelude::*;

use crate::corpus::Corpus;
use crate::diagnostic::{Anchor, Applicability, Diagnostic, Edit, Fix};
use crate::index::{Cites, IdIndex, Problem, Source, Unresolved};
use crate::links::LinkKind;
use crate::rules;
use crate::schema::Schemas;
use crate::suggest::{self, MatchKind};

/// Diagnostics for every reference that did not resolve.
pub fn check<F: Cites>(
    corpus: &Corpus<F>,
    schemas: &Schemas,
    index: &IdIndex<'_, F>,
    unresolved: &[Unresolved],
) -> Vec<Diagnostic> {
    // The same unknown id is often cited many times; suggest once per id and field, for
    // the distinct ones in parallel (each look-up reads the index only, built beforehand
    // as `IdIndex::names` explains).
    let mut wanted: Vec<(&str, &[usize])> = unresolved
        .iter()
        .filter(|reference| reference.problem == Problem::Unresolved)
        .map(|reference| (reference.text.as_str(), reference.allowed))
        .collect();
    wanted.sort_unstable();
    wanted.dedup();
    if !wanted.is_empty() {
        index.names();
    }
    let suggested: HashMap<(&str, &[usize]), Suggestions<'_>> = wanted
        .into_par_iter()
        .map(|(text, allowed)| ((text, allowed), index.suggest(text, allowed)))
        .collect();
    let none = Suggestions::new();
    unresolved
        .par_iter()
        .map(|reference| {
            let suggestions = suggested
                .get(&(reference.text.as_str(), reference.allowed))
                .unwrap_or(&none);
            diagnose(corpus, schemas, index, reference, suggestions)
        })
        .collect()
}

type Suggestions<'c> = Vec<(suggest::Suggestion<'c>, usize)>;

// Record, file and collection indices come from the corpus and schemas they index.
#[allow(clippy::indexing_slicing)]
fn diagnose<F: Cites>(
    corpus: &Corpus<F>,
    schemas: &Schemas,
    index: &IdIndex<'_, F>,
    reference: &Unresolved,
    suggestions: &Suggestions<'_>,
) -> Diagnostic {
    let (file, anchor, what, link) = match &reference.source {
        Source::Field {
            record,
            field,
            pointer,
        } => (
            corpus.records[*record].file,
            Anchor::Value(pointer.to_string()),
            format!("`{field}`"),
            None,
        ),
        Source::FieldLink {
            record,
            pointer,
            kind,
        } => (
            corpus.records[*record].file,
            Anchor::Within {
                pointer: pointer.to_string(),
                needle: reference.text.clone(),
            },
            "a link".to_string(),
            Some(*kind),
        ),
        Source::Link { file, span, kind } => (
            *file,
            Anchor::Span(span.clone()),
            "a link".to_string(),
            Some(*kind),
        ),
    };
    let display = &corpus.files[file].display;
    let text = &reference.text;
    let is_link = link.is_some();
    let allowed = allowed_folders(schemas, reference.allowed);
    match &reference.problem {
        Problem::Unresolved => {
            let (code, message, label) = match link {
                Some(LinkKind::File) => (
                    rules::BROKEN_LINK,
                    format!("the link to `{text}` points at no file"),
                    "no such file",
                ),
                Some(LinkKind::Wiki) => (
                    rules::BROKEN_LINK,
                    format!("the wiki-link `[[{text}]]` names no record or page"),
                    "no record or page has this id",
                ),
                None => (
                    rules::UNRESOLVED_REF,
                    format!("`{text}` in {what} names no record"),
                    "no record has this id",
                ),
            };
            let mut diagnostic = Diagnostic::new(code, display, message)
                .at(anchor.clone())
                .with_label(label);
            if link == Some(LinkKind::File) {
                return diagnostic.with_help("fix the path; it is relative to the linking file");
            }
            let help = index.did_you_mean(suggestions);
            // A field's allowed collections are worth naming; a wiki-link's are all of them.
            let field_allows =
                (!is_link).then(|| format!("{what} may point at records in {allowed}"));
            diagnostic = match (help, field_allows) {
                (Some(help), Some(allows)) => diagnostic.with_help(help).with_note(allows),
                (Some(help), None) => diagnostic.with_help(help),
                (None, Some(allows)) => diagnostic.with_help(allows),
                (None, None) => diagnostic.with_help("link to an existing record id or page stem"),
            };
            if let Some(replacement) = certain_fix(index, text, reference.allowed, suggestions) {
                diagnostic = diagnostic.with_fix(Fix {
                    applicability: Applicability::MachineApplicable,
                    edits: vec![Edit {
                        anchor,
                        replacement,
                    }],
                });
            }
            diagnostic
        }
        Problem::WrongTarget(found) => {
            let kinds: Vec<String> = found.iter().map(|&r| index.qualified_id(r)).collect();
            Diagnostic::new(
                rules::WRONG_TARGET,
                display,
                format!("`{text}` in {what} names {}, which {what} cannot point at", kinds.join(" and ")),
            )
            .at(anchor)
            .with_label("a record of the wrong collection")
            .with_note(format!("{what} may point at records in {allowed}"))
            .with_help("use the id of a record of an allowed collection, or allow the collection in the schema's `x-ref`")
        }
        Problem::Ambiguous(candidates) => {
            let qualified: Vec<String> =
                candidates.iter().map(|&r| index.qualified_id(r)).collect();
            let mut diagnostic = Diagnostic::new(
                rules::AMBIGUOUS_REF,
                display,
                format!(
                    "`{text}` in {what} could name any of {}",
                    qualified.join(", ")
                ),
            )
            .at(anchor.clone())
            .with_label("ambiguous id")
            .with_help(format!(
                "qualify it, for example `{}`",
                qualified.first().cloned().unwrap_or_default()
            ));
            if let Some(first) = qualified.first() {
                diagnostic = diagnostic.with_fix(Fix {
                    applicability: Applicability::MaybeIncorrect,
                    edits: vec![Edit {
                        anchor,
                        replacement: first.clone(),
                    }],
                });
            }
            if is_link {
                diagnostic = diagnostic.with_note("a wiki-link may point at any collection");
            }
            diagnostic
        }
    }
}

/// The replacement `--fix` may apply: the only typo-distance candidate in an allowed
/// collection, written as the original was (bare or qualified), and only if it resolves
/// to that one record.
fn certain_fix<F: Cites>(
    index: &IdIndex<'_, F>,
    text: &str,
    allowed: &[usize],
    suggestions: &[(suggest::Suggestion<'_>, usize)],
) -> Option<String> {
    let typos: Vec<suggest::Suggestion<'_>> = suggestions
        .iter()
        .filter(|(s, _)| s.kind == MatchKind::Typo)
        .map(|(s, _)| s.clone())
        .collect();
    let best = suggest::certain(text.rsplit('/').next().unwrap_or(text), &typos)?;
    let (_, record) = suggestions.iter().find(|(s, _)| s.name == best.name)?;
    let replacement = if text.contains('/') {
        index.qualified_id(*record)
    } else {
        best.name.to_string()
    };
    (index.resolve(&replacement, allowed) == Ok(*record)).then_some(replacement)
}

// Allowed collections are indices of the schemas.
#[allow(clippy::indexing_slicing)]
fn allowed_folders(schemas: &Schemas, allowed: &[usize]) -> String {
    allowed
        .iter()
        .map(|&c| format!("{}/", schemas.collections[c].folder))
        .collect::<Vec<_>>()
        .join(", ")
}
