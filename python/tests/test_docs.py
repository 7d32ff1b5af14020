"""The docs run as written: every Python code block of the READMEs (the repository's and
python/README.md) and examples/python/quickstart.py, from the repository root. A block or
example that imports torch or torch_geometric is skipped where that package is missing;
nothing else is."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path
from typing import Iterator, Set

import pytest
from conftest import REPO

# The packages a doc may need that the test environment need not have.
OPTIONAL = ("torch", "torch_geometric")

FENCE = re.compile(r"^```python\n(.*?)^```", re.DOTALL | re.MULTILINE)


def code_blocks(path: Path) -> Iterator[pytest.param]:
    """The ```python blocks of `path`, each with the line its code starts on."""
    text = path.read_text()
    for match in FENCE.finditer(text):
        line = text.count("\n", 0, match.start(1)) + 1
        yield pytest.param(path, line, match.group(1), id=f"{path.relative_to(REPO)}:{line}")


def imported(code: str) -> Set[str]:
    """The top-level packages `code` imports."""
    names = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def skip_without_optional_packages(code: str) -> None:
    for package in sorted(imported(code) & set(OPTIONAL)):
        pytest.importorskip(package)


BLOCKS = [*code_blocks(REPO / "README.md"), *code_blocks(REPO / "python" / "README.md")]
EXAMPLES = sorted((REPO / "examples" / "python").glob("*.py"))


def test_the_docs_have_python_examples() -> None:
    # The README's "From Python" blocks and python/README.md's: the pattern still finds them.
    assert len(BLOCKS) >= 5
    assert REPO / "examples" / "python" / "quickstart.py" in EXAMPLES


@pytest.mark.parametrize("path, line, code", BLOCKS)
def test_readme_python_blocks_run(monkeypatch, path: Path, line: int, code: str) -> None:
    skip_without_optional_packages(code)
    monkeypatch.chdir(REPO)
    # Padded so that a traceback names the README's own line.
    compiled = compile("\n" * (line - 1) + code, str(path), "exec")
    exec(compiled, {"__name__": "__glp_doc__"})


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name)
def test_python_examples_run(example: Path) -> None:
    skip_without_optional_packages(example.read_text())
    done = subprocess.run(
        [sys.executable, str(example.relative_to(REPO))], cwd=REPO, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, f"{example.name} failed:\n{done.stdout}\n{done.stderr}"
