//! The Atom feed of recently updated records and the sitemap: the two files read by other
//! programs, so their URLs are absolute (under the base URL) and their dates come from the
//! records' `updated` fields, never from the clock, so that two builds of the same corpus
//! are identical.

use super::content::Content;
use super::urls::absolute;
use crate::markup::escape;

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
    let bytes = updated.as_bytes();
    let is_date = bytes.get(..10).is_some_and(|date| {
        date.iter().enumerate().all(|(i, b)| {
            if i == 4 || i == 7 {
                *b == b'-'
            } else {
                b.is_ascii_digit()
            }
        })
    });
    match updated.len() {
        10 if is_date => Some(format!("{updated}T00:00:00Z")),
        n if n > 10 && is_date && bytes.get(10) == Some(&b'T') => Some(updated.to_string()),
        _ => None,
    }
}

/// The sitemap files for the site's pages (`(site path, lastmod)`): `sitemap.xml` alone, or,
/// past the protocol's limit, `sitemap.xml` as an index of `sitemap-1.xml` ...
pub fn sitemaps(base_url: &str, pages: &[(String, Option<String>)]) -> Vec<(String, String)> {
    let urlset = |pages: &[(String, Option<String>)]| {
        let mut out = String::from(
            "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n",
        );
        for (path, lastmod) in pages {
            out.push_str(&format!(
                "  <url><loc>{}</loc>",
                escape(&absolute(base_url, path))
            ));
            if let Some(date) = lastmod {
                out.push_str(&format!("<lastmod>{}</lastmod>", escape(date)));
            }
            out.push_str("</url>\n");
        }
        out.push_str("</urlset>\n");
        out
    };
    if pages.len() <= SITEMAP_URLS {
        return vec![("sitemap.xml".to_string(), urlset(pages))];
    }
    let mut files = Vec::new();
    let mut index = String::from(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n",
    );
    for (n, chunk) in pages.chunks(SITEMAP_URLS).enumerate() {
        let name = format!("sitemap-{}.xml", n + 1);
        index.push_str(&format!(
            "  <sitemap><loc>{}</loc></sitemap>\n",
            escape(&absolute(base_url, &name))
        ));
        files.push((name, urlset(chunk)));
    }
    index.push_str("</sitemapindex>\n");
    files.insert(0, ("sitemap.xml".to_string(), index));
    files
}

/// A record's `updated` as a sitemap date, when it is one.
pub fn lastmod(updated: Option<&str>) -> Option<String> {
    let stamp = timestamp(updated?)?;
    Some(stamp.get(..10)?.to_string())
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
        let pages: Vec<(String, Option<String>)> = (0..SITEMAP_URLS + 1)
            .map(|i| (format!("r/{i}/"), None))
            .collect();
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
