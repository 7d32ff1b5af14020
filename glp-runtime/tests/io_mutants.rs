//! Mutation tests of every input format (issue 11, part 10): thousands of deterministic mutants
//! of small valid files (`mutants::mutate`), each loaded by glp and checked for:
//!
//! - no panic (a panic is caught and reported with the mutant);
//! - bounded time: each load within [`SLOW`], each format within [`FORMAT_BUDGET`] (a
//!   watchdog reports the mutant being loaded if not);
//! - no silent acceptance: a mutant glp accepts must be accepted by the strict reference
//!   reader of `mutants::reference` too, with the same vertices and edges (or the same ground
//!   truth or seeds); glp may reject what the reference accepts (counted and reported);
//! - bounded memory: the bytes allocated at the peak of a load (a counting global allocator)
//!   stay below 8 MiB plus 64 bytes per input byte plus 32 bytes per vertex of the result, under
//!   a memory budget of `GLP_MEMORY_LIMIT=64M`.
//!
//! The tests of this binary run one at a time (the allocator counts the whole process). Run
//! with `--nocapture` to see the counts per format.

mod io_support;
mod mutants;

use glp_runtime::community::GroundTruth;
use glp_runtime::graph::{Graph, VertexIds};
use glp_runtime::io::{
    load_graph_from_bytes, load_ldbc_from_bytes, read_ground_truth_from_bytes, read_seeds_from_bytes, write_glpg,
    Format, LoadOptions,
};
use io_support::compress::{bzip2, gzip, xz, zstd};
use io_support::{exact, reseal};
use mutants::mutate::Mutator;
use mutants::reference::{self, runs, Content};
use std::alloc::{GlobalAlloc, Layout, System};
use std::fmt::Debug;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex, Once};
use std::time::{Duration, Instant};

/// A mutant's bytes, shown escaped (`b"0 1\n..."`) in failure messages.
struct Mutant(Vec<u8>);

impl Debug for Mutant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "b\"{}\"", self.0.escape_ascii())
    }
}

impl std::ops::Deref for Mutant {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.0
    }
}

/// Counts the bytes allocated now and at the peak.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(bytes: usize) {
    let now = LIVE.fetch_add(bytes, Ordering::Relaxed) + bytes;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

// SAFETY: every call is forwarded to the system allocator unchanged; only counters are kept.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            if new_size >= layout.size() {
                grew(new_size - layout.size());
            } else {
                LIVE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
            }
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The longest one load may take.
const SLOW: Duration = Duration::from_secs(5);
/// The longest one format's mutants may take together.
const FORMAT_BUDGET: Duration = Duration::from_secs(120);

/// One test at a time (allocation counts are process-wide), under the memory budget.
fn serial() -> std::sync::MutexGuard<'static, ()> {
    static SERIAL: Mutex<()> = Mutex::new(());
    static BUDGET: Once = Once::new();
    let guard = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    // Edition 2021: `set_var` is safe; every test sets the same value before it loads.
    BUDGET.call_once(|| std::env::set_var("GLP_MEMORY_LIMIT", "64M"));
    guard
}

/// How one format's mutants went.
#[derive(Debug, Default)]
struct Tally {
    mutants: usize,
    accepted: usize,
    rejected: usize,
    /// Rejected by glp although the reference accepts them.
    stricter: usize,
    stricter_example: Option<String>,
    peak_bytes: usize,
    slowest: Duration,
    failures: Vec<String>,
}

/// Makes mutant `index`.
type Make<I> = Box<dyn FnMut(&mut Mutator, usize) -> I + Send>;
/// Loads a mutant with glp.
type Load<I, T> = Box<dyn Fn(&I) -> glp_runtime::Result<T> + Send>;
/// Reads a mutant with the reference reader.
type Reference<I, T> = Box<dyn Fn(&I) -> Result<T, String> + Send>;

/// A mutant's input bytes and its result's vertex count, for the memory allowance.
type Size<I, T> = Box<dyn Fn(&I, Option<&T>) -> (usize, usize) + Send>;

/// A format under test: how to make a mutant, load it, read it with the reference, and how
/// many bytes its load may allocate given its result's vertex count.
struct Case<I, T> {
    name: &'static str,
    count: usize,
    make: Make<I>,
    load: Load<I, T>,
    reference: Reference<I, T>,
    size: Size<I, T>,
}

/// Builds the case `make` returns and runs it on a worker thread under a watchdog, asserting
/// every property. The case is built under the serial lock, so that no other test's
/// allocations (compressors, temporary files) count in this one's peaks.
fn run<I: Debug + Send + 'static, T: PartialEq + Debug + Send + 'static>(
    format: u64,
    make: impl FnOnce() -> Case<I, T>,
) {
    let _serial = serial();
    let case = make();
    let name = case.name;
    let resident = ResidentPeak::start();
    let current = Arc::new(Mutex::new(String::new()));
    let (done, finished) = mpsc::channel();
    let shown = Arc::clone(&current);
    std::thread::spawn(move || {
        let tally = mutate_all(format, case, &shown);
        let _ = done.send(tally);
    });
    let tally = match finished.recv_timeout(FORMAT_BUDGET) {
        Ok(tally) => tally,
        Err(_) => panic!("{name}: mutants still loading after {FORMAT_BUDGET:?}; at {}", current.lock().unwrap()),
    };
    // Memory the counting allocator does not see (the C decoders' own allocations) shows in
    // the resident set: its peak may not grow by more than twice the memory budget (a Matrix
    // Market file may declare as many vertices as the budget holds).
    if let Some(grown) = resident.grown() {
        assert!(grown <= 128 << 20, "{name}: the resident set grew by {grown} bytes");
    }
    println!(
        "{name:>6}: {} mutants, {} accepted, {} rejected ({} of them accepted by the reference), peak {} kB, \
         slowest {:?}{}",
        tally.mutants,
        tally.accepted,
        tally.rejected,
        tally.stricter,
        tally.peak_bytes / 1000,
        tally.slowest,
        tally.stricter_example.map(|e| format!("; e.g. {e}")).unwrap_or_default()
    );
    assert!(
        tally.failures.is_empty(),
        "{name}: {} failures, the first:\n{}",
        tally.failures.len(),
        tally.failures[..tally.failures.len().min(5)].join("\n")
    );
    assert!(tally.accepted > 0 && tally.rejected > 0, "{name}: the mutants do not exercise both outcomes");
}

/// The process's peak resident set (`VmHWM`), reset through `/proc/self/clear_refs` (Linux;
/// elsewhere nothing is measured).
struct ResidentPeak {
    baseline: Option<u64>,
}

impl ResidentPeak {
    fn start() -> Self {
        let reset = std::fs::write("/proc/self/clear_refs", "5").is_ok();
        ResidentPeak { baseline: reset.then(Self::read).flatten() }
    }

    fn read() -> Option<u64> {
        let status = std::fs::read_to_string("/proc/self/status").ok()?;
        let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
        line.trim_start_matches("VmHWM:").trim().trim_end_matches("kB").trim().parse::<u64>().ok().map(|k| k * 1024)
    }

    fn grown(&self) -> Option<u64> {
        Some(Self::read()?.saturating_sub(self.baseline?))
    }
}

fn mutate_all<I: Debug, T: PartialEq + Debug>(format: u64, mut case: Case<I, T>, current: &Mutex<String>) -> Tally {
    let mut mutator = Mutator::new(format);
    let mut tally = Tally { mutants: case.count, ..Tally::default() };
    for index in 0..case.count {
        let input = (case.make)(&mut mutator, index);
        *current.lock().unwrap() = format!("mutant {index}: {input:?}");
        let before = LIVE.load(Ordering::Relaxed);
        PEAK.store(before, Ordering::Relaxed);
        let start = Instant::now();
        let result = catch_unwind(AssertUnwindSafe(|| (case.load)(&input)));
        let elapsed = start.elapsed();
        let peak = PEAK.load(Ordering::Relaxed).saturating_sub(before);
        tally.peak_bytes = tally.peak_bytes.max(peak);
        tally.slowest = tally.slowest.max(elapsed);
        if elapsed > SLOW {
            tally.failures.push(format!("mutant {index} took {elapsed:?}: {input:?}"));
        }
        let loaded = match result {
            Err(_) => {
                tally.failures.push(format!("mutant {index} panicked: {input:?}"));
                continue;
            }
            Ok(loaded) => loaded,
        };
        let expected = (case.reference)(&input);
        let (bytes, vertices) = (case.size)(&input, loaded.as_ref().ok());
        let allowance = (8 << 20) + 64 * bytes + 32 * vertices;
        if peak > allowance {
            tally.failures.push(format!("mutant {index} allocated {peak} bytes (allowed {allowance}): {input:?}"));
        }
        match (loaded, expected) {
            (Ok(got), Ok(want)) if got == want => tally.accepted += 1,
            (Ok(got), Ok(want)) => tally
                .failures
                .push(format!("mutant {index} loads differently: {input:?}\n  glp {got:?}\n  reference {want:?}")),
            (Ok(got), Err(why)) => tally.failures.push(format!(
                "mutant {index} accepted, but the reference rejects it ({why}): {input:?}\n  glp {got:?}"
            )),
            (Err(_), Ok(_)) => {
                tally.rejected += 1;
                tally.stricter += 1;
                tally.stricter_example.get_or_insert_with(|| format!("{input:?}"));
            }
            (Err(_), Err(_)) => tally.rejected += 1,
        }
    }
    tally
}

/// A loaded graph's content in original ids.
fn content(graph: &Graph) -> Content {
    let vertices = match &graph.ids {
        VertexIds::Range { first, len } if *len > 0 => vec![(*first, *len as u64)],
        VertexIds::Range { .. } => Vec::new(),
        VertexIds::Table(table) => runs(table.iter().copied()),
    };
    let mut edges = Vec::new();
    for v in 0..graph.num_vertices() as u32 {
        let weights = graph.csr.neighbor_weights(v);
        for (k, &t) in graph.csr.neighbors(v).iter().enumerate() {
            edges.push((graph.ids.original(v), graph.ids.original(t), weights.map(|w| w[k].to_bits())));
        }
    }
    edges.sort_unstable();
    Content { vertices, edges }
}

fn vertex_count(content: &Content) -> usize {
    content.vertices.iter().map(|r| r.1 as usize).sum()
}

fn options(format: Format) -> LoadOptions {
    LoadOptions { format: Some(format), ..exact() }
}

/// A text format: mutants of `seeds`, loaded as `format` and read by `reference`.
fn text_case(
    name: &'static str,
    count: usize,
    seeds: Vec<&'static [u8]>,
    format: Format,
    reference: fn(&[u8]) -> Result<Content, String>,
) -> Case<Mutant, Content> {
    Case {
        name,
        count,
        make: Box::new(move |m, i| Mutant(m.mutant(seeds[i % seeds.len()]))),
        load: Box::new(move |bytes| load_graph_from_bytes("g", bytes, &options(format)).map(|g| content(&g))),
        reference: Box::new(move |bytes: &Mutant| reference(bytes)),
        size: Box::new(|bytes, got| (bytes.len(), got.map_or(0, vertex_count))),
    }
}

const MTX_SEEDS: [&[u8]; 3] = [
    b"%%MatrixMarket matrix coordinate real general\n% a comment\n4 4 5\n1 2 0.5\n2 3 1.5\n3 4 -2\n4 1 3e2\n2 2 1\n",
    b"%%MatrixMarket matrix coordinate pattern symmetric\n5 5 4\n2 1\n3 1\n4 3\n5 5\n",
    b"%%MatrixMarket matrix coordinate integer skew-symmetric\n3 3 2\n2 1 4\n3 2 -7\n",
];

#[test]
fn matrix_market_mutants() {
    run(1, || {
        let mut case = text_case("mtx", 3000, MTX_SEEDS.to_vec(), Format::MatrixMarket, reference::matrix_market);
        // A quarter of the mutants start from odd numbers on the size line.
        case.make = Box::new(|m, i| {
            let seed = MTX_SEEDS[i % MTX_SEEDS.len()];
            match i % 4 {
                0 => Mutant(m.size_line(seed)),
                1 if m.one_in(2) => {
                    let sized = m.size_line(seed);
                    Mutant(m.mutant(&sized))
                }
                _ => Mutant(m.mutant(seed)),
            }
        });
        case
    });
}

const EDGE_SEEDS: [&[u8]; 4] = [
    b"# a graph\n0 1\n1 2\n2 0\n5 7\n",
    b"0 1 0.5\n1 2 2\n2 3 -1.5\n",
    b"0\t1\t{}\n1\t2\t{}\n2\t0\t{}\n",
    b"0 1 {'weight': 3.0}\n1 2 {'weight': 2, 'c': 'r'}\n",
];

#[test]
fn edge_list_mutants() {
    run(2, || {
        text_case("edges", 3000, EDGE_SEEDS.to_vec(), Format::EdgeList, |b| reference::edge_list_graph(b, false))
    });
}

#[test]
fn csv_mutants() {
    let seeds: Vec<&[u8]> =
        vec![b"src,dst,weight\n1,2,0.5\n2,3,1\n", b"id_1,id_2\n0,1\n1,2\n", b"1,2\n2,3\n", b"weight,from,to\n1,5,6\n"];
    run(3, || text_case("csv", 3000, seeds, Format::Csv, |b| reference::edge_list_graph(b, true)));
}

#[test]
fn adjacency_mutants() {
    let seeds: Vec<&[u8]> = vec![b"1 2 3\n2 3\n3\n4 1\n"];
    run(4, || text_case("adj", 3000, seeds, Format::LdbcAdjacency, reference::adjacency));
}

#[test]
fn ldbc_pair_mutants() {
    const V: &[u8] = b"1\n2\n3\n4\n";
    const E: &[u8] = b"1 2 0.5\n2 3 1\n3 1 2\n";
    run(5, || Case {
        name: "ldbc",
        count: 3000,
        make: Box::new(|m, _| match m.one_in(3) {
            true => (Mutant(m.mutant(V)), Mutant(E.to_vec())),
            false => (Mutant(V.to_vec()), Mutant(m.mutant(E))),
        }),
        load: Box::new(|(v, e)| load_ldbc_from_bytes("g", v, e, &exact()).map(|g| content(&g))),
        reference: Box::new(|(v, e)| reference::ldbc_pair(v, e)),
        size: Box::new(|(v, e), got| (v.len() + e.len(), got.map_or(0, vertex_count))),
    });
}

#[test]
fn glpg_mutants() {
    run(6, || {
        let dir = tempfile::tempdir().unwrap();
        let mut seeds = Vec::new();
        for (i, text) in [&b"10 20 0.5\n20 30 1.5\n30 10 2.5\n"[..], b"0 1\n1 2\n2 0\n"].into_iter().enumerate() {
            let graph = load_graph_from_bytes("g", text, &exact()).unwrap();
            let path = dir.path().join(format!("{i}.glpg"));
            write_glpg(&graph, &path).unwrap();
            seeds.push(std::fs::read(&path).unwrap());
        }
        Case {
            name: "glpg",
            count: 3000,
            make: Box::new(move |m, i| {
                let mut bytes = m.binary_mutant(&seeds[i % seeds.len()], 64);
                if !m.one_in(4) {
                    reseal(&mut bytes);
                }
                Mutant(bytes)
            }),
            load: Box::new(|bytes| load_graph_from_bytes("g", bytes, &options(Format::Glpg)).map(|g| content(&g))),
            reference: Box::new(|bytes| reference::glpg(bytes)),
            size: Box::new(|bytes, got| (bytes.len(), got.map_or(0, vertex_count))),
        }
    });
}

/// A compressed edge list: mutants of the compressed bytes, compressed mutants of the text,
/// and concatenated streams.
fn compressed_case(name: &'static str, count: usize, compress: fn(&[u8]) -> Vec<u8>) -> Case<Mutant, Content> {
    let packed: Vec<Vec<u8>> = EDGE_SEEDS.iter().map(|s| compress(s)).collect();
    Case {
        name,
        count,
        make: Box::new(move |m, i| {
            Mutant(match i % 3 {
                0 => m.binary_mutant(&packed[i % packed.len()], 16),
                1 => compress(&m.mutant(EDGE_SEEDS[i % EDGE_SEEDS.len()])),
                _ => {
                    let mut joined = packed[i % packed.len()].clone();
                    joined.extend_from_slice(&m.binary_mutant(&packed[(i + 1) % packed.len()], 16));
                    joined
                }
            })
        }),
        load: Box::new(|bytes| load_graph_from_bytes("g", bytes, &options(Format::EdgeList)).map(|g| content(&g))),
        reference: Box::new(|bytes| reference::edge_list_graph(&reference::decompress(bytes)?, false)),
        size: Box::new(|bytes, got| {
            let plain = reference::decompress(bytes).map_or(bytes.len() * 1100, |p| p.len().max(bytes.len()));
            (plain, got.map_or(0, vertex_count))
        }),
    }
}

#[test]
fn gzip_mutants() {
    run(7, || compressed_case("gzip", 3000, gzip));
}

#[test]
fn zstd_mutants() {
    run(8, || compressed_case("zstd", 3000, zstd));
}

#[test]
fn xz_and_bzip2_mutants() {
    run(9, || compressed_case("xz", 2000, xz));
    run(10, || compressed_case("bzip2", 2000, bzip2));
}

/// The vertex ids the ground-truth and seed mutants are read against.
fn truth_ids() -> VertexIds {
    VertexIds::from_sorted(vec![1, 2, 3, 5, 8, 13])
}

#[test]
fn ground_truth_mutants() {
    let seeds: [(&str, &[u8]); 4] = [
        ("labels.txt", b"1 7\n2 7\n3 9\n5\n13 x\n"),
        ("multi.txt", b"# multi-label\n1 a\n1 b\n2 a\n8 c d\n"),
        ("c.cmty.txt", b"1 2 3\n5 8\n99 13\n"),
        ("t.csv", b"id,target\n1,0\n2,1\n3,0\n"),
    ];
    run(11, || Case {
        name: "truth",
        count: 3000,
        make: Box::new(move |m, i| {
            let (name, bytes) = seeds[i % seeds.len()];
            (name, Mutant(m.mutant(bytes)))
        }),
        load: Box::new(|(name, bytes)| {
            read_ground_truth_from_bytes(name, bytes, &truth_ids()).map(|t| (t.truth, t.unknown_ids))
        }),
        reference: Box::new(|(name, bytes)| reference::ground_truth(name, bytes, &truth_ids())),
        size: Box::new(|(_, bytes), _: Option<&(GroundTruth, u64)>| (bytes.len(), 0)),
    });
}

#[test]
fn seed_mutants() {
    run(12, || Case {
        name: "seeds",
        count: 3000,
        make: Box::new(|m, _| Mutant(m.mutant(b"# seeds\n1 5\n3 5\n8 7\n13 18446744073709551615\n"))),
        load: Box::new(|bytes| read_seeds_from_bytes("s", bytes, &truth_ids()).map(|s| s.labels)),
        reference: Box::new(|bytes| reference::seeds(bytes, &truth_ids())),
        size: Box::new(|bytes, _| (bytes.len(), 0)),
    });
}
