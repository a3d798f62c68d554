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
//! - [`report`] renders diagnostics for people (rustc-style snippets) and machines (JSON,
//!   SARIF, GitHub workflow commands, JUnit XML).
//!
//! [`cache`] keeps, between runs of `check`, what loading drew from each record file that
//! loaded cleanly, so that a file whose text is unchanged is not parsed again, nor read when
//! its [`stamp`] (size, inode, times) is unchanged too; it stands beside `load`, which asks
//! it before reading and before parsing (see [`corpus::Recall`]).
//!
//! [`site`] renders the loaded corpus as a static site, from the same resolution `check`
//! uses, for `gotchas build` and `gotchas serve`.
//!
//! [`lsp`] serves the same pipeline to editors, keeping the corpus in memory and re-running
//! the per-file stages for the edited file only.
//!
//! Nothing in the library prints; the binary's [`cli`] is the only place that writes to the
//! terminal.

#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
// `indexing_slicing` covers slices and vectors; a `str` sliced inside a character panics
// too. Unit tests may slice the texts they wrote (clippy.toml cannot exempt tests here).
#![cfg_attr(not(test), deny(clippy::string_slice))]
#![warn(missing_docs)]

pub mod anchors;
pub mod baseline;
pub mod buckets;
pub mod cache;
pub mod calendar;
pub mod candidates;
pub mod catalog;
pub mod check;
pub mod cli;
pub mod config;
pub mod convert;
pub mod corpus;
pub mod diagnostic;
pub mod discover;
pub mod fix;
pub mod git;
pub mod graph;
pub mod index;
pub mod init;
pub mod intern;
pub mod interrupt;
pub mod links;
pub mod load;
pub mod lsp;
pub mod markup;
pub mod project;
pub mod query;
pub mod references;
pub mod report;
pub mod rules;
pub mod scan;
pub mod schema;
pub mod scope;
pub mod serialize;
pub mod site;
pub mod skeleton;
pub mod source;
pub mod sourcemap;
pub mod stamp;
pub mod stats;
pub mod suggest;
#[cfg(test)]
mod testing;
pub mod unicode;
pub mod write;

pub use diagnostic::{Diagnostic, Severity};
pub use project::Project;
