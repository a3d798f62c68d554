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

/// The most edits counted as a typo, however long the name: beyond five edits two names are
/// different names, and the cap keeps suggestion look-ups selective in large corpora.
pub const MAX_TYPO_BUDGET: usize = 5;

/// The largest edit distance counted as a typo for a name of `len` characters:
/// `max(1, len / 3)`, at most [`MAX_TYPO_BUDGET`].
pub fn typo_budget(len: usize) -> usize {
    (len / 3).clamp(1, MAX_TYPO_BUDGET)
}

/// Scores one candidate, or `None` when it is not close.
pub fn score<'a>(unknown: &str, candidate: &'a str) -> Option<Suggestion<'a>> {
    if let Some(typo) = score_typo(unknown, candidate, typo_budget(unknown.chars().count())) {
        return Some(typo);
    }
    if unknown != candidate
        && (words_contained(unknown, candidate) || words_contained(candidate, unknown))
    {
        return Some(Suggestion {
            name: candidate,
            kind: MatchKind::Words,
            distance: strsim::damerau_levenshtein(unknown, candidate),
            similarity: strsim::jaro_winkler(unknown, candidate),
        });
    }
    None
}

/// Scores a candidate as a typo within `budget` edits, or `None`. Cheap bounds (length,
/// letter counts) rule out most candidates before the quadratic edit distance.
pub fn score_typo<'a>(unknown: &str, candidate: &'a str, budget: usize) -> Option<Suggestion<'a>> {
    if unknown == candidate
        || unknown.chars().count().abs_diff(candidate.chars().count()) > budget
        || histogram_bound(unknown, candidate) > budget
    {
        return None;
    }
    let distance = strsim::damerau_levenshtein(unknown, candidate);
    (distance <= budget).then(|| Suggestion {
        name: candidate,
        kind: MatchKind::Typo,
        distance,
        similarity: strsim::jaro_winkler(unknown, candidate),
    })
}

/// A lower bound of the edit distance from letter counts, in linear time: each edit changes
/// the counts by at most two. It rules out most candidates before the quadratic
/// Damerau-Levenshtein.
// `bucket` is below 128, the length of `counts`.
#[allow(clippy::indexing_slicing)]
fn histogram_bound(a: &str, b: &str) -> usize {
    // One bucket per ASCII character, so ids (letters, digits, dashes) never share one.
    let mut counts = [0i32; 128];
    let bucket = |c: char| (c as usize) % 128;
    for c in a.chars() {
        counts[bucket(c)] += 1;
    }
    for c in b.chars() {
        counts[bucket(c)] -= 1;
    }
    let total: usize = counts.iter().map(|n| n.unsigned_abs() as usize).sum();
    total.div_ceil(2)
}

/// Whether every dash- or underscore-separated word of `part` is a word of `whole`, and
/// `part` has fewer words (equal word sets are typos or the same name, not a near miss).
/// A single word is too weak a signal (`cuda` is a word of dozens of ids), so `part` needs
/// two.
fn words_contained(part: &str, whole: &str) -> bool {
    // Without collecting the words: this runs for every candidate of every unknown name.
    let part_count = words(part).count();
    part_count >= 2
        && part_count < words(whole).count()
        && words(part).all(|w| words(whole).any(|v| same_word(w, v)))
}

/// The dash- or underscore-separated words of a name.
pub(crate) fn words(name: &str) -> impl Iterator<Item = &str> {
    name.split(['-', '_']).filter(|w| !w.is_empty())
}

/// Whether two words are the same but for case.
fn same_word(a: &str, b: &str) -> bool {
    a.chars()
        .flat_map(char::to_lowercase)
        .eq(b.chars().flat_map(char::to_lowercase))
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

/// Largest edit distance a fix is applied for without asking. Further edits are more often
/// another name than a slip of the finger (`nvidia-rtx-4080-super` is not `nvidia-rtx-4080`).
pub const MAX_CERTAIN_DISTANCE: usize = 2;

/// The one suggestion that is certain enough to apply without asking: the only typo-distance
/// candidate at the best distance, at most [`MAX_CERTAIN_DISTANCE`] edits away, whose words
/// that contain a digit are the unknown name's. Such words name models and versions
/// (`nvidia-h200` is not a typo of `nvidia-b200`, `mi300x` not of `mi350x`), so a suggestion
/// that changes one is shown but never applied. Ties and word matches are never certain.
pub fn certain<'a, 'b>(
    unknown: &str,
    suggestions: &'b [Suggestion<'a>],
) -> Option<&'b Suggestion<'a>> {
    let mut typos = suggestions.iter().filter(|s| s.kind == MatchKind::Typo);
    let best = typos.next()?;
    if let Some(second) = typos.next()
        && second.distance == best.distance
    {
        return None;
    }
    (best.distance <= MAX_CERTAIN_DISTANCE
        && model_codes(unknown) == model_codes(best.name)
        && one_long_word_differs(unknown, best.name))
    .then_some(best)
}

/// Whether the two names have the same words but one, and that one is long enough for a slip
/// to be a slip: `mooncache`/`mooncake` is a typo, `mlc-llm`/`mlx-lm` two other projects.
fn one_long_word_differs(a: &str, b: &str) -> bool {
    let a: Vec<&str> = a.split(['-', '_']).collect();
    let b: Vec<&str> = b.split(['-', '_']).collect();
    if a.len() != b.len() {
        return false;
    }
    let differing: Vec<(&&str, &&str)> = a.iter().zip(&b).filter(|(x, y)| x != y).collect();
    matches!(differing.as_slice(), [(x, y)] if x.chars().count().max(y.chars().count()) >= 4)
}

/// The words of a name that contain a digit: model numbers and versions.
fn model_codes(name: &str) -> Vec<&str> {
    name.split(['-', '_'])
        .filter(|word| word.bytes().any(|b| b.is_ascii_digit()))
        .collect()
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

/// Completes a diagnostic about an unknown name: a note listing the known names (`what`
/// introduces the list) and, when one is close, a did-you-mean.
pub fn unknown_name(
    diagnostic: crate::Diagnostic,
    name: &str,
    what: &str,
    known: &[&str],
) -> crate::Diagnostic {
    let listed: Vec<String> = known.iter().map(|k| format!("`{k}`")).collect();
    let diagnostic = diagnostic.with_note(format!("{what}: {}", listed.join(", ")));
    match did_you_mean(&suggest(name, known.iter().copied(), 3)) {
        Some(help) => diagnostic.with_help(help),
        None => diagnostic,
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
        assert_eq!(
            certain("mooncache", &found).map(|s| s.name),
            Some("mooncake")
        );
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
        assert!(certain("radeon-w7900", &found).is_none());
        assert!(
            suggest("cuda", ["cuda-graphs-break-fp8"], 3).is_empty(),
            "one word is too weak"
        );
    }

    #[test]
    fn ties_are_not_certain() {
        let found = suggest("cat", ["bat", "hat"], 3);
        assert_eq!(found.len(), 2);
        assert!(certain("cat", &found).is_none());
    }

    #[test]
    fn changed_digits_and_long_edits_are_not_certain() {
        let found = suggest("nvidia-h200", ["nvidia-b200"], 3);
        assert_eq!(found.len(), 1);
        assert!(certain("nvidia-h200", &found).is_none());
        let found = suggest("amd-mi300x", ["amd-mi350x"], 3);
        assert!(certain("amd-mi300x", &found).is_none());
        let found = suggest("engine-mlc-llm-github", ["engine-mlx-lm-github"], 3);
        assert!(certain("engine-mlc-llm-github", &found).is_none());
        let found = suggest("root_casue", ["root_cause"], 3);
        assert!(certain("root_casue", &found).is_some());
        let found = suggest("nvidia-rtx-4080-super", ["nvidia-rtx-4080"], 3);
        assert!(certain("nvidia-rtx-4080-super", &found).is_none());
    }
}
