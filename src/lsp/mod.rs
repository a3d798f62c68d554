//! `gotchas lsp`: a language server, so that what `check` finds shows while a record is
//! written, ids complete, and references can be followed and renamed.
//!
//! The server is synchronous and single-threaded on top of `lsp-server`'s message channels:
//! the corpus is loaded once ([`Workspace`]) and each edit re-parses the one file it touches.
//! Diagnostics are republished when no message is waiting, so a burst of keystrokes costs
//! one refresh, and before any request that reads them, so an answer never lags an edit it
//! follows.

mod actions;
mod complete;
mod convert;
mod navigate;
mod transport;
mod workspace;

use std::path::{Path, PathBuf};

use lsp_server::{Connection, ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::notification::{
    DidChangeTextDocument, DidChangeWatchedFiles, DidCloseTextDocument, DidOpenTextDocument,
    Notification as _, PublishDiagnostics,
};
use lsp_types::request::{
    CodeActionRequest, Completion, GotoDefinition, HoverRequest, References, RegisterCapability,
    Rename, Request as _,
};
use lsp_types::{
    CodeActionKind, CodeActionOptions, CodeActionProviderCapability, CompletionOptions,
    CompletionResponse, DidChangeWatchedFilesRegistrationOptions, FileSystemWatcher, GlobPattern,
    GotoDefinitionResponse, InitializeParams, Location, OneOf, PublishDiagnosticsParams,
    Registration, RegistrationParams, ServerCapabilities, ServerInfo, TextDocumentPositionParams,
    TextDocumentSyncCapability, TextDocumentSyncKind,
};

use crate::config;
use crate::diagnostic::{Anchor, Diagnostic};
use crate::project::Project;
pub use workspace::{Publish, Workspace};

/// Why the server stopped other than by the client's `shutdown` and `exit`.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The client broke the protocol (or went away mid-handshake).
    #[error("{0}")]
    Protocol(#[from] lsp_server::ProtocolError),
    /// The corpus's config or schemas are unusable; the client was told.
    #[error("the corpus could not be opened")]
    Setup(Vec<Diagnostic>),
    /// Standard input or output failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// The connection closed while a message was being sent.
    #[error("the connection to the client closed")]
    Disconnected,
}

/// Serves over standard input and output until the client exits, or its messages end:
/// whether the client asked the server to shut down first, as the protocol has it, which
/// makes the exit code 0 rather than 1.
pub fn serve(root: Option<&Path>, config: Option<&Path>) -> Result<bool, Error> {
    let (connection, threads) = transport::stdio();
    let outcome = run(&connection, root, config);
    drop(connection);
    let reader = threads.finish_writing()?;
    match outcome {
        // The messages ended, or the handshake broke off: the reader has stopped, and why
        // tells the most (a frame it could not read).
        Ok(Ended::Disconnected { shut_down }) => Ok(reader.stopped().map(|()| shut_down)?),
        Err(Error::Protocol(err)) => {
            reader.stopped()?;
            Err(Error::Protocol(err))
        }
        // Otherwise the reader may be waiting on standard input, which the client may keep
        // open: it goes with the process.
        Ok(Ended::Exit { shut_down }) => Ok(shut_down),
        Err(err) => Err(err),
    }
}

/// How serving a client ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ended {
    /// The client sent `exit`.
    Exit {
        /// Whether it sent `shutdown` before, as the protocol asks.
        shut_down: bool,
    },
    /// The client's messages ended without `exit`.
    Disconnected {
        /// Whether it sent `shutdown` before.
        shut_down: bool,
    },
}

/// Serves one client on a connection: handshake, then messages until `exit`. The corpus
/// root is `root` if given, else the nearest folder holding a `gotchas.toml` from the
/// client's first workspace folder up (or from the current folder), else that folder.
pub fn run(
    connection: &Connection,
    root: Option<&Path>,
    config: Option<&Path>,
) -> Result<Ended, Error> {
    let (id, params) = connection.initialize_start()?;
    let params: InitializeParams = serde_json::from_value(params).unwrap_or_default();
    let root = corpus_root(root, &params);
    let project = match Project::open(&root, config) {
        Ok(project) => project,
        Err(errors) => {
            let message = errors
                .iter()
                .map(|e| format!("{}: {}", e.file, e.message))
                .collect::<Vec<_>>()
                .join("\n");
            let refusal = Response::new_err(id, ErrorCode::RequestFailed as i32, message);
            send(connection, refusal.into())?;
            return Err(Error::Setup(errors));
        }
    };
    let answer = serde_json::json!({
        "capabilities": capabilities(),
        "serverInfo": ServerInfo {
            name: "gotchas".into(),
            version: Some(env!("CARGO_PKG_VERSION").into()),
        },
    });
    connection.initialize_finish(id, answer)?;
    if watches_files(&params) {
        send(connection, watch_request(&project).into())?;
    }
    let mut workspace = Workspace::new(project);
    serve_messages(connection, &mut workspace)
}

/// `root` if given; else the one [`config::find_root`] finds from the client's first
/// workspace folder, or its root URI when it names no folder (an editor opened on
/// `records/` serves the corpus above), or from the current folder when the client names
/// neither; else that folder itself. Made absolute, since the client names files by
/// absolute URI, but not resolved: a folder reached through a symbolic link is named by
/// the client through the link, and the files served must have the names it asks about.
fn corpus_root(root: Option<&Path>, params: &InitializeParams) -> PathBuf {
    let chosen = root.map(Path::to_path_buf).unwrap_or_else(|| {
        #[allow(deprecated)]
        let root_uri = params.root_uri.as_ref();
        let start = params
            .workspace_folders
            .as_ref()
            .and_then(|folders| folders.first())
            .map(|folder| &folder.uri)
            .or(root_uri)
            .and_then(convert::path)
            .unwrap_or_else(|| PathBuf::from("."));
        let start = std::path::absolute(&start).unwrap_or(start);
        config::find_root(&start).map_or_else(|| start.clone(), Path::to_path_buf)
    });
    let absolute = std::path::absolute(&chosen).unwrap_or(chosen);
    crate::index::normalize(&absolute)
}

fn capabilities() -> ServerCapabilities {
    ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Kind(TextDocumentSyncKind::FULL)),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(["[", "/", "\"", " "].map(String::from).to_vec()),
            ..CompletionOptions::default()
        }),
        hover_provider: Some(lsp_types::HoverProviderCapability::Simple(true)),
        definition_provider: Some(OneOf::Left(true)),
        references_provider: Some(OneOf::Left(true)),
        rename_provider: Some(OneOf::Left(true)),
        code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
            code_action_kinds: Some(vec![CodeActionKind::QUICKFIX]),
            ..CodeActionOptions::default()
        })),
        ..ServerCapabilities::default()
    }
}

/// Whether the client can be asked to report file changes made outside the editor.
fn watches_files(params: &InitializeParams) -> bool {
    params
        .capabilities
        .workspace
        .as_ref()
        .and_then(|w| w.did_change_watched_files.as_ref())
        .and_then(|w| w.dynamic_registration)
        .unwrap_or(false)
}

/// Asks the client to report created, changed and deleted files the corpus is read from:
/// records, schemas and pages by their extensions, the config by its name, and anything
/// under the records folder (a file there that is no record is a stray, and said).
fn watch_request(project: &Project) -> Request {
    let mut patterns = vec!["**/*.{json,yaml,yml,md}".to_string()];
    if let Some(name) = project.config.path(&project.root).file_name() {
        patterns.push(format!("**/{}", name.to_string_lossy()));
    }
    let records = project.root.join(&project.config.records);
    match crate::source::display_path(&project.root, &records) {
        records if records.starts_with('/') => patterns.push(format!("{records}/**")),
        records if !matches!(records.as_str(), "" | ".") => {
            patterns.push(format!("**/{records}/**"));
        }
        _ => {}
    }
    let options = DidChangeWatchedFilesRegistrationOptions {
        watchers: patterns
            .into_iter()
            .map(|pattern| FileSystemWatcher {
                glob_pattern: GlobPattern::String(pattern),
                kind: None,
            })
            .collect(),
    };
    Request::new(
        RequestId::from("gotchas/watch".to_string()),
        RegisterCapability::METHOD.into(),
        RegistrationParams {
            registrations: vec![Registration {
                id: "gotchas/watch".into(),
                method: DidChangeWatchedFiles::METHOD.into(),
                register_options: serde_json::to_value(options).ok(),
            }],
        },
    )
}

fn send(connection: &Connection, message: Message) -> Result<(), Error> {
    connection
        .sender
        .send(message)
        .map_err(|_| Error::Disconnected)
}

/// Answers requests and takes notifications until `exit`. After `shutdown` every request
/// is refused as the protocol says (`InvalidRequest`), and notifications but `exit` are
/// dropped.
fn serve_messages(connection: &Connection, workspace: &mut Workspace) -> Result<Ended, Error> {
    let mut shut_down = false;
    loop {
        let message = match connection.receiver.try_recv() {
            Ok(message) => message,
            Err(_) => {
                if !shut_down {
                    publish(connection, workspace)?;
                }
                match connection.receiver.recv() {
                    Ok(message) => message,
                    Err(_) => return Ok(Ended::Disconnected { shut_down }),
                }
            }
        };
        match message {
            Message::Request(request) if shut_down => {
                let refusal = Response::new_err(
                    request.id,
                    ErrorCode::InvalidRequest as i32,
                    "the server is shutting down".into(),
                );
                send(connection, refusal.into())?;
            }
            Message::Request(request) if request.method == "shutdown" => {
                shut_down = true;
                send(connection, Response::new_ok(request.id, ()).into())?;
            }
            Message::Request(request) => {
                publish(connection, workspace)?;
                send(connection, respond(workspace, request).into())?;
            }
            Message::Notification(notification) if notification.method == "exit" => {
                return Ok(Ended::Exit { shut_down });
            }
            Message::Notification(notification) if !shut_down => {
                notice(connection, workspace, notification)?;
            }
            Message::Notification(_) | Message::Response(_) => {}
        }
    }
}

/// Sends the diagnostics of every file whose diagnostics changed.
fn publish(connection: &Connection, workspace: &mut Workspace) -> Result<(), Error> {
    for Publish {
        path,
        diagnostics,
        version,
    } in workspace.refresh()
    {
        let Some(uri) = convert::uri(&path) else {
            continue;
        };
        let buffer = workspace
            .file(&path)
            .map(|file| workspace.buffer(file))
            .unwrap_or_default();
        let params = PublishDiagnosticsParams {
            uri,
            diagnostics: diagnostics
                .iter()
                .map(|d| protocol_diagnostic(workspace, d, buffer))
                .collect(),
            version,
        };
        send(
            connection,
            Notification::new(PublishDiagnostics::METHOD.into(), params).into(),
        )?;
    }
    Ok(())
}

/// A located diagnostic of a file held as `buffer`, as the protocol shows it.
fn protocol_diagnostic(
    workspace: &Workspace,
    diagnostic: &Diagnostic,
    buffer: convert::Buffer<'_>,
) -> lsp_types::Diagnostic {
    let locate = |display: &str, anchor: &Anchor| -> Option<Location> {
        let path = workspace.path_of(display);
        let buffer = workspace
            .file(&path)
            .map(|file| workspace.buffer(file))
            .unwrap_or_default();
        Some(Location {
            uri: convert::uri(&path)?,
            range: convert::anchor_range(buffer, anchor),
        })
    };
    convert::diagnostic(diagnostic, buffer, &locate)
}

fn notice(
    connection: &Connection,
    workspace: &mut Workspace,
    notification: Notification,
) -> Result<(), Error> {
    let params = notification.params;
    match notification.method.as_str() {
        DidOpenTextDocument::METHOD => {
            if let Ok(p) = serde_json::from_value::<lsp_types::DidOpenTextDocumentParams>(params)
                && let Some(path) = convert::path(&p.text_document.uri)
            {
                workspace.edit(&path, p.text_document.text, p.text_document.version);
            }
        }
        DidChangeTextDocument::METHOD => {
            if let Ok(p) = serde_json::from_value::<lsp_types::DidChangeTextDocumentParams>(params)
                && let Some(path) = convert::path(&p.text_document.uri)
                && let Some(change) = p.content_changes.into_iter().last()
            {
                workspace.edit(&path, change.text, p.text_document.version);
            }
        }
        DidCloseTextDocument::METHOD => {
            if let Ok(p) = serde_json::from_value::<lsp_types::DidCloseTextDocumentParams>(params)
                && let Some(path) = convert::path(&p.text_document.uri)
            {
                workspace.close(&path);
            }
        }
        DidChangeWatchedFiles::METHOD => {
            if let Ok(p) = serde_json::from_value::<lsp_types::DidChangeWatchedFilesParams>(params)
            {
                let paths: Vec<PathBuf> = p
                    .changes
                    .iter()
                    .filter_map(|change| convert::path(&change.uri))
                    .collect();
                if paths.iter().any(|path| workspace.is_setup_file(path)) {
                    // Every record is checked against the config and the schemas: all is
                    // read again. A setup that cannot be used is said, and the last one
                    // that could is kept.
                    if let Err(errors) = workspace.reopen() {
                        let message = errors
                            .iter()
                            .map(|e| format!("{}: {}", e.file, e.message))
                            .collect::<Vec<_>>()
                            .join("\n");
                        let params = lsp_types::ShowMessageParams {
                            typ: lsp_types::MessageType::ERROR,
                            message: format!(
                                "gotchas keeps the last setup it could use:\n{message}"
                            ),
                        };
                        send(
                            connection,
                            Notification::new("window/showMessage".into(), params).into(),
                        )?;
                    }
                } else {
                    for path in paths {
                        workspace.reload(&path);
                    }
                }
            }
        }
        _ => {}
    }
    Ok(())
}

/// The corpus file and byte offset a document position names.
fn position(workspace: &Workspace, params: &TextDocumentPositionParams) -> Option<(usize, usize)> {
    let path = convert::path(&params.text_document.uri)?;
    let file = workspace.file(&path)?;
    Some((
        file,
        convert::offset(workspace.buffer(file), params.position),
    ))
}

fn respond(workspace: &Workspace, request: Request) -> Response {
    let id = request.id.clone();
    let result = match request.method.as_str() {
        Completion::METHOD => handle::<Completion>(request, |p| {
            Ok(position(workspace, &p.text_document_position)
                .and_then(|(file, offset)| complete::complete(workspace, file, offset))
                .map(CompletionResponse::List))
        }),
        HoverRequest::METHOD => handle::<HoverRequest>(request, |p| {
            Ok(position(workspace, &p.text_document_position_params)
                .and_then(|(file, offset)| navigate::hover(workspace, file, offset)))
        }),
        GotoDefinition::METHOD => handle::<GotoDefinition>(request, |p| {
            Ok(position(workspace, &p.text_document_position_params)
                .and_then(|(file, offset)| navigate::definition(workspace, file, offset))
                .map(GotoDefinitionResponse::Scalar))
        }),
        References::METHOD => handle::<References>(request, |p| {
            Ok(
                position(workspace, &p.text_document_position).map(|(file, offset)| {
                    navigate::references(workspace, file, offset, p.context.include_declaration)
                }),
            )
        }),
        Rename::METHOD => handle::<Rename>(request, |p| {
            let (file, offset) = position(workspace, &p.text_document_position)
                .ok_or("the document is not a file of the corpus")?;
            navigate::rename(workspace, file, offset, &p.new_name).map(Some)
        }),
        CodeActionRequest::METHOD => handle::<CodeActionRequest>(request, |p| {
            let file = convert::path(&p.text_document.uri).and_then(|path| workspace.file(&path));
            Ok(file
                .map(|file| actions::quick_fixes(workspace, file, &p.text_document.uri, p.range)))
        }),
        method => {
            return Response::new_err(
                id,
                ErrorCode::MethodNotFound as i32,
                format!("`{method}` is not supported"),
            );
        }
    };
    match result {
        Ok(value) => Response::new_ok(id, value),
        Err(message) => Response::new_err(id, ErrorCode::RequestFailed as i32, message),
    }
}

/// Decodes a request's parameters, runs `answer`, encodes its result.
fn handle<R: lsp_types::request::Request>(
    request: Request,
    answer: impl FnOnce(R::Params) -> Result<R::Result, String>,
) -> Result<serde_json::Value, String> {
    let params: R::Params = serde_json::from_value(request.params)
        .map_err(|err| format!("invalid parameters: {err}"))?;
    serde_json::to_value(answer(params)?).map_err(|err| err.to_string())
}
