#!/bin/sh
# Screen tests of the diff view (issue 16 item 1): `trex A --compare B`
# and V show A's kernels against B's, as `trex diff --by kernels` prints
# them (largest change first, new and gone marked); Enter shows a kernel
# of A in A's timeline, and says so for a kernel only B has; without
# --compare, V says how to give a run. Hand-checked traces written here:
#   A: k_same 10 us twice, k_slow 10 us, k_gone 5 us
#   B: k_same 10 us twice, k_slow 30 us, k_new 7 us
# so the rows are k_slow +20 us, k_new +7 us, k_gone -5 us, k_same 0.
. "${TREX_SRCDIR:-.}/tests/e2e/lib.sh"
require_built
. "${TREX_SRCDIR:-.}/tests/screen/lib.sh"

SCREEN=$TEST_TMP/screen.txt
A=$TEST_TMP/a.json
B=$TEST_TMP/b.json
kernel() { # NAME TS DUR
	printf '{"ph":"X","cat":"kernel","name":"%s","pid":0,"tid":7,"ts":%s,"dur":%s}' "$1" "$2" "$3"
}
{
	printf '{"traceEvents":[%s,%s,%s,%s]}\n' "$(kernel k_same 0 10)" "$(kernel k_same 20 10)" \
		"$(kernel k_slow 40 10)" "$(kernel k_gone 60 5)"
} >"$A"
{
	printf '{"traceEvents":[%s,%s,%s,%s]}\n' "$(kernel k_same 0 10)" "$(kernel k_same 20 10)" \
		"$(kernel k_slow 40 30)" "$(kernel k_new 80 7)"
} >"$B"

shows() { grep -E -q -- "$1" "$SCREEN" || { sed 's/^/|/' "$SCREEN"; false; }; }
# row_order: the names of the diff rows, top to bottom, one line.
row_order() { grep -o -E 'k_(slow|new|gone|same)$' "$SCREEN" | head -n 4 | tr '\n' ' '; }

screen_script 160 30 "$SCREEN" "V" "$A" --compare "$B"
check "V with --compare: the diff view, titled" shows 'this run \(A\) against --compare \(B\)'
check "the rows by largest change: k_slow, k_new, k_gone, k_same" \
	test "$(row_order)" = "k_slow k_new k_gone k_same "
check "k_slow changed by 20 us (+200 %)" shows '^ *changed +20 +us +200\.00 .*k_slow$'
check "k_new is new, k_gone gone, k_same same" \
	sh -c "grep -q -E '^ *new .*k_new\$' '$SCREEN' && grep -q -E '^ *gone .*k_gone\$' '$SCREEN' &&
		grep -q -E '^ *same .*k_same\$' '$SCREEN'"

screen_script 160 30 "$SCREEN" "V Enter" "$A" --compare "$B"
check "Enter on k_slow: A's timeline with k_slow selected" shows 'k_slow'
check "Enter on k_slow: the timeline, not the table" sh -c "! grep -q 'against --compare' '$SCREEN'"

screen_script 160 30 "$SCREEN" "V j Enter" "$A" --compare "$B"
check "Enter on k_new (only in B): says it is not in this timeline" \
	shows 'only in the --compare run: not in this timeline'

screen_script 160 30 "$SCREEN" "V" "$A"
check "V without --compare: says how to give a run" shows 'no run to compare with: open with --compare B'

run_trex nobar "$A" --compare "$TEST_TMP/no-such.json" --dump-screen "$SCREEN" --script V
check "--compare of a missing run: exit 2 naming it" \
	sh -c "[ \"\$(cat '$TEST_TMP/nobar.rc')\" -eq 2 ] && grep -q no-such.json '$TEST_TMP/nobar.err'"

done_testing
