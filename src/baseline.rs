//! A baseline of accepted known problems, so a corpus with old debt can still fail on new
//! breaks.
//!
//! The upstream corpus kept a numeric budget of dangling references, which lets a new break
//! hide behind an old fix. A baseline instead records each known diagnostic by fingerprint:
//! its code, file, JSON pointer (array indices folded to `*`, so inserting an item does not
//! invalidate the rest) and message (which names the offending value). Line numbers are not
//! part of it, so editing elsewhere in a file does not break it. `check` then fails only on
//! diagnostics the baseline does not account for, and lists entries that no longer occur so
//! the file can shrink.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::diagnostic::{Diagnostic, pointer_segments};

/// The default baseline file name, at the corpus root.
pub const DEFAULT_FILE: &str = "gotchas-baseline.json";

/// What identifies a known problem across edits.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Fingerprint {
    /// The rule code.
    pub code: String,
    /// The file, as displayed.
    pub file: String,
    /// The value's pointer with array indices as `*`; empty when the problem is the file's.
    pub pointer: String,
    /// The message.
    pub message: String,
}

impl Fingerprint {
    /// The fingerprint of a diagnostic.
    pub fn of(diagnostic: &Diagnostic) -> Fingerprint {
        let pointer = diagnostic.pointer.as_deref().map_or_else(String::new, |p| {
            pointer_segments(p)
                .iter()
                .map(|segment| {
                    if segment.bytes().all(|b| b.is_ascii_digit()) && !segment.is_empty() {
                        "/*".to_string()
                    } else {
                        format!("/{}", crate::diagnostic::escape_pointer_segment(segment))
                    }
                })
                .collect()
        });
        Fingerprint {
            code: diagnostic.code.to_string(),
            file: diagnostic.file.clone(),
            pointer,
            message: diagnostic.message.clone(),
        }
    }
}

#[derive(Serialize, Deserialize)]
struct Entry {
    #[serde(flatten)]
    fingerprint: Fingerprint,
    count: usize,
}

#[derive(Serialize, Deserialize)]
struct File {
    version: u32,
    entries: Vec<Entry>,
}

/// Known problems and how many times each occurs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Baseline {
    entries: BTreeMap<Fingerprint, usize>,
}

/// The outcome of holding diagnostics against a baseline.
#[derive(Debug, Default)]
pub struct Filtered {
    /// Diagnostics the baseline does not account for.
    pub reported: Vec<Diagnostic>,
    /// How many diagnostics the baseline accounted for.
    pub known: usize,
    /// Baseline entries (with their surplus counts) that no longer occur.
    pub stale: Vec<(Fingerprint, usize)>,
}

impl Baseline {
    /// Records every diagnostic.
    pub fn from_diagnostics(diagnostics: &[Diagnostic]) -> Baseline {
        let mut entries = BTreeMap::new();
        for diagnostic in diagnostics {
            *entries.entry(Fingerprint::of(diagnostic)).or_insert(0) += 1;
        }
        Baseline { entries }
    }

    /// Reads a baseline file.
    pub fn read(path: &Path) -> Result<Baseline, String> {
        let text = crate::load::read_regular_to_string(path)
            .map_err(|err| format!("cannot read the baseline: {err}"))?;
        // serde reads an object as a struct from a JSON array too, and then says so in
        // its own terms ("expected struct File"): a document that is no object is told
        // as such.
        if !text.trim_start().starts_with('{') {
            return Err(
                "the baseline is not valid: expected a JSON object with `version` and `entries`"
                    .to_string(),
            );
        }
        let file: File = serde_json::from_str(&text)
            .map_err(|err| format!("the baseline is not valid: {err}"))?;
        if file.version != 1 {
            return Err(format!("unsupported baseline version {}", file.version));
        }
        let mut entries = BTreeMap::new();
        for entry in file.entries {
            let count: &mut usize = entries.entry(entry.fingerprint).or_insert(0);
            *count = count.saturating_add(entry.count);
        }
        Ok(Baseline { entries })
    }

    /// The baseline as a file: sorted, pretty JSON, so it diffs well in review.
    pub fn to_json(&self) -> String {
        let file = File {
            version: 1,
            entries: self
                .entries
                .iter()
                .map(|(fingerprint, &count)| Entry {
                    fingerprint: fingerprint.clone(),
                    count,
                })
                .collect(),
        };
        crate::serialize::to_json(&file)
    }

    /// How many problems the baseline holds.
    pub fn len(&self) -> usize {
        self.entries.values().sum()
    }

    /// Whether the baseline holds nothing.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Removes the diagnostics the baseline accounts for.
    pub fn filter(&self, diagnostics: Vec<Diagnostic>) -> Filtered {
        let mut remaining = self.entries.clone();
        let mut filtered = Filtered::default();
        for diagnostic in diagnostics {
            match remaining.get_mut(&Fingerprint::of(&diagnostic)) {
                Some(count) if *count > 0 => {
                    *count -= 1;
                    filtered.known += 1;
                }
                _ => filtered.reported.push(diagnostic),
            }
        }
        filtered.stale = remaining
            .into_iter()
            .filter(|(_, count)| *count > 0)
            .collect();
        filtered
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diagnostic(pointer: &str, message: &str) -> Diagnostic {
        let mut diagnostic = Diagnostic::new("unresolved-ref", "records/gotchas/a.md", message);
        diagnostic.pointer = Some(pointer.to_string());
        diagnostic
    }

    #[test]
    fn known_problems_pass_new_ones_fail_and_fixed_ones_are_stale() {
        let old = vec![
            diagnostic("/affects/1", "`x` names no record"),
            diagnostic("/sources/0", "`y` names no record"),
        ];
        let baseline = Baseline::from_diagnostics(&old);
        let round_trip = Baseline::read_from_str(&baseline.to_json());
        assert_eq!(round_trip, baseline);
        let now = vec![
            diagnostic("/affects/2", "`x` names no record"),
            diagnostic("/affects/0", "`z` names no record"),
        ];
        let filtered = baseline.filter(now);
        assert_eq!(filtered.known, 1, "array indices do not matter");
        assert_eq!(filtered.reported.len(), 1);
        assert_eq!(filtered.stale.len(), 1);
    }

    #[test]
    fn a_baseline_that_is_no_object_is_told_in_its_own_terms() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("b.json");
        for (text, said) in [
            (
                "[]",
                "the baseline is not valid: expected a JSON object with `version` and `entries`",
            ),
            (
                "{\"version\": 1}",
                "the baseline is not valid: missing field `entries` at line 1 column 14",
            ),
        ] {
            std::fs::write(&path, text).unwrap();
            assert_eq!(Baseline::read(&path).unwrap_err(), said);
        }
    }

    impl Baseline {
        fn read_from_str(text: &str) -> Baseline {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("b.json");
            std::fs::write(&path, text).unwrap();
            Baseline::read(&path).unwrap()
        }
    }
}
