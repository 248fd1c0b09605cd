# Helpers for the screen tests (sourced after tests/e2e/lib.sh): the real
# trex in a private tmux server, with a pinned environment.
#
#   screen_start W H ARGS...   a shell in a W x H window runs "trex ARGS"
#   screen_keys KEY...         tmux send-keys
#   screen_wait TEXT           until the pane shows TEXT (5 s), else false
#   screen_text                the pane as text
#   screen_dump W H FILE ARGS  trex --dump-screen FILE at W x H without tmux
#   dump W H KEYS ARGS         the screen after --script KEYS in $TEST_TMP/screen.txt,
#                              which has TEXT, line N, last_line and check_dump
#                              DESCRIPTION COMMAND... look at (a test may define its own)
#   data_takes_keys W H DESC KEYS  every tests/data trace takes KEYS
#   screen_script W H FILE KEYS ARGS  the same after --script KEYS
#   screen_has FILE REGEX      the dump shows REGEX, else the dump on stdout
#   screen_keys_for TEXT       TEXT as --script words, one per character

command -v tmux >/dev/null 2>&1 || skip_all "tmux not found"

SCREEN_N=0
SCREEN_SOCK=trex-screen-$$-0
SCREEN_HOME=$TEST_TMP/home
mkdir -p "$SCREEN_HOME"
trap 'tmux -L "$SCREEN_SOCK" kill-server >/dev/null 2>&1; rm -rf "$TEST_TMP"' EXIT

tm() {
	tmux -L "$SCREEN_SOCK" -f /dev/null "$@"
}

# The environment every run gets (extra VAR=value words may follow).
# (sanitizer options pass through: the suite's ASan run sets them)
screen_env() {
	printf '%s ' env -i "PATH=$PATH" "HOME=$SCREEN_HOME" TERM=xterm-256color \
		LANG=C.UTF-8 LC_ALL=C.UTF-8 TZ=UTC PS1=shell-prompt: "TREX_INDEX_DIR=$TREX_INDEX_DIR" \
		"ASAN_OPTIONS=${ASAN_OPTIONS:-}" "UBSAN_OPTIONS=${UBSAN_OPTIONS:-}" \
		"LSAN_OPTIONS=${LSAN_OPTIONS:-}" "$@"
}

# screen_start W H [VAR=value...] -- ARGS...
screen_start() {
	w=$1 h=$2
	shift 2
	envs=
	while [ "$#" -gt 0 ] && [ "$1" != -- ]; do
		envs="$envs $1"
		shift
	done
	[ "$#" -gt 0 ] && shift
	# a fresh server per session: no race with the previous one going away
	tm kill-server >/dev/null 2>&1
	SCREEN_N=$((SCREEN_N + 1))
	SCREEN_SOCK=trex-screen-$$-$SCREEN_N
	# shellcheck disable=SC2086
	tm new-session -d -s t -x "$w" -y "$h" "$(screen_env $envs) sh" || return 1
	screen_wait 'shell-prompt:' || return 1
	tm send-keys -t t "'$TREX' -q $* ; echo EXIT=\$?" Enter
}

screen_keys() {
	tm send-keys -t t "$@"
}

screen_text() {
	tm capture-pane -t t -p
}

screen_wait() {
	waits=0
	while [ "$waits" -lt 100 ]; do
		screen_text | grep -F -q -- "$1" && return 0
		sleep 0.1
		waits=$((waits + 1))
	done
	return 1
}

# screen_wait_file FILE: waits until the pane shows exactly FILE (10 s).
screen_wait_file() {
	waits=0
	while [ "$waits" -lt 100 ]; do
		[ "$(screen_text)" = "$(cat "$1")" ] && return 0
		sleep 0.1
		waits=$((waits + 1))
	done
	return 1
}

# screen_page_to TEXT: presses Space (page down) until TEXT shows (6 pages).
screen_page_to() {
	pages=0
	while [ "$pages" -lt 6 ]; do
		screen_text | grep -E -q -- "$1" && return 0
		tm send-keys -t t Space
		screen_settle
		pages=$((pages + 1))
	done
	screen_text | grep -E -q -- "$1"
}

# screen_busy: true while a process under the pane's shell is running or
# runnable, i.e. has not yet gone back to waiting for input.
screen_busy() {
	pids=$(tm display-message -p -t t '#{pane_pid}' 2>/dev/null) || return 1
	depth=0
	while [ -n "$pids" ] && [ "$depth" -lt 4 ]; do
		kids=
		for pid in $pids; do
			kids="$kids $(cat /proc/"$pid"/task/*/children 2>/dev/null)"
		done
		for kid in $kids; do
			# the state follows the parenthesised command name
			state=$(sed 's/.*) //' /proc/"$kid"/stat 2>/dev/null | cut -c1)
			[ "$state" = R ] && return 0
		done
		pids=$kids depth=$((depth + 1))
	done
	return 1
}

# screen_settle: until the pane shows the same text twice 0.15 s apart
# while trex is idle (5 s at most).
screen_settle() {
	prev= tries=0
	while [ "$tries" -lt 33 ]; do
		cur=$(screen_text)
		[ "$cur" = "$prev" ] && ! screen_busy && return 0
		prev=$cur
		sleep 0.15
		tries=$((tries + 1))
	done
}

screen_dump() {
	w=$1 h=$2 out=$3
	shift 3
	# shellcheck disable=SC2046
	$(screen_env LINES="$h" COLUMNS="$w") "$TREX" -q --force --dump-screen "$out" "$@" </dev/null >/dev/null 2>&1
}

# data_takes_keys W H DESCRIPTION KEYS: every hand-written trace of
# tests/data draws at W x H and takes the scripted KEYS: exit 0, or 2 (a
# file that is not a trace) without a sanitizer report.
data_takes_keys() {
	for f in "$TREX_SRCDIR"/tests/data/*.json; do
		# shellcheck disable=SC2046
		$(screen_env LINES="$2" COLUMNS="$1") timeout 30 "$TREX" -q "$f" \
			--force --dump-screen "$TEST_TMP/data.txt" --script "$4" </dev/null >/dev/null 2>"$TEST_TMP/data.err"
		rc=$?
		if [ "$rc" -eq 0 ] || { [ "$rc" -eq 2 ] && ! grep -q -i sanitizer "$TEST_TMP/data.err"; }; then
			ok "${f##*/}: $3 (exit $rc)"
		else
			not_ok "${f##*/}: $3 (exit $rc)"
			diag_file "$TEST_TMP/data.err"
		fi
	done
}

# screen_script W H FILE KEYS ARGS...: the screen after KEYS, headless; a
# run that writes no screen leaves a line saying so in FILE.
screen_script() {
	w=$1 h=$2 out=$3 keys=$4
	shift 4
	rm -f "$out"
	screen_dump "$w" "$h" "$out" --script="$keys" "$@"
	[ -f "$out" ] || echo "(no screen: trex $* failed)" >"$out"
}

# screen_has FILE REGEX: the dump shows REGEX (extended), else the dump as
# the reason.
screen_has() {
	if grep -E -q -- "$2" "$1"; then
		return 0
	fi
	echo "no line matches: $2"
	sed 's/^/|/' "$1"
	return 1
}

# screen_keys_for TEXT: "1 2 . 5 m s" for 12.5ms (a blank is <Space>).
screen_keys_for() {
	printf '%s' "$1" | sed -e 's/ /_/g' -e 's/./& /g' -e 's/_/<Space>/g'
}

# check_screen DESCRIPTION COMMAND...: check, with the pane as diagnostics on failure.
check_screen() {
	desc=$1
	shift
	if "$@" >/dev/null 2>&1; then
		ok "$desc"
	else
		not_ok "$desc"
		screen_text | sed 's/^/#   |/'
	fi
}

# dump W H KEYS ARGS...: the screen after KEYS, in $TEST_TMP/screen.txt.
dump() {
	dw=$1 dh=$2 dkeys=$3
	shift 3
	rm -f "$TEST_TMP/screen.txt"
	screen_dump "$dw" "$dh" "$TEST_TMP/screen.txt" --script "$dkeys" "$@"
}

line() {
	sed -n "$1p" "$TEST_TMP/screen.txt"
}

last_line() {
	sed -n '$p' "$TEST_TMP/screen.txt"
}

# has TEXT: the screen shows TEXT (fixed string).
has() {
	grep -F -q -- "$1" "$TEST_TMP/screen.txt"
}

# check_dump DESCRIPTION COMMAND...: a check with the screen as diagnostics.
check_dump() {
	desc=$1
	shift
	if "$@"; then
		ok "$desc"
	else
		not_ok "$desc"
		sed 's/^/#   |/' "$TEST_TMP/screen.txt" 2>/dev/null
	fi
}
