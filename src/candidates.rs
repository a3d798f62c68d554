//! Candidate names for a did-you-mean: the few known names that may be close to an unknown
//! one, found through posting lists so that the work per unknown name follows how selective
//! the name is, never the number of known names.
//!
//! [`crate::suggest::score`] accepts two kinds of near miss, and each has its own way in:
//!
//! - A typo within `k` edits. Each edit destroys at most three of the unknown name's distinct
//!   character bigrams, so a name within `k` edits contains all but `3k` of them: counting,
//!   per known name, the unknown's bigrams it contains leaves few names above that bar.
//!   (Taking the union of the `3k + 1` rarest bigrams' postings instead, which must also
//!   hold every such name, gave 30,000 candidates per unknown name among 100,000 ids built
//!   from a small vocabulary.) Names with no more than `3k` bigrams are short, and are
//!   found by length instead.
//! - A naming near miss: every word of one name is a word of the other. A longer name that
//!   holds all the unknown's words is in the intersection of those words' postings; a
//!   shorter name made only of the unknown's words is found under its word set, one lookup
//!   per subset of the unknown's words.
//!
//! Counting shared words over whole posting lists, as a first version did, costs the length
//! of the commonest word's list (`cache`, `nvidia`) for every unknown name: at 100,000
//! generated ids that was most of `check`'s time.

use std::collections::BTreeMap;

use foldhash::{HashMap, HashMapExt};

/// How many word sets of the unknown name are looked up at most: every subset of up to 12
/// distinct words. Names with more words are matched against their smaller subsets only.
const MAX_WORD_SET_LOOKUPS: usize = 4096;

/// Known names, indexed for [`NameIndex::candidates`].
pub struct NameIndex<'n> {
    /// The names, sorted and distinct; postings hold positions in it, ascending.
    names: Vec<&'n str>,
    /// Each name's length in characters, by position.
    lengths: Vec<usize>,
    /// Positions by length, for names too short for the bigram bound.
    by_length: BTreeMap<usize, Vec<u32>>,
    by_bigram: HashMap<(char, char), Vec<u32>>,
    by_word: HashMap<String, Vec<u32>>,
    /// Positions by the name's distinct words, sorted and joined with `-`.
    by_word_set: HashMap<String, Vec<u32>>,
}

impl<'n> NameIndex<'n> {
    /// Indexes `names` (duplicates are indexed once).
    pub fn new(names: impl IntoIterator<Item = &'n str>) -> Self {
        let mut names: Vec<&'n str> = names.into_iter().collect();
        names.sort_unstable();
        names.dedup();
        let mut index = NameIndex {
            lengths: Vec::with_capacity(names.len()),
            names: Vec::new(),
            by_length: BTreeMap::new(),
            by_bigram: HashMap::new(),
            by_word: HashMap::new(),
            by_word_set: HashMap::new(),
        };
        for (position, name) in (0u32..).zip(&names) {
            let length = name.chars().count();
            index.lengths.push(length);
            index.by_length.entry(length).or_default().push(position);
            for bigram in bigrams(name) {
                index.by_bigram.entry(bigram).or_default().push(position);
            }
            let words = word_set(name);
            for word in &words {
                index
                    .by_word
                    .entry(word.clone())
                    .or_default()
                    .push(position);
            }
            if !words.is_empty() {
                index
                    .by_word_set
                    .entry(words.join("-"))
                    .or_default()
                    .push(position);
            }
        }
        index.names = names;
        index
    }

    /// Every known name that may be within `budget` edits of `unknown`, or share all the
    /// words of one of the two with the other; sorted, distinct. A superset: the caller
    /// scores each.
    pub fn candidates(&self, unknown: &str, budget: usize) -> Vec<&'n str> {
        let mut found = self.typo_candidates(unknown, budget);
        let words = word_set(unknown);
        if words.len() >= 2 || word_count(unknown) >= 2 {
            found.extend(self.names_with_all(&words));
        }
        found.extend(self.names_within(&words));
        found.sort_unstable();
        found.dedup();
        found
            .into_iter()
            .filter_map(|position| self.names.get(position as usize).copied())
            .collect()
    }

    /// The names within `budget` edits' reach of `unknown`: for a name with enough
    /// bigrams, those that share all but `3 * budget` of them (counted over the postings of
    /// every bigram of the unknown name, into one counter per name); for a shorter name,
    /// those of a length within `budget`.
    fn typo_candidates(&self, unknown: &str, budget: usize) -> Vec<u32> {
        let length = unknown.chars().count();
        let bigrams = bigrams(unknown);
        let close_in_length = |position: &u32| {
            self.lengths
                .get(*position as usize)
                .is_some_and(|candidate| candidate.abs_diff(length) <= budget)
        };
        let Some(needed) = bigrams.len().checked_sub(3 * budget).filter(|&n| n > 0) else {
            return self
                .by_length
                .range(length.saturating_sub(budget)..=length + budget)
                .flat_map(|(_, positions)| positions.iter().copied())
                .collect();
        };
        let mut shared = vec![0u16; self.names.len()];
        for bigram in &bigrams {
            for &position in self.by_bigram.get(bigram).into_iter().flatten() {
                if let Some(count) = shared.get_mut(position as usize) {
                    *count = count.saturating_add(1);
                }
            }
        }
        (0u32..)
            .zip(&shared)
            .filter(|&(_, &count)| usize::from(count) >= needed)
            .map(|(position, _)| position)
            .filter(close_in_length)
            .collect()
    }

    /// The names that have every one of `words`: the intersection of their postings,
    /// rarest first, so the work is bounded by the rarest word's list.
    fn names_with_all(&self, words: &[String]) -> Vec<u32> {
        let mut lists: Vec<&Vec<u32>> = Vec::with_capacity(words.len());
        for word in words {
            match self.by_word.get(word) {
                Some(list) => lists.push(list),
                None => return Vec::new(),
            }
        }
        lists.sort_by_key(|list| list.len());
        let Some((rarest, others)) = lists.split_first() else {
            return Vec::new();
        };
        rarest
            .iter()
            .copied()
            .filter(|position| {
                others
                    .iter()
                    .all(|list| list.binary_search(position).is_ok())
            })
            .collect()
    }

    /// The names made only of some of `words` (distinct and sorted): one lookup per subset,
    /// smallest subsets first, at most [`MAX_WORD_SET_LOOKUPS`].
    fn names_within(&self, words: &[String]) -> Vec<u32> {
        let mut found = Vec::new();
        let mut lookups = 0;
        let mut key = String::new();
        for size in 1..=words.len() {
            let mut chosen: Vec<usize> = (0..size).collect();
            loop {
                if lookups == MAX_WORD_SET_LOOKUPS {
                    return found;
                }
                lookups += 1;
                key.clear();
                for (n, &at) in chosen.iter().enumerate() {
                    if n > 0 {
                        key.push('-');
                    }
                    key.push_str(words.get(at).map_or("", String::as_str));
                }
                if let Some(list) = self.by_word_set.get(key.as_str()) {
                    found.extend_from_slice(list);
                }
                if !next_combination(&mut chosen, words.len()) {
                    break;
                }
            }
        }
        found
    }
}

/// Advances `chosen` (ascending indices below `n`) to the next combination of its size in
/// lexicographic order; `false` after the last.
fn next_combination(chosen: &mut [usize], n: usize) -> bool {
    let size = chosen.len();
    for slot in (0..size).rev() {
        let limit = n - size + slot;
        if chosen.get(slot).is_some_and(|&at| at < limit) {
            let start = chosen.get(slot).map_or(0, |&at| at + 1);
            for (offset, later) in chosen.iter_mut().skip(slot).enumerate() {
                *later = start + offset;
            }
            return true;
        }
    }
    false
}

/// The distinct character bigrams of a text, in first-seen order.
fn bigrams(text: &str) -> Vec<(char, char)> {
    let mut found: Vec<(char, char)> = Vec::new();
    let mut chars = text.chars();
    let Some(mut previous) = chars.next() else {
        return found;
    };
    for next in chars {
        if !found.contains(&(previous, next)) {
            found.push((previous, next));
        }
        previous = next;
    }
    found
}

/// The distinct lowercase words of a name (split at `-` and `_`, as
/// [`crate::suggest::score`] does), sorted.
fn word_set(name: &str) -> Vec<String> {
    let mut words: Vec<String> = name
        .split(['-', '_'])
        .filter(|word| !word.is_empty())
        .map(str::to_lowercase)
        .collect();
    words.sort_unstable();
    words.dedup();
    words
}

fn word_count(name: &str) -> usize {
    name.split(['-', '_'])
        .filter(|word| !word.is_empty())
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suggest;

    const NAMES: &[&str] = &[
        "mooncake",
        "vllm",
        "sglang",
        "amd-radeon-pro-w7900",
        "nvidia-h100",
        "nvidia-h200",
        "nvidia-b200",
        "kv-cache-offload",
        "cache",
        "kv-cache",
        "lmcache-kv-cache-offload-connector",
        "x",
    ];

    /// What scoring every name would accept: the candidates must include all of it.
    fn accepted_by_brute_force(unknown: &str) -> Vec<&'static str> {
        let mut accepted: Vec<&str> = NAMES
            .iter()
            .copied()
            .filter(|name| suggest::score(unknown, name).is_some())
            .collect();
        accepted.sort_unstable();
        accepted
    }

    #[test]
    fn candidates_include_everything_scoring_accepts() {
        let index = NameIndex::new(NAMES.iter().copied());
        for unknown in [
            "mooncache",
            "radeon-w7900",
            "nvidia-h100-sxm",
            "kv-cache-offload-connector",
            "cache-kv",
            "vlm",
            "y",
            "",
            "--",
            "a-b-c-d-e-f-g-h-i-j-k-l-m-n",
        ] {
            let budget = suggest::typo_budget(unknown.chars().count());
            let candidates = index.candidates(unknown, budget);
            for accepted in accepted_by_brute_force(unknown) {
                assert!(
                    candidates.contains(&accepted),
                    "{unknown}: {accepted} missing from {candidates:?}"
                );
            }
        }
    }

    #[test]
    fn common_words_do_not_make_every_name_a_candidate() {
        let names: Vec<String> = (0..2000)
            .map(|n| format!("nvidia-cache-part{n}-extra{}", n % 7))
            .collect();
        let index = NameIndex::new(names.iter().map(String::as_str));
        let words = word_set("nvidia-cache-part17-extra3-more");
        let mut by_words = index.names_with_all(&words);
        by_words.extend(index.names_within(&words));
        let found: Vec<&str> = by_words
            .iter()
            .map(|&at| index.names[at as usize])
            .collect();
        assert_eq!(found, ["nvidia-cache-part17-extra3"]);
    }

    #[test]
    fn combinations_are_enumerated_in_order() {
        let mut chosen = vec![0, 1];
        let mut seen = vec![chosen.clone()];
        while next_combination(&mut chosen, 4) {
            seen.push(chosen.clone());
        }
        assert_eq!(
            seen,
            [[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]].map(Vec::from)
        );
    }
}
