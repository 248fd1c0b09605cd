#!/bin/sh
# Screen tests of what the interface says. Trace strings with escape
# sequences in them (names, a category, args, process and thread names of
# tests/data/control_chars.json: ESC [2J, ESC ]0;...BEL that sets the window
# title, a C1 CSI, NUL) never reach the terminal raw: every view shows them
# as escapes in reverse video, while a name that literally holds "\x1b" is
# plain text. Counts in the singular, the title's file count, the export
# error's file name.
. "${TREX_SRCDIR:-.}/tests/e2e/lib.sh"
require_built
. "${TREX_SRCDIR:-.}/tests/screen/lib.sh"

TRACE=$TREX_SRCDIR/tests/data/control_chars.json
ESC=$(printf '\033')

# shows TEXT: the pane shows TEXT (fixed string).
shows() {
	screen_text | grep -F -q -- "$1"
}

# title_kept: the trace's OSC 0 did not retitle the pane.
title_kept() {
	! tm display -p -t t '#{pane_title}' | grep -E -q 'pwned|title'
}

# reversed BEFORE ESCAPE: in the pane with attributes, the escape that
# follows BEFORE is drawn in reverse video (SGR 7 between them).
reversed() {
	tm capture-pane -t t -p -e | grep -F -q -- "$1${ESC}[7m$2"
}

# plain TEXT: TEXT appears with no attribute change inside it.
plain() {
	tm capture-pane -t t -p -e | grep -F -q -- "$1"
}

meta_escaped() {
	shows 'proc\x1b[2J\x1b[H' && shows 'thr\x1b]0;pwned\x07'
}
details_escaped() {
	shows 'name: op\x1b]0;title\x07x' && shows 'category: cpu\0op\x1b[7m' &&
		shows 'thr\x1b]0;pwned\x07'
}
nul_rows() {
	shows '  a\0b' && shows '  a\0c'
}
c1_del_escaped() {
	shows 'c1\u0080\u009b[2J' && shows 'ctl\x01\x07\t\n\r\x7f'
}

for term in xterm-256color xterm vt100 linux; do
	screen_start 130 30 "TERM=$term" -- "$TRACE"
	screen_wait 'stream 7' >/dev/null
	screen_settle
	check_screen "$term: process and thread names shown escaped" meta_escaped
	check_screen "$term: ESC ]0; in a trace does not retitle the window" title_kept
	check_screen "$term: an escape is drawn in reverse video" reversed 'proc' '\x1b'
	screen_keys q
	screen_wait 'EXIT=0' >/dev/null
done

screen_start 130 45 -- "$TRACE"
screen_wait 'stream 7' >/dev/null
# the op slice, found by a search, and its details with args
screen_keys / o p
screen_wait '/op' >/dev/null
screen_keys Enter
screen_settle
screen_keys Enter
screen_wait 'Details' >/dev/null
screen_settle
check_screen "details: name, category and track escaped" details_escaped
check_screen "details: args with NUL, ESC and C1 in key and value" \
	shows 'k\0ey: v\x1b[31ma\0l\u009b'
check_screen "status line: the selected name escaped" shows 'op\x1b]0;title\x07x  start'
check_screen "details: one child, said in the singular" shows 'depth: 0 (1 child)'
check_screen "details: the window title is untouched" title_kept
screen_keys 2
screen_wait 'kernels by name' >/dev/null
screen_settle
check_screen "kernels table: a\\0b and a\\0c are two rows" nul_rows
check_screen "kernels table: the ESC of a name is an escape" reversed 'esc' '\x1b'
check_screen "kernels table: a literal \\x1b in a name is plain text" plain 'lit\x1b[31mred'
check_screen "kernels table: C1 controls and DEL escaped" c1_del_escaped
# a search in the timeline: the prompt, the count and the match's name
screen_keys 1
screen_wait 'stream 7' >/dev/null
screen_keys / e s c
screen_wait '/esc' >/dev/null
screen_settle
one_match() {
	shows '1 match' && ! shows '1 matches'
}
check_screen "search: one match, said in the singular" one_match
screen_keys Enter
screen_settle
check_screen "search: the match's name escaped in the details" shows 'name: esc\x1b[31mred'
check_screen "search: the window title is untouched" title_kept
screen_keys q
screen_wait 'EXIT=0' >/dev/null

# the title: the file count and base names, cut with an ellipsis
DATA=$TREX_SRCDIR/tests/data
screen_dump 100 12 "$TEST_TMP/title.txt" --script '' "$DATA/kernels.json" "$DATA/array.json"
check "title: the file count and base names" \
	grep -q '^ trex: 2 files: kernels.json, array.json  ' "$TEST_TMP/title.txt"
screen_dump 40 12 "$TEST_TMP/title.txt" --script '' "$DATA/kernels.json" "$DATA/array.json"
check "title: cut with an ellipsis at 40 columns" grep -q '^ trex: 2 files: kernels.json, a.*… ' \
	"$TEST_TMP/title.txt"
screen_dump 100 12 "$TEST_TMP/title.txt" --script '2' "$DATA/kernels.json" "$DATA/array.json"
check "title of a table: the same file count" \
	grep -q '^ trex: kernels by name - 2 files: kernels.json, array.json' "$TEST_TMP/title.txt"

# an export that fails names the file
mkdir -p "$TEST_TMP/exp"
(cd "$TEST_TMP/exp" && screen_dump 80 24 "$TEST_TMP/exp.txt" \
	--script '2 x <C-u> n o - d i r / k . c s v Enter' "$TRACE")
check "export: the error names the file" grep -q '^ export failed: no-dir/k\.csv: ' "$TEST_TMP/exp.txt"
(cd "$TEST_TMP/exp" && screen_dump 80 24 "$TEST_TMP/exp.txt" --script '2 x Enter' "$DATA/object.json")
check "export: \"wrote 1 row\" for one row" grep -q '^ wrote 1 row to kernels.csv' "$TEST_TMP/exp.txt"

done_testing
