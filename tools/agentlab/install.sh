#!/usr/bin/env bash
# Install the agent CLIs that the lab drives into $OSF_AGENTLAB_HOME (default
# ~/.cache/osf-agentlab), outside the repository: nothing installed here is committed.
#
#   tools/agentlab/install.sh [claude] [codex] [gemini] [aider]      (default: all four)
#
# Versions: the registry's latest, unless pinned with CLAUDE_VERSION, CODEX_VERSION,
# GEMINI_VERSION, AIDER_VERSION. The npm version is resolved with `npm view` first because a
# bare `npm install pkg` into a prefix can settle on an older release than `latest`.
set -euo pipefail

LAB="${OSF_AGENTLAB_HOME:-$HOME/.cache/osf-agentlab}"
mkdir -p "$LAB/npm"
if [ "$#" -eq 0 ]; then set -- claude codex gemini aider; fi

npm_install() {  # package pinned-version-or-empty
    local pkg="$1" ver="${2:-}"
    if [ -z "$ver" ]; then ver="$(npm view "$pkg" version)"; fi
    echo "installing $pkg@$ver into $LAB/npm"
    # Install scripts are skipped (npm 11 skips unapproved ones anyway): the lab finds the
    # native binaries inside the platform packages itself.
    npm install --prefix "$LAB/npm" --no-audit --no-fund --ignore-scripts "$pkg@$ver"
}

pick_python() {  # aider-chat supports CPython 3.10-3.12
    for py in python3.12 python3.11 python3.10; do
        if command -v "$py" >/dev/null 2>&1 && "$py" -c 'import venv' 2>/dev/null; then
            echo "$py"; return 0
        fi
    done
    echo "no python3.10-3.12 found for aider" >&2
    return 1
}

for agent in "$@"; do
    case "$agent" in
        claude) npm_install @anthropic-ai/claude-code "${CLAUDE_VERSION:-}" ;;
        codex) npm_install @openai/codex "${CODEX_VERSION:-}" ;;
        gemini) npm_install @google/gemini-cli "${GEMINI_VERSION:-}" ;;
        aider)
            py="$(pick_python)"
            [ -x "$LAB/aider-venv/bin/python" ] || "$py" -m venv "$LAB/aider-venv"
            spec="aider-chat${AIDER_VERSION:+==$AIDER_VERSION}"
            echo "installing $spec into $LAB/aider-venv"
            "$LAB/aider-venv/bin/pip" install --quiet "$spec"
            ;;
        *) echo "unknown agent: $agent (claude codex gemini aider)" >&2; exit 2 ;;
    esac
done
echo "done: python -m tools.agentlab list"
