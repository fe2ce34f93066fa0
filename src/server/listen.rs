//! The server's connections: one tokio task per accepted connection, served by hyper's HTTP/1.1
//! with a header read timeout (a client that does not finish its request head in time is
//! dropped; the wait for the next request on a kept-alive connection counts as head time, so an
//! idle connection is closed after it too) and a send deadline ([`super::deadline`]: a client
//! that does not read its answer is dropped), under two caps counted here — connections in all
//! and connections per client address. A slow or idle client holds a socket and a parked task,
//! never a thread: the request handlers' database work runs on blocking tasks bounded
//! separately ([`super::serve`]).
//!
//! The caps cannot be filled by slow clients: a connection that arrives at a cap closes the
//! connection that has been **waiting on its client** the longest — sending its head or body,
//! idle between requests, or not reading its answer (each request's [`Mark`] says when the
//! wait began) — and takes its place; one whose request is being handled is never closed. Only
//! when every connection under the cap is being handled is the new one refused.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The connection caps and the header read timeout.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub max_connections: usize,
    pub max_per_client: usize,
    pub header_timeout: Duration,
    /// How long a write to the client may make no progress.
    pub send_timeout: Duration,
}

/// One open connection.
struct Conn {
    client: IpAddr,
    /// When the connection began waiting on its client (a sequence number); None while one
    /// of its requests is being handled.
    waiting_since: Option<u64>,
    close: Arc<tokio::sync::Notify>,
}

/// Open connections, in all and per client address.
#[derive(Default)]
struct Open {
    total: usize,
    by_client: HashMap<IpAddr, usize>,
    conns: HashMap<u64, Conn>,
    /// The sequence numbering connections and their waits.
    seq: u64,
}

impl Open {
    fn tick(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    /// Forget connection `id` (closed, or made to close): its counts come back.
    fn forget(&mut self, id: u64) {
        let Some(c) = self.conns.remove(&id) else {
            return;
        };
        self.total -= 1;
        if let Some(n) = self.by_client.get_mut(&c.client) {
            *n -= 1;
            if *n == 0 {
                self.by_client.remove(&c.client);
            }
        }
    }

    /// Close the connection waiting on its client the longest (of `client` only, when given).
    fn close_longest_waiting(&mut self, client: Option<IpAddr>) -> bool {
        let victim = self
            .conns
            .iter()
            .filter(|(_, c)| client.is_none_or(|a| c.client == a))
            .filter_map(|(id, c)| c.waiting_since.map(|s| (s, *id)))
            .min();
        let Some((_, id)) = victim else {
            return false;
        };
        if let Some(c) = self.conns.get(&id) {
            c.close.notify_one();
        }
        self.forget(id);
        true
    }
}

type Shared = Arc<Mutex<Open>>;

/// The open connections, shared by the accept loop and whoever counts them (`/healthz`).
#[derive(Clone, Default)]
pub struct Registry(Shared);

impl Registry {
    /// Connections open now.
    pub fn open(&self) -> usize {
        lock(&self.0).total
    }
}

fn lock(open: &Shared) -> std::sync::MutexGuard<'_, Open> {
    open.lock().unwrap_or_else(|e| e.into_inner())
}

/// A counted connection: uncounted when dropped. Its `close` is notified when a newer
/// connection took its place.
struct Slot {
    open: Shared,
    id: u64,
    close: Arc<tokio::sync::Notify>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        lock(&self.open).forget(self.id);
    }
}

/// A request's handle on its connection's wait: [`Mark::handling`] once the request has
/// arrived whole, [`Mark::waiting`] once its answer is ready to send. Requests carry it as an
/// extension.
#[derive(Clone)]
pub struct Mark {
    open: Shared,
    id: u64,
}

impl Mark {
    pub fn handling(&self) {
        if let Some(c) = lock(&self.open).conns.get_mut(&self.id) {
            c.waiting_since = None;
        }
    }

    pub fn waiting(&self) {
        let mut o = lock(&self.open);
        let now = o.tick();
        if let Some(c) = o.conns.get_mut(&self.id) {
            c.waiting_since = Some(now);
        }
    }
}

/// Count a new connection from `client`; at a cap, the longest-waiting connection (of that
/// client at the per-client cap) is closed to make room, and when none is waiting, None.
fn take(open: &Shared, client: IpAddr, limits: &Limits) -> Option<Slot> {
    let mut o = lock(open);
    let mine = o.by_client.get(&client).copied().unwrap_or(0);
    if mine >= limits.max_per_client && !o.close_longest_waiting(Some(client)) {
        return None;
    }
    if o.total >= limits.max_connections && !o.close_longest_waiting(None) {
        return None;
    }
    let id = o.tick();
    let close = Arc::new(tokio::sync::Notify::new());
    o.total += 1;
    *o.by_client.entry(client).or_default() += 1;
    o.conns.insert(
        id,
        Conn {
            client,
            waiting_since: Some(id),
            close: close.clone(),
        },
    );
    Some(Slot {
        open: open.clone(),
        id,
        close,
    })
}

/// Serve one connection's `io` until it ends or is made to close.
async fn serve<I>(
    http: hyper::server::conn::http1::Builder,
    io: I,
    router: axum::Router,
    mark: Mark,
    close: Arc<tokio::sync::Notify>,
) where
    I: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let service =
        hyper::service::service_fn(move |mut rq: hyper::Request<hyper::body::Incoming>| {
            rq.extensions_mut().insert(mark.clone());
            tower::ServiceExt::oneshot(router.clone(), rq)
        });
    let conn = http.serve_connection(hyper_util::rt::TokioIo::new(io), service);
    tokio::select! {
        _ = conn => {}
        () = close.notified() => {}
    }
}

/// Serve `router` on `listener` until the process ends; `tls`, when given, is asked for the
/// current TLS configuration for each connection (so a reloaded certificate applies to new
/// connections).
pub async fn run(
    listener: tokio::net::TcpListener,
    router: axum::Router,
    limits: Limits,
    tls: Option<super::tls::Reloadable>,
    registry: Registry,
) {
    let open: Shared = registry.0;
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(hyper_util::rt::TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .keep_alive(true);
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(c) => c,
            Err(_) => {
                // Out of descriptors or a connection reset before it was taken: wait a little
                // rather than spin.
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let Some(slot) = take(&open, peer.ip(), &limits) else {
            drop(stream);
            continue;
        };
        let _ = stream.set_nodelay(true);
        let stream = super::deadline::SendDeadline::new(stream, limits.send_timeout);
        let http = http.clone();
        let router = router.clone();
        let acceptor = tls.as_ref().map(super::tls::Reloadable::acceptor);
        let mark = Mark {
            open: open.clone(),
            id: slot.id,
        };
        tokio::spawn(async move {
            let close = slot.close.clone();
            let _slot = slot;
            match acceptor {
                None => serve(http, stream, router, mark, close).await,
                Some(acceptor) => {
                    // The TLS handshake is held to the header timeout too.
                    let shake =
                        tokio::time::timeout(limits.header_timeout, acceptor.accept(stream));
                    tokio::select! {
                        r = shake => if let Ok(Ok(tls)) = r {
                            serve(http, tls, router, mark, close.clone()).await;
                        },
                        () = close.notified() => {}
                    }
                }
            }
        });
    }
}

#[cfg(test)]
mod tests {
    //! The caps count connections in all and per client, close the longest-waiting one to
    //! make room, and give slots back when dropped.
    use super::*;

    fn mark(open: &Shared, s: &Slot) -> Mark {
        Mark {
            open: open.clone(),
            id: s.id,
        }
    }

    #[test]
    fn a_cap_closes_the_longest_waiting_and_never_one_being_handled() {
        let limits = Limits {
            max_connections: 3,
            max_per_client: 2,
            header_timeout: Duration::from_secs(1),
            send_timeout: Duration::from_secs(1),
        };
        let open: Shared = Arc::new(Mutex::new(Open::default()));
        let (a, b): (IpAddr, IpAddr) = ("10.0.0.1".parse().unwrap(), "10.0.0.2".parse().unwrap());
        let a1 = take(&open, a, &limits).unwrap();
        let a2 = take(&open, a, &limits).unwrap();
        // a1 is being handled: a third from a closes a2, the one waiting.
        mark(&open, &a1).handling();
        let a3 = take(&open, a, &limits).unwrap();
        assert!(!lock(&open).conns.contains_key(&a2.id), "a2 closed");
        assert!(lock(&open).conns.contains_key(&a1.id));
        drop(a2); // its task ends: nothing counted twice
        assert_eq!(lock(&open).total, 2);
        // b fills the last place; a fourth in all closes a3 (waiting since it connected).
        let b1 = take(&open, b, &limits).unwrap();
        mark(&open, &b1).waiting();
        let b2 = take(&open, b, &limits).unwrap();
        assert!(!lock(&open).conns.contains_key(&a3.id), "a3 closed");
        // All three being handled: a newcomer is refused.
        for s in [&a1, &b1, &b2] {
            mark(&open, s).handling();
        }
        assert!(take(&open, b, &limits).is_none());
        assert!(take(&open, "10.0.0.3".parse().unwrap(), &limits).is_none());
        drop(b1);
        let _c = take(&open, "10.0.0.3".parse().unwrap(), &limits).unwrap();
        assert_eq!(lock(&open).total, 3);
    }
}
