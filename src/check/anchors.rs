//! `broken-anchor`: a link's fragment must name an element of the page it leads to
//! (`[[vllm#setup]]`, `[s](guide.md#setup)`, `[s](#setup)`), as the site gives its pages'
//! elements their ids ([`crate::anchors`]). The fragments are those of the links in prose
//! and in records' string fields, which the site renders as prose.
//!
//! Most corpora link to no place in a page, so a page's ids are worked out only when some
//! fragment names the page: a prose page's from its text, a record's from its file, read
//! and parsed again, as `check` keeps no record's fields.

use std::collections::{BTreeMap, BTreeSet};

use foldhash::HashMap;
use rayon::prelude::*;
use serde_json::Value;

use crate::anchors::{self, KnownIds, PageIds};
use crate::config::Config;
use crate::corpus::Corpus;
use crate::diagnostic::{Anchor, Applicability, Diagnostic, Edit, Fix};
use crate::index::{Cites, IdIndex, Target};
use crate::links::{self, Fragment};
use crate::load::{self, LoadContext, Prose};
use crate::rules;
use crate::schema::{Collection, Schemas};
use crate::suggest;

use super::Reported;

/// A page of the site that a link may name a place in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Page {
    /// A record's, by index in [`Corpus::records`].
    Record(usize),
    /// A prose page's, by index in [`Corpus::docs`].
    Doc(usize),
}

/// A fragment as written: in which file, on which page, and where in its file.
#[derive(Debug)]
struct Written {
    /// Its file, by index in [`Corpus::files`].
    file: usize,
    /// The page its file is shown as: where a fragment alone (`#setup`) leads.
    on: Page,
    fragment: Fragment,
    /// Where a report places it and a fix rewrites it: at its span in prose, or, in a
    /// string field, found in the value by its link's destination (the fragment's span is
    /// in the string as parsed, not in the file).
    at: Anchor,
}

/// The diagnostics of the fragments, written in a file `reported` accepts if it is given,
/// that name no element of the page they lead to.
pub fn check<F: Cites>(
    corpus: &Corpus<F>,
    schemas: &Schemas,
    config: &Config,
    index: &IdIndex<'_, F>,
    reported: Option<&Reported<'_>>,
) -> Vec<Diagnostic> {
    let all = schemas.every_collection();
    let written = written(corpus, reported);
    let named: Vec<(&Written, Page)> = (written.iter())
        .filter_map(|written| Some((written, named_page(index, all, written)?)))
        .collect();
    // The pages whose records drew their ids while loading are not read again.
    let drawn = |page: Page| match page {
        Page::Record(record) => F::own_page_ids(corpus.records.get(record)?),
        Page::Doc(_) => None,
    };
    let mut pages = KnownPages::default();
    let to_read = (named.iter().map(|(_, page)| *page)).filter(|page| drawn(*page).is_none());
    know_pages(corpus, schemas, config, to_read, &mut pages);
    let ids_of = |page: Page| drawn(page).or_else(|| pages.get(&page)?.as_ref());
    diagnose_named(corpus, schemas, &named, &ids_of)
}

/// What a language server keeps of `broken-anchor` between edits: the fragments each file
/// writes, the page each names, the ids of those pages, and each file's findings. An edit
/// of a page may break or mend a fragment written in another file (a heading renamed), so
/// at an edit the fragments of the files edited are checked again, and those of the files
/// whose fragments name a page edited; only the files edited are walked for their
/// fragments, and only the pages edited parsed again for their ids. At 100,000 records
/// each naming two places in its own page (`cargo bench --bench lsp`), working out every
/// page's ids is 2.8 s of `check`; with them kept, an edit that walked every file again
/// took 345 ms, one that checked every fragment again 54 ms, and this takes 8.7 ms (13.1
/// when the edited record's fragment is written with a link, which builds an id index).
#[derive(Debug, Default)]
pub struct KeptFragments {
    /// Per file that writes a fragment.
    files: BTreeMap<usize, FileFragments>,
    /// The ids of the pages named so far.
    pages: KnownPages,
    /// Per page: the files whose fragments named it when they were last checked.
    naming: HashMap<Page, BTreeSet<usize>>,
    /// The files whose fragments are to be checked again.
    stale: BTreeSet<usize>,
}

/// The fragments one file writes, in order; once resolved the page each names (`None`
/// for a link to nothing, which is `broken-link`'s, or to a file that is no page); and the
/// diagnostics of those that name no element of their page.
#[derive(Debug)]
struct FileFragments {
    written: Vec<Written>,
    named: Option<Vec<Option<Page>>>,
    found: Vec<Diagnostic>,
}

impl KeptFragments {
    /// Forgets everything and walks every file: for the first check, and whenever a record
    /// id or the set of files changed, which may make any link name another page, and
    /// renumbers records and files.
    pub fn reread_all<F: Cites>(&mut self, corpus: &Corpus<F>) {
        *self = KeptFragments::default();
        self.reread(corpus, &(0..corpus.files.len()).collect());
    }

    /// Takes in that the text of `files` changed: their fragments are walked again, the
    /// ids of their pages forgotten, and the files whose fragments named those pages
    /// checked again.
    pub fn reread<F: Cites>(&mut self, corpus: &Corpus<F>, files: &BTreeSet<usize>) {
        for &file in files {
            let record = corpus.record_of_file(file).map(Page::Record);
            let doc = corpus.docs.iter().position(|doc| doc.file == file);
            for page in record.into_iter().chain(doc.map(Page::Doc)) {
                self.pages.remove(&page);
                if let Some(naming) = self.naming.remove(&page) {
                    self.stale.extend(naming);
                }
            }
        }
        self.files.retain(|file, _| !files.contains(file));
        let mut walked: BTreeMap<usize, Vec<Written>> = BTreeMap::new();
        for written in written_in_files(corpus, files) {
            walked.entry(written.file).or_default().push(written);
        }
        for (file, written) in walked {
            // A file whose fragments are all alone (`#setup`) names its own page only,
            // which takes no index to find.
            let named = (written.iter())
                .map(|written| written.fragment.page.is_none().then_some(Some(written.on)))
                .collect();
            let found = Vec::new();
            self.files.insert(
                file,
                FileFragments {
                    written,
                    named,
                    found,
                },
            );
            self.stale.insert(file);
        }
    }

    /// Whether some file read again links to a page with a fragment, which
    /// [`KeptFragments::resolve`] must find before a check.
    pub fn unresolved(&self) -> bool {
        (self.stale.iter())
            .filter_map(|file| self.files.get(file))
            .any(|kept| kept.named.is_none())
    }

    /// Finds the pages that the links of the files read again lead to. The rest are kept:
    /// what a link leads to changes only with ids or the set of files, and then every file
    /// is read again.
    pub fn resolve<F: Cites>(&mut self, schemas: &Schemas, index: &IdIndex<'_, F>) {
        let all = schemas.every_collection();
        for file in &self.stale {
            if let Some(kept) = self.files.get_mut(file)
                && kept.named.is_none()
            {
                let named = kept.written.iter();
                kept.named = Some(named.map(|w| named_page(index, all, w)).collect());
            }
        }
    }

    /// Checks the fragments of the files to check again, against the corpus's pages as
    /// they are, after [`KeptFragments::resolve`] (a fragment whose page is not found yet
    /// is not checked); the other files' findings are kept as they were.
    pub fn check<F: Sync>(&mut self, corpus: &Corpus<F>, schemas: &Schemas, config: &Config) {
        let stale = std::mem::take(&mut self.stale);
        let named: Vec<(usize, Vec<(&Written, Page)>)> = (stale.iter())
            .filter_map(|&file| Some((file, self.files.get(&file)?.named())))
            .collect();
        let pages = (named.iter()).flat_map(|(_, named)| named.iter().map(|(_, page)| *page));
        know_pages(corpus, schemas, config, pages, &mut self.pages);
        let mut found = Vec::with_capacity(named.len());
        for (file, named) in &named {
            for (_, page) in named {
                self.naming.entry(*page).or_default().insert(*file);
            }
            let ids_of = |page: Page| self.pages.get(&page)?.as_ref();
            found.push((*file, diagnose_named(corpus, schemas, named, &ids_of)));
        }
        for (file, diagnostics) in found {
            if let Some(kept) = self.files.get_mut(&file) {
                kept.found = diagnostics;
            }
        }
    }

    /// The diagnostics of every fragment written, as last checked, in file order.
    pub fn found(&self) -> impl Iterator<Item = &Diagnostic> {
        self.files.values().flat_map(|kept| kept.found.iter())
    }
}

impl FileFragments {
    /// The fragments whose page was found, with it.
    fn named(&self) -> Vec<(&Written, Page)> {
        (self.written.iter())
            .zip(self.named.iter().flatten())
            .filter_map(|(written, page)| Some((written, (*page)?)))
            .collect()
    }
}

/// The ids of pages, worked out once each (`None` when a page's text cannot be read or
/// parsed).
type KnownPages = HashMap<Page, Option<KnownIds>>;

/// The page a fragment names: its own file's page for a fragment alone (`#setup`), else
/// the one its link leads to; `None` for a link to nothing, which is `broken-link`'s, or to
/// a file that is no page and has no headings to name. `all` is every collection.
fn named_page<F: Cites>(index: &IdIndex<'_, F>, all: &[usize], written: &Written) -> Option<Page> {
    let Some(link) = &written.fragment.page else {
        return Some(written.on);
    };
    match index.resolve_prose_link(written.file, link, all) {
        Ok(Target::Record(record)) => Some(Page::Record(record)),
        Ok(Target::Doc(doc)) => Some(Page::Doc(doc)),
        Ok(Target::File) | Err(_) => None,
    }
}

/// Works out the ids of the pages `named` that `pages` does not hold yet, in parallel,
/// and adds them.
fn know_pages<F: Sync>(
    corpus: &Corpus<F>,
    schemas: &Schemas,
    config: &Config,
    named: impl Iterator<Item = Page>,
    pages: &mut KnownPages,
) {
    let mut missing: Vec<Page> = named.filter(|page| !pages.contains_key(page)).collect();
    missing.sort_unstable();
    missing.dedup();
    let found: Vec<(Page, Option<KnownIds>)> = missing
        .into_par_iter()
        .map(|page| (page, page_ids(corpus, schemas, config, page)))
        .collect();
    pages.extend(found);
}

/// The diagnostics of the fragments of `named` that name no element of their page, whose
/// ids `ids_of` gives (`None` for a page whose ids are not known).
fn diagnose_named<'p, F>(
    corpus: &Corpus<F>,
    schemas: &Schemas,
    named: &[(&Written, Page)],
    ids_of: &dyn Fn(Page) -> Option<&'p KnownIds>,
) -> Vec<Diagnostic> {
    named
        .iter()
        .filter_map(|(written, page)| {
            let ids = ids_of(*page)?;
            (!ids.contains(&written.fragment.id))
                .then(|| diagnose(corpus, schemas, written, *page, ids))
        })
        .collect()
}

/// Every fragment written in a file `reported` accepts if it is given, in corpus order:
/// in each record's Markdown body and string fields, then in the prose pages. The records
/// are walked on every core: at 100,000 records one thread took 3.1 ms where it took 0.18
/// at 10,000 (17.5x), each record's few words read from memory far past the caches.
fn written<F: Cites>(corpus: &Corpus<F>, reported: Option<&Reported<'_>>) -> Vec<Written> {
    let accepted = |file: usize| reported.is_none_or(|reported| reported(file));
    let mut written: Vec<Written> = (corpus.records.par_iter().enumerate())
        .filter(|(_, record)| accepted(record.file))
        .flat_map_iter(|(index, _)| in_record(corpus, index))
        .collect();
    written.extend(
        (corpus.docs.iter().enumerate())
            .filter(|(_, doc)| accepted(doc.file))
            .flat_map(|(index, _)| in_doc(corpus, index)),
    );
    written
}

/// Every fragment written in `files`, in the order of [`written`], whose records are
/// looked up by file rather than found among all: at an edit, a language server reads one
/// file's of 100,000 records, and visiting every record to pass over the rest cost as much
/// as the edit's own check.
fn written_in_files<F: Cites>(corpus: &Corpus<F>, files: &BTreeSet<usize>) -> Vec<Written> {
    let in_records = (files.iter())
        .filter_map(|&file| corpus.record_of_file(file))
        .flat_map(|index| in_record(corpus, index));
    let in_docs = (corpus.docs.iter().enumerate())
        .filter(|(_, doc)| files.contains(&doc.file))
        .flat_map(|(index, _)| in_doc(corpus, index));
    in_records.chain(in_docs).collect()
}

/// The fragments written in record `index`: in its Markdown body, then in its string
/// fields.
// Record indices come from the corpus they index.
#[allow(clippy::indexing_slicing)]
fn in_record<F: Cites>(corpus: &Corpus<F>, index: usize) -> impl Iterator<Item = Written> + '_ {
    let record = &corpus.records[index];
    let in_body = record
        .fragments()
        .iter()
        .map(move |fragment| in_prose(record.file, Page::Record(index), fragment.clone()));
    let in_fields =
        F::field_fragments(record)
            .into_owned()
            .into_iter()
            .map(move |field_fragment| Written {
                file: record.file,
                on: Page::Record(index),
                at: Anchor::Within {
                    pointer: field_fragment.pointer.to_string(),
                    from: field_fragment
                        .destination
                        .len()
                        .saturating_sub(field_fragment.fragment.span.len()),
                    needle: field_fragment.destination,
                    place: field_fragment.place as usize,
                },
                fragment: field_fragment.fragment,
            });
    in_body.chain(in_fields)
}

/// The fragments written in prose page `index`.
// Doc and file indices come from the corpus they index.
#[allow(clippy::indexing_slicing)]
fn in_doc<F>(corpus: &Corpus<F>, index: usize) -> impl Iterator<Item = Written> {
    let doc = &corpus.docs[index];
    let text = corpus.files[doc.file].text.as_deref().unwrap_or_default();
    let fragments = match links::may_hold_link(text) && links::may_hold_fragment(text) {
        true => links::read(text, &(0..text.len())).1,
        false => Vec::new(),
    };
    let (file, on) = (doc.file, Page::Doc(index));
    (fragments.into_iter()).map(move |fragment| in_prose(file, on, fragment))
}

/// A fragment written in the prose of `file`, shown as page `on`.
fn in_prose(file: usize, on: Page, fragment: Fragment) -> Written {
    Written {
        file,
        on,
        at: Anchor::Span(fragment.span.clone()),
        fragment,
    }
}

/// The ids of the elements of `page`, as the site gives them; `None` when its text cannot
/// be read or parsed, which is reported where its file is.
// Record, doc, file and collection indices come from the corpus and schemas they index.
#[allow(clippy::indexing_slicing)]
fn page_ids<F>(
    corpus: &Corpus<F>,
    schemas: &Schemas,
    config: &Config,
    page: Page,
) -> Option<KnownIds> {
    match page {
        Page::Doc(doc) => {
            let text = corpus.files[corpus.docs[doc].file].text.as_deref()?;
            let mut ids = PageIds::new(&[]);
            anchors::claim(text, &mut ids);
            Some(ids.known())
        }
        Page::Record(record) => record_ids(corpus, schemas, config, record),
    }
}

/// The ids of a record's page, its text had again as a report has it
/// ([`crate::source::SourceFile::text_again`]): read again when it was let go, and only
/// while it is the text that was checked.
// Record, file and collection indices come from the corpus and schemas they index.
#[allow(clippy::indexing_slicing)]
fn record_ids<F>(
    corpus: &Corpus<F>,
    schemas: &Schemas,
    config: &Config,
    record: usize,
) -> Option<KnownIds> {
    let record = &corpus.records[record];
    let file = &corpus.files[record.file];
    let text = file.text_again()?;
    let collection = &schemas.collections[record.collection];
    let context = LoadContext {
        text_fields: &collection.text_fields,
        max_file_size: config.max_file_size,
    };
    let loaded = load::parse(
        &text,
        &file.display,
        record.format,
        &context,
        &mut Vec::new(),
    )?;
    loaded_ids(&loaded.value, loaded.prose.as_ref(), &text, collection)
}

/// The ids of the page of a record of `collection` whose fields are `value`, with the
/// Markdown body `prose` in `text`: the template's, `field-NAME` for each of its fields,
/// and those of the headings and footnotes of its body and then of its text fields (each
/// rendered as prose on the page, the long ones always), in that order, as the page gives
/// them; `None` when its fields are no object.
pub fn loaded_ids(
    value: &Value,
    prose: Option<&Prose>,
    text: &str,
    collection: &Collection,
) -> Option<KnownIds> {
    let Value::Object(fields) = value else {
        return None;
    };
    let names: Vec<&str> = fields.keys().map(String::as_str).collect();
    let mut ids = PageIds::new(&names);
    let sections = prose.map_or(&[][..], |prose| &prose.sections);
    if let Some(prose) = prose {
        anchors::claim(text.get(prose.body.clone()).unwrap_or_default(), &mut ids);
    }
    for name in &collection.properties {
        if let Some(Value::String(value)) = fields.get(name)
            && collection.text_fields.contains(name)
            && !sections.contains(name)
        {
            anchors::claim(value, &mut ids);
        }
    }
    Some(ids.known())
}

/// The diagnostic of a fragment that names no element of `page`, whose ids are `ids`.
// File, doc, record and collection indices come from the corpus and schemas they index.
#[allow(clippy::indexing_slicing)]
fn diagnose<F>(
    corpus: &Corpus<F>,
    schemas: &Schemas,
    written: &Written,
    page: Page,
    ids: &KnownIds,
) -> Diagnostic {
    let id = &written.fragment.id;
    let where_ = if written.fragment.page.is_none() {
        "this page".to_string()
    } else {
        match page {
            Page::Record(record) => {
                format!(
                    "the page of {}",
                    schemas.qualified_id(&corpus.records[record])
                )
            }
            Page::Doc(doc) => format!("the page {}", corpus.files[corpus.docs[doc].file].display),
        }
    };
    let diagnostic = Diagnostic::new(
        rules::BROKEN_ANCHOR,
        &corpus.files[written.file].display,
        format!("`#{id}` names no heading or element of {where_}"),
    )
    .at(written.at.clone())
    .with_label("no element has this id");
    let mut known: Vec<&str> = ids.all().collect();
    known.sort_unstable();
    let suggestions = suggest::suggest(id, known, 3);
    let (Some(help), Some(first)) = (suggest::did_you_mean(&suggestions), suggestions.first())
    else {
        return diagnostic.with_help(
            "a heading's id is its text in lower case, spaces as `-`, punctuation left out \
             (`## Tier 0: Setup` is `#tier-0-setup`)",
        );
    };
    // A fragment is rewritten without asking only when one id is near enough to be sure
    // of, as an id is ([`suggest::certain`]).
    let (best, applicability) = match suggest::certain(id, &suggestions) {
        Some(certain) => (certain, Applicability::MachineApplicable),
        None => (first, Applicability::MaybeIncorrect),
    };
    diagnostic.with_help(help).with_fix(Fix {
        applicability,
        edits: vec![Edit {
            anchor: written.at.clone(),
            replacement: best.name.to_string(),
        }],
    })
}
