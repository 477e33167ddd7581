#!/usr/bin/env bash
# The osf-tmux plugin. It only finds the osf-tmux program and hands over to
# `osf-tmux plugin load` (options, status formats, the jump key, the daemon: all in Python).
# Without the program, the first load installs it into a venv inside the plugin directory.
# Both run in the background (run-shell -b): tmux never waits for Python or pip. TPM throws
# our output away, so what happens goes to the log (`osf-tmux doctor` shows it) and to
# display-message.
set -u
set -o pipefail

PLUGIN_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$PLUGIN_DIR/.venv"
LOCK="$PLUGIN_DIR/.venv.lock"  # one bootstrap at a time (a reload while pip runs)
STATE_DIR="${XDG_STATE_HOME:-$HOME/.local/state}/osf-tmux"
LOG="$STATE_DIR/plugin.log"  # the install's (per user); each server's loads: osf-tmux doctor

log() {
	mkdir -p "$STATE_DIR" && printf '%s %s\n' "$(date '+%Y-%m-%d %H:%M:%S')" "$*" >>"$LOG"
}

say() {  # on every attached client; `#` would start a format
	local client text="$*"
	for client in $(tmux list-clients -F '#{client_name}' 2>/dev/null); do
		tmux display-message -c "$client" -d 8000 "osf-tmux: ${text//#/##}" 2>/dev/null
	done
}

# A path inside a run-shell command: quoted for sh, `#` doubled for tmux's format expansion.
quoted() {
	local q
	q="$(printf '%q' "$1")"
	printf '%s' "${q//#/##}"
}

find_bin() {
	local candidate
	for candidate in "$(tmux show-option -gqv @osf-bin)" "${OSF_TMUX_BIN:-}" "$VENV/bin/osf-tmux" \
		"$(command -v osf-tmux)"; do
		if [ -n "$candidate" ] && [ -x "$candidate" ]; then
			printf '%s\n' "$candidate"
			return 0
		fi
	done
	return 1
}

load_in_background() {  # what a load does is in its server's own log; errors land here too
	local bin
	bin="$(quoted "$1")"
	mkdir -p "$STATE_DIR"
	tmux run-shell -b "$bin plugin load --bin $bin >/dev/null 2>>$(quoted "$LOG")"
}

# The bootstrap lock is a directory (mkdir is atomic) with the holder in it: its pid and the
# time that process started, so that a holder that is gone (a reboot or an OOM kill in the
# middle of pip) is told from one that still runs, even once its pid belongs to another process.
started() {  # when process $1 started, as ps says it ('' when it is gone or ps cannot say)
	ps -o lstart= -p "$1" 2>/dev/null | tr -s ' '
}

holder_alive() {  # $1: the holder as the lock says it, "PID START"
	local pid="${1%% *}" start="${1#* }"
	case "$pid" in '' | *[!0-9]*) return 1 ;; esac
	kill -0 "$pid" 2>/dev/null && [ "$(started "$pid")" = "$start" ]
}

take_lock() {
	local me holder
	me="$$ $(started "$$")"
	if mkdir "$LOCK" 2>/dev/null; then
		printf '%s\n' "$me" >"$LOCK/holder"
		return 0
	fi
	holder="$(cat "$LOCK/holder" 2>/dev/null)"
	if [ -n "$holder" ] && holder_alive "$holder"; then
		return 1
	fi
	# No holder written: taken an instant ago (mkdir comes first), or left by an older version
	# of this script; that one is trusted for ten minutes (an install takes about one).
	if [ -z "$holder" ] && [ -n "$(find "$LOCK" -maxdepth 0 -mmin -10 2>/dev/null)" ]; then
		return 1
	fi
	log "bootstrap: taking over $LOCK from ${holder:-a holder that wrote no pid}, gone"
	# Renamed before it is removed: of two loads that both found it stale, one gets it.
	mv "$LOCK" "$LOCK.stale.$$" 2>/dev/null || return 1
	if [ "$(cat "$LOCK.stale.$$/holder" 2>/dev/null)" != "$holder" ]; then
		mv "$LOCK.stale.$$" "$LOCK" 2>/dev/null  # a live one taken meanwhile: give it back
		return 1
	fi
	rm -rf "$LOCK.stale.$$"
	mkdir "$LOCK" 2>/dev/null || return 1
	printf '%s\n' "$me" >"$LOCK/holder"
}

release_lock() {
	[ "$(cat "$LOCK/holder" 2>/dev/null)" = "$$ $(started "$$")" ] && rm -rf "$LOCK"
}

link_hint() {  # the one command that puts osf-tmux on PATH ('' when one is there already)
	local bin dir
	command -v osf-tmux >/dev/null 2>&1 && return 0
	bin="$(printf '%q' "$PLUGIN_DIR/bin/osf-tmux")"
	for dir in "$HOME/.local/bin" "$HOME/bin"; do
		case ":$PATH:" in
		*":$dir:"*) [ -w "$dir" ] && printf 'ln -s %s %s' "$bin" "$(printf '%q' "$dir/osf-tmux")" && return 0 ;;
		esac
	done
	printf 'mkdir -p ~/.local/bin && ln -s %s ~/.local/bin/osf-tmux, and put ~/.local/bin on PATH' "$bin"
}

bootstrap() {
	local python="${OSF_TMUX_PYTHON:-python3}"
	if ! take_lock; then
		log "bootstrap: already running ($(cat "$LOCK/holder" 2>/dev/null || echo "$LOCK"))"
		return 0
	fi
	trap release_lock EXIT
	log "bootstrap: installing osf-tmux into $VENV with $python"
	say "installing osf-tmux into $VENV (first load, about a minute)..."
	if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 10))' >>"$LOG" 2>&1; then
		log "bootstrap: failed: $python is missing or older than 3.10"
		say "install failed: needs Python >= 3.10 (see $LOG; or: pipx install $PLUGIN_DIR)"
		return 1
	fi
	# Editable: a TPM update (git pull) takes effect on the next load without reinstalling.
	if ! { "$python" -m venv "$VENV" && "$VENV/bin/python" -m pip install -q -e "$PLUGIN_DIR"; } \
		2>&1 | sed 's/^/    | /' >>"$LOG"; then
		log "bootstrap: failed: venv or pip install (output above)"
		say "install failed (see $LOG; or: pipx install $PLUGIN_DIR)"
		return 1
	fi
	local link
	link="$(link_hint)"
	log "bootstrap: ok: the command is $PLUGIN_DIR/bin/osf-tmux${link:+ (to type it as osf-tmux: $link)}"
	if "$VENV/bin/osf-tmux" plugin load --bin "$VENV/bin/osf-tmux" >/dev/null 2>>"$LOG"; then
		say "installed and running: prefix + $(tmux show-option -gqv @osf-key-next) jumps to" \
			"waiting agents, prefix + $(tmux show-option -gqv @osf-key-menu) shows them all;" \
			"the command: $PLUGIN_DIR/bin/osf-tmux${link:+ (to type it as osf-tmux: $link)}" \
			"(prefix + : osf-doctor checks everything)"
	else
		say "installed, but loading failed (prefix + : osf-doctor, or $PLUGIN_DIR/bin/osf-tmux doctor)"
	fi
}

main() {
	local bin
	if [ "${1:-}" = "--bootstrap" ]; then
		bootstrap
		return
	fi
	if bin="$(find_bin)"; then
		load_in_background "$bin"
	else
		tmux run-shell -b "bash $(quoted "${BASH_SOURCE[0]}") --bootstrap >/dev/null 2>&1"
	fi
}

main "$@"
