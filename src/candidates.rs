//! Candidate names for a did-you-mean: the few known names that may be close to an unknown
//! one, found through posting lists, never by comparing the unknown name with every known one.
//!
//! [`crate::suggest::Unknown::score`] accepts two kinds of near miss, and each has its own way in:
//!
//! - A typo within `k` edits. Each edit destroys at most three of the unknown name's distinct
//!   character bigrams, so a name within `k` edits contains all but `3k` of them: counting,
//!   per known name, the unknown's bigrams it contains leaves few names above that bar.
//!   (Taking the union of the `3k + 1` rarest bigrams' postings instead, which must also
//!   hold every such name, gave 30,000 candidates per unknown name among 100,000 ids built
//!   from a small vocabulary.) Names with no more than `3k` bigrams are short, and are
//!   found by length instead. Either way a name must also share, kind by kind, all but `k`
//!   characters of the longer of the two (`CharCounts`), which for a short name is the
//!   test that turns most down.
//!
//!   The count reads the postings of every bigram of the unknown name among the names of a
//!   length within `k` in the groups asked for (the collections a field may cite: the index
//!   keeps each group's names together). Common bigrams (`ca`, `he`) are in a fixed share
//!   of the names however many there are, so this work grows with the corpus: it is kept
//!   small by holding a common bigram's postings as a row of bits and adding a row to the
//!   counts 64 names at a time (`SharedCounts`), in a third of the instructions of adding
//!   each posting alone.
//! - A naming near miss: every word of one name is a word of the other. A longer name that
//!   holds all the unknown's words is in the intersection of those words' postings; a
//!   shorter name made only of the unknown's words is found under its word set, one lookup
//!   per subset of the unknown's words.
//!
//! Counting shared words over whole posting lists, as a first version did, costs the length
//! of the commonest word's list (`cache`, `nvidia`) for every unknown name: at 100,000
//! generated ids that was most of `check`'s time.

use std::hash::{BuildHasher, Hasher};

use foldhash::{HashMap, HashMapExt};
use rayon::prelude::*;

use crate::buckets::{self, by_bucket};
use crate::cache::stable_hash;
use crate::suggest;

/// How many word sets of the unknown name are looked up at most: every subset of up to 12
/// distinct words. Names with more words are matched against their smaller subsets only.
const MAX_WORD_SET_LOOKUPS: usize = 4096;

/// Postings as sorted numbers, each a key's high 32 bits above a position ([`posting`]): the
/// postings of a key are one run, positions ascending. Half the size of `(u64, u32)` pairs
/// with their padding, and sorted as plain integers; a key's low bits are dropped, which
/// only lets two keys share a run now and then, adding candidates that scoring turns down.
///
/// A key's run is found through a directory of where the entries of each value of their top
/// bits start, with about one value per two entries: keys are hashes, spread evenly, so the
/// directory leads to a few entries, searched from there. A look-up tries every subset of
/// an unknown name's words, most of which no name has, where two binary searches of every
/// entry for each took a cache miss a step once the postings outgrew the caches: through
/// the directory the look-ups take 12% less time at 100,000 ids, 6% less at a million.
struct Postings {
    entries: Vec<u64>,
    /// `starts[d]` is the first entry whose top `bits` bits are `d` or more; the last is
    /// the number of entries.
    starts: Vec<usize>,
    /// How many top bits of an entry the directory goes by: at most 32, the key's bits a
    /// posting keeps.
    bits: u32,
}

/// Known names, indexed for [`NameIndex::candidates`].
pub struct NameIndex<'n> {
    /// The names, distinct, sorted by their groups, then by length in characters (see
    /// [`NameIndex::with_distinct_groups`]): the names of some groups and a range of
    /// lengths are a range of positions, which every posting list (positions, ascending)
    /// narrows to by two binary searches.
    names: Vec<&'n str>,
    /// Each name's length in characters, by position (so ascending within a run).
    lengths: Vec<usize>,
    /// The names of each distinct set of groups, as a run of positions, in position order:
    /// a caller that wants names of some groups counts shared bigrams over those groups'
    /// runs only. A corpus's did-you-mean for a field that cites one collection of three
    /// counts over that collection's ids, not every id.
    runs: Runs,
    /// How many characters of each kind each name has (see [`CharCounts`]), by position.
    counts: Vec<CharCounts>,
    /// Each name's groups (see [`NameIndex::with_groups`]), by position.
    groups: Vec<u64>,
    by_bigram: BigramPostings,
    /// A posting for each distinct word of each name, words by [`word_hashes`], sorted.
    /// Sorted numbers instead of a map of lists, so that building them is two parallel steps
    /// and no allocation per word. Two words may share a key, which only adds a candidate
    /// that scoring then turns down.
    by_word: Postings,
    /// A posting for each name with words, its word set keyed by [`word_set_key`], sorted.
    /// Two word sets may share a key, with the same effect.
    by_word_set: Postings,
}

/// A name that may be close to an unknown one (see [`NameIndex::candidates`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Candidate<'n> {
    /// The known name.
    pub name: &'n str,
    /// Its groups (see [`NameIndex::with_groups`]).
    pub groups: u64,
    /// Whether it may share words with the unknown name: `false` when it was found only as
    /// a possible typo and the word postings were searched in full, which would have found
    /// it too. Scoring spares such a name the word comparison, which turns it down.
    pub may_share_words: bool,
}

impl<'n> NameIndex<'n> {
    /// Indexes `names` (duplicates are indexed once), all in every group.
    pub fn new(names: impl IntoIterator<Item = &'n str>) -> Self {
        NameIndex::with_groups(names.into_iter().map(|name| (name, u64::MAX)))
    }

    /// Indexes `names`, each with the groups it is in as a set of 64 bits: a caller asks
    /// for the names of some groups (see [`NameIndex::candidates`]), and each comes with its
    /// groups, so that it tells the others apart without looking each up. A name given
    /// twice is indexed once, in the groups of both.
    pub fn with_groups(names: impl IntoIterator<Item = (&'n str, u64)>) -> Self {
        let mut names: Vec<(&'n str, u64)> = names.into_iter().collect();
        names.par_sort_unstable();
        dedup_merging(&mut names, |a| a.0, |kept, later| kept.1 |= later.1);
        NameIndex::with_distinct_groups(names)
    }

    /// [`NameIndex::with_groups`] of names given once each: a caller that knows them so
    /// (the id index does: it has met every id) spares the index sorting them by name to
    /// find the ones given twice, 9 of its 40 ms at 100,000 ids.
    ///
    /// Positions follow the groups, then the length, then the order the names are given
    /// in: a look-up finds the same names in any order, and ranks them by their own
    /// merits.
    pub fn with_distinct_groups(names: Vec<(&'n str, u64)>) -> Self {
        // Each name's characters are counted on every core: the names lie wherever their
        // records were allocated, and reading them is most of the time this step takes.
        let names: Vec<(usize, &'n str, u64)> = names
            .into_par_iter()
            .map(|(name, groups)| (name.chars().count(), name, groups))
            .collect();
        let (names, runs) = by_groups(&by_length(&names));
        let lengths = names.iter().map(|&(length, _, _)| length).collect();
        let groups = names.iter().map(|&(_, _, groups)| groups).collect();
        let names: Vec<&'n str> = names.into_iter().map(|(_, name, _)| name).collect();
        // The bigram postings are made in two passes over the names, in position order; the
        // rest is worked out in parallel beside them.
        let (by_bigram, (counts, (by_word, by_word_set))) = rayon::join(
            || BigramPostings::new(&names),
            || {
                rayon::join(
                    || names.par_iter().map(|name| CharCounts::of(name)).collect(),
                    || word_postings(&names),
                )
            },
        );
        NameIndex {
            names,
            lengths,
            runs,
            counts,
            groups,
            by_bigram,
            by_word,
            by_word_set,
        }
    }

    /// Every known name in any of `groups` that may be within `budget` edits of `unknown`,
    /// or share all the words of one of the two with the other; distinct, in position
    /// order. A superset: the caller scores each.
    pub fn candidates(&self, unknown: &str, budget: usize, groups: u64) -> Vec<Candidate<'n>> {
        let mut words = Vec::new();
        word_hashes(unknown, &mut words);
        let mut by_words = if words.len() >= 2 || suggest::words(unknown).count() >= 2 {
            self.names_with_all(&words)
        } else {
            Vec::new()
        };
        let every_set = self.names_within(&words, &mut by_words);
        // Each found position is tagged, in its lowest bit, with whether the name may share
        // words; a name found by both ways is found at the same position twice (names are
        // distinct), and keeps the tag of either. Numbers are cheaper to sort than strings.
        let tagged = |position: u32, may_share_words: bool| {
            u64::from(position) << 1 | u64::from(may_share_words)
        };
        let mut found: Vec<u64> = by_words.iter().map(|&p| tagged(p, true)).collect();
        found.extend(
            self.typo_candidates(unknown, budget, groups)
                .into_iter()
                .map(|p| tagged(p, !every_set)),
        );
        found.sort_unstable();
        dedup_merging(
            &mut found,
            |entry| *entry >> 1,
            |kept, later| *kept |= later,
        );
        // Sized for every position found: a filtered collect starts small and grows, and a
        // look-up at 100,000 ids finds 63 on average, up to 783.
        let mut candidates = Vec::with_capacity(found.len());
        candidates.extend(
            found
                .into_iter()
                .filter_map(|entry| {
                    let at = usize::try_from(entry >> 1).ok()?;
                    Some(Candidate {
                        name: self.names.get(at)?,
                        groups: *self.groups.get(at)?,
                        may_share_words: entry & 1 == 1,
                    })
                })
                .filter(|candidate| candidate.groups & groups != 0),
        );
        candidates
    }

    /// The names in any of `groups` that may be within `budget` edits of `unknown`, in
    /// position order, without the names that may only share its words: for a caller that
    /// accepts typos alone. A superset, as [`NameIndex::candidates`] is.
    pub fn typo_names(
        &self,
        unknown: &str,
        budget: usize,
        groups: u64,
    ) -> impl Iterator<Item = &'n str> + '_ {
        self.typo_candidates(unknown, budget, groups)
            .into_iter()
            .filter_map(|position| self.names.get(position as usize).copied())
    }

    /// The names in any of `groups` within `budget` edits' reach of `unknown`, ascending:
    /// for a name with enough bigrams, those that share all but `3 * budget` of them
    /// (counted over the postings of every bigram of the unknown name, see
    /// [`SharedCounts`]); for a shorter name, those of a length within `budget`. Either way
    /// a name must also have all but `budget` of the unknown's characters and the unknown
    /// all but `budget` of its own ([`CharCounts::within`]), tested on counts made when the
    /// index was, before any string is read.
    fn typo_candidates(&self, unknown: &str, budget: usize, groups: u64) -> Vec<u32> {
        let length = unknown.chars().count();
        let counts = CharCounts::of(unknown);
        let reachable = |position: &u32| {
            let at = *position as usize;
            match (self.counts.get(at), self.lengths.get(at)) {
                (Some(other), Some(&other_length)) => {
                    counts.within(length, other, other_length, budget)
                }
                _ => false,
            }
        };
        let bigrams = bigrams(unknown);
        let needed = bigrams.len().checked_sub(3 * budget).filter(|&n| n > 0);
        let mut found = Vec::new();
        let mut rows = Vec::with_capacity(bigrams.len());
        for (_, run) in self.runs.iter().filter(|(of, _)| of & groups != 0) {
            let lengths = self
                .lengths
                .get(run.start as usize..run.end as usize)
                .unwrap_or_default();
            let in_run = |offset: usize| u32::try_from(offset).map_or(run.end, |o| run.start + o);
            let first = in_run(lengths.partition_point(|&l| l < length.saturating_sub(budget)));
            let end = in_run(lengths.partition_point(|&l| l <= length + budget));
            let Some(needed) = needed else {
                found.extend((first..end).filter(reachable));
                continue;
            };
            let mut shared = SharedCounts::new(first..end, bigrams.len());
            rows.clear();
            for bigram in &bigrams {
                match self.by_bigram.get(*bigram) {
                    Posting::Positions(list) => {
                        let within = list.partition_point(|&p| p < first)
                            ..list.partition_point(|&p| p < end);
                        for &position in list.get(within).unwrap_or_default() {
                            shared.add_one(position);
                        }
                    }
                    Posting::Bits(row) => rows.push(row),
                }
            }
            shared.add_rows(&rows);
            found.extend(shared.at_least(needed).filter(reachable));
        }
        found
    }

    /// The names that have every one of `words`: the intersection of their postings,
    /// rarest first, so the work is bounded by the rarest word's list. The other lists are
    /// walked alongside it, each from where the last name was looked for: positions ascend
    /// in every list, and a gallop from there finds the next in a few steps, where a binary
    /// search of the whole list took a dozen (7% of the look-ups' instructions at 100,000
    /// ids).
    fn names_with_all(&self, words: &[u64]) -> Vec<u32> {
        let mut lists: Vec<&[u64]> = Vec::with_capacity(words.len());
        for &word in words {
            match self.by_word.of(word) {
                [] => return Vec::new(),
                list => lists.push(list),
            }
        }
        lists.sort_by_key(|list| list.len());
        let Some((rarest, others)) = lists.split_first_mut() else {
            return Vec::new();
        };
        // Within its word's run, a posting is found by its whole value.
        let mut found = Vec::with_capacity(rarest.len());
        for &entry in rarest.iter() {
            let position = position_of(entry);
            let in_all = others.iter_mut().all(|list| {
                let Some(&first) = list.first() else {
                    return false;
                };
                skip_below(list, posting(first, position))
            });
            if in_all {
                found.push(position);
            }
        }
        found
    }

    /// Adds to `found` the names made only of some of `words` (distinct and sorted): one
    /// lookup per subset, smallest subsets first, at most [`MAX_WORD_SET_LOOKUPS`]. Returns
    /// whether every subset was looked up, so that no name of the unknown's words was left
    /// out.
    fn names_within(&self, words: &[u64], found: &mut Vec<u32>) -> bool {
        let mut lookups = 0;
        for size in 1..=words.len() {
            let mut chosen: Vec<usize> = (0..size).collect();
            loop {
                if lookups == MAX_WORD_SET_LOOKUPS {
                    return false;
                }
                lookups += 1;
                let key = word_set_key(chosen.iter().filter_map(|&at| words.get(at).copied()));
                found.extend(
                    self.by_word_set
                        .of(key)
                        .iter()
                        .map(|&entry| position_of(entry)),
                );
                if !next_combination(&mut chosen, words.len()) {
                    break;
                }
            }
        }
        true
    }
}

/// The run of positions of each set of groups (see [`NameIndex::runs`]).
type Runs = Vec<(u64, std::ops::Range<u32>)>;

/// Names (length, name, groups) in order of their groups, each set of groups' names kept in
/// the order given, and the run of positions of each set. A counting sort: there are few
/// sets (one per collection, and one per mix of collections that share an id), where a
/// second comparison sort of 100,000 names cost 28 million instructions, 6% of building
/// the index.
fn by_groups<'n>(names: &[(usize, &'n str, u64)]) -> (Vec<(usize, &'n str, u64)>, Runs) {
    // Each set of groups, in order.
    let mut sets: Vec<u64> = Vec::new();
    for &(_, _, groups) in names {
        if !sets.contains(&groups) {
            sets.push(groups);
        }
    }
    sets.sort_unstable();
    let (ordered, starts) = by_bucket(names, sets.len(), |name| {
        sets.partition_point(|&set| set < name.2)
    });
    let runs = sets
        .iter()
        .zip(starts.iter().zip(starts.iter().skip(1)))
        .map(|(&groups, (&from, &to))| {
            let [from, to] = [from, to].map(|p| u32::try_from(p).unwrap_or(u32::MAX));
            (groups, from..to)
        })
        .collect();
    (ordered, runs)
}

/// Names (length, name, groups) in order of their lengths, names of one length in the order
/// given: a counting sort, as lengths are few.
fn by_length<'n>(names: &[(usize, &'n str, u64)]) -> Vec<(usize, &'n str, u64)> {
    let longest = names
        .iter()
        .map(|&(length, _, _)| length)
        .max()
        .unwrap_or(0);
    by_bucket(names, longest + 1, |name| name.0).0
}

/// Removes each run of entries with the same `key` but its first, merging the others into
/// it with `merge`: sorted entries that differ only in their flags become one with all of
/// them.
fn dedup_merging<T, K: PartialEq>(
    entries: &mut Vec<T>,
    key: impl Fn(&T) -> K,
    merge: impl Fn(&mut T, &T),
) {
    entries.dedup_by(|later, kept| {
        let same = key(later) == key(kept);
        if same {
            merge(kept, later);
        }
        same
    });
}

/// The posting of `position` under `key`: the key's high 32 bits above the position.
fn posting(key: u64, position: u32) -> u64 {
    (key >> 32) << 32 | u64::from(position)
}

/// The position of a posting: its low 32 bits, which the cast keeps.
fn position_of(entry: u64) -> u32 {
    entry as u32
}

impl Postings {
    /// Postings of `entries`, sorted.
    fn new(entries: Vec<u64>) -> Postings {
        let bits = (usize::BITS - (entries.len() / 2).leading_zeros()).min(32);
        let starts = buckets::starts(&entries, 1 << bits, |&entry| directory_slot(entry, bits));
        Postings {
            entries,
            starts,
            bits,
        }
    }

    /// The run of `key`.
    fn of(&self, key: u64) -> &[u64] {
        let slot = directory_slot(key, self.bits);
        let bucket = match (self.starts.get(slot), self.starts.get(slot + 1)) {
            (Some(&start), Some(&end)) => self.entries.get(start..end).unwrap_or_default(),
            _ => &[],
        };
        let start = bucket.partition_point(|&entry| entry < posting(key, 0));
        let end = bucket.partition_point(|&entry| entry <= posting(key, u32::MAX));
        bucket.get(start..end).unwrap_or_default()
    }
}

/// The slot of [`Postings::starts`] of an entry or key: its top `bits` bits.
fn directory_slot(entry: u64, bits: u32) -> usize {
    entry
        .checked_shr(u64::BITS - bits)
        .map_or(0, |slot| slot as usize)
}

/// Moves `list` (ascending) past its entries below `target` and tells whether `target` is
/// the first left: by galloping, looking 1, 2, 4 ... entries ahead until one is not below
/// it, then a binary search within the last stride.
fn skip_below(list: &mut &[u64], target: u64) -> bool {
    let mut bound = 1;
    while list.get(bound - 1).is_some_and(|&entry| entry < target) {
        bound *= 2;
    }
    // Every entry before `bound / 2` is below `target`, and the first not below it, if any,
    // is before `bound`.
    let start = bound / 2;
    let end = bound.min(list.len());
    let within = list.get(start..end).unwrap_or_default();
    let skipped = start + within.partition_point(|&entry| entry < target);
    *list = list.get(skipped..).unwrap_or_default();
    list.first() == Some(&target)
}

/// [`NameIndex::by_word`] and [`NameIndex::by_word_set`] of `names`, by position.
fn word_postings(names: &[&str]) -> (Postings, Postings) {
    // A chunk of names at a time, one buffer of word hashes reused for all its names: a
    // list per name, and rayon's concatenation of per-name lists, cost more than the rest.
    const CHUNK: usize = 4096;
    let parts: Vec<(Vec<u64>, Vec<u64>)> = names
        .par_chunks(CHUNK)
        .enumerate()
        .map(|(chunk, names)| {
            let mut by_word = Vec::with_capacity(names.len() * 3);
            let mut by_word_set = Vec::with_capacity(names.len());
            let mut words = Vec::new();
            // Positions fit in a `u32`, as everywhere in the index.
            for (position, name) in (chunk as u32 * CHUNK as u32..).zip(names) {
                word_hashes(name, &mut words);
                by_word.extend(words.iter().map(|&word| posting(word, position)));
                if !words.is_empty() {
                    by_word_set.push(posting(word_set_key(words.iter().copied()), position));
                }
            }
            (by_word, by_word_set)
        })
        .collect();
    let mut by_word = Vec::with_capacity(parts.iter().map(|(words, _)| words.len()).sum());
    let mut by_word_set = Vec::with_capacity(names.len());
    for (words, sets) in parts {
        by_word.extend(words);
        by_word_set.extend(sets);
    }
    rayon::join(
        || sort_postings(&mut by_word),
        || sort_postings(&mut by_word_set),
    );
    (Postings::new(by_word), Postings::new(by_word_set))
}

/// Sorts postings made in position order, which is the order of their low 32 bits: by
/// [`radix_sort`] of the key's bits alone, or when there are fewer than a pass of it has
/// digits to count, by comparison (on every core, as the radix sort is not).
fn sort_postings(postings: &mut Vec<u64>) {
    if postings.len() < 1 << RADIX_BITS {
        postings.par_sort_unstable();
    } else {
        radix_sort(postings, u32::BITS);
    }
}

/// How many bits of a value [`radix_sort`] sorts by in one pass.
const RADIX_BITS: u32 = 16;

/// Sorts `values` ascending, given that they are in the order of their bits below `from`
/// already: a least-significant-digit radix sort from that bit, [`RADIX_BITS`] a pass, each
/// pass counting the values of every digit and then moving each value to its place, in
/// order, so that what earlier passes (or the values as given) sorted stays sorted. A pass
/// whose digit is the same in every value moves nothing and is skipped. Four linear passes
/// at most, where comparison sorts of the 450,000 word postings of 100,000 ids took about
/// 100 million instructions, a fifth of building the index; postings are made in position
/// order, and sorting only their keys' bits halves that (8 to 4 ms at 100,000 ids).
// Digits are masked to below `counts.len()`, and the counts, once summed, are offsets below
// `values.len()`, the length of `scratch`.
#[allow(clippy::indexing_slicing)]
fn radix_sort(values: &mut Vec<u64>, from: u32) {
    const DIGITS: usize = 1 << RADIX_BITS;
    let digit = |value: u64, shift: u32| (value >> shift) as usize & (DIGITS - 1);
    let mut scratch = vec![0u64; values.len()];
    let mut counts = vec![0usize; DIGITS];
    for shift in (from..u64::BITS).step_by(RADIX_BITS as usize) {
        counts.fill(0);
        for &value in values.iter() {
            counts[digit(value, shift)] += 1;
        }
        if counts.contains(&values.len()) {
            continue;
        }
        let mut start = 0;
        for count in &mut counts {
            let n = *count;
            *count = start;
            start += n;
        }
        for &value in values.iter() {
            let at = &mut counts[digit(value, shift)];
            scratch[*at] = value;
            *at += 1;
        }
        std::mem::swap(values, &mut scratch);
    }
}

/// How many ASCII character pairs there are: the slots of [`BigramPostings`]'s table.
const ASCII_PAIRS: usize = 128 * 128;

/// A pair's slot in [`BigramPostings`]'s table with no list of positions: its names are a
/// row of bits instead.
const NO_ROW: u32 = u32::MAX;

/// Posting lists by character bigram: for ASCII pairs, as ids are, a dense table; for the
/// rest, a map of lists.
///
/// A pair that more than one name in 32 has is kept as a row of bits, one per name, and the
/// others as lists of positions. The row is then the smaller of the two (a position takes
/// 32 bits), and it is what counting wants: [`SharedCounts`] adds a row 64 names at a time.
/// In 100,000 generated ids, 207 of 530 pairs are rows, and they hold nine postings in ten.
///
/// The lists are laid end to end in one array, each pair's found by where it starts: they
/// are counted in a first pass over the names and filled in a second, where a list per
/// pair, grown a push at a time, was copied on every growth and took twice the memory,
/// which the kernel must zero before handing it out.
struct BigramPostings {
    /// Where each ASCII pair's positions start in `positions`, and after the last pair, its
    /// end: `ASCII_PAIRS + 1` of them. A pair kept as a row has none.
    starts: Vec<u32>,
    positions: Vec<u32>,
    /// Each ASCII pair's row in `rows`, or [`NO_ROW`].
    row_of: Vec<u32>,
    /// The rows, `words` `u64`s each: bit `p % 64` of word `p / 64` is set when the name
    /// at position `p` has the pair.
    rows: Vec<u64>,
    words: usize,
    other: HashMap<(char, char), Vec<u32>>,
}

/// The postings of one bigram (see [`BigramPostings`]).
enum Posting<'p> {
    /// Positions, ascending.
    Positions(&'p [u32]),
    /// A bit per position.
    Bits(&'p [u64]),
}

impl BigramPostings {
    /// The postings of `names`, by position: each name once under each of its distinct
    /// bigrams, positions ascending.
    // Slots come from `for_each_slot`, below `ASCII_PAIRS`; `next` holds offsets that the
    // counting pass made room for, rows hold a word for every position, and `ends` are
    // ascending offsets into `slots`, the last its length.
    #[allow(clippy::indexing_slicing)]
    fn new(names: &[&str]) -> Self {
        let mut last_seen = vec![u32::MAX; ASCII_PAIRS];
        let mut counts = vec![0u32; ASCII_PAIRS];
        let mut other: HashMap<(char, char), Vec<u32>> = HashMap::new();
        // Each name's distinct ASCII pairs, as slots (below 2^14), one name after another,
        // and where each name's end: the second pass reads them back instead of pairing and
        // deduplicating every name's characters again.
        let mut slots: Vec<u16> = Vec::with_capacity(names.iter().map(|name| name.len()).sum());
        let mut ends: Vec<usize> = Vec::with_capacity(names.len());
        for (position, name) in (0u32..).zip(names) {
            for_each_slot(name, |pair| match pair {
                Ok(slot) if last_seen[slot] != position => {
                    last_seen[slot] = position;
                    counts[slot] += 1;
                    slots.push(slot as u16);
                }
                Ok(_) => {}
                Err(pair) => {
                    let list = other.entry(pair).or_default();
                    if list.last() != Some(&position) {
                        list.push(position);
                    }
                }
            });
            ends.push(slots.len());
        }
        let words = names.len().div_ceil(64);
        let mut row_of = vec![NO_ROW; ASCII_PAIRS];
        let mut rows_made = 0u32;
        let mut starts = vec![0u32; ASCII_PAIRS + 1];
        for slot in 0..ASCII_PAIRS {
            let listed = if counts[slot] as usize * 32 > names.len() {
                row_of[slot] = rows_made;
                rows_made += 1;
                0
            } else {
                counts[slot]
            };
            starts[slot + 1] = starts[slot] + listed;
        }
        let mut next = starts.clone();
        let mut positions = vec![0u32; starts[ASCII_PAIRS] as usize];
        let mut rows = vec![0u64; rows_made as usize * words];
        let mut start = 0;
        for (position, &end) in (0u32..).zip(&ends) {
            for &slot in &slots[start..end] {
                let slot = usize::from(slot);
                match row_of[slot] {
                    NO_ROW => {
                        positions[next[slot] as usize] = position;
                        next[slot] += 1;
                    }
                    row => {
                        let at = position as usize;
                        rows[row as usize * words + at / 64] |= 1 << (at % 64);
                    }
                }
            }
            start = end;
        }
        BigramPostings {
            starts,
            positions,
            row_of,
            rows,
            words,
            other,
        }
    }

    fn get(&self, (a, b): (char, char)) -> Posting<'_> {
        let Some(slot) = ascii_slot(a, b) else {
            return Posting::Positions(self.other.get(&(a, b)).map_or(&[], Vec::as_slice));
        };
        match self.row_of.get(slot).copied().unwrap_or(NO_ROW) {
            NO_ROW => {
                let start = self.starts.get(slot).copied().unwrap_or_default();
                let end = self.starts.get(slot + 1).copied().unwrap_or_default();
                Posting::Positions(
                    self.positions
                        .get(start as usize..end as usize)
                        .unwrap_or_default(),
                )
            }
            row => {
                let start = row as usize * self.words;
                Posting::Bits(self.rows.get(start..start + self.words).unwrap_or_default())
            }
        }
    }
}

/// How many of an unknown name's bigrams each name of a range of positions shares, counted
/// 64 names at a time: the counts are kept as bit planes, plane `j` holding bit `j` of the
/// count of each name, and a row of bits is added to all 64 counts of a word with a few
/// bitwise operations per plane (a ripple-carry adder across the planes), where a list
/// adds one to one counter per posting.
struct SharedCounts {
    /// The positions counted.
    range: std::ops::Range<u32>,
    /// Words per plane.
    words: usize,
    /// The planes, one after the other, `words` each.
    planes: Vec<u64>,
    /// Scratch for [`SharedCounts::add_row`]'s carries, a word each.
    carry: Vec<u64>,
    /// Scratch for [`SharedCounts::add_rows`]'s bits of weight two, a word each.
    twos: Vec<u64>,
}

impl SharedCounts {
    /// Counts of zero for the names at `range`, which count up to `most`.
    fn new(range: std::ops::Range<u32>, most: usize) -> Self {
        let first_word = range.start as usize / 64;
        // At least one word, as planes are split into words: an empty range counts nothing
        // in one.
        let words = (range.end as usize)
            .div_ceil(64)
            .saturating_sub(first_word)
            .max(1);
        let planes = (usize::BITS - most.leading_zeros()) as usize;
        SharedCounts {
            range,
            words,
            planes: vec![0; planes * words],
            carry: Vec::with_capacity(words),
            twos: Vec::with_capacity(words),
        }
    }

    /// The index of the word holding the range's first position, among the words of
    /// every position from 0.
    fn first_word(&self) -> usize {
        self.range.start as usize / 64
    }

    /// The words of `row`, a bit per position from 0, that hold the range's positions.
    fn of_range<'r>(&self, row: &'r [u64]) -> &'r [u64] {
        let first_word = self.first_word();
        row.get(first_word..first_word + self.words)
            .unwrap_or_default()
    }

    /// Adds one to the count of the name at `position`, within the range.
    fn add_one(&mut self, position: u32) {
        let at = position as usize;
        let mut carry = 1u64 << (at % 64);
        // The name's word in each plane, a plane's length apart: stepped through by hand,
        // as splitting the planes into chunks for each of many postings cost four times
        // the adding.
        let mut word = at / 64 - self.first_word();
        while let Some(bits) = self.planes.get_mut(word) {
            carry = add_bits(bits, carry);
            if carry == 0 {
                return;
            }
            word += self.words;
        }
    }

    /// Adds one to the count of every name whose bit is set in `row`, a bit per position
    /// from 0. Bits beside the range land in the words at its ends, which
    /// [`SharedCounts::at_least`] leaves out.
    fn add_row(&mut self, row: &[u64]) {
        let row = self.of_range(row);
        self.carry.clear();
        self.carry.extend_from_slice(row);
        carry_through(self.planes.chunks_exact_mut(self.words), &mut self.carry);
    }

    /// Adds one to the count of every name for each of `rows` whose bit it has (see
    /// [`SharedCounts::add_row`]), three rows at a time: a full adder sums the three bits
    /// of each name into one of weight one and one of weight two, which are added to the
    /// first two planes, and what carries from them to the planes above; the planes are read
    /// and written once for three rows, in half the operations of adding each alone.
    fn add_rows(&mut self, rows: &[&[u64]]) {
        let mut threes = rows.chunks_exact(3);
        for three in &mut threes {
            if let [a, b, c] = three {
                self.add_three(a, b, c);
            }
        }
        for row in threes.remainder() {
            self.add_row(row);
        }
    }

    /// [`SharedCounts::add_rows`] of three rows.
    fn add_three(&mut self, a: &[u64], b: &[u64], c: &[u64]) {
        let (a, b, c) = (self.of_range(a), self.of_range(b), self.of_range(c));
        let mut planes = self.planes.chunks_exact_mut(self.words);
        // `carry` ends as what carries into the second plane from the first, and `twos`
        // as the weight-two bits of the three rows' sums.
        self.carry.clear();
        self.twos.clear();
        if let Some(plane) = planes.next() {
            for (bits, ((a, b), c)) in plane.iter_mut().zip(a.iter().zip(b).zip(c)) {
                let ones = a ^ b ^ c;
                self.twos.push((a & b) | (c & (a ^ b)));
                self.carry.push(add_bits(bits, ones));
            }
        }
        if let Some(plane) = planes.next() {
            for ((bits, carry), two) in plane.iter_mut().zip(&mut self.carry).zip(&self.twos) {
                let sum = *bits ^ *carry ^ two;
                *carry = (*bits & *carry) | (two & (*bits ^ *carry));
                *bits = sum;
            }
        }
        carry_through(planes, &mut self.carry);
    }

    /// The positions of the range whose count is at least `needed`, ascending.
    fn at_least(&self, needed: usize) -> impl Iterator<Item = u32> + '_ {
        (0..self.words).flat_map(move |word| {
            // Compared from the highest plane down: `above` holds the counts already known
            // to be greater, `equal` those equal so far.
            let (mut above, mut equal) = (0u64, u64::MAX);
            for (j, plane) in self.planes.chunks_exact(self.words).enumerate().rev() {
                let bits = plane.get(word).copied().unwrap_or_default();
                if needed >> j & 1 == 1 {
                    equal &= bits;
                } else {
                    above |= equal & bits;
                    equal &= !bits;
                }
            }
            let base = ((self.first_word() + word) * 64) as u32;
            let range = self.range.clone();
            BitPositions(above | equal)
                .map(move |bit| base + bit)
                .filter(move |position| range.contains(position))
        })
    }
}

/// Adds `carry`, a word per word of each plane, to `planes`, lowest first, carrying into
/// each the next. A plane at a time over every word, so that each pass is one simple loop
/// over arrays, which the compiler turns into vector instructions.
fn carry_through<'p>(planes: impl Iterator<Item = &'p mut [u64]>, carry: &mut [u64]) {
    for plane in planes {
        for (bits, carry) in plane.iter_mut().zip(carry.iter_mut()) {
            *carry = add_bits(bits, *carry);
        }
    }
}

/// Adds `carry` to the bits of one plane, 64 counts at a time (a half adder per bit), and
/// returns what carries into the next plane.
fn add_bits(bits: &mut u64, carry: u64) -> u64 {
    let next = *bits & carry;
    *bits ^= carry;
    next
}

/// The positions of the set bits of a word, ascending.
struct BitPositions(u64);

impl Iterator for BitPositions {
    type Item = u32;

    fn next(&mut self) -> Option<u32> {
        (self.0 != 0).then(|| {
            let bit = self.0.trailing_zeros();
            self.0 &= self.0 - 1;
            bit
        })
    }
}

/// Calls `each` with every pair of adjacent characters of `name`, in order.
fn for_each_bigram(name: &str, mut each: impl FnMut(char, char)) {
    let mut chars = name.chars();
    let Some(mut previous) = chars.next() else {
        return;
    };
    for next in chars {
        each(previous, next);
        previous = next;
    }
}

/// Calls `each` with every pair of adjacent characters of `name`, in order: as its slot
/// in [`BigramPostings`]'s table of ASCII pairs, or as the pair when a character is not
/// ASCII. An ASCII name, as ids are, is read as bytes, without decoding characters or
/// testing each pair: building the postings does this for every bigram of every known id.
fn for_each_slot(name: &str, mut each: impl FnMut(Result<usize, (char, char)>)) {
    if name.is_ascii() {
        for pair in name.as_bytes().windows(2) {
            if let [a, b] = pair {
                each(Ok(usize::from(*a) * 128 + usize::from(*b)));
            }
        }
    } else {
        for_each_bigram(name, |a, b| each(ascii_slot(a, b).ok_or((a, b))));
    }
}

fn ascii_slot(a: char, b: char) -> Option<usize> {
    (a.is_ascii() && b.is_ascii()).then(|| usize::from(a as u8) * 128 + usize::from(b as u8))
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
    for_each_bigram(text, |a, b| {
        if !found.contains(&(a, b)) {
            found.push((a, b));
        }
    });
    found
}

/// How many kinds of character [`CharCounts`] tells apart.
const CHAR_KINDS: usize = 32;

/// How many characters of each kind a name has: the letters `a` to `z` (either case) a kind
/// each, the digits two to a kind, `-` a kind, and every other character folded onto one of
/// these. Folding two characters into a kind can only make two names look closer than they
/// are, never farther, so the filter it serves stays a superset; ids are mostly lowercase
/// letters, digits and dashes, which it keeps apart.
///
/// It filters typo candidates better than the set of a name's characters it replaced, which
/// generated engine names, a few syllables each, mostly share: at 100,000 generated records
/// the candidates scored for the 143 unknown ids went from 130,000 to 9,000.
///
/// Each count stops at 255 (see [`CharCounts::within`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct CharCounts([u8; CHAR_KINDS]);

impl CharCounts {
    /// The counts of `name`'s characters.
    fn of(name: &str) -> Self {
        let mut counts = [0u8; CHAR_KINDS];
        // Kinds are below `CHAR_KINDS`, a power of two: the masks only tell the compiler.
        if name.is_ascii() && name.len() <= usize::from(u8::MAX) {
            // No count can pass 255, and a table maps bytes to kinds: this runs for every
            // character of every known id.
            for byte in name.bytes() {
                let kind = ASCII_KINDS.get(usize::from(byte & 0x7f)).copied();
                if let Some(slot) =
                    counts.get_mut(usize::from(kind.unwrap_or(0)) & (CHAR_KINDS - 1))
                {
                    *slot += 1;
                }
            }
        } else {
            for c in name.chars() {
                if let Some(slot) = counts.get_mut(char_kind(c) & (CHAR_KINDS - 1)) {
                    *slot = slot.saturating_add(1);
                }
            }
        }
        CharCounts(counts)
    }

    /// Whether a name of `length` characters with these counts may be within `budget`
    /// edits of one of `other_length` characters with `other`'s. An edit takes at most one
    /// character out of a name and puts at most one in (a transposition neither), so two
    /// names within `budget` edits have in common all but `budget` characters of the longer:
    /// a kind at a time, the lesser of their counts, summed, is at least that (a dozen
    /// vector instructions).
    ///
    /// A count stops at 255, which understates what two names share only when both have
    /// more of a kind: never when this name has at most 255 characters, as an unknown id
    /// has, so a longer one is not tested.
    fn within(
        &self,
        length: usize,
        other: &CharCounts,
        other_length: usize,
        budget: usize,
    ) -> bool {
        if length > usize::from(u8::MAX) {
            return true;
        }
        let shared: usize = self
            .0
            .iter()
            .zip(&other.0)
            .map(|(&a, &b)| usize::from(a.min(b)))
            .sum();
        shared + budget >= length.max(other_length)
    }
}

/// [`char_kind`] of every ASCII character.
// Worked out when compiling, where an index out of range fails the build.
#[allow(clippy::indexing_slicing)]
const ASCII_KINDS: [u8; 128] = {
    let mut kinds = [0u8; 128];
    let mut byte = 0;
    while byte < 128 {
        kinds[byte] = char_kind(byte as u8 as char) as u8;
        byte += 1;
    }
    kinds
};

/// A character's kind in [`CharCounts`].
const fn char_kind(c: char) -> usize {
    match c {
        'a'..='z' => c as usize - 'a' as usize,
        'A'..='Z' => c as usize - 'A' as usize,
        '0'..='9' => 26 + (c as usize - '0' as usize) / 2,
        '-' => 31,
        _ => c as usize % CHAR_KINDS,
    }
}

/// The distinct lowercase words of a name (split at `-` and `_`, as
/// [`crate::suggest::Unknown::score`] does), each as a hash with a fixed seed, sorted, into
/// `words`: one `u64` per word instead of a string, so that sets of words compare, sort and
/// key cheaply, the same within a run and across runs.
fn word_hashes(name: &str, words: &mut Vec<u64>) {
    words.clear();
    words.extend(suggest::words(name).map(|word| {
        if word.bytes().any(|b| b.is_ascii_uppercase()) || !word.is_ascii() {
            // Lowered a character at a time, as scoring compares words: `str::to_lowercase`
            // lowers a final `Σ` to `ς`, which would key `ΟΔΟΣ` apart from `οδοσ`, a word
            // scoring finds the same, and the word postings would miss a name they must find.
            let lowered: String = word.chars().flat_map(char::to_lowercase).collect();
            stable_hash(lowered.as_bytes())
        } else {
            stable_hash(word.as_bytes())
        }
    }));
    words.sort_unstable();
    words.dedup();
}

/// The key of a set of words (hashes, sorted) in [`NameIndex::by_word_set`]: a hash with a
/// fixed seed, so that a name and its subsets are keyed alike within a run and across runs.
fn word_set_key(words: impl Iterator<Item = u64>) -> u64 {
    let mut hasher = foldhash::fast::FixedState::with_seed(0).build_hasher();
    for word in words {
        hasher.write_u64(word);
    }
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suggest;
    use proptest::prelude::*;

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

    /// What is wrong with the candidates for `unknown` among `names`, if anything: every
    /// name scoring accepts must be among them, and every name it accepts for shared words
    /// must be marked as one that may share words.
    fn candidates_missed(names: &[&str], unknown: &str) -> Option<String> {
        let index = NameIndex::new(names.iter().copied());
        let budget = suggest::typo_budget(unknown.chars().count());
        let candidates = index.candidates(unknown, budget, u64::MAX);
        let scoring = suggest::Unknown::new(unknown);
        names.iter().find_map(|&known| {
            let found = candidates.iter().find(|c| c.name == known);
            match found {
                None if scoring.score(known).is_some() => {
                    Some(format!("{unknown}: {known} missing from {candidates:?}"))
                }
                Some(c) if !c.may_share_words && scoring.score_words(known).is_some() => {
                    Some(format!("{unknown}: {known} shares words, marked as not"))
                }
                _ => None,
            }
        })
    }

    #[test]
    fn candidates_include_everything_scoring_accepts() {
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
            assert_eq!(candidates_missed(NAMES, unknown), None);
        }
    }

    #[test]
    fn a_name_of_many_words_marks_every_candidate_as_maybe_sharing_words() {
        // Thirteen words have more subsets than are looked up, so the word postings may
        // have missed a name and scoring must compare words for every candidate.
        let unknown = "a-b-c-d-e-f-g-h-i-j-k-l-m";
        let index = NameIndex::new(["a-b-c-d-e-f-g-h-i-j-k-l-n", "zzz"]);
        let candidates = index.candidates(unknown, suggest::typo_budget(unknown.len()), u64::MAX);
        assert!(!candidates.is_empty());
        assert!(
            candidates.iter().all(|c| c.may_share_words),
            "{candidates:?}"
        );
        let few = NameIndex::new(["kv-cache-offload"]);
        let candidates = few.candidates("kv-cache-offlaod", 5, u64::MAX);
        assert_eq!(
            candidates
                .iter()
                .map(|c| c.may_share_words)
                .collect::<Vec<_>>(),
            [false]
        );
    }

    #[test]
    fn common_words_do_not_make_every_name_a_candidate() {
        let names: Vec<String> = (0..2000)
            .map(|n| format!("nvidia-cache-part{n}-extra{}", n % 7))
            .collect();
        let index = NameIndex::new(names.iter().map(String::as_str));
        let mut words = Vec::new();
        word_hashes("nvidia-cache-part17-extra3-more", &mut words);
        let mut by_words = index.names_with_all(&words);
        assert!(index.names_within(&words, &mut by_words));
        let found: Vec<&str> = by_words
            .iter()
            .map(|&at| index.names[at as usize])
            .collect();
        assert_eq!(found, ["nvidia-cache-part17-extra3"]);
    }

    /// Names from a small vocabulary and alphabet, so that typos, shared words and shared
    /// bigrams are all common, as in a large corpus of related ids.
    fn name() -> impl Strategy<Value = String> {
        let word = prop_oneof![
            prop::sample::select(vec![
                "kv", "cache", "nvidia", "h100", "vllm", "x", "moon", "ΟΔΟΣ", "οδοσ", "Kv",
            ])
            .prop_map(str::to_string),
            "[a-dé]{1,6}",
        ];
        prop::collection::vec(word, 1..5).prop_map(|words| words.join("-"))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1000))]

        #[test]
        fn candidates_are_a_superset_of_what_scoring_accepts(
            names in prop::collection::vec(name(), 1..40),
            unknown in name(),
        ) {
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            let missed = candidates_missed(&names, &unknown);
            prop_assert!(missed.is_none(), "{}", missed.unwrap_or_default());
        }
    }

    /// [`NameIndex::typo_candidates`] worked out the slow way: every name of a length within
    /// `budget` that shares enough of the unknown's bigrams, counted from both names'
    /// bigram sets, and enough of its characters, counted kind by kind from both names'
    /// characters.
    fn typo_candidates_by_hand(
        index: &NameIndex<'_>,
        unknown: &str,
        budget: usize,
        groups: u64,
    ) -> Vec<u32> {
        let length = unknown.chars().count();
        let wanted = bigrams(unknown);
        let needed = wanted.len().checked_sub(3 * budget).filter(|&n| n > 0);
        let kinds = |name: &str| {
            let mut kinds = std::collections::HashMap::<usize, usize>::new();
            name.chars()
                .for_each(|c| *kinds.entry(char_kind(c)).or_default() += 1);
            kinds
        };
        let of_unknown = kinds(unknown);
        (0u32..)
            .zip(&index.names)
            .filter(|&(position, _)| index.groups[position as usize] & groups != 0)
            .filter(|(_, name)| name.chars().count().abs_diff(length) <= budget)
            .filter(|(_, name)| {
                let theirs = bigrams(name);
                needed.is_none_or(|n| wanted.iter().filter(|b| theirs.contains(b)).count() >= n)
            })
            .filter(|(_, name)| {
                let of_name = kinds(name);
                let shared: usize = of_unknown
                    .iter()
                    .map(|(kind, &n)| n.min(of_name.get(kind).copied().unwrap_or(0)))
                    .sum();
                shared + budget >= length.max(name.chars().count())
            })
            .map(|(position, _)| position)
            .collect()
    }

    /// [`CharCounts::within`] of two names, counted from them.
    fn within(a: &str, b: &str, budget: usize) -> bool {
        let (a_length, b_length) = (a.chars().count(), b.chars().count());
        CharCounts::of(a).within(a_length, &CharCounts::of(b), b_length, budget)
    }

    #[test]
    fn character_counts_turn_down_names_with_too_few_characters_in_common() {
        // One substitution: five of six characters in common.
        assert!(within("mordak", "mordax", 1));
        // The same letters, some twice as often: a set of letters would not tell.
        assert!(!within("mordak", "moordaak", 1));
        assert!(within("mordak", "moordaak", 2));
        // Digits two to a kind, other characters folded: never farther than they are.
        assert!(within("h100-x", "h101_x", 2));
        assert!(within("οδος", "οδοσ", 1));
    }

    #[test]
    fn character_counts_stop_at_255_without_turning_down_a_near_name() {
        let a = |n| "a".repeat(n);
        // A known name past 255 of a kind: the unknown's exact count is what they share.
        assert!(within(&a(255), &a(258), 5));
        assert!(!within(&a(250), &a(258), 5));
        // An unknown name past 255 characters is not tested on counts at all.
        assert!(within(&a(300), &format!("{}bb", a(298)), 5));
    }

    #[test]
    fn frequent_bigrams_are_rows_of_bits_and_the_rest_lists() {
        let names: Vec<String> = (0..100).map(|n| format!("cache-{n}")).collect();
        let index = NameIndex::new(names.iter().map(String::as_str));
        assert!(matches!(index.by_bigram.get(('c', 'a')), Posting::Bits(_)));
        assert!(matches!(
            index.by_bigram.get(('1', '7')),
            Posting::Positions([_])
        ));
        let found: Vec<&str> = index
            .typo_candidates("cache-17", 2, u64::MAX)
            .into_iter()
            .map(|at| index.names[at as usize])
            .collect();
        assert!(
            found.contains(&"cache-17") && found.contains(&"cache-71"),
            "{found:?}"
        );
        assert_eq!(
            index.typo_candidates("cache-17", 2, u64::MAX),
            typo_candidates_by_hand(&index, "cache-17", 2, u64::MAX)
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// Counting shared bigrams over rows of bits and lists of positions finds exactly
        /// the names that sharing enough bigrams finds: enough names of a small vocabulary
        /// that some bigrams are rows, ranges of lengths that start and end inside a word.
        #[test]
        fn typo_candidates_are_the_names_sharing_enough_bigrams(
            names in prop::collection::vec(name(), 1..300),
            unknown in name(),
            budget in 0usize..4,
        ) {
            let index = NameIndex::new(names.iter().map(String::as_str));
            prop_assert_eq!(
                index.typo_candidates(&unknown, budget, u64::MAX),
                typo_candidates_by_hand(&index, &unknown, budget, u64::MAX)
            );
        }

        /// Asked for some groups, the index counts over their runs only and finds what it
        /// would find over every name, less the names of no group asked for: names in one
        /// or two of three groups, some given twice in different groups.
        #[test]
        fn typo_candidates_of_some_groups_are_those_of_every_group_in_them(
            names in prop::collection::vec((name(), 1u64..8), 1..300),
            unknown in name(),
            budget in 0usize..4,
            groups in 1u64..8,
        ) {
            let index = NameIndex::with_groups(names.iter().map(|(name, groups)| (name.as_str(), *groups)));
            let every: Vec<u32> = index
                .typo_candidates(&unknown, budget, u64::MAX)
                .into_iter()
                .filter(|&at| index.groups[at as usize] & groups != 0)
                .collect();
            prop_assert_eq!(index.typo_candidates(&unknown, budget, groups), every);
            prop_assert_eq!(
                index.typo_candidates(&unknown, budget, groups),
                typo_candidates_by_hand(&index, &unknown, budget, groups)
            );
            let found = index.candidates(&unknown, budget, groups);
            prop_assert!(found.iter().all(|c| c.groups & groups != 0));
        }
    }

    proptest! {
        // Each case fills the digit counts eight times over: fewer cases than the default.
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// The radix sort sorts as a comparison sort does: values spread over every digit,
        /// and values that share most digits, as postings of one word do; and postings in
        /// position order (several to a position, as a name has several words), by their
        /// keys' bits alone.
        #[test]
        fn radix_sort_sorts(
            mut spread in prop::collection::vec(any::<u64>(), 0..300),
            keys in prop::collection::vec(0u64..4, 0..300),
            per_position in 1usize..4,
        ) {
            let mut expected = spread.clone();
            expected.sort_unstable();
            radix_sort(&mut spread, 0);
            prop_assert_eq!(spread, expected);
            let postings: Vec<u64> = (0u32..)
                .zip(&keys)
                .map(|(position, &key)| posting(key << 62 | key << 32, position))
                .collect();
            let mut reversed: Vec<u64> = postings.iter().rev().copied().collect();
            let mut expected = postings.clone();
            expected.sort_unstable();
            radix_sort(&mut reversed, 0);
            prop_assert_eq!(&reversed, &expected);
            let mut in_position_order: Vec<u64> = keys
                .chunks(per_position)
                .zip(0u32..)
                .flat_map(|(keys, position)| {
                    keys.iter().map(move |&key| posting(key << 62 | key << 32, position))
                })
                .collect();
            let mut expected = in_position_order.clone();
            expected.sort_unstable();
            radix_sort(&mut in_position_order, u32::BITS);
            prop_assert_eq!(in_position_order, expected);
        }
    }

    proptest! {
        /// A key's run, found through the directory, holds every posting of the key and no
        /// other: keys spread over every bit, keys that share their top bits (a slot of the
        /// directory) but not their run, and keys no posting has.
        #[test]
        fn the_directory_finds_each_key_s_postings(
            spread in prop::collection::vec((any::<u64>(), any::<u32>()), 0..300),
            alike in prop::collection::vec((0u64..8, any::<u32>()), 0..100),
            absent in prop::collection::vec(any::<u64>(), 0..20),
        ) {
            let keys = spread
                .iter()
                .copied()
                .chain(alike.iter().map(|&(low, position)| (u64::MAX - (low << 32), position)));
            let mut entries: Vec<u64> =
                keys.map(|(key, position)| posting(key, position)).collect();
            entries.sort_unstable();
            let postings = Postings::new(entries.clone());
            for key in entries.iter().copied().chain(absent) {
                let run: Vec<u64> =
                    entries.iter().copied().filter(|e| e >> 32 == key >> 32).collect();
                prop_assert_eq!(postings.of(key), run.as_slice());
            }
        }
    }

    proptest! {
        /// Skipping through a list by galloping finds each of a rising run of targets as a
        /// binary search of the whole list does, and leaves none of the entries not below
        /// the target behind.
        #[test]
        fn galloping_finds_what_a_binary_search_finds(
            mut list in prop::collection::vec(0u64..200, 0..120),
            mut targets in prop::collection::vec(0u64..220, 0..40),
        ) {
            list.sort_unstable();
            list.dedup();
            targets.sort_unstable();
            let mut rest: &[u64] = &list;
            for target in targets {
                let found = skip_below(&mut rest, target);
                prop_assert_eq!(found, list.binary_search(&target).is_ok());
                let below = list.partition_point(|&entry| entry < target);
                prop_assert_eq!(rest, &list[below..]);
            }
        }
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
