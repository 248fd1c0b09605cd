#!/bin/sh
# End-to-end: `trex critical-path` and the execution-graph load options
# (issue 12) where no graph format is needed: an input with neither an
# execution graph nor slices says so in one line (exit 2; a trace's own
# path: trace_critical_path.sh), --bandwidth and --latency
# are checked and accepted by every command, and a trace's `info` has no
# schedule line. The schedule itself is checked by tests/unit/test_schedule
# and test_graph_timeline; graph inputs by the readers' tests.
. "${TREX_SRCDIR:?run through make check}/tests/e2e/lib.sh"
require_built

data=$TREX_SRCDIR/tests/data/kernels.json

printf '%s\n' '{"traceEvents":[{"ph":"C","name":"load","pid":1,"ts":10,"args":{"v":1}}]}' \
	>"$TEST_TMP/counters.json"
run_trex nograph critical-path "$TEST_TMP/counters.json"
check "a trace without a graph or slices: exit 2" sh -c "[ $(rc_of nograph) -eq 2 ]"
check "a trace without a graph or slices: one line that says so, nothing on stdout" \
	sh -c "[ \$(wc -l <'$TEST_TMP/nograph.err') -eq 1 ] &&
		grep -q '^trex: no execution graph and no CPU or device slices' '$TEST_TMP/nograph.err' &&
		[ ! -s '$TEST_TMP/nograph.out' ]"

expect_usage "--bandwidth 0" critical-path --bandwidth 0 "$data"
expect_usage "--bandwidth -3" critical-path --bandwidth -3 "$data"
expect_usage "--bandwidth fast" critical-path --bandwidth fast "$data"
expect_usage "--latency -5" critical-path --latency -5 "$data"
expect_usage "--latency soon" kernels --latency soon "$data"

run_trex opts kernels --bandwidth 12.5 --latency 2us --format csv "$data"
run_trex plain kernels --format csv "$data"
check "--bandwidth and --latency are load options of every command (no effect on a trace)" \
	sh -c "[ $(rc_of opts) -eq 0 ] && cmp -s '$TEST_TMP/opts.out' '$TEST_TMP/plain.out'"

run_trex info info "$data"
check "info of a trace has no schedule line" \
	sh -c "[ $(rc_of info) -eq 0 ] && ! grep -q '^Schedule:' '$TEST_TMP/info.out'"
run_trex help critical-path --help
check "critical-path --help lists --bandwidth and --latency" \
	sh -c "grep -q -- '--bandwidth=GBPS' '$TEST_TMP/help.out' && grep -q -- '--latency=NS' '$TEST_TMP/help.out'"

done_testing
