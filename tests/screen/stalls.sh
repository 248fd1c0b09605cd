#!/bin/sh
# Screen tests of the stall views (issue 14) on the tests/data/stalls
# fixtures: the stalls table (3) and a kernel's report (reason bars, the
# hottest instructions, what SBID stalls wait for), the sources table (5)
# and the source pane (per-line samples in the margin, the assembly on
# Enter, the jump to the instruction waited for, e opening $EDITOR at the
# line), a compared report, a kernel without listing, no stall input.
. "${TREX_SRCDIR:?run through make check}/tests/e2e/lib.sh"
. "$TREX_SRCDIR/tests/screen/lib.sh"
require_built

D=$TREX_SRCDIR/tests/data/stalls/intel
INTEL="--dump $D/dumps --source-map /home/dev/vadd=$D/src $D/stalls.csv"

# shellcheck disable=SC2086 # INTEL is a word list
dump 110 40 "3" $INTEL
check_dump "3 opens the stalls table, a row per kernel" \
	sh -c "grep -q 'stall samples of 4 kernels' '$TEST_TMP/screen.txt' && grep -q 'GEMM' '$TEST_TMP/screen.txt'"

# GEMM first (store order): Sbid 159 of 197 (80.71%), its hottest at 0x50 waits for 0x38.
# shellcheck disable=SC2086
dump 110 40 "3 Enter" $INTEL
check_dump "Enter: the kernel's reasons as bars" \
	sh -c "grep -q 'Sbid  *159  *80.71%  █' '$TEST_TMP/screen.txt'"
check_dump "the hottest SBID stall and the instruction it waits for" \
	sh -c "grep -q '0x50  *80  *50.31%  dpas' '$TEST_TMP/screen.txt' && grep -q 'waits for 0x38  load.ugm' '$TEST_TMP/screen.txt'"
check_dump "Active is shown as no stall" has "(not a stall)"

# The lambda: Enter on the "waits for" row of its hottest SBID stall (0xe0, line 27)
# jumps to the producer 0xd0 in the source pane, its line's assembly shown.
# shellcheck disable=SC2086
dump 110 40 "3 j Enter j j j j j Enter" $INTEL
check_dump "the jump lands on the instruction waited for (0xd0)" \
	sh -c "grep -q '0xd0  load.ugm' '$TEST_TMP/screen.txt' && grep -q 'vadd.cpp:27' '$TEST_TMP/screen.txt'"

# The sources table: the hottest line first; Enter: the file with its margin.
# shellcheck disable=SC2086
dump 110 30 "5" $INTEL
check_dump "5 opens the sources table, hottest line first" \
	sh -c "sed -n 3p '$TEST_TMP/screen.txt' | grep -q 'vadd.cpp  *27  *286'"
# shellcheck disable=SC2086
dump 110 30 "5 Enter" $INTEL
check_dump "the source pane: per-line samples, share, bar and top reason" \
	sh -c "grep -q '286  41.6% ██████████ Sbid  *27 │  *s += c\[k\] \* x;' '$TEST_TMP/screen.txt'"
check_dump "unsampled lines have an empty margin" \
	sh -c "grep -q '^  *25 │  *// accumulate' '$TEST_TMP/screen.txt'"
# shellcheck disable=SC2086
dump 110 30 "5 Enter Enter j" $INTEL
check_dump "Enter shows the line's assembly" \
	sh -c "grep -q '0xb8  sync.allrd (\$0,\$5)  <- waits for 0xd0, 0x70' '$TEST_TMP/screen.txt'"

# e: $EDITOR +LINE FILE, the file as found through --source-map.
cat >"$TEST_TMP/editor" <<EOS
#!/bin/sh
echo "\$@" >"$TEST_TMP/editor.args"
EOS
chmod +x "$TEST_TMP/editor"
# shellcheck disable=SC2046,SC2086 # screen_env and INTEL are word lists
$(screen_env LINES=30 COLUMNS=110 "EDITOR=$TEST_TMP/editor") "$TREX" -q \
	--force --dump-screen "$TEST_TMP/screen.txt" --script "5 Enter e" $INTEL </dev/null >/dev/null 2>&1
check "e runs \$EDITOR +27 on the file found through --source-map" \
	grep -q "^+27 $D/src/vadd.cpp\$" "$TEST_TMP/editor.args"

# Source not found: the sampled lines as the listing quotes them, and why.
dump 110 30 "5 Enter" --dump "$D/dumps" "$D/stalls.csv"
check_dump "a file not found: why, and the quoted lines" \
	sh -c "grep -q 'vadd.cpp: not found' '$TEST_TMP/screen.txt' && grep -q '27 │  *s += c\[k\] \* x;' '$TEST_TMP/screen.txt'"

# Compared with an earlier run (its line 27: 400 samples, at 0xe0; the first
# row of the table, the run now's 286 the second): the change per line.
# shellcheck disable=SC2086
dump 110 30 "5 j Enter" --compare "$D/stalls_before.csv" $INTEL
check_dump "compared: line 27 went from 400 to 286 samples" \
	sh -c "grep -q 'compared' '$TEST_TMP/screen.txt' && grep -q '286  41.6% ██████████ Sbid  *-114  *27 │' '$TEST_TMP/screen.txt'"

# From a kernel (issue 14 item 4): trace.json has the report's GEMM and
# lambda #3 with unitrace's shape suffix, and lambda #5, which no report has.
TRACE="$D/trace.json $INTEL"
# shellcheck disable=SC2086 # TRACE is a word list
dump 110 30 "2 3" $TRACE
check_dump "3 on a kernels table row opens its stall report" \
	sh -c "grep -q 'stalls of GEMM (device 0)' '$TEST_TMP/screen.txt' && grep -q 'Sbid  *159  *80.71%' '$TEST_TMP/screen.txt'"
# shellcheck disable=SC2086
dump 110 30 "2 j 3" $TRACE
check_dump "... the shape suffix set aside (lambda #3, the device with most samples)" \
	has "stalls of main::{lambda(auto:1)#3} (device 0)"
# shellcheck disable=SC2086
dump 110 30 "2 j 3 q" $TRACE
check_dump "q goes back to the kernels table" \
	sh -c "sed -n 1p '$TEST_TMP/screen.txt' | grep -q 'kernels by name'"
# shellcheck disable=SC2086
dump 110 30 "2 j Enter 3 q" $TRACE
check_dump "3 on one of a kernel's instances opens its report, q goes back to them" \
	sh -c "sed -n 1p '$TEST_TMP/screen.txt' | grep -q '1 instance of main::{lambda(auto:1)#3}'"
# shellcheck disable=SC2086
dump 110 30 "2 j j 3" $TRACE
check_dump "a kernel without stall samples says so, then the stalls table" \
	sh -c "grep -q 'stall samples of 4 kernels' '$TEST_TMP/screen.txt' && sed -n '\$p' '$TEST_TMP/screen.txt' | grep -q 'no stall samples for main::{lambda(auto:1)#5}'"
# shellcheck disable=SC2086
dump 110 30 "/ G E M M <Enter> 3" $TRACE
check_dump "3 on a kernel selected in the timeline opens its stall report" \
	has "stalls of GEMM (device 0)"
# shellcheck disable=SC2086
dump 110 30 "/ G E M M <Enter> 3 q" $TRACE
check_dump "q goes back to the timeline, the kernel still selected" \
	sh -c "sed -n '\$p' '$TEST_TMP/screen.txt' | grep -q '^ GEMM\[SIMD32 .*dur 400 us'"
# shellcheck disable=SC2086
dump 110 30 "/ G E M M <Enter> 3 1" $TRACE
check_dump "1 over a report opened from the timeline shows the timeline" \
	sh -c "sed -n '\$p' '$TEST_TMP/screen.txt' | grep -q '^ GEMM\[SIMD32 .*dur 400 us'"
# shellcheck disable=SC2086
dump 110 30 "/ # 5 <Enter> 3" $TRACE
check_dump "a timeline kernel without stall samples says so, then the stalls table" \
	sh -c "grep -q 'stall samples of 4 kernels' '$TEST_TMP/screen.txt' && grep -q 'no stall samples for main::{lambda(auto:1)#5}' '$TEST_TMP/screen.txt'"
# shellcheck disable=SC2086
dump 110 30 "/ A p p e n d L a u n c h <Enter> 3" $TRACE
check_dump "on a CPU slice, 3 opens the stalls table without a word" \
	sh -c "grep -q 'stall samples of 4 kernels' '$TEST_TMP/screen.txt' && ! grep -q 'no stall samples' '$TEST_TMP/screen.txt'"

# No listing: the per-address histogram.
# 60 columns: what the report holds comes before its path, which may be long
dump 60 30 "3 Enter" "$D/stalls.csv"
check_dump "a kernel without listing still gets its addresses" \
	sh -c "grep -q 'no listing' '$TEST_TMP/screen.txt' && grep -q '0x50  *80' '$TEST_TMP/screen.txt'"

# No stall report: a message, the previous view kept.
dump 110 30 "3" --demo
check_dump "without a stall report, 3 says what to give" has "no stall report loaded"

done_testing
