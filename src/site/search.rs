//! The search index: every record and prose page as a row the browser script scores.
//!
//! A row is `[link, name, id, enum values, text]`. The text is each record's prose, with
//! Markdown marks taken out and cut to a few hundred characters: enough to find a record by
//! a word of its description, small enough that the index of a corpus of thousands of
//! records loads at once. It is a script (`search/data.js`) rather than JSON so that search
//! also works on a site opened from disk, where browsers refuse to fetch files.

use std::io::{self, Write};

use super::content::Content;
use super::json::Json;
use super::kept::FieldValue;
use super::urls;
use crate::schema::enum_fields;

/// Characters of a record's text kept in the index.
const RECORD_TEXT: usize = 500;

/// Characters of a prose page's text kept in the index.
const PAGE_TEXT: usize = 5000;

/// A string at least this long is prose.
const PROSE_LENGTH: usize = 80;

/// Fields that are not prose: the id and name have their own columns, the rest is noise.
const NOT_TEXT: &[&str] = &["id", "type", "name", "updated", "url"];

/// `search/data.js`, streamed a row at a time (see `records.json`).
// Published record and page indices come from this content, the others from its corpus.
#[allow(clippy::indexing_slicing)]
pub fn write_script(content: &Content<'_>, out: &mut dyn Write) -> io::Result<()> {
    out.write_all(b"window.gotchasSearch = {\"entries\": [")?;
    let docs = content.docs.iter().map(|doc| {
        let file = &content.corpus.files[content.corpus.docs[doc.doc].file];
        let text = plain(file.text.as_deref().unwrap_or_default(), PAGE_TEXT);
        let id = file.display.strip_suffix(".md").unwrap_or(&file.display);
        row(&doc.page, &doc.title, id, "", &text)
    });
    let rows = (0..content.records.len())
        .map(|p| record_row(content, p))
        .chain(docs);
    for (index, row) in rows.enumerate() {
        out.write_all(if index == 0 { b"\n" } else { b",\n" })?;
        out.write_all(row.as_bytes())?;
    }
    out.write_all(b"\n]};\n")
}

// Published record and page indices come from this content, the others from its corpus.
#[allow(clippy::indexing_slicing)]
fn record_row(content: &Content<'_>, published: usize) -> String {
    let entry = &content.records[published];
    let collection = &content.schemas.collections[content.collection_of(published)];
    let enums = enum_fields(&collection.schema);
    let values: Vec<&str> = enums
        .iter()
        .filter_map(|field| content.text(published, field))
        .collect();
    // Prose first, so that the snippet a result shows is a sentence rather than a list of
    // ids; the short values after it still match.
    let mut text = String::new();
    if let FieldValue::Object(map) = content.value(published) {
        let fields = map.iter().filter(|(field, _)| {
            !NOT_TEXT.contains(&&**field) && !enums.iter().any(|e| **e == **field)
        });
        let (prose, short): (Vec<_>, Vec<_>) =
            fields.partition(|(_, value)| value.as_str().is_some_and(|t| t.len() >= PROSE_LENGTH));
        for (_, value) in prose.into_iter().chain(short) {
            collect_text(value, &mut text);
            if text.len() > RECORD_TEXT * 4 {
                break;
            }
        }
    }
    row(
        &entry.page,
        content.name(published),
        content.qid(published),
        &values.join(" "),
        &plain(&text, RECORD_TEXT),
    )
}

fn row(page: &str, name: &str, id: &str, values: &str, text: &str) -> String {
    let mut json = Json::compact();
    json.begin_array();
    for part in [urls::encode(page).as_str(), name, id, values, text] {
        json.item();
        json.string(part);
    }
    json.end_array();
    json.take()
}

fn collect_text(value: &FieldValue, out: &mut String) {
    match value {
        FieldValue::String(text)
            if !text.starts_with("http://") && !text.starts_with("https://") =>
        {
            out.push_str(text);
            // Each field starts a line, so that its own heading or quote marks are marks.
            out.push('\n');
        }
        FieldValue::Array(items) => items.iter().for_each(|item| collect_text(item, out)),
        FieldValue::Object(map) => map.iter().for_each(|(_, item)| collect_text(item, out)),
        _ => {}
    }
}

/// Markdown as plain words: marks dropped, wiki-links reduced to their text, whitespace
/// collapsed, cut at `limit` characters.
fn plain(markdown: &str, limit: usize) -> String {
    let mut out = String::with_capacity(limit.min(markdown.len()));
    let mut count = 0;
    let mut at = Place::LineStart;
    let mut rest = markdown;
    while count < limit {
        // Runs of ASCII characters kept as they are, most of any text, are copied whole: a
        // character at a time, this was a fortieth of a site build.
        let run = kept_run(rest.as_bytes(), limit - count);
        if let (Some(kept), Some(after)) = (rest.get(..run), rest.get(run..))
            && run > 0
        {
            out.push_str(kept);
            count += run;
            at = Place::Word;
            rest = after;
            continue;
        }
        if let Some(after) = past_unshown(rest) {
            rest = after;
            continue;
        }
        let mut chars = rest.chars();
        let Some(c) = chars.next() else { break };
        rest = chars.as_str();
        if let Some(c) = plain_char(c, &mut at) {
            out.push(c);
            count += 1;
        }
    }
    let kept = out.trim_end().len();
    out.truncate(kept);
    out
}

/// How many of the first `most` bytes of `text` plain text keeps as they are: a run of
/// words of ASCII letters, digits and punctuation that are no mark, with one space between
/// two of them, and a heading's or a quote's mark after the first (a line's start is behind
/// it). Runs that ended at every space were a word long: `plain` took 170M instructions of a
/// build of 10,000 records that way, 89M this way.
fn kept_run(text: &[u8], most: usize) -> usize {
    let word = |b: u8| {
        b.is_ascii()
            && b != b'<'
            && !is_mark(char::from(b))
            && !is_line_mark(char::from(b))
            && !is_space(char::from(b))
    };
    let within = |b: u8| word(b) || is_line_mark(char::from(b));
    if !text.first().is_some_and(|&b| word(b)) || most == 0 {
        return 0;
    }
    let mut run = 1;
    while run < most {
        match text.get(run) {
            Some(&b) if within(b) => run += 1,
            Some(b' ') if run + 1 < most && text.get(run + 1).is_some_and(|&b| within(b)) => {
                run += 2;
            }
            _ => break,
        }
    }
    run
}

/// What follows, when `rest` starts with Markdown a reader never sees as text: a comment
/// (`<!-- TODO ... -->`, which may be a note not meant for readers), or a link's
/// destination after its text (`](https://...)`).
fn past_unshown(rest: &str) -> Option<&str> {
    if let Some(comment) = rest.strip_prefix("<!--") {
        return Some(
            comment
                .find("-->")
                .and_then(|end| comment.get(end + 3..))
                .unwrap_or(""),
        );
    }
    let destination = rest.strip_prefix("](")?;
    destination
        .find(')')
        .and_then(|end| destination.get(end + 1..))
}

/// Where plain text is, for what it writes next.
#[derive(Clone, Copy, PartialEq)]
enum Place {
    /// At a line's start, or after only spaces and line marks on it: a `#` or `>` here is
    /// a heading's or a quote's mark, and nothing has been written since the last space.
    LineStart,
    /// After a space written within a line.
    Space,
    /// After a character of a word.
    Word,
}

/// What plain text writes for `c`, or `None` when it drops it: a mark, or a space at the
/// start, after a space or at a line's start. `at` says where the text is, and is moved on.
fn plain_char(c: char, at: &mut Place) -> Option<char> {
    match c {
        '\n' => {
            let was = *at;
            *at = Place::LineStart;
            (was == Place::Word).then_some(' ')
        }
        c if is_space(c) => {
            if *at != Place::Word {
                return None;
            }
            *at = Place::Space;
            Some(' ')
        }
        c if is_mark(c) || (is_line_mark(c) && *at == Place::LineStart) => None,
        c => {
            *at = Place::Word;
            Some(c)
        }
    }
}

/// A Markdown mark that plain text leaves out wherever it stands. Not `_`: it is as often
/// part of a word (`MY_ENV_VAR`, `vllm_batch_invariant`) as a mark, and a search for such
/// a word must find it.
fn is_mark(c: char) -> bool {
    matches!(c, '*' | '`' | '[' | ']')
}

/// A Markdown mark only at a line's start: a heading's `#`, a quote's `>`. Elsewhere they
/// are text a search must find: `C#`, `#123`, `latency > 10 ms`, `Vec<u8>`, `a -> b`.
fn is_line_mark(c: char) -> bool {
    matches!(c, '#' | '>')
}

/// What plain text writes as a space: whitespace, and a table's column bars.
fn is_space(c: char) -> bool {
    c.is_whitespace() || c == '|'
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_drops_marks_and_cuts() {
        assert_eq!(
            plain("## Root *cause*\n\nSee [[engines/vllm|vLLM]].", 100),
            "Root cause See engines/vllm vLLM."
        );
        assert_eq!(plain("abcdef", 3), "abc");
    }

    #[test]
    fn heading_and_quote_marks_are_dropped_only_at_a_line_start() {
        assert_eq!(
            plain(
                "C# and #123: latency > 10 ms, `Vec<u8>`\n> > quoted\n  # Head",
                100
            ),
            "C# and #123: latency > 10 ms, Vec<u8> quoted Head"
        );
    }

    #[test]
    fn comments_and_link_destinations_are_not_text() {
        assert_eq!(
            plain(
                "Visible.\n\n<!-- TODO ask Bob -->\n\n[a link](https://example.com) <b>x</b> <!-- open",
                100
            ),
            "Visible. a link <b>x</b>"
        );
    }

    /// The definition: each character on its own, until `limit` are written.
    fn plain_by_characters(markdown: &str, limit: usize) -> String {
        let mut at = Place::LineStart;
        let mut out = String::new();
        let mut rest = markdown;
        while out.chars().count() < limit {
            if let Some(after) = past_unshown(rest) {
                rest = after;
                continue;
            }
            let mut chars = rest.chars();
            let Some(c) = chars.next() else { break };
            rest = chars.as_str();
            out.extend(plain_char(c, &mut at));
        }
        out.trim_end().to_string()
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(5000))]

        #[test]
        fn plain_text_is_what_a_character_at_a_time_gives(
            markdown in "([a-c *_`#\\[\\]>|\t\n\u{0b}\u{a0}\u{2003}éß()]|<!--|-->|\\]\\(){0,40}",
            limit in 1usize..30,
        ) {
            proptest::prop_assert_eq!(plain(&markdown, limit), plain_by_characters(&markdown, limit));
        }
    }
}
