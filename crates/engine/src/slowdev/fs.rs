//! The FUSE file system of a slow device: one directory holding one file, the
//! backing file, whose reads and writes wait on the device's caps (`Pacer`).
//!
//! Every open is answered with `FOPEN_DIRECT_IO`, so the kernel sends each read and
//! write here instead of serving it from (or collecting it in) the page cache of the
//! FUSE file: a cap that the cache could hide would not be a slow device. The backing
//! file itself is read and written with O_DIRECT where the request allows it (offset
//! and length multiples of 512 bytes, which a loop device's requests are), so the
//! host's page cache does not hold a second copy either; a request that O_DIRECT
//! refuses goes through the page cache (counted as `buffered_requests`). Where the
//! backing file system has no O_DIRECT at all, every request does, and the ready line
//! says `"direct_io": false`.
//!
//! A request is charged on the caps when it arrives, served at once, and answered
//! when its charge has elapsed: the time the real I/O takes is part of the paced
//! time, not added to it.

use std::cell::RefCell;
use std::ffi::{OsStr, OsString};
use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::{FileExt, MetadataExt, OpenOptionsExt};
use std::os::unix::io::AsRawFd;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use fuser::{
    Errno, FileAttr, FileHandle, FileType, Filesystem, FopenFlags, Generation, INodeNo, InitFlags,
    KernelConfig, LockOwner, OpenFlags, ReplyAttr, ReplyData, ReplyDirectory, ReplyEmpty,
    ReplyEntry, ReplyOpen, ReplyWrite, Request, TimeOrNow, WriteFlags,
};
use memmap2::MmapMut;

use super::pacer::{Direction, Pacer};

/// The one file's inode (the root directory is `INodeNo::ROOT`, 1).
const FILE_INO: INodeNo = INodeNo(2);
/// How long the kernel may keep names and attributes: nothing here changes them but
/// the size, which a loop device never changes.
const TTL: Duration = Duration::from_secs(1);
/// The alignment O_DIRECT is tried at: the smallest logical block size of a disk.
const DIRECT_ALIGN: u64 = 512;
/// The largest request asked of the kernel (1 MiB, its default `max_pages` limit).
const MAX_REQUEST: u32 = 1 << 20;

/// Counters of what was served, for the summary at exit.
#[derive(Debug, Default)]
pub struct Counters {
    pub read_requests: AtomicU64,
    pub read_bytes: AtomicU64,
    pub write_requests: AtomicU64,
    pub write_bytes: AtomicU64,
    /// Requests that went through the page cache (O_DIRECT refused them).
    pub buffered_requests: AtomicU64,
    /// Total time requests were held back by the caps, in nanoseconds.
    pub paced_nanos: AtomicU64,
}

impl Counters {
    /// The counters as a JSON object.
    pub fn to_json(&self) -> serde_json::Value {
        let get = |c: &AtomicU64| c.load(Ordering::Relaxed);
        serde_json::json!({
            "read_requests": get(&self.read_requests),
            "read_bytes": get(&self.read_bytes),
            "write_requests": get(&self.write_requests),
            "write_bytes": get(&self.write_bytes),
            "buffered_requests": get(&self.buffered_requests),
            "paced_seconds": get(&self.paced_nanos) as f64 / 1e9,
        })
    }
}

/// The backing file, opened twice: with O_DIRECT (when its file system allows) and
/// through the page cache (for requests O_DIRECT refuses).
#[derive(Debug)]
pub struct Backing {
    direct: Option<File>,
    buffered: File,
    name: OsString,
}

impl Backing {
    /// Opens `path` for reading and writing.
    pub fn open(path: &Path) -> io::Result<Backing> {
        let name = path
            .file_name()
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "not a file name"))?
            .to_os_string();
        let buffered = OpenOptions::new().read(true).write(true).open(path)?;
        if !buffered.metadata()?.is_file() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "not a regular file",
            ));
        }
        let direct = OpenOptions::new()
            .read(true)
            .write(true)
            .custom_flags(libc::O_DIRECT)
            .open(path)
            .ok();
        Ok(Backing {
            direct,
            buffered,
            name,
        })
    }

    /// Whether requests can bypass the page cache.
    pub fn direct_io(&self) -> bool {
        self.direct.is_some()
    }

    /// The name the file has in the mount (the backing file's).
    pub fn name(&self) -> &OsStr {
        &self.name
    }

    /// The O_DIRECT file for a request at `offset` of `len` bytes, if it is aligned.
    fn direct_for(&self, offset: u64, len: usize) -> Option<&File> {
        let aligned =
            offset.is_multiple_of(DIRECT_ALIGN) && (len as u64).is_multiple_of(DIRECT_ALIGN);
        self.direct.as_ref().filter(|_| aligned)
    }
}

/// A page-aligned buffer (an anonymous mapping), as O_DIRECT needs, grown on demand.
struct AlignedBuffer(Option<MmapMut>);

impl AlignedBuffer {
    fn get(&mut self, len: usize) -> io::Result<&mut [u8]> {
        if self.0.as_ref().is_none_or(|m| m.len() < len) {
            self.0 = Some(MmapMut::map_anon(len.max(MAX_REQUEST as usize))?);
        }
        let map = self.0.as_mut().expect("just mapped");
        Ok(&mut map[..len])
    }
}

thread_local! {
    /// Each serving thread's buffer: requests are served whole by one thread.
    static BUFFER: RefCell<AlignedBuffer> = const { RefCell::new(AlignedBuffer(None)) };
}

/// Reads until `buf` is full or the file ends; returns the bytes read.
fn read_full(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    let mut done = 0;
    while done < buf.len() {
        match file.read_at(&mut buf[done..], offset + done as u64) {
            Ok(0) => break,
            Ok(n) => done += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(done)
}

/// Waits until `deadline` (the request's paced completion).
fn sleep_until(deadline: Instant) -> Duration {
    let now = Instant::now();
    if deadline > now {
        std::thread::sleep(deadline - now);
        deadline - now
    } else {
        Duration::ZERO
    }
}

/// The slow device's file system.
#[derive(Debug)]
pub struct SlowFs {
    backing: Backing,
    pacer: Pacer,
    counters: Arc<Counters>,
    /// Owner and time of the directory: the backing file's owner, the mount's start.
    uid: u32,
    gid: u32,
    started: SystemTime,
}

impl SlowFs {
    /// A file system serving `backing` at the pace of `pacer`.
    pub fn new(backing: Backing, pacer: Pacer, counters: Arc<Counters>) -> SlowFs {
        let (uid, gid) = backing
            .buffered
            .metadata()
            .map(|m| (m.uid(), m.gid()))
            .unwrap_or((0, 0));
        SlowFs {
            backing,
            pacer,
            counters,
            uid,
            gid,
            started: SystemTime::now(),
        }
    }

    fn directory_attr(&self) -> FileAttr {
        FileAttr {
            ino: INodeNo::ROOT,
            size: 0,
            blocks: 0,
            atime: self.started,
            mtime: self.started,
            ctime: self.started,
            crtime: self.started,
            kind: FileType::Directory,
            perm: 0o755,
            nlink: 2,
            uid: self.uid,
            gid: self.gid,
            rdev: 0,
            flags: 0,
            blksize: 4096,
        }
    }

    fn file_attr(&self) -> io::Result<FileAttr> {
        let meta = self.backing.buffered.metadata()?;
        let time = |secs: i64, nanos: i64| {
            UNIX_EPOCH + Duration::new(secs.max(0) as u64, nanos.clamp(0, 999_999_999) as u32)
        };
        Ok(FileAttr {
            ino: FILE_INO,
            size: meta.size(),
            blocks: meta.blocks(),
            atime: time(meta.atime(), meta.atime_nsec()),
            mtime: time(meta.mtime(), meta.mtime_nsec()),
            ctime: time(meta.ctime(), meta.ctime_nsec()),
            crtime: time(meta.ctime(), meta.ctime_nsec()),
            kind: FileType::RegularFile,
            perm: (meta.mode() & 0o7777) as u16,
            nlink: 1,
            uid: meta.uid(),
            gid: meta.gid(),
            rdev: 0,
            flags: 0,
            blksize: 4096,
        })
    }

    fn paced(&self, deadline: Instant) {
        let waited = sleep_until(deadline);
        self.counters
            .paced_nanos
            .fetch_add(waited.as_nanos() as u64, Ordering::Relaxed);
    }

    fn read_into(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        if let Some(direct) = self.backing.direct_for(offset, buf.len()) {
            match read_full(direct, buf, offset) {
                Err(e) if e.raw_os_error() == Some(libc::EINVAL) => {}
                other => return other,
            }
        }
        self.counters
            .buffered_requests
            .fetch_add(1, Ordering::Relaxed);
        read_full(&self.backing.buffered, buf, offset)
    }

    fn write_from(&self, data: &[u8], offset: u64) -> io::Result<()> {
        if let Some(direct) = self.backing.direct_for(offset, data.len()) {
            let written = BUFFER.with(|cell| -> io::Result<()> {
                let mut buffer = cell.borrow_mut();
                let aligned = buffer.get(data.len())?;
                aligned.copy_from_slice(data);
                direct.write_all_at(aligned, offset)
            });
            match written {
                Err(e) if e.raw_os_error() == Some(libc::EINVAL) => {}
                other => return other,
            }
        }
        self.counters
            .buffered_requests
            .fetch_add(1, Ordering::Relaxed);
        self.backing.buffered.write_all_at(data, offset)
    }
}

impl Filesystem for SlowFs {
    fn init(&mut self, _req: &Request, config: &mut KernelConfig) -> io::Result<()> {
        // Requests of up to 1 MiB (a loop device's are at most its max_sectors_kb).
        let _ = config.set_max_write(MAX_REQUEST);
        // A loop device with direct I/O submits asynchronous direct requests: let
        // several be in flight, so requests of different readers queue on the caps
        // (in order of arrival) rather than in the kernel one at a time.
        let _ = config.add_capabilities(InitFlags::FUSE_ASYNC_DIO);
        let _ = config.set_max_background(64);
        Ok(())
    }

    fn lookup(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEntry) {
        if parent != INodeNo::ROOT || name != self.backing.name() {
            return reply.error(Errno::ENOENT);
        }
        match self.file_attr() {
            Ok(attr) => reply.entry(&TTL, &attr, Generation(0)),
            Err(e) => reply.error(e.into()),
        }
    }

    fn getattr(&self, _req: &Request, ino: INodeNo, _fh: Option<FileHandle>, reply: ReplyAttr) {
        if ino == INodeNo::ROOT {
            return reply.attr(&TTL, &self.directory_attr());
        }
        if ino != FILE_INO {
            return reply.error(Errno::ENOENT);
        }
        match self.file_attr() {
            Ok(attr) => reply.attr(&TTL, &attr),
            Err(e) => reply.error(e.into()),
        }
    }

    fn setattr(
        &self,
        _req: &Request,
        ino: INodeNo,
        _mode: Option<u32>,
        _uid: Option<u32>,
        _gid: Option<u32>,
        size: Option<u64>,
        _atime: Option<TimeOrNow>,
        _mtime: Option<TimeOrNow>,
        _ctime: Option<SystemTime>,
        _fh: Option<FileHandle>,
        _crtime: Option<SystemTime>,
        _chgtime: Option<SystemTime>,
        _bkuptime: Option<SystemTime>,
        _flags: Option<fuser::BsdFileFlags>,
        reply: ReplyAttr,
    ) {
        // The device's size is fixed; owner, mode and times are the backing file's
        // and are left as they are (a `touch` succeeds, changing nothing).
        if ino != FILE_INO {
            return reply.error(Errno::EPERM);
        }
        match self.file_attr() {
            Ok(attr) if size.is_none_or(|s| s == attr.size) => reply.attr(&TTL, &attr),
            Ok(_) => reply.error(Errno::EPERM),
            Err(e) => reply.error(e.into()),
        }
    }

    fn open(&self, _req: &Request, ino: INodeNo, _flags: OpenFlags, reply: ReplyOpen) {
        if ino != FILE_INO {
            return reply.error(Errno::EISDIR);
        }
        // Direct I/O (see the module documentation); parallel direct writes, so the
        // kernel does not serialise writes to the file before they reach the caps.
        reply.opened(
            FileHandle(0),
            FopenFlags::FOPEN_DIRECT_IO | FopenFlags::FOPEN_PARALLEL_DIRECT_WRITES,
        );
    }

    fn read(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        size: u32,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        reply: ReplyData,
    ) {
        let deadline = self
            .pacer
            .reserve(Direction::Read, u64::from(size), Instant::now());
        BUFFER.with(|cell| {
            let mut buffer = cell.borrow_mut();
            let result = buffer
                .get(size as usize)
                .and_then(|buf| self.read_into(buf, offset));
            self.paced(deadline);
            match result {
                Ok(n) => {
                    self.counters.read_requests.fetch_add(1, Ordering::Relaxed);
                    self.counters
                        .read_bytes
                        .fetch_add(n as u64, Ordering::Relaxed);
                    // `get` just returned this many bytes of the mapping.
                    reply.data(&buffer.0.as_ref().expect("mapped")[..n]);
                }
                Err(e) => reply.error(e.into()),
            }
        });
    }

    fn write(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        data: &[u8],
        _write_flags: WriteFlags,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        reply: ReplyWrite,
    ) {
        let deadline = self
            .pacer
            .reserve(Direction::Write, data.len() as u64, Instant::now());
        let result = self.write_from(data, offset);
        self.paced(deadline);
        match result {
            Ok(()) => {
                self.counters.write_requests.fetch_add(1, Ordering::Relaxed);
                self.counters
                    .write_bytes
                    .fetch_add(data.len() as u64, Ordering::Relaxed);
                reply.written(data.len() as u32);
            }
            Err(e) => reply.error(e.into()),
        }
    }

    fn flush(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _fh: FileHandle,
        _lock_owner: LockOwner,
        reply: ReplyEmpty,
    ) {
        reply.ok();
    }

    fn fsync(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _fh: FileHandle,
        datasync: bool,
        reply: ReplyEmpty,
    ) {
        // A loop device's flushes (file system journals, fsync) end here: make what
        // was written through the page cache durable too, as a disk's cache flush.
        let file = &self.backing.buffered;
        let result = if datasync {
            file.sync_data()
        } else {
            file.sync_all()
        };
        match result {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(e.into()),
        }
    }

    fn fallocate(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        length: u64,
        mode: i32,
        reply: ReplyEmpty,
    ) {
        // A loop device's discards and write-zeroes (mkfs discards the whole device)
        // become hole punches in the backing file, as on a plain loop device; they move
        // no data, so the caps do not apply.
        let (Ok(offset), Ok(length)) = (i64::try_from(offset), i64::try_from(length)) else {
            return reply.error(Errno::EINVAL);
        };
        // SAFETY: fallocate takes a file descriptor this struct owns and plain integers.
        let done =
            unsafe { libc::fallocate(self.backing.buffered.as_raw_fd(), mode, offset, length) };
        if done == 0 {
            reply.ok()
        } else {
            reply.error(io::Error::last_os_error().into())
        }
    }

    fn readdir(
        &self,
        _req: &Request,
        ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        mut reply: ReplyDirectory,
    ) {
        if ino != INodeNo::ROOT {
            return reply.error(Errno::ENOTDIR);
        }
        let entries = [
            (INodeNo::ROOT, FileType::Directory, OsStr::new(".")),
            (INodeNo::ROOT, FileType::Directory, OsStr::new("..")),
            (FILE_INO, FileType::RegularFile, self.backing.name()),
        ];
        for (index, (ino, kind, name)) in entries.iter().enumerate().skip(offset as usize) {
            if reply.add(*ino, index as u64 + 1, *kind, name) {
                break;
            }
        }
        reply.ok();
    }
}
