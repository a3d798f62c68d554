//! Did-you-mean: the closest known names to a name that is not known.
//!
//! Two kinds of near miss happen in practice. Typos (`mooncache` for `mooncake`, `majr` for
//! `major`) are caught by edit distance: Damerau-Levenshtein within `max(1, len / 3)`, so a
//! short word allows one slip and a long id a few. Naming near-misses (`radeon-w7900` for
//! `amd-radeon-pro-w7900`) are caught by words: every dash-separated word of one name is among
//! the other's. Candidates are ranked by kind (a typo is more certain), then distance, then
//! Jaro-Winkler similarity, then name, so the order is total and deterministic.

use std::cmp::Ordering;

/// Why a candidate was suggested.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum MatchKind {
    /// Within the typo distance.
    Typo,
    /// All the words of one name are among the other's.
    Words,
}

/// One suggestion.
#[derive(Clone, Debug, PartialEq)]
pub struct Suggestion<'a> {
    /// The suggested name.
    pub name: &'a str,
    /// Why it was suggested.
    pub kind: MatchKind,
    /// Damerau-Levenshtein distance from the unknown name.
    pub distance: usize,
    /// Jaro-Winkler similarity, a tie-breaker.
    pub similarity: f64,
}

/// The largest edit distance counted as a typo for a name of `len` characters.
pub fn typo_budget(len: usize) -> usize {
    (len / 3).max(1)
}

/// Scores one candidate, or `None` when it is not close.
pub fn score<'a>(unknown: &str, candidate: &'a str) -> Option<Suggestion<'a>> {
    if unknown == candidate {
        return None;
    }
    let unknown_len = unknown.chars().count();
    let candidate_len = candidate.chars().count();
    let budget = typo_budget(unknown_len);
    let similarity = strsim::jaro_winkler(unknown, candidate);
    if unknown_len.abs_diff(candidate_len) <= budget {
        let distance = strsim::damerau_levenshtein(unknown, candidate);
        if distance <= budget {
            return Some(Suggestion {
                name: candidate,
                kind: MatchKind::Typo,
                distance,
                similarity,
            });
        }
    }
    if words_contained(unknown, candidate) || words_contained(candidate, unknown) {
        return Some(Suggestion {
            name: candidate,
            kind: MatchKind::Words,
            distance: strsim::damerau_levenshtein(unknown, candidate),
            similarity,
        });
    }
    None
}

/// Whether every dash- or underscore-separated word of `part` is a word of `whole`, and
/// `part` has fewer words (equal word sets are typos or the same name, not a near miss).
fn words_contained(part: &str, whole: &str) -> bool {
    let split = |s: &'_ str| -> Vec<String> {
        s.split(['-', '_'])
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect::<Vec<_>>()
    };
    let part_words = split(part);
    let whole_words = split(whole);
    !part_words.is_empty()
        && part_words.len() < whole_words.len()
        && part_words.iter().all(|w| whole_words.contains(w))
}

/// Orders suggestions best first.
pub fn rank(a: &Suggestion<'_>, b: &Suggestion<'_>) -> Ordering {
    a.kind
        .cmp(&b.kind)
        .then(a.distance.cmp(&b.distance))
        .then(b.similarity.total_cmp(&a.similarity))
        .then(a.name.cmp(b.name))
}

/// The closest candidates to `unknown`, best first, at most `limit` of them.
pub fn suggest<'a, I>(unknown: &str, candidates: I, limit: usize) -> Vec<Suggestion<'a>>
where
    I: IntoIterator<Item = &'a str>,
{
    let mut found: Vec<Suggestion<'a>> = candidates
        .into_iter()
        .filter_map(|c| score(unknown, c))
        .collect();
    found.sort_by(rank);
    found.dedup_by(|a, b| a.name == b.name);
    found.truncate(limit);
    found
}

/// The one suggestion that is certain enough to apply without asking: the only typo-distance
/// candidate at the best distance. Ties and word matches are never certain.
pub fn certain<'a, 'b>(suggestions: &'b [Suggestion<'a>]) -> Option<&'b Suggestion<'a>> {
    let mut typos = suggestions.iter().filter(|s| s.kind == MatchKind::Typo);
    let best = typos.next()?;
    match typos.next() {
        Some(second) if second.distance == best.distance => None,
        _ => Some(best),
    }
}

/// "did you mean `a`?" or "did you mean one of `a`, `b`?", for a help line.
pub fn did_you_mean(suggestions: &[Suggestion<'_>]) -> Option<String> {
    match suggestions {
        [] => None,
        [one] => Some(format!("did you mean `{}`?", one.name)),
        many => Some(format!(
            "did you mean one of {}?",
            many.iter()
                .map(|s| format!("`{}`", s.name))
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typo_is_found_and_certain() {
        let found = suggest("mooncache", ["mooncake", "vllm", "nixl"], 3);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].name, "mooncake");
        assert_eq!(certain(&found).map(|s| s.name), Some("mooncake"));
    }

    #[test]
    fn short_words_allow_one_slip() {
        let found = suggest("majr", ["major", "minor", "blocker"], 3);
        assert_eq!(found[0].name, "major");
        assert!(suggest("xyz", ["major"], 3).is_empty());
    }

    #[test]
    fn word_near_miss_is_suggested_but_not_certain() {
        let found = suggest("radeon-w7900", ["amd-radeon-pro-w7900", "nvidia-h100"], 3);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].kind, MatchKind::Words);
        assert!(certain(&found).is_none());
    }

    #[test]
    fn ties_are_not_certain() {
        let found = suggest("cat", ["bat", "hat"], 3);
        assert_eq!(found.len(), 2);
        assert!(certain(&found).is_none());
    }
}
