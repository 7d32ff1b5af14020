//! The `glp` command-line program; see `glp --help`.

fn main() -> std::process::ExitCode {
    glp::cli::main()
}

/// mimalloc, for what the system allocator costs glp: large arrays on transparent huge pages
/// (a sampler's random reads over the graph miss the TLB far less; the CPU probe's arrays get
/// the same pages, so its ceiling is the one the engines can reach), and freed memory kept
/// for the next batch instead of returned and faulted in again. See ARCHITECTURE.md, "Memory".
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
