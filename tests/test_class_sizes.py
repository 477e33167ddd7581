"""No class grows into one room again (issue #31: the daemon's `Daemon` had reached 943 lines,
the emulator's `TmuxScreen` 553 and its `Parser` 446; their parts live in their own modules now).
Run as a script, it lists the largest classes of the package: `python -m tests.test_class_sizes`."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "osf_tmux"
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


def test_no_class_is_over_the_limit() -> None:
    sizes = class_sizes(PACKAGE)
    assert sizes and all(n <= LIMIT for n, _ in sizes), sizes[:3]


def test_the_size_check_counts_decorators_and_bodies(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    body = "".join(f"    def m{i}(self) -> None:\n        pass\n\n" for i in range(LIMIT // 3 + 1))
    (package / "big.py").write_text(
        f"import dataclasses\n\n@dataclasses.dataclass\nclass Big:\n{body}"
    )
    (package / "small.py").write_text("class Small:\n    x = 1\n")
    sizes = class_sizes(package)
    assert [name for _, name in sizes] == ["pkg/big.py:Big", "pkg/small.py:Small"]
    assert sizes[0][0] == 2 + 3 * (LIMIT // 3 + 1) - 1 > LIMIT
    assert sizes[1][0] == 2


if __name__ == "__main__":
    for n, name in class_sizes(PACKAGE)[:10]:
        print(f"{n:5d}  {name}")
