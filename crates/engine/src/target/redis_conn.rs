//! One connection to a Redis server: requests queued into one buffer and written with
//! one `write`, replies read through a receive buffer (one `read` takes as many
//! replies as have arrived), `TCP_NODELAY` set as go-redis and Jedis set it.
//!
//! No handshake beyond what the user asked for: `AUTH` when a password is given,
//! nothing per operation (no `SELECT`, `PING` or `CLIENT SETINFO`).

use std::fmt;
use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::os::fd::AsRawFd;

use super::reply_poller::{Registration, ReplyPoller};
use super::reply_spin::SpinWait;
use super::resp::{self, ProtocolError, Reply};

/// Initial receive buffer: a workload-A/C reply (10 fields of 100 B) is ~1.2 kB, a
/// 100-record scan ~120 kB (the buffer grows for it).
const RECV_BUFFER: usize = 16 * 1024;
/// Read when at least this much room is left; otherwise compact or grow first.
const MIN_ROOM: usize = 4 * 1024;

/// Why a request failed.
#[derive(Debug)]
pub enum ConnError {
    Io(io::Error),
    Protocol(ProtocolError),
    /// The server closed the connection.
    Closed,
}

impl fmt::Display for ConnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConnError::Io(e) => write!(f, "{e}"),
            ConnError::Protocol(e) => write!(f, "{e}"),
            ConnError::Closed => f.write_str("the server closed the connection"),
        }
    }
}

impl From<io::Error> for ConnError {
    fn from(e: io::Error) -> Self {
        ConnError::Io(e)
    }
}

/// A Redis connection speaking RESP2.
pub struct RedisConnection {
    stream: TcpStream,
    /// Queued requests, not yet written.
    out: Vec<u8>,
    /// Received bytes; `buf[start..end]` is not parsed yet.
    buf: Vec<u8>,
    start: usize,
    end: usize,
    /// A protocol or I/O error leaves the stream at an unknown position: refuse further use.
    broken: bool,
    waiting: Waiting,
}

/// How a client thread waits for its reply.
enum Waiting {
    /// In a blocking `read`.
    Block,
    /// Polling the socket for a while first (`reply_spin`).
    Spin(SpinWait),
    /// Parked until the `ReplyPoller` sees the socket ready (the socket is non-blocking).
    Poller(Registration),
}

impl RedisConnection {
    /// Connects, and sends `AUTH password` when there is one.
    pub fn connect(host: &str, port: u16, password: Option<&str>) -> Result<Self, ConnError> {
        let stream = TcpStream::connect((host, port))?;
        stream.set_nodelay(true)?;
        let mut conn = Self {
            stream,
            out: Vec::with_capacity(1024),
            buf: vec![0; RECV_BUFFER],
            start: 0,
            end: 0,
            broken: false,
            waiting: Waiting::Block,
        };
        if let Some(password) = password {
            if let Reply::Error(e) = conn.request([&b"AUTH"[..], password.as_bytes()])? {
                return Err(ConnError::Io(io::Error::new(
                    io::ErrorKind::PermissionDenied,
                    format!("AUTH refused: {e}"),
                )));
            }
        }
        Ok(conn)
    }

    /// From now on, waits for replies through `poller` rather than in `read`; the
    /// calling thread is the one the poller wakes.
    pub fn wait_through(&mut self, poller: &ReplyPoller) -> io::Result<()> {
        self.stream.set_nonblocking(true)?;
        self.waiting = Waiting::Poller(poller.register(self.stream.as_raw_fd())?);
        Ok(())
    }

    /// From now on, polls the socket for a while before blocking (`reply_spin`).
    pub fn spin_before_blocking(&mut self) {
        self.waiting = Waiting::Spin(SpinWait::default());
    }

    /// Queues one command (sent by the next `flush`).
    pub fn queue<'a, I>(&mut self, args: I)
    where
        I: IntoIterator<Item = &'a [u8]>,
        I::IntoIter: Clone,
    {
        resp::encode(&mut self.out, args);
    }

    /// Writes every queued command at once.
    pub fn flush(&mut self) -> Result<(), ConnError> {
        self.usable()?;
        let sent = write_all(&mut self.stream, &self.out);
        self.out.clear();
        sent.map_err(|e| self.broke(e.into()))
    }

    /// The next reply, reading from the socket only when the buffer has no whole reply.
    pub fn reply(&mut self) -> Result<Reply, ConnError> {
        self.usable()?;
        loop {
            match resp::parse(&self.buf[self.start..self.end]) {
                Ok(Some((reply, used))) => {
                    self.start += used;
                    if self.start == self.end {
                        (self.start, self.end) = (0, 0);
                    }
                    return Ok(reply);
                }
                Ok(None) => self.fill()?,
                Err(e) => return Err(self.broke(ConnError::Protocol(e))),
            }
        }
    }

    /// One command and its reply.
    pub fn request<'a, I>(&mut self, args: I) -> Result<Reply, ConnError>
    where
        I: IntoIterator<Item = &'a [u8]>,
        I::IntoIter: Clone,
    {
        self.queue(args);
        self.flush()?;
        self.reply()
    }

    /// One `read` into the free end of the buffer, after making room.
    fn fill(&mut self) -> Result<(), ConnError> {
        if self.buf.len() - self.end < MIN_ROOM {
            if self.start > 0 {
                self.buf.copy_within(self.start..self.end, 0);
                (self.start, self.end) = (0, self.end - self.start);
            }
            if self.buf.len() - self.end < MIN_ROOM {
                self.buf.resize(self.buf.len() * 2, 0);
            }
        }
        match self.read_some() {
            Ok(0) => Err(self.broke(ConnError::Closed)),
            Ok(n) => {
                self.end += n;
                Ok(())
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => Ok(()),
            Err(e) => Err(self.broke(e.into())),
        }
    }

    /// One `read` into `buf[end..]`, waiting as the connection was told to.
    fn read_some(&mut self) -> io::Result<usize> {
        let room = &mut self.buf[self.end..];
        match &mut self.waiting {
            Waiting::Block => self.stream.read(room),
            Waiting::Spin(spin) => match spin.read(self.stream.as_raw_fd(), room)? {
                Some(n) => Ok(n),
                None => self.stream.read(room),
            },
            Waiting::Poller(registration) => loop {
                match self.stream.read(room) {
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => registration.wait()?,
                    other => return other,
                }
            },
        }
    }

    fn usable(&self) -> Result<(), ConnError> {
        if self.broken {
            Err(ConnError::Io(io::Error::new(
                io::ErrorKind::NotConnected,
                "the connection failed earlier",
            )))
        } else {
            Ok(())
        }
    }

    fn broke(&mut self, e: ConnError) -> ConnError {
        self.broken = true;
        e
    }
}

/// `write_all` that also works on a non-blocking socket (waits for room with `poll`).
fn write_all(stream: &mut TcpStream, mut bytes: &[u8]) -> io::Result<()> {
    while !bytes.is_empty() {
        match stream.write(bytes) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => bytes = &bytes[n..],
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                let mut fd = libc::pollfd {
                    fd: stream.as_raw_fd(),
                    events: libc::POLLOUT,
                    revents: 0,
                };
                // SAFETY: one pollfd, alive for the call.
                unsafe { libc::poll(&mut fd, 1, -1) };
            }
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    //! Against a RESP responder on a local socket (a stand-in for Redis: what these
    //! tests check is how replies are read, whatever the server; the binding's tests
    //! against a real redis-server are in tests/targets/test_redis_wire_cost.py).
    use super::*;
    use std::net::TcpListener;
    use std::sync::Arc;
    use std::thread;

    /// Answers each `*1 $n <word>` request with `$n <word>`, one byte per write, so
    /// replies reach the client in pieces.
    fn responder(connections: usize) -> (u16, thread::JoinHandle<()>) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let server = thread::spawn(move || {
            let peers: Vec<_> = (0..connections)
                .map(|_| {
                    let (mut sock, _) = listener.accept().unwrap();
                    sock.set_nodelay(true).unwrap();
                    thread::spawn(move || {
                        let mut pending = Vec::new();
                        let mut chunk = [0u8; 256];
                        loop {
                            let n = sock.read(&mut chunk).unwrap();
                            if n == 0 {
                                return;
                            }
                            pending.extend_from_slice(&chunk[..n]);
                            while let Some((Reply::Array(args), used)) =
                                resp::parse(&pending).unwrap()
                            {
                                pending.drain(..used);
                                let Reply::Bulk(word) = &args[0] else {
                                    panic!()
                                };
                                let mut reply = format!("${}\r\n", word.len()).into_bytes();
                                reply.extend_from_slice(word);
                                reply.extend_from_slice(b"\r\n");
                                for byte in reply {
                                    sock.write_all(&[byte]).unwrap();
                                }
                            }
                        }
                    })
                })
                .collect();
            peers.into_iter().for_each(|p| p.join().unwrap());
        });
        (port, server)
    }

    fn exchange(conn: &mut RedisConnection, thread: usize, requests: usize) {
        for i in 0..requests {
            let word = format!("t{thread}-r{i}");
            let reply = conn.request([word.as_bytes()]).unwrap();
            assert_eq!(reply, Reply::Bulk(word.into_bytes()));
        }
    }

    #[test]
    fn replies_in_pieces_are_read_whole_by_a_blocking_connection() {
        let (port, server) = responder(1);
        let mut conn = RedisConnection::connect("127.0.0.1", port, None).unwrap();
        exchange(&mut conn, 0, 200);
        drop(conn);
        server.join().unwrap();
    }

    #[test]
    fn replies_in_pieces_are_read_whole_while_spinning() {
        let (port, server) = responder(1);
        let mut conn = RedisConnection::connect("127.0.0.1", port, None).unwrap();
        conn.spin_before_blocking();
        exchange(&mut conn, 0, 200);
        drop(conn);
        server.join().unwrap();
    }

    #[test]
    fn the_poller_wakes_each_thread_for_its_own_replies() {
        const THREADS: usize = 8;
        let (port, server) = responder(THREADS);
        let poller = Arc::new(ReplyPoller::start().unwrap());
        let clients: Vec<_> = (0..THREADS)
            .map(|t| {
                let poller = Arc::clone(&poller);
                thread::spawn(move || {
                    let mut conn = RedisConnection::connect("127.0.0.1", port, None).unwrap();
                    conn.wait_through(&poller).unwrap();
                    exchange(&mut conn, t, 200);
                })
            })
            .collect();
        clients.into_iter().for_each(|c| c.join().unwrap());
        server.join().unwrap();
    }

    #[test]
    fn a_closed_server_is_an_error_not_a_hang() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let server = thread::spawn(move || drop(listener.accept().unwrap()));
        let poller = ReplyPoller::start().unwrap();
        let mut conn = RedisConnection::connect("127.0.0.1", port, None).unwrap();
        conn.wait_through(&poller).unwrap();
        server.join().unwrap();
        assert!(matches!(
            conn.request([&b"PING"[..]]),
            Err(ConnError::Closed | ConnError::Io(_))
        ));
        // The connection refuses further use rather than reading from a lost position.
        assert!(conn.request([&b"PING"[..]]).is_err());
    }
}
