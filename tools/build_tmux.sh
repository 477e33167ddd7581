#!/usr/bin/env bash
# Build one tmux release from its source into a prefix, for the lab: running the live tests
# against tmux releases the machines do not ship (README, "tmux versions tested").
# CI does not run this; it tests the machines' own tmux.
#
#   tools/build_tmux.sh [--deps] VERSION SOURCE [PREFIX]
#
# VERSION  a tag of tmux's repository (3.4, 3.5a, 3.6 ...)
# SOURCE   a git directory of tmux's repository (a clone, bare or not), or a release tarball,
#          or an unpacked source tree of that release
# PREFIX   where it installs; default /opt/tmux-VERSION (keep it outside the repository)
# --deps   first install the build dependencies from Debian's packages (needs root)
#
# Then: PATH=/opt/tmux-3.6/bin:$PATH .venv/bin/pytest tests/plugin/test_plugin_live.py ...
set -euo pipefail

deps=0
if [[ ${1:-} == --deps ]]; then
    deps=1
    shift
fi
if [[ $# -lt 2 ]]; then
    sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
fi
version=$1
source=$2
prefix=${3:-/opt/tmux-$version}

if ((deps)); then
    apt-get update -q
    apt-get install -y -q build-essential libevent-dev libncurses-dev bison autoconf automake pkg-config
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/tmux-build-$version.XXXXXX")
trap 'rm -rf "$work"' EXIT
src=$work/src
mkdir -p "$src"

if git --git-dir="$source" rev-parse --git-dir >/dev/null 2>&1; then
    git --git-dir="$source" archive "refs/tags/$version" | tar -x -C "$src"
elif git -C "$source" rev-parse --git-dir >/dev/null 2>&1; then
    git -C "$source" archive "refs/tags/$version" | tar -x -C "$src"
elif [[ -f $source ]]; then
    tar -x -f "$source" -C "$src" --strip-components=1
elif [[ -d $source ]]; then
    cp -a "$source/." "$src"
else
    echo "build_tmux: no source at $source" >&2
    exit 2
fi

cd "$src"
# A tree from git has no configure script yet; a release tarball has one.
if [[ ! -x configure ]]; then
    sh autogen.sh
fi
./configure --prefix="$prefix" >"$work/configure.log" 2>&1 || {
    tail -30 "$work/configure.log" >&2
    exit 1
}
make -j"$(nproc)" >"$work/make.log" 2>&1 || {
    tail -30 "$work/make.log" >&2
    exit 1
}
make install >"$work/install.log" 2>&1
"$prefix/bin/tmux" -V
