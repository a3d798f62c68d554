//! `gotchas`: a linter, grapher and site generator for knowledge bases kept as files in git.
//!
//! A corpus is a folder of records, one record per file, in one folder per collection. Each
//! collection is described by a JSON Schema. The library is one pipeline whose data flows one
//! way, so that every stage can be tested on its own and no stage reaches back into an earlier
//! one:
//!
//! ```text
//! config ─> schema ─> discover ─> load ─> check ─> locate ─> report
//! (Config)  (Schemas)  (files)    (Corpus) (Diagnostics, anchored by pointer)
//!                                                  (Diagnostics, anchored by byte span)
//! ```
//!
//! - [`config`] reads the optional `gotchas.toml`.
//! - [`schema`] loads and compiles each collection's JSON Schema.
//! - [`discover`] walks the records root and maps each file to a collection.
//! - [`load`] parses JSON, YAML and Markdown records into one model ([`load::Record`]).
//! - [`check`] runs the rules, each an independent function returning [`Diagnostic`]s.
//! - [`sourcemap`] turns the JSON pointers that rules speak in into `line:col`, lazily: only
//!   for the files that have a problem.
//! - [`report`] renders diagnostics for people (rustc-style snippets) and machines (JSON).
//! - [`site`] renders the loaded corpus as a static site, from the same resolution `check`
//!   uses, for `gotchas build` and `gotchas serve`.
//!
//! Nothing in the library prints; the binary's [`cli`] is the only place that writes to the
//! terminal.

#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![warn(missing_docs)]

pub mod baseline;
pub mod check;
pub mod cli;
pub mod config;
pub mod corpus;
pub mod diagnostic;
pub mod discover;
pub mod fix;
pub mod graph;
pub mod index;
pub mod links;
pub mod load;
pub mod project;
pub mod references;
pub mod report;
pub mod rules;
pub mod schema;
pub mod site;
pub mod source;
pub mod sourcemap;
pub mod stats;
pub mod suggest;
pub mod write;

pub use diagnostic::{Diagnostic, Severity};
pub use project::Project;
