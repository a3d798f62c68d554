//! Markdown records: YAML front matter for structured fields, `## Heading` sections for the
//! long text fields.
//!
//! A Markdown record is the same data as a JSON record written for people: the front matter
//! holds the short fields, and each level-2 section whose heading, in snake_case, names a
//! string field of the collection's schema (`## Root cause` -> `root_cause`) becomes that
//! field. So a record converted between formats validates identically. Headings are found
//! with pulldown-cmark, so a `## ` line inside a code block is not a section. Whatever is not
//! a field section (an introduction, other headings) is the record's body.

use std::collections::HashSet;

use pulldown_cmark::{Event, HeadingLevel, LinkType, Options, Parser, Tag, TagEnd};

use crate::links::{self, Fragment, Link};
use crate::source::{Span, next_line_start};

/// Front matter located in a Markdown file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FrontMatter {
    /// The YAML between the fences.
    pub yaml: Span,
    /// Everything after the closing fence.
    pub body: Span,
}

/// Why front matter could not be found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FrontMatterError {
    /// The file does not start with a `---` line.
    Missing(Span),
    /// The opening `---` is never closed; the span is the opening fence.
    Unterminated(Span),
}

/// Finds the front matter: a first line `---`, then YAML, then a line `---` (or `...`).
///
/// Lines end as YAML and CommonMark end them: at `\n`, `\r\n` or a `\r` alone.
pub fn split_front_matter(text: &str) -> Result<FrontMatter, FrontMatterError> {
    let first_end = next_line_start(text, 0).unwrap_or(text.len());
    let first = text.get(..first_end).unwrap_or_default().trim_end();
    if first != "---" {
        return Err(FrontMatterError::Missing(0..first.len()));
    }
    // The closing fence is the first line that is `---` or `...`: each is looked for
    // after a line break with `memmem`, and the earlier kept, rather than every line of
    // the YAML cut out and trimmed. `...`, and a fence after a `\r` alone (a file with
    // classic Mac line endings), are rare, so they are looked for only before the first
    // `---` after a `\n`, not through the whole body.
    let bytes = text.as_bytes();
    let opening_break = first_end
        .checked_sub(1)
        .filter(|&at| matches!(bytes.get(at), Some(b'\n' | b'\r')));
    let closing = |fence: &[u8], until: usize| {
        let from = opening_break?;
        memchr::memmem::find_iter(bytes.get(from..until)?, fence)
            .map(|at| from + at + 1)
            .find_map(|line_start| {
                let line_end = next_line_start(text, line_start).unwrap_or(text.len());
                let line = text.get(line_start..line_end)?.trim_end();
                (line.as_bytes() == fence.get(1..)?).then_some((line_start, line_end))
            })
    };
    let dashes = closing(b"\n---", text.len());
    let until = dashes.map_or(text.len(), |(line_start, _)| line_start);
    let found = [dashes, closing(b"\r---", until)]
        .into_iter()
        .flatten()
        .min();
    let until = found.map_or(text.len(), |(line_start, _)| line_start);
    let dots = [closing(b"\n...", until), closing(b"\r...", until)];
    if let Some((line_start, line_end)) = [found].into_iter().chain(dots).flatten().min() {
        return Ok(FrontMatter {
            yaml: first_end..line_start,
            body: line_end..text.len(),
        });
    }
    Err(FrontMatterError::Unterminated(0..3))
}

/// A `## Heading` section that holds a field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Section {
    /// The field name: the heading in snake_case.
    pub field: String,
    /// The heading line (without its line break).
    pub heading: Span,
    /// The section's text, trimmed of surrounding blank lines.
    pub content: Span,
}

/// The snake_case field name for a heading text: `Root cause` -> `root_cause`.
pub fn field_name(heading: &str) -> String {
    let mut name = String::with_capacity(heading.len());
    for word in heading
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        if !name.is_empty() {
            name.push('_');
        }
        name.extend(word.chars().flat_map(char::to_lowercase));
    }
    name
}

/// What one parse of a Markdown record's body gives: its field sections and its corpus
/// links.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Body {
    /// The level-2 sections whose field name is a text field, in order.
    pub sections: Vec<Section>,
    /// The other level-2 headings, which stay prose: each heading line's span in the file
    /// and its field name, for a did-you-mean when it is a typo of a field's.
    pub other_headings: Vec<(Span, String)>,
    /// The wiki-links and links and images to files, in order, with spans in the file.
    pub links: Vec<Link>,
    /// The places in pages that links name by their fragments, in order.
    pub fragments: Vec<Fragment>,
}

/// Reads the sections and the links of `text[body]` in one pass of the Markdown parser:
/// parsing a body twice, once for each, was the largest cost of loading a Markdown record
/// after its front matter.
pub fn read_body(text: &str, body: &Span, fields: &HashSet<String>) -> Body {
    let body_text = text.get(body.clone()).unwrap_or_default();
    let mut headings = Headings::default();
    let mut wiki_link_in_heading = false;
    let mut links = Vec::new();
    let mut fragments = Vec::new();
    let mut events = Parser::new_ext(body_text, Options::ENABLE_WIKILINKS).into_offset_iter();
    while let Some((event, range)) = events.next() {
        match links::opened(&event) {
            Some((link_type, dest_url, id)) => {
                wiki_link_in_heading |=
                    headings.in_heading() && matches!(link_type, LinkType::WikiLink { .. });
                let at =
                    links::destination_at(events.reference_definitions(), link_type, id, range);
                links.extend(links::classify(
                    body_text,
                    body.start,
                    link_type,
                    dest_url,
                    at.clone(),
                ));
                fragments.extend(links::fragment(
                    body_text, body.start, link_type, dest_url, at,
                ));
            }
            None => headings.follow(event, range),
        }
    }
    let headings = headings.found;
    // Sections are defined by the parse without wiki-links, which reads `## See [[x]]` as
    // the text `See [[x]]`; a heading holding one is read again that way.
    let sections = if wiki_link_in_heading {
        sections(text, body, fields)
    } else {
        sections_of(body_text, body, &headings, fields)
    };
    let other_headings = headings
        .iter()
        .map(|(range, title)| (range, field_name(title)))
        .filter(|(_, field)| !fields.contains(field))
        .map(|(range, field)| {
            let line = body_text.get(range.clone()).unwrap_or_default().trim_end();
            (
                body.start + range.start..body.start + range.start + line.len(),
                field,
            )
        })
        .collect();
    Body {
        sections,
        links,
        fragments,
        other_headings,
    }
}

/// The level-2 sections of `text[body]` whose field name is in `fields`, in order.
pub fn sections(text: &str, body: &Span, fields: &HashSet<String>) -> Vec<Section> {
    let body_text = text.get(body.clone()).unwrap_or_default();
    let mut headings = Headings::default();
    for (event, range) in Parser::new_ext(body_text, Options::empty()).into_offset_iter() {
        headings.follow(event, range);
    }
    sections_of(body_text, body, &headings.found, fields)
}

/// The level-2 headings of a body and their text, as the parser's events pass: only those
/// at the top level, since a `## Workaround` quoted in a block quote or written in a list
/// item is part of the quote or the item, and cutting a section there would split them.
#[derive(Default)]
struct Headings {
    /// The heading being read, and its text so far.
    current: Option<(Span, String)>,
    /// The headings read, each with its span in the body.
    found: Vec<(Span, String)>,
    /// How many block quotes, list items and footnote definitions are open.
    nesting: usize,
}

impl Headings {
    fn in_heading(&self) -> bool {
        self.current.is_some()
    }

    fn follow(&mut self, event: Event<'_>, range: Span) {
        match event {
            Event::Start(Tag::BlockQuote(_) | Tag::Item | Tag::FootnoteDefinition(_)) => {
                self.nesting += 1;
            }
            Event::End(TagEnd::BlockQuote(_) | TagEnd::Item | TagEnd::FootnoteDefinition) => {
                self.nesting = self.nesting.saturating_sub(1);
            }
            Event::Start(Tag::Heading {
                level: HeadingLevel::H2,
                ..
            }) if self.nesting == 0 => self.current = Some((range, String::new())),
            Event::Text(t) | Event::Code(t) => {
                if let Some((_, title)) = self.current.as_mut() {
                    title.push_str(&t);
                }
            }
            Event::End(TagEnd::Heading(HeadingLevel::H2)) => {
                if let Some(heading) = self.current.take() {
                    self.found.push(heading);
                }
            }
            _ => {}
        }
    }
}

/// The sections of the level-2 `headings` (spans in `body_text`, which is `text[body]`)
/// whose field name is in `fields`.
fn sections_of(
    body_text: &str,
    body: &Span,
    headings: &[(Span, String)],
    fields: &HashSet<String>,
) -> Vec<Section> {
    let mut sections = Vec::new();
    for (i, (range, title)) in headings.iter().enumerate() {
        let field = field_name(title);
        if !fields.contains(&field) {
            continue;
        }
        let content_end = headings
            .get(i + 1)
            .map_or(body_text.len(), |(next, _)| next.start);
        let heading_text = body_text.get(range.clone()).unwrap_or_default();
        let heading_end = range.start + heading_text.trim_end().len();
        let raw = body_text
            .get(range.end.min(content_end)..content_end)
            .unwrap_or_default();
        let leading = blank_lines(raw);
        let content_start = range.end.min(content_end) + leading;
        let content_len = raw.get(leading..).unwrap_or_default().trim_end().len();
        sections.push(Section {
            field,
            heading: body.start + range.start..body.start + heading_end,
            content: body.start + content_start..body.start + content_start + content_len,
        });
    }
    sections
}

/// The length of the whole blank lines `text` starts with: the first line with text keeps
/// its indentation, which is content (an indented code block).
///
/// Found from the whitespace `text` starts with, not by splitting it into lines: a search
/// for the end of the first line, which stops at `\n` or `\r`, read each section's first
/// paragraph a character at a time, 7% of loading Markdown records.
fn blank_lines(text: &str) -> usize {
    let text_at = text.len() - text.trim_start().len();
    if text_at == text.len() {
        return text.len();
    }
    text.get(..text_at)
        .and_then(|blank| blank.rfind(['\n', '\r']))
        .map_or(0, |end| end + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn front_matter_is_split_with_crlf() {
        let text = "---\r\nid: x\r\n---\r\n\r\n## Notes\r\n";
        let fm = split_front_matter(text).unwrap();
        assert_eq!(&text[fm.yaml], "id: x\r\n");
        assert_eq!(&text[fm.body], "\r\n## Notes\r\n");
    }

    /// The closing fence as the first version found it, a line at a time: the definition
    /// the fast search is held to.
    fn closing_fence_line_by_line(text: &str) -> Result<FrontMatter, FrontMatterError> {
        let first_end = next_line_start(text, 0).unwrap_or(text.len());
        if text.get(..first_end).unwrap_or_default().trim_end() != "---" {
            return split_front_matter(text);
        }
        let mut line_start = first_end;
        while line_start < text.len() {
            let line_end = next_line_start(text, line_start).unwrap_or(text.len());
            let line = text
                .get(line_start..line_end)
                .unwrap_or_default()
                .trim_end();
            if line == "---" || line == "..." {
                return Ok(FrontMatter {
                    yaml: first_end..line_start,
                    body: line_end..text.len(),
                });
            }
            line_start = line_end;
        }
        Err(FrontMatterError::Unterminated(0..3))
    }

    proptest::proptest! {
        /// The blank lines are those that a split into lines finds blank, one by one.
        #[test]
        fn blank_lines_are_the_lines_of_whitespace(text in "[ \t\r\n\u{a0}ab]{0,16}") {
            let line_by_line: usize = text
                .split_inclusive(['\n', '\r'])
                .take_while(|line| line.trim().is_empty())
                .map(str::len)
                .sum();
            proptest::prop_assert_eq!(blank_lines(&text), line_by_line);
        }

        /// Lines near a fence (`--`, `---x`, ` ---`, `...`, trailing blanks), ended by
        /// `\n`, `\r\n` or `\r` alone, end the front matter where the line-by-line search
        /// ends it, and nowhere else.
        #[test]
        fn the_closing_fence_is_found_as_line_by_line(
            lines in proptest::collection::vec(
                (
                    proptest::sample::select(vec![
                        "---", "--- ", "---\r", "...", "..", "--", "---x", " ---", "-", ".",
                        "a: 1", "", "µ: é", "- x",
                    ]),
                    proptest::sample::select(vec!["\n", "\r\n", "\r"]),
                ),
                0..12,
            ),
            opening in proptest::sample::select(vec!["\n", "\r\n", "\r"]),
            last_newline in proptest::bool::ANY,
        ) {
            let mut text = format!("---{opening}");
            for (index, (line, end)) in lines.iter().enumerate() {
                text.push_str(line);
                if last_newline || index + 1 < lines.len() {
                    text.push_str(end);
                }
            }
            proptest::prop_assert_eq!(
                split_front_matter(&text),
                closing_fence_line_by_line(&text)
            );
        }
    }

    #[test]
    fn front_matter_is_split_with_classic_mac_line_endings() {
        let text = "---\rid: x\r---\r\r## Notes\r";
        let fm = split_front_matter(text).unwrap();
        assert_eq!(&text[fm.yaml], "id: x\r");
        assert_eq!(&text[fm.body], "\r## Notes\r");
    }

    #[test]
    fn missing_and_unterminated_front_matter() {
        assert_eq!(
            split_front_matter("# Title\n"),
            Err(FrontMatterError::Missing(0..7))
        );
        assert_eq!(
            split_front_matter("---\nid: x\n"),
            Err(FrontMatterError::Unterminated(0..3))
        );
    }

    #[test]
    fn field_sections_become_named_spans() {
        let text = "intro\n\n## Root cause\n\nThe key.\n\n```\n## Notes\n```\n## Other\nx\n";
        let fields: HashSet<String> = ["root_cause", "notes"].map(String::from).into();
        let found = sections(text, &(0..text.len()), &fields);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].field, "root_cause");
        assert_eq!(&text[found[0].heading.clone()], "## Root cause");
        assert_eq!(
            &text[found[0].content.clone()],
            "The key.\n\n```\n## Notes\n```"
        );
    }

    #[test]
    fn a_heading_in_a_quote_or_list_item_is_part_of_it_not_a_section() {
        let text = "## Symptom\n\nSays:\n\n> ## Workaround\n> reboot\n\n- ## Workaround\n  x\n";
        let fields: HashSet<String> = ["symptom", "workaround"].map(String::from).into();
        let found = sections(text, &(0..text.len()), &fields);
        let [symptom] = found.as_slice() else {
            panic!("one section: {found:?}")
        };
        assert_eq!(
            &text[symptom.content.clone()],
            "Says:\n\n> ## Workaround\n> reboot\n\n- ## Workaround\n  x"
        );
        let read = read_body(text, &(0..text.len()), &fields);
        assert_eq!(read.sections, found);
    }

    #[test]
    fn a_section_keeps_its_first_line_indented() {
        let text = "## Symptom\n\n  \n    $ run\n    boom\n\nThen.\n\n";
        let fields: HashSet<String> = ["symptom"].map(String::from).into();
        let found = sections(text, &(0..text.len()), &fields);
        assert_eq!(
            &text[found[0].content.clone()],
            "    $ run\n    boom\n\nThen."
        );
    }

    #[test]
    fn heading_to_field_name() {
        assert_eq!(field_name("Root cause"), "root_cause");
        assert_eq!(field_name("  Hardware-caveats "), "hardware_caveats");
    }
}
