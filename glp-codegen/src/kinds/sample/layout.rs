//! The sample view's CUDA header with what the host and the device share generated from
//! Rust, so nothing is written twice: the constants from [`SAMPLE_KIND`]'s table (`NONE`,
//! `NONE_ENTRY`, `ALL_NEIGHBOURS`, ... become `GLP_SAMPLE_NONE`, ...), the loop fault base
//! from [`crate::loops`], and the view struct ([`SampleViewArgs`], with
//! [`c_struct!`](crate::c_struct)), which glp-runtime fills.

use super::spec::SAMPLE_KIND;
use crate::ir::Scalar;
use crate::template::Template;

crate::c_struct! {
    /// The view of one sample at one step on the GPU, passed by value to every kernel that
    /// runs hooks. Read-only but for the random stream, which the kernel owns (one per thread,
    /// restarted for every draw lane). Device pointers are addresses, 0 for null.
    pub struct SampleViewArgs => "glp_sample_view" {
        /// CSR offsets, num_vertices + 1
        offsets: u64 => "const glp_u64*",
        /// CSR targets, each row sorted
        targets: u64 => "const glp_u32*",
        /// null: unweighted
        edge_weights: u64 => "const float*",
        /// inclusive prefix sums of each row's weights (null: unweighted)
        weight_prefix: u64 => "const double*",
        /// per vertex, the largest weight of its edges (null: unweighted)
        max_weights: u64 => "const float*",
        /// the sample's roots, as given
        roots: u64 => "const glp_u32*",
        /// the same, sorted
        sorted_roots: u64 => "const glp_u32*",
        /// the transits of steps 0..=step, one list after the other
        history: u64 => "const glp_u32*",
        /// history_levels + 1 entries: where each step's transits start, then the end
        history_starts: u64 => "const glp_u64*",
        /// collective samplers: the combined neighbourhood's vertices
        combined: u64 => "const glp_u32*",
        /// the position (in this step's transits) of each entry's transit
        combined_sources: u64 => "const glp_u32*",
        /// inclusive prefix sums of the entries' weights
        combined_prefix: u64 => "const double*",
        /// the entries' vertices in ascending order (null: not built)
        combined_sorted: u64 => "const glp_u32*",
        /// the draw lane's random stream (set by the kernel)
        stream: u64 => "glp_sample_stream*",
        /// [code, id] of the first loop that ran past its budget (null: unchecked)
        fault: u64 => "glp_u64*",
        /// walks (one transit per level): level l's vertex is history[l * walk_stride] and
        /// history_starts is unused; 0: the levels are laid out by history_starts
        walk_stride: u64 => "glp_u64",
        /// walks: rows kept of the history (level l at row l & walk_mask: a ring of the last
        /// rows when the engine keeps no more; all ones: every row)
        walk_mask: u64 => "glp_u64",
        combined_len: u64 => "glp_u64",
        /// loop iterations one hook call may run in all (glp-codegen's `loops`)
        loop_budget: u64 => "glp_u64",
        /// a copy of cached_vertex's row in shared memory, read instead of the CSR's (null:
        /// none; set by the transit-parallel engine)
        cached_row: u64 => "const glp_u32*",
        /// per edge (CSR order): its target, the target's degree and offset (two words), so
        /// that a walk step reads its next row's metadata with the edge (null: none; set by
        /// the walk engine, which then fills known_*)
        packed_edges: u64 => "const uint4*",
        /// the same in one word per edge: target | offset << packed_target_bits | degree <<
        /// (packed_target_bits + packed_offset_bits), for graphs whose three fit 64 bits
        /// (null: none; set by the walk engine instead of packed_edges)
        packed_narrow: u64 => "const glp_u64*",
        /// known_vertex's offset
        known_offset: u64 => "glp_u64",
        /// prior_vertex's offset
        prior_offset: u64 => "glp_u64",
        /// a graph whose edges stay in host memory: per partition of 2^partition_shift edges
        /// (CSR order), the address of the partition's first edge, each row whole from there: a
        /// device buffer, or the host memory through its mapping with bit 0 set (null: targets
        /// holds every edge in device memory)
        partitions: u64 => "const glp_u64*",
        /// log2 of the edges per partition
        partition_shift: u64 => "glp_u64",
        num_vertices: u32 => "glp_u32",
        root_count: u32 => "glp_u32",
        /// step + 1
        history_levels: u32 => "glp_u32",
        step: u32 => "glp_u32",
        cached_vertex: u32 => "glp_u32",
        /// the cached row's length (cached rows are short: shared memory)
        cached_degree: u32 => "glp_u32",
        /// 1: every edge has its reverse, so a membership test may search the shorter row
        symmetric: u32 => "glp_u32",
        /// 1: a walk kernel over the CSR keeps known_vertex's and prior_vertex's rows in
        /// registers (the resumed one-walker kernel), as the packed walk kernels keep theirs
        known_rows: u32 => "glp_u32",
        /// the vertex whose row (offset and degree) the walk kernels know, their transit (read
        /// only when packed_edges, packed_narrow or known_rows is set)
        known_vertex: u32 => "glp_u32",
        known_degree: u32 => "glp_u32",
        /// a second known row, the one-walker walk kernels': the vertex before their transit
        /// (NONE: none)
        prior_vertex: u32 => "glp_u32",
        prior_degree: u32 => "glp_u32",
        /// the bits of a target and of an offset in packed_narrow's words
        packed_target_bits: u32 => "glp_u32",
        packed_offset_bits: u32 => "glp_u32",
    }
}

/// The fault code (`SampleViewArgs::fault`) of a hook that read its walk further back than the
/// engine keeps (a ring of the last rows: `walk_mask`); codes from
/// [`LOOP_SITE_FAULT`](crate::loops::LOOP_SITE_FAULT) on name loop sites.
pub const HISTORY_FAULT: u64 = 1;

/// Rows of at most this many edges are searched in place by a membership test
/// (`contains(v, u)`, the CPU's `SampleGraph::contains` and the GPU's `glp_sample_contains`),
/// whatever `u`'s degree; only a longer row is traded, on a symmetric graph, for `u`'s when
/// that one is shorter. Either row gives the same answer; the choice is about what a test
/// reads. node2vec tests a candidate `u` against the vertex it came from: that row was read
/// the step before and is near (in a core's L1 or L2), while reading `u`'s degree is a miss of
/// its own before the search's. On com-DBLP (2 threads of an Intel Xeon, alternated runs) the
/// CPU's node2vec went from 7.8-9.5 to 9.8-11.5 M steps/s. 64 edges are four lines of `u32`,
/// six probes.
pub const SHORT_ROW: u64 = 64;

/// The view header's `CONSTANTS` slot: one `#define GLP_SAMPLE_<NAME>` per constant of the
/// kind, then the fault codes (their own lines: no final newline).
pub fn view_constants_cuda() -> String {
    let mut lines: Vec<String> = SAMPLE_KIND
        .constants
        .iter()
        .map(|c| {
            let suffix = if c.ty == Scalar::U64 { "ull" } else { "u" };
            format!("#define GLP_SAMPLE_{} 0x{:X}{suffix} // {}", c.name, c.value, c.doc)
        })
        .collect();
    lines.push(format!(
        "#define GLP_SAMPLE_HISTORY_FAULT {HISTORY_FAULT}ull // fault code: a hook read its walk further back than the engine keeps"
    ));
    lines.push(format!(
        "#define GLP_SAMPLE_SHORT_ROW {SHORT_ROW}ull // rows a membership test searches in place whatever the other row"
    ));
    lines.push(format!(
        "#define GLP_SAMPLE_LOOP_SITE {}ull // fault codes from here on name loop sites",
        crate::loops::LOOP_SITE_FAULT
    ));
    lines.join("\n")
}

/// Which of the view's optional arrays a module reads: a module compiled for a graph's view
/// reads only the arrays that view sets, so that the kernels do not test at run time, at every
/// edge they read, for weights and a partition table the graph does not have. The host derives
/// them from the very view it passes ([`ViewTraits::of`]); [`ViewTraits::ANY`] reads every
/// array the view sets (modules that serve any view: the reference kernels, the compile
/// tests).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ViewTraits {
    /// The weight arrays (edge_weights, weight_prefix, max_weights) may be set; when not, a
    /// hook reads unit weights.
    pub weighted: bool,
    /// The partition table may be set (edges in host memory); when not, every edge is read
    /// from `targets`.
    pub host_edges: bool,
}

impl ViewTraits {
    /// Every optional array read where the view sets it.
    pub const ANY: ViewTraits = ViewTraits { weighted: true, host_edges: true };

    /// The traits of a module for `view`: exactly the optional arrays it sets.
    pub fn of(view: &SampleViewArgs) -> ViewTraits {
        ViewTraits {
            weighted: view.edge_weights != 0 || view.weight_prefix != 0 || view.max_weights != 0,
            host_edges: view.partitions != 0,
        }
    }

    /// The view header's `TRAITS` slot.
    fn cuda(self) -> String {
        format!(
            "#define GLP_SAMPLE_WEIGHTED {}\n#define GLP_SAMPLE_HOST_EDGES {}",
            u8::from(self.weighted),
            u8::from(self.host_edges)
        )
    }
}

/// The view header as written, with its slots.
const VIEW_TEMPLATE: Template = Template::new("kinds/sample/view.cuh", include_str!("view.cuh"));

/// The sample view and its intrinsics in CUDA for a module with `traits`, its constants
/// filled in.
pub fn view_cuda(traits: ViewTraits) -> String {
    VIEW_TEMPLATE
        .fill(&[
            ("CONSTANTS", &view_constants_cuda()),
            ("VIEW_STRUCT", &SampleViewArgs::c_definition()),
            ("TRAITS", &traits.cuda()),
        ])
        .unwrap_or_else(|e| panic!("the sample view header's slots are the layout's: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_constant_and_intrinsic_of_the_kind_is_in_the_header() {
        let view = view_cuda(ViewTraits::ANY);
        assert!(view.contains("#define GLP_SAMPLE_NONE 0xFFFFFFFFu "));
        assert!(view.contains("#define GLP_SAMPLE_NONE_ENTRY 0xFFFFFFFFFFFFFFFFull "));
        assert!(view.contains("#define GLP_SAMPLE_COLLECTIVE 0x1u "));
        assert!(view.contains(&format!("#define GLP_SAMPLE_LOOP_SITE {}ull", crate::loops::LOOP_SITE_FAULT)));
        assert!(view.contains(&format!("#define GLP_SAMPLE_HISTORY_FAULT {HISTORY_FAULT}ull")));
        assert!(view.contains(&format!("#define GLP_SAMPLE_SHORT_ROW {SHORT_ROW}ull")));
        assert!(crate::loops::decode_loop_fault(HISTORY_FAULT, 0).is_none(), "a loop site's code");
        for method in SAMPLE_KIND.intrinsics {
            let name = format!(" glp_sample_{}(const glp_sample_view& view", method.name);
            assert!(view.contains(&name), "the header lacks `{name}`");
        }
        assert!(view.contains("glp_sample_loop_budget(const glp_sample_view& view)"));
        assert!(view.contains("glp_sample_loop_fault(const glp_sample_view& view"));
        assert!(!view.contains("/*{{"));
        assert!(view.contains(&format!("\n{}\n", SampleViewArgs::c_definition())));
        assert_eq!(std::mem::size_of::<SampleViewArgs>(), 27 * 8 + 12 * 4);
    }

    #[test]
    fn a_module_reads_the_optional_arrays_its_view_sets() {
        let bare = SampleViewArgs::default();
        assert_eq!(ViewTraits::of(&bare), ViewTraits { weighted: false, host_edges: false });
        for weighted in [
            SampleViewArgs { edge_weights: 8, ..bare },
            SampleViewArgs { weight_prefix: 8, ..bare },
            SampleViewArgs { max_weights: 8, ..bare },
        ] {
            assert_eq!(ViewTraits::of(&weighted), ViewTraits { weighted: true, host_edges: false });
        }
        let host = SampleViewArgs { partitions: 8, ..bare };
        assert_eq!(ViewTraits::of(&host), ViewTraits { weighted: false, host_edges: true });
        let header = view_cuda(ViewTraits { weighted: false, host_edges: true });
        assert!(header.contains("\n#define GLP_SAMPLE_WEIGHTED 0\n#define GLP_SAMPLE_HOST_EDGES 1\n"));
        assert!(
            view_cuda(ViewTraits::ANY).contains("\n#define GLP_SAMPLE_WEIGHTED 1\n#define GLP_SAMPLE_HOST_EDGES 1\n")
        );
    }
}
