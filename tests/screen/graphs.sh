#!/bin/sh
# Screen tests of execution graphs in the timeline (--script/--dump-screen):
# every corpus ASTRA-sim text workload draws a process per NPU with its
# compute and comm tracks and the note that times are estimated; the
# hand-checked schedules (tests/e2e/astrasim.sh) show as such: the
# all-reduce of microAllReduce.txt on both NPUs over 21.472 us, a node of
# the 2-layer DATA workload at its start, duration and parent; a PyTorch
# host trace's op shows its parent op and its attributes (rf_id, op_schema).
. "${TREX_SRCDIR:-.}/tests/e2e/lib.sh"
require_built
. "${TREX_SRCDIR:-.}/tests/screen/lib.sh"

DATA=$TREX_SRCDIR/tests/data/astrasim
NOTE='times estimated from dependencies'

# has_all TEXT...: the screen shows every TEXT (fixed strings).
has_all() {
	for t in "$@"; do
		has "$t" || return 1
	done
}

lacks() {
	! has "$1"
}

# lines_with N TEXT: N lines of the screen show TEXT.
lines_with() {
	[ "$(grep -c -F -- "$2" "$TEST_TMP/screen.txt")" -eq "$1" ]
}

if [ -d "${TREX_CORPUS:-}/astrasim1" ]; then
	for f in "$TREX_CORPUS"/astrasim1/*.txt; do
		name=${f##*/}
		dump 130 40 '' "$f"
		check_dump "$name: a process per NPU" has_all '▾ 0 rank 0' '▾ 1 rank 1'
		check_dump "$name: the comm track and the note on estimated times" \
			has_all '   comm ' "$NOTE"
		case $(head -c 5 "$f") in
		MICRO) check_dump "$name: no compute track (collectives alone)" lacks '   compute ' ;;
		*) check_dump "$name: the compute track" has '   compute ' ;;
		esac
	done
	dump 130 40 '' "$TREX_CORPUS/astrasim1/microAllReduce.txt"
	check_dump "microAllReduce.txt: 21.472 us" has '(21.472 us)'
	check_dump "microAllReduce.txt: the all-reduce from the start on both NPUs" \
		lines_with 2 '│COMM_COLL_NODE_conv1_ALLREDUCE'
else
	skip "the corpus text workloads" "no astrasim1/ in ${TREX_CORPUS:-}"
fi

# l1's weight gradient: after l2's input gradient (1100-1600 ns), 300 ns
dump 110 30 'g j j . . . <Enter>' "$DATA/data_by_hand.txt"
check_dump "data_by_hand.txt: 2.42 us" has '(2.42 us)'
check_dump "data_by_hand.txt: l1's weight gradient at 1600 ns for 300 ns after l2's input gradient" \
	has_all 'name: COMP_NODE_l1_BWD_WG' 'start: 1.6 us (1600 ns' 'duration: 300 ns (300 ns)' \
	'waits for: COMP_NODE_l2_BWD_IG'

HOST_ET=${TREX_CORPUS:-}/pytorch_et/1.0.2-chakra.0.0.4.json
if [ -f "$HOST_ET" ]; then
	# the third op after the thread node: aten::to (id 7, rf_id 3)
	dump 130 90 'g j j . . . <Enter>' "$HOST_ET"
	check_dump "host trace: an op on the host track, after its parent op" \
		has_all 'name: aten::to' 'track: rank 0 / rank 0 (0) / host' \
		'waits for: [pytorch|profiler|execution_trace|thread]'
	check_dump "host trace: the op's attributes under their own names" \
		has_all 'id: 7' 'ctrl_deps: 2' 'rf_id: 3' 'seq_id: -1' 'tid: 1' 'op_schema: aten::to.device('
else
	skip "the corpus host trace" "no pytorch_et/ in ${TREX_CORPUS:-}"
fi

done_testing
