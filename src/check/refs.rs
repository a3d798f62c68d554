//! Reference rules: every id in a reference field and every link in prose must name exactly
//! one record (or page) that the field may point at.

use std::collections::HashMap;

use rayon::prelude::*;

use crate::corpus::Corpus;
use crate::diagnostic::{Anchor, Applicability, Diagnostic, Edit, Fix, Label};
use crate::index::{Cites, IdIndex, Problem, Source, Unresolved};
use crate::links::LinkKind;
use crate::rules;
use crate::schema::Schemas;
use crate::suggest::{self, MatchKind};

use super::Reported;

/// Diagnostics for every reference that did not resolve, written in a file `reported`
/// accepts if it is given (see [`super::Resolving::finish`]).
pub fn check<F: Cites>(
    corpus: &Corpus<F>,
    schemas: &Schemas,
    index: &IdIndex<'_, F>,
    unresolved: &[Unresolved],
    reported: Option<&Reported<'_>>,
) -> Vec<Diagnostic> {
    // A reference's diagnostic points into its own file only, so a caller that reports
    // some files (a changed-files check) drops the others' unseen: they are not made, nor
    // their did-you-mean looked up, which is most of this stage's time.
    let unresolved: Vec<&Unresolved> = unresolved
        .iter()
        .filter(|reference| reported.is_none_or(|reported| reported(reference.source.file(corpus))))
        .collect();
    // The same unknown id is often cited many times; suggest once per id and field, for
    // the distinct ones in parallel (each look-up reads the index only, built beforehand
    // as `IdIndex::names` explains).
    let mut wanted: Vec<(&str, &[usize])> = unresolved
        .iter()
        .filter_map(|reference| looked_up(index, reference))
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
            let suggestions = looked_up(index, reference)
                .and_then(|key| suggested.get(&key))
                .unwrap_or(&none);
            diagnose(corpus, schemas, index, reference, suggestions)
        })
        .collect()
}

/// The id a reference that did not resolve is looked up by for a did-you-mean, with the
/// collections it may name: an unknown id as written, unless its record's file is there and
/// did not load ([`IdIndex::unloaded_file`]); for a record of the wrong
/// collection, its bare id, as a record of an allowed collection may be a typo away
/// (`affects: [lmcache]`, meaning engines/lm-cache, where sources/lmcache exists), unless
/// the id is qualified and its bare id names a record the field allows, which is what it
/// means ([`meant_instead`]). An ambiguous id names records already.
fn looked_up<'r, F: Cites>(
    index: &IdIndex<'_, F>,
    reference: &'r Unresolved,
) -> Option<(&'r str, &'static [usize])> {
    let text = reference.text.as_str();
    match reference.problem {
        Problem::Unresolved => {
            (unloaded_file(index, reference).is_none()).then_some((text, reference.allowed))
        }
        Problem::WrongTarget(_) => {
            let bare = bare_id(text);
            (bare == text || index.resolve(bare, reference.allowed).is_err())
                .then_some((bare, reference.allowed))
        }
        Problem::Ambiguous(_) | Problem::AmbiguousPage(_) => None,
    }
}

/// `engines/vllm` -> `vllm`; a bare id as it is.
fn bare_id(text: &str) -> &str {
    text.rsplit('/').next().unwrap_or(text)
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
            place,
        } => (
            corpus.records[*record].file,
            Anchor::Within {
                pointer: pointer.to_string(),
                needle: reference.text.clone(),
                place: *place as usize,
                from: 0,
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
    // The look-up is shared by every reference to the same id, the citing record's own
    // included, which is never what it meant to cite.
    let citing = match &reference.source {
        Source::Field { record, .. } | Source::FieldLink { record, .. } => Some(*record),
        Source::Link { .. } => None,
    };
    let suggestions: &Suggestions<'_> = &suggestions
        .iter()
        .filter(|(_, record)| Some(*record) != citing)
        .cloned()
        .collect();
    match &reference.problem {
        Problem::Unresolved => {
            if let Some(unloaded) = unloaded_file(index, reference) {
                let unloaded = &corpus.files[unloaded].display;
                return not_loaded(display, anchor, &what, link, text, unloaded);
            }
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
            // When no id the field may cite is close, the look-up offers close ids it may
            // not: said as such, as following them would make the reference wrong-target.
            let elsewhere = !suggestions.is_empty()
                && suggestions.iter().all(|(_, record)| {
                    !reference
                        .allowed
                        .contains(&corpus.records[*record].collection)
                });
            let help = if elsewhere {
                let named: Vec<String> = suggestions
                    .iter()
                    .map(|(s, record)| format!("{} ({})", s.name, index.qualified_id(*record)))
                    .collect();
                Some(format!(
                    "no close id is in {allowed}; close ids of records {what} cannot point at: {}",
                    named.join(", ")
                ))
            } else {
                index.did_you_mean(suggestions).or_else(|| {
                    (link == Some(LinkKind::Wiki))
                        .then(|| index.did_you_mean_page(text))
                        .flatten()
                })
            };
            // A field's allowed collections are worth naming; a wiki-link's are all of them.
            let field_allows =
                (!is_link).then(|| format!("{what} may point at records in {allowed}"));
            diagnostic = match (help, field_allows) {
                (Some(help), Some(allows)) => diagnostic.with_help(help).with_note(allows),
                (Some(help), None) => diagnostic.with_help(help),
                (None, Some(allows)) => diagnostic.with_help(allows),
                (None, None) => diagnostic.with_help("link to an existing record id or page stem"),
            };
            for note in look_alike_notes(text, suggestions) {
                diagnostic = diagnostic.with_note(note);
            }
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
            let diagnostic = Diagnostic::new(
                rules::WRONG_TARGET,
                display,
                format!(
                    "`{text}` in {what} names {}, which {what} cannot point at",
                    kinds.join(" and ")
                ),
            )
            .at(anchor.clone())
            .with_label("a record of the wrong collection")
            .with_note(format!("{what} may point at records in {allowed}"));
            let Some((help, replacement)) = meant_instead(corpus, index, reference, suggestions)
            else {
                return diagnostic.with_help("use the id of a record of an allowed collection, or allow the collection where the field's references are declared (its `x-ref`, or `[references]` in the config)");
            };
            let diagnostic = diagnostic
                .with_note(format!(
                    "if {} is meant, allow its collection where the field's references are declared",
                    kinds.join(" or ")
                ))
                .with_help(help);
            // The record named exists, so whether the field or the schema is wrong is the
            // author's call: the fix is offered, never applied by `--fix`.
            match replacement {
                Some(replacement) => diagnostic.with_fix(Fix {
                    applicability: Applicability::MaybeIncorrect,
                    edits: vec![Edit {
                        anchor,
                        replacement,
                    }],
                }),
                None => diagnostic,
            }
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
        Problem::AmbiguousPage(pages) => {
            ambiguous_page(corpus, index, display, anchor, text, pages)
        }
    }
}

/// The diagnostic of a wiki-link naming several prose pages (`[[setup]]` where
/// `docs/linux/setup.md` and `docs/windows/setup.md` both exist): the same rule as an id
/// several collections have, with the first page's path offered as the fix.
// Doc and file indices come from the corpus the index was built from.
#[allow(clippy::indexing_slicing)]
fn ambiguous_page<F: Cites>(
    corpus: &Corpus<F>,
    index: &IdIndex<'_, F>,
    display: &str,
    anchor: Anchor,
    text: &str,
    pages: &[usize],
) -> Diagnostic {
    let files: Vec<&str> = pages
        .iter()
        .map(|&doc| corpus.files[corpus.docs[doc].file].display.as_str())
        .collect();
    let diagnostic = Diagnostic::new(
        rules::AMBIGUOUS_REF,
        display,
        format!(
            "the wiki-link `[[{text}]]` could name any of the pages {}",
            files.join(", ")
        ),
    )
    .at(anchor.clone())
    .with_label("several pages have this name")
    .with_note("a wiki-link names a page by its stem, or by its path below its `docs` folder or from the root");
    let Some(name) = pages.first().and_then(|&doc| index.page_name(doc)) else {
        return diagnostic.with_help("name the page by its path");
    };
    diagnostic
        .with_help(format!("name the page by its path, for example `{name}`"))
        .with_fix(Fix {
            applicability: Applicability::MaybeIncorrect,
            edits: vec![Edit {
                anchor,
                replacement: name.to_string(),
            }],
        })
}

/// The record file that would define the record an unresolved reference names, and did not
/// load ([`IdIndex::unloaded_file`]); never for a Markdown link, which names a file.
fn unloaded_file<F: Cites>(index: &IdIndex<'_, F>, reference: &Unresolved) -> Option<usize> {
    let names_file = matches!(
        &reference.source,
        Source::FieldLink {
            kind: LinkKind::File,
            ..
        } | Source::Link {
            kind: LinkKind::File,
            ..
        }
    );
    (!names_file && reference.problem == Problem::Unresolved)
        .then(|| index.unloaded_file(&reference.text, reference.allowed))
        .flatten()
}

/// The diagnostic of a reference to a record whose file, `unloaded`, did not load: the
/// record is there, so it is not said to be missing, and no other id is suggested or fixed
/// in (that would rewrite a right reference); the file's own error, which fails the check,
/// is what to fix, and the reference is checked once it loads. Said rather than left out,
/// so that a check of the citing file alone, or an editor showing it, tells why its
/// reference is not checked.
fn not_loaded(
    display: &str,
    anchor: Anchor,
    what: &str,
    link: Option<LinkKind>,
    text: &str,
    unloaded: &str,
) -> Diagnostic {
    let (code, message) = match link {
        Some(_) => (
            rules::BROKEN_LINK,
            format!("the wiki-link `[[{text}]]` names a record whose file did not load"),
        ),
        None => (
            rules::UNRESOLVED_REF,
            format!("`{text}` in {what} names a record whose file did not load"),
        ),
    };
    Diagnostic::new(code, display, message)
        .at(anchor)
        .with_label("its record's file did not load")
        .with_secondary(Label {
            file: unloaded.to_string(),
            anchor: Anchor::File,
            message: format!("would define `{}`, but did not load", bare_id(text)),
        })
        .with_help(format!(
            "fix the error in `{unloaded}` first; the reference is checked once it loads"
        ))
}

/// What tells an id written apart from the id suggested first, when they look alike: the
/// invisible characters either holds, and how the two differ if they read the same
/// ([`suggest::MatchKind::Same`]); a did-you-mean of two identical-looking ids says nothing
/// without them.
fn look_alike_notes(text: &str, suggestions: &Suggestions<'_>) -> Vec<String> {
    let written = bare_id(text);
    let first = suggestions.first().map(|(s, _)| s);
    let difference = first.filter(|s| s.kind == MatchKind::Same).and_then(|s| {
        crate::unicode::only_difference(("the id written here", written), ("the record's", s.name))
    });
    crate::unicode::invisible_note(written)
        .into_iter()
        .chain(first.and_then(|s| crate::unicode::invisible_note(s.name)))
        .chain(difference)
        .collect()
}

/// For a reference naming a record of a collection it may not point at, the record it
/// may point at that was likely meant: a `help:` naming it, and what to replace the
/// reference with, if it can be written so as to name that record alone. A qualified id
/// (`sources/vllm`) whose bare id names a record the field may point at was most likely
/// meant for that one (`engines/vllm`); otherwise the suggestions for the bare id, those
/// the field may point at only (the look-up offers close ids of other collections when
/// none fits, and the record named is one of them).
// Record indices come from the corpus the index was built from.
#[allow(clippy::indexing_slicing)]
fn meant_instead<F: Cites>(
    corpus: &Corpus<F>,
    index: &IdIndex<'_, F>,
    reference: &Unresolved,
    suggestions: &Suggestions<'_>,
) -> Option<(String, Option<String>)> {
    let text = reference.text.as_str();
    let allowed = reference.allowed;
    let bare = bare_id(text);
    if bare != text
        && let Ok(record) = index.resolve(bare, allowed)
    {
        let qualified = index.qualified_id(record);
        return Some((format!("did you mean {qualified}?"), Some(qualified)));
    }
    let fitting: Suggestions<'_> = suggestions
        .iter()
        .filter(|(_, record)| allowed.contains(&corpus.records[*record].collection))
        .cloned()
        .collect();
    // Shown, never applied, so the best suggestion is offered even where `--fix` would not
    // be sure of it.
    let best = fitting.first().and_then(|(suggestion, record)| {
        replacement(index, text, allowed, suggestion.name, *record)
    });
    Some((index.did_you_mean(&fitting)?, best))
}

/// The replacement `--fix` may apply: the only typo-distance candidate in an allowed
/// collection, or the id in the one folder nearest a misspelt one ([`suggest::certain`]),
/// written as the original was (bare or qualified), and only if it resolves to that one
/// record.
fn certain_fix<F: Cites>(
    index: &IdIndex<'_, F>,
    text: &str,
    allowed: &[usize],
    suggestions: &[(suggest::Suggestion<'_>, usize)],
) -> Option<String> {
    let near: Vec<suggest::Suggestion<'_>> = suggestions
        .iter()
        .filter(|(s, _)| s.kind != MatchKind::Words)
        .map(|(s, _)| s.clone())
        .collect();
    let best = suggest::certain(bare_id(text), &near)?;
    let (_, record) = suggestions.iter().find(|(s, _)| s.name == best.name)?;
    replacement(index, text, allowed, best.name, *record)
}

/// What replaces `text` to name `record`, whose id is `name`: written as the original was
/// (bare or qualified), and only if it resolves to that one record where it is written.
fn replacement<F: Cites>(
    index: &IdIndex<'_, F>,
    text: &str,
    allowed: &[usize],
    name: &str,
    record: usize,
) -> Option<String> {
    let replacement = if text.contains('/') {
        index.qualified_id(record)
    } else {
        name.to_string()
    };
    (index.resolve(&replacement, allowed) == Ok(record)).then_some(replacement)
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
