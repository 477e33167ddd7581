"""Claude Code's MCP server: mcp_server.py with its `deploy` tool set (`deploy`, `lookup`).
A file of its own only so that the command the lab writes into Claude Code's config stays
`python3 mcp_lab_server.py`: `python3 mcp_lab_server.py [LOG]` is `mcp_server.py --tools
deploy [LOG]`."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

if __name__ == "__main__":
    sys.argv[1:1] = ["--tools", "deploy"]
    runpy.run_path(str(Path(__file__).with_name("mcp_server.py")), run_name="__main__")
