"""The package's folders follow the pipeline: a lower one never imports a higher one (lazy
imports inside functions count too), and the hook endpoint's imports stay cheap."""

from __future__ import annotations

import ast
import functools
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
    {"osf_tmux.fleet"},
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
    "test_support",
    "test_tiers",
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
    (tmp_path / "gadgets").mkdir()
    (tmp_path / "vt").mkdir()
    assert misplaced_tests(tmp_path) == [
        "gadgets/: no package, rules or tools of that name",
        "vt/: no __init__.py (its modules would clash by name)",
        "live.py: a helper belongs in support/",
        "test_daemon_loop.py: belongs in the folder of the package it tests",
    ]


# ---- no import circle ----------------------------------------------------------------------------


def module_imports(path: Path) -> set[str]:
    """The osf_tmux modules importing `path` runs: every import anywhere in it (at the top, in a
    function, under TYPE_CHECKING), each with the packages Python imports on the way to it. A
    `from P import NAME` reaches P.NAME when that is a module of its own, else P itself."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
            names += [f"{node.module}.{a.name}" for a in node.names]
        else:
            continue
        for name in names:
            parts = name.split(".")
            found |= {".".join(parts[:n]) for n in range(1, len(parts) + 1)}
    return {name for name in found if name in MODULE_NAMES}


MODULE_NAMES = {module_name(p) for p in MODULES}


@functools.cache
def import_graph() -> dict[str, set[str]]:
    """Module -> the modules it imports, self-imports (a module's own package) left out (read
    once: the tests below only read it)."""
    graph = {module_name(p): module_imports(p) for p in MODULES}
    return {m: targets - {m} for m, targets in graph.items()}


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """A shortest circle through every knot, as the path `a -> b -> ... -> a`."""
    return [_circle_in(graph, knot) for knot in import_knots(graph)]


def import_knots(graph: dict[str, set[str]]) -> list[set[str]]:
    """The groups of modules that import each other, directly or round about (Tarjan's strongly
    connected components of more than one module)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group: set[str] = set()
            while True:
                top = stack.pop()
                on_stack.discard(top)
                group.add(top)
                if top == node:
                    break
            if len(group) > 1:
                groups.append(group)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return groups


def _circle_in(graph: dict[str, set[str]], group: set[str]) -> list[str]:
    """A shortest circle through the group's first module, staying inside the group."""
    start = min(group)
    paths: dict[str, list[str]] = {start: [start]}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for nxt in sorted(graph[node] & group):
            if nxt == start:
                return [*paths[node], start]
            if nxt not in paths:
                paths[nxt] = [*paths[node], nxt]
                queue.append(nxt)
    raise AssertionError(f"no circle in {sorted(group)}")


def test_no_import_circle() -> None:
    """Lazy imports inside functions and imports for type checking count: a circle through them
    is still two modules that cannot be understood (or moved) one without the other."""
    graph = import_graph()
    knots = import_knots(graph)
    said = [f"{' -> '.join(_circle_in(graph, k))} (knot: {', '.join(sorted(k))})" for k in knots]
    assert not knots, "import circles:\n" + "\n".join(said)


def test_the_circle_check_can_fail() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"e2"}, "e2": {"e"}}
    assert import_cycles(graph) == [["a", "b", "c", "a"], ["e", "e2", "e"]]
    assert import_cycles({"a": {"b"}, "b": set()}) == []


def test_agent_modules_never_import_what_finds_agents_by_name() -> None:
    """`integration` imports an agent's module by its name (importlib: no import statement the
    graph above sees), and `hooks` goes through it: an agent module, or a hook-file kind it
    uses, importing either would be a circle all the same."""
    finders = {"osf_tmux.agents.hooks", "osf_tmux.agents.integration"}
    graph = import_graph()
    agents = {f"osf_tmux.agents.{agent_module_name(a)}" for a in HOOKED}
    below: set[str] = set()
    todo = list(agents)
    while todo:  # the agent modules and all they import
        module = todo.pop()
        if module not in below:
            below.add(module)
            todo.extend(graph[module])
    reach = sorted(m for m in below if graph[m] & finders)
    assert not reach, f"these import {sorted(finders)} and are imported by agent modules: {reach}"
