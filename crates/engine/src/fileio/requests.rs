//! Turning a stream's request numbers into requests: which operation, which
//! file, which offset. Request numbers come from a counter shared by the
//! stream's threads, so a stream's sequence (mix, sync cycle, sequential walk,
//! request limit) is the same however many threads share it.

use rand::rngs::SmallRng;
use rand::Rng;

use super::plan::{Pattern, Region, Stream};

/// What one request does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Read,
    Write,
    /// Make the file durable (`fsync`/`fdatasync`/`msync`).
    Sync,
}

/// One request: an operation on a file at an offset (0 for syncs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Request {
    pub op: Op,
    /// Index into `Plan::files`.
    pub file: usize,
    pub offset: u64,
}

/// Maps request numbers of one stream to requests.
#[derive(Debug, Clone)]
pub struct Sequencer {
    regions: Vec<Region>,
    /// Block index where each region starts (prefix sums), plus the total at the end.
    starts: Vec<u64>,
    /// Blocks per region when they are all equal (the common case: a division, no search).
    uniform: Option<u64>,
    block_size: u64,
    total_blocks: u64,
    stream: Stream,
    /// Files synced per sysbench cycle (distinct files of the regions, in order).
    cycle_files: Vec<usize>,
    stride: u64,
}

impl Sequencer {
    /// A sequencer for `stream` with blocks of `block_size` bytes.
    pub fn new(stream: &Stream, block_size: u64) -> Self {
        let mut starts = Vec::with_capacity(stream.regions.len() + 1);
        let mut total = 0;
        for r in &stream.regions {
            starts.push(total);
            total += r.length / block_size;
        }
        starts.push(total);
        let first = stream.regions.first().map(|r| r.length / block_size);
        let uniform =
            first.filter(|b| *b > 0 && stream.regions.iter().all(|r| r.length / block_size == *b));
        let mut cycle_files: Vec<usize> = Vec::new();
        for r in &stream.regions {
            if !cycle_files.contains(&r.file) {
                cycle_files.push(r.file);
            }
        }
        Self {
            regions: stream.regions.clone(),
            starts,
            uniform,
            block_size,
            total_blocks: total,
            stream: stream.clone(),
            cycle_files,
            stride: coprime_stride(total),
        }
    }

    /// Blocks covered by the stream.
    pub fn total_blocks(&self) -> u64 {
        self.total_blocks
    }

    /// Request number `n`, or None when the stream has no more.
    #[inline]
    pub fn request(&self, n: u64, rng: &mut SmallRng) -> Option<Request> {
        if self.stream.requests.is_some_and(|limit| n >= limit) || self.total_blocks == 0 {
            return None;
        }
        let k = match self.stream.fsync.cycle_every {
            0 => n,
            every => {
                let cycle = every + self.cycle_files.len() as u64;
                let position = n % cycle;
                if position >= every {
                    let file = self.cycle_files[(position - every) as usize];
                    return Some(Request {
                        op: Op::Sync,
                        file,
                        offset: 0,
                    });
                }
                n / cycle * every + position
            }
        };
        let op = if self.stream.mix.is_read(k) {
            Op::Read
        } else {
            Op::Write
        };
        let block = self.block_of(k, rng);
        let (file, offset) = self.locate(block);
        Some(Request { op, file, offset })
    }

    /// The block of the k-th read/write request.
    #[inline]
    fn block_of(&self, k: u64, rng: &mut SmallRng) -> u64 {
        match self.stream.pattern {
            Pattern::Sequential => k % self.total_blocks,
            Pattern::Random => rng.random_range(0..self.total_blocks),
            Pattern::Permuted => permuted(k, self.stride, self.total_blocks),
        }
    }

    /// File index and byte offset of a block.
    #[inline]
    pub fn locate(&self, block: u64) -> (usize, u64) {
        let region = match self.uniform {
            Some(per) => (block / per) as usize,
            None => self.starts.partition_point(|s| *s <= block) - 1,
        };
        let r = &self.regions[region];
        let within = block - self.starts[region];
        (r.file, r.offset + within * self.block_size)
    }

    /// The blocks that the first `requests` request numbers wrote (for verification).
    pub fn written_blocks(&self, requests: u64) -> Vec<u64> {
        let mut rng = rand::SeedableRng::seed_from_u64(0);
        let mut seen = vec![false; self.total_blocks as usize];
        let mut out = Vec::new();
        for n in 0..requests {
            let Some(req) = self.request(n, &mut rng) else {
                break;
            };
            if req.op != Op::Write {
                continue;
            }
            // Random writes are not reproducible; verification uses Permuted instead.
            let k = self.rw_index(n);
            let block = match self.stream.pattern {
                Pattern::Sequential => k % self.total_blocks,
                _ => permuted(k, self.stride, self.total_blocks),
            };
            if !std::mem::replace(&mut seen[block as usize], true) {
                out.push(block);
            }
            if out.len() as u64 == self.total_blocks {
                break;
            }
        }
        out.sort_unstable();
        out
    }

    fn rw_index(&self, n: u64) -> u64 {
        match self.stream.fsync.cycle_every {
            0 => n,
            every => {
                let cycle = every + self.cycle_files.len() as u64;
                n / cycle * every + n % cycle
            }
        }
    }
}

/// The k-th block of a pass that visits every block of `total` once: k·stride mod total
/// with a stride coprime to total (a bijection on each pass), scattered by a large stride.
#[inline]
fn permuted(k: u64, stride: u64, total: u64) -> u64 {
    ((k % total) as u128 * stride as u128 % total as u128) as u64
}

fn coprime_stride(total: u64) -> u64 {
    if total <= 2 {
        return 1;
    }
    // Start near the golden ratio of the range (spreads neighbours apart).
    let mut s = (total as f64 * 0.618_033_988_7) as u64 | 1;
    while gcd(s, total) != 1 {
        s += 2;
    }
    s % total
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;

    use super::*;
    use crate::fileio::plan::{FsyncRule, Mix};

    fn stream(pattern: Pattern, read_share: f64, cycle_every: u64) -> Stream {
        Stream {
            name: "t".into(),
            regions: (0..4)
                .map(|file| Region {
                    file,
                    offset: 0,
                    length: 10 * 4096,
                })
                .collect(),
            threads: 1,
            mix: Mix { read_share },
            pattern,
            fsync: FsyncRule {
                cycle_every,
                ..FsyncRule::default()
            },
            requests: Some(1000),
        }
    }

    #[test]
    fn sysbench_cycle_syncs_every_file_after_each_batch() {
        let s = Sequencer::new(&stream(Pattern::Random, 0.6, 100), 4096);
        let mut rng = SmallRng::seed_from_u64(1);
        let ops: Vec<Request> = (0..1000).map_while(|n| s.request(n, &mut rng)).collect();
        assert_eq!(ops.len(), 1000);
        let syncs: Vec<usize> = ops[100..104].iter().map(|r| r.file).collect();
        assert!(ops[100..104].iter().all(|r| r.op == Op::Sync));
        assert_eq!(syncs, vec![0, 1, 2, 3]);
        let rw = ops.iter().filter(|r| r.op != Op::Sync).count() as u64;
        let reads = ops.iter().filter(|r| r.op == Op::Read).count() as u64;
        assert_eq!(rw, 964);
        assert_eq!(reads, (964.0 * 0.6f64).floor() as u64);
        assert!(s.request(1000, &mut rng).is_none());
    }

    #[test]
    fn permuted_pass_visits_every_block_once() {
        let s = Sequencer::new(&stream(Pattern::Permuted, 0.0, 0), 4096);
        let blocks = s.written_blocks(40);
        assert_eq!(blocks, (0..40).collect::<Vec<_>>());
        let mut rng = SmallRng::seed_from_u64(1);
        let mut offsets: Vec<(usize, u64)> = (0..40)
            .map(|n| {
                let r = s.request(n, &mut rng).unwrap();
                (r.file, r.offset)
            })
            .collect();
        offsets.sort_unstable();
        offsets.dedup();
        assert_eq!(offsets.len(), 40);
    }

    #[test]
    fn sequential_walks_regions_in_order() {
        let s = Sequencer::new(&stream(Pattern::Sequential, 0.0, 0), 4096);
        let mut rng = SmallRng::seed_from_u64(1);
        let r = s.request(13, &mut rng).unwrap();
        assert_eq!((r.file, r.offset), (1, 3 * 4096));
        let wrapped = s.request(40, &mut rng).unwrap();
        assert_eq!((wrapped.file, wrapped.offset), (0, 0));
    }
}
