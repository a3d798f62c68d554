//! SARIF 2.1.0, the format GitHub code scanning (and most security dashboards) import.
//!
//! One run: the tool with every rule of [`crate::rules::ALL`] (so an alert links to the rule's
//! documentation), and one result per diagnostic. Columns count Unicode code points, like the
//! other outputs, and say so (`columnKind`), since SARIF's default is UTF-16 code units; an
//! end column is exclusive, as SARIF defines it. GitHub needs a `startLine` on every result,
//! so a diagnostic about a whole file points at its first line. Certain fixes
//! ([`Applicability::MachineApplicable`]) are offered as SARIF `fixes`.

use std::io::{self, Write};

use serde::Serialize;

use super::{Sources, full_message, repository_path};
use crate::config::Level;
use crate::diagnostic::{Applicability, Diagnostic, Severity};
use crate::rules::{self, Rule};
use crate::source::LineCol;
use crate::write::{Each, json_document};

/// The schema a SARIF 2.1.0 log names.
pub const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

#[derive(Serialize)]
struct Log<R> {
    #[serde(rename = "$schema")]
    schema: &'static str,
    version: &'static str,
    runs: [Run<R>; 1],
}

/// The run, its results converted as they are written: for a check with a hundred thousand
/// problems, the converted list and the document held whole came to 180 MB more than the
/// other formats' peak.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Run<R> {
    tool: Tool,
    column_kind: &'static str,
    results: R,
}

#[derive(Serialize)]
struct Tool {
    driver: Driver,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Driver {
    name: &'static str,
    version: &'static str,
    #[serde(skip_serializing_if = "str::is_empty")]
    information_uri: &'static str,
    rules: Vec<RuleDescriptor>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RuleDescriptor {
    id: &'static str,
    short_description: Text,
    full_description: Text,
    help: Help,
    default_configuration: Configuration,
}

#[derive(Serialize)]
struct Text {
    text: String,
}

#[derive(Serialize)]
struct Help {
    text: String,
    markdown: String,
}

#[derive(Serialize)]
struct Configuration {
    level: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifResult<'a> {
    rule_id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    rule_index: Option<usize>,
    level: &'static str,
    message: Text,
    locations: [Location; 1],
    #[serde(skip_serializing_if = "Vec::is_empty")]
    related_locations: Vec<Location>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    fixes: Vec<SarifFix>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Location {
    /// A related location's number within its result.
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<usize>,
    physical_location: PhysicalLocation,
    /// What is at a related location.
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<Text>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PhysicalLocation {
    artifact_location: ArtifactLocation,
    region: Region,
}

#[derive(Clone, Serialize)]
struct ArtifactLocation {
    uri: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Region {
    start_line: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    start_column: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    end_line: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    end_column: Option<usize>,
}

impl Region {
    fn between(start: LineCol, end: LineCol) -> Region {
        Region {
            start_line: start.line,
            start_column: Some(start.column),
            end_line: Some(end.line),
            end_column: Some(end.column),
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifFix {
    description: Text,
    artifact_changes: [ArtifactChange; 1],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ArtifactChange {
    artifact_location: ArtifactLocation,
    replacements: Vec<Replacement>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Replacement {
    deleted_region: Region,
    inserted_content: Text,
}

/// Writes the whole report to `out` as one pretty-printed SARIF log ending in a newline.
/// `prefix` is the corpus root's folder in the repository (see [`repository_path`]).
pub fn write(
    out: &mut dyn Write,
    diagnostics: &[Diagnostic],
    sources: &Sources,
    prefix: &str,
) -> io::Result<()> {
    let log = Log {
        schema: SCHEMA,
        version: "2.1.0",
        runs: [Run {
            tool: Tool {
                driver: Driver {
                    name: env!("CARGO_PKG_NAME"),
                    version: env!("CARGO_PKG_VERSION"),
                    information_uri: env!("CARGO_PKG_REPOSITORY"),
                    rules: rules::ALL.iter().map(descriptor).collect(),
                },
            },
            column_kind: "unicodeCodePoints",
            results: Each {
                items: diagnostics,
                each: |d| result(d, sources, prefix),
            },
        }],
    };
    json_document(out, &log)
}

fn descriptor(rule: &Rule) -> RuleDescriptor {
    let documentation = rule.documentation();
    RuleDescriptor {
        id: rule.code,
        short_description: Text {
            text: rule.summary.to_string(),
        },
        full_description: Text {
            text: what_it_finds(&documentation),
        },
        help: Help {
            text: documentation.clone(),
            markdown: documentation,
        },
        default_configuration: Configuration {
            level: match rule.default_level {
                Level::Error => "error",
                Level::Warn => "warning",
                Level::Allow => "none",
            },
        },
    }
}

/// The "What it finds" section of a rule's documentation, as one paragraph.
fn what_it_finds(explanation: &str) -> String {
    explanation
        .split("## What it finds")
        .nth(1)
        .unwrap_or(explanation)
        .split("\n\n")
        .find(|paragraph| !paragraph.trim().is_empty())
        .unwrap_or_default()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

fn result<'a>(diagnostic: &'a Diagnostic, sources: &Sources, prefix: &str) -> SarifResult<'a> {
    let artifact = ArtifactLocation {
        uri: uri(prefix, &diagnostic.file, sources),
    };
    let related_locations = (diagnostic.labels.iter().enumerate())
        .map(|(id, label)| Location {
            id: Some(id),
            physical_location: PhysicalLocation {
                artifact_location: ArtifactLocation {
                    uri: uri(prefix, &label.file, sources),
                },
                region: region(sources, &label.file, &label.anchor),
            },
            message: Some(Text {
                text: label.message.clone(),
            }),
        })
        .collect();
    SarifResult {
        rule_id: diagnostic.code,
        rule_index: rules::ALL.iter().position(|r| r.code == diagnostic.code),
        level: match diagnostic.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        },
        message: Text {
            text: full_message(diagnostic),
        },
        fixes: fix(diagnostic, sources, &artifact).into_iter().collect(),
        locations: [Location {
            id: None,
            physical_location: PhysicalLocation {
                artifact_location: artifact,
                region: region(sources, &diagnostic.file, &diagnostic.anchor),
            },
            message: None,
        }],
        related_locations,
    }
}

/// The region of `anchor` in `file`; the first line of a file when it has no position, as
/// GitHub needs a `startLine`.
fn region(sources: &Sources, file: &str, anchor: &crate::diagnostic::Anchor) -> Region {
    match sources.range(file, anchor) {
        Some((start, end)) => Region::between(start, end),
        None => Region {
            start_line: 1,
            start_column: None,
            end_line: None,
            end_column: None,
        },
    }
}

/// The SARIF fix of a certain fix; `None` when the fix is only plausible or an edit could
/// not be located.
fn fix(
    diagnostic: &Diagnostic,
    sources: &Sources,
    artifact: &ArtifactLocation,
) -> Option<SarifFix> {
    if diagnostic.fix.as_ref()?.applicability != Applicability::MachineApplicable {
        return None;
    }
    let edits = sources.fix_edits(diagnostic)?;
    let inserted: Vec<&str> = edits.iter().map(|e| e.replacement).collect();
    Some(SarifFix {
        description: Text {
            text: format!("replace with `{}`", inserted.join("`, `")),
        },
        artifact_changes: [ArtifactChange {
            artifact_location: artifact.clone(),
            replacements: edits
                .iter()
                .map(|edit| Replacement {
                    deleted_region: Region::between(edit.start, edit.end),
                    inserted_content: Text {
                        text: edit.replacement.to_string(),
                    },
                })
                .collect(),
        }],
    })
}

/// A repository-relative URI reference: the path's segments, percent-encoded, from the
/// bytes of the file's name where it is not UTF-8 (`caf%E9.yaml`), which its displayed
/// path shows as U+FFFD.
fn uri(prefix: &str, file: &str, sources: &Sources) -> String {
    let Some(raw) = sources.raw_path(file) else {
        return segments_encoded(repository_path(prefix, file).as_bytes());
    };
    segments_encoded(&[prefix.as_bytes(), raw].concat())
}

/// `path`'s `/`-separated segments, each percent-encoded but for unreserved characters
/// (as [`crate::source::uri_segment`] encodes a UTF-8 one).
fn segments_encoded(path: &[u8]) -> String {
    const UNRESERVED: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
        .remove(b'-')
        .remove(b'_')
        .remove(b'.')
        .remove(b'~');
    path.split(|&byte| byte == b'/')
        .map(|segment| percent_encoding::percent_encode(segment, UNRESERVED).to_string())
        .collect::<Vec<_>>()
        .join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_description_is_the_first_paragraph_of_what_it_finds() {
        let rule = rules::find(rules::UNRESOLVED_REF).unwrap();
        let text = what_it_finds(rule.explanation);
        assert!(text.starts_with("A value of a reference field that names no record"));
        assert!(!text.contains('\n'));
        assert!(!text.contains("Why it matters"));
    }

    #[test]
    fn uris_are_percent_encoded_per_segment() {
        let sources = Sources::default();
        assert_eq!(
            uri("my kb/", "records/a b.md", &sources),
            "my%20kb/records/a%20b.md"
        );
        assert_eq!(uri("", "caf\u{e9}.md", &sources), "caf%C3%A9.md");
    }
}
