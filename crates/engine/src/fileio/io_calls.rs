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

/// Reads exactly the buffer's length at `offset`; a short read is an error.
pub fn pread_full(fd: i32, buf: &mut AlignedBuf, offset: u64) -> io::Result<()> {
    let len = buf.as_slice().len();
    // SAFETY: buf is valid for len bytes.
    let n = unsafe { libc::pread(fd, buf.as_mut_ptr().cast(), len, offset as libc::off_t) };
    complete(n, len, "read")
}

/// Writes the whole buffer at `offset`; a short write is an error (a full disk, usually).
pub fn pwrite_full(fd: i32, buf: &AlignedBuf, offset: u64) -> io::Result<()> {
    let data = buf.as_slice();
    // SAFETY: data is valid for its length.
    let n = unsafe { libc::pwrite(fd, data.as_ptr().cast(), data.len(), offset as libc::off_t) };
    complete(n, data.len(), "write")
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
