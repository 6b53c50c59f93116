//! The client's side of a server's stdio: messages written in order, and `tools/call` results
//! kept as the server wrote them.
//!
//! rmcp reads every answer into its typed model, which rebuilds a result's content items:
//! their keys in the model's order, numbers through its field types (an annotation's
//! `priority` of `0.3` became `0.30000001192092896` through an `f32`), unknown keys dropped.
//! A program run in Node sees what the server wrote (its SDK's schemas keep a server's keys
//! and numbers), so here each `tools/call` result is taken aside as JSON before rmcp reads
//! the message, and rmcp is handed a copy without the content (it only routes the answer to
//! its request and tells a tool's result from the other kinds of answer).

use std::collections::HashMap;
use std::sync::Mutex;

use rmcp::model::{ClientRequest, ErrorData, JsonRpcError, RequestId};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::transport::Transport;
use rmcp::RoleClient;
use serde_json::{Map, Value};
use tokio::io::{AsyncBufReadExt, BufReader, DuplexStream};

/// The method of a tool call, sent as a custom request when its arguments are no object.
pub(crate) const TOOLS_CALL: &str = "tools/call";

/// `tools/call` results as the server wrote them, by request id, between the request being
/// written and its caller taking the answer.
#[derive(Default)]
pub(crate) struct RawResults(Mutex<HashMap<RequestId, Option<Value>>>);

impl RawResults {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<RequestId, Option<Value>>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A `tools/call` request `id` is being written: keep its result when it comes.
    fn expect(&self, id: RequestId) {
        self.lock().insert(id, None);
    }

    /// The answer to `id` came: kept if a call waits for it, else given back.
    fn offer(&self, id: &RequestId, result: Value) -> Result<(), Value> {
        match self.lock().get_mut(id) {
            Some(slot) => {
                *slot = Some(result);
                Ok(())
            }
            None => Err(result),
        }
    }

    /// The result of call `id` as written, if it came; the call is no longer waited for
    /// (a call given up on takes nothing: its late answer is not kept).
    pub(crate) fn take(&self, id: &RequestId) -> Option<Value> {
        self.lock().remove(id).flatten()
    }
}

/// The transport rmcp drives for one server: writes with rmcp's writer, one after the other;
/// reads the lines the stdout relay forwards (one JSON-RPC message each, checked and bounded
/// there, see `process::relay_stdout`).
pub(crate) struct Wire {
    /// Only its writing half is used (its reader is empty).
    writer: AsyncRwTransport<RoleClient, tokio::io::Empty, DuplexStream>,
    reader: BufReader<DuplexStream>,
    /// The line being read: kept across a `receive` dropped half-way (rmcp polls it in a
    /// `select!`), so a partly read line is resumed, not lost.
    line: Vec<u8>,
    /// Ends when the last write handed over has ended (or was dropped).
    last: Option<tokio::sync::oneshot::Receiver<()>>,
    results: std::sync::Arc<RawResults>,
}

impl Wire {
    pub(crate) fn new(
        (read, write): crate::process::Pipes,
        results: std::sync::Arc<RawResults>,
    ) -> Self {
        Wire {
            writer: AsyncRwTransport::new_client(tokio::io::empty(), write),
            reader: BufReader::with_capacity(64 * 1024, read),
            line: Vec::new(),
            last: None,
            results,
        }
    }

    /// The message on one line, its `tools/call` result set aside; `None` for a line to skip.
    fn message(&self, line: &[u8]) -> Result<Option<RxJsonRpcMessage<RoleClient>>, ()> {
        let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) {
            return Ok(None);
        }
        // As deep as Node's client reads (serde_json alone stops at 128 levels).
        let parsed = std::str::from_utf8(line)
            .map_err(|e| e.to_string())
            .and_then(|text| pml_jstext::parse(text).map_err(|e| e.to_string()));
        let mut value = match parsed {
            Ok(value) => value,
            // JSON-RPC (the relay checked) that cannot be read (nested deeper than
            // `pml_jstext::MAX_DEPTH`): the call waiting for it fails saying so, rather than
            // waiting until its timeout. Without an id, nothing waits for it.
            Err(why) => return Ok(top_level_id(line).map(|id| unreadable(id, &why))),
        };
        self.set_result_aside(&mut value);
        let notification = value.get("id").is_none() && value.get("method").is_some();
        let answer = (value.get("method").is_none())
            .then(|| value.get("id"))
            .flatten()
            .and_then(|id| serde_json::from_value::<RequestId>(id.clone()).ok());
        match serde_json::from_value(value) {
            Ok(message) => Ok(Some(message)),
            // A notification rmcp does not know needs no answer.
            Err(_) if notification => Ok(None),
            // An answer of the wrong shape (`error.code` no integer...): its call fails now.
            Err(e) if answer.is_some() => Ok(answer.map(|id| unreadable(id, &e.to_string()))),
            // A request of the wrong shape: answered `Invalid Request`, as rmcp does.
            Err(_) => Err(()),
        }
    }

    /// When `message` answers a `tools/call` being waited for: its result goes to
    /// [`RawResults`], and the message keeps a copy without `content` and
    /// `structuredContent` (an empty `content` where it had one).
    fn set_result_aside(&self, message: &mut Value) {
        let Some(object) = message.as_object_mut() else {
            return;
        };
        let Some(id) = object
            .get("id")
            .and_then(|id| serde_json::from_value::<RequestId>(id.clone()).ok())
        else {
            return;
        };
        let Some(result) = object.get_mut("result") else {
            return;
        };
        let thin = match result.as_object() {
            Some(fields) => fields
                .iter()
                .filter(|(key, _)| *key != "structuredContent")
                .map(|(key, value)| match key.as_str() {
                    "content" => (key.clone(), Value::Array(Vec::new())),
                    _ => (key.clone(), value.clone()),
                })
                .collect::<Map<String, Value>>(),
            None => return,
        };
        let written = std::mem::replace(result, Value::Object(thin));
        if let Err(written) = self.results.offer(&id, written) {
            *result = written;
        }
    }
}

/// The answer to request `id` that pml could not read, as a JSON-RPC parse error saying why.
fn unreadable(id: RequestId, why: &str) -> RxJsonRpcMessage<RoleClient> {
    let error = ErrorData::new(
        rmcp::model::ErrorCode::PARSE_ERROR,
        format!("pml could not read the server's answer: {why}"),
        None,
    );
    RxJsonRpcMessage::<RoleClient>::Error(JsonRpcError::new(Some(id), error))
}

/// The `id` at the top level of the JSON object on `line` (a number or a string), found
/// without building the value (which may be too deep to build).
fn top_level_id(line: &[u8]) -> Option<RequestId> {
    let n = line.len();
    let string_end = |mut i: usize| {
        // `i` is past an opening quote: the index of the closing one.
        while i < n && line[i] != b'"' {
            i += if line[i] == b'\\' { 2 } else { 1 };
        }
        i
    };
    let skip_ws = |mut i: usize| {
        while i < n && line[i].is_ascii_whitespace() {
            i += 1;
        }
        i
    };
    let (mut depth, mut key_next, mut i) = (0usize, false, 0usize);
    while i < n {
        match line[i] {
            b'"' => {
                let end = string_end(i + 1);
                let key = depth == 1 && key_next;
                key_next = false;
                let after = skip_ws(end + 1);
                if key && &line[i + 1..end.min(n)] == b"id" && line.get(after) == Some(&b':') {
                    let from = skip_ws(after + 1);
                    let to = match line.get(from) {
                        Some(b'"') => string_end(from + 1) + 1,
                        _ => (from..n)
                            .find(|&k| {
                                matches!(line[k], b',' | b'}') || line[k].is_ascii_whitespace()
                            })
                            .unwrap_or(n),
                    };
                    return serde_json::from_slice(line.get(from..to)?).ok();
                }
                i = end + 1;
                continue;
            }
            b'{' => {
                depth += 1;
                key_next = depth == 1;
            }
            b'[' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            b',' => key_next = depth == 1,
            _ => {}
        }
        i += 1;
    }
    None
}

impl Transport<RoleClient> for Wire {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send + 'static {
        // Before it is written, so its answer cannot come first.
        if let TxJsonRpcMessage::<RoleClient>::Request(request) = &item {
            let call = match &request.request {
                ClientRequest::CallToolRequest(_) => true,
                ClientRequest::CustomRequest(custom) => custom.method == TOOLS_CALL,
                _ => false,
            };
            if call {
                self.results.expect(request.id.clone());
            }
        }
        // rmcp runs each message's write as a task of its own, and two tasks may take the
        // pipe in either order: two requests queued one after the other could reach the
        // server swapped. Each write waits for the one handed over before it.
        let write = self.writer.send(item);
        let (done, next) = tokio::sync::oneshot::channel();
        let previous = self.last.replace(next);
        async move {
            if let Some(previous) = previous {
                // Ended or dropped, either way its turn is over.
                let _ = previous.await;
            }
            let written = write.await;
            let _ = done.send(());
            written
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        loop {
            // Cancel-safe: what was read stays in `self.line` for the next call.
            match self.reader.read_until(b'\n', &mut self.line).await {
                Ok(0) | Err(_) => return None,
                Ok(_) if !self.line.ends_with(b"\n") => return None,
                Ok(_) => {}
            }
            let line = std::mem::take(&mut self.line);
            let parsed = self.message(&line);
            self.line = line;
            self.line.clear();
            match parsed {
                Ok(Some(message)) => return Some(message),
                Ok(None) => continue,
                Err(()) => {
                    let error = ErrorData::invalid_request("Invalid request", None);
                    let answer =
                        TxJsonRpcMessage::<RoleClient>::Error(JsonRpcError::new(None, error));
                    if self.send(answer).await.is_err() {
                        return None;
                    }
                }
            }
        }
    }

    fn close(&mut self) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send {
        self.writer.close()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_id_of_an_answer_too_deep_to_read() {
        let deep = format!(
            r#"{{"jsonrpc":"2.0","result":{{"structuredContent":{}1{}}},"id":7}}"#,
            "[".repeat(200),
            "]".repeat(200)
        );
        assert!(serde_json::from_slice::<Value>(deep.as_bytes()).is_err());
        assert_eq!(top_level_id(deep.as_bytes()), Some(RequestId::Number(7)));
        for (line, id) in [
            (
                r#"{"id": "a\"}b", "x": {"id": 3}}"#,
                Some(RequestId::String("a\"}b".into())),
            ),
            (
                r#"{"x": {"id": 3}, "s": "\"id\": 4", "id" : 5 }"#,
                Some(RequestId::Number(5)),
            ),
            (r#"{"x": [{"id": 3}]}"#, None),
            (r#"{"result": "id", "y": 1}"#, None),
        ] {
            assert_eq!(top_level_id(line.as_bytes()), id, "{line}");
        }
    }
}
