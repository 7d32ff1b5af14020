//! The sketches on adversarial label streams. Expected results are worked out by hand in the
//! comments, or computed by the naive references below (written from the rules in the module
//! docs, independently of the code under test), or are the Misra-Gries guarantees.

use super::*;

const NONE: Label = crate::community::UNLABELLED;

/// Naive Misra-Gries: a list of (label, weight) slots, searched by index.
fn naive_mg(k: usize, stream: &[(Label, f64)]) -> Vec<(Label, f64)> {
    let mut slots = vec![(NONE, 0.0); k];
    for &(c, w) in stream {
        naive_mg_add(&mut slots, c, w);
    }
    slots
}

fn naive_mg_add(slots: &mut [(Label, f64)], c: Label, w: f64) {
    let mut i = 0;
    while i < slots.len() {
        if slots[i].1 > 0.0 && slots[i].0 == c {
            slots[i].1 += w;
            return;
        }
        i += 1;
    }
    i = 0;
    while i < slots.len() {
        if slots[i].1 <= 0.0 {
            slots[i] = (c, w);
            return;
        }
        i += 1;
    }
    for s in slots.iter_mut() {
        s.1 -= w;
    }
}

/// Naive Boyer-Moore.
fn naive_bm(stream: &[(Label, f64)]) -> (Label, f64) {
    stream.iter().fold((NONE, 0.0), |state, &pair| naive_bm_step(state, pair))
}

fn naive_bm_step((c, w): (Label, f64), (label, weight): (Label, f64)) -> (Label, f64) {
    if label == c {
        (c, w + weight)
    } else if w > weight {
        (c, w - weight)
    } else {
        (label, weight)
    }
}

/// Naive pick: the occupied slots stably sorted by weight descending (slot order on ties).
fn naive_best(slots: &[(Label, f64)]) -> Option<(Label, f64)> {
    let mut occupied: Vec<(Label, f64)> = slots.iter().copied().filter(|s| s.1 > 0.0).collect();
    occupied.sort_by(|a, b| b.1.partial_cmp(&a.1).unwrap());
    occupied.first().copied()
}

fn mg(k: usize, stream: &[(Label, f64)]) -> MisraGries {
    let mut s = MisraGries::new(k);
    for &(c, w) in stream {
        s.add(c, w);
    }
    s
}

fn units(labels: &[Label]) -> Vec<(Label, f64)> {
    labels.iter().map(|&l| (l, 1.0)).collect()
}

/// A deterministic pseudo-random stream: labels below `labels`, integer weights 1..=`max_w`.
fn stream(seed: u64, len: usize, labels: u64, max_w: u64) -> Vec<(Label, f64)> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            ((x % labels) as Label, (1 + (x >> 32) % max_w) as f64)
        })
        .collect()
}

#[test]
fn all_distinct_labels_cycle_through_the_slots() {
    // k = 2: 10 -> s0, 11 -> s1, 12 subtracts 1 from both (both empty), 13 -> s0.
    let s = mg(2, &units(&[10, 11, 12, 13]));
    assert_eq!(s.slots().collect::<Vec<_>>(), vec![(13, 1.0), (11, 0.0)]);
    assert_eq!(s.best(), Some((13, 1.0)));
    // k = 4 with 4 distinct labels: all kept, equal weights: the first slot.
    assert_eq!(mg(4, &units(&[9, 3, 7, 5])).best(), Some((9, 1.0)));
}

#[test]
fn a_dominant_label_survives_the_decrements() {
    // k = 2: 7 -> (7,1); 1 -> (1,1); 7 -> (7,2); 2: full, subtract: (7,1) (1,0); 7 -> (7,2);
    // 3 -> s1 (3,1); 7 -> (7,3); 4: subtract: (7,2) (3,0); 7 -> (7,3).
    let s = mg(2, &units(&[7, 1, 7, 2, 7, 3, 7, 4, 7]));
    assert_eq!(s.best(), Some((7, 3.0)));
    // Boyer-Moore on the same stream: (7,1); 1 ties and replaces (1,1); 7 replaces (7,1);
    // 2 -> (2,1); 7 -> (7,1); 3 -> (3,1); 7 -> (7,1); 4 -> (4,1); 7 -> (7,1).
    let mut bm = BoyerMoore::new();
    for (c, w) in units(&[7, 1, 7, 2, 7, 3, 7, 4, 7]) {
        bm.add(c, w);
    }
    assert_eq!(bm.best(), Some((7, 1.0)));
    // With the majority in a block first it keeps the lead: (7,3) then 1, 2 subtract.
    let mut bm = BoyerMoore::new();
    for (c, w) in units(&[7, 7, 7, 1, 2]) {
        bm.add(c, w);
    }
    assert_eq!(bm.candidate(), (7, 1.0));
}

#[test]
fn ties_go_to_the_lowest_slot_in_misra_gries_and_replace_in_boyer_moore() {
    assert_eq!(mg(4, &units(&[5, 3, 5, 3])).best(), Some((5, 2.0)));
    assert_eq!(mg(4, &[(8, 2.5), (2, 1.0), (4, 2.5)]).best(), Some((8, 2.5)));
    // Slot order, not label order: (1,1) (2,1); 3 subtracts (both empty); 9 -> s0, 4 -> s1;
    // equal weights: slot 0 (label 9) wins over the smaller label 4.
    assert_eq!(mg(2, &units(&[1, 2, 3, 9, 4])).best(), Some((9, 1.0)));
    let mut bm = BoyerMoore::new();
    bm.add(1, 3.0);
    bm.add(2, 1.0); // 3 > 1: (1, 2)
    assert_eq!(bm.candidate(), (1, 2.0));
    bm.add(3, 2.0); // a tie replaces: (3, 2)
    assert_eq!(bm.candidate(), (3, 2.0));
    bm.add(4, 5.0); // lighter candidate: replaced by (4, 5), not (4, 3)
    assert_eq!(bm.candidate(), (4, 5.0));
}

#[test]
fn negative_residuals_after_a_merge_are_empty_slots() {
    // (1,1) (2,1) full; merging (9,5) subtracts 5: (1,-4) (2,-4), both empty.
    let mut a = mg(2, &units(&[1, 2]));
    a.merge(&mg(2, &[(9, 5.0)]));
    assert_eq!(a.slots().collect::<Vec<_>>(), vec![(1, -4.0), (2, -4.0)]);
    assert_eq!(a.best(), None, "no slot is occupied");
    // A stale label does not revive its negative slot: 1 takes the lowest empty slot anew.
    a.add(1, 2.0);
    assert_eq!(a.slots().collect::<Vec<_>>(), vec![(1, 2.0), (2, -4.0)]);
    a.add(3, 1.0);
    assert_eq!(a.slots().collect::<Vec<_>>(), vec![(1, 2.0), (3, 1.0)]);
    assert_eq!(a.best(), Some((1, 2.0)));
    // Merging skips empty and negative slots of the other sketch.
    let mut b = mg(2, &units(&[5]));
    b.merge(&a.clone());
    assert_eq!(naive_best(&b.slots().collect::<Vec<_>>()), b.best());
    // (5,1) + (1,2) -> full; (3,1): subtract: (5,0) (1,1).
    assert_eq!(b.slots().collect::<Vec<_>>(), vec![(5, 0.0), (1, 1.0)]);
    // Boyer-Moore merges skip candidates of weight <= 0.
    let mut bm = BoyerMoore::new();
    bm.add(4, 1.0);
    bm.merge(&BoyerMoore::new());
    assert_eq!(bm.candidate(), (4, 1.0));
}

#[test]
fn every_slot_count_matches_the_naive_reference() {
    for k in 1..=32 {
        for seed in 0..20u64 {
            let labels = [2, 5, 40, 1000][seed as usize % 4];
            let s = stream(seed * 31 + k as u64, 300, labels, if seed % 2 == 0 { 1 } else { 7 });
            let sketch = mg(k, &s);
            let reference = naive_mg(k, &s);
            assert_eq!(sketch.slots().collect::<Vec<_>>(), reference, "k {k} seed {seed}");
            assert_eq!(sketch.best(), naive_best(&reference), "k {k} seed {seed}");
        }
    }
    for seed in 0..50u64 {
        let s = stream(seed, 200, [2, 3, 50][seed as usize % 3], 5);
        let mut bm = BoyerMoore::new();
        for &(c, w) in &s {
            bm.add(c, w);
        }
        assert_eq!(bm.candidate(), naive_bm(&s), "seed {seed}");
    }
}

#[test]
fn misra_gries_keeps_every_heavy_hitter_and_never_overestimates() {
    // For unit weights, total W, a label of weight > W / (k + 1) is in the sketch, with an
    // estimate in [true - W / (k + 1), true] (the paper's weighted rule subtracts the whole
    // weight from lighter slots too, so larger weights lose the lower bound; the estimate never
    // exceeds the truth).
    for k in [1, 2, 4, 8, 16, 32] {
        for seed in 0..30u64 {
            let unit = seed % 2 == 0;
            let mut s = stream(seed, 400, 60, if unit { 1 } else { 4 });
            // A dominant label in a third of the positions.
            for (i, pair) in s.iter_mut().enumerate() {
                if i % 3 == seed as usize % 3 {
                    pair.0 = 1000;
                }
            }
            let total: f64 = s.iter().map(|p| p.1).sum();
            let sketch = mg(k, &s);
            let mut truth = std::collections::HashMap::<Label, f64>::new();
            for &(c, w) in &s {
                *truth.entry(c).or_default() += w;
            }
            let bound = total / (k as f64 + 1.0);
            for (&label, &weight) in &truth {
                let estimate = sketch.slots().find(|&(l, w)| l == label && w > 0.0).map_or(0.0, |s| s.1);
                assert!(estimate <= weight, "k {k} label {label}");
                if unit {
                    assert!(estimate >= weight - bound, "k {k} label {label}");
                }
                if unit && weight > bound {
                    assert!(estimate > 0.0, "k {k} seed {seed}: heavy label {label} lost");
                }
            }
        }
    }
}

#[test]
fn high_degree_edges_go_to_partials_in_chunks_of_k() {
    // k = 8: 32 partials; edges 0..8 to partial 0, 8..16 to 1, 248..256 to 31, 256 to 0 again.
    assert_eq!([0, 7, 8, 15, 248, 255, 256, 264].map(|i| high_degree_partial(i, 8)), [0, 0, 1, 1, 31, 31, 0, 1]);
    // Boyer-Moore: one thread per partial, edges i % 256.
    assert_eq!([0, 1, 255, 256, 511].map(|i| high_degree_partial(i, 1)), [0, 1, 255, 0, 255]);
    // k = 32: 8 partials.
    assert_eq!([0, 31, 32, 255, 256].map(|i| high_degree_partial(i, 32)), [0, 0, 1, 7, 0]);
}

/// The naive partition and merge: partial t reads the edges of chunks t, t + T, t + 2T, ...
fn naive_high_pick(k: usize, pairs: &[Option<(Label, f64)>]) -> Option<(Label, f64)> {
    let tiles = 256 / k;
    let mut partials: Vec<Vec<(Label, f64)>> = vec![vec![(NONE, 0.0); k]; tiles];
    let mut bms = vec![(NONE, 0.0); tiles];
    for (t, partial) in partials.iter_mut().enumerate() {
        let mut chunk = t;
        while chunk * k < pairs.len() {
            for pair in pairs[chunk * k..((chunk + 1) * k).min(pairs.len())].iter().flatten() {
                if k == 1 {
                    bms[t] = naive_bm_step(bms[t], *pair);
                } else {
                    naive_mg_add(partial, pair.0, pair.1);
                }
            }
            chunk += tiles;
        }
    }
    if k == 1 {
        let mut merged = bms[0];
        for &other in &bms[1..] {
            if other.1 > 0.0 {
                merged = naive_bm_step(merged, other);
            }
        }
        return naive_best(&[merged]);
    }
    let (first, rest) = partials.split_first_mut().unwrap();
    for partial in rest.iter() {
        for &(c, w) in partial.iter().filter(|s| s.1 > 0.0) {
            naive_mg_add(first, c, w);
        }
    }
    naive_best(first)
}

#[test]
fn high_degree_picks_merge_the_partials_in_order() {
    for sketch in Sketch::ALL {
        let k = sketch.slots() as usize;
        for (seed, degree) in [(1u64, 128usize), (2, 129), (3, 300), (4, 1000), (5, 4096)] {
            let labels = [3, 20, 500][seed as usize % 3];
            let pairs: Vec<Option<(Label, f64)>> = stream(seed * 7 + k as u64, degree, labels, 3)
                .into_iter()
                .enumerate()
                .map(|(i, p)| (i % 11 != 4).then_some(p)) // some edges give no label
                .collect();
            let got = sketch_pick(sketch, degree, pairs.iter().copied());
            assert_eq!(got, naive_high_pick(k, &pairs), "{} degree {degree}", sketch.name());
        }
        // Below the bound: one sketch over all edges in order.
        let pairs: Vec<Option<(Label, f64)>> = stream(9, 127, 6, 2).into_iter().map(Some).collect();
        let flat: Vec<(Label, f64)> = pairs.iter().flatten().copied().collect();
        let expected = if k == 1 { naive_best(&[naive_bm(&flat)]) } else { naive_best(&naive_mg(k, &flat)) };
        assert_eq!(sketch_pick(sketch, 127, pairs.into_iter()), expected, "{}", sketch.name());
    }
}

#[test]
fn a_vertex_without_labelled_neighbours_has_no_pick() {
    for sketch in Sketch::ALL {
        assert_eq!(sketch_pick(sketch, 0, std::iter::empty()), None);
        assert_eq!(sketch_pick(sketch, 200, std::iter::repeat_n(None, 200)), None);
    }
}

#[test]
fn unsupported_slot_counts_are_errors() {
    assert!(Sketch::MisraGries { slots: 8 }.validate().is_ok());
    let err = Sketch::MisraGries { slots: 3 }.validate().unwrap_err().to_string();
    assert!(err.contains("2, 4, 8, 16 or 32") && err.contains("got 3"), "{err}");
}
