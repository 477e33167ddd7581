"""bench/ holds scripts, not a package (they import each other by file name): tests that check
a piece of one load it by path."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BENCH = Path(__file__).resolve().parents[2] / "bench"


def bench_script(name: str) -> ModuleType:
    """bench/NAME.py as a module, loaded once per process."""
    key = f"osf_bench_{name}"
    if key in sys.modules:
        return sys.modules[key]
    spec = importlib.util.spec_from_file_location(key, BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[key] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module
