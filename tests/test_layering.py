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


# tests/ mirrors the house: a folder per subpackage of osf_tmux, `rules` for rules/*.toml, `tools`
# for tools/, `support` for what tests share. At the top only the house's own checks and the
# tests of the top-level modules (osf_tmux/tmux.py and its neighbours).
TESTS = Path(__file__).resolve().parent
TEST_FOLDERS = {
    *(p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()),
    "rules",
    "tools",
    "support",
}
TOP_LEVEL_TESTS = {
    *(f"test_{p.stem}" for p in PACKAGE.glob("*.py") if not p.stem.startswith("_")),
    "test_class_sizes",
    "test_layering",
    "test_no_timed_asserts",
    "test_packaging",
    "test_quickstart",
}


def misplaced_tests(tests: Path) -> list[str]:
    """Test files and folders that do not sit where the layout says."""
    wrong: list[str] = []
    for folder in sorted(p for p in tests.iterdir() if p.is_dir() and p.name != "__pycache__"):
        if folder.name not in TEST_FOLDERS:
            wrong.append(f"{folder.name}/: no package, rules or tools of that name")
        elif not (folder / "__init__.py").exists():
            wrong.append(f"{folder.name}/: no __init__.py (its modules would clash by name)")
        if folder.name == "support":
            wrong += [f"support/{p.name}: a test among the helpers" for p in folder.glob("test_*")]
        wrong += [
            f"{p.relative_to(tests)}: one folder too deep" for p in folder.glob("*/test_*.py")
        ]
    for path in sorted(tests.glob("*.py")):
        if path.stem.startswith("test_"):
            if not any(path.stem.startswith(name) for name in TOP_LEVEL_TESTS):
                wrong.append(f"{path.name}: belongs in the folder of the package it tests")
        elif path.stem not in ("__init__", "conftest"):
            wrong.append(f"{path.name}: a helper belongs in support/")
    return wrong


def test_tests_mirror_the_package() -> None:
    assert misplaced_tests(TESTS) == []


def test_the_layout_check_can_fail(tmp_path: Path) -> None:
    (tmp_path / "daemon").mkdir()
    (tmp_path / "daemon" / "__init__.py").write_text("")
    (tmp_path / "daemon" / "test_ok.py").write_text("")
    (tmp_path / "test_daemon_loop.py").write_text("")
    (tmp_path / "live.py").write_text("")
    (tmp_path / "fleet").mkdir()
    (tmp_path / "vt").mkdir()
    assert misplaced_tests(tmp_path) == [
        "fleet/: no package, rules or tools of that name",
        "vt/: no __init__.py (its modules would clash by name)",
        "live.py: a helper belongs in support/",
        "test_daemon_loop.py: belongs in the folder of the package it tests",
    ]
