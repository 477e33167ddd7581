"""The package's folders follow the pipeline: a lower one never imports a higher one (lazy
imports inside functions count too), and the hook endpoint's imports stay cheap."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from osf_tmux.agents import HOOKED
from osf_tmux.agents.integration import module_name as agent_module_name

PACKAGE = Path(__file__).resolve().parent.parent / "osf_tmux"
# Lowest first; a module may import its own layer and the ones before it.
LAYERS = [
    {"osf_tmux", "osf_tmux.clock", "osf_tmux.paths", "osf_tmux.tmux"},
    {"osf_tmux.vt"},
    {"osf_tmux.judge"},
    {"osf_tmux.daemon"},
    {"osf_tmux.agents"},
    {"osf_tmux.plugin"},
    {"osf_tmux.cli", "osf_tmux.__main__"},
]


def layer_of(module: str) -> int:
    """The layer of a dotted name: its subpackage's, or the bottom's for a top-level module."""
    parts = module.split(".")
    for depth in (2, 1):
        name = ".".join(parts[:depth])
        for i, layer in enumerate(LAYERS):
            if name in layer:
                return i
    raise AssertionError(f"{module} is in no layer: add its package to LAYERS")


def module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports(path: Path) -> set[str]:
    """Every osf_tmux module a file imports, anywhere in it."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found |= {f"{node.module}.{a.name}" for a in node.names}
    return {name for name in found if name.split(".")[0] == "osf_tmux"}


MODULES = sorted(PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=[module_name(p) for p in MODULES])
def test_no_module_imports_a_higher_layer(path: Path) -> None:
    own = layer_of(module_name(path))
    higher = sorted(name for name in imports(path) if _known(name) and layer_of(name) > own)
    assert not higher, f"{module_name(path)} (layer {own}) imports {higher}"


def _known(name: str) -> bool:
    # `from osf_tmux.x import NAME` also yields osf_tmux.x.NAME, which may be a function.
    parts = name.split(".")
    for depth in range(len(parts), 0, -1):
        base = PACKAGE.parent.joinpath(*parts[:depth])
        if base.with_suffix(".py").exists() or (base / "__init__.py").exists():
            return True
    return False


def test_the_layer_check_can_fail() -> None:
    assert layer_of("osf_tmux.cli.main") > layer_of("osf_tmux.vt.screen")
    assert layer_of("osf_tmux.tmux") == 0


def test_every_subpackage_says_what_it_holds_and_may_import() -> None:
    for init in PACKAGE.glob("*/__init__.py"):
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
        assert "May import" in doc, f"{init.parent.name}/__init__.py: say what it may import"


def test_the_hook_endpoint_and_agent_modules_import_only_cheap_modules() -> None:
    """The endpoint runs on every hook call with `-I -S`; its start-up is most of its cost."""
    modules = {f"osf_tmux.agents.{agent_module_name(a)}" for a in HOOKED}
    names = ", ".join(sorted(modules))
    code = (
        "import sys; before = set(sys.modules); "
        f"sys.path.insert(0, {str(PACKAGE.parent)!r}); "
        f"import osf_tmux.agents.report, {names}; "
        "print(' '.join(sorted(set(sys.modules) - before)))"
    )
    out = subprocess.run(
        [sys.executable, "-I", "-S", "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    heavy = {"json", "re", "pathlib", "dataclasses", "typing", "subprocess", "tomllib", "click"}
    assert not heavy & set(out), f"imported at hook time: {sorted(heavy & set(out))}"
    assert modules <= set(out)
