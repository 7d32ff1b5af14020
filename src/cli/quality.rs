//! How quality scores are presented: the ground truth's coverage, with a warning when it is
//! too low for its scores to describe the graph, and what NMI and overlapping NMI measure when
//! they disagree. The scores themselves are the runtime's ([`QualityReport`]).

use super::console;
use glp_runtime::community::{GroundTruth, UNLABELLED};
use glp_runtime::metrics::QualityReport;
use serde::Serialize;
use std::fmt::Write as _;

/// Below this fraction of the graph's vertices, a ground truth gets a warning: NMI, ARI and
/// overlapping NMI then compare a small part of the graph (a truth of 1 vertex of 1005 gives
/// NMI 1).
pub const LOW_COVERAGE: f64 = 0.5;

/// NMI and overlapping NMI further apart than this get a line each saying what they measure
/// (LFR 100k, mu 0.3: NMI 0.62 against overlapping NMI 0.004).
pub const WIDE_DISAGREEMENT: f64 = 0.25;

/// What NMI measures, for the summary when it disagrees widely with overlapping NMI.
const NMI_MEANING: [&str; 2] = [
    "NMI compares vertex by vertex, each with its one true community: it stays",
    "high when true communities are split into a few found ones",
];

/// What overlapping NMI measures, for the summary when it is shown alone or disagrees widely
/// with NMI.
const OVERLAPPING_NMI_MEANING: [&str; 3] = [
    "overlap NMI matches whole communities with their best counterparts: found",
    "communities that are fragments of true ones, or true communities that",
    "overlap (one label per vertex cannot), pull it toward 0",
];

/// A community holding more than this fraction of the vertices (of a graph of at least
/// [`COLLAPSE_MIN_VERTICES`]) is label propagation's collapse, and the summary says so.
pub const COLLAPSE_FRACTION: f64 = 0.5;

/// Graphs smaller than this are not said to collapse (a 30-vertex graph may be one community).
pub const COLLAPSE_MIN_VERTICES: u64 = 100;

/// What the collapse is and what avoids it, after the line that says how large the
/// community is.
const COLLAPSE_MEANING: [&str; 3] = [
    "label propagation collapses on graphs with a dense core: a few hubs pass their",
    "label to most vertices (networkx and NetworKit do the same); --variant capped",
    "(hubs do not vote) or llp (large labels are penalised) avoid it (see the README)",
];

/// The summary's note when one community holds more than [`COLLAPSE_FRACTION`] of the
/// graph's vertices (none otherwise). Lines start with a 13-column label.
pub fn collapse_lines(quality: &QualityReport) -> String {
    let (largest, vertices) = (quality.communities.max, quality.vertices as u64);
    let mut s = String::new();
    if vertices < COLLAPSE_MIN_VERTICES || (largest as f64) <= COLLAPSE_FRACTION * vertices as f64 {
        return s;
    }
    let share = 100.0 * largest as f64 / vertices as f64;
    let _ = writeln!(s, "note         one community holds {largest} of {vertices} vertices ({share:.0}%):");
    for line in COLLAPSE_MEANING {
        let _ = writeln!(s, "             {line}");
    }
    s
}

/// How much of the graph a ground truth labels.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct TruthCoverage {
    /// Vertices of the graph the truth puts in at least one community.
    pub covered_vertices: u64,
    /// Vertices of the graph.
    pub vertices: u64,
    /// `covered_vertices / vertices` (0 for an empty graph).
    pub fraction: f64,
}

impl TruthCoverage {
    /// The coverage of `truth` over a graph of `vertices` vertices (dense ids; cover members
    /// outside the graph are not counted).
    pub fn of(truth: &GroundTruth, vertices: usize) -> Self {
        let covered = match truth {
            GroundTruth::Partition(labels) => labels.iter().filter(|&&l| l != UNLABELLED).count(),
            GroundTruth::Cover(cover) => {
                let mut seen = vec![false; vertices];
                for &v in cover.communities.iter().flatten() {
                    if let Some(slot) = seen.get_mut(v as usize) {
                        *slot = true;
                    }
                }
                seen.iter().filter(|&&s| s).count()
            }
        };
        let fraction = if vertices == 0 { 0.0 } else { covered as f64 / vertices as f64 };
        TruthCoverage { covered_vertices: covered as u64, vertices: vertices as u64, fraction }
    }

    /// Whether the truth covers less than [`LOW_COVERAGE`] of the graph.
    pub fn is_low(&self) -> bool {
        self.fraction < LOW_COVERAGE
    }

    /// `X of N vertices (P%)`.
    pub fn describe(&self) -> String {
        format!("{} of {} vertices ({:.1}%)", self.covered_vertices, self.vertices, 100.0 * self.fraction)
    }

    /// Prints the low-coverage warning when it applies.
    pub fn warn_if_low(&self) {
        if self.is_low() {
            console::warning(format_args!(
                "the ground truth labels only {}: NMI, ARI and overlapping NMI compare those vertices only \
                 and say little about the rest of the graph",
                self.describe()
            ));
        }
    }
}

/// The summary lines of the agreement with a ground truth (none without one): the truth's
/// coverage, NMI and ARI, overlapping NMI, and what NMI and overlapping NMI measure when only
/// the latter is shown or when they disagree widely. Lines start with a 13-column label.
pub fn truth_lines(quality: &QualityReport, coverage: Option<&TruthCoverage>) -> String {
    let mut s = String::new();
    let Some(coverage) = coverage else { return s };
    let low = if coverage.is_low() { ": too few for the scores below to describe the graph" } else { "" };
    let _ = writeln!(s, "truth        {}{low}", coverage.describe());
    if let (Some(nmi), Some(ari)) = (&quality.nmi, &quality.ari) {
        let _ = writeln!(s, "NMI          {:.4} over {} of {} vertices", nmi.value, nmi.compared, coverage.vertices);
        let _ = writeln!(s, "ARI          {:.4}", ari.value);
    }
    if let Some(onmi) = &quality.overlapping_nmi {
        let _ = writeln!(s, "overlap NMI  {:.4} (McDaid et al., NMI_max)", onmi.nmi_max);
        let apart = quality.nmi.as_ref().map(|nmi| (nmi.value - onmi.nmi_max).abs() > WIDE_DISAGREEMENT);
        let mut notes: Vec<&str> = Vec::new();
        if apart == Some(true) {
            notes.extend(NMI_MEANING);
        }
        if apart != Some(false) {
            notes.extend(OVERLAPPING_NMI_MEANING);
        }
        for (i, line) in notes.iter().enumerate() {
            let _ = writeln!(s, "{}{line}", if i == 0 { "note         " } else { "             " });
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use glp_runtime::community::Cover;

    #[test]
    fn coverage_counts_labelled_or_covered_vertices() {
        let partition = GroundTruth::Partition(vec![0, UNLABELLED, 1, UNLABELLED]);
        let c = TruthCoverage::of(&partition, 4);
        assert_eq!((c.covered_vertices, c.vertices, c.fraction), (2, 4, 0.5));
        assert!(!c.is_low());
        // Vertex 1 is in two communities and counts once.
        let cover = GroundTruth::Cover(Cover { communities: vec![vec![0, 1], vec![1]] });
        let c = TruthCoverage::of(&cover, 5);
        assert_eq!((c.covered_vertices, c.fraction), (2, 0.4));
        assert!(c.is_low());
        assert_eq!(c.describe(), "2 of 5 vertices (40.0%)");
        assert_eq!(TruthCoverage::of(&GroundTruth::Partition(Vec::new()), 0).fraction, 0.0);
    }

    /// A report with both NMI and overlapping NMI: a cover without overlaps on 4 vertices.
    fn report_with_both() -> QualityReport {
        let csr = glp_runtime::graph::Csr::empty(4);
        let truth = GroundTruth::Cover(Cover { communities: vec![vec![0, 1], vec![2, 3]] });
        let report = QualityReport::new(&csr, &[0, 0, 2, 3], Some(&truth)).unwrap();
        assert!(report.nmi.is_some() && report.overlapping_nmi.is_some());
        report
    }

    /// The report of `labels` on a graph of as many vertices with no edge.
    fn sizes_only(labels: &[u32]) -> QualityReport {
        QualityReport::new(&glp_runtime::graph::Csr::empty(labels.len()), labels, None).unwrap()
    }

    #[test]
    fn a_community_of_most_vertices_is_called_a_collapse() {
        let all: Vec<u32> = vec![0; 200];
        let text = collapse_lines(&sizes_only(&all));
        assert!(text.starts_with("note         one community holds 200 of 200 vertices (100%):\n"), "{text}");
        assert_eq!(text.lines().count(), 1 + COLLAPSE_MEANING.len());
        let most: Vec<u32> = (0..200).map(|v| if v < 101 { 0 } else { v }).collect();
        assert!(collapse_lines(&sizes_only(&most)).contains("holds 101 of 200 vertices (50%)"));
        // Exactly half is not more than half; a small graph is never said to collapse.
        let half: Vec<u32> = (0..200).map(|v| if v < 100 { 0 } else { v }).collect();
        assert!(collapse_lines(&sizes_only(&half)).is_empty());
        assert!(collapse_lines(&sizes_only(&[0; 99])).is_empty());
    }

    #[test]
    fn wide_disagreement_explains_both_scores() {
        let coverage = TruthCoverage { covered_vertices: 4, vertices: 4, fraction: 1.0 };
        let mut report = report_with_both();
        // LFR 100k's figures: NMI 0.62, overlapping NMI 0.004.
        report.nmi.as_mut().unwrap().value = 0.62;
        report.overlapping_nmi.as_mut().unwrap().nmi_max = 0.004;
        let text = truth_lines(&report, Some(&coverage));
        let notes: Vec<&str> = text.lines().skip_while(|l| !l.starts_with("note")).collect();
        assert_eq!(notes.len(), NMI_MEANING.len() + OVERLAPPING_NMI_MEANING.len(), "{text}");
        assert!(notes[0].starts_with("note         NMI compares vertex by vertex"), "{text}");
        assert!(text.contains("NMI          0.6200 over 4 of 4 vertices\n"), "{text}");
        // Close scores need no explanation.
        report.overlapping_nmi.as_mut().unwrap().nmi_max = 0.5;
        assert!(!truth_lines(&report, Some(&coverage)).contains("note"));
        // The overlapping NMI alone (an overlapping truth) is always explained.
        report.nmi = None;
        report.ari = None;
        let alone = truth_lines(&report, Some(&coverage));
        assert!(alone.contains("note         overlap NMI matches whole communities"), "{alone}");
        assert!(!alone.contains("NMI compares vertex by vertex"), "{alone}");
        // Low coverage is said on the truth line.
        let low = TruthCoverage { covered_vertices: 1, vertices: 1005, fraction: 1.0 / 1005.0 };
        assert!(truth_lines(&report, Some(&low)).starts_with("truth        1 of 1005 vertices (0.1%): too few"));
        assert_eq!(truth_lines(&report, None), "");
    }
}
