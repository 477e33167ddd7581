"""Character widths as tmux sees them.

tmux 3.3a asks the C library (wcwidth(3)) and drops characters it calls unprintable (-1). The
Python wcwidth package follows a newer Unicode than glibc does and disagrees on some characters
(regional-indicator flag letters are 1 cell in glibc, 2 in the package; recent emoji are -1 in
glibc 2.36). So the C library answers when it is usable here, the package otherwise."""

from __future__ import annotations

import ctypes
import ctypes.util
from collections.abc import Callable
from functools import lru_cache

from wcwidth import wcwidth as _py_wcwidth

_REGIONAL_INDICATORS = range(0x1F1E6, 0x1F200)


def _python_width(char: str) -> int:
    if ord(char) in _REGIONAL_INDICATORS:
        return 1
    return int(_py_wcwidth(char))


def _libc_width() -> Callable[[str], int] | None:
    """The C library's wcwidth, if it loads and works in the current (UTF-8) locale."""
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        libc = ctypes.CDLL(name)
        func = libc.wcwidth
    except (OSError, AttributeError):
        return None
    func.argtypes = [ctypes.c_wchar]
    func.restype = ctypes.c_int
    # In a non-UTF-8 locale wcwidth answers -1 for everything outside ASCII.
    if func("界") != 2 or func("a") != 1 or func("\u0301") != 0:
        return None

    def width(char: str) -> int:
        return int(func(char))

    return width


_width = _libc_width() or _python_width


@lru_cache(maxsize=8192)
def char_width(char: str) -> int:
    """Cells a character takes in tmux: 0 combines with the previous cell, -1 is dropped."""
    return _width(char)
