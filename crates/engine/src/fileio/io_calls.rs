//! The blocking I/O calls of the `sync` and `mmap` engines: one request, done
//! when the call returns. (io_uring requests are built in `queued_worker`.)

use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;

use memmap2::MmapRaw;

use super::buffer::AlignedBuf;
use super::plan::SyncCall;
use super::requests::{Op, Request};

/// How blocking requests reach the files.
pub enum BlockingIo<'a> {
    /// `pread`/`pwrite`/`fsync` on the descriptors.
    Sync { files: &'a [File], call: SyncCall },
    /// Copies to and from the mappings; `msync` for syncs.
    Mmap { maps: &'a [MmapRaw] },
}

impl BlockingIo<'_> {
    /// Performs `req` with `buf` (read into it, or write from it).
    #[inline]
    pub fn perform(&self, req: Request, buf: &mut AlignedBuf) -> io::Result<()> {
        match self {
            BlockingIo::Sync { files, call } => {
                let fd = files[req.file].as_raw_fd();
                match req.op {
                    Op::Read => pread_full(fd, buf, req.offset),
                    Op::Write => pwrite_full(fd, buf, req.offset),
                    Op::Sync => sync_fd(fd, *call),
                }
            }
            BlockingIo::Mmap { maps } => {
                let map = &maps[req.file];
                let len = buf.as_slice().len();
                if req.op != Op::Sync && req.offset as usize + len > map.len() {
                    return Err(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        "request beyond the end of the mapping",
                    ));
                }
                match req.op {
                    // SAFETY: the range is inside the mapping (checked above), which lives
                    // as long as `maps`; buf is valid for len bytes and does not overlap it.
                    Op::Read => unsafe {
                        std::ptr::copy_nonoverlapping(
                            map.as_ptr().add(req.offset as usize),
                            buf.as_mut_ptr(),
                            len,
                        );
                    },
                    // SAFETY: as above; a writable mapping (the run writes).
                    Op::Write => unsafe {
                        std::ptr::copy_nonoverlapping(
                            buf.as_mut_ptr().cast_const(),
                            map.as_mut_ptr().add(req.offset as usize),
                            len,
                        );
                    },
                    Op::Sync => map.flush()?,
                }
                Ok(())
            }
        }
    }
}

/// Reads exactly the buffer's length at `offset`; the end of the file first is an error.
pub fn pread_full(fd: i32, buf: &mut AlignedBuf, offset: u64) -> io::Result<()> {
    let len = buf.as_slice().len();
    let mut done = 0;
    while done < len {
        // SAFETY: buf is valid for len bytes and done < len.
        let n = unsafe {
            libc::pread(
                fd,
                buf.as_mut_ptr().add(done).cast(),
                len - done,
                (offset + done as u64) as libc::off_t,
            )
        };
        done += advance(n, "read past the end of the file")?;
    }
    Ok(())
}

/// Writes the whole buffer at `offset`. A short write is continued, so a full
/// disk surfaces as its own error (ENOSPC) rather than as a short count.
pub fn pwrite_full(fd: i32, buf: &AlignedBuf, offset: u64) -> io::Result<()> {
    let data = buf.as_slice();
    let mut done = 0;
    while done < data.len() {
        // SAFETY: data is valid for its length and done < len.
        let n = unsafe {
            libc::pwrite(
                fd,
                data.as_ptr().add(done).cast(),
                data.len() - done,
                (offset + done as u64) as libc::off_t,
            )
        };
        done += advance(n, "write made no progress")?;
    }
    Ok(())
}

/// Bytes moved by one call: -1 is errno (EINTR is retried as 0 bytes), 0 is `stuck`.
fn advance(n: isize, stuck: &str) -> io::Result<usize> {
    if n < 0 {
        let e = io::Error::last_os_error();
        return if e.kind() == io::ErrorKind::Interrupted {
            Ok(0)
        } else {
            Err(e)
        };
    }
    if n == 0 {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            stuck.to_string(),
        ));
    }
    Ok(n as usize)
}

/// `fsync` or `fdatasync`.
pub fn sync_fd(fd: i32, call: SyncCall) -> io::Result<()> {
    // SAFETY: plain syscalls on a descriptor.
    let rc = unsafe {
        match call {
            SyncCall::Fsync => libc::fsync(fd),
            SyncCall::Fdatasync => libc::fdatasync(fd),
        }
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Turns a read/write return value into a result: -1 is errno, fewer bytes is an error.
pub fn complete(n: isize, len: usize, what: &str) -> io::Result<()> {
    if n < 0 {
        return Err(io::Error::last_os_error());
    }
    if n as usize != len {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            format!("short {what}: {n} of {len} bytes"),
        ));
    }
    Ok(())
}
