//! Where each value of a record is in its file, by JSON pointer.
//!
//! Rules find problems on a record's data and name the place with a JSON pointer
//! (`/affects/2`). Only when a file has a problem is its source map built, by re-reading the
//! text with a position-aware pass of the right format ([`crate::load::source_map`]:
//! [`crate::load::json::scan`], [`crate::load::yaml`], [`crate::load::markdown`]). Clean
//! files, the overwhelming majority, never pay for positions.

use crate::diagnostic::Anchor;
use crate::source::Span;

/// Where one value is: its key (for a mapping member) and the value itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    /// The span of the key, quotes included, when the value is a mapping member.
    pub key: Option<Span>,
    /// The span of the value, quotes and brackets included.
    pub value: Span,
}

/// JSON pointer -> position, for one file.
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    /// Every mapped pointer, end to end. A file pointed into is mapped whole, a hundred
    /// values for a record of the generated corpus: a `String` for each was an allocation
    /// to make and another to free, and freeing a thousand files' maps after locating
    /// their reports took a fifth of locating at 100,000 records.
    pointers: String,
    /// Each node with where its pointer lies in `pointers`, found by the pointer's hash
    /// (foldhash, not SipHash: the table is never walked, so its order reaches no output).
    nodes: hashbrown::HashTable<(Span, Node)>,
}

/// The hash a [`SourceMap`] finds a pointer by.
fn pointer_hash(pointer: &str) -> u64 {
    crate::cache::stable_hash(pointer.as_bytes())
}

impl SourceMap {
    /// The map of a file of which only its root value is wanted, at `root`.
    pub fn of_root(root: Span) -> SourceMap {
        let mut map = SourceMap::default();
        map.insert(
            "",
            Node {
                key: None,
                value: root,
            },
        );
        map
    }

    /// Records where the value at `pointer` is. The first occurrence wins, matching the
    /// loaders, which report later duplicates themselves.
    pub fn insert(&mut self, pointer: &str, node: Node) {
        let SourceMap { pointers, nodes } = self;
        let entry = nodes.entry(
            pointer_hash(pointer),
            |(at, _)| pointers.get(at.clone()) == Some(pointer),
            |(at, _)| pointer_hash(pointers.get(at.clone()).unwrap_or_default()),
        );
        if let hashbrown::hash_table::Entry::Vacant(vacant) = entry {
            let at = pointers.len()..pointers.len() + pointer.len();
            pointers.push_str(pointer);
            vacant.insert((at, node));
        }
    }

    /// The node at `pointer`, if the file has one there.
    pub fn get(&self, pointer: &str) -> Option<&Node> {
        self.nodes
            .find(pointer_hash(pointer), |(at, _)| {
                self.pointers.get(at.clone()) == Some(pointer)
            })
            .map(|(_, node)| node)
    }

    /// The span an anchor names. A pointer with no node of its own (a missing member) falls
    /// back to its nearest ancestor that has one, so a diagnostic always gets a position.
    pub fn locate(&self, anchor: &Anchor) -> Option<Span> {
        if let Some(span) = self.locate_exactly(anchor) {
            return Some(span);
        }
        let pointer = match anchor {
            Anchor::Value(pointer) | Anchor::Key(pointer) | Anchor::Within { pointer, .. } => {
                pointer.as_str()
            }
            Anchor::File | Anchor::Span(_) => return None,
        };
        // An ancestor's pointer is the pointer cut at one of its separators: a `/` inside a
        // segment is escaped (`~1`).
        let mut ancestor = pointer;
        while let Some((parent, _)) = ancestor.rsplit_once('/') {
            ancestor = parent;
            if let Some(node) = self.get(ancestor) {
                return Some(node.value.clone());
            }
        }
        None
    }

    /// The span an anchor names when the file has a node of its own there, and only then:
    /// where an edit may go. A value reached through a YAML alias has none (it is written
    /// once, at the anchor), and an edit at the nearest ancestor, the alias, would replace
    /// the whole aliased value.
    pub fn locate_exactly(&self, anchor: &Anchor) -> Option<Span> {
        let (pointer, want_key) = match anchor {
            Anchor::File => return None,
            Anchor::Span(span) => return Some(span.clone()),
            Anchor::Value(pointer) => (pointer.as_str(), false),
            Anchor::Key(pointer) => (pointer.as_str(), true),
            Anchor::Within { pointer, .. } => (pointer.as_str(), false),
        };
        let node = self.get(pointer)?;
        Some(match (&node.key, want_key) {
            (Some(key), true) => key.clone(),
            _ => node.value.clone(),
        })
    }

    /// How many values are mapped.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether nothing is mapped.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_member_falls_back_to_its_parent() {
        let mut map = SourceMap::default();
        map.insert(
            "",
            Node {
                key: None,
                value: 0..10,
            },
        );
        map.insert(
            "/a",
            Node {
                key: Some(1..4),
                value: 6..9,
            },
        );
        assert_eq!(map.locate(&Anchor::Key("/a".into())), Some(1..4));
        assert_eq!(map.locate(&Anchor::Value("/a".into())), Some(6..9));
        assert_eq!(map.locate(&Anchor::Value("/a/b/c".into())), Some(6..9));
        assert_eq!(map.locate(&Anchor::Value("/z".into())), Some(0..10));
    }

    #[test]
    fn an_ancestor_is_found_across_escaped_separators() {
        let mut map = SourceMap::default();
        let node = |value| Node { key: None, value };
        map.insert("", node(0..20));
        map.insert("/a~1b", node(2..18));
        map.insert("/a~1b/c~0", node(5..9));
        assert_eq!(map.locate(&Anchor::Value("/a~1b/c~0/0".into())), Some(5..9));
        assert_eq!(map.locate(&Anchor::Value("/a~1b/d/e".into())), Some(2..18));
        assert_eq!(map.locate(&Anchor::Value("/a/b".into())), Some(0..20));
    }

    #[test]
    fn the_first_node_at_a_pointer_is_kept() {
        let mut map = SourceMap::default();
        let node = |value| Node { key: None, value };
        map.insert("/a", node(1..2));
        map.insert("/b", node(3..4));
        map.insert("/a", node(5..6));
        assert_eq!(map.get("/a"), Some(&node(1..2)));
        assert_eq!(map.get("/b"), Some(&node(3..4)));
        assert_eq!(map.get("/c"), None);
        assert_eq!(map.len(), 2);
    }
}
