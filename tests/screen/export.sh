#!/bin/sh
# Screen tests of the trace-export dialog (X, export-trace; issue 13 item 5).
# Each scope is exported from the timeline of the demo through --script and
# compared byte for byte with `trex export` given the same scope; files are
# reloaded with `trex info` and `trex kernels` and their events counted with
# Python; an existing file is replaced only after y; Esc and C-c during the
# export leave nothing behind; a failure names the file; the dialog works
# outside the timeline, for Chakra, on xterm-256color and vt100 (ASCII), on
# a small screen, and interactively in tmux.
. "${TREX_SRCDIR:-.}/tests/e2e/lib.sh"
require_built
. "${TREX_SRCDIR:-.}/tests/screen/lib.sh"

python=${PYTHON3:-python3}
W=$TEST_TMP/w # trex's working directory: the dialog writes there
S=$TEST_TMP/screen.txt
mkdir -p "$W"

# xdump TERM W H KEYS ARGS...: trex --script KEYS run in $W at W x H; the
# screen in $S (outside $W, so $W holds only what the dialog wrote).
xdump() {
	term=$1 xw=$2 xh=$3 keys=$4
	shift 4
	rm -f "$S"
	# shellcheck disable=SC2046
	(cd "$W" && $(screen_env LINES="$xh" COLUMNS="$xw" TERM="$term") "$TREX" -q \
		--force --dump-screen "$S" --script "$keys" "$@" </dev/null >/dev/null 2>>"$TEST_TMP/xdump.err")
	[ -f "$S" ] || echo "(no screen: exit $?)" >"$S"
}
# ascii_dump W H KEYS ARGS...: the same on a vt100 in the C locale.
ascii_dump() {
	aw=$1 ah=$2 akeys=$3
	shift 3
	# shellcheck disable=SC2046
	(cd "$W" && $(screen_env LINES="$ah" COLUMNS="$aw" TERM=vt100 LANG=C LC_ALL=C) "$TREX" -q \
		--force --dump-screen "$S" --script "$akeys" "$@" </dev/null >/dev/null 2>>"$TEST_TMP/xdump.err")
}
shows() {
	grep -F -q -- "$1" "$S"
}
last_says() {
	sed -n '$p' "$S" | grep -E -q -- "$1"
}
fresh() {
	rm -rf "$W" && mkdir -p "$W"
}
# cli NAME ARGS...: `trex export ARGS -o $TEST_TMP/NAME` (outside $W).
cli() {
	cname=$1
	shift
	"$TREX" export -q "$@" -o "$TEST_TMP/$cname" </dev/null >/dev/null 2>"$TEST_TMP/cli.err"
}
# same_as_cli FILE NAME ARGS...: the dialog's FILE is what `trex export ARGS` writes.
same_as_cli() {
	f=$1 n=$2
	shift 2
	cli "$n" "$@" && cmp "$W/$f" "$TEST_TMP/$n"
}
# reported: the N of the status line's "wrote ...: N events".
reported() {
	sed -n '$s/.*): \([0-9]*\) \(events\|nodes\).*/\1/p' "$S"
}
# counts FILE: "slices instants samples" of a Chrome JSON export, by Python.
counts() {
	"$python" -c 'import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
ph = [e.get("ph") for e in ev]
print(len(ev), ph.count("X"), sum(p in ("i", "I") for p in ph))' "$1"
}
# reloads FILE: trex info's event line on FILE agrees with Python's counts,
# and the dialog's reported count is the number of trace events.
reloads() {
	set -- "$1" $(counts "$1")
	[ "$(reported)" = "$2" ] &&
		"$TREX" info "$1" | grep -q "^Events: $3 slices, $4 instants"
}
same_kernels() {
	"$TREX" kernels --demo >"$TEST_TMP/k.demo" && "$TREX" kernels "$1" >"$TEST_TMP/k.out" &&
		cmp "$TEST_TMP/k.demo" "$TEST_TMP/k.out"
}

# ---- the dialog ---------------------------------------------------------------------------------

xdump xterm-256color 80 24 'X' --demo
check_dump "X opens the dialog with every format" eval "shows 'Export the trace' &&
	shows '(*) chrome' && shows '( ) perfetto' && shows '( ) csv' && shows '( ) chakra ' &&
	shows '( ) chakra-json'"
check_dump "the scopes: all chosen, what cannot be had says why" eval "shows '(*) all: ' &&
	shows 'marked range - no range is marked (m, move, m marks one)' &&
	shows \"filter's slices - no slice filter is set\" && shows '( ) visible tracks: ' &&
	shows \"( ) selected track: rank 0 / GPU 0 / stream 7 (the cursor's)\""
check_dump "the path: a default in the current directory" shows 'Path     demo.all.json'
check_dump "nothing is written before Enter" test -z "$(ls -A "$W")"

xdump xterm-256color 80 24 '? G' --demo
check_dump "the help screen lists export-trace on X" sh -c "grep -q '^ *X .*Export the trace' '$S'"
xdump xterm-256color 80 24 '2 ? G' --demo
check_dump "... and in the tables' help" sh -c "grep -q '^ *X .*Export the trace' '$S'"

# ---- every scope, as trex export writes it ----------------------------------------------------

xdump xterm-256color 80 24 'X <Enter>' --demo
check_dump "all: the status line says what was written" \
	last_says '^ wrote demo.all.json \(chrome, all\): [0-9]+ events, [0-9.]+ MB$'
check "all: the file is trex export's" same_as_cli demo.all.json all.json --demo
check "all: reloads with the counts Python finds" reloads "$W/demo.all.json"
check "all: the same kernels table as the trace" same_kernels "$W/demo.all.json"

range_keys='T 1 0 m s <Enter> m T 2 0 m s <Enter> m'
xdump xterm-256color 80 24 "$range_keys X" --demo
check_dump "a marked range: the dialog opens on it" eval "shows '(*) marked range: 10 ms .. 20 ms' &&
	shows 'Path     demo.range.json'"
xdump xterm-256color 80 24 "$range_keys X <Enter>" --demo
check_dump "range: written" last_says '^ wrote demo.range.json \(chrome, marked range\): [0-9]+ events'
check "range: the file is trex export --range's" same_as_cli demo.range.json range.json --demo --range 10ms:20ms
check "range: reloads with the counts Python finds" reloads "$W/demo.range.json"

xdump xterm-256color 80 24 '| s t r e a m <Enter> X <Tab> <Down> <Enter>' --demo
check_dump "visible tracks (a track filter): written" \
	last_says '^ wrote demo.tracks.json \(chrome, visible tracks\): [0-9]+ events'
check "visible tracks: the file is trex export --tracks's" same_as_cli demo.tracks.json tracks.json --demo --tracks stream
check "visible tracks: reloads with the counts Python finds" reloads "$W/demo.tracks.json"
check "visible tracks: every kernel is on them" same_kernels "$W/demo.tracks.json"
fresh
xdump xterm-256color 80 24 'X <Tab> <Down> <Enter>' --demo
check "visible tracks (hidden ones left out): fewer events than all, the same kernels" eval "
	test \"\$(reported)\" -lt \"\$(counts '$TEST_TMP/all.json' | cut -d' ' -f1)\" && same_kernels '$W/demo.tracks.json'"

xdump xterm-256color 80 24 '\ g e m m <Enter> X <Tab> <Down> <Down> <Enter>' --demo
check_dump "filter: written" last_says "^ wrote demo.filter.json \\(chrome, filter's slices\\): [0-9]+ events"
check "filter: the file is trex export --filter's" same_as_cli demo.filter.json filter.json --demo --filter gemm
check "filter: reloads with the counts Python finds" reloads "$W/demo.filter.json"

xdump xterm-256color 80 24 'X <Tab> <Down> <Down> <Enter>' --demo
check_dump "selected track: written" last_says '^ wrote demo.track.json \(chrome, selected track\): [0-9]+ events'
check "selected track: the file is trex export --tracks '^stream 7''s" same_as_cli demo.track.json track.json --demo --tracks '^stream 7'
check "selected track: reloads with the counts Python finds" reloads "$W/demo.track.json"

# ---- other formats ------------------------------------------------------------------------------

xdump xterm-256color 80 24 'X <Down> <Enter>' --demo
check_dump "perfetto: written" last_says '^ wrote demo.all.pftrace \(perfetto, all\)'
check "perfetto: the file is trex export's" same_as_cli demo.all.pftrace all.pftrace --demo
check "perfetto: reloads with the same kernels table" same_kernels "$W/demo.all.pftrace"
xdump xterm-256color 80 24 "$range_keys X <Down> <Down> <Enter>" --demo
check "csv of the range: the file is trex export's" same_as_cli demo.range.csv range.csv --demo --range 10ms:20ms
check "csv: one row per slice written" eval "test \"\$(reported)\" -eq \$((\$(wc -l <'$W/demo.range.csv') - 1))"

xdump xterm-256color 80 24 "$range_keys X <Down> <Down> <Down>" --demo
check_dump "chakra: only all, the others say why; the path is a prefix" eval "shows '(*) all' &&
	shows 'marked range: 10 ms .. 20 ms - chakra writes the whole trace' && shows 'Prefix   demo.all '"
xdump xterm-256color 80 24 "$range_keys X <Down> <Down> <Down> <Enter>" --demo
check_dump "chakra: written, in nodes" last_says '^ wrote demo.all.RANK.et \(chakra, all\): [0-9]+ nodes'
check "chakra: the set is trex export --to chakra's" eval "cli cli --demo --to chakra &&
	cmp '$W/demo.all.0.et' '$TEST_TMP/cli.0.et'"

# ---- replacing, cancelling, failing -------------------------------------------------------------

fresh
echo 'not a trace' >"$W/demo.all.json"
xdump xterm-256color 80 24 'X <Enter>' --demo
check_dump "an existing file: asked first" shows 'demo.all.json exists; replace it? (y/n)'
xdump xterm-256color 80 24 'X <Enter> n' --demo
check_dump "n: not replaced, said so" last_says '^ not replaced: demo.all.json$'
check "n: the file is as it was" sh -c "test \"\$(cat '$W/demo.all.json')\" = 'not a trace'"
check "n: no temporary file left" test "$(ls -A "$W")" = demo.all.json
xdump xterm-256color 80 24 'X <Enter> y' --demo
check_dump "y: replaced" last_says '^ wrote demo.all.json \(chrome, all\)'
check "y: the file is trex export's" cmp "$W/demo.all.json" "$TEST_TMP/all.json"

fresh
xdump xterm-256color 80 24 'X <Enter> <Esc>' --demo
check_dump "Esc during the export: cancelled" last_says '^ export cancelled: demo.all.json not written$'
check "Esc during the export: nothing left behind" test -z "$(ls -A "$W")"
xdump xterm-256color 80 24 'X <Down> <Enter> <C-c>' --demo
check_dump "C-c during the export: cancelled" last_says '^ export cancelled: demo.all.pftrace not written$'
check "C-c during the export: nothing left behind" test -z "$(ls -A "$W")"
xdump xterm-256color 80 24 'X <Esc>' --demo
check_dump "Esc in the dialog: closed, nothing written" eval "last_says '^ export cancelled$' &&
	! shows 'Export the trace' && test -z \"\$(ls -A '$W')\""

xdump xterm-256color 80 24 'X <Tab> <Tab> <C-u> n o / s u c h / x . j s o n <Enter>' --demo
check_dump "a failure: one line naming the file, the dialog stays" eval "
	last_says '^ export failed: no/such/x.json: ' && shows 'Export the trace' && test -z \"\$(ls -A '$W')\""
xdump xterm-256color 80 24 'X <Tab> <Tab> <C-u> o u t . c s v <Enter>' --demo
check_dump "a csv name with chrome chosen: refused, saying which to choose" \
	last_says '^ export: out.csv is a csv name, but the format is chrome: choose csv, or rename$'
xdump xterm-256color 80 24 'X <Down> <Down> <Tab> <Tab> <C-u> o u t . c s v <Enter>' --demo
check_dump "... and with csv chosen, written" last_says '^ wrote out.csv \(csv, all\)'

fresh
xdump xterm-256color 80 24 'X <Tab> <Tab> <C-u> a . j s o n <Enter> X <Tab> <Tab> <Up> <Enter>' --demo
check_dump "the path's history: Up recalls the last name (which exists now)" \
	shows 'a.json exists; replace it? (y/n)'
xdump xterm-256color 80 24 'X <Tab> <Tab> <C-a> <C-k> ~ / h . j s o n <Enter>' --demo
check "a leading ~/ is the home directory" test -f "$SCREEN_HOME/h.json"
rm -f "$SCREEN_HOME/h.json"

# ---- outside the timeline, other terminals, small screens --------------------------------------

fresh
xdump xterm-256color 80 24 '2 X' --demo
check_dump "kernels view: X opens the dialog with all only" eval "shows '(*) all' &&
	shows 'marked range - only in the timeline (1)' &&
	shows 'selected track - only in the timeline (1)'"
xdump xterm-256color 80 24 '2 X <Tab> <Down>' --demo
check_dump "kernels view: another scope cannot be chosen, and says why" \
	last_says '^ marked range: only in the timeline \(1\)$'
xdump xterm-256color 80 24 '2 X <Enter>' --demo
check "kernels view: all written, as trex export writes it" cmp "$W/demo.all.json" "$TEST_TMP/all.json"

fresh
ascii_dump 80 24 'X' --demo
check_dump "vt100, C locale: an ASCII box and keys" eval "shows '+- Export the trace -' &&
	shows 'Up/Down: choose' && shows '(*) chrome'"
ascii_dump 80 24 'X <Enter>' --demo
check_dump "vt100: written" last_says '^ wrote demo.all.json \(chrome, all\)'
check "vt100: the file is trex export's" cmp "$W/demo.all.json" "$TEST_TMP/all.json"

fresh
xdump xterm-256color 40 12 'X <Tab>' --demo
check_dump "40x12: the dialog shows the chosen format, scope and path" eval "shows '(*) chrome' &&
	shows '(*) all' && ! shows 'perfetto' && shows 'demo.all.json'"
xdump xterm-256color 40 12 'X <Down> <Enter>' --demo
check "40x12: written" test -f "$W/demo.all.pftrace"

# ---- interactively, in tmux ---------------------------------------------------------------------

fresh
here=$(pwd)
cd "$W" || exit 99 # the shell in tmux starts here
screen_start 100 30 -- --demo
cd "$here" || exit 99
screen_wait ' .. ' >/dev/null
screen_keys X
check_screen "tmux: X opens the dialog" screen_wait 'Export the trace'
screen_keys Enter
check_screen "tmux: Enter writes" screen_wait 'wrote demo.all.json (chrome, all)'
check "tmux: the file is trex export's" cmp "$W/demo.all.json" "$TEST_TMP/all.json"
screen_keys X
screen_wait 'Export the trace' >/dev/null
screen_keys Enter
check_screen "tmux: again: asked before replacing" screen_wait 'demo.all.json exists; replace it? (y/n)'
screen_keys n
check_screen "tmux: n keeps it" screen_wait 'not replaced: demo.all.json'
screen_keys Escape
screen_keys q
check_screen "tmux: quits cleanly" screen_wait 'EXIT=0'
check "tmux: nothing but the export in the directory" test "$(ls -A "$W")" = demo.all.json
check "no sanitizer report from any scripted run" sanitizer_clean "$TEST_TMP/xdump.err"

done_testing
