//! The Atom feed of recently updated records and the sitemap: the two files read by other
//! programs, so their URLs are absolute (under the base URL) and their dates come from the
//! records' `updated` fields, never from the clock, so that two builds of the same corpus
//! are identical.

use std::io;

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
            escape(content.name(published)),
            escape(folder),
            escape(content.qid(published)),
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

/// The sitemap files of a site of `count` pages: `sitemap.xml` alone, or, past the
/// protocol's limit, `sitemap.xml` as an index of `sitemap-1.xml` ... Each file's place in
/// the list is its part for [`write_sitemap`].
pub fn sitemap_names(count: usize) -> Vec<String> {
    let mut names = vec!["sitemap.xml".to_string()];
    if count > SITEMAP_URLS {
        names.extend((1..=count.div_ceil(SITEMAP_URLS)).map(|n| format!("sitemap-{n}.xml")));
    }
    names
}

/// Writes part `part` of the sitemap of `pages` (`(site path, lastmod)`, `count` of them),
/// in the order of [`sitemap_names`]. The sitemaps are written as the pages are, a piece at
/// a time: held whole, those of 100,000 pages were 35 MB, written on one core before the
/// pages.
pub fn write_sitemap<'p>(
    out: &mut dyn io::Write,
    part: usize,
    base_url: &str,
    count: usize,
    pages: impl Iterator<Item = (&'p str, Option<&'p str>)>,
) -> io::Result<()> {
    // Paths are percent-encoded with every character XML escapes, so only the base URL
    // needs escaping, once.
    let base = escape(base_url);
    let mut line = String::new();
    if part == 0 && count > SITEMAP_URLS {
        out.write_all(b"<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n")?;
        for name in sitemap_names(count).iter().skip(1) {
            line.clear();
            line.push_str("  <sitemap><loc>");
            push_absolute(&mut line, &base, name);
            line.push_str("</loc></sitemap>\n");
            out.write_all(line.as_bytes())?;
        }
        return out.write_all(b"</sitemapindex>\n");
    }
    let (skip, take) = match part {
        0 => (0, count),
        n => ((n - 1) * SITEMAP_URLS, SITEMAP_URLS),
    };
    out.write_all(b"<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n")?;
    for (path, lastmod) in pages.skip(skip).take(take) {
        line.clear();
        line.push_str("  <url><loc>");
        push_absolute(&mut line, &base, path);
        line.push_str("</loc>");
        if let Some(date) = lastmod {
            line.push_str("<lastmod>");
            line.push_str(&escaped(date));
            line.push_str("</lastmod>");
        }
        line.push_str("</url>\n");
        out.write_all(line.as_bytes())?;
    }
    out.write_all(b"</urlset>\n")
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
        let names = sitemap_names(paths.len());
        assert_eq!(names, vec!["sitemap.xml", "sitemap-1.xml", "sitemap-2.xml"]);
        let part = |part: usize| {
            let mut out = Vec::new();
            let pages = paths.iter().map(|p| (p.as_str(), None));
            write_sitemap(&mut out, part, "https://kb.example/", paths.len(), pages).unwrap();
            String::from_utf8(out).unwrap()
        };
        let index = part(0);
        assert!(
            index.contains("<loc>https://kb.example/sitemap-2.xml</loc>"),
            "{index}"
        );
        assert!(!index.contains("<url>"));
        let first = part(1);
        assert_eq!(first.matches("<url>").count(), SITEMAP_URLS);
        assert!(first.contains("<loc>https://kb.example/r/0/</loc>"));
        let last = part(2);
        assert_eq!(last.matches("<url>").count(), 1);
        assert!(last.contains(&format!("<loc>https://kb.example/r/{SITEMAP_URLS}/</loc>")));
        assert_eq!(sitemap_names(SITEMAP_URLS), vec!["sitemap.xml"]);
    }
}
