//! The connection to the editor over standard input and output: Content-Length framed
//! JSON-RPC, read and written on threads of their own.
//!
//! `lsp-server` has such a transport, but its reader stops at the first message that is not
//! JSON-RPC, which ends the server, and the server then waited for standard input to close
//! before it could exit. This one answers a message that is not JSON, or not a request, a
//! response or a notification, with the protocol's error (`-32700`, `-32600`, with a null id
//! since none can be read) and reads on: the framing told where the message ended, so the
//! next one is read as it should be. Only a frame that cannot be read (a header that is not
//! `Name: value`, a Content-Length that is not a number or missing) ends the connection,
//! since where the next message starts is then unknown.

use std::io::{self, BufRead, Write};
use std::thread::JoinHandle;

use lsp_server::{Connection, ErrorCode, Message};

/// The threads that read and write standard input and output for a [`Connection`].
pub struct Threads {
    reader: JoinHandle<io::Result<()>>,
    writer: JoinHandle<io::Result<()>>,
}

/// A connection to the editor over standard input and output.
pub fn stdio() -> (Connection, Threads) {
    let (server, client) = Connection::memory();
    let Connection {
        sender: incoming,
        receiver: outgoing,
    } = client;
    let writer = std::thread::spawn(move || {
        for message in outgoing {
            message.write(&mut io::stdout().lock())?;
        }
        Ok(())
    });
    let reader = std::thread::spawn(move || {
        let mut input = io::stdin().lock();
        read_messages(
            &mut input,
            &mut |message| incoming.send(message).is_ok(),
            &mut |answer| write_frame(&mut io::stdout().lock(), &answer.to_string()),
        )
    });
    (server, Threads { reader, writer })
}

impl Threads {
    /// Waits until everything sent has been written.
    pub fn finish_writing(self) -> io::Result<Reader> {
        self.writer
            .join()
            .unwrap_or_else(|_| Err(io::Error::other("the writer panicked")))?;
        Ok(Reader(self.reader))
    }
}

/// The thread reading standard input, once everything sent has been written.
pub struct Reader(JoinHandle<io::Result<()>>);

impl Reader {
    /// Why the reader stopped, once it has: only wait for it when the server stopped
    /// because its messages ended, else it waits on standard input.
    pub fn stopped(self) -> io::Result<()> {
        self.0
            .join()
            .unwrap_or_else(|_| Err(io::Error::other("the reader panicked")))
    }
}

/// Reads messages from `input` and passes each to `deliver` until the input ends, an `exit`
/// notification has been delivered, or `deliver` refuses one (the server stopped). A message
/// that cannot be read as JSON-RPC is answered through `answer` instead; a frame that cannot
/// be read ends the reading with an error.
fn read_messages(
    input: &mut impl BufRead,
    deliver: &mut dyn FnMut(Message) -> bool,
    answer: &mut dyn FnMut(serde_json::Value) -> io::Result<()>,
) -> io::Result<()> {
    while let Some(body) = read_frame(input)? {
        let value = match serde_json::from_slice::<serde_json::Value>(&body) {
            Ok(value) => value,
            Err(err) => {
                answer(error(
                    ErrorCode::ParseError,
                    &format!("the message is not JSON: {err}"),
                ))?;
                continue;
            }
        };
        let Ok(message) = serde_json::from_value::<Message>(value) else {
            answer(error(
                ErrorCode::InvalidRequest,
                "the message is not a JSON-RPC request, response or notification",
            ))?;
            continue;
        };
        let exit = matches!(&message, Message::Notification(n) if n.method == "exit");
        if !deliver(message) || exit {
            break;
        }
    }
    Ok(())
}

/// The error response to a message whose id could not be read.
fn error(code: ErrorCode, message: &str) -> serde_json::Value {
    serde_json::json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": {"code": code as i32, "message": message},
    })
}

/// The body of the next frame, `None` at the end of the input.
fn read_frame(input: &mut impl BufRead) -> io::Result<Option<Vec<u8>>> {
    let invalid = |message: String| io::Error::new(io::ErrorKind::InvalidData, message);
    let mut length = None;
    let mut line = String::new();
    loop {
        line.clear();
        if input.read_line(&mut line)? == 0 {
            return match length {
                None if line.is_empty() => Ok(None),
                _ => Err(io::ErrorKind::UnexpectedEof.into()),
            };
        }
        let header = line.trim_end_matches(['\r', '\n']);
        if header.is_empty() {
            break;
        }
        let Some((name, value)) = header.split_once(':') else {
            return Err(invalid(format!(
                "a header is not `Name: value`: {header:?}"
            )));
        };
        if name.trim().eq_ignore_ascii_case("Content-Length") {
            let value = value.trim();
            length =
                Some(value.parse::<usize>().map_err(|_| {
                    invalid(format!("the Content-Length is not a number: {value:?}"))
                })?);
        }
    }
    let length = length.ok_or_else(|| invalid("a message has no Content-Length".into()))?;
    let mut body = vec![0; length];
    input.read_exact(&mut body)?;
    Ok(Some(body))
}

fn write_frame(output: &mut impl Write, body: &str) -> io::Result<()> {
    write!(output, "Content-Length: {}\r\n\r\n{body}", body.len())?;
    output.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(body: &str) -> String {
        format!("Content-Length: {}\r\n\r\n{body}", body.len())
    }

    /// The methods delivered and the error codes answered, reading `input`.
    fn read(input: &str) -> (Vec<String>, Vec<i64>, io::Result<()>) {
        let mut delivered = Vec::new();
        let mut answered = Vec::new();
        let outcome = read_messages(
            &mut input.as_bytes(),
            &mut |message| {
                delivered.push(match message {
                    Message::Request(r) => r.method,
                    Message::Notification(n) => n.method,
                    Message::Response(_) => "response".into(),
                });
                true
            },
            &mut |answer| {
                answered.push(answer["error"]["code"].as_i64().unwrap());
                Ok(())
            },
        );
        (delivered, answered, outcome)
    }

    #[test]
    fn a_message_that_is_not_json_rpc_is_answered_and_reading_goes_on() {
        let hover = r#"{"jsonrpc": "2.0", "id": 1, "method": "textDocument/hover"}"#;
        let input = [frame("{bad}"), frame("[]"), frame("null"), frame(hover)].concat();
        let (delivered, answered, outcome) = read(&input);
        assert_eq!(delivered, ["textDocument/hover"]);
        assert_eq!(answered, [-32700, -32600, -32600]);
        assert!(outcome.is_ok());
    }

    #[test]
    fn reading_stops_after_exit_and_at_a_frame_it_cannot_read() {
        let exit = frame(r#"{"jsonrpc": "2.0", "method": "exit"}"#);
        let after = frame(r#"{"jsonrpc": "2.0", "method": "initialized"}"#);
        let (delivered, _, outcome) = read(&[exit, after].concat());
        assert_eq!(delivered, ["exit"]);
        assert!(outcome.is_ok());
        for broken in [
            "Content-Length: x\r\n\r\n{}",
            "Content-Type: a\r\n\r\n{}",
            "garbage\r\n\r\n",
            "Content-Length: 10\r\n\r\n{}",
        ] {
            let (delivered, _, outcome) = read(broken);
            assert!(delivered.is_empty() && outcome.is_err(), "{broken:?}");
        }
    }
}
