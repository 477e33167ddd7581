"""No test asserts how long something took: the machine is shared (2 cores, up to 8 people's
jobs), so a timed assert fails under load (`test_kill9_and_restart_recovers` saw 3.64 s against
its 2.0). Durations are measured by the benchmarks in bench/ and written to bench/RESULTS.md.

A duration here is a name assigned a difference of clock readings (`time.monotonic() - t0`,
with `t0 = time.monotonic()`; also `perf_counter()`, `time.time()`, `process_time()`); an
assert that compares one is a timed assert. Waiting with a deadline (`retry_until(...,
timeout=)`) is not, nor is checking that a time stamp is recent."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
CLOCKS = {"monotonic", "perf_counter", "time", "process_time", "monotonic_ns", "perf_counter_ns"}


def _is_clock(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in CLOCKS
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "time"
    )


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _measures(node: ast.AST, readings: set[str]) -> bool:
    """Whether `node` holds a difference of clock readings (`time.monotonic() - t0`)."""
    return any(
        isinstance(n, ast.BinOp)
        and isinstance(n.op, ast.Sub)
        and (any(_is_clock(m) for m in ast.walk(n)) or bool(_names(n) & readings))
        for n in ast.walk(node)
    )


def timed_asserts(source: str) -> list[int]:
    """Line numbers of asserts that compare a duration measured in the same function."""
    found: list[int] = []
    if "time." not in source:
        return found  # no clock read of the form `_is_clock` knows: nothing to parse
    for func in ast.walk(ast.parse(source)):
        if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        assigns = [n for n in ast.walk(func) if isinstance(n, ast.Assign)]
        readings = {
            t.id
            for a in assigns
            if _is_clock(a.value)
            for t in a.targets
            if isinstance(t, ast.Name)
        }
        durations = {
            t.id
            for a in assigns
            if _measures(a.value, readings)
            for t in a.targets
            if isinstance(t, ast.Name)
        }
        for node in ast.walk(func):
            if isinstance(node, ast.Assert):
                compares = [n for n in ast.walk(node.test) if isinstance(n, ast.Compare)]
                if any(_names(c) & durations for c in compares):
                    found.append(node.lineno)
    return found


@pytest.mark.parametrize(
    "path", sorted(TESTS.rglob("test_*.py")), ids=lambda p: p.relative_to(TESTS).as_posix()
)
def test_no_test_asserts_a_duration(path: Path) -> None:
    assert timed_asserts(path.read_text(encoding="utf-8")) == []


def test_the_check_sees_one() -> None:
    source = (
        "import time\n"
        "def test_x():\n"
        "    t0 = time.monotonic()\n"
        "    work()\n"
        "    elapsed = time.monotonic() - t0\n"
        "    assert elapsed < 2.0\n"
        "    assert abs(float(epoch) - time.time()) < 30\n"  # a recent stamp, not a duration
    )
    assert timed_asserts(source) == [6]
