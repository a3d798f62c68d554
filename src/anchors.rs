//! The element ids of a page, as the site gives them: each heading and footnote of its prose
//! an id made from its text, and the templates' own ids.
//!
//! Shared by the site, which names the elements, and `check`, which tells whether a link's
//! fragment (`[[vllm#setup]]`, `[s](guide.md#setup)`) names one: both parse prose with the
//! same [`OPTIONS`] and name it with the same functions, so a fragment `check` accepts is
//! one the page has.

use std::collections::{HashMap, HashSet};

use pulldown_cmark::{CowStr, Event, Options, Parser, Tag, TagEnd};

/// The Markdown extensions the site renders prose with. They change what a heading's text
/// is (`~~old~~` is struck-through text, `old`, only with strikethrough), so its id.
pub const OPTIONS: Options = Options::ENABLE_WIKILINKS
    .union(Options::ENABLE_TABLES)
    .union(Options::ENABLE_STRIKETHROUGH)
    .union(Options::ENABLE_TASKLISTS)
    .union(Options::ENABLE_FOOTNOTES);

/// The ids the page templates give elements of their own, which no heading or footnote of
/// the prose on a page may take: the skip link's `#main`, a section's `aria-labelledby`
/// and the neighbourhood graph's arrowhead (`marker-end="url(#arrow)"`) must keep their
/// target (`## Main` becomes `main-1`).
const TEMPLATE_IDS: [&str; 9] = [
    "main",
    "site-q",
    "backlinks-h",
    "files-h",
    "graph-h",
    "arrow",
    "collections-h",
    "docs-h",
    "recent-h",
];

/// The prefix of the ids the record template gives its fields' sections (`field-severity`).
const FIELD_ID_PREFIX: &str = "field-";

/// The ids given on one page so far: a page may show several pieces of prose (a record's
/// long fields each rendered on its own), and a heading or a footnote of one must not take
/// an id another, or the template, has.
///
/// The template's own ids are tested, not stored: nearly no page's prose has a heading or
/// a footnote, and building the set of them for each of 100,000 record pages was 4% of
/// `build`.
#[derive(Debug)]
pub struct PageIds<'f> {
    /// The fields the page's template names sections after (`field-NAME`).
    fields: &'f [&'f str],
    used: HashSet<String>,
}

impl<'f> PageIds<'f> {
    /// The ids of a page whose template also names a section after each of `fields`.
    pub fn new(fields: &'f [&'f str]) -> PageIds<'f> {
        PageIds {
            fields,
            used: HashSet::new(),
        }
    }

    /// Whether the page has an element `id`: one its template names, or one given to its
    /// prose.
    pub fn has(&self, id: &str) -> bool {
        self.template_has(id) || self.used.contains(id)
    }

    /// The page's ids, kept to tell which a fragment names.
    pub fn known(self) -> KnownIds {
        let fields = (self.fields.iter()).map(|field| format!("{FIELD_ID_PREFIX}{field}"));
        KnownIds::new(fields.chain(self.used).collect())
    }

    /// Whether the page's template names an element `id`.
    fn template_has(&self, id: &str) -> bool {
        TEMPLATE_IDS.contains(&id)
            || id
                .strip_prefix(FIELD_ID_PREFIX)
                .is_some_and(|field| self.fields.contains(&field))
    }

    /// `wanted`, or, when the page has it, the first of `wanted-1`, `wanted-2` ... it has
    /// not; taken for the page.
    fn claim(&mut self, wanted: &str) -> String {
        let mut unique = wanted.to_string();
        let mut n = 0;
        while self.template_has(&unique) || !self.used.insert(unique.clone()) {
            n += 1;
            unique = format!("{wanted}-{n}");
        }
        unique
    }
}

/// A page's element ids, as `check` keeps them to tell whether a fragment names one: every
/// id but the templates' own, which are tested rather than stored (see [`PageIds`]),
/// sorted, their text in one allocation: a record's page has some twenty, each a string of
/// its own in a set before (with 35,000 records each linking to a place in their own page,
/// the 100k Markdown check's peak was 277-296 MiB with those sets, 269-273 with these
/// drawn while loading).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KnownIds {
    /// The ids, one after the other, in order.
    text: Box<str>,
    /// Where each id ends in `text`.
    ends: Box<[usize]>,
}

impl KnownIds {
    /// The ids of a page that has `ids` besides the templates' own ([`KnownIds::own`]).
    pub fn new(mut ids: Vec<String>) -> KnownIds {
        ids.sort_unstable();
        ids.dedup();
        let mut text = String::with_capacity(ids.iter().map(String::len).sum());
        let ends = (ids.iter())
            .map(|id| {
                text.push_str(id);
                text.len()
            })
            .collect();
        KnownIds {
            text: text.into_boxed_str(),
            ends,
        }
    }

    /// Whether the page has an element `id`.
    pub fn contains(&self, id: &str) -> bool {
        if TEMPLATE_IDS.contains(&id) {
            return true;
        }
        let (mut low, mut high) = (0, self.ends.len());
        while low < high {
            let middle = low + (high - low) / 2;
            match self.stored(middle).cmp(id) {
                std::cmp::Ordering::Less => low = middle + 1,
                std::cmp::Ordering::Equal => return true,
                std::cmp::Ordering::Greater => high = middle,
            }
        }
        false
    }

    /// Every id of the page, the templates' first: for a did-you-mean.
    pub fn all(&self) -> impl Iterator<Item = &str> {
        TEMPLATE_IDS.iter().copied().chain(self.own())
    }

    /// The ids of the page besides the templates' own, in order.
    pub fn own(&self) -> impl Iterator<Item = &str> {
        (0..self.ends.len()).map(|at| self.stored(at))
    }

    /// The stored id at `at`, of those in `ends`.
    fn stored(&self, at: usize) -> &str {
        let start = match at.checked_sub(1) {
            Some(before) => self.ends.get(before).copied().unwrap_or_default(),
            None => 0,
        };
        let end = self.ends.get(at).copied().unwrap_or_default();
        self.text.get(start..end).unwrap_or_default()
    }
}

/// Gives the headings and footnotes of Markdown `prose` their ids on a page whose ids so
/// far are `ids`, as rendering it there does.
pub fn claim(prose: &str, ids: &mut PageIds<'_>) {
    let mut events: Vec<Event<'_>> = Parser::new_ext(prose, OPTIONS)
        .filter_map(|event| match event {
            Event::InlineHtml(html) => inline_html(html),
            other => Some(other),
        })
        .collect();
    name_headings(&mut events, ids);
    name_footnotes(&mut events, ids);
}

/// What a page shows of raw inline HTML: text, not markup (records come from many hands),
/// and nothing of a comment. A heading's id is made from that text.
pub fn inline_html(html: CowStr<'_>) -> Option<Event<'_>> {
    (!html.starts_with("<!--")).then_some(Event::Text(html))
}

/// Gives every heading an id made from its text the way GitHub does (`Tier 0 — Silent` ->
/// `tier-0--silent`), so links written against the repository's rendering keep their
/// fragment. Repeats, on the page, get `-1`, `-2` ...
pub fn name_headings(events: &mut [Event<'_>], ids: &mut PageIds<'_>) {
    for i in 0..events.len() {
        if let Some(Event::Start(Tag::Heading { id: None, .. })) = events.get(i) {
            let mut text = String::new();
            for event in events.get(i + 1..).unwrap_or_default() {
                match event {
                    Event::End(TagEnd::Heading(_)) => break,
                    Event::Text(t) | Event::Code(t) => text.push_str(t),
                    _ => {}
                }
            }
            let unique = ids.claim(&element_id(&text, "section"));
            if let Some(Event::Start(Tag::Heading { id, .. })) = events.get_mut(i) {
                *id = Some(CowStr::from(unique));
            }
        }
    }
}

/// Gives each footnote label an id of its own on the page: a footnote's label is its
/// definition's id, and two fields of a record that each have a `[^1]` would have given
/// the page two elements `id="1"`, the second field's reference leading to the first's.
pub fn name_footnotes(events: &mut [Event<'_>], ids: &mut PageIds<'_>) {
    let mut named: HashMap<String, String> = HashMap::new();
    for event in events.iter_mut() {
        let label = match event {
            Event::FootnoteReference(label) | Event::Start(Tag::FootnoteDefinition(label)) => label,
            _ => continue,
        };
        let unique = named
            .entry(label.to_string())
            .or_insert_with_key(|label| ids.claim(&element_id(label, "note")));
        if **label != **unique {
            *label = CowStr::from(unique.clone());
        }
    }
}

/// The id of an element named `text`: its [`slug`], or `fallback` when that is empty (a
/// heading `## ???`), as HTML ids are never empty and hold no spaces (a footnote `[^my note]`).
fn element_id(text: &str, fallback: &str) -> String {
    let slug = slug(text);
    if slug.is_empty() {
        fallback.to_string()
    } else {
        slug
    }
}

/// `Tier 0 — Silent` -> `tier-0--silent`: lower case, spaces as `-`, punctuation but `-`
/// and `_` dropped, as GitHub makes a heading's anchor.
pub fn slug(text: &str) -> String {
    text.trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_follow_github() {
        assert_eq!(
            slug("Tier 0 — Silent wrong output at blocker severity"),
            "tier-0--silent-wrong-output-at-blocker-severity"
        );
        assert_eq!(slug("Root cause"), "root-cause");
    }

    #[test]
    fn prose_claims_the_ids_its_page_gives_it() {
        let fields = ["severity"];
        let mut ids = PageIds::new(&fields);
        claim(
            "# Setup\n\n## Setup\n\n## Field severity\n\n## ~~Old~~ <b>x</b>\n\nA note.[^my note]\n\n[^my note]: Here.\n",
            &mut ids,
        );
        for id in [
            "setup",
            "setup-1",
            "field-severity-1",
            "old-bxb",
            "my-note",
            "main",
            "field-severity",
        ] {
            assert!(ids.has(id), "{id}");
        }
        assert!(!ids.has("setup-2"));
    }

    #[test]
    fn known_ids_are_the_ids_the_page_has() {
        let fields = ["severity", "notes"];
        let mut ids = PageIds::new(&fields);
        claim("## Setup\n\n## Setup\n\n## Zebra\n\n## Alpha\n", &mut ids);
        let page: Vec<String> = ["setup", "setup-1", "zebra", "alpha", "main", "field-notes"]
            .iter()
            .map(|id| id.to_string())
            .collect();
        let known = ids.known();
        for id in &page {
            assert!(known.contains(id), "{id}");
        }
        for id in [
            "",
            "setup-2",
            "field-",
            "field-name",
            "alph",
            "zebra-",
            "mai",
        ] {
            assert!(!known.contains(id), "{id}");
        }
        assert_eq!(
            known.own().collect::<Vec<_>>(),
            [
                "alpha",
                "field-notes",
                "field-severity",
                "setup",
                "setup-1",
                "zebra"
            ]
        );
        assert_eq!(known.all().count(), TEMPLATE_IDS.len() + 6);
        assert_eq!(KnownIds::new(Vec::new()).own().count(), 0);
        assert!(KnownIds::new(Vec::new()).contains("main"));
    }
}
