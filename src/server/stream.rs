//! A stored result served from its stored bytes: `GET /api/v1/results/{id}` writes its small
//! head (the listing's row and the device), then the result's compact JSON as the database
//! holds it, [`CHUNK`] characters at a time, each read by a short query on a blocking task when
//! the connection is ready for more — never parsed, never re-serialised, never whole in
//! memory. A client that stops reading stops the reads: it holds at most one chunk, and the
//! connection's send deadline ([`super::deadline`]) drops it. At most half the workers' worth
//! of chunk reads run at once ([`Readers`]), so the database connections are never all taken
//! by answers being streamed: `/healthz`, the pages and the API find one free.
//!
//! A published trace's file (`GET /api/v1/traces/{sha256}/file`) is streamed the same way, one
//! stored chunk ([`super::traces::CHUNK`] bytes) per query ([`Source::Trace`]).

use super::db::Db;
use axum::body::Bytes;
use http_body::Frame;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

/// Characters of the stored result read per query (at most four times as many bytes). A
/// query reads the stored value whole before cutting it (SQLite's `substr`), so fewer, larger
/// chunks cost the database less: a 2 MiB result is 8 queries.
pub const CHUNK: i64 = 256 * 1024;

/// The chunk reads allowed at once.
pub type Readers = Arc<tokio::sync::Semaphore>;

/// Chunk reads for a server of `workers` workers: half of them, at least one.
pub fn readers(workers: usize) -> Readers {
    Arc::new(tokio::sync::Semaphore::new((workers / 2).max(1)))
}

type Permit = Pin<
    Box<
        dyn Future<Output = Result<tokio::sync::OwnedSemaphorePermit, tokio::sync::AcquireError>>
            + Send,
    >,
>;

/// What is streamed.
#[derive(Clone, Copy, Debug)]
pub enum Source {
    /// A stored result's text, [`CHUNK`] characters at a time.
    Result,
    /// A published trace's bytes, one stored chunk at a time.
    Trace,
}

/// The body of one stored result's (or trace's) answer.
pub struct Chunks {
    db: Arc<Db>,
    readers: Readers,
    /// Waiting for a read to be allowed.
    waiting: Option<Permit>,
    source: Source,
    id: i64,
    /// The next character to read (1-based, as SQL's `substr` counts), or the next chunk.
    next: i64,
    head: Option<Bytes>,
    tail: Option<Bytes>,
    reading: Option<tokio::task::JoinHandle<crate::error::Result<Read>>>,
    done: bool,
}

impl Chunks {
    /// `head`, then result `id`'s stored text, then `tail`.
    pub fn new(db: Arc<Db>, readers: Readers, id: i64, head: String, tail: &'static str) -> Chunks {
        Chunks {
            db,
            readers,
            waiting: None,
            source: Source::Result,
            id,
            next: 1,
            head: Some(Bytes::from(head)),
            tail: Some(Bytes::from_static(tail.as_bytes())),
            reading: None,
            done: false,
        }
    }

    /// Published trace `id`'s stored bytes, chunk by chunk.
    pub fn trace(db: Arc<Db>, readers: Readers, id: i64) -> Chunks {
        Chunks {
            source: Source::Trace,
            next: 0,
            head: None,
            tail: None,
            ..Chunks::new(db, readers, id, String::new(), "")
        }
    }
}

/// One read: its bytes, how far it moves `next`, and whether it was the last.
struct Read {
    bytes: Bytes,
    advance: i64,
    last: bool,
}

/// The next piece of `source` `id` from `from`: characters `from..from + CHUNK` of a result's
/// stored text (fewer at its end), or a trace's chunk number `from` (none past its last).
fn read(db: &Db, source: Source, id: i64, from: i64) -> crate::error::Result<Read> {
    match source {
        Source::Result => {
            let rows = db.read()?.query(
                "SELECT substr(result, $2, $3) FROM results WHERE id = $1",
                &[id.into(), from.into(), CHUNK.into()],
            )?;
            let text = rows.first().map(|r| r.text(0)).unwrap_or_default();
            let n = text.chars().count() as i64;
            Ok(Read {
                bytes: Bytes::from(text),
                advance: n,
                last: n < CHUNK,
            })
        }
        Source::Trace => {
            let rows = db.read()?.query(
                "SELECT data FROM trace_chunks WHERE trace_id = $1 AND idx = $2",
                &[id.into(), from.into()],
            )?;
            let bytes = rows.first().map(|r| r.blob(0)).unwrap_or_default();
            Ok(Read {
                last: bytes.is_empty(),
                advance: 1,
                bytes: Bytes::from(bytes),
            })
        }
    }
}

impl http_body::Body for Chunks {
    type Data = Bytes;
    type Error = std::io::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, std::io::Error>>> {
        let me = self.get_mut();
        if let Some(h) = me.head.take() {
            return Poll::Ready(Some(Ok(Frame::data(h))));
        }
        if me.done {
            return Poll::Ready(me.tail.take().map(|t| Ok(Frame::data(t))));
        }
        if me.reading.is_none() {
            let readers = me.readers.clone();
            let wait = me
                .waiting
                .get_or_insert_with(|| Box::pin(readers.acquire_owned()));
            let permit = match wait.as_mut().poll(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(p) => p,
            };
            me.waiting = None;
            let (db, source, id, from) = (me.db.clone(), me.source, me.id, me.next);
            me.reading = Some(tokio::task::spawn_blocking(move || {
                let _permit = permit;
                read(&db, source, id, from)
            }));
        }
        let Some(task) = me.reading.as_mut() else {
            return Poll::Pending;
        };
        let got = match Pin::new(task).poll(cx) {
            Poll::Pending => return Poll::Pending,
            Poll::Ready(r) => {
                me.reading = None;
                match r {
                    Ok(Ok(got)) => got,
                    Ok(Err(e)) => {
                        eprintln!("pocketbench serve: reading result {}: {e}", me.id);
                        return Poll::Ready(Some(Err(std::io::Error::other("database"))));
                    }
                    Err(_) => return Poll::Ready(Some(Err(std::io::Error::other("task")))),
                }
            }
        };
        me.next += got.advance;
        me.done = got.last;
        if got.bytes.is_empty() {
            return Poll::Ready(me.tail.take().map(|t| Ok(Frame::data(t))));
        }
        Poll::Ready(Some(Ok(Frame::data(got.bytes))))
    }
}
