#!/bin/sh
# End-to-end: trex reads PyTorch host execution traces (issue 12 item 6) as
# tests/e2e/pytorch_et.py reads them with Python's json: the corpus file's
# nodes (ids, types, names), parent ops as control dependencies and roots
# through the pytorch-et graph loader (tests/unit/graph_dump), and `trex
# info` (format, schema, nodes per type, the host track, the makespan);
# copies cut at several offsets keep the whole nodes before the cut, a
# damaged node is skipped with its line:col; `trex critical-path` and
# --input-format work on it, and a file that is no host trace is refused
# with its position.
. "${TREX_SRCDIR:?run through make check}/tests/e2e/lib.sh"
require_built

PET_PY=$E2E_DIR/pytorch_et.py
GRAPH_DUMP=${TREX_DUMP%/*}/graph_dump
HOST_ET=${TREX_CORPUS:-}/pytorch_et/1.0.2-chakra.0.0.4.json

if [ -f "$HOST_ET" ]; then
	run_checker "$PET_PY" graph "$GRAPH_DUMP" "$HOST_ET"
	run_checker "$PET_PY" info "$TREX" "$HOST_ET"
	for at in 2000 105000 211000; do
		run_checker "$PET_PY" cut "$TREX" "$HOST_ET" "$at"
	done
	for k in 1 130 262; do
		run_checker "$PET_PY" damage "$TREX" "$HOST_ET" "$k"
	done
	run_trex cp critical-path "$HOST_ET"
	if [ "$(rc_of cp)" -eq 0 ] && grep -q 'execution_trace|process' "$TEST_TMP/cp.out" &&
		grep -q '^Makespan: 0 ns' "$TEST_TMP/cp.out"; then
		ok "critical-path of the host trace: from the process node, 0 ns without durations"
	else
		not_ok "critical-path of the host trace (exit $(rc_of cp))"
		diag_file "$TEST_TMP/cp.out"
	fi
	# another first key: sniffed as Chrome JSON, read as a host trace when told
	{
		printf '{"first": 1, '
		tail -c +3 "$HOST_ET"
	} >"$TEST_TMP/reordered.json"
	run_trex forced --input-format pytorch-et info "$TEST_TMP/reordered.json"
	if [ "$(rc_of forced)" -eq 0 ] && grep -q 'pytorch-et  1.0.2-chakra.0.0.4' "$TEST_TMP/forced.out"; then
		ok "--input-format pytorch-et reads a host trace whose first key is another"
	else
		not_ok "--input-format pytorch-et reads a host trace whose first key is another"
		diag_file "$TEST_TMP/forced.err"
	fi
else
	skip "the corpus host trace" "no pytorch_et/ in ${TREX_CORPUS:-}"
fi

# refused with the position and what was expected
while IFS='|' read -r text want; do
	printf '%s' "$text" >"$TEST_TMP/bad.json"
	run_trex bad --input-format pytorch-et info "$TEST_TMP/bad.json"
	if [ "$(rc_of bad)" -eq 2 ] && grep -q -F "bad.json:$want" "$TEST_TMP/bad.err"; then
		ok "refused at $want"
	else
		not_ok "refused at $want (exit $(rc_of bad))"
		diag_file "$TEST_TMP/bad.err"
	fi
done <<'EOF_BAD'
[]|1:1: (byte 0) expected a PyTorch execution trace (a JSON object), found '['
{"schema": "1.0.1", "pid": 1}|1:29: (byte 28) expected a "nodes" list (a PyTorch execution trace), found '}'
{"schema": "1.0.1",|1:20: (byte 19) expected a "nodes" list (a PyTorch execution trace), found the end of input
{"schema": "1.0|1:16: (byte 15) expected a JSON value, found the end of input
EOF_BAD

done_testing
