//! A record's fields as HTML: every field, whatever its shape, with references as links.
//!
//! Values are walked with their JSON pointers, and a string whose pointer is a reference (as
//! resolved once for the whole corpus) becomes a link to the record it names, with that
//! record's `url` beside it when it has one (a source), or a marked id when it names nothing.
//! So nested references (`flops[].source_id`) link like top-level ones, with no per-field
//! code. Long text fields are prose and get the Markdown renderer; a Markdown record's body is
//! rendered whole, and the fields it holds are not repeated in the table.

use std::cell::RefCell;
use std::fmt::Write as _;

use serde::Serialize;

use super::content::Content;
use super::kept::FieldValue;
use super::markdown;
use super::urls;
use crate::anchors::PageIds;
use crate::diagnostic::{join_pointer, push_pointer_index, push_pointer_segment};
use crate::links;
use crate::markup::{escaped, url_encoded};

/// Fields shown in a record page's heading rather than in its table.
const HEADING_FIELDS: &[&str] = &["id", "type", "name"];

/// A string field at least this long, or with a line break, is prose.
const PROSE_LENGTH: usize = 160;

/// One row of a record page's table.
#[derive(Debug, Serialize)]
pub struct Field {
    /// The field's name.
    pub name: String,
    /// The name for people: `root_cause` -> `Root cause`.
    pub label: String,
    /// The value, as HTML.
    pub html: String,
}

/// What a record page shows of its fields.
#[derive(Debug, Default, Serialize)]
pub struct Fields {
    /// Short fields, in schema order.
    pub table: Vec<Field>,
    /// Long text fields, rendered as Markdown, in schema order.
    pub prose: Vec<Field>,
    /// A Markdown record's body, rendered.
    pub body: Option<String>,
}

/// Renders the fields of a published record for a page whose way back to the root is `root`.
// Published record and page indices come from this content, the others from its corpus.
#[allow(clippy::indexing_slicing)]
pub fn render(content: &Content<'_>, published: usize, root: &str) -> Fields {
    let record = &content.corpus.records[content.records[published].record];
    let collection = &content.schemas.collections[record.collection];
    let mut fields = Fields::default();
    // The record template names each field's section `field-NAME`.
    let names: Vec<&str> = match &record.value.fields {
        FieldValue::Object(map) => map.iter().map(|(name, _)| &**name).collect(),
        _ => Vec::new(),
    };
    let ids = RefCell::new(PageIds::new(&names));
    if let (Some(body), Some(prose)) = (
        record.prose.as_ref().map(|prose| &prose.body),
        record.value.body(),
    ) && !prose.trim().is_empty()
    {
        fields.body = Some(markdown::render(
            content,
            record.file,
            &prose,
            body.start,
            root,
            &mut ids.borrow_mut(),
        ));
    }
    let FieldValue::Object(map) = &record.value.fields else {
        return fields;
    };
    // The schema's fields first, in its order, then the others as written.
    let mut shown: Vec<(&str, &FieldValue)> = collection
        .properties
        .iter()
        .filter_map(|name| map.iter().find(|(key, _)| **key == **name))
        .map(|(name, value)| (&**name, value))
        .collect();
    shown.extend(
        map.iter()
            .map(|(name, value)| (&**name, value))
            .filter(|(name, _)| !collection.properties.iter().any(|p| p == name)),
    );
    let writer = Writer {
        content,
        published,
        root,
        ids: &ids,
    };
    for (name, value) in shown {
        if HEADING_FIELDS.contains(&name) || record.sections().iter().any(|s| s == name) {
            continue;
        }
        let field = |html| Field {
            name: name.to_string(),
            label: label(name),
            html,
        };
        match value {
            FieldValue::String(text)
                if collection.text_fields.contains(name)
                    && (text.contains('\n') || text.chars().nth(PROSE_LENGTH - 1).is_some())
                    && content
                        .reference(published, &join_pointer("", name))
                        .is_none() =>
            {
                fields.prose.push(field(markdown::render(
                    content,
                    record.file,
                    text,
                    0,
                    root,
                    &mut ids.borrow_mut(),
                )));
            }
            value => {
                let mut html = String::new();
                writer.value(value, &mut join_pointer("", name), Some(name), &mut html);
                fields.table.push(field(html));
            }
        }
    }
    fields
}

/// `root_cause` -> `Root cause`.
// One pass into a string of the right size: every field of every record page is labelled.
pub fn label(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut chars = name
        .chars()
        .map(|c| if matches!(c, '_' | '-') { ' ' } else { c });
    if let Some(first) = chars.next() {
        out.extend(first.to_uppercase());
    }
    out.extend(chars);
    out
}

struct Writer<'a, 'c> {
    content: &'a Content<'c>,
    published: usize,
    root: &'a str,
    /// The page's ids, for a value rendered as Markdown (see [`PageIds`]).
    ids: &'a RefCell<PageIds<'a>>,
}

impl Writer<'_, '_> {
    /// Writes a value; `top` is the field name when the value is a top-level field's, where
    /// an enum value links to its value page. `pointer` is the value's, extended for each
    /// child and cut back after it: one string for the walk, not one per value.
    fn value(&self, value: &FieldValue, pointer: &mut String, top: Option<&str>, out: &mut String) {
        match value {
            FieldValue::Null => out.push_str("<span class=\"none\">—</span>"),
            FieldValue::Bool(yes) => out.push_str(if *yes { "yes" } else { "no" }),
            FieldValue::Number(number) => {
                let _ = write!(out, "{number}");
            }
            FieldValue::String(text) => self.string(text, pointer, top, out),
            FieldValue::Array(items) if items.is_empty() => {
                out.push_str("<span class=\"none\">none</span>");
            }
            FieldValue::Array(items) => {
                let inline = items
                    .iter()
                    .all(|i| !matches!(i, FieldValue::Array(_) | FieldValue::Object(_)));
                out.push_str(if inline {
                    "<ul class=\"inline\">"
                } else {
                    "<ol class=\"items\">"
                });
                let parent = pointer.len();
                for (index, item) in items.iter().enumerate() {
                    out.push_str("<li>");
                    push_pointer_index(pointer, index);
                    self.value(item, pointer, None, out);
                    pointer.truncate(parent);
                    out.push_str("</li>");
                }
                out.push_str(if inline { "</ul>" } else { "</ol>" });
            }
            FieldValue::Object(map) => {
                out.push_str("<dl class=\"object\">");
                let parent = pointer.len();
                for (key, item) in map {
                    let _ = write!(out, "<dt>{}</dt><dd>", escaped(key));
                    push_pointer_segment(pointer, key);
                    self.value(item, pointer, None, out);
                    pointer.truncate(parent);
                    out.push_str("</dd>");
                }
                out.push_str("</dl>");
            }
        }
    }

    // Published record and page indices come from this content, the others from its corpus.
    #[allow(clippy::indexing_slicing)]
    fn string(&self, text: &str, pointer: &str, top: Option<&str>, out: &mut String) {
        let content = self.content;
        if let Some(target) = content.reference(self.published, pointer) {
            match target {
                Some(to) => {
                    let record = &content.records[to];
                    out.push_str("<a href=\"");
                    urls::push_href(out, self.root, &record.page);
                    let _ = write!(
                        out,
                        "\" title=\"{}\">{}</a>",
                        escaped(content.qid(to)),
                        escaped(content.name(to))
                    );
                    if let Some(url) = content.text(to, "url").filter(|u| is_web(u)) {
                        let _ = write!(
                            out,
                            " <a class=\"external host\" href=\"{}\">{}</a>",
                            escaped(&url_encoded(url)),
                            escaped(host(url))
                        );
                    }
                }
                None => {
                    let _ = write!(
                        out,
                        "<span class=\"broken-ref\" title=\"no record has this id\">{}</span>",
                        escaped(text)
                    );
                }
            }
            return;
        }
        if let Some(field) = top
            && let Some(page) = content.value_page(field, text)
        {
            let _ = write!(
                out,
                "<a class=\"badge {}\" href=\"{}\">{}</a>",
                badge_class(field, text),
                urls::href(self.root, page),
                escaped(text)
            );
        } else if links::may_hold_link(text) {
            // `check` reads links in any string field; the page shows them as links too.
            let file = content.corpus.records[content.records[self.published].record].file;
            out.push_str(&markdown::render_inline(
                content,
                file,
                text,
                self.root,
                &mut self.ids.borrow_mut(),
            ));
        } else if is_web(text) {
            let _ = write!(
                out,
                "<a class=\"external\" href=\"{}\">{}</a>",
                escaped(&url_encoded(text)),
                escaped(text)
            );
        } else {
            out.push_str(&escaped(text));
        }
    }
}

/// The CSS classes of a badge: `badge-severity badge-severity-major`.
pub fn badge_class(field: &str, value: &str) -> String {
    let clean = |text: &str| -> String {
        text.chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    c.to_ascii_lowercase()
                } else {
                    '-'
                }
            })
            .collect()
    };
    format!("badge-{0} badge-{0}-{1}", clean(field), clean(value))
}

fn is_web(text: &str) -> bool {
    (text.starts_with("https://") || text.starts_with("http://"))
        && !text.contains(char::is_whitespace)
}

/// `https://github.com/a/b` -> `github.com`.
fn host(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    rest.split('/').next().unwrap_or(rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_and_badges() {
        assert_eq!(label("root_cause"), "Root cause");
        assert_eq!(label("_kv-cache"), " kv cache");
        assert_eq!(label("ßtraße"), "SStraße");
        assert_eq!(label(""), "");
        assert_eq!(
            badge_class("severity", "major"),
            "badge-severity badge-severity-major"
        );
        assert_eq!(host("https://github.com/kvcache-ai/Mooncake"), "github.com");
    }
}
