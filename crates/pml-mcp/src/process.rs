//! One server's child process: spawning, the stdout relay that checks every line is a
//! JSON-RPC message, the stderr ring buffer, and the only task that reaps the child.
//!
//! The child is its own process group, so signals reach whatever it started too. Only the
//! waiter task calls `wait()`; signals are sent while the child is known not to be reaped,
//! so a recycled pid is never hit (except by the final sweep of the group just after the
//! reap, which finds the group gone unless a straggler still holds its id).

use std::borrow::Cow;
use std::collections::VecDeque;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::Deserialize;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader, DuplexStream};
use tokio::process::{ChildStdout, Command};
use tokio::sync::{mpsc, watch};

use crate::ServerConfig;

/// How much of the server's stderr is kept for error messages.
pub(crate) const STDERR_TAIL_BYTES: usize = 4096;
/// Longest stdout line accepted: what Node's MCP client reads (its SDK's
/// `STDIO_DEFAULT_MAX_BUFFER_SIZE`, 10 MiB); past it, Node's client closes the connection and
/// the call fails with `Connection closed`, and so does the call here.
const MAX_LINE_BYTES: usize = 10 * 1024 * 1024;

/// What went wrong with the process, first fault wins per field.
#[derive(Debug, Clone, Default)]
pub(crate) struct Health {
    /// How it exited, once reaped (`exit status: 3`, `signal: 9 (SIGKILL)`).
    pub exit: Option<String>,
    /// A stdout line that is not a JSON-RPC message, after initialization.
    pub garbage: Option<String>,
}

impl Health {
    pub fn is_faulty(&self) -> bool {
        self.exit.is_some() || self.garbage.is_some()
    }
}

#[derive(Debug, Clone, Copy)]
pub(crate) enum Signal {
    Terminate,
    Kill,
}

/// Sends SIGKILL synchronously (for `Drop`) while the child is not reaped.
#[derive(Debug, Clone)]
pub(crate) struct Killer {
    pid: u32,
    reaped: Arc<AtomicBool>,
}

impl Killer {
    pub fn kill_now(&self) {
        if !self.reaped.load(Ordering::SeqCst) {
            signal_group(self.pid, Signal::Kill);
        }
    }
}

pub(crate) struct Process {
    pub pid: u32,
    pub killer: Killer,
    pub health: watch::Receiver<Health>,
    pub stderr: Arc<StderrTail>,
    control: mpsc::UnboundedSender<Signal>,
    /// Set once `initialize` succeeded: from then on a non-JSON-RPC stdout line is fatal.
    strict: Arc<AtomicBool>,
}

/// The pipes handed to rmcp: the relayed stdout and the relayed stdin.
pub(crate) type Pipes = (DuplexStream, DuplexStream);

impl Process {
    pub fn spawn(config: &ServerConfig) -> std::io::Result<(Process, Pipes)> {
        let mut command = Command::new(&config.command);
        command
            .args(&config.args)
            .envs(&config.env)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        if let Some(cwd) = &config.cwd {
            command.current_dir(cwd);
        }
        #[cfg(unix)]
        command.process_group(0);
        let mut child = command.spawn()?;
        let pid = child.id().unwrap_or_default();
        let (Some(stdin), Some(stdout), Some(stderr_pipe)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(std::io::Error::other("child pipes missing"));
        };

        let reaped = Arc::new(AtomicBool::new(false));
        let (health_tx, health) = watch::channel(Health::default());
        let health_tx = Arc::new(health_tx);
        let stderr = Arc::new(StderrTail::default());
        let strict = Arc::new(AtomicBool::new(false));
        let (control, mut control_rx) = mpsc::unbounded_channel();

        tokio::spawn(read_stderr(stderr_pipe, stderr.clone()));
        let (relay_out, to_rmcp) = tokio::io::duplex(64 * 1024);
        tokio::spawn(relay_stdout(
            stdout,
            relay_out,
            strict.clone(),
            health_tx.clone(),
            stderr.clone(),
            control.downgrade(),
        ));

        let (from_rmcp, relay_in) = tokio::io::duplex(64 * 1024);
        tokio::spawn(relay_js_json(relay_in, stdin));

        let waiter_reaped = reaped.clone();
        tokio::spawn(async move {
            let mut control = Some(&mut control_rx);
            let status = loop {
                let Some(rx) = control.as_deref_mut() else {
                    break child.wait().await;
                };
                tokio::select! {
                    status = child.wait() => break status,
                    signal = rx.recv() => match signal {
                        Some(signal) => signal_child(&mut child, pid, signal),
                        // Every handle is gone: nobody will ever shut this server down.
                        None => {
                            signal_child(&mut child, pid, Signal::Kill);
                            control = None;
                        }
                    },
                }
            };
            waiter_reaped.store(true, Ordering::SeqCst);
            // Sweep anything the server left running in its group.
            signal_group(pid, Signal::Kill);
            let exit = match status {
                Ok(status) => status.to_string(),
                Err(e) => format!("could not be waited for: {e}"),
            };
            health_tx.send_modify(|h| {
                h.exit.get_or_insert(exit);
            });
        });

        let process = Process {
            pid,
            killer: Killer { pid, reaped },
            health,
            stderr,
            control,
            strict,
        };
        Ok((process, (to_rmcp, from_rmcp)))
    }

    pub fn set_strict(&self) {
        self.strict.store(true, Ordering::SeqCst);
    }

    pub fn signal(&self, signal: Signal) {
        // The waiter signals only while the child is unreaped; a closed channel means it is.
        let _ = self.control.send(signal);
    }

    pub fn health(&self) -> Health {
        self.health.borrow().clone()
    }

    /// Resolves once the process exited or wrote garbage.
    pub async fn faulted(&self) -> Health {
        let mut rx = self.health.clone();
        let health = rx.wait_for(Health::is_faulty).await.ok().map(|h| h.clone());
        match health {
            Some(health) => health,
            // The waiter is gone (runtime shutting down): nothing more will be learned.
            None => std::future::pending().await,
        }
    }

    /// Waits (at most `limit`) until the process is reaped; true if it was.
    pub async fn wait_exit(&self, limit: Duration) -> bool {
        let mut rx = self.health.clone();
        let exited = tokio::time::timeout(limit, async {
            rx.wait_for(|h| h.exit.is_some()).await.is_ok()
        })
        .await;
        exited == Ok(true)
    }

    /// Closing stdin already happened (or failed): wait `grace`, SIGTERM, wait, SIGKILL.
    pub async fn stop(&self, grace: Duration) {
        if self.wait_exit(grace).await {
            return;
        }
        self.signal(Signal::Terminate);
        if self.wait_exit(grace).await {
            return;
        }
        self.signal(Signal::Kill);
        // SIGKILL cannot be ignored; the bound only guards against a stuck kernel.
        self.wait_exit(Duration::from_secs(5)).await;
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        self.killer.kill_now();
    }
}

fn signal_child(child: &mut tokio::process::Child, pid: u32, signal: Signal) {
    #[cfg(unix)]
    {
        let _ = child;
        signal_group(pid, signal);
    }
    #[cfg(not(unix))]
    {
        let _ = (pid, signal);
        let _ = child.start_kill();
    }
}

#[cfg(unix)]
fn signal_group(pid: u32, signal: Signal) {
    let Ok(pid) = i32::try_from(pid) else { return };
    if pid <= 1 {
        return;
    }
    let sig = match signal {
        Signal::Terminate => libc::SIGTERM,
        Signal::Kill => libc::SIGKILL,
    };
    // SAFETY: kill(2) has no memory-safety preconditions; a negative pid addresses the
    // process group this crate created for the child (process_group(0) at spawn).
    unsafe {
        libc::kill(-pid, sig);
    }
}

#[cfg(not(unix))]
fn signal_group(_pid: u32, _signal: Signal) {}

/// The last [`STDERR_TAIL_BYTES`] of what the server wrote to stderr.
#[derive(Default)]
pub(crate) struct StderrTail {
    buf: Mutex<VecDeque<u8>>,
    truncated: AtomicBool,
    done: AtomicBool,
    done_notify: tokio::sync::Notify,
}

impl StderrTail {
    fn push(&self, bytes: &[u8]) {
        let mut buf = self.buf.lock().unwrap_or_else(|e| e.into_inner());
        buf.extend(bytes);
        if buf.len() > STDERR_TAIL_BYTES {
            let excess = buf.len() - STDERR_TAIL_BYTES;
            buf.drain(..excess);
            self.truncated.store(true, Ordering::Relaxed);
        }
    }

    /// The tail as text: starts at a line boundary when it had to be cut, no trailing blanks.
    pub fn snapshot(&self) -> String {
        let bytes: Vec<u8> = {
            let buf = self.buf.lock().unwrap_or_else(|e| e.into_inner());
            buf.iter().copied().collect()
        };
        let mut text = String::from_utf8_lossy(&bytes).into_owned();
        if self.truncated.load(Ordering::Relaxed) {
            if let Some(nl) = text.find('\n') {
                text.drain(..=nl);
            }
            text.insert_str(0, "...\n");
        }
        text.trim_end().to_owned()
    }

    /// The tail once the pipe reached end of file (at most `limit` later): for errors about
    /// a process that is exiting, so its last words are in.
    pub async fn settled(&self, limit: Duration) -> String {
        let wait = async {
            loop {
                let notified = self.done_notify.notified();
                if self.done.load(Ordering::SeqCst) {
                    return;
                }
                notified.await;
            }
        };
        let _ = tokio::time::timeout(limit, wait).await;
        self.snapshot()
    }
}

async fn read_stderr(mut pipe: tokio::process::ChildStderr, tail: Arc<StderrTail>) {
    let mut chunk = [0u8; 4096];
    while let Ok(n) = pipe.read(&mut chunk).await {
        if n == 0 {
            break;
        }
        tail.push(&chunk[..n]);
    }
    tail.done.store(true, Ordering::SeqCst);
    tail.done_notify.notify_waiters();
}

/// Forwards stdout to rmcp line by line. rmcp silently skips lines that are not JSON, which
/// would turn a garbage answer into a timeout; here, once initialized, such a line marks the
/// server faulty (failing its calls at once) and kills it. Before that (start-up banners),
/// the line is only copied into the stderr tail, so it shows if initialization fails.
async fn relay_stdout(
    stdout: ChildStdout,
    mut out: DuplexStream,
    strict: Arc<AtomicBool>,
    health: Arc<watch::Sender<Health>>,
    tail: Arc<StderrTail>,
    control: mpsc::WeakUnboundedSender<Signal>,
) {
    let kill = || {
        if let Some(control) = control.upgrade() {
            let _ = control.send(Signal::Kill);
        }
    };
    let mut reader = BufReader::with_capacity(64 * 1024, stdout);
    let mut line = Vec::new();
    loop {
        line.clear();
        match read_line(&mut reader, &mut line).await {
            Ok(LineRead::Eof) | Err(_) => break,
            Ok(LineRead::TooLong) => {
                health.send_modify(|h| {
                    h.garbage.get_or_insert(format!(
                        "wrote a stdout line longer than {MAX_LINE_BYTES} bytes"
                    ));
                });
                kill();
                break;
            }
            Ok(LineRead::Line) => {}
        }
        let body = trim_line(&line);
        if body.is_empty() {
            continue;
        }
        if is_json_rpc(body) {
            if out.write_all(&from_js_json(&line)).await.is_err() {
                break; // rmcp is gone
            }
            if !line.ends_with(b"\n") && out.write_all(b"\n").await.is_err() {
                break;
            }
            continue;
        }
        let shown = snippet(body);
        if strict.load(Ordering::SeqCst) {
            health.send_modify(|h| {
                h.garbage.get_or_insert(format!(
                    "wrote a line to stdout that is not JSON-RPC: `{shown}`"
                ));
            });
            kill();
            break;
        }
        tail.push(format!("[stdout, not JSON-RPC, ignored] {shown}\n").as_bytes());
    }
    let _ = out.shutdown().await;
}

/// Forwards what rmcp writes (one JSON-RPC message per line) to `to`, line by line, as Node's
/// SDK would write it ([`to_js_json`]: lone surrogates as `\udXXX`, numbers as JavaScript
/// writes them); closes `to` when rmcp closes its end. Used for a server's stdin, and for
/// what `pml serve` writes to its client.
pub async fn relay_js_json(
    from_rmcp: impl tokio::io::AsyncRead + Unpin,
    to: impl tokio::io::AsyncWrite + Unpin,
) {
    relay_lines(from_rmcp, to, to_js_json).await;
}

/// Forwards what a client writes to `pml serve` (one JSON-RPC message per line) to rmcp, its
/// strings as pml text ([`from_js_json`]): a lone surrogate a JavaScript client writes as
/// `\udXXX` (which serde_json refuses, so rmcp dropped the request and the client waited for
/// ever) is kept exactly. Closes `to` when the client closes `from`.
pub async fn relay_from_js_json(
    from: impl tokio::io::AsyncRead + Unpin,
    to: impl tokio::io::AsyncWrite + Unpin,
) {
    relay_lines(from, to, from_js_json).await;
}

/// Each line of `from`, converted, to `to`, until either end closes; then closes `to`.
async fn relay_lines(
    from: impl tokio::io::AsyncRead + Unpin,
    mut to: impl tokio::io::AsyncWrite + Unpin,
    convert: fn(&[u8]) -> Cow<'_, [u8]>,
) {
    let mut reader = BufReader::with_capacity(64 * 1024, from);
    let mut line = Vec::new();
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        if to.write_all(&convert(&line)).await.is_err() || to.flush().await.is_err() {
            break; // the other end is gone
        }
    }
    let _ = to.shutdown().await;
}

/// A JSON-RPC line from a server, its strings as pml text: a lone surrogate (`\udXXX`) kept
/// exactly (see `pml_jstext`). A line that is not UTF-8 is left alone.
fn from_js_json(line: &[u8]) -> Cow<'_, [u8]> {
    match std::str::from_utf8(line).map(pml_jstext::from_js_json) {
        Ok(Cow::Owned(text)) => Cow::Owned(text.into_bytes()),
        _ => Cow::Borrowed(line),
    }
}

/// A JSON-RPC line rmcp wrote, as Node's SDK would write it: lone surrogates as `\udXXX`,
/// numbers as JavaScript writes them.
fn to_js_json(line: &[u8]) -> Cow<'_, [u8]> {
    match std::str::from_utf8(line).map(pml_jstext::to_js_json) {
        Ok(Cow::Owned(text)) => Cow::Owned(text.into_bytes()),
        _ => Cow::Borrowed(line),
    }
}

enum LineRead {
    Line,
    Eof,
    TooLong,
}

async fn read_line(
    reader: &mut BufReader<ChildStdout>,
    line: &mut Vec<u8>,
) -> std::io::Result<LineRead> {
    loop {
        let buf = reader.fill_buf().await?;
        if buf.is_empty() {
            return Ok(if line.is_empty() {
                LineRead::Eof
            } else {
                LineRead::Line
            });
        }
        let (take, done) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (buf.len(), false),
        };
        line.extend_from_slice(&buf[..take]);
        reader.consume(take);
        if line.len() > MAX_LINE_BYTES {
            return Ok(LineRead::TooLong);
        }
        if done {
            return Ok(LineRead::Line);
        }
    }
}

fn trim_line(line: &[u8]) -> &[u8] {
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    line.trim_ascii()
}

fn snippet(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    let mut shown: String = text.chars().take(200).collect();
    if shown.len() < text.len() {
        shown.push_str("...");
    }
    shown
}

/// A JSON object with `"jsonrpc": "2.0"` whose `result`, if any, is an object (every MCP
/// result is). Checked without building the value.
fn is_json_rpc(line: &[u8]) -> bool {
    #[derive(Deserialize)]
    struct Envelope<'a> {
        #[serde(borrow)]
        jsonrpc: std::borrow::Cow<'a, str>,
        #[serde(default)]
        result: Option<IsObject>,
    }
    match serde_json::from_slice::<Envelope<'_>>(line) {
        Ok(e) => e.jsonrpc == "2.0" && e.result.is_none_or(|r| r.0),
        Err(_) => false,
    }
}

/// Deserializes any JSON value, remembering only whether it was an object.
struct IsObject(bool);

impl<'de> Deserialize<'de> for IsObject {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = IsObject;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<IsObject, A::Error> {
                while map
                    .next_entry::<serde::de::IgnoredAny, serde::de::IgnoredAny>()?
                    .is_some()
                {}
                Ok(IsObject(true))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<IsObject, A::Error> {
                while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
                Ok(IsObject(false))
            }
            fn visit_bool<E>(self, _: bool) -> Result<IsObject, E> {
                Ok(IsObject(false))
            }
            fn visit_i64<E>(self, _: i64) -> Result<IsObject, E> {
                Ok(IsObject(false))
            }
            fn visit_u64<E>(self, _: u64) -> Result<IsObject, E> {
                Ok(IsObject(false))
            }
            fn visit_f64<E>(self, _: f64) -> Result<IsObject, E> {
                Ok(IsObject(false))
            }
            fn visit_str<E>(self, _: &str) -> Result<IsObject, E> {
                Ok(IsObject(false))
            }
            fn visit_unit<E>(self) -> Result<IsObject, E> {
                Ok(IsObject(false))
            }
        }
        d.deserialize_any(Visitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_rpc_lines() {
        assert!(is_json_rpc(
            br#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#
        ));
        assert!(is_json_rpc(
            br#"{"method":"notifications/x","jsonrpc":"2.0"}"#
        ));
        assert!(is_json_rpc(
            br#"{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m"}}"#
        ));
        assert!(!is_json_rpc(br#"{"jsonrpc":"2.0","id":1,"result":42}"#));
        assert!(!is_json_rpc(br#"{"jsonrpc":"1.0","id":1,"result":{}}"#));
        assert!(!is_json_rpc(br#"{"log":"hello"}"#));
        assert!(!is_json_rpc(b"this is not json"));
        assert!(!is_json_rpc(b"[1,2]"));
    }

    #[test]
    fn stderr_tail_keeps_the_last_lines() {
        let tail = StderrTail::default();
        tail.push(b"first line\n");
        assert_eq!(tail.snapshot(), "first line");
        for i in 0..1000 {
            tail.push(format!("line {i}\n").as_bytes());
        }
        let s = tail.snapshot();
        assert!(s.starts_with("...\nline "), "{s}");
        assert!(s.ends_with("line 999"));
        assert!(s.len() <= STDERR_TAIL_BYTES + 4);
    }
}
