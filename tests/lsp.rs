//! `gotchas lsp` driven over stdio the way an editor drives it: Content-Length framed
//! JSON-RPC written to the real binary, answers read back with a timeout so that a broken
//! server fails the test instead of hanging it.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

const TIMEOUT: Duration = Duration::from_secs(30);
const GOTCHA: &str = "records/gotchas/pd-batch-invariant-mode-absent-from-kv-namespace.md";

/// An editor's side of the connection.
struct Client {
    child: Child,
    stdin: ChildStdin,
    incoming: Receiver<Value>,
    /// Messages read while waiting for another one.
    backlog: Vec<Value>,
    next_id: i64,
}

impl Client {
    fn start(root: &Path) -> Client {
        Client::spawn(
            Command::new(env!("CARGO_BIN_EXE_gotchas"))
                .args(["lsp", "--root"])
                .arg(root),
        )
    }

    /// Starts the server `command` runs.
    fn spawn(command: &mut Command) -> Client {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the server starts");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let (sender, incoming) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            while let Some(message) = read_message(&mut reader) {
                if sender.send(message).is_err() {
                    break;
                }
            }
        });
        Client {
            child,
            stdin,
            incoming,
            backlog: Vec::new(),
            next_id: 1,
        }
    }

    fn write(&mut self, message: Value) {
        let body = message.to_string();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).expect("write");
        self.stdin.flush().expect("flush");
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.write(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Sends a request and returns its response (`result` or `error`).
    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.write(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        self.wait(&format!("the response to {method}"), |m| {
            m["id"] == json!(id) && m.get("method").is_none()
        })
    }

    /// The first message (from the backlog, then from the server) that `wanted` accepts.
    fn wait(&mut self, what: &str, wanted: impl Fn(&Value) -> bool) -> Value {
        if let Some(at) = self.backlog.iter().position(&wanted) {
            return self.backlog.remove(at);
        }
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let message = self
                .incoming
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("timed out waiting for {what}"));
            if wanted(&message) {
                return message;
            }
            self.backlog.push(message);
        }
    }

    /// The next diagnostics published for `uri` (with `version`, when given).
    fn diagnostics(&mut self, uri: &str, version: Option<i64>) -> Vec<Value> {
        let message = self.wait(&format!("diagnostics for {uri}"), |m| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == uri
                && version.is_none_or(|v| m["params"]["version"] == v)
        });
        message["params"]["diagnostics"]
            .as_array()
            .expect("a diagnostics array")
            .clone()
    }

    /// The Markdown a hover at `position` shows.
    fn hover(&mut self, uri: &str, position: Value) -> String {
        let hover = self.request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": position}),
        );
        hover["result"]["contents"]["value"]
            .as_str()
            .expect("markdown")
            .to_string()
    }

    fn stop(mut self) {
        let response = self.request("shutdown", Value::Null);
        assert_eq!(response["result"], Value::Null);
        self.notify("exit", Value::Null);
        let status = exit_status(&mut self.child);
        assert!(status.success(), "the server exits cleanly: {status}");
    }

    /// Writes `body` as one frame, whatever it holds.
    fn write_raw(&mut self, body: &str) {
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).expect("write");
        self.stdin.flush().expect("flush");
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// How `child` exits, which it must within the timeout.
fn exit_status(child: &mut Child) -> std::process::ExitStatus {
    let deadline = Instant::now() + TIMEOUT;
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            return status;
        }
        assert!(Instant::now() < deadline, "the server did not exit");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn read_message(reader: &mut impl BufRead) -> Option<Value> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(value) = line.strip_prefix("Content-Length: ") {
            length = value.parse::<usize>().ok();
        }
    }
    let mut body = vec![0; length?];
    reader.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

/// A copy of the bundled corpus in which the gotcha cites `mooncache` and links to NIXL from
/// its notes.
fn corpus() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    common::copy_dir(&manifest.join("schema"), &dir.path().join("schema"));
    common::copy_dir(&manifest.join("records"), &dir.path().join("records"));
    let root = dir.path().canonicalize().expect("a canonical root");
    let gotcha = root.join(GOTCHA);
    let text = std::fs::read_to_string(&gotcha).expect("the gotcha");
    let text = text
        .replace(
            "affects: [vllm, nixl, mooncake, nvidia-dynamo]",
            "affects: [vllm, nixl, mooncache, nvidia-dynamo]",
        )
        .replace("## Notes\n\n", "## Notes\n\nSee [[engines/nixl|NIXL]]. ");
    std::fs::write(&gotcha, text).expect("write the gotcha");
    (dir, root)
}

fn uri(path: &Path) -> String {
    format!("file://{}", path.display())
}

fn initialize(client: &mut Client, root: &Path) {
    let response = client.request(
        "initialize",
        json!({
            "processId": null,
            "rootUri": uri(root),
            "capabilities": {
                "workspace": {"workspaceEdit": {"documentChanges": true, "resourceOperations": ["rename"]}}
            }
        }),
    );
    let capabilities = &response["result"]["capabilities"];
    assert_eq!(capabilities["renameProvider"], true);
    assert_eq!(capabilities["definitionProvider"], true);
    client.notify("initialized", json!({}));
}

/// A server on a fresh copy of the corpus, initialized, with the gotcha open (version 1)
/// as `edit` makes it.
struct Session {
    _dir: tempfile::TempDir,
    root: PathBuf,
    client: Client,
    gotcha: String,
    text: String,
}

fn session(edit: impl FnOnce(String) -> String) -> Session {
    let (dir, root) = corpus();
    let path = root.join(GOTCHA);
    let gotcha = uri(&path);
    let text = edit(std::fs::read_to_string(&path).expect("the gotcha"));
    let mut client = Client::start(&root);
    initialize(&mut client, &root);
    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": gotcha, "languageId": "markdown", "version": 1, "text": text}}),
    );
    Session {
        _dir: dir,
        root,
        client,
        gotcha,
        text,
    }
}

/// The 0-based line and UTF-16 column of the first `needle` after `after` in `text`.
fn position_of(text: &str, after: &str, needle: &str) -> Value {
    let start = text.find(after).expect("the anchor text");
    let at = start + text[start..].find(needle).expect("the needle");
    let line = text[..at].matches('\n').count();
    let column = text[..at]
        .rsplit('\n')
        .next()
        .unwrap_or_default()
        .encode_utf16()
        .count();
    json!({"line": line, "character": column})
}

#[test]
fn diagnostics_quick_fix_completion_navigation_and_rename() {
    let Session {
        _dir,
        root,
        mut client,
        gotcha,
        mut text,
    } = session(|text| text);

    // The typo is reported as `check` reports it, with the did-you-mean and a certain fix.
    let diagnostics = client.diagnostics(&gotcha, None);
    assert_eq!(diagnostics.len(), 1, "{diagnostics:#?}");
    let typo = &diagnostics[0];
    assert_eq!(typo["code"], "unresolved-ref");
    assert_eq!(typo["severity"], 1);
    let message = typo["message"].as_str().expect("a message");
    assert!(message.starts_with("`mooncache` in `affects` names no record"));
    assert!(message.contains("help: did you mean mooncake (engines/mooncake)?"));
    assert_eq!(
        typo["range"],
        json!({"start": {"line": 5, "character": 22}, "end": {"line": 5, "character": 31}})
    );

    let actions = client.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": gotcha}, "range": typo["range"], "context": {"diagnostics": [typo]}}),
    );
    let actions = actions["result"].as_array().expect("code actions");
    assert_eq!(actions.len(), 1, "{actions:#?}");
    let fix = &actions[0];
    assert_eq!(fix["title"], "Replace with `mooncake`");
    assert_eq!(fix["kind"], "quickfix");
    assert_eq!(fix["isPreferred"], true);
    let edits = fix["edit"]["changes"][&gotcha].as_array().expect("edits");
    assert_eq!(edits.len(), 1);
    assert_eq!(edits[0]["range"], typo["range"]);
    assert_eq!(edits[0]["newText"], "mooncake");

    // Applying it, as the editor would, clears the file's diagnostics.
    text = text.replacen("mooncache, nvidia", "mooncake, nvidia", 1);
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": gotcha, "version": 2}, "contentChanges": [{"text": text}]}),
    );
    assert_eq!(client.diagnostics(&gotcha, Some(2)), Vec::<Value>::new());

    // Ids complete after `affects: [`, engines only, named in the detail.
    let typing = text.replacen(
        "affects: [vllm, nixl, mooncake, nvidia-dynamo]",
        "affects: [",
        1,
    );
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": gotcha, "version": 3}, "contentChanges": [{"text": typing}]}),
    );
    let completion = client.request(
        "textDocument/completion",
        json!({"textDocument": {"uri": gotcha}, "position": {"line": 5, "character": 10}}),
    );
    let items = completion["result"]["items"].as_array().expect("items");
    let labels: Vec<&str> = items.iter().filter_map(|i| i["label"].as_str()).collect();
    assert_eq!(labels, ["mooncake", "nixl", "nvidia-dynamo", "vllm"]);
    assert_eq!(items[0]["detail"], "Mooncake");
    assert_eq!(
        items[0]["textEdit"]["range"],
        json!({"start": {"line": 5, "character": 10}, "end": {"line": 5, "character": 10}})
    );
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": gotcha, "version": 4}, "contentChanges": [{"text": text}]}),
    );

    // Go to definition: from `mooncake` in `affects` to the engine's `id`.
    let definition = client.request(
        "textDocument/definition",
        json!({"textDocument": {"uri": gotcha}, "position": position_of(&text, "affects:", "mooncake")}),
    );
    let mooncake = root.join("records/engines/mooncake.yaml");
    assert_eq!(
        definition["result"],
        json!({"uri": uri(&mooncake), "range": {"start": {"line": 0, "character": 4}, "end": {"line": 0, "character": 12}}})
    );

    // Find references from the engine's own file: the field value and the wiki-link.
    let nixl = root.join("records/engines/nixl.yaml");
    let references = client.request(
        "textDocument/references",
        json!({
            "textDocument": {"uri": uri(&nixl)},
            "position": {"line": 0, "character": 5},
            "context": {"includeDeclaration": false}
        }),
    );
    let field = position_of(&text, "affects:", "nixl");
    let link = position_of(&text, "[[", "engines/nixl");
    let found: Vec<(&Value, &Value)> = references["result"]
        .as_array()
        .expect("locations")
        .iter()
        .map(|l| (&l["uri"], &l["range"]["start"]))
        .collect();
    assert_eq!(
        found,
        [(&json!(gotcha), &field), (&json!(gotcha), &link)],
        "{references:#?}"
    );

    // Rename the engine from a reference to it: its id, the field value, the wiki-link (kept
    // qualified) and its file, in one edit, files in path order and the file renamed last.
    let rename = client.request(
        "textDocument/rename",
        json!({"textDocument": {"uri": gotcha}, "position": field, "newName": "nixl-ep"}),
    );
    let changes = rename["result"]["documentChanges"]
        .as_array()
        .expect("document changes");
    assert_eq!(changes.len(), 3, "{changes:#?}");
    let edits_of = |change: &Value| -> Vec<(Value, Value)> {
        change["edits"]
            .as_array()
            .expect("edits")
            .iter()
            .map(|e| (e["range"]["start"].clone(), e["newText"].clone()))
            .collect()
    };
    assert_eq!(
        changes[0]["textDocument"],
        json!({"uri": uri(&nixl), "version": null})
    );
    assert_eq!(
        edits_of(&changes[0]),
        [(json!({"line": 0, "character": 4}), json!("nixl-ep"))]
    );
    assert_eq!(
        changes[1]["textDocument"],
        json!({"uri": gotcha, "version": 4})
    );
    assert_eq!(
        edits_of(&changes[1]),
        [
            (field.clone(), json!("nixl-ep")),
            (link, json!("engines/nixl-ep"))
        ]
    );
    assert_eq!(
        changes[2],
        json!({"kind": "rename", "oldUri": uri(&nixl), "newUri": uri(&root.join("records/engines/nixl-ep.yaml"))})
    );

    // A name that breaks the id pattern is refused.
    let refused = client.request(
        "textDocument/rename",
        json!({"textDocument": {"uri": gotcha}, "position": field, "newName": "NIXL EP"}),
    );
    assert!(
        refused["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("does not match the id pattern"))
    );

    client.stop();
}

#[test]
fn hover_shows_the_target_and_a_new_record_joins_the_corpus() {
    let Session {
        _dir,
        root,
        mut client,
        gotcha,
        text,
    } = session(|text| text);
    let shown = client.hover(&gotcha, position_of(&text, "affects:", "vllm"));
    assert!(shown.starts_with("**vLLM** `engines/vllm`"), "{shown}");
    assert!(
        shown.contains("collection `engines` · status `verified`"),
        "{shown}"
    );

    // An engine created in the editor (not yet on disk) fixes the dangling `mooncache`.
    let diagnostics = client.diagnostics(&gotcha, None);
    assert_eq!(diagnostics.len(), 1);
    let created = root.join("records/engines/mooncache.yaml");
    let record = "id: mooncache\ntype: engine\nname: Mooncache\nstatus: draft\nconfidence: 0.5\nupdated: 2026-10-03\nsources: [pd-mooncake-repo]\n";
    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri(&created), "languageId": "yaml", "version": 1, "text": record}}),
    );
    assert_eq!(client.diagnostics(&gotcha, Some(1)), Vec::<Value>::new());
    let shown = client.hover(&gotcha, position_of(&text, "affects:", "mooncache"));
    assert!(
        shown.starts_with("**Mooncache** `engines/mooncache`"),
        "{shown}"
    );
    client.stop();
}

/// An editor on a folder reached through a symbolic link, naming it by its root URI alone
/// and sending buffers that start with a byte-order mark, is served under the names it
/// uses: its diagnostics reach the buffer.
#[cfg(unix)]
#[test]
fn a_workspace_through_a_link_named_by_its_root_uri_is_served_by_its_names() {
    let (dir, root) = corpus();
    let elsewhere = tempfile::tempdir().expect("a temporary folder");
    let link = elsewhere.path().join("kb");
    std::os::unix::fs::symlink(&root, &link).expect("a link");
    let mut client = Client::spawn(
        Command::new(env!("CARGO_BIN_EXE_gotchas"))
            .arg("lsp")
            .current_dir(elsewhere.path()),
    );
    initialize(&mut client, &link);
    let gotcha = uri(&link.join(GOTCHA));
    let text = std::fs::read_to_string(root.join(GOTCHA)).expect("the gotcha");
    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": gotcha, "languageId": "markdown", "version": 1, "text": format!("\u{feff}{text}")}}),
    );
    let diagnostics = client.diagnostics(&gotcha, Some(1));
    let codes: Vec<&Value> = diagnostics.iter().map(|d| &d["code"]).collect();
    assert_eq!(codes, [&json!("unresolved-ref")], "{diagnostics:#?}");
    client.stop();
    drop(dir);
}

/// A buffer that starts with a byte-order mark holds it as a UTF-16 unit before its first
/// line's first character: positions on that line count it, both ways.
#[test]
fn positions_on_the_first_line_of_a_buffer_with_a_byte_order_mark_count_it() {
    let (dir, root) = corpus();
    let mut client = Client::start(&root);
    initialize(&mut client, &root);
    let path = root.join("records/engines/vllm.yaml");
    let vllm = uri(&path);
    let text = std::fs::read_to_string(&path).expect("the engine");
    let typo = format!(
        "\u{feff}status: verifyed\n{}",
        text.replace("status: verified\n", "")
    );
    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": vllm, "languageId": "yaml", "version": 1, "text": typo}}),
    );
    let diagnostics = client.diagnostics(&vllm, Some(1));
    let [typo] = diagnostics.as_slice() else {
        panic!("one diagnostic: {diagnostics:#?}")
    };
    assert_eq!(
        typo["range"],
        json!({"start": {"line": 0, "character": 9}, "end": {"line": 0, "character": 17}})
    );

    let cited = format!(
        "\u{feff}sources: [engine-vllm-github]\n{}",
        text.replace("sources:\n  - engine-vllm-github\n", "")
    );
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": vllm, "version": 2}, "contentChanges": [{"text": cited}]}),
    );
    assert_eq!(client.diagnostics(&vllm, Some(2)), Vec::<Value>::new());
    // In the buffer, `[` is the 11th unit and the id starts at the 12th.
    let bracket = client.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": vllm}, "position": {"line": 0, "character": 10}}),
    );
    assert_eq!(bracket["result"], Value::Null, "{bracket:#?}");
    let shown = client.hover(&vllm, json!({"line": 0, "character": 11}));
    assert!(shown.contains("`sources/engine-vllm-github`"), "{shown}");
    client.stop();
    drop(dir);
}

/// Lines end as the protocol has them end, at `\n`, `\r\n` or a `\r` alone: a buffer saved
/// with classic Mac line endings is as many lines as the editor shows.
#[test]
fn positions_count_a_lone_carriage_return_as_a_line_end() {
    let (dir, root) = corpus();
    let mut client = Client::start(&root);
    initialize(&mut client, &root);
    let path = root.join("records/engines/vllm.yaml");
    let vllm = uri(&path);
    let text = std::fs::read_to_string(&path)
        .expect("the engine")
        .replace("status: verified", "status: verifyed")
        .replace('\n', "\r");
    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": vllm, "languageId": "yaml", "version": 1, "text": text}}),
    );
    let diagnostics = client.diagnostics(&vllm, Some(1));
    let [typo] = diagnostics.as_slice() else {
        panic!("one diagnostic: {diagnostics:#?}")
    };
    assert_eq!(
        typo["range"],
        json!({"start": {"line": 8, "character": 8}, "end": {"line": 8, "character": 16}})
    );
    let shown = client.hover(&vllm, json!({"line": 12, "character": 4}));
    assert!(shown.contains("`sources/engine-vllm-github`"), "{shown}");
    client.stop();
    drop(dir);
}

/// A change to the config or a schema is a change to how every record is checked: the
/// corpus is read again by it, and a setup that cannot be used is said, the last one kept.
#[test]
fn a_config_change_is_followed_and_a_broken_one_said() {
    let Session {
        _dir,
        root,
        mut client,
        gotcha,
        ..
    } = session(|text| text);
    assert_eq!(client.diagnostics(&gotcha, None).len(), 1);
    let config = root.join("gotchas.toml");
    let changed = |client: &mut Client| {
        client.notify(
            "workspace/didChangeWatchedFiles",
            json!({"changes": [{"uri": uri(&config), "type": 2}]}),
        );
    };
    std::fs::write(&config, "[rules]\nunresolved-ref = \"allow\"\n").unwrap();
    changed(&mut client);
    assert_eq!(client.diagnostics(&gotcha, Some(1)), Vec::<Value>::new());
    std::fs::write(&config, "[rules]\nunresolved-ref = \"alow\"\n").unwrap();
    changed(&mut client);
    let said = client.wait("a message", |m| m["method"] == "window/showMessage");
    let message = said["params"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("unknown rule level `alow`"), "{message}");
    client.stop();
}

/// Without `--root`, the server serves the corpus that holds the editor's workspace folder,
/// found by its config: an editor opened on `records/` still sees every record.
#[test]
fn the_corpus_above_the_workspace_folder_is_served() {
    let (_dir, root) = corpus();
    std::fs::write(root.join("gotchas.toml"), "").expect("a config");
    let elsewhere = tempfile::tempdir().expect("a temporary folder");
    let mut client = Client::spawn(
        Command::new(env!("CARGO_BIN_EXE_gotchas"))
            .arg("lsp")
            .current_dir(elsewhere.path()),
    );
    let records = uri(&root.join("records"));
    let response = client.request(
        "initialize",
        json!({
            "processId": null,
            "rootUri": records,
            "workspaceFolders": [{"uri": records, "name": "records"}],
            "capabilities": {}
        }),
    );
    assert!(response["result"]["capabilities"].is_object(), "{response}");
    client.notify("initialized", json!({}));
    let path = root.join(GOTCHA);
    let gotcha = uri(&path);
    let text = std::fs::read_to_string(&path).expect("the gotcha");
    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": gotcha, "languageId": "markdown", "version": 1, "text": text}}),
    );
    let diagnostics = client.diagnostics(&gotcha, None);
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert_eq!(diagnostics[0]["code"], "unresolved-ref", "{diagnostics:?}");
    client.stop();
}

#[test]
fn completes_enum_values_and_wiki_link_targets() {
    let Session {
        _dir,
        mut client,
        gotcha,
        text,
        ..
    } = session(|text| {
        text.replacen("severity: major", "severity: ", 1).replacen(
            "See [[engines/nixl|NIXL]]. ",
            "See [[engines/n\n\n",
            1,
        )
    });
    let labels = |client: &mut Client, position: Value| -> Vec<String> {
        let completion = client.request(
            "textDocument/completion",
            json!({"textDocument": {"uri": gotcha}, "position": position}),
        );
        completion["result"]["items"]
            .as_array()
            .expect("items")
            .iter()
            .filter_map(|i| i["label"].as_str().map(str::to_string))
            .collect()
    };
    let severity = position_of(&text, "severity: ", "\n");
    assert_eq!(labels(&mut client, severity), ["blocker", "major", "minor"]);
    let link = position_of(&text, "[[engines/n", "\n");
    assert_eq!(
        labels(&mut client, link),
        ["engines/nixl", "engines/nvidia-dynamo"]
    );
    client.stop();
}

#[test]
fn a_message_that_is_not_json_rpc_is_answered_and_the_server_goes_on() {
    let Session {
        _dir,
        mut client,
        gotcha,
        text,
        ..
    } = session(|text| text);
    for (body, code) in [("{bad}", -32700), ("[]", -32600)] {
        client.write_raw(body);
        let answer = client.wait(body, |m| m["id"].is_null() && m.get("error").is_some());
        assert_eq!(answer["error"]["code"], code, "{body}");
    }
    let position = position_of(&text, "affects: [", "vllm");
    assert!(client.hover(&gotcha, position).contains("vLLM"));
    client.stop();
}

#[test]
fn after_shutdown_requests_are_refused_and_exit_says_whether_it_came_first() {
    let Session {
        _dir,
        mut client,
        gotcha,
        text,
        ..
    } = session(|text| text);
    assert_eq!(
        client.request("shutdown", Value::Null)["result"],
        Value::Null
    );
    let position = position_of(&text, "affects: [", "vllm");
    let refused = client.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": gotcha}, "position": position}),
    );
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    client.notify("exit", Value::Null);
    assert_eq!(exit_status(&mut client.child).code(), Some(0));

    let Session {
        _dir, mut client, ..
    } = session(|text| text);
    client.notify("exit", Value::Null);
    assert_eq!(
        exit_status(&mut client.child).code(),
        Some(1),
        "an exit without shutdown"
    );
}

#[test]
fn a_corpus_that_cannot_be_opened_is_said_and_the_server_exits() {
    let (_dir, root) = corpus();
    std::fs::write(root.join("gotchas.toml"), "recods = 1\n").expect("write the config");
    let mut child = Command::new(env!("CARGO_BIN_EXE_gotchas"))
        .args(["lsp", "--root"])
        .arg(&root)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the server starts");
    let mut stdin = child.stdin.take().expect("stdin");
    for body in [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}),
        json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}),
    ] {
        let body = body.to_string();
        write!(stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).expect("write");
    }
    stdin.flush().expect("flush");
    // The editor keeps its end open: the server must not wait for it to close.
    assert_eq!(exit_status(&mut child).code(), Some(2));
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().expect("stderr"), &mut stderr)
        .expect("read stderr");
    assert!(stderr.contains("unknown config key `recods`"), "{stderr}");
    drop(stdin);
}

#[test]
fn a_rename_also_renames_the_file_in_links_to_it() {
    let (_dir, root) = corpus();
    let gotcha = root.join(GOTCHA);
    let name = "pd-batch-invariant-mode-absent-from-kv-namespace.md";
    let page = root.join("records/gotchas/linker.md");
    let linking = format!(
        "See [the gotcha]({name}#notes) and [[{}]].\n",
        &name[..name.len() - 3]
    );
    // A link to the file in a string field is renamed as one in the body is.
    let front = format!("---\nid: linker\nsymptom: \"Also [the file]({name}).\"\n---\n");
    std::fs::write(&page, format!("{front}{linking}")).expect("write the page");
    let mut client = Client::start(&root);
    initialize(&mut client, &root);
    // An id another collection has already would make bare references name either.
    let refused = client.request(
        "textDocument/rename",
        json!({"textDocument": {"uri": uri(&gotcha)}, "position": {"line": 1, "character": 5}, "newName": "vllm"}),
    );
    assert!(
        refused["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("`vllm` is the id of `engines/vllm` already")),
        "{refused}"
    );
    let rename = client.request(
        "textDocument/rename",
        json!({"textDocument": {"uri": uri(&gotcha)}, "position": {"line": 1, "character": 5}, "newName": "pd-renamed"}),
    );
    let changes = rename["result"]["documentChanges"]
        .as_array()
        .expect("document changes");
    let page_edits: Vec<(Value, Value)> = changes
        .iter()
        .filter(|change| change["textDocument"]["uri"] == uri(&page))
        .flat_map(|change| change["edits"].as_array().expect("edits").clone())
        .map(|edit| (edit["range"]["start"].clone(), edit["newText"].clone()))
        .collect();
    let whole = format!("{front}{linking}");
    let in_field = position_of(&whole, "Also", "pd-");
    let link = position_of(&whole, "See", "pd-");
    let wiki = position_of(&whole, "[[", "pd-");
    assert_eq!(
        page_edits,
        [
            (in_field, json!("pd-renamed.md")),
            (link, json!("pd-renamed.md")),
            (wiki, json!("pd-renamed"))
        ],
        "{changes:#?}"
    );
    client.stop();
}

/// Files other than records that join or leave the corpus after the server started: a
/// prose page and a stray under the records folder get the diagnostics `check` gives them,
/// and lose them when deleted; the client is asked to report every file the corpus is
/// read from, the config and strays included.
#[test]
fn a_page_or_a_stray_created_after_startup_is_checked_and_cleared_when_deleted() {
    let (_dir, root) = corpus();
    std::fs::write(root.join("gotchas.toml"), "docs = [\"docs/**/*.md\"]\n").unwrap();
    let mut client = Client::start(&root);
    client.request(
        "initialize",
        json!({
            "processId": null,
            "rootUri": uri(&root),
            "capabilities": {"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": true}}}
        }),
    );
    client.notify("initialized", json!({}));
    let registration = client.wait("the watch registration", |m| {
        m["method"] == "client/registerCapability"
    });
    let watchers = &registration["params"]["registrations"][0]["registerOptions"]["watchers"];
    let patterns: Vec<&Value> = watchers
        .as_array()
        .expect("watchers")
        .iter()
        .map(|w| &w["globPattern"])
        .collect();
    assert_eq!(
        patterns,
        [
            &json!("**/*.{json,yaml,yml,md}"),
            &json!("**/gotchas.toml"),
            &json!("**/records/**"),
        ]
    );
    client.write(json!({"jsonrpc": "2.0", "id": registration["id"], "result": null}));
    let changed = |client: &mut Client, path: &Path, kind: u8| {
        client.notify(
            "workspace/didChangeWatchedFiles",
            json!({"changes": [{"uri": uri(path), "type": kind}]}),
        );
    };

    let page = root.join("docs/guide.md");
    std::fs::create_dir(root.join("docs")).unwrap();
    std::fs::write(&page, "# Guide\n\nSee [[engines/vlm]].\n").unwrap();
    changed(&mut client, &page, 1);
    let diagnostics = client.diagnostics(&uri(&page), None);
    let codes: Vec<&Value> = diagnostics.iter().map(|d| &d["code"]).collect();
    assert_eq!(codes, [&json!("broken-link")], "{diagnostics:#?}");
    assert_eq!(
        diagnostics[0]["range"]["start"],
        json!({"line": 2, "character": 6})
    );

    let stray = root.join("records/engines/notes.txt");
    std::fs::write(&stray, "to sort out\n").unwrap();
    changed(&mut client, &stray, 1);
    let diagnostics = client.diagnostics(&uri(&stray), None);
    let codes: Vec<&Value> = diagnostics.iter().map(|d| &d["code"]).collect();
    assert_eq!(codes, [&json!("stray-file")], "{diagnostics:#?}");

    std::fs::remove_file(&stray).unwrap();
    changed(&mut client, &stray, 3);
    assert_eq!(client.diagnostics(&uri(&stray), None), Vec::<Value>::new());
    std::fs::remove_dir_all(root.join("docs")).unwrap();
    changed(&mut client, &root.join("docs"), 3);
    assert_eq!(client.diagnostics(&uri(&page), None), Vec::<Value>::new());
    client.stop();
}

/// A diagnostic that points into another file (where a duplicated id was first used) is
/// published again when that file's text moves, so that its related location stays true.
#[test]
fn related_information_follows_an_edit_of_the_file_it_points_into() {
    let (_dir, root) = corpus();
    let first = root.join("records/engines/vllm.json");
    let text = "{\"id\": \"vllm\", \"type\": \"engine\", \"name\": \"vLLM\"}\n";
    std::fs::write(&first, text).unwrap();
    let mut client = Client::start(&root);
    initialize(&mut client, &root);
    let second = uri(&root.join("records/engines/vllm.yaml"));
    let first_use = |diagnostics: &[Value]| {
        let duplicate = diagnostics
            .iter()
            .find(|d| d["code"] == "duplicate-id")
            .expect("a duplicate-id diagnostic");
        let related = &duplicate["relatedInformation"][0]["location"];
        (related["uri"].clone(), related["range"]["start"].clone())
    };
    let diagnostics = client.diagnostics(&second, None);
    assert_eq!(
        first_use(&diagnostics),
        (json!(uri(&first)), json!({"line": 0, "character": 7}))
    );
    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri(&first), "languageId": "json", "version": 1, "text": format!("\n\n{text}")}}),
    );
    let diagnostics = client.diagnostics(&second, None);
    assert_eq!(
        first_use(&diagnostics),
        (json!(uri(&first)), json!({"line": 2, "character": 7}))
    );
    client.stop();
}

/// Find-references on a prose page finds every link that resolves to it, whatever name it
/// gives the page (its path below its `docs` folder or from the root, `.md` or not), in
/// prose and in a record's string field alike, and none to the page sharing its stem.
#[test]
fn references_to_a_page_are_the_links_that_resolve_to_it() {
    let (_dir, root) = corpus();
    std::fs::write(root.join("gotchas.toml"), "docs = [\"docs/**/*.md\"]\n").expect("config");
    for os in ["linux", "windows"] {
        std::fs::create_dir_all(root.join("docs").join(os)).expect("a docs folder");
        std::fs::write(root.join(format!("docs/{os}/setup.md")), "# Setup\n").expect("a page");
    }
    let guide =
        "# Guide\n\nOn [[windows/setup]], not [[linux/setup]]; [again](windows/setup.md).\n";
    std::fs::write(root.join("docs/guide.md"), guide).expect("the guide");
    let nixl = root.join("records/engines/nixl.yaml");
    let text = std::fs::read_to_string(&nixl).expect("the engine");
    let notes = "notes: \"See [[docs/windows/setup.md|setup]] and [[windows/setup]].\"\n";
    let engine = format!("{text}{notes}");
    std::fs::write(&nixl, &engine).expect("write the engine");
    let mut client = Client::start(&root);
    initialize(&mut client, &root);
    let page = root.join("docs/windows/setup.md");
    let references = client.request(
        "textDocument/references",
        json!({
            "textDocument": {"uri": uri(&page)},
            "position": {"line": 0, "character": 2},
            "context": {"includeDeclaration": false}
        }),
    );
    let mut found: Vec<(String, Value)> = references["result"]
        .as_array()
        .expect("locations")
        .iter()
        .map(|l| {
            (
                l["uri"].as_str().unwrap().to_string(),
                l["range"]["start"].clone(),
            )
        })
        .collect();
    found.sort_by_key(|(uri, start)| (uri.clone(), start.to_string()));
    let in_guide = |after| {
        (
            uri(&root.join("docs/guide.md")),
            position_of(guide, after, "windows"),
        )
    };
    let in_engine = |after| (uri(&nixl), position_of(&engine, after, "windows"));
    let mut expected = vec![
        in_guide("On"),
        in_guide("again"),
        (uri(&nixl), position_of(&engine, "notes", "docs/windows")),
        in_engine("and"),
    ];
    expected.sort_by_key(|(uri, start)| (uri.clone(), start.to_string()));
    assert_eq!(found, expected, "{references:#?}");
    client.stop();
}

/// A fragment naming no place in its page is reported as `check` reports it, in prose and
/// in a record's string field, and found again when the page it names changes: renaming a
/// heading of the gotcha breaks the fragment an engine's notes write, and the gotcha's own
/// mended fragment is cleared.
#[test]
fn fragments_are_checked_again_when_the_page_they_name_changes() {
    let Session {
        _dir,
        root,
        mut client,
        gotcha,
        text,
    } = session(|text| {
        text.replace(
            "See [[engines/nixl|NIXL]]. ",
            "See [[engines/nixl|NIXL]] and [the cause](#root-cuase). ",
        )
        .replace("## Workaround\n\n", "## Workaround\n\n### Steps\n\n")
    });
    let codes = |diagnostics: &[Value]| -> Vec<String> {
        diagnostics
            .iter()
            .map(|d| d["code"].as_str().unwrap_or_default().to_string())
            .collect()
    };
    let diagnostics = client.diagnostics(&gotcha, None);
    assert_eq!(
        codes(&diagnostics),
        ["unresolved-ref", "broken-anchor"],
        "{diagnostics:#?}"
    );
    assert_eq!(
        diagnostics[1]["range"]["start"],
        position_of(&text, "[the cause]", "root-cuase")
    );

    let engine = root.join("records/engines/vllm.yaml");
    let notes = "notes: See [[pd-batch-invariant-mode-absent-from-kv-namespace#steps]].\n";
    let cited = std::fs::read_to_string(&engine).unwrap() + notes;
    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri(&engine), "languageId": "yaml", "version": 1, "text": cited}}),
    );
    // A request is answered after a refresh: the edit below then gets a refresh of its
    // own, in which only the page of the gotcha changed.
    client.hover(&uri(&engine), position_of(&cited, "notes:", "pd-batch"));
    let mended = text
        .replace("(#root-cuase)", "(#root-cause)")
        .replace("### Steps", "### Step");
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": gotcha, "version": 2}, "contentChanges": [{"text": mended}]}),
    );
    let diagnostics = client.diagnostics(&uri(&engine), Some(1));
    assert_eq!(codes(&diagnostics), ["broken-anchor"], "{diagnostics:#?}");
    let broken = &diagnostics[0];
    assert_eq!(
        broken["range"]["start"],
        position_of(&cited, "notes:", "steps")
    );
    // Its fix, offered as a quick fix, rewrites the fragment alone, inside the field.
    let actions = client.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri(&engine)}, "range": broken["range"], "context": {"diagnostics": [broken]}}),
    );
    let actions = actions["result"].as_array().expect("code actions");
    assert_eq!(actions.len(), 1, "{actions:#?}");
    assert_eq!(actions[0]["title"], "Replace with `step`");
    let edits = actions[0]["edit"]["changes"][&uri(&engine)]
        .as_array()
        .expect("edits");
    assert_eq!(edits.len(), 1, "{edits:#?}");
    assert_eq!(edits[0]["range"], broken["range"]);
    assert_eq!(edits[0]["newText"], "step");
    let diagnostics = client.diagnostics(&gotcha, Some(2));
    assert_eq!(codes(&diagnostics), ["unresolved-ref"], "{diagnostics:#?}");

    // The heading named back mends the engine's fragment, whose file was not edited.
    let named_back = mended.replace("### Step", "### Steps");
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": gotcha, "version": 3}, "contentChanges": [{"text": named_back}]}),
    );
    assert_eq!(
        client.diagnostics(&uri(&engine), Some(1)),
        Vec::<Value>::new()
    );
    client.stop();
}
