//! The send deadline of a connection: its stream wrapped so that a write (or flush) that makes
//! no progress for the deadline fails, and hyper drops the connection. A client that stops
//! reading its response — its socket buffers full — is dropped this way, whatever it asked for.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// `S` with a send deadline.
pub struct SendDeadline<S> {
    inner: S,
    limit: Duration,
    /// Running while a write waits for the client.
    stalled: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl<S> SendDeadline<S> {
    pub fn new(inner: S, limit: Duration) -> SendDeadline<S> {
        SendDeadline {
            inner,
            limit,
            stalled: None,
        }
    }

    /// Pass a ready answer through (progress: the deadline starts again); while waiting, fail
    /// once the deadline has passed.
    fn watch<T>(&mut self, cx: &mut Context<'_>, r: Poll<io::Result<T>>) -> Poll<io::Result<T>> {
        match r {
            Poll::Pending => {
                let limit = self.limit;
                let sleep = self
                    .stalled
                    .get_or_insert_with(|| Box::pin(tokio::time::sleep(limit)));
                if sleep.as_mut().poll(cx).is_ready() {
                    return Poll::Ready(Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        "the client did not read its answer within the send deadline",
                    )));
                }
                Poll::Pending
            }
            ready => {
                self.stalled = None;
                ready
            }
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for SendDeadline<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for SendDeadline<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let me = self.get_mut();
        let r = Pin::new(&mut me.inner).poll_write(cx, buf);
        me.watch(cx, r)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let me = self.get_mut();
        let r = Pin::new(&mut me.inner).poll_write_vectored(cx, bufs);
        me.watch(cx, r)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let me = self.get_mut();
        let r = Pin::new(&mut me.inner).poll_flush(cx);
        me.watch(cx, r)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let me = self.get_mut();
        let r = Pin::new(&mut me.inner).poll_shutdown(cx);
        me.watch(cx, r)
    }
}
