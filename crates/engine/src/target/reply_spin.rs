//! Waiting for a reply by polling the socket for a few tens of microseconds before
//! blocking, while that pays.
//!
//! A client thread that blocks in `read` leaves its CPU idle, and on a VM an idle
//! vCPU halts: the server's reply must then wake it with an inter-processor interrupt,
//! a VM exit charged to the server. Measured on the 2-CPU VM against Redis in a
//! container at one client thread (docs/benchmarks.md): 0.44 IPIs per operation and
//! Redis CPU per operation 11–31 µs when blocking, against 0.001 IPIs and 11–14 µs when
//! polling for up to 40 µs first — go-ycsb's runtime, which spins before it sleeps,
//! gets the same 0.001. Polling costs the client CPU, so it is only used while replies
//! do arrive within the budget: after a window of waits in which fewer than half did,
//! the connection blocks for a long stretch before trying again.

use std::io;
use std::os::fd::RawFd;
use std::time::{Duration, Instant};

/// How long to poll for a reply before blocking.
pub const BUDGET: Duration = Duration::from_micros(40);
/// Waits per judgement of whether polling pays.
const WINDOW: u32 = 16;
/// Waits that block without polling after a window in which polling did not pay.
const PAUSE: u32 = 1024;

/// One connection's polling state.
#[derive(Debug, Default)]
pub struct SpinWait {
    waits: u32,
    hits: u32,
    paused: u32,
}

impl SpinWait {
    /// Reads what has arrived on `fd` into `room`, polling for up to `BUDGET`:
    /// `Some(bytes read)` (0 at end of stream), or `None` when nothing came in time
    /// (or polling is paused), and the caller should block.
    pub fn read(&mut self, fd: RawFd, room: &mut [u8]) -> io::Result<Option<usize>> {
        if self.paused > 0 {
            self.paused -= 1;
            return Ok(None);
        }
        let until = Instant::now() + BUDGET;
        let got = loop {
            // SAFETY: reads at most room.len() bytes into room.
            let n =
                unsafe { libc::recv(fd, room.as_mut_ptr().cast(), room.len(), libc::MSG_DONTWAIT) };
            if n >= 0 {
                break Some(n as usize);
            }
            let err = io::Error::last_os_error();
            match err.kind() {
                io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted => {}
                _ => return Err(err),
            }
            if Instant::now() >= until {
                break None;
            }
            // Lets the server run when it shares this CPU (and anyone else waiting).
            std::thread::yield_now();
        };
        self.judge(got.is_some());
        Ok(got)
    }

    fn judge(&mut self, hit: bool) {
        self.waits += 1;
        self.hits += u32::from(hit);
        if self.waits == WINDOW {
            if self.hits * 2 < WINDOW {
                self.paused = PAUSE;
            }
            (self.waits, self.hits) = (0, 0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn polling_pauses_after_a_window_of_misses_and_resumes() {
        let mut spin = SpinWait::default();
        (0..WINDOW).for_each(|i| spin.judge(i % 3 == 0)); // 6 of 16: less than half
        assert_eq!(spin.paused, PAUSE);
        let mut spin = SpinWait::default();
        (0..WINDOW).for_each(|i| spin.judge(i % 2 == 0)); // 8 of 16: pays
        assert_eq!(spin.paused, 0);
    }

    #[test]
    fn a_paused_wait_blocks_without_reading() {
        let mut spin = SpinWait {
            paused: 2,
            ..SpinWait::default()
        };
        // fd -1 would fail if it were read.
        assert_eq!(spin.read(-1, &mut [0; 8]).unwrap(), None);
        assert_eq!(spin.read(-1, &mut [0; 8]).unwrap(), None);
        assert_eq!(spin.paused, 0);
        assert!(spin.read(-1, &mut [0; 8]).is_err());
    }
}
