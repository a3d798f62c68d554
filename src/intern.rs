//! Field names, JSON pointers and lists of collections, interned for the life of the
//! process.
//!
//! Every reference a record writes names its field (`affects`), the place it is written
//! (`/affects/2`) and the collections it may point at, and a corpus writes hundreds of
//! thousands of them. Shared as `Arc`s, each copy and drop of a reference touched the one
//! count of its field's name from both threads, and the count's cache line crossed between
//! the cores each time: the `lock incq` on it took 59% of resolving's samples at 100,000
//! records. A pointer, shared as an `Arc` per reference, cost an allocation as the record
//! was read, a count touched far from anything else in use as each edge was copied from its
//! reference, and 32 bytes of heap kept per reference: a fifth of `check`'s memory at a
//! million records. Interned, a reference holds `&'static` slices, copied as two words
//! without touching anything shared, as rustc's interned symbols are.
//!
//! What is interned is what schemas declare and where records write it: a few dozen names
//! and lists in a corpus, and a pointer per field and place in an array (the same few
//! hundred in a hundred thousand records, whose arrays are short). The same string or list
//! is interned once, however often schemas and records are loaded again (an editor reloads
//! them on every change), so the memory kept grows only with the distinct ones a process
//! has met.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::sync::{Mutex, PoisonError};

static STRINGS: Mutex<BTreeSet<&'static str>> = Mutex::new(BTreeSet::new());
static COLLECTIONS: Mutex<BTreeSet<&'static [usize]>> = Mutex::new(BTreeSet::new());

thread_local! {
    /// The strings this thread has interned: a pointer is interned for every reference
    /// read, on every loading thread, and a lock taken that often would keep the threads
    /// waiting on each other.
    static SEEN: RefCell<foldhash::HashSet<&'static str>> = RefCell::default();
}

/// A field's name, interned: the same name always gives the same slice.
pub fn field(name: &str) -> &'static str {
    string(name)
}

/// A JSON pointer to a value of a record, interned: the same pointer always gives the same
/// slice.
pub fn pointer(pointer: &str) -> &'static str {
    string(pointer)
}

fn string(text: &str) -> &'static str {
    SEEN.with_borrow_mut(|seen| {
        if let Some(&interned) = seen.get(text) {
            return interned;
        }
        let interned = intern(&STRINGS, text, |text| Box::leak(Box::from(text)));
        seen.insert(interned);
        interned
    })
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
        let on_another_thread = std::thread::spawn(|| pointer("/affects/2"));
        let interned = on_another_thread.join().expect("the thread interns");
        assert!(std::ptr::eq(pointer("/affects/2"), interned));
        assert!(!std::ptr::eq(pointer("/affects/2"), pointer("/affects/1")));
        assert!(!std::ptr::eq(field("affects"), field("sources")));
        assert_eq!(field("flops.source_id"), "flops.source_id");
        let every = vec![0, 1, 2];
        assert!(std::ptr::eq(collections(&every), collections(&[0, 1, 2])));
        assert_eq!(collections(&[2]), &[2]);
        assert!(!std::ptr::eq(collections(&[0, 1]), collections(&[0, 1, 2])));
    }
}
