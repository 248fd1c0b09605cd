#!/bin/sh
# End-to-end: `trex nodes` (issue 12 item 4), the execution graph's nodes as
# the schedule runs them. tests/data/astrasim/micro_allreduce.txt is checked by hand: one
# all-reduce of 1048576 bytes on each of 2 NPUs, no duration in the file, so
# the alpha-beta estimate with the defaults (50 GB/s, 500 ns; traffic factor
# 2(n-1)/n = 1 for n = 2): 500 + 1048576 / 50 = 21471.52, rounded up to
# 21472 ns, both starting at 0. Every corpus text workload is checked by
# tests/e2e/nodes.py against astrasim.py's own conversion and the rules any
# valid schedule keeps. Usage: no graph, a bad --rank.
. "${TREX_SRCDIR:?run through make check}/tests/e2e/lib.sh"
require_built

NODES_PY=$E2E_DIR/nodes.py
MICRO=$TREX_SRCDIR/tests/data/astrasim/micro_allreduce.txt

run_trex micro nodes --format csv "$MICRO"
if [ "$(rc_of micro)" -eq 0 ] &&
	[ "$(sed -n 1p "$TEST_TMP/micro.out")" = "rank,id,name,type,collective,bytes,start_ns,dur_ns,slack_ns,parents,children,critical" ] &&
	grep -q '^0,0,COMM_COLL_NODE_layer0_ALLREDUCE,collective,all-reduce,1048576,0,21472,0,0,0,yes est$' "$TEST_TMP/micro.out" &&
	grep -q '^1,1,COMM_COLL_NODE_layer0_ALLREDUCE,collective,all-reduce,1048576,0,21472,0,0,0,' "$TEST_TMP/micro.out" &&
	[ "$(wc -l <"$TEST_TMP/micro.out")" -eq 3 ]; then
	ok "micro all-reduce: 2 nodes, 21472 ns estimated each, from 0, the first critical"
else
	not_ok "micro all-reduce nodes (exit $(rc_of micro))"
	diag_file "$TEST_TMP/micro.out"
	diag_file "$TEST_TMP/micro.err"
fi

run_trex rank1 nodes --rank 1 "$MICRO"
if [ "$(rc_of rank1)" -eq 0 ] && grep -q ' 1  COMM_COLL_NODE_layer0_ALLREDUCE' "$TEST_TMP/rank1.out" &&
	! grep -q '^ *0 ' "$TEST_TMP/rank1.out"; then
	ok "--rank 1 keeps rank 1's node only"
else
	not_ok "--rank 1"
	diag_file "$TEST_TMP/rank1.out"
fi

run_trex nograph nodes --demo
if [ "$(rc_of nograph)" -eq 2 ] && grep -q '^trex: no execution graph in the input' "$TEST_TMP/nograph.err" &&
	[ "$(wc -l <"$TEST_TMP/nograph.err")" -eq 1 ]; then
	ok "a trace without a graph: one line says so, exit 2"
else
	not_ok "nodes on the demo (exit $(rc_of nograph))"
	diag_file "$TEST_TMP/nograph.err"
fi
expect_usage "--rank takes a rank" nodes --rank x "$MICRO"
expect_usage "--rank is for nodes" kernels --rank 1 "$MICRO"

if [ -d "${TREX_CORPUS:-}/astrasim1" ]; then
	for f in "$TREX_CORPUS"/astrasim1/*.txt; do
		run_checker "$NODES_PY" workload "$TREX" "$f"
	done
else
	skip "the corpus text workloads" "no astrasim1/ in ${TREX_CORPUS:-}"
fi
done_testing
