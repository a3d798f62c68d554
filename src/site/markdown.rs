//! Prose to HTML: record bodies, long text fields and prose pages.
//!
//! Links are rewritten on the way through. A wiki-link or a link to a Markdown file is
//! resolved by the same resolver as `check` ([`IdIndex::resolve_prose_link`]), so a page links
//! exactly what `check` accepts, and what `check` reports is visibly marked instead of
//! linked. A link or image to another file of the corpus goes to the site's copy of it
//! ([`super::linked`], [`super::statics`]), and one from the site's root (`/robots.txt`) to
//! a file of the static folder, which is published there; one to a file the site does not
//! copy goes to the repository when `repo_url` is set, and is marked otherwise. So the only internal links in a page are
//! links the generator knows arrive.
//!
//! Raw HTML in prose is shown as text, not passed through: records are data contributed by
//! many hands, and a `<script>` or a stray relative link in one must not break or hijack the
//! site. HTML comments are dropped. For the same reason a link or image whose URL would run
//! in the reader's browser (`javascript:`, `vbscript:`, `file:`, `data:` but for an image
//! format) is marked, not linked, as comrak's and GitHub's safe rendering do.
//!
//! [`IdIndex::resolve_prose_link`]: crate::index::IdIndex::resolve_prose_link

use pulldown_cmark::{CowStr, Event, Parser, Tag, TagEnd, html};

use super::content::Content;
use super::urls;
use crate::anchors::{self, PageIds};
use crate::index::{Problem, Target};
use crate::links;
use crate::markup;

/// Renders Markdown `prose`, which starts at byte `base` of corpus file `file` (its links are
/// resolved relative to that file), for a page whose way back to the site root is `root`
/// and whose ids so far are `ids`.
pub fn render(
    content: &Content<'_>,
    file: usize,
    prose: &str,
    base: usize,
    root: &str,
    ids: &mut PageIds<'_>,
) -> String {
    let renderer = Renderer {
        content,
        file,
        root,
    };
    let mut events: Vec<Event<'_>> = Vec::new();
    // What closes each open link or image: `None` keeps the parser's own end.
    let mut closers: Vec<Option<&'static str>> = Vec::new();
    let mut html_block: Option<String> = None;
    for (event, at) in Parser::new_ext(prose, anchors::OPTIONS).into_offset_iter() {
        match event {
            Event::Start(Tag::Link {
                link_type,
                dest_url,
                title,
                id,
            }) => {
                let rewrite = renderer.link(prose, base, link_type, &dest_url, at);
                let link = |dest_url| Tag::Link {
                    link_type,
                    dest_url,
                    title,
                    id,
                };
                push_rewritten(&mut events, &mut closers, rewrite, dest_url, link);
            }
            Event::Start(Tag::Image {
                link_type,
                dest_url,
                title,
                id,
            }) => {
                let rewrite = if links::is_file_image(link_type) {
                    renderer.link(prose, base, link_type, &dest_url, at)
                } else {
                    renderer.outside(&dest_url)
                };
                let image = |dest_url| Tag::Image {
                    link_type,
                    dest_url,
                    title,
                    id,
                };
                push_rewritten(&mut events, &mut closers, rewrite, dest_url, image);
            }
            Event::End(end @ (TagEnd::Link | TagEnd::Image)) => match closers.pop().flatten() {
                Some(closer) => events.push(Event::InlineHtml(closer.into())),
                None => events.push(Event::End(end)),
            },
            Event::Start(Tag::HtmlBlock) => html_block = Some(String::new()),
            Event::Html(text) => match &mut html_block {
                Some(block) => block.push_str(&text),
                None => events.push(Event::Text(text)),
            },
            Event::End(TagEnd::HtmlBlock) => {
                let block = html_block.take().unwrap_or_default();
                if !only_comments(&block) {
                    events.push(Event::Html("<pre class=\"raw-html\"><code>".into()));
                    events.push(Event::Text(block.into()));
                    events.push(Event::Html("</code></pre>\n".into()));
                }
            }
            Event::InlineHtml(text) => events.extend(anchors::inline_html(text)),
            other => events.push(other),
        }
    }
    anchors::name_headings(&mut events, ids);
    anchors::name_footnotes(&mut events, ids);
    let mut out = String::with_capacity(prose.len() * 3 / 2);
    html::push_html(&mut out, events.into_iter());
    if markup::has_unholdable(prose) {
        return markup::unholdable_replaced(&out);
    }
    out
}

/// Renders a short text that may hold links, without the paragraph around it when it is one.
pub fn render_inline(
    content: &Content<'_>,
    file: usize,
    text: &str,
    root: &str,
    ids: &mut PageIds<'_>,
) -> String {
    let html = render(content, file, text, 0, root, ids);
    match html
        .strip_prefix("<p>")
        .and_then(|rest| rest.strip_suffix("</p>\n"))
    {
        Some(inner) if !inner.contains("<p>") => inner.to_string(),
        _ => html,
    }
}

/// Opens a link or an image as rewritten, remembering how to close it.
fn push_rewritten<'a>(
    events: &mut Vec<Event<'a>>,
    closers: &mut Vec<Option<&'static str>>,
    rewrite: Rewrite,
    dest_url: CowStr<'a>,
    tag: impl FnOnce(CowStr<'a>) -> Tag<'a>,
) {
    match rewrite {
        Rewrite::Keep => {
            closers.push(None);
            events.push(Event::Start(tag(dest_url)));
        }
        Rewrite::To(href) => {
            closers.push(None);
            events.push(Event::Start(tag(href.into())));
        }
        Rewrite::Mark(class, why) => {
            closers.push(Some("</span>"));
            events.push(mark(class, &why));
        }
    }
}

/// What to do with a link.
enum Rewrite {
    /// Leave it: external, or a fragment of the same page.
    Keep,
    /// Point it here instead.
    To(String),
    /// Replace it with a marked span: the CSS class and the reason, shown on hover.
    Mark(&'static str, String),
}

struct Renderer<'a, 'c> {
    content: &'a Content<'c>,
    file: usize,
    root: &'a str,
}

impl Renderer<'_, '_> {
    // Published record and page indices come from this content, the others from its corpus.
    #[allow(clippy::indexing_slicing)]
    fn link(
        &self,
        prose: &str,
        base: usize,
        link_type: pulldown_cmark::LinkType,
        dest_url: &str,
        at: std::ops::Range<usize>,
    ) -> Rewrite {
        let Some(link) = links::classify(prose, base, link_type, dest_url, at) else {
            return self.outside(dest_url);
        };
        let fragment = dest_url
            .find('#')
            .and_then(|i| dest_url.get(i..))
            .unwrap_or_default();
        let resolved =
            self.content
                .index
                .resolve_prose_link(self.file, &link, &self.content.all_collections);
        let page = match &resolved {
            Ok(Target::Record(record)) => {
                self.content.published[*record].map(|p| self.content.records[p].page.as_str())
            }
            Ok(Target::Doc(doc)) => {
                self.content.published_docs[*doc].map(|d| self.content.docs[d].page.as_str())
            }
            Ok(Target::File) => {
                let link = self.content.index.file_link(self.file, &link.target);
                let copied = (self.content.statics.site_path(&link))
                    .or_else(|| self.content.linked.site_path(&link));
                return match copied {
                    Some(copied) => {
                        Rewrite::To(format!("{}{fragment}", urls::href(self.root, copied)))
                    }
                    None => self.outside(dest_url),
                };
            }
            Err(_) => None,
        };
        match page {
            Some(page) => Rewrite::To(format!("{}{fragment}", urls::href(self.root, page))),
            None => Rewrite::Mark("broken-link", self.why_broken(&link, &resolved)),
        }
    }

    /// What a reader hovering a link that leads to no page is told: what `check` says of it.
    // Record and collection indices come from the corpus and schemas the content was
    // planned from.
    #[allow(clippy::indexing_slicing)]
    fn why_broken(&self, link: &links::Link, resolved: &Result<Target, Problem>) -> String {
        let target = &link.target;
        match (resolved, &link.kind) {
            (Err(Problem::Ambiguous(records)), _) => format!(
                "ambiguous link: `{target}` could be any of {}",
                records
                    .iter()
                    .map(|&r| {
                        let record = &self.content.corpus.records[r];
                        let folder = &self.content.schemas.collections[record.collection].folder;
                        format!("`{folder}/{}`", record.id)
                    })
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            (Ok(_), _) => format!("broken link: `{target}` has no page on this site"),
            (Err(_), links::LinkKind::Wiki) => {
                format!("broken link: no record or page has the id `{target}`")
            }
            (Err(_), links::LinkKind::File) => {
                format!("broken link: `{target}` points at no file")
            }
        }
    }

    /// A link that is not to a record or page: kept when external, led to the site's copy
    /// when it names a file of the static folder from the site's root, sent to the
    /// repository when it names one of its files, marked when the site cannot show it.
    fn outside(&self, dest_url: &str) -> Rewrite {
        if let Some(scheme) = unsafe_scheme(dest_url) {
            return Rewrite::Mark(
                "unsafe-link",
                format!("a `{scheme}:` link is not followed on this site"),
            );
        }
        let path = dest_url.split(['#', '?']).next().unwrap_or_default();
        let has_scheme = path
            .split_once(':')
            .is_some_and(|(scheme, _)| !scheme.is_empty() && !scheme.contains('/'));
        if path.is_empty() || has_scheme || dest_url.starts_with("//") {
            return Rewrite::Keep;
        }
        if let Some(published) = self.static_file(path) {
            let after = dest_url.get(path.len()..).unwrap_or_default();
            return Rewrite::To(format!("{}{after}", urls::href(self.root, published)));
        }
        #[allow(clippy::indexing_slicing)]
        // Published record and page indices come from this content, the others from its corpus.
        let from = &self.content.corpus.files[self.file].display;
        let in_repo = match path.strip_prefix('/') {
            Some(rooted) => Some(rooted.to_string()),
            None => join(
                from.rfind('/')
                    .and_then(|i| from.get(..i))
                    .unwrap_or_default(),
                path,
            ),
        };
        match (&self.content.site.repo_url, in_repo) {
            (Some(repo), Some(file)) => Rewrite::To(urls::repo_file(repo, &file)),
            _ => Rewrite::Mark(
                "unpublished",
                format!("`{path}` is a file of the repository, not a page of this site"),
            ),
        }
    }

    /// The file of the static folder a link from the site's root names (`/robots.txt`, its
    /// percent escapes decoded as a browser decodes them): the site has it there, at every
    /// base URL, since the link is rewritten relative to the page.
    fn static_file(&self, path: &str) -> Option<&str> {
        let rooted = path.strip_prefix('/')?;
        let decoded = percent_encoding::percent_decode_str(rooted)
            .decode_utf8()
            .ok()?;
        self.content.statics.get(&decoded)
    }
}

/// The scheme of `url` when following it would run something in the reader's browser, as
/// the browser reads it: tabs and line breaks inside the URL, and control characters and
/// spaces before it, are ignored, and case does not matter (`JaVa\tScript:`).
fn unsafe_scheme(url: &str) -> Option<String> {
    let url: String = url
        .trim_start_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    let (scheme, rest) = url.split_once(':')?;
    let scheme = scheme.to_ascii_lowercase();
    let image = ["image/png", "image/gif", "image/jpeg", "image/webp"];
    let harmful = match scheme.as_str() {
        "javascript" | "vbscript" | "file" => true,
        "data" => !image.iter().any(|kind| {
            rest.get(..kind.len())
                .is_some_and(|r| r.eq_ignore_ascii_case(kind))
        }),
        _ => false,
    };
    harmful.then_some(scheme)
}

/// A relative path joined to a folder, `.` and `..` applied; `None` above the root.
fn join(folder: &str, relative: &str) -> Option<String> {
    let mut parts: Vec<&str> = folder.split('/').filter(|p| !p.is_empty()).collect();
    for part in relative.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            part => parts.push(part),
        }
    }
    Some(parts.join("/"))
}

fn mark(class: &str, why: &str) -> Event<'static> {
    Event::InlineHtml(
        format!(
            "<span class=\"{class}\" title=\"{}\">",
            crate::markup::escape(why)
        )
        .into(),
    )
}

/// Whether an HTML block is comments and nothing else: only then is it left out, since
/// text between two comments on one line (`<!-- a --> Kept. <!-- b -->`) is the prose's.
fn only_comments(block: &str) -> bool {
    let mut rest = block.trim_start();
    while let Some(after) = rest.strip_prefix("<!--") {
        match after.find("-->") {
            Some(end) => rest = after.get(end + 3..).unwrap_or_default().trim_start(),
            None => return false,
        }
    }
    rest.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_that_would_run_in_the_browser_are_told_apart() {
        for url in [
            "javascript:alert(1)",
            " \u{1}JaVa\tScRiPt:alert(1)",
            "java\nscript:alert(1)",
            "vbscript:msgbox",
            "file:///etc/passwd",
            "data:text/html,<script>",
            "DATA:image/svg+xml,<svg onload=alert(1)>",
        ] {
            assert!(unsafe_scheme(url).is_some(), "{url:?}");
        }
        for url in [
            "https://example.com/a:b",
            "mailto:someone@example.com",
            "data:image/png;base64,iVBORw0KGgo=",
            "data:IMAGE/WEBP;base64,UklGR",
            "../docs/guide.md",
            "#notes",
        ] {
            assert_eq!(unsafe_scheme(url), None, "{url:?}");
        }
    }

    #[test]
    fn joins_relative_paths() {
        assert_eq!(
            join("docs", "../data/a.json").as_deref(),
            Some("data/a.json")
        );
        assert_eq!(join("", "../a").as_deref(), None);
    }
}
