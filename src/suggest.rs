//! Did-you-mean: the closest known names to a name that is not known.
//!
//! Two kinds of near miss happen in practice. Typos (`mooncache` for `mooncake`, `majr` for
//! `major`) are caught by edit distance: Damerau-Levenshtein within `max(1, len / 3)`, so a
//! short word allows one slip and a long id a few. Naming near-misses (`radeon-w7900` for
//! `amd-radeon-pro-w7900`) are caught by words: every dash-separated word of one name is among
//! the other's. Candidates are ranked by kind (a typo is more certain), then distance, then
//! Jaro-Winkler similarity, then name, so the order is total and deterministic; but a typo
//! that changes a word with a digit in it ranks after the word matches, as such words name
//! models and versions: `nvidia-h200` means `nvidia-h200-sxm` before `nvidia-b200`.
//!
//! Before either, a name that reads the same ([`crate::unicode::fold`]: composed or
//! decomposed, full-width, with an invisible character, or in another case) is the name
//! meant, however many edits apart the bytes are; and a name of one character, which every
//! other is an edit from, gets no typo at all.

use std::borrow::Cow;
use std::cmp::Ordering;

use crate::unicode;

/// Why a candidate was suggested.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum MatchKind {
    /// The same name to a reader: equal once folded ([`crate::unicode::fold`]).
    Same,
    /// Within the typo distance.
    Typo,
    /// All the words of one name are among the other's.
    Words,
    /// The same id, in a folder within a typo of the one written (`engine/vllm` for
    /// `engines/vllm`); its distance is the folders'.
    Folder,
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
    /// Whether it is a typo that changes a word with a digit (a model or a version): a
    /// near miss of another model, shown after the word matches and never applied.
    pub changes_code: bool,
}

/// The most edits counted as a typo, however long the name: beyond five edits two names are
/// different names, and the cap keeps suggestion look-ups selective in large corpora.
pub const MAX_TYPO_BUDGET: usize = 5;

/// The fewest characters a name has, invisible ones aside, for a typo of it to be suggested:
/// every name of one character is one edit from every other, as rustc finds.
pub const MIN_TYPO_CHARS: usize = 2;

/// The largest edit distance counted as a typo for a name of `len` characters:
/// `max(1, len / 3)`, at most [`MAX_TYPO_BUDGET`].
pub fn typo_budget(len: usize) -> usize {
    (len / 3).clamp(1, MAX_TYPO_BUDGET)
}

/// An unknown name, prepared once for scoring many candidates: its characters, where each
/// one is, letter counts and words, which scoring would otherwise work out again for every
/// candidate (a did-you-mean in a large corpus scores about a thousand).
pub struct Unknown<'u> {
    name: &'u str,
    /// The name as look-alikes are compared ([`unicode::fold`]).
    folded: Cow<'u, str>,
    chars: Vec<char>,
    /// How many of its characters are not invisible ([`unicode::is_invisible`]).
    visible: usize,
    /// How many of each character, by [`bucket`].
    counts: [i32; 128],
    /// The dash- or underscore-separated words, as [`words`] gives them.
    words: Vec<&'u str>,
    /// The words with a digit in them, as [`model_codes`] gives them.
    codes: Vec<&'u str>,
    /// Where each ASCII character is in it, a bit per position, for
    /// [`subsequence_bound`]; `None` when the name is not ASCII or is longer than a
    /// word of bits.
    places: Option<Box<[u64; 256]>>,
}

impl<'u> Unknown<'u> {
    /// Prepares `name` for scoring.
    pub fn new(name: &'u str) -> Self {
        let chars: Vec<char> = name.chars().collect();
        let mut counts = [0; 128];
        for &c in &chars {
            if let Some(count) = counts.get_mut(bucket(c)) {
                *count += 1;
            }
        }
        let visible = if name.is_ascii() {
            chars.len()
        } else {
            chars.iter().filter(|&&c| !unicode::is_invisible(c)).count()
        };
        Unknown {
            name,
            folded: unicode::fold(name),
            chars,
            visible,
            counts,
            words: words(name).collect(),
            codes: model_codes(name),
            places: places(name),
        }
    }

    /// The most edits counted as a typo of it: [`typo_budget`] of its length, or none when
    /// fewer than [`MIN_TYPO_CHARS`] of its characters are visible.
    pub fn budget(&self) -> usize {
        if self.visible < MIN_TYPO_CHARS {
            0
        } else {
            typo_budget(self.chars.len())
        }
    }

    /// The name as look-alikes of it are found: [`unicode::fold`] of it.
    pub fn folded(&self) -> &str {
        &self.folded
    }

    /// Scores one candidate, or `None` when it is not close.
    pub fn score<'a>(&self, candidate: &'a str) -> Option<Suggestion<'a>> {
        self.score_same(candidate)
            .or_else(|| self.score_typo(candidate, self.budget()))
            .or_else(|| self.score_words(candidate))
    }

    /// Scores a candidate that reads as the name does (see [`MatchKind::Same`]), or `None`.
    pub fn score_same<'a>(&self, candidate: &'a str) -> Option<Suggestion<'a>> {
        (self.name != candidate && unicode::fold(candidate) == self.folded).then(|| Suggestion {
            name: candidate,
            kind: MatchKind::Same,
            distance: strsim::damerau_levenshtein(self.name, candidate),
            similarity: strsim::jaro_winkler(self.name, candidate),
            changes_code: false,
        })
    }

    /// Scores a candidate as a naming near miss (see [`MatchKind::Words`]), or `None`.
    pub fn score_words<'a>(&self, candidate: &'a str) -> Option<Suggestion<'a>> {
        (self.name != candidate && self.shares_words(candidate)).then(|| Suggestion {
            name: candidate,
            kind: MatchKind::Words,
            distance: strsim::damerau_levenshtein(self.name, candidate),
            similarity: strsim::jaro_winkler(self.name, candidate),
            changes_code: false,
        })
    }

    /// Scores a candidate as a typo within `budget` edits, or `None`. Cheap bounds (length,
    /// then the longest common subsequence, or letter counts for a name too long or not
    /// ASCII) rule out most candidates before the edit distance, which is worked out only
    /// as far as `budget`. Two ASCII names, as ids are, are compared byte by byte,
    /// without decoding or copying the candidate's characters.
    pub fn score_typo<'a>(&self, candidate: &'a str, budget: usize) -> Option<Suggestion<'a>> {
        if self.name == candidate {
            return None;
        }
        let ascii = self.name.len() == self.chars.len() && candidate.is_ascii();
        let length = if ascii {
            candidate.len()
        } else {
            candidate.chars().count()
        };
        if self.chars.len().abs_diff(length) > budget {
            return None;
        }
        let bound = match (ascii, &self.places) {
            (true, Some(places)) => {
                subsequence_bound(places, self.name.len(), candidate.as_bytes())
            }
            _ => self.histogram_bound(candidate, length, ascii),
        };
        if bound > budget {
            return None;
        }
        let distance = if ascii {
            distance_within(self.name.as_bytes(), candidate.as_bytes(), budget)
        } else {
            let other: Vec<char> = candidate.chars().collect();
            distance_within(&self.chars, &other, budget)
        }?;
        Some(Suggestion {
            name: candidate,
            kind: MatchKind::Typo,
            distance,
            similarity: strsim::jaro_winkler(self.name, candidate),
            changes_code: model_codes(candidate) != self.codes,
        })
    }

    /// A lower bound of the edit distance from letter counts, in linear time: an edit takes
    /// at most one letter out of a name and puts at most one in (a transposition neither),
    /// so the distance is at least the characters of `other` the unknown name has no copy
    /// left of, and at least the unknown name's characters left unmatched, which its length
    /// tells without a pass over every slot. `length` is `other`'s in characters, and
    /// `ascii` whether it is ASCII, so that its bytes are its characters.
    fn histogram_bound(&self, other: &str, length: usize, ascii: bool) -> usize {
        let mut counts = self.counts;
        let mut surplus = 0;
        let mut take = |slot: usize| {
            if let Some(count) = counts.get_mut(slot) {
                // Counted without a branch, which the data would mispredict.
                surplus += usize::from(*count <= 0);
                *count -= 1;
            }
        };
        if ascii {
            other.bytes().for_each(|byte| take(usize::from(byte)));
        } else {
            other.chars().for_each(|c| take(bucket(c)));
        }
        let matched = length - surplus;
        surplus.max(self.chars.len() - matched)
    }

    /// Whether every word of the one with fewer words is a word of the other, the fewer
    /// being at least two. A single word is too weak a signal (`cuda` is a word of dozens of
    /// ids), and equal word counts are typos or the same name, not a near miss.
    fn shares_words(&self, candidate: &str) -> bool {
        let count = words(candidate).count();
        match count.cmp(&self.words.len()) {
            Ordering::Greater if self.words.len() >= 2 => self
                .words
                .iter()
                .all(|w| words(candidate).any(|v| same_word(w, v))),
            Ordering::Less if count >= 2 => {
                words(candidate).all(|v| self.words.iter().any(|w| same_word(w, v)))
            }
            _ => false,
        }
    }
}

/// Where each ASCII character is in `name`, a bit per position, or `None` when it is not
/// ASCII or is longer than 64 characters. There is a slot for every byte, so that
/// [`subsequence_bound`] looks up a candidate's bytes without checking their range first:
/// the look-up is most of its loop, run for each byte of every candidate scored.
fn places(name: &str) -> Option<Box<[u64; 256]>> {
    if !name.is_ascii() || name.len() > 64 {
        return None;
    }
    let mut places = Box::new([0u64; 256]);
    for (position, byte) in name.bytes().enumerate() {
        if let Some(bits) = places.get_mut(usize::from(byte)) {
            *bits |= 1 << position;
        }
    }
    Some(places)
}

/// A lower bound of the edit distance of an ASCII name of `length` characters (at most 64),
/// whose characters are at `places`, and `other`, from their longest common subsequence:
/// the characters of the longer outside it, as an edit takes at most one character out of a
/// common subsequence (of the two characters a transposition swaps, one stays in it).
/// Letter counts give the same bound with the characters of any order in common, so this
/// one is never weaker, and names of the same words in another order, which ids of a few
/// dozen words often are, it turns down. The subsequence is counted 64 positions at a time
/// (Hyyrö's bit-vector algorithm): a few operations per character of `other`.
fn subsequence_bound(places: &[u64; 256], length: usize, other: &[u8]) -> usize {
    // Bit `i` of `unmatched` is clear when a character of the name at or before `i` is
    // the end of one more character of the longest common subsequence so far.
    let mut unmatched = u64::MAX;
    for &byte in other {
        let matches = places.get(usize::from(byte)).copied().unwrap_or_default();
        let starts = unmatched & matches;
        unmatched = unmatched.wrapping_add(starts) | (unmatched ^ starts);
    }
    let within = u64::MAX >> (64 - length.clamp(1, 64));
    let common = (!unmatched & within).count_ones() as usize;
    length.max(other.len()).saturating_sub(common)
}

/// A character's slot in [`Unknown::histogram_bound`]'s counts: one per ASCII character, so
/// ids (letters, digits, dashes) never share one. Other characters may share a slot, which
/// only lowers the bound.
fn bucket(c: char) -> usize {
    (c as usize) % 128
}

/// A character of a name as [`distance_within`] compares them: a `char`, or a byte of an
/// ASCII name.
pub trait Symbol: Copy + Eq {
    /// Its slot in a table of 256 for transpositions, or `None` beyond it.
    fn slot(self) -> Option<usize>;
}

impl Symbol for u8 {
    fn slot(self) -> Option<usize> {
        Some(usize::from(self))
    }
}

impl Symbol for char {
    fn slot(self) -> Option<usize> {
        u8::try_from(self).ok().map(usize::from)
    }
}

/// The Damerau-Levenshtein distance of `a` and `b` (adjacent transpositions, substrings
/// edited any number of times; as `strsim::damerau_levenshtein`) when it is at most
/// `budget`, else `None`.
///
/// Only the cells within `budget` of the diagonal are computed: a cell further off holds at
/// least its distance from the diagonal, and no step of the recurrence lowers a value, so a
/// path through such a cell ends above `budget` whatever it holds. Reading those cells as
/// "above budget" keeps every value within budget exact, in `len * (2 * budget + 1)` steps
/// instead of `len * len`.
///
/// Most names that get this far are further than `budget`, and the work stops at the first
/// row whose every cell is above it. A path to the end crosses every row: stepping down
/// into it, or jumping over it by a transposition, which costs at least the deletions
/// that would have stepped down into it from the same start.
// Every index is within the `(a.len() + 2) * (b.len() + 2)` table: rows `0..=a.len() + 1`,
// columns `0..=b.len() + 1`, `last_row` indices are rows of `a`, `from`/`to` clamp to `b`.
#[allow(clippy::indexing_slicing)]
pub fn distance_within<S: Symbol>(a: &[S], b: &[S], budget: usize) -> Option<usize> {
    if a.len().abs_diff(b.len()) > budget {
        return None;
    }
    // No two names are further apart than the longer one's length, which also keeps every
    // value in the table's `u32`.
    let budget = budget.min(a.len().max(b.len()));
    let far = u32::try_from(budget + 1).ok()?;
    let width = b.len() + 2;
    // Row `i + 1`, column `j + 1` holds the distance of `a[..i]` and `b[..j]`; row and
    // column 0 stand for "before the start", which no path comes from.
    let mut table = vec![far; (a.len() + 2) * width];
    let cell = |i: usize, j: usize| i * width + j;
    for (j, start) in (0..=budget.min(b.len())).zip(0u32..) {
        table[cell(1, j + 1)] = start;
    }
    // The last row of `a` holding each character, for transpositions: the first 256 in a
    // table, the rest in a list (ids are ASCII).
    let mut last_in_table = [0usize; 256];
    let mut last_other: Vec<(S, usize)> = Vec::new();
    for (i, row) in (1..=a.len()).zip(1u32..) {
        let ai = a[i - 1];
        let mut lowest = far;
        if i <= budget {
            table[cell(i + 1, 1)] = row;
            lowest = row;
        }
        let from = i.saturating_sub(budget).max(1);
        let to = (i + budget).min(b.len());
        // The last column so far in this row where `b` holds `a[i - 1]`.
        let mut last_column = 0;
        for j in from..=to {
            let bj = b[j - 1];
            let last_row = match bj.slot() {
                Some(slot) => last_in_table[slot],
                None => last_other
                    .iter()
                    .rev()
                    .find(|&&(c, _)| c == bj)
                    .map_or(0, |&(_, row)| row),
            };
            let same = ai == bj;
            let substitution = table[cell(i, j)] + u32::from(!same);
            let insertion = table[cell(i + 1, j)] + 1;
            let deletion = table[cell(i, j + 1)] + 1;
            // Row and column 0 hold `far`, so a character not seen before transposes with
            // nothing. The gaps are at most the names' lengths, below `u32::MAX` as `far` is.
            let gaps = (i - last_row) + (j - last_column) - 1;
            let transposition = table[cell(last_row, last_column)]
                .saturating_add(u32::try_from(gaps).unwrap_or(u32::MAX));
            if same {
                last_column = j;
            }
            let value = substitution
                .min(insertion)
                .min(deletion)
                .min(transposition)
                .min(far);
            table[cell(i + 1, j + 1)] = value;
            lowest = lowest.min(value);
        }
        if lowest == far {
            return None;
        }
        match ai.slot() {
            Some(slot) => last_in_table[slot] = i,
            None => last_other.push((ai, i)),
        }
    }
    let distance = table[cell(a.len() + 1, b.len() + 1)];
    (distance < far).then_some(distance as usize)
}

/// The dash- or underscore-separated words of a name. Split on bytes, as both separators are
/// ASCII: splitting on a pair of `char`s decodes every character of the name first, and
/// building the suggestion index splits every known id.
pub(crate) fn words(name: &str) -> impl Iterator<Item = &str> {
    let mut rest = name;
    std::iter::from_fn(move || {
        loop {
            if rest.is_empty() {
                return None;
            }
            let end = rest
                .bytes()
                .position(|byte| byte == b'-' || byte == b'_')
                .unwrap_or(rest.len());
            // `end` is at an ASCII separator or the end, so on a character boundary, and so
            // is the byte after a separator.
            let (word, after) = rest.split_at_checked(end)?;
            rest = after.get(1..).unwrap_or_default();
            if !word.is_empty() {
                return Some(word);
            }
        }
    })
}

/// Whether two words are the same but for case.
fn same_word(a: &str, b: &str) -> bool {
    a.chars()
        .flat_map(char::to_lowercase)
        .eq(b.chars().flat_map(char::to_lowercase))
}

/// Orders suggestions best first.
pub fn rank(a: &Suggestion<'_>, b: &Suggestion<'_>) -> Ordering {
    tier(a)
        .cmp(&tier(b))
        .then(a.distance.cmp(&b.distance))
        .then(b.similarity.total_cmp(&a.similarity))
        .then(a.name.cmp(b.name))
}

/// Where a suggestion ranks by how it matched: look-alikes, typos, then word matches, then
/// typos of another model or version, then the same id in another folder.
fn tier(suggestion: &Suggestion<'_>) -> u8 {
    match (suggestion.kind, suggestion.changes_code) {
        (MatchKind::Same, _) => 0,
        (MatchKind::Typo, false) => 1,
        (MatchKind::Words, _) => 2,
        (MatchKind::Typo, true) => 3,
        (MatchKind::Folder, _) => 4,
    }
}

/// The closest candidates to `unknown`, best first, at most `limit` of them.
pub fn suggest<'a, I>(unknown: &str, candidates: I, limit: usize) -> Vec<Suggestion<'a>>
where
    I: IntoIterator<Item = &'a str>,
{
    let unknown = Unknown::new(unknown);
    let mut found: Vec<Suggestion<'a>> = candidates
        .into_iter()
        .filter_map(|c| unknown.score(c))
        .collect();
    found.sort_by(rank);
    found.dedup_by(|a, b| a.name == b.name);
    found.truncate(limit);
    found
}

/// Largest edit distance a fix is applied for without asking. Further edits are more often
/// another name than a slip of the finger (`nvidia-rtx-4080-super` is not `nvidia-rtx-4080`).
pub const MAX_CERTAIN_DISTANCE: usize = 2;

/// The one suggestion that is certain enough to apply without asking: the only look-alike
/// ([`MatchKind::Same`]), the one record of the
/// id written in the folder nearest the misspelt one written, or the only typo-distance
/// candidate at the best distance, at most [`MAX_CERTAIN_DISTANCE`] edits away, whose words
/// that contain a digit are the unknown name's. Such words name models and versions
/// (`nvidia-h200` is not a typo of `nvidia-b200`, `mi300x` not of `mi350x`), so a suggestion
/// that changes one is shown but never applied. Ties and word matches are never certain.
pub fn certain<'a, 'b>(
    unknown: &str,
    suggestions: &'b [Suggestion<'a>],
) -> Option<&'b Suggestion<'a>> {
    // A name that reads as the one written is what was meant, unless two do.
    if let Some(best) = suggestions.first().filter(|s| s.kind == MatchKind::Same) {
        let tie = suggestions
            .get(1)
            .is_some_and(|s| s.kind == MatchKind::Same);
        return (!tie).then_some(best);
    }
    // An id written right in a misspelt folder is certain when no other folder is as near.
    if let Some(best) = suggestions.first().filter(|s| s.kind == MatchKind::Folder) {
        let tie = suggestions
            .get(1)
            .is_some_and(|s| s.distance == best.distance);
        return (!tie && best.distance <= MAX_CERTAIN_DISTANCE).then_some(best);
    }
    let mut typos = suggestions.iter().filter(|s| s.kind == MatchKind::Typo);
    let best = typos.next()?;
    if let Some(second) = typos.next()
        && second.distance == best.distance
    {
        return None;
    }
    (best.distance <= MAX_CERTAIN_DISTANCE
        && !best.changes_code
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

/// `base` after `edits`, for tests that need names a few edits apart: each edit is a kind (0
/// substitutes, 1 deletes, 2 inserts, 3 swaps a character with the next), a place (taken
/// modulo the length plus one) and a character; an edit with no character where it needs
/// one does nothing.
#[cfg(test)]
pub(crate) fn edited(base: &str, edits: &[(u8, usize, char)]) -> String {
    let mut chars: Vec<char> = base.chars().collect();
    for &(kind, at, with) in edits {
        let at = at % (chars.len() + 1);
        match kind {
            0 if at < chars.len() => chars[at] = with,
            1 if at < chars.len() => {
                chars.remove(at);
            }
            2 => chars.insert(at, with),
            3 if at + 1 < chars.len() => chars.swap(at, at + 1),
            _ => {}
        }
    }
    chars.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn within(a: &str, b: &str, budget: usize) -> Option<usize> {
        let a: Vec<char> = a.chars().collect();
        let b: Vec<char> = b.chars().collect();
        distance_within(&a, &b, budget)
    }

    #[test]
    fn words_are_split_between_separators() {
        for (name, expected) in [
            ("", &[][..]),
            ("-", &[]),
            ("a", &["a"]),
            ("a-b", &["a", "b"]),
            ("--a__b-", &["a", "b"]),
            ("naïve_ü-x", &["naïve", "ü", "x"]),
            ("kv-cache-offload", &["kv", "cache", "offload"]),
        ] {
            assert_eq!(words(name).collect::<Vec<_>>(), expected, "{name}");
        }
    }

    #[test]
    fn distance_counts_transpositions_and_stops_at_the_budget() {
        assert_eq!(within("mooncache", "mooncake", 3), Some(2));
        assert_eq!(within("ab", "ba", 1), Some(1));
        // A transposition with an edit between the two characters (not counted so by
        // optimal string alignment).
        assert_eq!(within("ca", "abc", 2), Some(2));
        assert_eq!(within("kitten", "sitting", 3), Some(3));
        assert_eq!(within("kitten", "sitting", 2), None);
        assert_eq!(within("", "abc", 3), Some(3));
        assert_eq!(within("abc", "", 2), None);
        assert_eq!(within("naïve-ü", "naive-u", 2), Some(2));
        assert_eq!(within("same", "same", 0), Some(0));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(5000))]

        /// Splitting on bytes gives the words splitting on the two characters gives.
        #[test]
        fn words_are_split_at_dashes_and_underscores(name in "[aé_-]{0,12}") {
            let expected: Vec<&str> = name.split(['-', '_']).filter(|w| !w.is_empty()).collect();
            prop_assert_eq!(words(&name).collect::<Vec<_>>(), expected);
        }

        /// Within its budget the banded distance is strsim's Damerau-Levenshtein, and beyond
        /// it, none: a small alphabet with a non-ASCII letter makes transpositions, repeats
        /// and far pairs common.
        #[test]
        fn banded_distance_is_damerau_levenshtein_within_the_budget(
            a in "[abcé-]{0,12}",
            b in "[abcé-]{0,12}",
            budget in 0usize..8,
        ) {
            let exact = strsim::damerau_levenshtein(&a, &b);
            let expected = (exact <= budget).then_some(exact);
            prop_assert_eq!(within(&a, &b, budget), expected);
            if a.is_ascii() && b.is_ascii() {
                prop_assert_eq!(distance_within(a.as_bytes(), b.as_bytes(), budget), expected);
            }
        }

        /// The cheap bounds a candidate is ruled out by (length, letter counts) never rule
        /// out a typo: a candidate scores as one exactly when it is another name within the
        /// budget, whether the two are compared as bytes or as characters.
        #[test]
        fn a_typo_is_scored_exactly_when_within_the_budget(
            a in "[abcé-]{0,12}",
            b in "[abcé-]{0,12}",
            budget in 0usize..8,
        ) {
            let exact = strsim::damerau_levenshtein(&a, &b);
            let scored = Unknown::new(&a).score_typo(&b, budget).map(|s| s.distance);
            prop_assert_eq!(scored, (a != b && exact <= budget).then_some(exact));
        }

        /// The subsequence bound is the characters of the longer name outside a longest
        /// common subsequence, worked out here by the textbook table.
        #[test]
        fn the_subsequence_bound_counts_the_longest_common_subsequence(
            a in "[abc-]{0,64}",
            b in "[abcd-]{0,70}",
        ) {
            let (a, b) = (a.as_bytes(), b.as_bytes());
            let mut table = vec![vec![0usize; b.len() + 1]; a.len() + 1];
            for (i, x) in a.iter().enumerate() {
                for (j, y) in b.iter().enumerate() {
                    table[i + 1][j + 1] = if x == y {
                        table[i][j] + 1
                    } else {
                        table[i][j + 1].max(table[i + 1][j])
                    };
                }
            }
            let common = table[a.len()][b.len()];
            let places = places(std::str::from_utf8(a).unwrap_or_default());
            prop_assert!(places.is_some());
            let bound = places.map(|places| subsequence_bound(&places, a.len(), b));
            prop_assert_eq!(bound, Some(a.len().max(b.len()) - common));
        }

        /// No bound turns down a name within the budget: names long enough to need the
        /// bounds, and a second made from the first by a few edits of every kind, so that
        /// most pairs are within the budget and many just within it.
        #[test]
        fn near_names_are_scored_exactly_when_within_the_budget(
            a in "[abc-]{0,64}",
            edits in prop::collection::vec((0u8..4, any::<usize>(), prop::char::range('a', 'd')), 0..7),
            budget in 0usize..8,
        ) {
            let b = edited(&a, &edits);
            let exact = strsim::damerau_levenshtein(&a, &b);
            let scored = Unknown::new(&a).score_typo(&b, budget).map(|s| s.distance);
            prop_assert_eq!(scored, (a != b && exact <= budget).then_some(exact));
        }
    }

    #[test]
    fn the_same_words_in_another_order_are_turned_down_before_the_edit_distance() {
        let name = "review-canary-socket-latency";
        let reordered = "socket-latency-review-canary";
        let unknown = Unknown::new(name);
        // The letters are the same, so their counts cannot tell the two apart.
        assert_eq!(unknown.histogram_bound(reordered, reordered.len(), true), 0);
        let bound = |other: &[u8]| places(name).map(|p| subsequence_bound(&p, name.len(), other));
        assert!(bound(reordered.as_bytes()).is_some_and(|bound| bound > 5));
        assert_eq!(bound(b"review-canary-sockets-latncy"), Some(1));
        assert_eq!(unknown.score_typo(reordered, 5), None);
    }

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
    fn look_alikes_rank_first_and_are_certain() {
        let found = suggest("ｖｌｌｍ", ["vllm", "vllx", "nixl"], 3);
        assert_eq!(found[0].name, "vllm");
        assert_eq!(found[0].kind, MatchKind::Same);
        assert_eq!(certain("ｖｌｌｍ", &found).map(|s| s.name), Some("vllm"));
        let found = suggest("caf\u{e9}", ["cafe\u{301}", "cafes"], 3);
        assert_eq!(found[0].name, "cafe\u{301}");
        let found = suggest("VLLM", ["vllm", "Vllm"], 3);
        assert_eq!(found.len(), 2);
        assert!(certain("VLLM", &found).is_none(), "two look-alikes tie");
    }

    #[test]
    fn a_name_of_one_visible_character_gets_no_typo() {
        assert!(suggest("\u{1f600}", ["s", "ab"], 3).is_empty());
        assert!(suggest("\u{200b}", ["s"], 3).is_empty());
        assert!(suggest("x\u{200b}", ["y", "xy"], 3).is_empty());
        let found = suggest("x\u{200b}", ["x", "y"], 3);
        assert_eq!(found.iter().map(|s| s.name).collect::<Vec<_>>(), ["x"]);
        assert_eq!(suggest("ab", ["ac"], 3).len(), 1);
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

    #[test]
    fn a_typo_of_another_model_ranks_after_a_word_match() {
        let found = suggest(
            "nvidia-h200",
            [
                "nvidia-b200",
                "nvidia-h200-sxm",
                "nvidia-h20",
                "nvidai-h200",
            ],
            4,
        );
        let names: Vec<&str> = found.iter().map(|s| s.name).collect();
        assert_eq!(
            names,
            [
                "nvidai-h200",
                "nvidia-h200-sxm",
                "nvidia-h20",
                "nvidia-b200"
            ]
        );
    }
}
