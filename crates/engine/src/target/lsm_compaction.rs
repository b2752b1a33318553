//! Keeps the `lsm` target's compaction going when fjall's own scheduling stops.
//!
//! fjall 3.1 schedules compaction only after a memtable flush: each flush
//! queues one compaction attempt per worker thread, and an attempt compacts the
//! level that scores highest. Writers are slowed once level 0 holds 20 runs and
//! halted at 30 (they sleep, polling, until level 0 shrinks). Under a sustained
//! load the attempts left after the last flush can all go to deeper levels that
//! outscore level 0 (L1 → L2, …); level 0 then stays at 30 runs, no writer gets
//! through, no memtable fills, nothing flushes, and no attempt is ever queued
//! again. Every thread sleeps at 0 % CPU for good: the load hang of issue 12
//! (400–600 k records of 1 KB with the default settings, about 500 k records of
//! 100 bytes with 64 KiB tables).
//!
//! The assistant supplies the missing attempts. A thread looks at every keyspace
//! of the database every 50 ms and, while level 0 holds at least 20 runs (the
//! point where fjall starts slowing writers) and fjall has neither a flush
//! queued nor a compaction running, makes the attempts itself: the same call
//! fjall's workers make, with the same strategy, until level 0 is below 20 runs
//! or an attempt changes nothing. It never runs while fjall is working, so in a
//! run that does not stall it does nothing.
//!
//! Its attempts keep every version of every key (garbage-collection watermark
//! 0): the watermark that would let them drop overwritten versions is internal
//! to fjall, and keeping them is always safe (fjall's own compactions drop them
//! later).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use fjall::{AbstractTree as _, Database, Keyspace};

/// How often the keyspaces are looked at.
const POLL: Duration = Duration::from_millis(50);
/// Level-0 runs at which fjall 3.1 starts slowing writers (it halts them at 30).
const STALL_RUNS: usize = 20;
/// Keeps every version: nothing an open snapshot or iterator may read is dropped.
const KEEP_ALL_VERSIONS: u64 = 0;

/// The keyspaces the sessions opened, by YCSB table name.
pub(super) type Keyspaces = Arc<Mutex<HashMap<String, Keyspace>>>;

/// The assistant's thread; stopped (and joined) when dropped.
pub(super) struct CompactionAssist {
    stop: Option<Sender<()>>,
    thread: Option<JoinHandle<()>>,
    compactions: Arc<AtomicU64>,
}

impl CompactionAssist {
    /// Starts watching the keyspaces in `keyspaces` of `db`.
    pub(super) fn start(db: Database, keyspaces: Keyspaces) -> std::io::Result<Self> {
        let (stop, stopped) = mpsc::channel();
        let compactions = Arc::new(AtomicU64::new(0));
        let done = Arc::clone(&compactions);
        let thread = std::thread::Builder::new()
            .name("lsm-compaction".into())
            .spawn(move || watch(&db, &keyspaces, &stopped, &done))?;
        Ok(Self {
            stop: Some(stop),
            thread: Some(thread),
            compactions,
        })
    }

    /// The compactions the assistant has made (fjall's own are not counted).
    pub(super) fn compactions(&self) -> u64 {
        self.compactions.load(Ordering::Relaxed)
    }
}

impl Drop for CompactionAssist {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn watch(db: &Database, keyspaces: &Keyspaces, stopped: &Receiver<()>, done: &AtomicU64) {
    loop {
        match stopped.recv_timeout(POLL) {
            Err(RecvTimeoutError::Timeout) => {}
            // The driver is gone (or closing).
            Ok(()) | Err(RecvTimeoutError::Disconnected) => return,
        }
        let open: Vec<(String, Keyspace)> = keyspaces
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .iter()
            .map(|(table, ks)| (table.clone(), ks.clone()))
            .collect();
        for (table, ks) in &open {
            if let Err(e) = assist(db, ks, stopped, done) {
                // fjall's own worker stops (and poisons the database) on such an
                // error too; writers that stall afterwards are reported by the client.
                eprintln!(
                    "contio-engine: lsm: compaction of table '{table}' failed: {e}; \
                     the compaction assistant stops"
                );
                return;
            }
        }
    }
}

/// True while `ks` has the compaction debt that slows writers and fjall does nothing about it.
fn neglected(db: &Database, ks: &Keyspace) -> bool {
    ks.tree.l0_run_count() >= STALL_RUNS
        && db.outstanding_flushes() == 0
        && db.active_compactions() == 0
}

/// Makes compaction attempts on `ks` while fjall neglects it, counting those
/// that changed the tree in `done`.
fn assist(
    db: &Database,
    ks: &Keyspace,
    stopped: &Receiver<()>,
    done: &AtomicU64,
) -> Result<(), fjall::LsmError> {
    while neglected(db, ks) && stopped.try_recv() == Err(mpsc::TryRecvError::Empty) {
        let before = ks.tree.current_version().id();
        ks.tree
            .compact(ks.config.compaction_strategy.clone(), KEEP_ALL_VERSIONS)?;
        if ks.tree.current_version().id() == before {
            // The strategy chose nothing: look again at the next poll.
            break;
        }
        done.fetch_add(1, Ordering::Relaxed);
    }
    Ok(())
}
