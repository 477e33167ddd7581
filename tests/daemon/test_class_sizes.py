"""No class in the daemon grows into one room again (issue #31: `Daemon` had reached 943 lines;
its parts live in their own modules now). Run as a script, it lists the largest classes of the
whole package: `python -m tests.daemon.test_class_sizes`."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "osf_tmux"
LIMIT = 400  # lines, decorators and docstring included


def class_sizes(root: Path) -> list[tuple[int, str]]:
    """(lines, `path:Class`) of every class under `root`, largest first."""
    sizes = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                assert node.end_lineno is not None
                sizes.append(
                    (node.end_lineno - start + 1, f"{path.relative_to(root.parent)}:{node.name}")
                )
    return sorted(sizes, reverse=True)


def test_no_class_of_the_daemon_is_over_the_limit() -> None:
    sizes = class_sizes(PACKAGE / "daemon")
    assert sizes and all(n <= LIMIT for n, _ in sizes), sizes[:3]


if __name__ == "__main__":
    for n, name in class_sizes(PACKAGE)[:10]:
        print(f"{n:5d}  {name}")
