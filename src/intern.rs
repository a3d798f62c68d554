//! Field names and lists of collections, interned for the life of the process.
//!
//! Every reference a record writes names its field (`affects`) and the collections it may
//! point at, and a corpus writes hundreds of thousands of them. Shared as `Arc`s, each copy
//! and drop of a reference touched the one count of its field's name from both threads, and
//! the count's cache line crossed between the cores each time: the `lock incq` on it took
//! 59% of resolving's samples at 100,000 records. Interned, a reference holds `&'static`
//! slices, copied as two words without touching anything shared, as rustc's interned
//! symbols are.
//!
//! What is interned is what schemas declare: a few dozen names and lists in a corpus. The
//! same name or list is interned once, however often schemas are loaded again (an editor
//! reloads them on every change to a schema), so the memory kept grows only with the
//! distinct names and lists a process has met.

use std::collections::BTreeSet;
use std::sync::{Mutex, PoisonError};

static FIELDS: Mutex<BTreeSet<&'static str>> = Mutex::new(BTreeSet::new());
static COLLECTIONS: Mutex<BTreeSet<&'static [usize]>> = Mutex::new(BTreeSet::new());

/// A field's name, interned: the same name always gives the same slice.
pub fn field(name: &str) -> &'static str {
    intern(&FIELDS, name, |name| Box::leak(Box::from(name)))
}

/// A list of collections (by index), interned: the same list always gives the same slice.
pub fn collections(list: &[usize]) -> &'static [usize] {
    intern(&COLLECTIONS, list, |list| Box::leak(Box::from(list)))
}

fn intern<T: Ord + ?Sized>(
    set: &Mutex<BTreeSet<&'static T>>,
    value: &T,
    leak: impl FnOnce(&T) -> &'static T,
) -> &'static T {
    // A panic elsewhere while the set was locked leaves it whole: it is only ever added to.
    let mut set = set.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(&interned) = set.get(value) {
        return interned;
    }
    let interned = leak(value);
    set.insert(interned);
    interned
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_name_or_list_is_interned_once() {
        let affects = String::from("affects");
        assert!(std::ptr::eq(field(&affects), field("affects")));
        assert!(!std::ptr::eq(field("affects"), field("sources")));
        assert_eq!(field("flops.source_id"), "flops.source_id");
        let every = vec![0, 1, 2];
        assert!(std::ptr::eq(collections(&every), collections(&[0, 1, 2])));
        assert_eq!(collections(&[2]), &[2]);
        assert!(!std::ptr::eq(collections(&[0, 1]), collections(&[0, 1, 2])));
    }
}
