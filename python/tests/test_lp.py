"""Label propagation: the same labels as the `glp lp` command, quality scores equal to
NetworkX's and to textbook formulas, every error path."""

from __future__ import annotations

import math
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections import Counter

import networkx as nx
import numpy as np
import pytest
from conftest import REPO, data, run_glp

import glp


def cli_labels(path: str, *args: str) -> dict:
    """`glp lp --out -`'s labels: {vertex: [labels]}."""
    out = run_glp("lp", str(path), "--backend", "cpu", "--out", "-", *args)
    labels = {}
    for line in out.splitlines():
        vertex, *rest = line.split("\t")
        labels[int(vertex)] = [None if r == "-" else int(r) for r in rest]
    return labels


@pytest.mark.parametrize(
    "variant, options, flags",
    [
        ("classic", {"schedule": "sync"}, ["--schedule", "sync"]),
        ("classic", {}, []),
        ("llp", {"params": {"gamma": 2}}, ["--param", "gamma=2"]),
        ("capped", {"params": {"cap": 30}, "schedule": "sync"}, ["--param", "cap=30", "--schedule", "sync"]),
        ("classic", {"mfl": "mg8", "schedule": "sync"}, ["--mfl", "mg8", "--schedule", "sync"]),
        ("slp", {"seed": 5, "iterations": 10}, ["--seed", "5", "--iterations", "10"]),
    ],
)
def test_labels_equal_the_commands(variant, options, flags) -> None:
    path = data("email-Eu-core.txt")
    result = glp.Graph.load(path).label_propagation(variant, backend="cpu", **options)
    expected = cli_labels(path, "--variant", variant, *flags)
    got = result.to_dict()
    if result.memberships is not None:
        ids = result.graph.ids.tolist()
        got = {v: sorted(m.tolist()) for v, m in zip(ids, result.memberships)}
        expected = {v: sorted(labels) for v, labels in expected.items()}
        assert got == expected
    else:
        assert got == {v: labels[0] for v, labels in expected.items()}
    assert result.iterations >= 1 and result.time_ms >= 0 and result.backend == "cpu"
    assert len(result.changed_per_iteration) == result.iterations


def test_seeded_labels_equal_the_commands(tmp_path) -> None:
    path = data("dolphins.edges")
    seeds = {0: 100, 40: 200, 15: 300}
    seed_file = tmp_path / "seeds.txt"
    seed_file.write_text("".join(f"{v} {label}\n" for v, label in seeds.items()))
    expected = {
        v: labels[0] for v, labels in cli_labels(path, "--variant", "seeded", "--seeds", str(seed_file)).items()
    }
    graph = glp.Graph.load(path)
    for given in (seeds, list(seeds.items()), seed_file, str(seed_file)):
        result = graph.label_propagation("seeded", seeds=given, backend="cpu")
        assert result.to_dict() == expected
        assert set(result.labels.tolist()) <= {100, 200, 300, -1}


def test_a_variant_file_runs_as_on_the_command_line() -> None:
    variant = REPO / "src" / "variants" / "llp.rs"
    if not variant.exists():
        pytest.skip("no variant source")
    path = data("dolphins.edges")
    expected = cli_labels(path, "--variant", str(variant), "--param", "gamma=1.5", "--schedule", "sync")
    result = glp.Graph.load(path).label_propagation(str(variant), params={"gamma": 1.5}, schedule="sync", backend="cpu")
    assert result.to_dict() == {v: labels[0] for v, labels in expected.items()}


def test_modularity_equals_networkx(email: glp.Graph) -> None:
    result = email.label_propagation("llp", params={"gamma": 1}, backend="cpu")
    reference = nx.read_edgelist(data("email-Eu-core.txt"), nodetype=int)
    reference.remove_edges_from(nx.selfloop_edges(reference))
    labels = result.to_dict()
    communities = {}
    for v, label in labels.items():
        communities.setdefault(label, set()).add(v)
    expected = nx.community.modularity(reference, communities.values())
    assert result.modularity == pytest.approx(expected, abs=1e-9)
    assert glp.modularity(email, result.labels) == pytest.approx(expected, abs=1e-9)
    assert result.communities == len(communities)
    assert len(result.communities_list()) == len(communities)


def test_weighted_modularity_equals_networkx() -> None:
    rng = np.random.default_rng(3)
    src, dst = rng.integers(0, 60, 400), rng.integers(0, 60, 400)
    w = rng.uniform(0.5, 3.0, 400).astype(np.float32)
    graph = glp.Graph.from_edges(src, dst, w, num_vertices=60, duplicates="sum")
    labels = rng.integers(0, 5, 60)
    reference = nx.Graph()
    reference.add_nodes_from(range(60))
    offsets, targets, weights = graph.csr()
    for v in range(60):
        for t, x in zip(targets[offsets[v] : offsets[v + 1]], weights[offsets[v] : offsets[v + 1]]):
            reference.add_edge(v, int(t), weight=float(x))
    parts = [set(np.flatnonzero(labels == c).tolist()) for c in range(5)]
    expected = nx.community.modularity(reference, [p for p in parts if p], weight="weight")
    assert glp.modularity(graph, labels) == pytest.approx(expected, rel=1e-5)


def textbook_nmi_ari(a, b):
    """NMI (arithmetic) and ARI from the contingency table, by their definitions."""
    n = len(a)
    table = Counter(zip(a, b))
    ca, cb = Counter(a), Counter(b)
    h = lambda counts: -sum(c / n * math.log(c / n) for c in counts.values())  # noqa: E731
    mi = sum(c / n * math.log(c * n / (ca[x] * cb[y])) for (x, y), c in table.items())
    nmi = mi / ((h(ca) + h(cb)) / 2) if h(ca) + h(cb) > 0 else 1.0
    comb = lambda k: k * (k - 1) / 2  # noqa: E731
    index = sum(comb(c) for c in table.values())
    sa, sb = sum(comb(c) for c in ca.values()), sum(comb(c) for c in cb.values())
    expected = sa * sb / comb(n)
    ari = (index - expected) / ((sa + sb) / 2 - expected)
    return nmi, ari


def test_nmi_and_ari_follow_their_definitions() -> None:
    rng = np.random.default_rng(11)
    a = rng.integers(0, 6, 500)
    b = np.where(rng.random(500) < 0.7, a, rng.integers(0, 9, 500))
    nmi, ari = textbook_nmi_ari(a.tolist(), b.tolist())
    assert glp.nmi(a, b) == pytest.approx(nmi, abs=1e-9)
    assert glp.ari(a, b) == pytest.approx(ari, abs=1e-9)
    assert glp.nmi(a, a) == pytest.approx(1.0)
    # Labels of any kind: strings are partitions too.
    assert glp.ari(["x", "y", "x"], [1, 2, 1]) == pytest.approx(1.0)


def mcdaid_nmi_max(x, y, n: int) -> float:
    """McDaid, Greene and Hurley's NMI_max of the covers ``x`` and ``y`` of ``range(n)``,
    by its definition over every pair of communities (in bits)."""
    h = lambda k: 0.0 if k == 0 else -(k / n) * math.log2(k / n)  # noqa: E731
    entropy = lambda c: h(len(c)) + h(n - len(c))  # noqa: E731

    def conditional(xs, ys) -> float:
        total = 0.0
        for xi in map(set, xs):
            best = entropy(xi)
            for yj in map(set, ys):
                a, b, c, d = n - len(xi | yj), len(yj - xi), len(xi - yj), len(xi & yj)
                if h(a) + h(d) > h(b) + h(c):
                    best = min(best, h(a) + h(b) + h(c) + h(d) - entropy(yj))
            total += best
        return total

    hx, hy = sum(map(entropy, x)), sum(map(entropy, y))
    mutual = (hx - conditional(x, y) + hy - conditional(y, x)) / 2
    return mutual / max(hx, hy)


def shannon_nmi_max(a, b) -> float:
    """NMI of two partitions (label lists) normalised by the larger entropy, from the
    contingency table."""
    n = len(a)
    table, ca, cb = Counter(zip(a, b)), Counter(a), Counter(b)
    h = lambda counts: -sum(c / n * math.log(c / n) for c in counts.values())  # noqa: E731
    mi = sum(c / n * math.log(c * n / (ca[x] * cb[y])) for (x, y), c in table.items())
    return mi / max(h(ca), h(cb))


def test_overlapping_nmi_of_equal_covers_is_one_and_of_a_partition_matches_nmi() -> None:
    cover = [[0, 1, 2], [2, 3, 4], [5, 6]]
    assert glp.overlapping_nmi(cover, cover, 7) == pytest.approx(1.0)
    other = [[0, 1], [2, 3, 4, 5, 6]]
    value = glp.overlapping_nmi(cover, other, 7)
    assert 0.0 <= value < 1.0
    assert value == pytest.approx(mcdaid_nmi_max(cover, other, 7), abs=1e-12)
    # Two partitions into two communities each: every community is its partition (or the
    # complement), so McDaid's NMI_max is the partitions' NMI with the max normalisation.
    rng = np.random.default_rng(5)
    a = rng.integers(0, 2, 200)
    b = np.where(rng.random(200) < 0.85, a, 1 - a)
    communities = lambda labels: [np.flatnonzero(labels == c).tolist() for c in (0, 1)]  # noqa: E731
    expected = shannon_nmi_max(a.tolist(), b.tolist())
    assert 0.1 < expected < 1.0
    assert glp.overlapping_nmi(communities(a), communities(b), 200) == pytest.approx(expected, abs=1e-9)
    # Partitions into more communities: the definition, pair by pair (not Shannon's NMI).
    c = rng.integers(0, 4, 60)
    d = np.where(rng.random(60) < 0.7, c, rng.integers(0, 4, 60))
    parts = lambda labels: [np.flatnonzero(labels == k).tolist() for k in range(4)]  # noqa: E731
    assert glp.overlapping_nmi(parts(c), parts(d), 60) == pytest.approx(
        mcdaid_nmi_max(parts(c), parts(d), 60), abs=1e-9
    )
    with pytest.raises(ValueError, match="not below universe"):
        glp.overlapping_nmi([[0, 9]], [[0]], 5)


@pytest.mark.parametrize(
    "options, exception, message",
    [
        ({"variant": "louvain"}, ValueError, "unknown variant `louvain`"),
        ({"schedule": "fast"}, ValueError, "schedule=`fast`: expected one of sync, async"),
        ({"iterations": 0}, ValueError, "iterations must be at least 1"),
        ({"iterations": -5}, ValueError, "iterations = -5"),
        ({"iterations": 2**40}, ValueError, "iterations"),
        ({"seed": "x"}, ValueError, "seed = 'x'"),
        ({"variant": "llp", "params": {"gamma": -1}}, ValueError, "gamma must be a number >= 0"),
        ({"variant": "llp", "params": {"beta": 1}}, ValueError, "unknown parameter `beta`"),
        ({"variant": "seeded"}, ValueError, "needs seeds"),
        ({"seeds": {0: 1}}, ValueError, "seeds applies to variant seeded only"),
        ({"mfl": "smem"}, ValueError, "GPU kernel strategy"),
        ({"mfl": "bogus"}, ValueError, "bogus"),
        ({"backend": "tpu"}, ValueError, "backend=`tpu`"),
        ({"variant": "seeded", "seeds": {999: 1}}, ValueError, "999"),
    ],
)
def test_bad_arguments_are_value_errors(karate: glp.Graph, options, exception, message) -> None:
    options = {"backend": "cpu", **options}
    with pytest.raises(exception, match=message):
        glp.label_propagation(karate, **options)


def test_a_variant_file_that_does_not_compile_is_a_compile_error(tmp_path, karate: glp.Graph) -> None:
    source = tmp_path / "broken.rs"
    source.write_text(
        textwrap.dedent(
            """\
            struct Broken;
            impl LpVariant for Broken {
                fn pick_label(&self, view: &View, v: VertexId) -> Label {
                    let x = ;
                }
            }
            """
        )
    )
    with pytest.raises(glp.CompileError) as raised:
        karate.label_propagation(str(source), backend="cpu")
    error = raised.value
    assert isinstance(error, ValueError)
    assert error.file == str(source) and error.line == 4 and error.column == 17
    assert f"--> {source}:4:17" in str(error)


# Program files (variants and samplers written in Rust): what fails is classified by the
# engine's error, not by its text. A file that does not compile is a glp.CompileError, with
# a position or without one (an error of the whole file); a hook that fails while it runs is
# a RuntimeError, though its message points into the file (`--> file:line:col`) too; a
# missing file is a FileNotFoundError.

DIVIDER = """\
pub struct Divider { pub k: u32 }
impl LpVariant for Divider {
    fn update_vertex(&self, view: &View<'_>, v: VertexId, best: Label, score: f64) -> Label {
        let spread = view.num_vertices() / self.k;
        best % spread
    }
}
"""

WALK = """\
pub struct Walk { pub length: u32 }
impl Sampler for Walk {
    fn steps(&self) -> u32 { self.length }
    fn sample_size(&self, _step: u32) -> u32 { 1 }
    fn next(&self, view: &SampleView<'_>, _sample: u32, transit: u32, lane: u32, _step: u32) -> u32 {
        NEXT
    }
}
"""


def run_variant(graph: glp.Graph, path, **params) -> None:
    graph.label_propagation(str(path), params=params, schedule="sync", backend="cpu")


def run_sampler(graph: glp.Graph, path, **params) -> None:
    graph.sample(str(path), params=params, roots=[1, 2], backend="cpu")


@pytest.mark.parametrize("kind", ["variant", "sampler"])
def test_program_file_errors_are_classified_by_kind_not_by_text(tmp_path, karate: glp.Graph, kind) -> None:
    run, trait = (run_variant, "LpVariant") if kind == "variant" else (run_sampler, "Sampler")
    # A hook that fails at run time: a RuntimeError, not a CompileError, though its message
    # has the `--> file:line:col` of the failing expression.
    failing = tmp_path / f"failing_{kind}.rs"
    if kind == "variant":
        failing.write_text(DIVIDER)
        params, where = {"k": 0}, ":4:22"
    else:
        failing.write_text(
            WALK.replace(
                "NEXT",
                "let d = view.degree(transit) - view.degree(transit);\n        view.edge(transit, lane as u64 / d)",
            )
        )
        params, where = {"length": 3}, ":7:28"
    with pytest.raises(RuntimeError, match="attempt to divide by zero") as raised:
        run(karate, failing, **params)
    assert not isinstance(raised.value, (glp.CompileError, glp.GpuError))
    assert f"--> {failing}{where}" in str(raised.value)

    # A file without the impl: a structural CompileError with no position.
    structural = tmp_path / f"structural_{kind}.rs"
    structural.write_text("pub struct Nothing { pub k: u32 }\n")
    with pytest.raises(glp.CompileError, match=f"no `impl {trait} for YourStruct` found") as raised:
        run(karate, structural)
    assert raised.value.file == str(structural)
    assert raised.value.line is None and raised.value.column is None
    assert "-->" not in str(raised.value)

    # A type error: a CompileError at the diagnostic's position.
    typed = tmp_path / f"typed_{kind}.rs"
    if kind == "variant":
        typed.write_text(DIVIDER.replace("best % spread", "best % 1.5"))
        line = 5
    else:
        typed.write_text(WALK.replace("NEXT", "view.edge(transit, 1.5)"))
        line = 6
    with pytest.raises(glp.CompileError) as raised:
        run(karate, typed, **params)
    error = raised.value
    assert error.file == str(typed) and error.line == line and error.column >= 1
    assert f"--> {typed}:{error.line}:{error.column}" in str(error)

    # A missing file: FileNotFoundError, with the command line's message.
    missing = tmp_path / f"missing_{kind}.rs"
    with pytest.raises(FileNotFoundError, match=f"missing_{kind}.rs: cannot read the {kind} file"):
        run(karate, missing)


def test_negative_weights_are_refused() -> None:
    graph = glp.Graph.from_edges([0, 1], [1, 2], [1.0, -2.0])
    with pytest.raises(ValueError, match="negative weight"):
        graph.label_propagation(backend="cpu")
    with pytest.raises(ValueError, match="negative"):
        glp.sample(graph, "weighted-deepwalk", walk_length=3, backend="cpu")


def test_directed_graphs_count_in_and_out_neighbours(tmp_path) -> None:
    path = data("dolphins.edges")
    expected = cli_labels(path, "--directed", "--schedule", "sync")
    result = glp.Graph.load(path, directed=True).label_propagation(schedule="sync", backend="cpu")
    assert result.to_dict() == {v: labels[0] for v, labels in expected.items()}


# Runs of a minute or more, stopped after a second and a half. On the GPU, the engine runs
# beside the sink that checks for a stop: walks of 2^22 steps one per batch (a ring of rows,
# about two seconds a walk on an H200) and label propagation's iterations.
LONG_RUNS = [
    ('g.label_propagation("slp", iterations=100000, backend="cpu")', "cpu"),
    ('glp.sample(g, "node2vec", roots=3_000_000, walk_length=80, p=2.0, q=0.5, backend="cpu")', "cpu"),
    ('glp.sample(g, "deepwalk", roots=64, walk_length=2**22, batch_samples=1, backend="gpu")', "gpu"),
    ('g.label_propagation("slp", iterations=100000, backend="gpu")', "gpu"),
]


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("call,backend", LONG_RUNS, ids=[f"{b}-{c.split('(')[0]}" for c, b in LONG_RUNS])
def test_ctrl_c_stops_a_long_run_with_keyboard_interrupt(call, backend, request) -> None:
    if backend == "gpu":
        request.getfixturevalue("gpu")
    script = textwrap.dedent(
        f"""
        import glp, sys, time
        g = glp.Graph.load({str(data("com-dblp.edges.gz"))!r})
        print("ready", flush=True)
        start = time.time()
        try:
            {call}
            print("finished")
        except KeyboardInterrupt:
            print(f"interrupted after {{time.time() - start:.1f}} s", flush=True)
        """
    )
    # Python turns SIGINT into KeyboardInterrupt only when the signal is not ignored at its
    # start, and a shell starts background commands with SIGINT ignored: restored in the child,
    # the test behaves the same wherever it is run from.
    child = subprocess.Popen(
        [sys.executable, "-c", script],
        stdout=subprocess.PIPE,
        text=True,
        env=os.environ.copy(),
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert child.stdout.readline().strip() == "ready"
    time.sleep(1.5)
    child.send_signal(signal.SIGINT)
    out, _ = child.communicate(timeout=60)
    assert out.startswith("interrupted after"), out


def test_unlabelled_vertices_count_as_the_engine_counts_them(tmp_path) -> None:
    g = glp.Graph.from_edges([0, 1, 3], [1, 2, 4], num_vertices=6)  # vertex 5 alone: no seed reaches it
    seeded = g.label_propagation("seeded", seeds={0: 1, 3: 2}, schedule="sync", backend="cpu")
    assert seeded.labels.tolist() == [1, 1, 1, 2, 2, -1]
    assert glp.modularity(g, seeded.labels) == pytest.approx(seeded.modularity, abs=1e-12)
    # NMI and ARI compare the labelled items only.
    assert glp.nmi([0, 0, 1, -1], [5, 5, 6, 6]) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="32-bit"):
        glp.overlapping_nmi([[0]], [[0]], 10**13)


def test_seeds_must_be_pairs_or_a_mapping(karate: glp.Graph) -> None:
    # A plain list of vertices has no labels: refused with a message saying what seeds are.
    for seeds in ([1, 2], np.array([1, 2]), ["0 1"]):
        with pytest.raises(ValueError, match=r"seeds: .*\(vertex, label\) pairs"):
            karate.label_propagation("seeded", seeds=seeds, backend="cpu")
    # An array of (vertex, label) rows is pairs.
    rows = np.array([[1, 10], [34, 20]])
    by_rows = karate.label_propagation("seeded", seeds=rows, schedule="sync", backend="cpu")
    by_dict = karate.label_propagation("seeded", seeds={1: 10, 34: 20}, schedule="sync", backend="cpu")
    assert by_rows.to_dict() == by_dict.to_dict()


def test_seeded_to_dict_keeps_tuple_nodes() -> None:
    # A grid's nodes are (row, column) tuples: to_dict's keys are those tuples, not lists.
    graph = nx.grid_2d_graph(3, 4)
    g = glp.Graph.from_networkx(graph)
    seeded = g.label_propagation("seeded", seeds={(0, 0): 5, (2, 3): 8}, schedule="sync", backend="cpu")
    labels = seeded.to_dict()
    assert set(labels) == set(graph.nodes())
    assert labels[(0, 0)] == 5 and labels[(2, 3)] == 8
    assert set(labels.values()) <= {5, 8}
    unseeded = g.label_propagation(schedule="sync", backend="cpu").to_dict()
    assert set(unseeded) == set(graph.nodes()) and set(unseeded.values()) <= set(graph.nodes())
    assert all(isinstance(node, tuple) for community in seeded.communities_list() for node in community)


PROGRESS_SCRIPT = """
import sys, glp
glp.set_quiet(sys.argv[1] == "quiet")
g = glp.Graph.load(sys.argv[2])
g.label_propagation(schedule="sync", iterations=5, backend="cpu")
glp.sample(g, "deepwalk", roots=300, walk_length=5, backend="cpu")
"""


def stderr_on_a_terminal(*args: str) -> str:
    """What a child running PROGRESS_SCRIPT writes to its standard error, a pseudo-terminal."""
    import fcntl
    import pty
    import struct
    import termios

    primary, secondary = pty.openpty()
    fcntl.ioctl(secondary, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    child = subprocess.Popen(
        [sys.executable, "-c", PROGRESS_SCRIPT, *args], stdout=subprocess.DEVNULL, stderr=secondary
    )
    os.close(secondary)
    out = b""
    while True:
        try:
            chunk = os.read(primary, 4096)
        except OSError:  # the child closed the terminal (EIO)
            break
        if not chunk:
            break
        out += chunk
    os.close(primary)
    assert child.wait(timeout=60) == 0, out.decode(errors="replace")
    return out.decode(errors="replace")


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals")
def test_progress_is_drawn_on_a_terminal_only() -> None:
    path = str(data("email-Eu-core.txt"))
    # Standard error a pipe (a notebook, a log): nothing, as `glp` draws nothing there.
    piped = subprocess.run([sys.executable, "-c", PROGRESS_SCRIPT, "loud", path], capture_output=True, text=True)
    assert piped.returncode == 0 and piped.stderr == ""
    # A terminal: label propagation's and sampling's bars, as the command's.
    drawn = stderr_on_a_terminal("loud", path)
    assert "iterations [" in drawn and "samples (" in drawn, drawn
    # glp.set_quiet(True) (`glp --quiet`): nothing, even on a terminal.
    assert stderr_on_a_terminal("quiet", path) == ""
