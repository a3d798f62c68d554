//! JSON Schema validation of each record, with messages and suggestions made for people.
//!
//! The `jsonschema` crate finds the violations; this module turns each into a diagnostic
//! pointing at the offending value (or key), with a did-you-mean for the two mistakes that
//! are almost always typos: an unknown field and a value outside an enum.

use std::collections::HashMap;

use jsonschema::JsonType;
use jsonschema::error::{TypeKind, ValidationErrorKind};
use serde_json::Value;

use crate::diagnostic::{
    Anchor, Applicability, Diagnostic, Edit, Fix, join_pointer, pointer_segments,
};
use crate::load::{Record, json_type};
use crate::rules;
use crate::schema::Collection;
use crate::source::Format;
use crate::suggest;

/// Longest value quoted in a message; longer ones are cut, as a long text field would drown
/// the line.
const MAX_QUOTED: usize = 60;

/// Validates one record against its collection's schema.
pub fn validate(record: &Record, collection: &Collection, display: &str) -> Vec<Diagnostic> {
    // Nearly every record is valid, and asking only whether it is skips the bookkeeping of
    // where each error is that gathering errors does as it walks the record: a third of the
    // instructions of checking a record on its own.
    if collection.validator.is_valid(&record.value) {
        return Vec::new();
    }
    collection
        .validator
        .iter_errors(&record.value)
        .flat_map(|err| {
            let pointer = err.instance_path().as_str().to_string();
            let location = err.absolute_keyword_location().map(|uri| uri.as_str());
            translate(
                err.kind(),
                err.instance(),
                &pointer,
                location,
                collection,
                (display, record.format),
                &err.to_string(),
            )
        })
        .collect()
}

fn translate(
    kind: &ValidationErrorKind,
    instance: &Value,
    pointer: &str,
    location: Option<&str>,
    collection: &Collection,
    (display, format): (&str, Format),
    fallback: &str,
) -> Vec<Diagnostic> {
    match kind {
        ValidationErrorKind::AdditionalProperties { unexpected }
        | ValidationErrorKind::UnevaluatedProperties { unexpected } => {
            let evaluated = matches!(kind, ValidationErrorKind::UnevaluatedProperties { .. });
            let declared = collection.declared_at(location, evaluated);
            let mut diagnostics: Vec<Diagnostic> = unexpected
                .iter()
                .map(|field| unknown_field(field, pointer, &declared, display))
                .collect();
            demote_colliding_renames(&mut diagnostics, instance);
            diagnostics
        }
        ValidationErrorKind::Required { property } => {
            let name = property.as_str().unwrap_or_default();
            let at = if pointer.is_empty() {
                "the record"
            } else {
                pointer
            };
            vec![
                Diagnostic::new(
                    rules::MISSING_FIELD,
                    display,
                    format!("missing required field `{name}`"),
                )
                .at(Anchor::Value(pointer.to_string()))
                .with_label(format!("`{name}` is required in {at}"))
                .with_help(format!("add `{name}` to {at}")),
            ]
        }
        ValidationErrorKind::Enum { options } => {
            let allowed: Vec<&Value> = options
                .as_array()
                .map(|a| a.iter().collect())
                .unwrap_or_default();
            vec![invalid_value(instance, pointer, &allowed, display)]
        }
        ValidationErrorKind::Constant { expected_value } => {
            vec![invalid_value(
                instance,
                pointer,
                &[expected_value.as_ref()],
                display,
            )]
        }
        ValidationErrorKind::Type { kind } => {
            let expected = match kind {
                TypeKind::Single(t) => t.to_string(),
                TypeKind::Multiple(set) => set
                    .iter()
                    .map(|t| t.to_string())
                    .collect::<Vec<_>>()
                    .join(" or "),
            };
            let found = json_type(instance);
            let mut diagnostic = Diagnostic::new(
                rules::SCHEMA_VIOLATION,
                display,
                format!(
                    "{} must be {expected}, found {found}",
                    describe_pointer(pointer)
                ),
            )
            .at(Anchor::Value(pointer.to_string()))
            .with_label(format!("expected {expected}"));
            let wants_boolean = match kind {
                TypeKind::Single(t) => *t == JsonType::Boolean,
                TypeKind::Multiple(set) => set.contains(JsonType::Boolean),
            };
            if let Some(word) = instance.as_str()
                && let Some(truth) = yaml_1_1_boolean(word)
                && wants_boolean
                && format != Format::Json
            {
                diagnostic = diagnostic.with_help(format!(
                    "`{word}` is {truth} in YAML 1.1 only; YAML 1.2, which gotchas reads, \
                     takes it as a string: write `{truth}`"
                ));
            }
            vec![diagnostic]
        }
        _ => vec![
            Diagnostic::new(
                rules::SCHEMA_VIOLATION,
                display,
                violation(kind, instance, pointer, fallback),
            )
            .at(Anchor::Value(pointer.to_string()))
            .with_label(kind_label(kind)),
        ],
    }
}

/// What is wrong with the value at `pointer`, for a keyword without a rule of its own:
/// said in our words where the validator's would quote the whole value (`oneOf`, `anyOf`,
/// `not`) or read oddly (`is not a "email"`); else the validator's message, the value it
/// quotes first cut short, not the message.
fn violation(
    kind: &ValidationErrorKind,
    instance: &Value,
    pointer: &str,
    fallback: &str,
) -> String {
    let field = describe_pointer(pointer);
    let predicate = match kind {
        ValidationErrorKind::Format { format } => format!("is not a valid {format}"),
        ValidationErrorKind::OneOfNotValid { .. } => {
            "matches none of the schemas `oneOf` lists".to_string()
        }
        ValidationErrorKind::OneOfMultipleValid { .. } => {
            "matches more than one of the schemas `oneOf` lists".to_string()
        }
        ValidationErrorKind::AnyOf { .. } => {
            "matches none of the schemas `anyOf` lists".to_string()
        }
        ValidationErrorKind::Not { .. } => "matches the schema `not` rules out".to_string(),
        _ => {
            let written = instance.to_string();
            return match fallback.strip_prefix(&written) {
                Some(rest) => format!("{field}: `{}`{rest}", shorten(&written)),
                None => format!("{field}: {}", shorten(fallback)),
            };
        }
    };
    format!("{field} {predicate}")
}

/// The boolean `word` is in YAML 1.1 and not in YAML 1.2, where it is a string: `yes`, `no`,
/// `on`, `off`, `y` and `n`, in the spellings YAML 1.1's boolean type lists (lowercase,
/// capitalised or uppercase; `y` and `n` in either case). A corpus that a YAML 1.1 loader
/// (PyYAML's) read before may have them in its records.
fn yaml_1_1_boolean(word: &str) -> Option<bool> {
    match word {
        "y" | "Y" | "yes" | "Yes" | "YES" | "on" | "On" | "ON" => Some(true),
        "n" | "N" | "no" | "No" | "NO" | "off" | "Off" | "OFF" => Some(false),
        _ => None,
    }
}

/// YAML 1.1's merge key. Records written for a YAML 1.1 loader (PyYAML's, which scripts
/// checking a corpus like this often use) may rely on it; in YAML 1.2 it is a plain key, and
/// the did-you-mean for it would name some unrelated field.
const YAML_MERGE_KEY: &str = "<<";

fn unknown_field(field: &str, pointer: &str, declared: &[String], display: &str) -> Diagnostic {
    let key = join_pointer(pointer, field);
    let suggestions = suggest::suggest(field, declared.iter().map(String::as_str), 3);
    let mut diagnostic = Diagnostic::new(
        rules::UNKNOWN_FIELD,
        display,
        format!("unknown field `{field}`"),
    )
    .at(Anchor::Key(key.clone()))
    .with_label("the schema does not declare this field");
    if field == YAML_MERGE_KEY {
        return diagnostic.with_help(
            "`<<` merges a mapping into another in YAML 1.1 only; YAML 1.2, which gotchas \
             reads, has no merge keys: write the fields out in the record",
        );
    }
    if let Some(help) = suggest::did_you_mean(&suggestions) {
        diagnostic = diagnostic.with_help(help);
    } else if !declared.is_empty() {
        diagnostic =
            diagnostic.with_note(format!("declared fields: {}", quoted_list(declared.iter())));
    }
    if let Some(best) = suggest::certain(field, &suggestions) {
        diagnostic = diagnostic.with_fix(Fix {
            applicability: Applicability::MachineApplicable,
            edits: vec![Edit {
                anchor: Anchor::Key(key),
                replacement: best.name.to_string(),
            }],
        });
    }
    diagnostic
}

/// A field renamed onto a key its object already has, or onto the name another unknown field
/// of the object is renamed to, would become a duplicate key: such a rename is still
/// offered, but is not certain, so `--fix` leaves it to a person.
fn demote_colliding_renames(diagnostics: &mut [Diagnostic], object: &Value) {
    let mut renamed_to: HashMap<String, usize> = HashMap::new();
    for edit in diagnostics
        .iter()
        .flat_map(|d| &d.fix)
        .flat_map(|f| &f.edits)
    {
        *renamed_to.entry(edit.replacement.clone()).or_default() += 1;
    }
    for fix in diagnostics.iter_mut().filter_map(|d| d.fix.as_mut()) {
        let collides = fix.edits.iter().any(|edit| {
            object.get(&edit.replacement).is_some()
                || renamed_to.get(&edit.replacement).is_some_and(|&n| n > 1)
        });
        if collides {
            fix.applicability = Applicability::MaybeIncorrect;
        }
    }
}

fn invalid_value(instance: &Value, pointer: &str, allowed: &[&Value], display: &str) -> Diagnostic {
    let shown = match instance {
        Value::String(s) => format!("`{}`", shorten(s)),
        other => format!("`{}`", shorten(&other.to_string())),
    };
    let allowed_text: Vec<String> = allowed
        .iter()
        .map(|v| match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
        .collect();
    let mut diagnostic = Diagnostic::new(
        rules::INVALID_VALUE,
        display,
        format!(
            "{shown} is not an allowed value for {}",
            describe_pointer(pointer)
        ),
    )
    .at(Anchor::Value(pointer.to_string()))
    .with_label("not an allowed value")
    .with_note(allowed_note(&allowed_text));
    if let Value::String(text) = instance {
        let candidates = allowed.iter().filter_map(|v| v.as_str());
        let suggestions = suggest::suggest(text, candidates, 3);
        if let Some(help) = suggest::did_you_mean(&suggestions) {
            diagnostic = diagnostic.with_help(help);
        }
        if let Some(best) = suggest::certain(text, &suggestions) {
            diagnostic = diagnostic.with_fix(Fix {
                applicability: Applicability::MachineApplicable,
                edits: vec![Edit {
                    anchor: Anchor::Value(pointer.to_string()),
                    replacement: best.name.to_string(),
                }],
            });
        }
    }
    diagnostic
}

/// "`severity`" for a top-level field, "`flops/0/source_id`" deeper, "the record" at the top;
/// a field's name as written, not escaped as a pointer spells it (`a/b`, not `a~1b`).
fn describe_pointer(pointer: &str) -> String {
    match pointer.strip_prefix('/') {
        None => "the record".to_string(),
        Some(_) => format!("`{}`", pointer_segments(pointer).join("/")),
    }
}

fn kind_label(kind: &ValidationErrorKind) -> String {
    match kind {
        ValidationErrorKind::Pattern { pattern } => format!("does not match `{pattern}`"),
        ValidationErrorKind::Format { format } => format!("not a valid {format}"),
        other => format!("fails `{}`", other.keyword()),
    }
}

/// The most allowed values a note names: an enum of thousands (every model number) named
/// whole in each diagnostic made a report of a hundred megabytes.
const MAX_ALLOWED_SHOWN: usize = 20;

/// "allowed values: `a`, `b`", at most [`MAX_ALLOWED_SHOWN`] of them, and how many more.
fn allowed_note(allowed: &[String]) -> String {
    let shown = quoted_list(allowed.iter().take(MAX_ALLOWED_SHOWN));
    match allowed.len().checked_sub(MAX_ALLOWED_SHOWN) {
        Some(more) if more > 0 => format!("allowed values: {shown} and {more} more"),
        _ => format!("allowed values: {shown}"),
    }
}

fn quoted_list<'a>(items: impl Iterator<Item = &'a String>) -> String {
    items
        .map(|s| format!("`{s}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Cuts a text to [`MAX_QUOTED`] characters, marking the cut.
fn shorten(text: &str) -> String {
    if text.chars().count() <= MAX_QUOTED {
        return text.to_string();
    }
    let cut: String = text.chars().take(MAX_QUOTED).collect();
    format!("{cut}…")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_1_1_booleans_are_known_in_the_spellings_it_allows() {
        for (word, truth) in [
            ("yes", true),
            ("Yes", true),
            ("YES", true),
            ("on", true),
            ("ON", true),
            ("y", true),
            ("Y", true),
            ("no", false),
            ("No", false),
            ("off", false),
            ("OFF", false),
            ("n", false),
        ] {
            assert_eq!(yaml_1_1_boolean(word), Some(truth), "{word}");
        }
        for word in ["yEs", "oN", "true", "maybe", "", "nope"] {
            assert_eq!(yaml_1_1_boolean(word), None, "{word}");
        }
    }
}
