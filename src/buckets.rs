//! Grouping items by a small integer key in two passes (a counting sort), for the indexes
//! that split their items into buckets: a comparison sort moves every item log n times,
//! this once, and keeps each bucket's items in the order given, which the indexes rely on
//! to keep an id's first record first.

/// `items` grouped by bucket (`bucket_of`, below `buckets`; an item past the last bucket is
/// dropped), each bucket's items in the order given, with where each bucket's run starts:
/// `buckets + 1` offsets, the last one the number of items kept.
pub fn by_bucket<T: Copy>(
    items: &[T],
    buckets: usize,
    bucket_of: impl Fn(&T) -> usize,
) -> (Vec<T>, Vec<usize>) {
    let starts = starts(items, buckets, &bucket_of);
    let Some(&first) = items.first() else {
        return (Vec::new(), starts);
    };
    let mut next = starts.clone();
    let mut grouped = vec![first; starts.last().copied().unwrap_or(0)];
    for &item in items {
        if let Some(at) = next.get_mut(bucket_of(&item))
            && let Some(slot) = grouped.get_mut(*at)
        {
            *slot = item;
            *at += 1;
        }
    }
    (grouped, starts)
}

/// Where each bucket's run of `items` starts once they are grouped by bucket (`bucket_of`,
/// below `buckets`; an item past the last bucket is not counted): `buckets + 1` offsets,
/// the last one the number of items counted. The first pass of [`by_bucket`], and all a
/// caller needs whose items are in bucket order already.
pub fn starts<T>(items: &[T], buckets: usize, bucket_of: impl Fn(&T) -> usize) -> Vec<usize> {
    let mut starts = vec![0usize; buckets + 1];
    for item in items {
        if let Some(count) = starts.get_mut(bucket_of(item) + 1) {
            *count += 1;
        }
    }
    let mut counted = 0;
    for at in &mut starts {
        counted += *at;
        *at = counted;
    }
    starts
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The grouping is the stable sort by bucket, without the items past the last
        /// bucket, and each run starts where the sort puts its bucket's first item.
        #[test]
        fn items_are_grouped_as_a_stable_sort_groups_them(
            items in proptest::collection::vec((0usize..7, any::<u16>()), 0..60),
            buckets in 0usize..6,
        ) {
            let (grouped, starts) = by_bucket(&items, buckets, |item| item.0);
            let mut sorted: Vec<(usize, u16)> =
                items.iter().copied().filter(|item| item.0 < buckets).collect();
            sorted.sort_by_key(|item| item.0);
            prop_assert_eq!(&grouped, &sorted);
            prop_assert_eq!(starts.len(), buckets + 1);
            for (bucket, &start) in starts.iter().enumerate() {
                prop_assert_eq!(start, sorted.partition_point(|item| item.0 < bucket));
            }
        }
    }
}
