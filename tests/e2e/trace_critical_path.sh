#!/bin/sh
# End-to-end: `trex critical-path` on traces without an execution graph
# (issue 16 item 3): the hand-made traces of tests/data/critical_path
# (launch-bound, GPU-bound, sync-bound, two streams with a wait) against
# their paths computed by hand, and HTA's two critical-path test traces
# against an independent Python walk of the same model
# (tests/e2e/trace_critical_path.py, doc/critical-path.md).
. "${TREX_SRCDIR:?run through make check}/tests/e2e/lib.sh"
require_built

CP_PY=$E2E_DIR/trace_critical_path.py

run_checker "$CP_PY" data "$TREX_SRCDIR/tests/data/critical_path"

run_trex text critical-path "$TREX_SRCDIR/tests/data/critical_path/gpu_bound.json"
check "text: the path, then its shares" \
	sh -c "[ $(rc_of text) -eq 0 ] && grep -q '^Share of the critical path:' '$TEST_TMP/text.out' &&
		grep -q 'cudaDeviceSynchronize.*sync' '$TEST_TMP/text.out'"

run_trex two critical-path "$TREX_SRCDIR/tests/data/critical_path/gpu_bound.json" \
	"$TREX_SRCDIR/tests/data/critical_path/launch_bound.json"
check "two files: one path per rank" \
	sh -c "[ $(rc_of two) -eq 0 ] && grep -c '^ *[01] ' '$TEST_TMP/two.out' >/dev/null &&
		[ \$(grep -c 'Share' '$TEST_TMP/two.out') -eq 1 ] &&
		[ \$(sed -n '/^Share/,\$p' '$TEST_TMP/two.out' | grep -c '^ *[01] ') -eq 2 ]"

if have_corpus; then
	run_checker "$CP_PY" walk \
		"$TREX_CORPUS"/kineto/hta_event_sync_multi_stream/*.json.gz \
		"$TREX_CORPUS"/kineto/hta_alexnet_cuda_sync/*.json.gz \
		"$TREX_CORPUS"/kineto/hta_ns_resolution/*.json.gz
else
	skip "the corpus is not there (TREX_CORPUS)"
fi

done_testing
