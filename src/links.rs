//! Links in Markdown prose: wiki-links (`[[engines/vllm]]`, `[[engines/vllm|vLLM]]`,
//! `[[vllm]]`) and ordinary links and images to other files of the corpus
//! (`[traps](05-known-traps.md)`, `![plot](plot.png)`).
//!
//! pulldown-cmark finds them (wiki-links are built in since 0.13), so a link inside a code span
//! or a code block is text, not a link, exactly as a reader of the rendered page sees it.
//!
//! A link may also name a place in a page by its fragment (`[[vllm#setup]]`,
//! `[s](guide.md#setup)`, `[s](#setup)`): a [`Fragment`], found in the same pass.

use pulldown_cmark::{Event, LinkType, Options, Parser, RefDefs, Tag};

use crate::source::{Format, Span};

/// What kind of link.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LinkKind {
    /// `[[target]]` or `[[target|label]]`: a record id or a prose page's stem.
    Wiki,
    /// `[text](path.md)`, `![alt](plot.png)`: a path to another file, relative to the
    /// linking file.
    File,
}

/// One link found in prose.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Link {
    /// Wiki or file link.
    pub kind: LinkKind,
    /// The target as written, without any `?query` or `#fragment`.
    pub target: String,
    /// Where the target text is in the file (what a fix would replace).
    pub span: Span,
}

/// A link to a place in a page, by the id of one of its elements: `[[vllm#setup]]`,
/// `[s](guide.md#setup)`, `[s](#setup)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fragment {
    /// The page the place is in: the link's, or `None` for the page the link is on.
    pub page: Option<Link>,
    /// The id named, as a browser looks it up: the text after `#`, percent-decoded.
    pub id: String,
    /// Where the fragment is written, after its `#`.
    pub span: Span,
}

/// The links in `text[range]`, with spans in `text`.
pub fn extract(text: &str, range: &Span) -> Vec<Link> {
    read(text, range).0
}

/// The links in `text[range]` and the places in pages they name, with spans in `text`.
pub fn read(text: &str, range: &Span) -> (Vec<Link>, Vec<Fragment>) {
    let Some(prose) = text.get(range.clone()) else {
        return (Vec::new(), Vec::new());
    };
    let mut events = Parser::new_ext(prose, Options::ENABLE_WIKILINKS).into_offset_iter();
    let mut links = Vec::new();
    let mut fragments = Vec::new();
    while let Some((event, at)) = events.next() {
        if let Some((link_type, dest_url, id)) = opened(&event) {
            let at = destination_at(events.reference_definitions(), link_type, id, at);
            links.extend(classify(
                prose,
                range.start,
                link_type,
                dest_url,
                at.clone(),
            ));
            fragments.extend(fragment(prose, range.start, link_type, dest_url, at));
        }
    }
    (links, fragments)
}

/// The link type, destination and reference id of a parser event that opens a link, or an
/// image that shows a file ([`is_file_image`]): the events [`classify`] is given.
pub fn opened<'e>(event: &'e Event<'_>) -> Option<(LinkType, &'e str, &'e str)> {
    match event {
        Event::Start(Tag::Link {
            link_type,
            dest_url,
            id,
            ..
        }) => Some((*link_type, dest_url, id)),
        Event::Start(Tag::Image {
            link_type,
            dest_url,
            id,
            ..
        }) if is_file_image(*link_type) => Some((*link_type, dest_url, id)),
        _ => None,
    }
}

/// Whether an image of `link_type` shows a file named by its path, as `![alt](plot.png)`
/// does; an embedded wiki-link (`![[vllm]]`, Obsidian's) names no file, and is left alone
/// as the site leaves it.
pub fn is_file_image(link_type: LinkType) -> bool {
    !matches!(link_type, LinkType::WikiLink { .. })
}

/// Where a link's destination is written: a reference link's (`[text][r]`, `[r][]`, `[r]`)
/// in its definition (`[r]: guide.md`), any other's in the link itself, at `at`.
pub fn destination_at(definitions: &RefDefs<'_>, link_type: LinkType, id: &str, at: Span) -> Span {
    match link_type {
        LinkType::Reference | LinkType::Collapsed | LinkType::Shortcut => definitions
            .get(id)
            .map_or(at, |definition| definition.span.clone()),
        _ => at,
    }
}

/// The corpus link that a parser's link or image event stands for, if it is one: a
/// wiki-link, or a relative link to a file (of any kind: a missing image is as broken as a
/// missing page). `prose` is the parsed text, which starts at byte `base` of its
/// file, and `at` the range in `prose` where the destination is written
/// ([`destination_at`]). Shared with the site's Markdown renderer so that a page links
/// exactly what `check` resolves.
pub fn classify(
    prose: &str,
    base: usize,
    link_type: LinkType,
    dest_url: &str,
    at: Span,
) -> Option<Link> {
    let opening = opening(link_type)?;
    let kind = match link_type {
        LinkType::WikiLink { .. } => LinkKind::Wiki,
        _ if is_relative_path(dest_url) => LinkKind::File,
        _ => return None,
    };
    let dest_url = written_destination(link_type, dest_url);
    let written = prose.get(at.clone()).unwrap_or_default();
    let target_start =
        destination_in(written, dest_url, opening).map_or(at.start, |i| at.start + i);
    let target = match kind {
        LinkKind::Wiki => dest_url.split('#').next(),
        LinkKind::File => dest_url.split(['#', '?']).next(),
    };
    let target = target.unwrap_or_default().to_string();
    if target.is_empty() {
        return None;
    }
    Some(Link {
        kind,
        span: base + target_start..base + target_start + target.len(),
        target,
    })
}

/// The place in a page that a parser's link event names by its fragment, if it names one
/// in the corpus: after a wiki-link's target or a relative link's path ([`classify`]), or
/// alone (`#setup`, `[[#setup]]`), a place in the page the link is on. `#` alone and
/// `#top` name the top of the page, which every page has, as browsers read them.
pub fn fragment(
    prose: &str,
    base: usize,
    link_type: LinkType,
    dest_url: &str,
    at: Span,
) -> Option<Fragment> {
    let opening = opening(link_type)?;
    let dest_url = written_destination(link_type, dest_url);
    let (path, raw) = dest_url.split_once('#')?;
    if raw.is_empty() || raw.eq_ignore_ascii_case("top") {
        return None;
    }
    let page = match path {
        "" => None,
        _ => Some(classify(prose, base, link_type, dest_url, at.clone())?),
    };
    // A destination written otherwise than it reads (`a\_b.md#x`, `&amp;`) is not placed,
    // nor checked: a fix must replace the fragment as written.
    let written = prose.get(at.clone()).unwrap_or_default();
    let start = base + at.start + destination_in(written, dest_url, opening)? + path.len() + 1;
    let span = start..start + raw.len();
    let id = percent_encoding::percent_decode_str(raw)
        .decode_utf8()
        .map_or_else(|_| raw.to_string(), String::from);
    Some(Fragment { page, id, span })
}

/// What a link's destination follows where it is written: the `[` of a wiki-link, the `(`
/// of an inline link, the `:` of a reference link's definition; `None` for a link of a
/// kind no corpus link is (an autolink, an email address).
fn opening(link_type: LinkType) -> Option<u8> {
    match link_type {
        LinkType::WikiLink { .. } => Some(b'['),
        LinkType::Inline => Some(b'('),
        LinkType::Reference | LinkType::Collapsed | LinkType::Shortcut => Some(b':'),
        _ => None,
    }
}

/// A destination as it is written: in a table a wiki-link's `|` is escaped, as it would end
/// the cell (`[[vllm\|vLLM]]`), and the parser leaves the backslash on the target; no id
/// ends with one.
fn written_destination(link_type: LinkType, dest_url: &str) -> &str {
    match link_type {
        LinkType::WikiLink { .. } => dest_url.strip_suffix('\\').unwrap_or(dest_url),
        _ => dest_url,
    }
}

/// Where `destination` is written in `written`, a link or its definition: its first
/// writing that follows `opening` (`[` of a wiki-link, `(` of an inline link, `:` of a
/// definition), but for spaces and a `<`. The first writing alone would be the label's in
/// `[guide.md](guide.md)`.
fn destination_in(written: &str, destination: &str, opening: u8) -> Option<usize> {
    written
        .match_indices(destination)
        .map(|(at, _)| at)
        .find(|&at| {
            let before = written.as_bytes().get(..at).unwrap_or_default();
            before
                .iter()
                .rev()
                .find(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b'<'))
                == Some(&opening)
        })
}

/// A relative link to a file: a path, without a scheme (`https:`, `mailto:`), as a
/// browser reads one (a colon before any slash), and not absolute (`/x`, `//host/x`),
/// since what the root of an absolute path is depends on where the prose is shown. A
/// fragment alone (`#notes`) is a place on the same page.
fn is_relative_path(url: &str) -> bool {
    let path = url.split(['#', '?']).next().unwrap_or_default();
    let has_scheme = path
        .split_once(':')
        .is_some_and(|(scheme, _)| !scheme.contains('/'));
    !path.is_empty() && !has_scheme && !path.starts_with('/')
}

/// Whether a string may hold a wiki-link or a link to a file: a quick test, as almost no
/// string does and every string of every record is tested.
///
/// Every kind of link [`classify`] accepts (wiki, inline, reference, collapsed, shortcut) is
/// written with a `[`, and prose rarely has one, so one scan for that byte settles nearly
/// every string; after it, a link is written with `[[` (a wiki-link), `](` (an inline link
/// or image) or `]:` (the definition a reference link needs). Scanning for `.` as well, as
/// this once did, stopped at the end of every sentence. `check` reads links only from the
/// strings that pass, and the site renders only those as Markdown, so that a page links
/// exactly what `check` resolves.
pub fn may_hold_link(text: &str) -> bool {
    let bytes = text.as_bytes();
    memchr::memchr(b'[', bytes).is_some_and(|first| {
        let rest = bytes.get(first..).unwrap_or_default();
        [&b"[["[..], b"](", b"]:"]
            .iter()
            .any(|pair| memchr::memmem::find(rest, pair).is_some())
    })
}

/// Whether prose `text` may hold a link naming a place in a page ([`fragment`]): a quick
/// test, as most pages have headings (`## Setup`) and no such link, and `broken-anchor`
/// otherwise parses every page again to find out. A fragment is placed only where its `#`
/// is written ([`fragment`] skips a destination written otherwise than it reads, such as
/// `&num;`), and the `#`s that open an ATX heading (one to six, after at most three spaces,
/// before a space, a tab or the line's end) are in no link, so any other `#` is enough to
/// parse the page. A `#` opening a line is not always a heading's: a destination may
/// follow its `(` on the next line, as in `[x](\n#y)`.
pub fn may_hold_fragment(text: &str) -> bool {
    let bytes = text.as_bytes();
    memchr::memchr_iter(b'#', bytes).any(|at| !opens_heading(bytes, at))
}

/// Whether the `#` at `at` in `bytes` is one of the marks that open an ATX heading.
fn opens_heading(bytes: &[u8], at: usize) -> bool {
    let before = bytes.get(..at).unwrap_or_default();
    let line_start = memchr::memrchr2(b'\n', b'\r', before).map_or(0, |end| end + 1);
    let line = before.get(line_start..).unwrap_or_default();
    let indent = line.iter().take_while(|byte| **byte == b' ').count();
    let marks_before = line.get(indent..).unwrap_or_default();
    if indent > 3 || marks_before.iter().any(|byte| *byte != b'#') {
        return false;
    }
    let after = bytes.get(at..).unwrap_or_default();
    let marks_after = after.iter().take_while(|byte| **byte == b'#').count();
    marks_before.len() + marks_after <= 6
        && after
            .get(marks_after)
            .is_none_or(|byte| matches!(byte, b' ' | b'\t' | b'\n' | b'\r'))
}

/// Whether any string parsed from `text`, a record file's text in `format`, may hold a link
/// ([`may_hold_link`]): `false` spares reading the record's strings one by one for links.
/// At 100,000 JSON records, none with a link, that walk was 362 million instructions (6% of
/// a check), this one scan of each text 185 million.
///
/// Every link [`classify`] accepts is written, in the string that holds it, with `[[` (a
/// wiki-link), `](` (an inline link) or `]:` (the definition that a reference, collapsed or
/// shortcut link needs). A string's characters are the text's own, side by side as they are
/// in the text, but for escapes: of JSON's, only `\u` makes a bracket, a parenthesis or a
/// colon; of YAML's, `\x`, `\u`, `\U` and an escaped line break may, so any backslash
/// counts. YAML's line folding puts a space or a line break between the lines it joins.
pub fn text_may_hold_link(text: &str, format: Format) -> bool {
    let bytes = text.as_bytes();
    memchr::memchr3_iter(b'[', b']', b'\\', bytes).any(|at| {
        match (bytes.get(at), bytes.get(at + 1)) {
            (Some(b'['), Some(b'[')) | (Some(b']'), Some(b'(' | b':')) => true,
            (Some(b'\\'), next) => format != Format::Json || next == Some(&b'u'),
            _ => false,
        }
    })
}

/// Where `target` is written as a link's target in `text`, in order: after `[[` and before
/// `]`, `|` or `#`, or after `](` and before `)`, `#` or a space, so that `[[engines/vll`
/// is not found at the start of `[[engines/vllm]]`. Code spans are searched too: a link
/// found by parsing a string value is named by its place among these, which the value's
/// text as written in its file (quoted, escaped, indented) holds in the same order, code
/// and all, where a search for the first would find a `[[target]]` shown in code.
pub fn target_places(text: &str, target: &str) -> Vec<usize> {
    let ends = |at: usize, ends: &[u8]| text.as_bytes().get(at).is_some_and(|c| ends.contains(c));
    let mut places: Vec<usize> = [("[[", &b"]|#"[..]), ("](", &b")# "[..])]
        .into_iter()
        .flat_map(|(opening, closing)| {
            let written = format!("{opening}{target}");
            text.match_indices(&written)
                .map(|(at, _)| at + opening.len())
                .filter(|&at| ends(at + target.len(), closing))
                .collect::<Vec<_>>()
        })
        .collect();
    places.sort_unstable();
    places
}

#[cfg(test)]
mod tests {
    use super::*;

    fn targets(text: &str) -> Vec<(LinkKind, String, String)> {
        extract(text, &(0..text.len()))
            .into_iter()
            .map(|l| (l.kind, l.target, text[l.span].to_string()))
            .collect()
    }

    #[test]
    fn finds_every_wiki_form_and_markdown_file_links() {
        let text = "See [[engines/vllm]], [[engines/vllm|vLLM]], [[mooncake]] and \
                    [traps](05-known-traps.md#tier-0) but not [site](https://x.org/a.md).";
        assert_eq!(
            targets(text),
            vec![
                (LinkKind::Wiki, "engines/vllm".into(), "engines/vllm".into()),
                (LinkKind::Wiki, "engines/vllm".into(), "engines/vllm".into()),
                (LinkKind::Wiki, "mooncake".into(), "mooncake".into()),
                (
                    LinkKind::File,
                    "05-known-traps.md".into(),
                    "05-known-traps.md".into()
                ),
            ]
        );
    }

    #[test]
    fn images_and_links_to_any_relative_file_are_file_links() {
        let text = "![plot](img/plot.png \"t\") [pdf](paper.pdf?dl=1#p2) ![[embedded]] \
                    [mail](mailto:a@b.org) [abs](/x.png) [host](//h/x.png) [here](#top)\n\n\
                    [r]: notes.txt\n\nSee [r].\n";
        assert_eq!(
            targets(text),
            vec![
                (LinkKind::File, "img/plot.png".into(), "img/plot.png".into()),
                (LinkKind::File, "paper.pdf".into(), "paper.pdf".into()),
                (LinkKind::File, "notes.txt".into(), "notes.txt".into()),
            ]
        );
    }

    #[test]
    fn fragments_are_found_after_a_target_or_alone_and_placed_as_written() {
        let text = "[[vllm#setup]] [[engines/vllm#a|A]] [g](guide.md?x=1#Tier-0) [h](#r%C3%A9) \
                    [[#here]] [t](#top) [e](#) [w](https://x.org/#y) `[c](#code)`\n\n\
                    [r]: other.md#far\n\nSee [r].\n";
        let found: Vec<(Option<String>, String, String)> = read(text, &(0..text.len()))
            .1
            .into_iter()
            .map(|f| (f.page.map(|l| l.target), f.id, text[f.span].to_string()))
            .collect();
        let page = |target: &str| Some(target.to_string());
        assert_eq!(
            found,
            vec![
                (page("vllm"), "setup".into(), "setup".into()),
                (page("engines/vllm"), "a".into(), "a".into()),
                (page("guide.md"), "Tier-0".into(), "Tier-0".into()),
                (None, "ré".into(), "r%C3%A9".into()),
                (None, "here".into(), "here".into()),
                (page("other.md"), "far".into(), "far".into()),
            ]
        );
    }

    #[test]
    fn links_in_code_are_not_links() {
        let text = "`[[engines/vllm]]`\n\n```\n[[mooncake]]\n```\n\n    [[indented]]\n";
        assert!(targets(text).is_empty());
    }

    #[test]
    fn spans_are_offsets_in_the_whole_file() {
        let text = "---\nid: x\n---\nA [[vllm]].\n";
        let body = 14..text.len();
        let links = extract(text, &body);
        assert_eq!(&text[links[0].span.clone()], "vllm");
    }

    #[test]
    fn may_hold_link_passes_every_string_with_a_link_and_few_without() {
        for linking in [
            "see [[vllm]]",
            "[[",
            "a [page](docs/x.md).",
            "[x]\n\n[x]: a.md",
            "![plot](plot.png)",
            "[paper](paper.pdf)",
        ] {
            assert!(may_hold_link(linking), "{linking}");
        }
        for plain in [
            "",
            "v1.2. Then [x] and mdx.",
            "[",
            ".m",
            "x. md",
            "see docs/x.md",
            ".md [",
        ] {
            assert!(!may_hold_link(plain), "{plain}");
        }
    }

    /// Texts made of the pieces links are written with, so that many of them hold one.
    fn linkish() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        const PIECES: &[&str] = &[
            "[",
            "]",
            "(",
            ")",
            "[[",
            "]]",
            "|",
            "#",
            "`",
            ":",
            "!",
            "<",
            ">",
            " ",
            "\n",
            "a",
            "x.md",
            ".md",
            "docs/",
            "../",
            "http://h/",
            "\\",
            "[a](x.md)",
            "[[a]]",
            "[a][r]",
            "[a]",
            "[]",
            "\n\n[r]: x.md\n",
            "\n\n[a]: <x.md>\n",
            "](",
            "(x.md#h)",
            "[a|b]]",
            "\r",
            "   ",
            "\n## ",
            "](\n#",
            "[[a#b]]",
        ];
        prop::collection::vec(prop::sample::select(PIECES), 0..14)
            .prop_map(|chosen| chosen.concat())
    }

    #[test]
    fn heading_marks_alone_hold_no_fragment() {
        assert!(!may_hold_fragment(
            "# Title\n\n   ## Setup\r### Steps\n#\n##\tTabbed\nSee [[vllm]].\n"
        ));
        let next_line = "[x](\n#y)";
        assert!(!read(next_line, &(0..next_line.len())).1.is_empty());
        for text in [
            "# Title\n\nSee [[vllm#setup]].",
            "## Setup [x](#steps)",
            "[r]: guide.md#far",
            "    # an indented code line",
            "C# and issue #42",
            "[x](\n#y)",
            "[x](\r##y)",
            "####### seven marks are text",
        ] {
            assert!(may_hold_fragment(text), "{text:?}");
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

        /// The quick test never turns away a page in which a link names a place.
        #[test]
        fn may_hold_fragment_passes_every_page_with_a_fragment(text in linkish()) {
            if !read(&text, &(0..text.len())).1.is_empty() {
                proptest::prop_assert!(may_hold_fragment(&text), "{text:?}");
            }
        }

        /// The quick test never turns away a string in which the parser finds a link.
        #[test]
        fn may_hold_link_passes_every_string_the_parser_finds_a_link_in(text in linkish()) {
            if !extract(&text, &(0..text.len())).is_empty() {
                proptest::prop_assert!(may_hold_link(&text), "{text:?}");
            }
        }

        /// A JSON record whose string holds a link is never taken for one without, however
        /// the string is written: plainly (serde_json escapes only what it must) or with
        /// some characters as `\u` escapes.
        #[test]
        fn a_json_text_with_a_link_in_a_string_may_hold_a_link(
            text in linkish(),
            escaped in proptest::collection::vec(proptest::bool::ANY, 64),
        ) {
            if extract(&text, &(0..text.len())).is_empty() {
                return Ok(());
            }
            let plain = serde_json::json!({ "notes": [text] }).to_string();
            proptest::prop_assert!(text_may_hold_link(&plain, Format::Json), "{plain}");
            let mut unicode = String::from("{\"notes\": \"");
            for (at, c) in text.chars().enumerate() {
                match c {
                    '"' | '\\' | '\n' | '\r' => unicode.push_str(&format!("\\u{:04x}", u32::from(c))),
                    c if escaped.get(at).copied().unwrap_or(false) => {
                        unicode.push_str(&format!("\\u{:04x}", u32::from(c)));
                    }
                    c => unicode.push(c),
                }
            }
            unicode.push_str("\"}");
            let (value, _) = crate::load::json::parse(&unicode).unwrap();
            proptest::prop_assert_eq!(value["notes"].as_str(), Some(text.as_str()));
            proptest::prop_assert!(text_may_hold_link(&unicode, Format::Json), "{unicode}");
        }
    }

    #[test]
    fn texts_without_a_link_pair_or_an_escape_that_could_make_one_hold_no_link() {
        let json = "{\"affects\": [\"vllm\"], \"notes\": \"see [1] and a.md\\n\\\"q\\\"\"}";
        assert!(!text_may_hold_link(json, Format::Json));
        for linked in [
            "{\"notes\": \"see [[vllm]]\"}",
            "{\"notes\": \"see [traps](a.md)\"}",
            "{\"notes\": \"see [traps]\\n\\n[traps]: a.md\"}",
            "{\"notes\": \"see \\u005b[vllm]]\"}",
        ] {
            assert!(text_may_hold_link(linked, Format::Json), "{linked}");
        }
        let yaml = "affects: [vllm, mooncake]\nnotes: >\n  see [1]\n  (and a.md)\n";
        assert!(!text_may_hold_link(yaml, Format::Yaml));
        // `\x5b` is a bracket in a double-quoted YAML string, and a backslash before a line
        // break joins two lines with nothing between them.
        for linked in [
            "notes: \"\\x5b[vllm]]\"\n",
            "notes: \"see [\\\n  [vllm]]\"\n",
        ] {
            let parsed = crate::load::yaml::parse(linked, 0, Default::default(), false).unwrap();
            let notes = parsed.value.unwrap()["notes"].as_str().unwrap().to_string();
            assert_eq!(targets(&notes)[0].1, "vllm", "{notes}");
            assert!(text_may_hold_link(linked, Format::Yaml), "{linked}");
            assert!(text_may_hold_link(linked, Format::Markdown), "{linked}");
        }
    }
}
