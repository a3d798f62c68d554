//! `--fix`: apply the fixes that are certain, editing only the bytes of each value.
//!
//! Only [`Applicability::MachineApplicable`] fixes are applied (a unique close candidate, an
//! enum typo, a field-name typo); a suggestion with two equally close candidates is never a
//! fix. Edits replace exactly the located bytes (inside the quotes of a quoted scalar), so the
//! file's formatting, comments and quoting survive, and files are written with
//! [`crate::write::write_atomic`].

use std::collections::BTreeMap;

use crate::diagnostic::{Anchor, Applicability, Diagnostic};
use crate::source::Span;

/// The certain edits of a set of diagnostics, by file (as displayed), in file order.
pub fn plan(diagnostics: &[Diagnostic]) -> BTreeMap<String, Vec<(Span, String)>> {
    let mut plan: BTreeMap<String, Vec<(Span, String)>> = BTreeMap::new();
    for diagnostic in diagnostics {
        let Some(fix) = &diagnostic.fix else { continue };
        if fix.applicability != Applicability::MachineApplicable {
            continue;
        }
        let spans: Option<Vec<(Span, String)>> = fix
            .edits
            .iter()
            .map(|edit| match &edit.anchor {
                Anchor::Span(span) => Some((span.clone(), edit.replacement.clone())),
                _ => None,
            })
            .collect();
        if let Some(spans) = spans {
            plan.entry(diagnostic.file.clone())
                .or_default()
                .extend(spans);
        }
    }
    plan
}

/// Applies edits to a text. Edits are applied in order of position; an edit overlapping an
/// earlier one is skipped (the re-check after fixing reports what is left).
pub fn apply(text: &str, edits: &[(Span, String)]) -> (String, usize) {
    let mut sorted: Vec<&(Span, String)> = edits.iter().collect();
    sorted.sort_by_key(|(span, _)| (span.start, span.end));
    let mut out = String::with_capacity(text.len());
    let mut cursor = 0;
    let mut applied = 0;
    for (span, replacement) in sorted {
        if span.start < cursor
            || span.end > text.len()
            || !text.is_char_boundary(span.start)
            || !text.is_char_boundary(span.end)
        {
            continue;
        }
        out.push_str(&text[cursor..span.start]);
        out.push_str(replacement);
        cursor = span.end;
        applied += 1;
    }
    out.push_str(&text[cursor..]);
    (out, applied)
}

/// A unified diff of one file's change, as `git diff` would show it.
pub fn unified_diff(path: &str, old: &str, new: &str) -> String {
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{path}"), &format!("b/{path}"))
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_only_the_given_bytes_and_skips_overlaps() {
        let text = "affects: [vllm, mooncache] # keep\n";
        let start = text.find("mooncache").unwrap();
        let edits = vec![
            (start..start + 9, "mooncake".to_string()),
            (start + 2..start + 4, "zz".to_string()),
        ];
        let (fixed, applied) = apply(text, &edits);
        assert_eq!(fixed, "affects: [vllm, mooncake] # keep\n");
        assert_eq!(applied, 1);
    }

    #[test]
    fn diff_names_the_file() {
        let diff = unified_diff("records/x.yaml", "a: 1\n", "a: 2\n");
        assert!(diff.contains("--- a/records/x.yaml"));
        assert!(diff.contains("-a: 1\n+a: 2\n"));
    }
}
