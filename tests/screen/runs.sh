#!/bin/sh
# Screen tests of runs and devices in the interface: two files that claim
# the same rank (corpus kineto/hta_trace_compare) say so on the first screen,
# and on stderr once the interface is gone, and stay apart in the timeline,
# the kernels and the GPU-time views, whatever their order; GPUs are called
# "GPU n" (with the rank when several files are loaded).
. "${TREX_SRCDIR:-.}/tests/e2e/lib.sh"
require_built
. "${TREX_SRCDIR:-.}/tests/screen/lib.sh"

have_corpus || skip_all "shared corpus not found at ${TREX_CORPUS:-(TREX_CORPUS unset)}"

compare=$TREX_CORPUS/kineto/hta_trace_compare
base=$compare/base.json.gz
test=$compare/test.json.gz
dlrm=$TREX_CORPUS/kineto/param_dlrm_8rank
warning='base.json.gz and test.json.gz both claim rank 1; they are shown as separate runs'
SCREEN=$TEST_TMP/screen.txt

# dump W H KEYS ARGS...: the screen after KEYS into $SCREEN, headless.
dump() {
	w=$1 h=$2 keys=$3
	shift 3
	screen_dump "$w" "$h" "$SCREEN" --script="$keys" "$@"
}

# lines N GREP_ARGS...: N lines of the dump match (N "some": one or more),
# else the dump as diagnostics.
lines() {
	want=$1
	shift
	n=$(grep -c "$@" "$SCREEN")
	if [ "$n" = "$want" ] || { [ "$want" = some ] && [ "$n" -gt 0 ]; }; then
		return 0
	fi
	echo "$n lines match $*, not $want"
	sed 's/^/|/' "$SCREEN"
	return 1
}

for order in "$base $test" "$test $base"; do
	what="rank 1 twice (${order##*/} last)"
	# shellcheck disable=SC2086 # two corpus paths without blanks
	dump 120 30 '' $order
	check "$what: the first screen says the two files claim rank 1" lines 1 -F -e "$warning"
	check "$what: the timeline has the GPU of each file, called GPU 1" \
		lines 2 -E -e '^ +[▾▸] 1 GPU 1 *│'
	# shellcheck disable=SC2086
	dump 160 30 '6' $order
	check "$what: the GPU-time view has the base run's GPU" \
		lines some -F -e 'rank 1 (base.json.gz) GPU 1'
	check "$what: ... and the test run's" lines some -F -e 'rank 1 (test.json.gz) GPU 1'
	check "$what: ... each label says the rank once" lines 0 -F -e 'rank 1 rank 1'
	# shellcheck disable=SC2086
	dump 160 30 '2 B B B B B' $order
	check "$what: kernels by rank: a row per file" \
		lines 2 -E -e '^ +[0-9.]+ .* (base|test)\.json\.gz$'
	# shellcheck disable=SC2086
	dump 160 30 '2 B B B B B Enter' $order
	check "$what: Enter on the base run lists its 6 instances" \
		lines some -F -e '6 instances of rank 1 (base.json.gz)'
done

run_trex clash --force --dump-screen "$TEST_TMP/x.txt" --script= "$test" "$base"
check "rank 1 twice: one warning on stderr once the interface is gone" \
	sh -c "[ \"\$(grep -c 'claim rank' '$TEST_TMP/clash.err')\" -eq 1 ] &&
		grep -q -F 'trex: warning: $warning' '$TEST_TMP/clash.err'"

dump 120 30 '' "$dlrm"/worker0_*.json.gz "$dlrm"/worker1_*.json.gz
check "two ranks: no warning" lines 0 -e 'claim rank'
check "two ranks: the GPU of rank 0 is GPU 0 in the timeline" lines 1 -E -e '^ +[▾▸] 0 GPU 0 *│'
dump 120 30 '6' "$dlrm"/worker0_*.json.gz "$dlrm"/worker1_*.json.gz
check "two ranks: the GPU-time view calls rank 0's GPU rank 0 GPU 0" \
	lines some -F -e 'rank 0 GPU 0'
check "two ranks: ... and rank 1's rank 1 GPU 1" lines some -F -e 'rank 1 GPU 1'
check "two ranks: no process name for a GPU" lines 0 -e python3

done_testing
