//! The HTML pages: one context per kind of page, rendered with its template.
//!
//! Each function takes the content and one page's identity and returns the page's HTML, so
//! pages depend on nothing but the content and can be rendered in any order or all at once.
//! Every context carries the frame `base.html` needs (see there) and links are written by
//! the templates' `href()`, relative to the page.

use std::borrow::Cow;
use std::collections::BTreeMap;

use minijinja::Value as Html;
use petgraph::Direction;
use petgraph::graph::NodeIndex;
use petgraph::visit::EdgeRef;
use serde::Serialize;
use serde_json::Value;

use super::content::Content;
use super::fields::{self, badge_class, label};
use super::templates::Templates;
use super::{feed, markdown, urls};
use crate::anchors::PageIds;
use crate::graph::export::{self, MAX_INPROCESS_SVG_NODES};

/// How many recently updated records the home page lists.
const RECENT: usize = 12;

/// A page of the navigation bar.
#[derive(Clone, Debug, Serialize)]
pub struct NavItem {
    name: String,
    path: String,
}

/// What every page knows besides its own content.
pub struct Frame<'a, 'c> {
    content: &'a Content<'c>,
    templates: &'a Templates,
    nav: Vec<NavItem>,
}

#[derive(Serialize)]
struct Common<'a> {
    site: SiteInfo<'a>,
    root: String,
    path: &'a str,
    canonical: String,
    title: String,
    nav: &'a [NavItem],
}

#[derive(Serialize)]
struct SiteInfo<'a> {
    title: &'a str,
    base_url: &'a str,
}

#[derive(Serialize)]
struct Page<'a, T: Serialize> {
    #[serde(flatten)]
    common: Common<'a>,
    #[serde(flatten)]
    page: T,
}

/// A record in a list or a table.
#[derive(Serialize)]
struct Row<'a> {
    qid: &'a str,
    id: &'a str,
    name: &'a str,
    path: &'a str,
    updated: Option<&'a str>,
    /// `updated` as `<time datetime>` takes it, when it is a date.
    datetime: Option<Cow<'a, str>>,
    badges: Vec<Badge<'a>>,
    cells: Vec<Cell<'a>>,
}

#[derive(Serialize)]
struct Badge<'a> {
    field: &'a str,
    value: &'a str,
    class: String,
    path: &'a str,
}

#[derive(Serialize)]
struct Cell<'a> {
    value: Option<&'a str>,
    path: Option<&'a str>,
    class: String,
}

/// A value of an enum field, with its share of the records that have the field.
#[derive(Serialize)]
struct ValueCount<'a> {
    value: &'a str,
    path: &'a str,
    count: usize,
    share: String,
    class: String,
}

/// Backlinks: citing collection, then field, then the citing records or pages.
#[derive(Serialize)]
struct Group<'a> {
    collection: &'a str,
    fields: Vec<FieldGroup<'a>>,
}

#[derive(Serialize)]
struct FieldGroup<'a> {
    field: &'a str,
    items: Vec<Link<'a>>,
}

#[derive(Serialize)]
struct Link<'a> {
    id: &'a str,
    name: &'a str,
    path: &'a str,
}

// Published record and page indices come from this content, the others from its corpus.
#[allow(clippy::indexing_slicing)]
impl<'a, 'c> Frame<'a, 'c> {
    /// The frame shared by every page.
    pub fn new(content: &'a Content<'c>, templates: &'a Templates) -> Self {
        let nav = content
            .collections
            .iter()
            .filter(|c| !c.records.is_empty())
            .map(|c| NavItem {
                name: content.schemas.collections[c.collection].folder.clone(),
                path: c.page.clone(),
            })
            .collect();
        Frame {
            content,
            templates,
            nav,
        }
    }

    fn render<T: Serialize>(
        &self,
        template: &str,
        file: &str,
        path: &str,
        title: &str,
        page: T,
    ) -> Result<String, minijinja::Error> {
        let site = &self.content.site;
        // The 404 page is shown at any depth, so only absolute links work there.
        let root = if file == "404.html" {
            site.base_url.clone()
        } else {
            urls::root_of(file)
        };
        self.templates.render(
            template,
            Page {
                common: Common {
                    site: SiteInfo {
                        title: &site.title,
                        base_url: &site.base_url,
                    },
                    root,
                    path,
                    // A canonical link names the one address of a page: a path alone,
                    // under a site published below the server's root, names another.
                    canonical: if urls::is_full(&site.base_url) {
                        urls::absolute(&site.base_url, path)
                    } else {
                        String::new()
                    },
                    title: title.to_string(),
                    nav: &self.nav,
                },
                page,
            },
        )
    }

    fn row(&self, published: usize, columns: &[String]) -> Row<'a> {
        let content = self.content;
        let record = &content.records[published];
        let bare = &content.corpus.records[record.record].id;
        Row {
            qid: content.qid(published),
            id: bare,
            name: content.name(published),
            path: &record.page,
            updated: content.text(published, "updated"),
            datetime: content
                .text(published, "updated")
                .and_then(feed::html_datetime),
            badges: self.badges(published),
            cells: columns
                .iter()
                .map(|field| {
                    let value = content.text(published, field);
                    Cell {
                        value,
                        path: value.and_then(|v| content.value_page(field, v)),
                        class: value.map(|v| badge_class(field, v)).unwrap_or_default(),
                    }
                })
                .collect(),
        }
    }

    fn badges(&self, published: usize) -> Vec<Badge<'a>> {
        let content = self.content;
        content
            .enums
            .iter()
            .filter_map(|page| {
                let value = content.text(published, &page.field)?;
                Some(Badge {
                    field: &page.field,
                    value,
                    class: badge_class(&page.field, value),
                    path: content.value_page(&page.field, value)?,
                })
            })
            .collect()
    }

    fn counts(&self, field: usize) -> Vec<ValueCount<'a>> {
        let page = &self.content.enums[field];
        let max = page
            .values
            .iter()
            .map(|v| v.records.len())
            .max()
            .unwrap_or(1);
        page.values
            .iter()
            .map(|v| ValueCount {
                value: &v.value,
                path: &v.page,
                count: v.records.len(),
                share: format!("{:.1}", 100.0 * v.records.len() as f64 / max as f64),
                class: badge_class(&page.field, &v.value),
            })
            .collect()
    }

    /// `index.html`.
    pub fn home(&self, file: &str) -> Result<String, minijinja::Error> {
        #[derive(Serialize)]
        struct Home<'a> {
            total: usize,
            collections: Vec<CollectionCard<'a>>,
            recent: Vec<Row<'a>>,
            breakdowns: Vec<Breakdown<'a>>,
            docs: Vec<DocLink<'a>>,
        }
        #[derive(Serialize)]
        struct CollectionCard<'a> {
            folder: &'a str,
            name: &'a str,
            path: &'a str,
            count: usize,
        }
        #[derive(Serialize)]
        struct Breakdown<'a> {
            field: &'a str,
            label: String,
            path: &'a str,
            values: Vec<ValueCount<'a>>,
        }
        #[derive(Serialize)]
        struct DocLink<'a> {
            title: &'a str,
            path: &'a str,
        }
        let content = self.content;
        let page = Home {
            total: content.records.len(),
            collections: content
                .collections
                .iter()
                .map(|c| {
                    let schema = &content.schemas.collections[c.collection];
                    CollectionCard {
                        folder: &schema.folder,
                        name: &schema.name,
                        path: &c.page,
                        count: c.records.len(),
                    }
                })
                .collect(),
            recent: content
                .recently_updated()
                .into_iter()
                .take(RECENT)
                .map(|p| self.row(p, &[]))
                .collect(),
            breakdowns: (0..content.enums.len())
                .map(|f| Breakdown {
                    field: &content.enums[f].field,
                    label: label(&content.enums[f].field),
                    path: &content.enums[f].page,
                    values: self.counts(f),
                })
                .collect(),
            docs: content
                .docs
                .iter()
                .map(|d| DocLink {
                    title: &d.title,
                    path: &d.page,
                })
                .collect(),
        };
        self.render("home.html", file, "", "", page)
    }

    /// Page `number` (from 0) of a collection's table.
    pub fn collection(
        &self,
        file: &str,
        index: usize,
        number: usize,
    ) -> Result<String, minijinja::Error> {
        #[derive(Serialize)]
        struct CollectionPage<'a> {
            collection: Info<'a>,
            columns: Vec<Column<'a>>,
            has_updated: bool,
            rows: Vec<Row<'a>>,
            pager: Pager,
        }
        #[derive(Serialize)]
        struct Info<'a> {
            folder: &'a str,
            name: &'a str,
            description: Option<&'a str>,
        }
        #[derive(Serialize)]
        struct Column<'a> {
            field: &'a str,
            label: String,
        }
        let content = self.content;
        let page = &content.collections[index];
        let schema = &content.schemas.collections[page.collection];
        let (records, pager) = self.paginate(&page.page, &page.records, number);
        let view = CollectionPage {
            collection: Info {
                folder: &schema.folder,
                name: &schema.name,
                description: schema.schema.get("description").and_then(Value::as_str),
            },
            columns: page
                .enum_fields
                .iter()
                .map(|field| Column {
                    field,
                    label: label(field),
                })
                .collect(),
            has_updated: page.has_updated,
            rows: records
                .iter()
                .map(|&p| self.row(p, &page.enum_fields))
                .collect(),
            pager,
        };
        let title = view.pager.title(&schema.folder);
        let path = urls::list_page(&page.page, number);
        self.render("collection.html", file, &path, &title, view)
    }

    /// The records of page `number` (from 0) of the list of `records` at `path`, and where
    /// that page is among the list's pages (`[site] paginate_by`).
    fn paginate<'r>(
        &self,
        path: &str,
        records: &'r [usize],
        number: usize,
    ) -> (&'r [usize], Pager) {
        let per_page = self.content.site.paginate_by;
        let count = urls::page_count(records.len(), per_page);
        let (start, end) = match per_page {
            0 => (0, records.len()),
            _ => {
                let start = number.saturating_mul(per_page).min(records.len());
                (start, start.saturating_add(per_page).min(records.len()))
            }
        };
        let shown = records.get(start..end).unwrap_or_default();
        let pager = Pager {
            number: number + 1,
            count,
            total: records.len(),
            first: start + 1,
            last: end,
            previous: (number > 0).then(|| urls::list_page(path, number - 1)),
            next: (number + 1 < count).then(|| urls::list_page(path, number + 1)),
        };
        (shown, pager)
    }

    /// A record's page.
    pub fn record(&self, file: &str, published: usize) -> Result<String, minijinja::Error> {
        #[derive(Serialize)]
        struct RecordPage<'a> {
            record: Head<'a>,
            fields: FieldsView,
            referenced_by: Vec<Group<'a>>,
            graph: Option<GraphView>,
        }
        #[derive(Serialize)]
        struct Head<'a> {
            qid: &'a str,
            id: &'a str,
            name: &'a str,
            collection: CollectionLink<'a>,
            badges: Vec<Badge<'a>>,
            file: &'a str,
            repo: Option<String>,
            json: String,
        }
        #[derive(Serialize)]
        struct CollectionLink<'a> {
            folder: &'a str,
            path: String,
        }
        #[derive(Serialize)]
        struct FieldsView {
            table: Vec<FieldView>,
            prose: Vec<FieldView>,
            body: Option<Html>,
        }
        #[derive(Serialize)]
        struct FieldView {
            name: String,
            label: String,
            html: Html,
        }
        let content = self.content;
        let record = &content.records[published];
        let loaded = &content.corpus.records[record.record];
        let folder = &content.schemas.collections[loaded.collection].folder;
        let display = &content.corpus.files[loaded.file].display;
        let root = urls::root_of(file);
        let rendered = fields::render(content, published, &root);
        let view = |f: fields::Field| FieldView {
            name: f.name,
            label: f.label,
            html: Html::from_safe_string(f.html),
        };
        let page = RecordPage {
            record: Head {
                qid: content.qid(published),
                id: &loaded.id,
                name: content.name(published),
                collection: CollectionLink {
                    folder,
                    path: format!("{folder}/"),
                },
                badges: self.badges(published),
                file: display,
                repo: content
                    .site
                    .repo_url
                    .as_deref()
                    .map(|repo| urls::repo_file(repo, display)),
                json: content.json_of(published),
            },
            fields: FieldsView {
                table: rendered.table.into_iter().map(view).collect(),
                prose: rendered.prose.into_iter().map(view).collect(),
                body: rendered.body.map(Html::from_safe_string),
            },
            referenced_by: self.referenced_by(record.node),
            graph: self.neighbourhood(record.node, &root),
        };
        self.render(
            "record.html",
            file,
            &record.page,
            content.name(published),
            page,
        )
    }

    /// Incoming edges of a node, by citing collection (`pages` for prose) and field.
    fn referenced_by(&self, node: NodeIndex) -> Vec<Group<'a>> {
        let content = self.content;
        let graph = &content.graph.graph;
        let mut groups: BTreeMap<&str, BTreeMap<&str, Vec<Link<'a>>>> = BTreeMap::new();
        for edge in graph.edges_directed(node, Direction::Incoming) {
            let from = &graph[edge.source()];
            groups
                .entry(from.collection.as_deref().unwrap_or("pages"))
                .or_default()
                .entry(edge.weight().field())
                .or_default()
                .push(Link {
                    id: &from.id,
                    name: &from.name,
                    path: content.page_of(from),
                });
        }
        groups
            .into_iter()
            .map(|(collection, fields)| Group {
                collection,
                fields: fields
                    .into_iter()
                    .map(|(field, mut items)| {
                        items.sort_by(|a, b| a.id.cmp(b.id));
                        FieldGroup { field, items }
                    })
                    .collect(),
            })
            .collect()
    }

    fn neighbourhood(&self, node: NodeIndex, root: &str) -> Option<GraphView> {
        let around = self
            .content
            .graph
            .neighbourhood(node, MAX_INPROCESS_SVG_NODES);
        if around.neighbours == 0 {
            return None;
        }
        let svg = export::layout_svg(&around.graph, Some(around.center), &|n| {
            urls::href(root, self.content.page_of(n))
        });
        Some(GraphView {
            svg: Html::from_safe_string(svg),
            shown: around.graph.graph.node_count() - 1,
            total: around.neighbours,
            focus: urls::query_value(&self.content.graph.graph[node].id),
        })
    }

    /// The page of an enum field: its values and their counts.
    pub fn field(&self, file: &str, index: usize) -> Result<String, minijinja::Error> {
        #[derive(Serialize)]
        struct FieldPage<'a> {
            field: FieldInfo<'a>,
            values: Vec<ValueCount<'a>>,
        }
        let page = &self.content.enums[index];
        let view = FieldPage {
            field: self.field_info(index),
            values: self.counts(index),
        };
        self.render(
            "field.html",
            file,
            &page.page,
            &format!("By {}", label(&page.field).to_lowercase()),
            view,
        )
    }

    fn field_info(&self, index: usize) -> FieldInfo<'a> {
        let page = &self.content.enums[index];
        FieldInfo {
            name: &page.field,
            label: label(&page.field),
            path: &page.page,
        }
    }

    /// The page of one value of an enum field: the records that have it.
    pub fn value(
        &self,
        file: &str,
        index: usize,
        value: usize,
        number: usize,
    ) -> Result<String, minijinja::Error> {
        #[derive(Serialize)]
        struct ValuePage<'a> {
            field: FieldInfo<'a>,
            value: ValueInfo<'a>,
            rows: Vec<Row<'a>>,
            pager: Pager,
        }
        #[derive(Serialize)]
        struct ValueInfo<'a> {
            value: &'a str,
            class: String,
        }
        let page = &self.content.enums[index];
        let entry = &page.values[value];
        let (records, pager) = self.paginate(&entry.page, &entry.records, number);
        let view = ValuePage {
            field: self.field_info(index),
            value: ValueInfo {
                value: &entry.value,
                class: badge_class(&page.field, &entry.value),
            },
            rows: records.iter().map(|&p| self.row(p, &[])).collect(),
            pager,
        };
        let title = view
            .pager
            .title(&format!("{}: {}", label(&page.field), entry.value));
        let path = urls::list_page(&entry.page, number);
        self.render("value.html", file, &path, &title, view)
    }

    /// A prose page.
    pub fn doc(&self, file: &str, index: usize) -> Result<String, minijinja::Error> {
        #[derive(Serialize)]
        struct DocPage<'a> {
            doc: DocInfo<'a>,
            body: Html,
            referenced_by: Vec<Group<'a>>,
        }
        #[derive(Serialize)]
        struct DocInfo<'a> {
            title: &'a str,
            file: &'a str,
            repo: Option<String>,
        }
        let content = self.content;
        let doc = &content.docs[index];
        let source = &content.corpus.files[content.corpus.docs[doc.doc].file];
        let body = markdown::render(
            content,
            content.corpus.docs[doc.doc].file,
            source.text.as_deref().unwrap_or_default(),
            0,
            &urls::root_of(file),
            &mut PageIds::new(&[]),
        );
        let view = DocPage {
            doc: DocInfo {
                title: &doc.title,
                file: &source.display,
                repo: content
                    .site
                    .repo_url
                    .as_deref()
                    .map(|repo| urls::repo_file(repo, &source.display)),
            },
            body: Html::from_safe_string(body),
            referenced_by: self.referenced_by(doc.node),
        };
        self.render("doc.html", file, &doc.page, &doc.title, view)
    }

    /// A page whose content is all in its template: the graph explorer, search, 404.
    pub fn plain(
        &self,
        template: &str,
        file: &str,
        path: &str,
        title: &str,
    ) -> Result<String, minijinja::Error> {
        #[derive(Serialize)]
        struct Nothing {}
        self.render(template, file, path, title, Nothing {})
    }
}

/// Where a page of a list is among the list's pages, for the templates: `number` (from 1)
/// of `count`, the list's `total` records, the places of the page's `first` and `last`
/// records in it (from 1), and the site paths of the `previous` and `next` pages, if any.
#[derive(Serialize)]
struct Pager {
    number: usize,
    count: usize,
    total: usize,
    first: usize,
    last: usize,
    previous: Option<String>,
    next: Option<String>,
}

impl Pager {
    /// The title of the page of a list titled `list`: the list's own for its first page.
    fn title(&self, list: &str) -> String {
        match self.number {
            1 => list.to_string(),
            number => format!("{list}, page {number} of {}", self.count),
        }
    }
}

#[derive(Serialize)]
struct FieldInfo<'a> {
    name: &'a str,
    label: String,
    path: &'a str,
}

#[derive(Serialize)]
struct GraphView {
    svg: Html,
    shown: usize,
    total: usize,
    focus: String,
}
