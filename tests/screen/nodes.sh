#!/bin/sh
# Screen tests of the execution-graph nodes view (issue 12 item 4), through
# --script/--dump-screen on a hand-made 2-layer data-parallel ASTRA-sim
# workload (tests/data/astrasim/data_2layers.txt: 14 nodes on 2 NPUs):
# E lists the nodes by start, Enter shows one in full with its
# dependencies, Enter on a dependency walks to it, Enter on another row
# shows the node selected in the timeline, where F follows its dependency.
# A trace without a graph says so.
. "${TREX_SRCDIR:-.}/tests/e2e/lib.sh"
require_built
. "${TREX_SRCDIR:-.}/tests/screen/lib.sh"

SCREEN=$TEST_TMP/screen.txt
WORKLOAD=$TREX_SRCDIR/tests/data/astrasim/data_2layers.txt

dump() {
	keys=$1
	shift
	rm -f "$SCREEN"
	screen_dump 110 24 "$SCREEN" --script="$keys" "$@"
	[ -f "$SCREEN" ] || echo "(no screen: trex $* failed)" >"$SCREEN"
}
shows() { grep -F -q -- "$1" "$SCREEN" || { sed 's/^/|/' "$SCREEN"; false; }; }
shows_re() { grep -E -q -- "$1" "$SCREEN" || { sed 's/^/|/' "$SCREEN"; false; }; }

dump 'E' "$WORKLOAD"
check "E: the nodes view, 14 nodes" shows "trex: execution graph: 14 nodes"
check "... with its columns" shows_re "Rank +Id +Name +Type +Collective +Bytes +Start"
check "... the first node first, on the critical path" \
	shows_re "^ +0 +0 +COMP_NODE_conv1_FWD +compute .* yes"
check "... the all-reduces with their bytes" \
	shows_re "COMM_COLL_NODE_fc2_ALLREDUCE +collective +all-reduce +8192"

dump 'E Enter' "$WORKLOAD"
check "Enter: the node in full" shows "trex: node 0 of rank 0: COMP_NODE_conv1_FWD"
check "... its duration from the file" shows_re "^ duration +1 us"
check "... its record, the position before the path" shows_re "^ record +0 at byte [0-9]+ of "
check "... and the node waiting for it" shows_re "^ needed by +1 COMP_NODE_fc2_FWD \(compute\)"

dump 'E Enter G Enter' "$WORKLOAD"
check "Enter on 'needed by': walks to that node" \
	shows "trex: node 1 of rank 0: COMP_NODE_fc2_FWD"
check "... which waits for the first" shows_re "^ waits for +0 COMP_NODE_conv1_FWD"

dump 'E Enter G Enter q q' "$WORKLOAD"
check "q goes back node by node to the list" shows "trex: execution graph: 14 nodes"

dump 'E Enter Enter' "$WORKLOAD"
check "Enter on a field: the node selected in the timeline" \
	shows_re "^ COMP_NODE_conv1_FWD +start 0 ns +dur 1 us +F: needed by COMP_NODE_fc2_FWD"
check "... on its rank's compute track" shows_re "^ +compute +│"

dump 'E Enter Enter F' "$WORKLOAD"
check "F follows the dependency" shows_re "needed by: COMP_NODE_fc2_FWD \(u goes back\)"

dump 'E' --demo
check "E on a trace without a graph says why" shows "no execution graph in the input"
done_testing
