#!/bin/sh
# Every character trex draws can be read, on every terminal type and with
# every shipped theme: under TERM=xterm, screen, linux (8 colours),
# xterm-256color, vt100 (none) and NO_COLOR, with the dark, light, mono and
# high-contrast themes, the timeline, a selected slice, the details pane, a
# marked range, the kernels, categories and GPU-time tables and the help
# screen are captured from tmux with their colours (capture-pane -e) and
# tests/screen/contrast.py fails on any visible character whose foreground
# could equal its background (the rule is in that file and in
# trex-theme(5), LEGIBILITY: nothing is assumed about the terminal's own
# colours but that they differ from each other, so a colour never meets a
# default that could be near it). The marked range must tint, never blank,
# what it covers: every cell it changes keeps its character, and a slice's
# colour stays.
. "${TREX_SRCDIR:-.}/tests/e2e/lib.sh"
require_built
. "${TREX_SRCDIR:-.}/tests/screen/lib.sh"

CONTRAST="$TREX_SRCDIR/tests/screen/contrast.py"

# Each session runs in a subshell of its own (its own tmux server) and
# writes PASS/FAIL lines for tap_from_stream: the sessions wait on the
# screen most of the time, so they run side by side.

capture() {
	tm capture-pane -t t -p -e >"$1"
}

# keys KEY...: each key, then the screen settles.
keys() {
	for k in "$@"; do
		screen_keys "$k"
	done
	screen_settle
}

# The j presses from the first row to the demo's stream 7 (with slices).
screen_dump 100 30 "$TEST_TMP/rows.txt" --demo
down=$(awk 'NR > 2 && index($0, "   stream 7") == 1 { print NR - 3; exit }' "$TEST_TMP/rows.txt")
[ -n "$down" ] || bail_out "no row 'stream 7' in the demo's timeline"

# session N TERM THEME ENV...: one terminal type and theme: the captures go
# to $TEST_TMP/N, contrast.py's results to stdout.
session() {
	n=$1 term=$2 theme=$3
	shift 3
	dir=$TEST_TMP/$n
	mkdir -p "$dir"
	SCREEN_N=$((n * 10))
	screen_start 100 30 "$@" -- --demo --theme "$theme"
	if screen_wait 'trex: demo trace'; then
		screen_settle
		capture "$dir/timeline"
		keys g
		i=0
		while [ "$i" -lt "$down" ]; do
			screen_keys j
			i=$((i + 1))
		done
		keys . . .
		capture "$dir/before"
		keys , , m . . m
		capture "$dir/range"
		keys Escape Enter
		capture "$dir/details"
		for view in 2 4 6 !; do
			keys "$view"
			capture "$dir/view$view"
		done
		keys '?'
		capture "$dir/help"
		keys Q
		screen_wait 'EXIT=0' >/dev/null || echo "FAIL $term $theme: Q quits"
	else
		screen_text | sed 's/^/  |/'
	fi
	tm kill-server
	"$PYTHON3" "$CONTRAST" session "$dir" "$term $theme"
}

n=0
for term in xterm screen linux xterm-256color vt100 NO_COLOR; do
	if [ "$term" = NO_COLOR ]; then
		set -- TERM=xterm-256color NO_COLOR=1
	elif infocmp "$term" >/dev/null 2>&1; then
		set -- "TERM=$term" NCURSES_GPM_TERMS=
	else
		echo "SKIP $term -- no terminfo entry for $term" >"$TEST_TMP/$term.out"
		continue
	fi
	for theme in dark light mono high-contrast; do
		n=$((n + 1))
		(session "$n" "$term" "$theme" "$@" >"$TEST_TMP/$n.out" 2>&1) &
	done
	[ $((n % 8)) -eq 0 ] && wait # eight sessions at a time
done
wait
n=0
for term in xterm screen linux xterm-256color vt100 NO_COLOR; do
	[ -f "$TEST_TMP/$term.out" ] && tap_from_stream <"$TEST_TMP/$term.out"
	[ -f "$TEST_TMP/$term.out" ] && continue
	for theme in dark light mono high-contrast; do
		n=$((n + 1))
		tap_from_stream <"$TEST_TMP/$n.out"
	done
done

done_testing
