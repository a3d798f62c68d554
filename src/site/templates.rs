//! Templates and static assets: built into the binary, overridable from the corpus.
//!
//! Templates are minijinja (Jinja2 syntax), compiled when the site is built rather than when
//! the tool is: that is what lets a team restyle its site by dropping a `record.html` or a
//! `style.css` into the corpus's `templates/` folder, without forking or rebuilding the tool.
//! A file there named like a built-in one replaces it; any other `*.html` file is an extra
//! template that the others may include, and any other file an extra asset, published under
//! `assets/`. A template that does not compile is a setup error with its position, and so
//! is a file there that is a symlink out of the corpus, a pipe or a device, which is never
//! read, let alone published.

use std::collections::BTreeMap;
use std::path::Path;

use minijinja::{
    AutoEscape, Environment, Error, ErrorKind, Output, State, UndefinedBehavior, Value,
    escape_formatter,
};
use serde::Serialize;

use super::urls;
use crate::diagnostic::Diagnostic;
use crate::rules;
use crate::schema::{SetupFolder, read_setup_file};
use crate::source::display_path;

/// The folder of a corpus whose files override the built-in templates and assets.
pub const FOLDER: &str = "templates";

/// The built-in templates, by name.
const TEMPLATES: &[(&str, &str)] = &[
    ("base.html", include_str!("templates/base.html")),
    ("macros.html", include_str!("templates/macros.html")),
    ("home.html", include_str!("templates/home.html")),
    ("collection.html", include_str!("templates/collection.html")),
    ("record.html", include_str!("templates/record.html")),
    ("field.html", include_str!("templates/field.html")),
    ("value.html", include_str!("templates/value.html")),
    ("doc.html", include_str!("templates/doc.html")),
    ("graph.html", include_str!("templates/graph.html")),
    ("search.html", include_str!("templates/search.html")),
    ("404.html", include_str!("templates/404.html")),
];

/// The built-in assets, published under `assets/`.
const ASSETS: &[(&str, &str)] = &[
    ("style.css", include_str!("templates/style.css")),
    ("site.js", include_str!("templates/site.js")),
    ("search.js", include_str!("templates/search.js")),
    ("graph.js", include_str!("templates/graph.js")),
];

/// The compiled templates and the assets.
pub struct Templates {
    env: Environment<'static>,
    /// Asset file name -> bytes, in name order.
    pub assets: BTreeMap<String, Vec<u8>>,
}

impl Templates {
    /// The built-in templates and assets, with the overrides in `<root>/templates/`, each
    /// at most `max_file_size` bytes ([`crate::config::Config::max_setup_file_size`]).
    pub fn load(root: &Path, max_file_size: u64) -> Result<Templates, Vec<Diagnostic>> {
        let mut sources: BTreeMap<String, (String, String)> = TEMPLATES
            .iter()
            .map(|(name, text)| {
                (
                    name.to_string(),
                    (format!("(built-in) {name}"), text.to_string()),
                )
            })
            .collect();
        let mut assets: BTreeMap<String, Vec<u8>> = ASSETS
            .iter()
            .map(|(name, text)| (name.to_string(), text.as_bytes().to_vec()))
            .collect();
        let mut errors = Vec::new();
        let folder = root.join(FOLDER);
        if folder.is_dir() {
            let mut entries: Vec<std::path::PathBuf> = match std::fs::read_dir(&folder) {
                Ok(entries) => entries.filter_map(|e| e.ok().map(|e| e.path())).collect(),
                Err(err) => {
                    return Err(vec![Diagnostic::new(
                        rules::INVALID_CONFIG,
                        display_path(root, &folder),
                        format!("cannot read the templates folder: {err}"),
                    )]);
                }
            };
            entries.sort();
            let within = SetupFolder::new(root, &folder);
            // Subfolders are not looked into.
            for path in entries.into_iter().filter(|p| !p.is_dir()) {
                let name = path
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let display = display_path(root, &path);
                // Whatever is read here is published: a link out of the corpus would put a
                // file of the machine on the site.
                match read_setup_file(&path, &within, max_file_size) {
                    Err(refused) => {
                        errors.push(refused.diagnostic(rules::INVALID_CONFIG, &display, "template"))
                    }
                    Ok(bytes) if name.ends_with(".html") => match String::from_utf8(bytes) {
                        Ok(text) => {
                            sources.insert(name, (display, text));
                        }
                        Err(_) => errors.push(Diagnostic::new(
                            rules::INVALID_CONFIG,
                            &display,
                            "the template is not valid UTF-8",
                        )),
                    },
                    Ok(bytes) => {
                        assets.insert(name, bytes);
                    }
                }
            }
        }
        let mut env = Environment::new();
        env.set_undefined_behavior(UndefinedBehavior::SemiStrict);
        env.set_formatter(format);
        env.add_function("href", href);
        env.add_function("asset", asset);
        // The same as filters (`path|href`), which minijinja finds without searching the
        // page's variables first, as it does for a function's name.
        env.add_filter("href", href);
        env.add_filter("asset", asset);
        for (name, (display, text)) in sources {
            if let Err(err) = env.add_template_owned(name, text.clone()) {
                errors.push(template_error(&display, &text, &err));
            }
        }
        if errors.is_empty() {
            Ok(Templates { env, assets })
        } else {
            Err(errors)
        }
    }

    /// Renders a template with a context.
    pub fn render(&self, name: &str, context: impl Serialize) -> Result<String, minijinja::Error> {
        self.env
            .get_template(name)?
            .render(minijinja::value::Serde(context))
    }
}

/// Prints a value: strings escaped for HTML with [`crate::markup::escape`], which leaves `/` alone
/// (minijinja's own escaping writes it `&#x2f;`, which bloats every link), the rest as
/// minijinja prints it. Printing an undefined value is an error, so that a misspelt name
/// in a template is caught rather than printed as nothing.
fn format(out: &mut Output<'_>, state: &mut State<'_, '_>, value: &Value) -> Result<(), Error> {
    if value.is_undefined() {
        return Err(Error::new(
            ErrorKind::UndefinedError,
            "this prints an undefined value",
        ));
    }
    match (state.auto_escape(), value.as_str()) {
        (AutoEscape::Html, Some(text)) if !value.is_safe() => out
            .write_str(&crate::markup::escaped(text))
            .map_err(Error::from),
        _ => escape_formatter(out, state, value),
    }
}

/// The page's way back to the site root, escaped: looked up in the context once per render
/// and kept beside the state, where every later `href` finds it without searching the
/// context's frames (a page calls `href` dozens of times, and the search cost more than
/// the rest of the call).
struct Root(String);

/// `href(path)`: the link from the page being rendered to a site path.
fn href(state: &mut State<'_, '_>, path: &str) -> Value {
    if state.get_extension::<Root>().is_none() {
        let root = state.lookup("root");
        let root = root.as_ref().and_then(Value::as_str).unwrap_or_default();
        let root = Root(crate::markup::escaped(root).into_owned());
        state.get_or_insert_extension(root);
    }
    let root = state
        .get_extension::<Root>()
        .map_or("", |Root(root)| root.as_str());
    Value::from_safe_string(urls::href(root, path))
}

/// `asset(name)`: the link from the page being rendered to an asset.
fn asset(state: &mut State<'_, '_>, name: &str) -> Value {
    href(state, &format!("assets/{name}"))
}

fn template_error(display: &str, text: &str, err: &minijinja::Error) -> Diagnostic {
    let diagnostic = Diagnostic::new(
        rules::INVALID_CONFIG,
        display,
        format!(
            "the template does not compile: {}",
            err.detail().unwrap_or("syntax error")
        ),
    );
    match err.range() {
        Some(range) if range.end <= text.len() => diagnostic.at_span(range),
        _ => diagnostic,
    }
}
