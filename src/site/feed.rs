//! The Atom feed of recently updated records and the sitemap: the two files read by other
//! programs, so their URLs are absolute (under the base URL) and their dates come from the
//! records' `updated` fields, never from the clock, so that two builds of the same corpus
//! are identical.

use rayon::prelude::*;

use super::content::Content;
use super::urls::{absolute, push_absolute};
use crate::markup::{escape, escaped};

/// Entries in the feed.
const FEED_ENTRIES: usize = 50;

/// URLs in one sitemap file, the protocol's limit.
pub const SITEMAP_URLS: usize = 50_000;

/// `feed.xml`: the most recently updated records.
// Published record and page indices come from this content, the others from its corpus.
#[allow(clippy::indexing_slicing)]
pub fn atom(content: &Content<'_>) -> String {
    let base = &content.site.base_url;
    let entries: Vec<(usize, String)> = content
        .recently_updated()
        .into_iter()
        .filter_map(|p| Some((p, timestamp(content.text(p, "updated")?)?)))
        .take(FEED_ENTRIES)
        .collect();
    let updated = entries
        .first()
        .map_or_else(|| "1970-01-01T00:00:00Z".to_string(), |(_, t)| t.clone());
    let mut out = format!(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\">\n  <title>{}</title>\n  <subtitle>Recently updated records</subtitle>\n  <id>{}</id>\n  <link rel=\"self\" href=\"{}\"/>\n  <link rel=\"alternate\" type=\"text/html\" href=\"{}\"/>\n  <updated>{updated}</updated>\n  <author><name>{}</name></author>\n  <generator>gotchas</generator>\n",
        escape(&content.site.title),
        escape(&absolute(base, "")),
        escape(&absolute(base, "feed.xml")),
        escape(&absolute(base, "")),
        escape(&content.site.title),
    );
    for (published, stamp) in entries {
        let record = &content.records[published];
        let url = escape(&absolute(base, &record.page));
        let folder = &content.schemas.collections[content.collection_of(published)].folder;
        out.push_str(&format!(
            "  <entry>\n    <title>{}</title>\n    <id>{url}</id>\n    <link rel=\"alternate\" type=\"text/html\" href=\"{url}\"/>\n    <updated>{stamp}</updated>\n    <category term=\"{}\"/>\n    <summary>{}</summary>\n  </entry>\n",
            escape(&record.name),
            escape(folder),
            escape(&record.qid),
        ));
    }
    out.push_str("</feed>\n");
    out
}

/// An `updated` value as an Atom timestamp: a date becomes midnight UTC; a full RFC 3339
/// timestamp is kept; anything else cannot be dated.
fn timestamp(updated: &str) -> Option<String> {
    let date = date_of(updated)?;
    Some(if date.len() == updated.len() {
        format!("{updated}T00:00:00Z")
    } else {
        updated.to_string()
    })
}

/// The date of an `updated` value that is a date or a timestamp starting with one.
fn date_of(updated: &str) -> Option<&str> {
    let date = updated.get(..10)?;
    let is_date = date.bytes().enumerate().all(|(i, b)| {
        if i == 4 || i == 7 {
            b == b'-'
        } else {
            b.is_ascii_digit()
        }
    });
    let dated = updated.len() == 10 || updated.as_bytes().get(10) == Some(&b'T');
    (is_date && dated).then_some(date)
}

/// The sitemap files for the site's pages (`(site path, lastmod)`): `sitemap.xml` alone, or,
/// past the protocol's limit, `sitemap.xml` as an index of `sitemap-1.xml` ...
pub fn sitemaps(base_url: &str, pages: &[(&str, Option<&str>)]) -> Vec<(String, String)> {
    // Paths are percent-encoded with every character XML escapes, so only the base URL
    // needs escaping, once: the sitemaps of 100,000 pages are written on one core before the
    // pages are, and were a seventh of that wait with a few strings made per URL.
    let base = escape(base_url);
    let urlset = |pages: &[(&str, Option<&str>)]| {
        let mut out = String::from(
            "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n",
        );
        for (path, lastmod) in pages {
            out.push_str("  <url><loc>");
            push_absolute(&mut out, &base, path);
            out.push_str("</loc>");
            if let Some(date) = lastmod {
                out.push_str("<lastmod>");
                out.push_str(&escaped(date));
                out.push_str("</lastmod>");
            }
            out.push_str("</url>\n");
        }
        out.push_str("</urlset>\n");
        out
    };
    if pages.len() <= SITEMAP_URLS {
        return vec![("sitemap.xml".to_string(), urlset(pages))];
    }
    let mut index = String::from(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n",
    );
    let parts: Vec<(String, String)> = pages
        .par_chunks(SITEMAP_URLS)
        .enumerate()
        .map(|(n, chunk)| (format!("sitemap-{}.xml", n + 1), urlset(chunk)))
        .collect();
    for (name, _) in &parts {
        index.push_str("  <sitemap><loc>");
        push_absolute(&mut index, &base, name);
        index.push_str("</loc></sitemap>\n");
    }
    index.push_str("</sitemapindex>\n");
    let mut files = Vec::with_capacity(parts.len() + 1);
    files.push(("sitemap.xml".to_string(), index));
    files.extend(parts);
    files
}

/// A record's `updated` as a sitemap date, when it is one.
pub fn lastmod(updated: Option<&str>) -> Option<&str> {
    date_of(updated?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_come_only_from_dates() {
        assert_eq!(
            timestamp("2026-10-03").as_deref(),
            Some("2026-10-03T00:00:00Z")
        );
        assert_eq!(
            timestamp("2026-10-03T12:00:00Z").as_deref(),
            Some("2026-10-03T12:00:00Z")
        );
        assert_eq!(timestamp("last week"), None);
    }

    #[test]
    fn large_sitemaps_are_split_under_an_index() {
        let paths: Vec<String> = (0..SITEMAP_URLS + 1).map(|i| format!("r/{i}/")).collect();
        let pages: Vec<(&str, Option<&str>)> = paths.iter().map(|p| (p.as_str(), None)).collect();
        let files = sitemaps("https://kb.example/", &pages);
        let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, vec!["sitemap.xml", "sitemap-1.xml", "sitemap-2.xml"]);
        assert!(
            files[0]
                .1
                .contains("<loc>https://kb.example/sitemap-2.xml</loc>")
        );
    }
}
