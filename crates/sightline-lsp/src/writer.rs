//! The write half of a server connection: a message is written by the task
//! that sends it, and only what the pipe does not take at once is queued for
//! a flushing task.
//!
//! A writer task fed by a channel cost every request a wake-up of another
//! thread before the server saw it; on a warm server that hop was a large
//! part of sightline's overhead over a direct client (docs/benchmarks.md).
//! Writing in place keeps the order of messages: once anything is queued,
//! every later message queues behind it until the flusher has drained it.

use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Waker};

use tokio::io::{AsyncWrite, AsyncWriteExt};

type Sink = Pin<Box<dyn AsyncWrite + Send>>;

#[derive(Default)]
struct State {
    /// The pipe, when no flusher holds it.
    sink: Option<Sink>,
    /// Frames (or their unwritten rest) waiting for the flusher, in order.
    queue: VecDeque<Vec<u8>>,
    /// A flusher task holds the sink.
    flushing: bool,
    /// Close after the queue drains.
    closing: bool,
    /// The pipe failed or was closed: nothing more is written.
    dead: bool,
}

/// The write half; cloning shares it.
#[derive(Clone)]
pub(crate) struct Writer {
    state: Arc<Mutex<State>>,
}

/// The pipe is gone.
#[derive(Debug)]
pub(crate) struct Closed;

impl Writer {
    pub(crate) fn new(sink: impl AsyncWrite + Send + 'static) -> Writer {
        Writer {
            state: Arc::new(Mutex::new(State {
                sink: Some(Box::pin(sink)),
                ..State::default()
            })),
        }
    }

    /// Writes one framed message: at once when the pipe takes it all,
    /// otherwise the rest goes to the flusher. Must run inside the tokio
    /// runtime that owns the pipe.
    pub(crate) fn send(&self, frame: Vec<u8>) -> Result<(), Closed> {
        let mut st = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if st.dead || st.closing {
            return Err(Closed);
        }
        if st.flushing {
            st.queue.push_back(frame);
            return Ok(());
        }
        let Some(sink) = st.sink.as_mut() else {
            return Err(Closed);
        };
        match write_now(sink.as_mut(), &frame) {
            Ok(n) if n == frame.len() => Ok(()),
            Ok(n) => {
                st.queue.push_back(frame[n..].to_vec());
                self.start_flusher(&mut st);
                // No runtime to finish the frame: the pipe is unusable.
                if st.dead { Err(Closed) } else { Ok(()) }
            }
            Err(()) => {
                st.dead = true;
                st.sink = None;
                Err(Closed)
            }
        }
    }

    /// Closes the pipe once everything sent has been written.
    pub(crate) fn close(&self) {
        let mut st = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if st.closing || st.dead {
            return;
        }
        st.closing = true;
        if !st.flushing {
            self.start_flusher(&mut st);
        }
    }

    /// Hands the sink to a task that writes the queue, then gives it back,
    /// or shuts it down when closing.
    fn start_flusher(&self, st: &mut State) {
        // A guard dropped while its runtime shuts down has no task to hand
        // the rest to; the server is going away with that runtime.
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            st.dead = true;
            st.sink = None;
            st.queue.clear();
            return;
        };
        let Some(mut sink) = st.sink.take() else {
            return;
        };
        st.flushing = true;
        let state = self.state.clone();
        runtime.spawn(async move {
            loop {
                let next = {
                    let mut st = state.lock().unwrap_or_else(PoisonError::into_inner);
                    match st.queue.pop_front() {
                        Some(frame) => Some(frame),
                        None if st.closing => None,
                        None => {
                            st.sink = Some(sink);
                            st.flushing = false;
                            return;
                        }
                    }
                };
                let Some(frame) = next else {
                    let _ = sink.shutdown().await;
                    let mut st = state.lock().unwrap_or_else(PoisonError::into_inner);
                    st.flushing = false;
                    st.dead = true;
                    return;
                };
                if sink.write_all(&frame).await.is_err() || sink.flush().await.is_err() {
                    let mut st = state.lock().unwrap_or_else(PoisonError::into_inner);
                    st.flushing = false;
                    st.dead = true;
                    st.queue.clear();
                    return;
                }
            }
        });
    }
}

/// Writes as much of `frame` as the pipe takes without waiting; `Err` when
/// the pipe failed.
fn write_now(mut sink: Pin<&mut (dyn AsyncWrite + Send)>, frame: &[u8]) -> Result<usize, ()> {
    let mut cx = Context::from_waker(Waker::noop());
    let mut done = 0;
    while done < frame.len() {
        match sink.as_mut().poll_write(&mut cx, &frame[done..]) {
            Poll::Ready(Ok(0)) | Poll::Ready(Err(_)) => return Err(()),
            Poll::Ready(Ok(n)) => done += n,
            Poll::Pending => return Ok(done),
        }
    }
    // A pipe needs no flush; a buffered writer (in tests) may.
    match sink.as_mut().poll_flush(&mut cx) {
        Poll::Ready(Err(_)) => Err(()),
        Poll::Ready(Ok(())) => Ok(done),
        // Unflushed bytes stay in the writer's buffer; the flusher's flush
        // after the next queued frame, or the next in-place write, sends
        // them. Nothing is waiting on them until then.
        Poll::Pending => Ok(done),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use tokio::io::AsyncReadExt;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn frames_from_many_tasks_arrive_whole_and_in_each_senders_order() {
        // A small pipe, so that most writes only partly fit and queue.
        let (a, mut b) = tokio::io::duplex(64);
        let w = Writer::new(a);
        let mut tasks = Vec::new();
        for sender in 0..4u8 {
            let w = w.clone();
            tasks.push(tokio::spawn(async move {
                for i in 0..200u32 {
                    let body = format!("<{sender}:{i:04}:{}>", "x".repeat((i % 50) as usize));
                    w.send(body.into_bytes()).unwrap();
                    if i % 7 == 0 {
                        tokio::task::yield_now().await;
                    }
                }
            }));
        }
        let reader = tokio::spawn(async move {
            let mut all = Vec::new();
            b.read_to_end(&mut all).await.unwrap();
            String::from_utf8(all).unwrap()
        });
        for t in tasks {
            t.await.unwrap();
        }
        w.close();
        let text = reader.await.unwrap();
        let mut next = [0u32; 4];
        let mut seen = 0;
        for frame in text.split('<').skip(1) {
            let frame = frame.strip_suffix('>').unwrap();
            let mut parts = frame.split(':');
            let sender: usize = parts.next().unwrap().parse().unwrap();
            let i: u32 = parts.next().unwrap().parse().unwrap();
            assert_eq!(parts.next().unwrap(), "x".repeat((i % 50) as usize));
            assert_eq!(i, next[sender], "sender {sender} out of order");
            next[sender] += 1;
            seen += 1;
        }
        assert_eq!(seen, 800);
        assert!(w.send(b"late".to_vec()).is_err());
    }

    #[tokio::test]
    async fn a_closed_pipe_fails_the_send() {
        let (a, b) = tokio::io::duplex(64);
        drop(b);
        let w = Writer::new(a);
        assert!(w.send(b"hello".to_vec()).is_err());
    }
}
