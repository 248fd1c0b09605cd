#!/bin/sh
# Screen tests of the timeline: the real trex in tmux at 80x24, 160x48 and
# 40x12, on the demo trace and a corpus trace.
. "${TREX_SRCDIR:-.}/tests/e2e/lib.sh"
require_built
. "${TREX_SRCDIR:-.}/tests/screen/lib.sh"

# The visible range in the status line, "0 ns .. 56.2 ms (56.2 ms)".
range() {
	screen_text | grep -E '^ .* \.\. .*\(' | sed 's/  .*//; s/ *cursor.*//'
}

# timeline_checks W H ARGS...: one session through the main keys.
timeline_checks() {
	w=$1 h=$2
	shift 2
	what="$w""x$h $*"
	screen_start "$w" "$h" -- "$@"
	check_screen "$what: the timeline appears" screen_wait 'trex:'
	screen_settle
	check_screen "$what: track names" sh -c "tmux -L $SCREEN_SOCK capture-pane -t t -p | grep -E -q '(thread|stream)'"
	check_screen "$what: the axis has ticks with units" sh -c "tmux -L $SCREEN_SOCK capture-pane -t t -p | sed -n 2p | grep -E -q '[0-9]+(ns|us|ms|s)'"
	r0=$(range)
	screen_keys w
	screen_settle
	r1=$(range)
	if [ -n "$r0" ] && [ -n "$r1" ] && [ "$r0" != "$r1" ]; then ok "$what: zoom-in changes the range"; else not_ok "$what: zoom-in changes the range ('$r0' -> '$r1')"; fi
	screen_keys 0
	screen_settle
	r2=$(range)
	if [ "$r0" = "$r2" ]; then ok "$what: fit-all restores it"; else not_ok "$what: fit-all restores it ('$r0' -> '$r2')"; fi
	screen_keys .
	screen_settle
	check_screen "$what: next slice shows name, start and duration" sh -c "tmux -L $SCREEN_SOCK capture-pane -t t -p | grep -E -q ' start .* dur [0-9]'"
	screen_keys '?'
	check_screen "$what: ? shows the keys" screen_wait 'keys of the timeline'
	screen_settle
	check_screen "$what: help lists the zoom keys" screen_page_to 'w, \+, = +Zoom in'
	check_screen "$what: help lists fit-all" screen_page_to '^ +0 +Show the'
	screen_keys q
	check_screen "$what: q closes the help" screen_wait ' .. '
	screen_keys q
	check_screen "$what: q quits, the shell prompt is back" screen_wait 'EXIT=0'
	check_screen "$what: the timeline is gone" sh -c "! tmux -L $SCREEN_SOCK capture-pane -t t -p | grep -q 'trex: '"
}

timeline_checks 80 24 --demo
timeline_checks 160 48 --demo
timeline_checks 40 12 --demo

# Resize: the screen equals a fresh start at the new size.
for size in "100 30" "60 20" "160 48"; do
	set -- $size
	screen_start 80 24 -- --demo
	screen_wait ' .. ' >/dev/null
	screen_settle
	tm resize-window -t t -x "$1" -y "$2"
	screen_settle
	screen_text >"$TEST_TMP/resized.txt"
	screen_dump "$1" "$2" "$TEST_TMP/fresh.txt" --demo
	if diff "$TEST_TMP/fresh.txt" "$TEST_TMP/resized.txt" >"$TEST_TMP/diff.txt"; then
		ok "resize 80x24 -> $1x$2 redraws exactly like a fresh start"
	else
		not_ok "resize 80x24 -> $1x$2 redraws exactly like a fresh start"
		diag_file "$TEST_TMP/diff.txt" 30
	fi
	screen_keys q
	screen_wait 'EXIT=0' >/dev/null
done

# Below 40x12: the enlarge message, and back.
screen_start 80 24 -- --demo
screen_wait ' .. ' >/dev/null
screen_settle
tm resize-window -t t -x 39 -y 12
check_screen "39x12: enlarge the window" screen_wait 'enlarge the window'
tm resize-window -t t -x 40 -y 11
check_screen "40x11: enlarge the window" screen_wait 'need 40x12, have 40x11'
tm resize-window -t t -x 40 -y 12
check_screen "back to 40x12: the timeline" screen_wait 'trex: demo'
screen_keys q
check_screen "q quits from the small screen" screen_wait 'EXIT=0'

# A corpus trace.
if have_corpus; then
	trace=$(corpus_traces | grep kineto | head -n 1)
	timeline_checks 80 24 "$trace"
else
	skip "corpus trace in the timeline" "no corpus"
fi

done_testing
