#!/bin/sh
# Screen tests of the timeline's drawing and time keys, through
# --script/--dump-screen: the cursor's marker never covers an axis label's
# digits; zooming in at the limit does not pan and zooming out stops at the
# whole trace; every shipped theme loads by name from the build tree; the
# go-to-time prompt takes the absolute times the details pane prints and
# says when a time is outside the trace.
. "${TREX_SRCDIR:-.}/tests/e2e/lib.sh"
require_built
. "${TREX_SRCDIR:-.}/tests/screen/lib.sh"

TRACE=$TREX_CORPUS/kineto/hta_alexnet_cuda_sync/benchmark_result_2869224_1695835535_trace.json.gz

# ---- the axis: the cursor's marker and the labels --------------------------------------------

# axis_whole FILE: every label on the axis row (row 2) is whole: split at
# the ticks, the marker and blanks, each word is a number with a unit.
axis_whole() {
	sed -n 2p "$1" | cut -c24- | tr '│▼|' '   ' | tr -s ' ' '\n' | sed '/^$/d' >"$1.words"
	if grep -v -E -x -- '-?[0-9]+(\.[0-9]+)?(ns|us|ms|s)' "$1.words"; then
		echo "broken labels on the axis:"
		sed -n 2p "$1"
		return 1
	fi
	grep -q '▼' "$1" || { echo "no marker"; sed -n 2p "$1"; return 1; }
}

# the demo at 100 columns: 730 us per column, a label every 10 ms; these
# cursor times put the marker on a label's first, second and third column
# and on a tick
for t in 1ms 11ms 2ms 10.5ms 20ms 31ms 0; do
	screen_script 100 30 "$TEST_TMP/axis.txt" "T $(screen_keys_for "$t") <Enter>" --demo
	check "axis: the marker at $t covers no label's digits" axis_whole "$TEST_TMP/axis.txt"
done
for t in 1ms 12ms; do
	screen_script 100 30 "$TEST_TMP/axis.txt" "T $(screen_keys_for "$t") <Enter> w w w" --demo
	check "axis: zoomed in, the marker at $t covers no digits" axis_whole "$TEST_TMP/axis.txt"
done

# ---- zoom limits ----------------------------------------------------------------------------

# window FILE: the visible range "A .. B (SPAN)" of the status line.
window() {
	grep -E -o '^ *-?[0-9.]+ [numk]*s \.\. -?[0-9.]+ [numk]*s \([^)]*\)' "$1" | head -n 1
}

# at the limit, go-to-time puts the cursor mid-window: a w that zooms no
# further must leave the window where it is
many_w=$(printf 'w %.0s' $(seq 1 40))
screen_script 100 30 "$TEST_TMP/in.txt" "T 1 2 m s <Enter> $many_w T 1 2 m s <Enter>" --demo
screen_script 100 30 "$TEST_TMP/in2.txt" "T 1 2 m s <Enter> $many_w T 1 2 m s <Enter> w w" --demo
check "zoom: in as far as it goes, 1 ns per column" screen_has "$TEST_TMP/in.txt" " 1 ns/col"
check "zoom: w at the limit says so" screen_has "$TEST_TMP/in2.txt" "zoomed in as far as it goes"
if [ -n "$(window "$TEST_TMP/in.txt")" ] && [ "$(window "$TEST_TMP/in.txt")" = "$(window "$TEST_TMP/in2.txt")" ]; then
	ok "zoom: w at the limit does not pan ($(window "$TEST_TMP/in2.txt"))"
else
	not_ok "zoom: w at the limit does not pan ($(window "$TEST_TMP/in.txt") -> $(window "$TEST_TMP/in2.txt"))"
fi
screen_script 100 30 "$TEST_TMP/all.txt" "" --demo
for keys in "s" "s s s" "T 5 0 m s <Enter> w s s s" "T 1 m s <Enter> s s"; do
	screen_script 100 30 "$TEST_TMP/out.txt" "$keys" --demo
	if [ "$(window "$TEST_TMP/out.txt")" = "$(window "$TEST_TMP/all.txt")" ]; then
		ok "zoom: '$keys' stops at the whole trace ($(window "$TEST_TMP/out.txt"))"
	else
		not_ok "zoom: '$keys' stops at the whole trace"
		diag "whole: $(window "$TEST_TMP/all.txt")" "after: $(window "$TEST_TMP/out.txt")"
	fi
done
screen_script 100 30 "$TEST_TMP/out.txt" "s" --demo
check "zoom: s at the limit says so" screen_has "$TEST_TMP/out.txt" "zoomed out as far as it goes"

# ---- themes by name from the build tree ---------------------------------------------------------

for theme in dark light mono high-contrast; do
	screen_script 80 24 "$TEST_TMP/theme.txt" "" --demo --theme "$theme"
	check "--theme $theme works from the build tree" screen_has "$TEST_TMP/theme.txt" "trex: demo trace"
done
"$TREX" -q --demo --theme solarized --dump-screen "$TEST_TMP/theme.txt" </dev/null >/dev/null 2>"$TEST_TMP/theme.err"
check "--theme with an unknown name names the shipped themes" screen_has "$TEST_TMP/theme.err" \
	"no theme file or theme called 'solarized' \(themes: dark, light, mono, high-contrast\)"

# ---- go to time: absolute times, times outside the trace --------------------------------------

screen_script 100 30 "$TEST_TMP/g.txt" "T 9 9 m s <Enter>" --demo
check "goto: a time past the end says so" screen_has "$TEST_TMP/g.txt" "^ 99ms is past the trace \(0 ns \.\. 56\.[0-9] ms"
check "goto: ... and shows the end" screen_has "$TEST_TMP/g.txt" "cursor 56\.[0-9]+ ms"
if have_corpus && [ -f "$TRACE" ]; then
	start=$("$TREX" info -q --format=json "$TRACE" | sed -n 's/^{"start_ns": \([0-9]*\),.*/\1/p')
	at=$((start + 2500000000))
	screen_script 120 30 "$TEST_TMP/g.txt" "T $(screen_keys_for "$at") <Enter>" "$TRACE"
	check "goto: an absolute ns time ($at) goes there" screen_has "$TEST_TMP/g.txt" "cursor 2\.50* s "
	check "goto: ... and says it was read as absolute" screen_has "$TEST_TMP/g.txt" "^ absolute $at ns: 2\.5[0-9]* s into the trace"
	screen_script 120 30 "$TEST_TMP/g.txt" "T $(screen_keys_for "absolute $at ns") <Enter>" "$TRACE"
	check "goto: 'absolute N ns', as the details pane prints it" screen_has "$TEST_TMP/g.txt" "cursor 2\.50* s "
	screen_script 120 30 "$TEST_TMP/g.txt" ": $(screen_keys_for "$((start - 1000))") <Enter>" "$TRACE"
	check "goto: ':' with a time before the trace says so" screen_has "$TEST_TMP/g.txt" "^ $((start - 1000)) is before the trace"
	# the details pane's absolute start, typed back, selects the same slice
	screen_script 120 60 "$TEST_TMP/rows.txt" "" "$TRACE"
	down=$(awk 'NR > 2 && index($0, "   thread 2869224") == 1 { print NR - 3; exit }' "$TEST_TMP/rows.txt")
	go="g $(printf 'j %.0s' $(seq 1 "${down:-1}"))"
	screen_script 120 30 "$TEST_TMP/d.txt" "$go . . <Enter>" "$TRACE"
	abs=$(sed -n 's/^ start: .*; absolute \([0-9]*\) ns).*/\1/p' "$TEST_TMP/d.txt" | head -n 1)
	name=$(sed -n 's/^ name: //p' "$TEST_TMP/d.txt" | head -n 1)
	if [ -n "$abs" ]; then
		screen_script 120 30 "$TEST_TMP/d2.txt" "$go T $(screen_keys_for "$abs") <Enter> <Enter>" "$TRACE"
		check "goto: the printed absolute start selects the slice again" screen_has "$TEST_TMP/d2.txt" "absolute $abs ns\)"
		check "goto: ... the same slice" screen_has "$TEST_TMP/d2.txt" "^ name: $name"
	else
		not_ok "goto: the details pane prints an absolute start"
		diag_file "$TEST_TMP/d.txt" 30
	fi
else
	skip "goto: absolute times in a corpus trace" "no corpus at $TREX_CORPUS"
fi

done_testing
