//! `gotchas query`: list, get and search records, the questions the corpus's maintainers ask
//! their scripts every day.
//!
//! Fields are addressed with dots (`flops.precision`), looking through arrays on the way, as
//! reference paths are.

use std::cmp::Ordering;

use serde_json::Value;

use crate::corpus::{Corpus, Renumber};
use crate::load::Record;
use crate::schema::Schemas;

/// Every value at a dotted path; arrays met on the way (and at the end) are looked through.
pub fn values_at<'v>(value: &'v Value, path: &str) -> Vec<&'v Value> {
    let mut found = Vec::new();
    let segments: Vec<&str> = path.split('.').filter(|s| !s.is_empty()).collect();
    collect(value, &segments, &mut found);
    found
}

fn collect<'v>(value: &'v Value, path: &[&str], found: &mut Vec<&'v Value>) {
    match (value, path.split_first()) {
        (Value::Array(items), _) => {
            for item in items {
                collect(item, path, found);
            }
        }
        (Value::Object(map), Some((first, rest))) => {
            if let Some(child) = map.get(*first) {
                collect(child, rest, found);
            }
        }
        (_, None) => found.push(value),
        _ => {}
    }
}

/// A scalar as text, for comparisons and tables: strings as they are, others as JSON.
pub fn text_of(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// `FIELD=VALUE`: a record matches when any value at the field's path equals VALUE.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Condition {
    /// The dotted field path.
    pub field: String,
    /// The wanted value, as text.
    pub value: String,
}

impl Condition {
    /// Parses `FIELD=VALUE`.
    pub fn parse(text: &str) -> Result<Condition, String> {
        match text.split_once('=') {
            Some((field, value)) if !field.is_empty() => Ok(Condition {
                field: field.to_string(),
                value: value.to_string(),
            }),
            _ => Err(format!("`{text}` is not FIELD=VALUE")),
        }
    }

    /// Whether a value at the field is the wanted one: as text, or as the same number
    /// when the field holds a number (`confidence=0.80` is `0.8`).
    fn matches(&self, record: &Value) -> bool {
        values_at(record, &self.field)
            .iter()
            .any(|v| self.is_wanted(v))
    }

    /// Whether `value` is the wanted one, as [`Condition`] compares a value at its field:
    /// what a schema's `enum` member must be for the condition to match any record.
    pub fn is_wanted(&self, value: &Value) -> bool {
        match (value, self.value.parse::<f64>()) {
            (Value::Number(n), Ok(wanted)) => n.as_f64() == Some(wanted),
            _ => text_of(value) == self.value,
        }
    }
}

/// What `query list` keeps of `record` as the corpus is loaded: its fields when it is in
/// `collection` and meets every condition, else nothing. A list of one collection of a
/// large corpus so holds the records it shows, not every record's fields.
pub fn listed(mut record: Record, collection: usize, conditions: &[Condition]) -> Record<Listed> {
    let value = std::mem::take(&mut record.value);
    let wanted = record.collection == collection && conditions.iter().all(|c| c.matches(&value));
    record.keeping(Listed(wanted.then_some(value)))
}

/// The fields of a record [`listed`] keeps, if it keeps them.
#[derive(Clone, Debug, PartialEq)]
pub struct Listed(pub Option<Value>);

impl Renumber for Listed {}

/// The records [`listed`] kept, sorted by `sort` (then id).
// Record indices come from the corpus they index.
#[allow(clippy::indexing_slicing)]
pub fn list(corpus: &Corpus<Listed>, sort: Option<&str>) -> Vec<usize> {
    let found: Vec<usize> = corpus
        .records
        .iter()
        .enumerate()
        .filter(|(_, r)| r.value.0.is_some())
        .map(|(i, _)| i)
        .collect();
    let keys: Vec<Option<SortKey>> = found
        .iter()
        .map(|&index| {
            let value = corpus.records[index].value.0.as_ref()?;
            let field = sort?;
            values_at(value, field)
                .first()
                .map(|v| SortKey::of(&text_of(v)))
        })
        .collect();
    let mut keyed: Vec<(Option<SortKey>, usize)> = keys.into_iter().zip(found).collect();
    keyed.sort_by(|(a, x), (b, y)| {
        let by_field = match (a, b) {
            (Some(a), Some(b)) => a.cmp(b),
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (None, None) => Ordering::Equal,
        };
        by_field.then(corpus.records[*x].id.cmp(&corpus.records[*y].id))
    });
    keyed.into_iter().map(|(_, index)| index).collect()
}

/// A value to sort by: numbers before text, numbers by value and text by its bytes, which
/// orders any mix of the two one way (numbers compared as numbers only when both are would
/// order `9`, `10`, `1a` by whichever pairs the sort happened to compare).
#[derive(Clone, Debug)]
enum SortKey {
    Number(f64),
    Text(String),
}

impl SortKey {
    fn of(text: &str) -> SortKey {
        match text.parse::<f64>() {
            Ok(number) if !number.is_nan() => SortKey::Number(number),
            _ => SortKey::Text(text.to_string()),
        }
    }
}

impl Ord for SortKey {
    fn cmp(&self, other: &SortKey) -> Ordering {
        match (self, other) {
            (SortKey::Number(a), SortKey::Number(b)) => a.total_cmp(b),
            (SortKey::Number(_), SortKey::Text(_)) => Ordering::Less,
            (SortKey::Text(_), SortKey::Number(_)) => Ordering::Greater,
            (SortKey::Text(a), SortKey::Text(b)) => a.cmp(b),
        }
    }
}

impl PartialOrd for SortKey {
    fn partial_cmp(&self, other: &SortKey) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for SortKey {
    fn eq(&self, other: &SortKey) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for SortKey {}

/// A search result.
#[derive(Clone, Debug, PartialEq)]
pub struct Hit {
    /// The record.
    pub record: usize,
    /// How it matched, best first: 0 exact id, 1 id, 2 name, 3 another text field.
    pub rank: u8,
    /// The field that matched.
    pub field: String,
    /// A short excerpt around the match.
    pub excerpt: String,
}

/// What a search keeps of a record, matched as the record is loaded: how it matched, if it
/// did, and then its name. A search of a large corpus so holds its hits, not every record's
/// fields.
#[derive(Clone, Debug, PartialEq)]
pub struct Matched {
    /// The rank, field and excerpt of [`Hit`], when the record mentions the text.
    pub hit: Option<(u8, String, String)>,
    /// The record's `name`, when it matched and has one.
    pub name: Option<String>,
}

impl Renumber for Matched {}

/// Matches `record` against `needle` (lowercase): id and name first, then any text field.
pub fn match_record(record: &Record, needle: &str) -> Matched {
    let id = record.id.to_lowercase();
    let name = record.value.get("name").and_then(Value::as_str);
    let hit = if id == needle {
        Some((0, "id".to_string(), record.id.clone()))
    } else if id.contains(needle) {
        Some((1, "id".to_string(), record.id.clone()))
    } else if let Some(name) = name.filter(|name| name.to_lowercase().contains(needle)) {
        Some((2, "name".to_string(), name.to_string()))
    } else {
        first_text_match(&record.value, "", needle).map(|(field, excerpt)| (3, field, excerpt))
    };
    Matched {
        name: hit.as_ref().and(name).map(str::to_string),
        hit,
    }
}

/// The records that mentioned the text they were matched against ([`match_record`]),
/// ranked: id and name matches first, then any text field; ties by collection and id.
// Record and collection indices come from the corpus and schemas they index.
#[allow(clippy::indexing_slicing)]
pub fn search(corpus: &Corpus<Matched>, schemas: &Schemas) -> Vec<Hit> {
    let mut hits: Vec<Hit> = corpus
        .records
        .iter()
        .enumerate()
        .filter_map(|(index, record)| {
            let (rank, field, excerpt) = record.value.hit.clone()?;
            Some(Hit {
                record: index,
                rank,
                field,
                excerpt,
            })
        })
        .collect();
    hits.sort_by(|a, b| {
        a.rank.cmp(&b.rank).then_with(|| {
            let qualified = |h: &Hit| {
                let r = &corpus.records[h.record];
                (
                    schemas.collections[r.collection].folder.as_str(),
                    r.id.as_str(),
                )
            };
            qualified(a).cmp(&qualified(b))
        })
    });
    hits
}

/// The first string field (depth first, in key order) containing `needle`, with an excerpt.
fn first_text_match(value: &Value, path: &str, needle: &str) -> Option<(String, String)> {
    match value {
        Value::String(s) => find_lowercase(s, needle)
            .map(|found| (path.to_string(), excerpt(s, found.start, found.len()))),
        Value::Array(items) => items
            .iter()
            .find_map(|item| first_text_match(item, path, needle)),
        Value::Object(map) => map.iter().find_map(|(key, child)| {
            let child_path = if path.is_empty() {
                key.clone()
            } else {
                format!("{path}.{key}")
            };
            first_text_match(child, &child_path, needle)
        }),
        _ => None,
    }
}

/// Where `needle` (lowercase) is in `text` once lowercased, as a byte range of `text`
/// itself: lowercasing changes lengths (`K`, the Kelvin sign, is 3 bytes and `k` 1; `İ` is
/// 2 and `i̇` 3), so an offset in the lowercase text is no offset in `text`. The match is
/// the characters whose lowercase it covers.
fn find_lowercase(text: &str, needle: &str) -> Option<std::ops::Range<usize>> {
    let at = text.to_lowercase().find(needle)?;
    // Lowercasing the whole text differs from lowercasing each character only in a final
    // `Σ` (`ς`, not `σ`), of the same length: the lengths summed here are the text's.
    let mut lowered = 0;
    let mut start = None;
    for (offset, c) in text.char_indices() {
        lowered += c.to_lowercase().map(char::len_utf8).sum::<usize>();
        if start.is_none() && lowered > at {
            start = Some(offset);
        }
        if lowered >= at + needle.len() {
            return Some(start.unwrap_or(offset)..offset + c.len_utf8());
        }
    }
    None
}

/// About 30 characters either side of a match, on character boundaries.
fn excerpt(text: &str, at: usize, len: usize) -> String {
    const CONTEXT: usize = 30;
    let start = crate::source::floor_char_boundary(text, at.saturating_sub(CONTEXT));
    let end = crate::source::char_span(text, &(at..at + len + CONTEXT)).end;
    let mut out = String::new();
    if start > 0 {
        out.push('…');
    }
    out.push_str(&text.get(start..end).unwrap_or_default().replace('\n', " "));
    if end < text.len() {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_match_is_found_in_the_text_as_written() {
        let kelvin = "\u{212A}".repeat(40) + " target here";
        let found = find_lowercase(&kelvin, "target").unwrap();
        assert_eq!(&kelvin[found], "target");
        let dotted = "İ".repeat(1000) + " zzfind";
        let found = find_lowercase(&dotted, "zzfind").unwrap();
        assert_eq!(&dotted[found], "zzfind");
        // A match within one character's lowercase (`i̇` of `İ`) is that character.
        let found = find_lowercase("aİb", "\u{307}b").unwrap();
        assert_eq!(&"aİb"[found], "İb");
        let greek = "ΟΔΟΣ ΚΑΙ ΛΟΓΟΣ";
        let found = find_lowercase(greek, &"ΛΟΓΟΣ".to_lowercase()).unwrap();
        assert_eq!(&greek[found], "ΛΟΓΟΣ");
        assert_eq!(find_lowercase("abc", "abcd"), None);
    }

    #[test]
    fn dotted_paths_look_through_arrays() {
        let record =
            json!({"flops": [{"precision": "bf16"}, {"precision": "fp8"}], "status": "draft"});
        let found: Vec<String> = values_at(&record, "flops.precision")
            .into_iter()
            .map(text_of)
            .collect();
        assert_eq!(found, vec!["bf16", "fp8"]);
        assert!(
            Condition::parse("flops.precision=fp8")
                .unwrap()
                .matches(&record)
        );
        assert!(
            !Condition::parse("status=verified")
                .unwrap()
                .matches(&record)
        );
        assert!(Condition::parse("nothing").is_err());
    }

    #[test]
    fn excerpt_is_cut_on_character_boundaries() {
        let text = "ééééééééééééééééééééééééééééééééééé mooncake ééééééééééééééééééééééééééééééééé";
        let at = text.find("mooncake").unwrap();
        let cut = excerpt(text, at, "mooncake".len());
        assert!(cut.contains("mooncake") && cut.starts_with('…') && cut.ends_with('…'));
    }
}
