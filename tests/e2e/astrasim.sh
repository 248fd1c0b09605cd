#!/bin/sh
# End-to-end: trex reads ASTRA-sim inputs (issue 12 item 5). The simulator's
# issue/callback timeline (real logs of the analytical backend, gzip'd, and a
# hand-made file in the visualizer's plain layout with an unmatched issue, an
# unmatched callback and a broken line) must load as tests/e2e/astrasim.py
# reads it: slices per NPU and kind, ns per kind at two NPU clocks, the
# problems at their lines.
. "${TREX_SRCDIR:?run through make check}/tests/e2e/lib.sh"
require_built

ASTRA_PY=$E2E_DIR/astrasim.py
DATA=$TREX_SRCDIR/tests/data/astrasim

for f in "$DATA/ring_allreduce_8npus.log.gz" "$DATA/pytorch_2rank.log.gz" "$DATA/visualizer.csv"; do
	for ghz in 1 1.5; do
		run_checker "$ASTRA_PY" timeline "$TREX" "$f" "$ghz"
	done
done

# the log's other lines before the first issue: told by --input-format
{
	echo "simulator started"
	gzip -dc "$DATA/ring_allreduce_8npus.log.gz"
} >"$TEST_TMP/late.log"
run_trex late --input-format astrasim-timeline info "$TEST_TMP/late.log"
if [ "$(rc_of late)" -eq 0 ] && grep -q '^issue *280 ' "$TEST_TMP/late.out"; then
	ok "--input-format astrasim-timeline: a log that starts with another line"
else
	not_ok "--input-format astrasim-timeline reads a log that starts with another line"
	diag_file "$TEST_TMP/late.err"
fi

# a log without issue or callback lines says how to get them
printf '[2026-01-02 03:04:05.678] [workload] [info] sys[0] finished, 10 cycles\n' >"$TEST_TMP/quiet.log"
run_trex quiet info "$TEST_TMP/quiet.log"
if [ "$(rc_of quiet)" -eq 2 ] && grep -q 'quiet.log.*trace-enabled' "$TEST_TMP/quiet.err"; then
	ok "a log without issue lines: an error naming trace-enabled"
else
	not_ok "a log without issue lines is refused with a hint (exit $(rc_of quiet))"
	diag_file "$TEST_TMP/quiet.err"
fi

# --strict refuses the broken line, with its position
run_trex strict --strict info "$DATA/visualizer.csv"
if [ "$(rc_of strict)" -eq 2 ] && grep -q 'visualizer.csv:15:23: .*expected the cycle column' "$TEST_TMP/strict.err"; then
	ok "--strict: the broken line at 15:23"
else
	not_ok "--strict refuses the broken line with its position (exit $(rc_of strict))"
	diag_file "$TEST_TMP/strict.err"
fi

for bad in 0 -1 abc 1e9; do
	run_trex freq --npu-frequency "$bad" info "$DATA/visualizer.csv"
	if [ "$(rc_of freq)" -eq 1 ] && grep -q -- '--npu-frequency' "$TEST_TMP/freq.err"; then
		ok "--npu-frequency $bad is a usage error"
	else
		not_ok "--npu-frequency $bad is a usage error (exit $(rc_of freq))"
		diag_file "$TEST_TMP/freq.err"
	fi
done

done_testing
