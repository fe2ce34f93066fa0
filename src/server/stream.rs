//! A stored result served from its stored bytes: `GET /api/v1/results/{id}` writes its small
//! head (the listing's row and the device), then the result's compact JSON as the database
//! holds it, [`CHUNK`] characters at a time, each read by a short query on a blocking task when
//! the connection is ready for more — never parsed, never re-serialised, never whole in
//! memory. A client that stops reading stops the reads: it holds at most one chunk, and the
//! connection's send deadline ([`super::deadline`]) drops it. At most half the workers' worth
//! of chunk reads run at once ([`Readers`]), so the database connections are never all taken
//! by answers being streamed: `/healthz`, the pages and the API find one free.

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

/// The body of one stored result's answer.
pub struct Chunks {
    db: Arc<Db>,
    readers: Readers,
    /// Waiting for a read to be allowed.
    waiting: Option<Permit>,
    id: i64,
    /// The next character to read (1-based, as SQL's `substr` counts).
    next: i64,
    head: Option<Bytes>,
    tail: Option<Bytes>,
    reading: Option<tokio::task::JoinHandle<crate::error::Result<String>>>,
    done: bool,
}

impl Chunks {
    /// `head`, then result `id`'s stored text, then `tail`.
    pub fn new(db: Arc<Db>, readers: Readers, id: i64, head: String, tail: &'static str) -> Chunks {
        Chunks {
            db,
            readers,
            waiting: None,
            id,
            next: 1,
            head: Some(Bytes::from(head)),
            tail: Some(Bytes::from_static(tail.as_bytes())),
            reading: None,
            done: false,
        }
    }
}

/// Characters `from..from + CHUNK` of result `id`'s stored text (fewer at its end).
fn read(db: &Db, id: i64, from: i64) -> crate::error::Result<String> {
    let rows = db.read()?.query(
        "SELECT substr(result, $2, $3) FROM results WHERE id = $1",
        &[id.into(), from.into(), CHUNK.into()],
    )?;
    Ok(rows.first().map(|r| r.text(0)).unwrap_or_default())
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
            let (db, id, from) = (me.db.clone(), me.id, me.next);
            me.reading = Some(tokio::task::spawn_blocking(move || {
                let _permit = permit;
                read(&db, id, from)
            }));
        }
        let Some(task) = me.reading.as_mut() else {
            return Poll::Pending;
        };
        let text = match Pin::new(task).poll(cx) {
            Poll::Pending => return Poll::Pending,
            Poll::Ready(r) => {
                me.reading = None;
                match r {
                    Ok(Ok(text)) => text,
                    Ok(Err(e)) => {
                        eprintln!("pocketbench serve: reading result {}: {e}", me.id);
                        return Poll::Ready(Some(Err(std::io::Error::other("database"))));
                    }
                    Err(_) => return Poll::Ready(Some(Err(std::io::Error::other("task")))),
                }
            }
        };
        let n = text.chars().count() as i64;
        me.next += n;
        if n < CHUNK {
            me.done = true;
        }
        if n == 0 {
            return Poll::Ready(me.tail.take().map(|t| Ok(Frame::data(t))));
        }
        Poll::Ready(Some(Ok(Frame::data(Bytes::from(text)))))
    }
}
