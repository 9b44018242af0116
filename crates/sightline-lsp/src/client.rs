//! One running language server: the JSON-RPC transport over its stdio.
//!
//! Three tasks serve each server. The reader routes responses to the pending map,
//! answers every server-to-client request through the [`Handler`] (unsupported
//! methods get `MethodNotFound`, never silence), and passes notifications to the
//! handler in arrival order. A message is written into stdin by the task that
//! sends it, and what the pipe does not take at once queues for a flusher
//! (`writer`), so no caller ever waits behind another. The stderr task keeps the last lines in a
//! ring buffer. Every pending request ends by its response, its timeout, its
//! future being dropped (which sends `$/cancelRequest`), or the server exiting
//! (which fails it with the stderr tail).

use std::collections::HashMap;
use std::path::PathBuf;
use std::pin::Pin;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use futures_util::StreamExt;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, BufReader, ReadBuf};
use tokio::process::Command;
use tokio::sync::{oneshot, watch};
use tokio_util::codec::FramedRead;

use crate::error::ClientError;
use crate::framing::{DEFAULT_MAX_BODY, Frame, LspCodec, frame};
use crate::message::{Message, RequestId, ResponseError};
use crate::process;
use crate::stderr::StderrRing;
use crate::writer::Writer;

/// Receives what the server sends on its own initiative.
pub trait Handler: Send + Sync + 'static {
    /// Answers a server-to-client request. Runs on the reader task: keep it quick.
    fn request(&self, method: &str, params: Value) -> Result<Value, ResponseError>;
    /// Observes a notification, in the order the server sent them.
    fn notification(&self, method: &str, params: Value);
}

/// How to start a server.
#[derive(Debug, Clone)]
pub struct SpawnConfig {
    /// A short name for messages, such as `pyright`.
    pub name: String,
    pub program: PathBuf,
    pub args: Vec<String>,
    pub cwd: PathBuf,
    pub env: Vec<(String, String)>,
    /// Variables of this process the child does not get.
    pub env_remove: Vec<String>,
    pub max_body: usize,
}

impl SpawnConfig {
    pub fn new(
        name: impl Into<String>,
        program: impl Into<PathBuf>,
        cwd: impl Into<PathBuf>,
    ) -> Self {
        Self {
            name: name.into(),
            program: program.into(),
            args: Vec::new(),
            cwd: cwd.into(),
            env: Vec::new(),
            env_remove: Vec::new(),
            max_body: DEFAULT_MAX_BODY,
        }
    }
}

/// What ends a pending request, short of the server exiting.
enum Reply {
    Answer(Result<Value, ResponseError>),
    /// A message carrying this request's id arrived but could not be read.
    Rejected(String),
}

#[derive(Debug, Clone)]
struct ExitInfo {
    code: Option<i32>,
    stderr_tail: String,
}

struct Inner {
    name: String,
    writer: Writer,
    pending: Mutex<HashMap<i64, oneshot::Sender<Reply>>>,
    next_id: AtomicI64,
    stderr: Arc<StderrRing>,
    exit: watch::Receiver<Option<ExitInfo>>,
    pgid: Option<u32>,
    kill: Mutex<Option<oneshot::Sender<()>>>,
    input: Arc<Input>,
}

/// What the reader knows of the server's output it has not handled yet: a
/// server that has written its answer and gone idle is not done while its
/// message waits in the pipe of a reader starved of the processor.
#[derive(Debug)]
struct Input {
    /// The server's stdout while the reader holds it, else -1. Held
    /// locked across a look, so that the descriptor cannot close (and its
    /// number go to another file) in between.
    fd: Mutex<i32>,
    /// The reader's last read took bytes and it has not asked for more
    /// since: a message read but not yet handled.
    taken: AtomicBool,
}

/// The server's stdout, noting in [`Input`] what its reads took.
struct WatchedReader<R> {
    reader: R,
    input: Arc<Input>,
}

impl<R: AsyncRead + Unpin> AsyncRead for WatchedReader<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.reader).poll_read(cx, buf);
        // Waiting for more (pending) means every whole message before was
        // handled; an end of file or an error takes nothing either.
        let took = matches!(polled, Poll::Ready(Ok(()))) && buf.filled().len() > before;
        self.input.taken.store(took, Ordering::Release);
        polled
    }
}

impl<R> Drop for WatchedReader<R> {
    fn drop(&mut self) {
        // Before the descriptor closes and its number can be reused.
        if let Ok(mut fd) = self.input.fd.lock() {
            *fd = -1;
        }
    }
}

/// A handle to one server. Cloning shares the server; dropping the last handle
/// kills its process group.
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("name", &self.inner.name)
            .field("pid", &self.inner.pgid)
            .finish()
    }
}

const STDERR_BYTES: usize = 16 * 1024;
const STDERR_TAIL_LINES: usize = 12;
/// How long a failed write waits for the reader to learn why the server went:
/// longer than the reader's own two 2 s waits for stderr and the exit status.
const EXIT_INFO_WAIT: Duration = Duration::from_secs(5);

impl Client {
    /// Starts the server process with piped stdio in its own process group.
    pub async fn spawn(
        config: SpawnConfig,
        handler: Arc<dyn Handler>,
    ) -> Result<Client, ClientError> {
        let mut cmd = Command::new(&config.program);
        for k in &config.env_remove {
            cmd.env_remove(k);
        }
        cmd.args(&config.args)
            .current_dir(&config.cwd)
            .envs(config.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let spawn_err = |source| ClientError::Spawn {
            program: config.program.display().to_string(),
            source,
        };
        let mut child = process::spawn_group(cmd).await.map_err(spawn_err)?;
        let pgid = child.id();
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(spawn_err(std::io::Error::other("stdio was not piped")));
        };
        #[cfg(unix)]
        let stdout_fd = std::os::fd::AsRawFd::as_raw_fd(&stdout);
        #[cfg(not(unix))]
        let stdout_fd = -1;
        let (kill_tx, kill_rx) = oneshot::channel::<()>();
        let (code_tx, code_rx) = watch::channel::<Option<Option<i32>>>(None);
        tokio::spawn(async move {
            let status = tokio::select! {
                s = child.wait() => s.ok(),
                _ = kill_rx => {
                    if let Some(pgid) = pgid { process::kill_group(pgid); }
                    child.wait().await.ok()
                }
            };
            // Helpers the server forked live in its group: take them with it.
            if let Some(pgid) = pgid {
                process::kill_group(pgid);
            }
            let _ = code_tx.send(Some(status.and_then(|s| s.code())));
        });
        Ok(Self::connect(
            config.name,
            (stdout, stdout_fd),
            stdin,
            Some(stderr),
            pgid,
            Some(kill_tx),
            Some(code_rx),
            config.max_body,
            handler,
        ))
    }

    /// Connects to a server over arbitrary streams, for in-memory tests.
    pub fn over_streams(
        name: impl Into<String>,
        reader: impl AsyncRead + Unpin + Send + 'static,
        writer: impl AsyncWrite + Unpin + Send + 'static,
        handler: Arc<dyn Handler>,
    ) -> Client {
        Self::connect(
            name.into(),
            (reader, -1),
            writer,
            None::<tokio::io::Empty>,
            None,
            None,
            None,
            DEFAULT_MAX_BODY,
            handler,
        )
    }

    #[allow(clippy::too_many_arguments)]
    fn connect(
        name: String,
        (reader, reader_fd): (impl AsyncRead + Unpin + Send + 'static, i32),
        writer: impl AsyncWrite + Unpin + Send + 'static,
        stderr: Option<impl AsyncRead + Unpin + Send + 'static>,
        pgid: Option<u32>,
        kill: Option<oneshot::Sender<()>>,
        code_rx: Option<watch::Receiver<Option<Option<i32>>>>,
        max_body: usize,
        handler: Arc<dyn Handler>,
    ) -> Client {
        let (exit_tx, exit_rx) = watch::channel(None);
        let ring = Arc::new(StderrRing::new(STDERR_BYTES));
        let input = Arc::new(Input {
            fd: Mutex::new(reader_fd),
            taken: AtomicBool::new(false),
        });
        let reader = WatchedReader {
            reader,
            input: input.clone(),
        };
        let inner = Arc::new(Inner {
            name: name.clone(),
            writer: Writer::new(writer),
            pending: Mutex::new(HashMap::new()),
            next_id: AtomicI64::new(1),
            stderr: ring.clone(),
            exit: exit_rx,
            pgid,
            kill: Mutex::new(kill),
            input,
        });
        let stderr_done = stderr.map(|stderr| {
            let (done_tx, done_rx) = oneshot::channel::<()>();
            let ring = ring.clone();
            let name = name.clone();
            tokio::spawn(async move {
                let mut lines = BufReader::new(stderr).lines();
                while let Ok(Some(line)) = lines.next_line().await {
                    tracing::debug!(target: "sightline_lsp::stderr", "{name}: {line}");
                    ring.push_line(&line);
                }
                let _ = done_tx.send(());
            });
            done_rx
        });
        let weak = Arc::downgrade(&inner);
        tokio::spawn(async move {
            read_loop(&name, reader, max_body, &weak, handler.as_ref()).await;
            // Let the stderr reader drain and the exit status arrive so that the
            // error names them; both are bounded by the process going away.
            if let Some(done) = stderr_done {
                let _ = tokio::time::timeout(Duration::from_secs(2), done).await;
            }
            let mut code = None;
            if let Some(mut rx) = code_rx {
                let waited =
                    tokio::time::timeout(Duration::from_secs(2), rx.wait_for(|c| c.is_some()))
                        .await;
                if let Ok(Ok(c)) = waited {
                    code = c.flatten();
                }
            }
            let info = ExitInfo {
                code,
                stderr_tail: ring.tail(STDERR_TAIL_LINES),
            };
            tracing::debug!("{name} exited (status {:?})", info.code);
            let _ = exit_tx.send(Some(info));
            // Dropping every sender fails every pending request.
            if let Some(inner) = weak.upgrade()
                && let Ok(mut pending) = inner.pending.lock()
            {
                pending.clear();
            }
        });
        Client { inner }
    }

    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// The server's process id (also its process group id).
    pub fn pid(&self) -> Option<u32> {
        self.inner.pgid
    }

    /// Whether output of the server waits to be handled: bytes in its pipe,
    /// or a message the reader has read and not yet handled. A server that
    /// wrote its last message is done only once that message is handled.
    pub fn has_unhandled_output(&self) -> bool {
        let input = &self.inner.input;
        if input.taken.load(Ordering::Acquire) {
            return true;
        }
        let Ok(fd) = input.fd.lock() else {
            return false;
        };
        *fd >= 0 && process::unread_bytes(*fd) > 0
    }

    pub fn is_alive(&self) -> bool {
        self.inner.exit.borrow().is_none()
    }

    /// Resolves when the server has exited or closed its stdout.
    pub async fn exited(&self) {
        let mut rx = self.inner.exit.clone();
        let _ = rx.wait_for(|e| e.is_some()).await;
    }

    pub fn stderr_tail(&self, lines: usize) -> String {
        self.inner.stderr.tail(lines)
    }

    /// Why the server is gone: its exit status and stderr tail.
    pub fn exited_error(&self) -> ClientError {
        let info = self.inner.exit.borrow().clone();
        let (code, stderr_tail) = match info {
            Some(i) => (i.code, i.stderr_tail),
            None => (None, self.inner.stderr.tail(STDERR_TAIL_LINES)),
        };
        ClientError::ServerExited {
            server: self.inner.name.clone(),
            code,
            stderr_tail,
        }
    }

    /// Why the server is gone, once the reader has published its exit status
    /// and stderr: a write can fail on the closed pipe before the reader has
    /// seen stdout close, and the error would then name neither. The wait is
    /// bounded by the reader's own (it gives stderr and the status 2 s each).
    async fn exit_error_once_known(&self) -> ClientError {
        let _ = tokio::time::timeout(EXIT_INFO_WAIT, self.exited()).await;
        self.exited_error()
    }

    /// Sends a notification.
    pub fn notify(&self, method: &str, params: impl Serialize) -> Result<(), ClientError> {
        let params = serde_json::to_value(params).unwrap_or(Value::Null);
        tracing::trace!("-> {} {method} {params}", self.inner.name);
        let body = Message::Notification {
            method: method.to_owned(),
            params,
        }
        .encode();
        self.inner
            .writer
            .send(frame(&body))
            .map_err(|_| self.exited_error())
    }

    /// Sends a request and decodes its result.
    pub async fn request<R: DeserializeOwned>(
        &self,
        method: &str,
        params: impl Serialize,
        timeout: Duration,
    ) -> Result<R, ClientError> {
        let params = serde_json::to_value(params).unwrap_or(Value::Null);
        let value = self.request_value(method, params, timeout).await?;
        serde_json::from_value(value).map_err(|e| ClientError::Decode {
            server: self.inner.name.clone(),
            method: method.to_owned(),
            detail: e.to_string(),
        })
    }

    /// Sends the protocol's notification `N` (its method `N`'s).
    pub fn notify_of<N: crate::protocol::Notification>(
        &self,
        params: impl Serialize,
    ) -> Result<(), ClientError> {
        self.notify(N::METHOD.as_str(), params)
    }

    /// Sends the protocol's request `R` (its method `R`'s) and returns its
    /// raw result, for a caller that reads it leniently: servers stray from
    /// the protocol's result types (a hover's deprecated `MarkedString`s, a
    /// command's own answer).
    pub async fn request_of<R: crate::protocol::Request>(
        &self,
        params: impl Serialize,
        timeout: Duration,
    ) -> Result<Value, ClientError> {
        let params = serde_json::to_value(params).unwrap_or(Value::Null);
        self.request_value(R::METHOD.as_str(), params, timeout)
            .await
    }

    /// Sends the protocol's request `R`, its method and result type `R`'s
    /// (rust-analyzer's `lsp-server` and Zed send them so); `params` may be
    /// built as JSON, for the fields a server needs beyond the protocol.
    pub async fn send<R: crate::protocol::Request>(
        &self,
        params: impl Serialize,
        timeout: Duration,
    ) -> Result<R::Result, ClientError> {
        self.request(R::METHOD.as_str(), params, timeout).await
    }

    /// Sends a request and returns its raw result. Dropping the future before
    /// it resolves, or running out of time, cancels the request on the server.
    pub async fn request_value(
        &self,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, ClientError> {
        if !self.is_alive() {
            return Err(self.exited_error());
        }
        let id = self.inner.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        // Register before writing, so the response cannot overtake the entry.
        if let Ok(mut pending) = self.inner.pending.lock() {
            pending.insert(id, tx);
        }
        let mut guard = CancelGuard {
            inner: &self.inner,
            id,
            armed: true,
        };
        tracing::trace!("-> {} #{id} {method} {params}", self.inner.name);
        let body = Message::Request {
            id: RequestId::Number(id),
            method: method.to_owned(),
            params,
        }
        .encode();
        if self.inner.writer.send(frame(&body)).is_err() {
            guard.armed = false;
            return Err(self.exit_error_once_known().await);
        }
        let outcome = tokio::time::timeout(timeout, rx).await;
        match outcome {
            Ok(Ok(Reply::Answer(answer))) => {
                guard.armed = false;
                answer.map_err(|error| ClientError::Response {
                    server: self.inner.name.clone(),
                    method: method.to_owned(),
                    error,
                })
            }
            Ok(Ok(Reply::Rejected(detail))) => {
                guard.armed = false;
                Err(ClientError::Rejected {
                    server: self.inner.name.clone(),
                    method: method.to_owned(),
                    detail,
                })
            }
            Ok(Err(_)) => {
                guard.armed = false;
                // The exit info is published before the pending map is drained.
                Err(self.exited_error())
            }
            Err(_) => Err(ClientError::Timeout {
                server: self.inner.name.clone(),
                method: method.to_owned(),
                after: timeout,
            }),
        }
    }

    /// The orderly exit: `shutdown`, `exit`, close stdin, wait `grace`, then kill
    /// the process group whatever state it is in.
    pub async fn shutdown(&self, grace: Duration) {
        if self.is_alive() {
            let _ = self.request_value("shutdown", Value::Null, grace).await;
            let _ = self.notify("exit", Value::Null);
            // tsgo and `tsc --lsp` ignore `exit` until stdin closes.
            self.inner.writer.close();
            let _ = tokio::time::timeout(grace, self.exited()).await;
        }
        self.kill();
    }

    /// Kills the process group now.
    pub fn kill(&self) {
        if let Ok(mut kill) = self.inner.kill.lock()
            && let Some(k) = kill.take()
        {
            let _ = k.send(());
        }
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        if let Ok(mut kill) = self.kill.lock()
            && let Some(k) = kill.take()
            && k.send(()).is_err()
            && let Some(pgid) = self.pgid
        {
            // The child task is gone (runtime shutting down): kill directly.
            process::kill_group(pgid);
        }
    }
}

/// Fails the pending request that an unreadable message answered, when its
/// first bytes name one, so the caller hears why instead of timing out.
fn reject(inner: &std::sync::Weak<Inner>, head: &[u8], detail: String) {
    let Some(id) = response_id(head) else { return };
    let Some(inner) = inner.upgrade() else { return };
    let tx = inner.pending.lock().ok().and_then(|mut p| p.remove(&id));
    if let Some(tx) = tx {
        let _ = tx.send(Reply::Rejected(detail));
    }
}

/// The numeric id of a response from its first bytes, read without parsing
/// the whole (possibly broken) JSON. Requests from the server carry `method`
/// and are not responses.
fn response_id(head: &[u8]) -> Option<i64> {
    let text = String::from_utf8_lossy(head);
    let start = text.find("\"id\"")? + 4;
    if text[..start].contains("\"method\"") {
        return None;
    }
    let rest = text[start..].trim_start().strip_prefix(':')?.trim_start();
    let rest = rest.strip_prefix('"').unwrap_or(rest);
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

struct CancelGuard<'a> {
    inner: &'a Inner,
    id: i64,
    armed: bool,
}

impl Drop for CancelGuard<'_> {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        let removed = self
            .inner
            .pending
            .lock()
            .ok()
            .and_then(|mut p| p.remove(&self.id));
        if removed.is_some() {
            let body = Message::Notification {
                method: "$/cancelRequest".into(),
                params: serde_json::json!({ "id": self.id }),
            }
            .encode();
            let _ = self.inner.writer.send(frame(&body));
        }
    }
}

async fn read_loop(
    name: &str,
    reader: impl AsyncRead + Unpin,
    max_body: usize,
    inner: &std::sync::Weak<Inner>,
    handler: &dyn Handler,
) {
    let mut frames = FramedRead::new(reader, LspCodec::new(max_body));
    while let Some(frame) = frames.next().await {
        let body = match frame {
            Ok(Frame::Body(b)) => b.to_vec(),
            Ok(Frame::Garbage(line)) => {
                // A message printed without its header still reads as one.
                if line.starts_with('{') && Message::decode(line.as_bytes()).is_ok() {
                    tracing::debug!("{name}: read a message that came without a header");
                    line.into_bytes()
                } else {
                    tracing::debug!("{name}: skipped non-protocol output: {line}");
                    continue;
                }
            }
            Ok(Frame::Oversized { size, head }) => {
                tracing::warn!("{name}: skipped a {size}-byte message over the size limit");
                reject(
                    inner,
                    &head,
                    format!("it is {size} bytes, over the {max_body}-byte limit"),
                );
                continue;
            }
            Err(e) => {
                tracing::debug!("{name}: read error: {e}");
                break;
            }
        };
        let message = match Message::decode(&body) {
            Ok(m) => m,
            Err(e) => {
                tracing::warn!("{name}: skipped an undecodable message: {e}");
                reject(inner, &body, format!("it is not valid JSON-RPC ({e})"));
                continue;
            }
        };
        let Some(inner) = inner.upgrade() else { break };
        match message {
            Message::Response { id, result } => {
                if tracing::enabled!(tracing::Level::TRACE) {
                    let body = match &result {
                        Ok(v) => v.to_string(),
                        Err(e) => format!("error {}: {}", e.code, e.message),
                    };
                    tracing::trace!("<- {name} response {id:?} {body}");
                }
                let Some(id) = id.and_then(|i| i.as_number()) else {
                    continue;
                };
                let tx = inner.pending.lock().ok().and_then(|mut p| p.remove(&id));
                if let Some(tx) = tx {
                    let _ = tx.send(Reply::Answer(result));
                }
            }
            Message::Request { id, method, params } => {
                tracing::trace!("<- {name} request {method} {params}");
                let result = handler.request(&method, params);
                let body = Message::Response {
                    id: Some(id),
                    result,
                }
                .encode();
                let _ = inner.writer.send(crate::framing::frame(&body));
            }
            Message::Notification { method, params } => {
                tracing::trace!("<- {name} {method} {params}");
                handler.notification(&method, params);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::response_id;

    #[test]
    fn finds_the_id_of_a_broken_response() {
        assert_eq!(
            response_id(br#"{"jsonrpc":"2.0","id":12,"result":"xxx"#),
            Some(12)
        );
        assert_eq!(response_id(br#"{"id" : "7", "result": {"#), Some(7));
        assert_eq!(
            response_id(br#"{"jsonrpc":"2.0","method":"x","id":3"#),
            None
        );
        assert_eq!(response_id(br#"{"jsonrpc":"2.0","result":"#), None);
    }
}
