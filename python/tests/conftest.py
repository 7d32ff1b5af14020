"""Shared fixtures: the repository's graphs and the `glp` command the API is checked against."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

import glp

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "data"

glp.set_quiet(True)


def data(name: str) -> Path:
    """A graph kept in the repository's data/ folder (data/MANIFEST.md)."""
    path = DATA / name
    if not path.exists():
        pytest.fail(f"{path} is missing: the tests read the repository's data/ folder")
    return path


def glp_command() -> Path:
    """The `glp` binary the API is compared with: $GLP_BIN, else the workspace's release or
    debug build. Missing: the test fails under GLP_REQUIRE_CLI=1 (CI), else skips."""
    candidates = [os.environ.get("GLP_BIN")] if os.environ.get("GLP_BIN") else []
    candidates += [REPO / "target" / "release" / "glp", REPO / "target" / "debug" / "glp", shutil.which("glp")]
    for candidate in candidates:
        if candidate and Path(candidate).is_file():
            return Path(candidate)
    if os.environ.get("GLP_REQUIRE_CLI") == "1":
        pytest.fail("no glp binary (GLP_BIN, target/release/glp) and GLP_REQUIRE_CLI=1")
    pytest.skip("no glp binary: build it with `cargo build --release`")


def run_glp(*args: str) -> str:
    """Runs the `glp` command; its standard output (failing the test when it fails)."""
    done = subprocess.run([str(glp_command()), "--quiet", *args], capture_output=True, text=True)
    assert done.returncode == 0, f"glp {' '.join(args)} failed: {done.stderr}"
    return done.stdout


def gpu_error() -> "glp.GpuError | None":
    """The error of a tiny GPU run: ``None`` when glp opens a GPU here."""
    try:
        glp.sample(glp.Graph.from_edges([0], [1]), "deepwalk", walk_length=1, backend="gpu")
        return None
    except glp.GpuError as error:
        return error


def has_gpu() -> bool:
    """Whether glp opens a GPU here; GLP_REQUIRE_GPU=1 makes a missing one a failure."""
    error = gpu_error()
    if error is not None and os.environ.get("GLP_REQUIRE_GPU") == "1":
        pytest.fail(f"GLP_REQUIRE_GPU=1 but no GPU: {error}")
    return error is None


@pytest.fixture(scope="session")
def karate() -> glp.Graph:
    return glp.Graph.load(data("karate.mtx"))


@pytest.fixture(scope="session")
def dolphins() -> glp.Graph:
    return glp.Graph.load(data("dolphins.edges"))


@pytest.fixture(scope="session")
def email() -> glp.Graph:
    return glp.Graph.load(data("email-Eu-core.txt"))


@pytest.fixture(scope="session")
def gpu() -> None:
    if not has_gpu():
        pytest.skip("no GPU")


@pytest.fixture(scope="session")
def no_gpu() -> None:
    """For tests of what happens without a GPU: skipped where one opens."""
    if os.environ.get("GLP_REQUIRE_GPU") == "1" or gpu_error() is None:
        pytest.skip("a GPU opens here")
