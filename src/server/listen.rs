//! The server's connections: one tokio task per accepted connection, served by hyper's HTTP/1.1
//! with a header read timeout (a client that does not finish its request head in time is
//! dropped), under two caps counted here — connections in all and connections per client
//! address (a connection over either cap is closed at once). A slow or idle client holds a
//! socket and a parked task, never a thread: the request handlers' database work runs on
//! blocking tasks bounded separately ([`super::serve`]).

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
}

/// Open connections, in all and per client address.
#[derive(Default)]
struct Open {
    total: usize,
    by_client: HashMap<IpAddr, usize>,
}

/// A counted connection: uncounted when dropped.
struct Slot {
    open: Arc<Mutex<Open>>,
    client: IpAddr,
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut o = self.open.lock().unwrap_or_else(|e| e.into_inner());
        o.total -= 1;
        if let Some(n) = o.by_client.get_mut(&self.client) {
            *n -= 1;
            if *n == 0 {
                o.by_client.remove(&self.client);
            }
        }
    }
}

/// Count a new connection from `client`, unless a cap is reached.
fn take(open: &Arc<Mutex<Open>>, client: IpAddr, limits: &Limits) -> Option<Slot> {
    let mut o = open.lock().unwrap_or_else(|e| e.into_inner());
    let mine = o.by_client.get(&client).copied().unwrap_or(0);
    if o.total >= limits.max_connections || mine >= limits.max_per_client {
        return None;
    }
    o.total += 1;
    *o.by_client.entry(client).or_default() += 1;
    Some(Slot {
        open: open.clone(),
        client,
    })
}

/// Serve `router` on `listener` until the process ends; `tls`, when given, is asked for the
/// current TLS configuration for each connection (so a reloaded certificate applies to new
/// connections).
pub async fn run(
    listener: tokio::net::TcpListener,
    router: axum::Router,
    limits: Limits,
    tls: Option<super::tls::Reloadable>,
) {
    let open = Arc::new(Mutex::new(Open::default()));
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
        let service = hyper_util::service::TowerToHyperService::new(router.clone());
        let http = http.clone();
        let acceptor = tls.as_ref().map(super::tls::Reloadable::acceptor);
        tokio::spawn(async move {
            let _slot = slot;
            match acceptor {
                None => {
                    let io = hyper_util::rt::TokioIo::new(stream);
                    let _ = http.serve_connection(io, service).await;
                }
                Some(acceptor) => {
                    // The TLS handshake is held to the header timeout too.
                    let shake =
                        tokio::time::timeout(limits.header_timeout, acceptor.accept(stream));
                    if let Ok(Ok(tls)) = shake.await {
                        let io = hyper_util::rt::TokioIo::new(tls);
                        let _ = http.serve_connection(io, service).await;
                    }
                }
            }
        });
    }
}

#[cfg(test)]
mod tests {
    //! The caps count connections in all and per client, and give slots back when dropped.
    use super::*;

    #[test]
    fn connections_over_a_cap_are_refused_and_slots_come_back() {
        let limits = Limits {
            max_connections: 3,
            max_per_client: 2,
            header_timeout: Duration::from_secs(1),
        };
        let open = Arc::new(Mutex::new(Open::default()));
        let (a, b): (IpAddr, IpAddr) = ("10.0.0.1".parse().unwrap(), "10.0.0.2".parse().unwrap());
        let a1 = take(&open, a, &limits).unwrap();
        let _a2 = take(&open, a, &limits).unwrap();
        assert!(take(&open, a, &limits).is_none(), "a third from one client");
        let _b1 = take(&open, b, &limits).unwrap();
        assert!(take(&open, b, &limits).is_none(), "a fourth in all");
        drop(a1);
        let _a3 = take(&open, a, &limits).unwrap();
        assert_eq!(open.lock().unwrap().total, 3);
    }
}
