//! What the check cache ([`crate::cache`]) keeps of a record file: the record as drawn for
//! checking ([`Drawn`]), written as bytes and read back in its new place in the corpus.
//!
//! Only a file that loaded without a problem is kept, so its [`Drawn`] has no findings and
//! every diagnostic of a kept file is made afresh when its text changes. What a reference
//! shares with its schema (its field's name, the collections it may point at) is kept as
//! the reference's position among its collection's references, and shared again on the way
//! back, as loading shares it.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::SystemTime;

use foldhash::HashSet;
use rayon::prelude::*;

use super::Drawn;
use crate::anchors::KnownIds;
use crate::cache::{Kept, Memo, Reader, Writer};
use crate::corpus::{Corpus, Place, Recall};
use crate::index::{FieldFragment, Source, Written};
use crate::links::{Fragment, Link, LinkKind};
use crate::load::{Prose, Record};
use crate::schema::Schemas;
use crate::source::{Head, SourceFile, Span};
use crate::stamp::Stamp;

/// Recalls records from a [`Memo`] while a corpus loads, counting those it recalled.
pub struct Recaller<'m> {
    memo: &'m Memo,
    schemas: &'m Schemas,
    recalled: AtomicUsize,
    unread: AtomicUsize,
}

/// How many records a [`Recaller`] recalled, and how many of those without reading their
/// file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Recalled {
    /// Records recalled.
    pub records: usize,
    /// Of those, the ones whose file was not read, its stamp being the one kept.
    pub unread: usize,
}

impl<'m> Recaller<'m> {
    /// Recalls from `memo`, made with `schemas`.
    pub fn new(memo: &'m Memo, schemas: &'m Schemas) -> Self {
        Recaller {
            memo,
            schemas,
            recalled: AtomicUsize::new(0),
            unread: AtomicUsize::new(0),
        }
    }

    /// How many records it recalled so far.
    pub fn recalled(&self) -> Recalled {
        Recalled {
            records: self.recalled.load(Ordering::Relaxed),
            unread: self.unread.load(Ordering::Relaxed),
        }
    }
}

impl Recall<Drawn> for Recaller<'_> {
    fn recall(
        &self,
        display: &str,
        text_hash: u64,
        place: &Place,
    ) -> Option<(Record<Drawn>, Option<Head>)> {
        let payload = self.memo.recall(display, text_hash)?;
        let recalled = decode(payload, place, self.schemas)?;
        self.recalled.fetch_add(1, Ordering::Relaxed);
        Some(recalled)
    }

    fn recall_unread(
        &self,
        display: &str,
        place: &Place,
        unchanged: &dyn Fn(&Stamp) -> bool,
    ) -> Option<(Record<Drawn>, Option<Head>, u64, Stamp)> {
        let (stamp, text_hash, payload) = self.memo.recall_stamped(display)?;
        if !unchanged(&stamp) {
            return None;
        }
        let (record, head) = decode(payload, place, self.schemas)?;
        self.recalled.fetch_add(1, Ordering::Relaxed);
        self.unread.fetch_add(1, Ordering::Relaxed);
        Some((record, head, text_hash, stamp))
    }
}

/// The entries to keep of a corpus loaded for checking, which started to load at `started`:
/// every record file that loaded without a problem, in corpus order, with its stamp if that
/// had settled by then. `None` when they are the entries of a cache that `held` that many,
/// all of them recalled without reading their file and so with the stamps kept, and no
/// other: then it need not be written again.
pub fn to_keep<'c>(
    corpus: &'c Corpus<Drawn>,
    schemas: &'c Schemas,
    held: usize,
    recalled: Recalled,
    started: SystemTime,
) -> Option<Keeping<'c>> {
    let troubled: HashSet<&str> = corpus
        .diagnostics
        .iter()
        .map(|diagnostic| diagnostic.file.as_str())
        .collect();
    let records: Vec<(&Record<Drawn>, &SourceFile, u64)> = corpus
        .records
        .iter()
        .filter(|record| record.value.findings.is_empty())
        .filter_map(|record| {
            let file = corpus.files.get(record.file)?;
            let text_hash = file.let_go_hash()?;
            (!troubled.contains(file.display.as_str())).then_some((record, file, text_hash))
        })
        .collect();
    // Every recalled record is keepable, so when as many are keepable as were recalled,
    // they are the same records.
    if records.len() == recalled.records && held == recalled.records && recalled.unread == held {
        return None;
    }
    Some(Keeping {
        schemas,
        records,
        started,
    })
}

/// The records a cache is to keep (see [`to_keep`]), made into entries a batch at a time.
pub struct Keeping<'c> {
    schemas: &'c Schemas,
    records: Vec<(&'c Record<Drawn>, &'c SourceFile, u64)>,
    started: SystemTime,
}

impl Keeping<'_> {
    /// How many entries it makes.
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// Whether it makes none.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// The entries, a batch at a time, each batch made on all cores when it is asked for:
    /// [`crate::cache::save`] writes one before asking for the next, so the entries of a
    /// large corpus are never all held at once (at 100,000 records they were 40 MB).
    pub fn batches(&self) -> impl Iterator<Item = Vec<Kept>> + '_ {
        const BATCH: usize = 4096;
        self.records.chunks(BATCH).map(|batch| {
            batch
                .par_iter()
                .map(|&(record, file, text_hash)| Kept {
                    display: file.display.clone(),
                    text_hash,
                    stamp: file
                        .stamp
                        .filter(|stamp| stamp.settled_before(self.started)),
                    // A record that will not encode (loading never makes one) is kept with
                    // no payload, which recalls nothing: its file is loaded as if not kept.
                    payload: encode(record, file.head(), self.schemas).unwrap_or_default(),
                })
                .collect()
        })
    }
}

/// Tags of a [`Source`] in a payload.
const FIELD: u8 = 0;
const FIELD_LINK: u8 = 1;
const LINK: u8 = 2;

/// A record as bytes, with the head of its file's text (see [`Head`]) when one was kept:
/// `None` when a reference names a field its collection does not declare, which loading
/// never makes.
fn encode(record: &Record<Drawn>, head: Option<&Head>, schemas: &Schemas) -> Option<Vec<u8>> {
    let references = &schemas.collections.get(record.collection)?.references;
    let mut out = Writer::default();
    out.str(&record.id);
    out.flag(record.id_in_fields);
    out.size(record.value.written.len());
    for written in &record.value.written {
        match &written.source {
            Source::Field { field, pointer, .. } => {
                out.u8(FIELD);
                out.size(references.iter().position(|r| r.field() == *field)?);
                out.str(pointer);
            }
            Source::FieldLink {
                pointer,
                kind,
                place,
                ..
            } => {
                out.u8(FIELD_LINK);
                out.str(pointer);
                out.u8(link_kind(*kind));
                out.size(*place as usize);
            }
            Source::Link { span: at, kind, .. } => {
                out.u8(LINK);
                span(&mut out, at);
                out.u8(link_kind(*kind));
            }
        }
        out.str(&written.text);
    }
    out.option(record.prose.as_deref(), |out, prose| {
        span(out, &prose.body);
        out.size(prose.fragments.len());
        for fragment in &prose.fragments {
            write_fragment(out, fragment);
        }
    });
    out.size(record.value.field_fragments.len());
    for field_fragment in &record.value.field_fragments {
        out.str(field_fragment.pointer);
        out.str(&field_fragment.destination);
        out.size(field_fragment.place as usize);
        write_fragment(&mut out, &field_fragment.fragment);
    }
    out.option(record.value.own_page_ids.as_deref(), |out, ids| {
        out.size(ids.own().count());
        for id in ids.own() {
            out.str(id);
        }
    });
    out.option(head, |out, head| {
        out.str(&head.text);
        span(out, &head.root);
    });
    Some(out.bytes)
}

fn write_fragment(out: &mut Writer, fragment: &Fragment) {
    out.option(fragment.page.as_ref(), |out, page| {
        out.u8(link_kind(page.kind));
        out.str(&page.target);
        span(out, &page.span);
    });
    out.str(&fragment.id);
    span(out, &fragment.span);
}

fn read_fragment(input: &mut Reader<'_>) -> Option<Fragment> {
    let page = input.option(|input| {
        let kind = read_link_kind(input)?;
        let target = input.str()?.to_string();
        let span = read_span(input)?;
        Some(Link { kind, target, span })
    })?;
    let id = input.str()?.to_string();
    let span = read_span(input)?;
    Some(Fragment { page, id, span })
}

/// A body's fragments, as [`encode`] wrote them (see [`super::draw`]).
fn read_fragments(input: &mut Reader<'_>) -> Option<Box<Prose>> {
    let body = read_span(input)?;
    let fragments = (0..input.size()?)
        .map(|_| read_fragment(input))
        .collect::<Option<Vec<Fragment>>>()?;
    Some(Box::new(Prose {
        body,
        sections: Vec::new(),
        links: Vec::new(),
        fragments,
    }))
}

/// A record read back from bytes [`encode`] wrote, in its place in this corpus, with the
/// head of its file's text if one was kept; `None` when they do not read whole.
fn decode(
    payload: &[u8],
    place: &Place,
    schemas: &Schemas,
) -> Option<(Record<Drawn>, Option<Head>)> {
    let references = &schemas.collections.get(place.collection)?.references;
    let every = schemas.every_collection();
    let mut input = Reader::new(payload);
    let id = input.str()?.to_string();
    let id_in_fields = input.flag()?;
    let written = (0..input.size()?)
        .map(|_| {
            let (source, allowed) = match input.u8()? {
                FIELD => {
                    let reference = references.get(input.size()?)?;
                    let source = Source::Field {
                        record: place.index,
                        field: reference.field(),
                        pointer: crate::intern::pointer(input.str()?),
                    };
                    (source, reference.targets)
                }
                FIELD_LINK => {
                    let pointer = crate::intern::pointer(input.str()?);
                    let kind = read_link_kind(&mut input)?;
                    let source = Source::FieldLink {
                        record: place.index,
                        pointer,
                        kind,
                        place: u32::try_from(input.size()?).ok()?,
                    };
                    (source, every)
                }
                LINK => {
                    let span = read_span(&mut input)?;
                    let kind = read_link_kind(&mut input)?;
                    let source = Source::Link {
                        file: place.file,
                        span,
                        kind,
                    };
                    (source, every)
                }
                _ => return None,
            };
            Some(Written {
                source,
                text: input.str()?.to_string(),
                allowed,
            })
        })
        .collect::<Option<Box<[Written]>>>()?;
    let prose = input.option(read_fragments)?;
    let field_fragments = (0..input.size()?)
        .map(|_| {
            let pointer = crate::intern::pointer(input.str()?);
            let destination = input.str()?.to_string();
            let place = u32::try_from(input.size()?).ok()?;
            let fragment = read_fragment(&mut input)?;
            Some(FieldFragment {
                pointer,
                destination,
                place,
                fragment,
            })
        })
        .collect::<Option<Box<[FieldFragment]>>>()?;
    let own_page_ids = input.option(|input| {
        let own = (0..input.size()?)
            .map(|_| Some(input.str()?.to_string()))
            .collect::<Option<Vec<String>>>()?;
        Some(Box::new(KnownIds::new(own)))
    })?;
    let head = input.option(|input| {
        let text = input.str()?.into();
        let root = read_span(input)?;
        Some(Head { text, root })
    })?;
    if !input.rest().is_empty() {
        return None;
    }
    let record = Record {
        collection: place.collection,
        id_hash: crate::index::id_hash(&id),
        id,
        file: place.file,
        format: place.format,
        id_in_fields,
        value: Drawn {
            findings: Vec::new(),
            written,
            field_fragments,
            own_page_ids,
        },
        prose,
    };
    Some((record, head))
}

fn link_kind(kind: LinkKind) -> u8 {
    match kind {
        LinkKind::Wiki => 0,
        LinkKind::File => 1,
    }
}

fn read_link_kind(input: &mut Reader<'_>) -> Option<LinkKind> {
    match input.u8()? {
        0 => Some(LinkKind::Wiki),
        1 => Some(LinkKind::File),
        _ => None,
    }
}

fn span(out: &mut Writer, span: &Span) {
    out.size(span.start);
    out.size(span.end);
}

fn read_span(input: &mut Reader<'_>) -> Option<Span> {
    Some(input.size()?..input.size()?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::project::Project;
    use crate::source::Format;

    #[test]
    fn a_record_and_its_head_read_back_as_written_in_its_new_place() {
        let project = Project::open(std::path::Path::new(env!("CARGO_MANIFEST_DIR")), None)
            .expect("the bundled project");
        let schemas = &project.schemas;
        let gotchas = schemas.by_folder("gotchas").expect("a gotchas collection");
        let affects = schemas.collections[gotchas]
            .references
            .iter()
            .find(|r| r.field() == "affects")
            .expect("an affects field");
        let written = |source, text: &str, allowed: &'static [usize]| Written {
            source,
            text: text.to_string(),
            allowed,
        };
        let record = |index: usize, file: usize| Record {
            collection: gotchas,
            id: "kv-cache-dtype".to_string(),
            id_hash: crate::index::id_hash("kv-cache-dtype"),
            file,
            format: Format::Markdown,
            id_in_fields: true,
            value: Drawn {
                findings: Vec::new(),
                written: Box::new([
                    written(
                        Source::Field {
                            record: index,
                            field: affects.field(),
                            pointer: "/affects/0",
                        },
                        "vllm",
                        affects.targets,
                    ),
                    written(
                        Source::FieldLink {
                            record: index,
                            pointer: "/notes",
                            kind: LinkKind::Wiki,
                            place: 1,
                        },
                        "mooncake",
                        schemas.every_collection(),
                    ),
                    written(
                        Source::Link {
                            file,
                            span: 40..52,
                            kind: LinkKind::File,
                        },
                        "../docs/a.md",
                        schemas.every_collection(),
                    ),
                ]),
                field_fragments: Box::new([FieldFragment {
                    pointer: "/notes",
                    destination: "mooncake#transfer".to_string(),
                    place: 0,
                    fragment: Fragment {
                        page: Some(Link {
                            kind: LinkKind::Wiki,
                            target: "mooncake".to_string(),
                            span: 6..14,
                        }),
                        id: "transfer".to_string(),
                        span: 15..23,
                    },
                }]),
                own_page_ids: Some(Box::new(KnownIds::new(vec![
                    "field-name".to_string(),
                    "über".to_string(),
                    "symptom".to_string(),
                ]))),
            },
            prose: Some(Box::new(Prose {
                body: 30..90,
                sections: Vec::new(),
                links: Vec::new(),
                fragments: vec![
                    Fragment {
                        page: Some(Link {
                            kind: LinkKind::Wiki,
                            target: "vllm".to_string(),
                            span: 60..64,
                        }),
                        id: "setup".to_string(),
                        span: 65..70,
                    },
                    Fragment {
                        page: None,
                        id: "über".to_string(),
                        span: 80..90,
                    },
                ],
            })),
        };
        let head = Head {
            text: "---\ntitle: KV cache dtype".into(),
            root: 4..25,
        };
        let payload = encode(&record(0, 0), Some(&head), schemas).expect("encodable");
        let place = Place {
            collection: gotchas,
            format: Format::Markdown,
            file: 7,
            index: 5,
        };
        let (back, head_back) = decode(&payload, &place, schemas).expect("decodable");
        assert_eq!(format!("{back:?}"), format!("{:?}", record(5, 7)));
        assert_eq!(head_back, Some(head));
        let headless = encode(&record(0, 0), None, schemas).expect("encodable");
        let (_, no_head) = decode(&headless, &place, schemas).expect("decodable");
        assert_eq!(no_head, None);
        for cut in 0..payload.len() {
            assert!(decode(&payload[..cut], &place, schemas).is_none(), "{cut}");
        }
        // Any byte changed reads back as something or as nothing, never as a panic.
        for at in 0..payload.len() {
            for flip in [1u8, 0x80, 0xff] {
                let mut changed = payload.clone();
                changed[at] ^= flip;
                let _ = decode(&changed, &place, schemas);
            }
        }
    }
}
