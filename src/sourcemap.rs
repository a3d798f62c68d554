//! Where each value of a record is in its file, by JSON pointer.
//!
//! Rules find problems on a record's data and name the place with a JSON pointer
//! (`/affects/2`). Only when a file has a problem is its source map built, by re-reading the
//! text with a position-aware pass of the right format ([`crate::load::source_map`]:
//! [`crate::load::json::scan`], [`crate::load::yaml`], [`crate::load::markdown`]). Clean
//! files, the overwhelming majority, never pay for positions.

use foldhash::HashMap;

use crate::diagnostic::{Anchor, pointer_segments};
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
    /// Hashed with foldhash rather than the standard library's SipHash: a file pointed into
    /// is mapped whole, a pointer hashed for each of its values, and the map is never
    /// walked, so its order does not reach any output.
    nodes: HashMap<String, Node>,
}

impl SourceMap {
    /// The map of a file of which only its root value is wanted, at `root`.
    pub fn of_root(root: Span) -> SourceMap {
        let mut map = SourceMap::default();
        map.insert(
            String::new(),
            Node {
                key: None,
                value: root,
            },
        );
        map
    }

    /// Records where the value at `pointer` is. The first occurrence wins, matching the loaders,
    /// which report later duplicates themselves.
    pub fn insert(&mut self, pointer: String, node: Node) {
        self.nodes.entry(pointer).or_insert(node);
    }

    /// The node at `pointer`, if the file has one there.
    pub fn get(&self, pointer: &str) -> Option<&Node> {
        self.nodes.get(pointer)
    }

    /// The span an anchor names. A pointer with no node of its own (a missing member) falls
    /// back to its nearest ancestor that has one, so a diagnostic always gets a position.
    pub fn locate(&self, anchor: &Anchor) -> Option<Span> {
        let (pointer, want_key) = match anchor {
            Anchor::File => return None,
            Anchor::Span(span) => return Some(span.clone()),
            Anchor::Value(pointer) => (pointer.as_str(), false),
            Anchor::Key(pointer) => (pointer.as_str(), true),
            Anchor::Within { pointer, .. } => (pointer.as_str(), false),
        };
        if let Some(node) = self.nodes.get(pointer) {
            return Some(match (&node.key, want_key) {
                (Some(key), true) => key.clone(),
                _ => node.value.clone(),
            });
        }
        let mut segments = pointer_segments(pointer);
        while segments.pop().is_some() {
            let ancestor: String = segments
                .iter()
                .map(|s| format!("/{}", crate::diagnostic::escape_pointer_segment(s)))
                .collect();
            if let Some(node) = self.nodes.get(&ancestor) {
                return Some(node.value.clone());
            }
        }
        None
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
            String::new(),
            Node {
                key: None,
                value: 0..10,
            },
        );
        map.insert(
            "/a".into(),
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
}
