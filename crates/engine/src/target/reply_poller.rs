//! One thread that waits for the replies of many connections, so that the server does
//! not wake a client thread for each reply it sends.
//!
//! A client thread blocked in `read` on its socket is woken by the kernel in the
//! context of whoever delivers the data, and on one host that is the server sending
//! its reply: with a thread per connection the server pays one wake-up (often an
//! inter-processor interrupt) per operation, which go-ycsb's goroutines, multiplexed
//! over a few threads by Go's network poller, avoid. Here the connections' sockets are
//! in one edge-triggered epoll set watched by this thread: the server's reply only
//! marks the socket ready, and wakes this thread when it sleeps — once for every
//! replies that arrive together — and this thread unparks the client threads (that
//! wake-up is the client's cost).

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle, Thread, ThreadId};

/// Events taken per `epoll_wait`.
const BATCH: usize = 64;
/// The epoll data of the stop eventfd (slots use their index).
const STOP: u64 = u64::MAX;

/// The poller thread and the client threads it wakes, by slot.
pub struct ReplyPoller {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

struct Shared {
    epoll: OwnedFd,
    stop: OwnedFd,
    /// Slot `i` is the thread waiting on the socket registered with data `i`.
    waiters: Mutex<Vec<Option<Thread>>>,
    /// Set if `epoll_wait` failed: nobody wakes the waiters any more.
    failed: AtomicBool,
}

/// One socket in the poller's set; the registering thread is the one it wakes.
pub struct Registration {
    shared: Arc<Shared>,
    slot: usize,
    fd: RawFd,
    /// The thread in the slot (a session moved to another thread re-registers it).
    thread: ThreadId,
}

fn cvt(ret: libc::c_int) -> io::Result<libc::c_int> {
    if ret < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(ret)
    }
}

impl ReplyPoller {
    /// Starts the poller thread.
    pub fn start() -> io::Result<Self> {
        // SAFETY: plain syscalls; each returned descriptor is owned exactly once.
        let epoll = unsafe { OwnedFd::from_raw_fd(cvt(libc::epoll_create1(libc::EPOLL_CLOEXEC))?) };
        let stop = unsafe {
            OwnedFd::from_raw_fd(cvt(libc::eventfd(
                0,
                libc::EFD_CLOEXEC | libc::EFD_NONBLOCK,
            ))?)
        };
        let mut event = libc::epoll_event {
            events: libc::EPOLLIN as u32,
            u64: STOP,
        };
        // SAFETY: both descriptors are open; `event` outlives the call.
        cvt(unsafe {
            libc::epoll_ctl(
                epoll.as_raw_fd(),
                libc::EPOLL_CTL_ADD,
                stop.as_raw_fd(),
                &mut event,
            )
        })?;
        let shared = Arc::new(Shared {
            epoll,
            stop,
            waiters: Mutex::new(Vec::new()),
            failed: AtomicBool::new(false),
        });
        let worker = Arc::clone(&shared);
        let thread = thread::Builder::new()
            .name("redis-replies".into())
            .spawn(move || worker.run())?;
        Ok(Self {
            shared,
            thread: Some(thread),
        })
    }

    /// Adds `fd` (a non-blocking socket) to the set; the calling thread is the one woken.
    pub fn register(&self, fd: RawFd) -> io::Result<Registration> {
        let slot = {
            let mut waiters = self
                .shared
                .waiters
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            let slot = waiters
                .iter()
                .position(Option::is_none)
                .unwrap_or(waiters.len());
            if slot == waiters.len() {
                waiters.push(None);
            }
            waiters[slot] = Some(thread::current());
            slot
        };
        let mut event = libc::epoll_event {
            events: (libc::EPOLLIN | libc::EPOLLRDHUP | libc::EPOLLET) as u32,
            u64: slot as u64,
        };
        // SAFETY: the epoll descriptor is open; `event` outlives the call.
        let added = cvt(unsafe {
            libc::epoll_ctl(
                self.shared.epoll.as_raw_fd(),
                libc::EPOLL_CTL_ADD,
                fd,
                &mut event,
            )
        });
        let registration = Registration {
            shared: Arc::clone(&self.shared),
            slot,
            fd,
            thread: thread::current().id(),
        };
        added.map(|_| registration)
    }
}

impl Drop for ReplyPoller {
    fn drop(&mut self) {
        let one: u64 = 1;
        // SAFETY: writes 8 bytes from a live u64 to the eventfd.
        unsafe { libc::write(self.shared.stop.as_raw_fd(), (&one as *const u64).cast(), 8) };
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Shared {
    fn run(&self) {
        let mut events = [libc::epoll_event { events: 0, u64: 0 }; BATCH];
        loop {
            // SAFETY: `events` has room for BATCH entries.
            let n = unsafe {
                libc::epoll_wait(
                    self.epoll.as_raw_fd(),
                    events.as_mut_ptr(),
                    BATCH as i32,
                    -1,
                )
            };
            let waiters = self.waiters.lock().unwrap_or_else(|e| e.into_inner());
            if n < 0 {
                if io::Error::last_os_error().kind() == io::ErrorKind::Interrupted {
                    continue;
                }
                // Cannot happen with a valid epoll set and buffer; if it does, every
                // waiter learns it rather than sleeping for ever.
                self.failed.store(true, Ordering::SeqCst);
                waiters.iter().flatten().for_each(Thread::unpark);
                return;
            }
            for event in &events[..n as usize] {
                if event.u64 == STOP {
                    return;
                }
                if let Some(Some(thread)) = waiters.get(event.u64 as usize) {
                    thread.unpark();
                }
            }
        }
    }
}

impl Registration {
    /// Blocks until the poller saw new data (or a hang-up) on the socket since the
    /// last wait. May return early (a stale wake-up): the caller reads and, finding
    /// nothing, waits again.
    pub fn wait(&mut self) -> io::Result<()> {
        let me = thread::current();
        if me.id() != self.thread {
            let mut waiters = self
                .shared
                .waiters
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            waiters[self.slot] = Some(me);
            self.thread = thread::current().id();
        }
        if self.shared.failed.load(Ordering::SeqCst) {
            return Err(io::Error::other("the reply poller thread failed"));
        }
        thread::park();
        Ok(())
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        // SAFETY: removing a descriptor from the set; a closed one was removed already.
        unsafe {
            libc::epoll_ctl(
                self.shared.epoll.as_raw_fd(),
                libc::EPOLL_CTL_DEL,
                self.fd,
                std::ptr::null_mut(),
            )
        };
        let mut waiters = self
            .shared
            .waiters
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        waiters[self.slot] = None;
    }
}
