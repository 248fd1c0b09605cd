#!/bin/sh
# End-to-end: per-kernel metrics and unitrace text reports (issue 14 items
# 5-7). The -d/-h gold reports of the corpus, the older-style roofline -q
# output, the fixtures of tests/data/metrics (-q in both banners, -k with idle
# samples, a damaged -q, a -d report, the unitrace trace they belong to) and
# the Kineto cuda_profiler_range trace, against tests/e2e/metrics.py (Python
# over the same files); a metrics file that does not match the trace; the
# kernels table unchanged without --metric; the options.
. "${TREX_SRCDIR:?run through make check}/tests/e2e/lib.sh"
require_built

METRICS_PY=$E2E_DIR/metrics.py
DATA=$TREX_SRCDIR/tests/data/metrics

run_metrics() {
	run_checker "$METRICS_PY" "$@"
}

# ---- options ----------------------------------------------------------------------
expect_usage "--metric names no metric" metrics --metric nope "$DATA/gemm.q.csv"
expect_usage "--kernel takes a regex" metrics --kernel '(' "$DATA/gemm.q.csv"
expect_usage "--summary is for metrics" kernels --demo --summary
expect_usage "--metric needs metrics inputs" kernels --metric XVE_ACTIVE "$DATA/gemm.unitrace.json"

run_trex none metrics "$DATA/gemm.unitrace.json"
if [ "$(rc_of none)" -eq 2 ] && grep -q 'no metrics among the inputs' "$TEST_TMP/none.err"; then
	ok "metrics of a trace without metrics: exit 2 saying so"
else
	not_ok "metrics of a trace without metrics: exit 2 saying so"
	diag_file "$TEST_TMP/none.err"
fi

# ---- numbers against Python ---------------------------------------------------------
run_metrics report "$DATA/gemm.d.txt"
run_metrics csv "$DATA/gemm.q.csv" "$DATA/gemm.q-nobanner.csv" "$DATA/gemm.k.csv"
run_metrics link "$DATA/gemm.unitrace.json" "$DATA/gemm.q.csv"
if have_corpus; then
	for f in "$TREX_CORPUS"/unitrace/pti_gold_*/[dh].txt; do
		run_metrics report "$f"
	done
	run_metrics csv "$TREX_CORPUS"/unitrace/pti_roofline_example/gemm_fp16_bytes.*
	run_metrics kineto "$TREX_CORPUS"/kineto/hta_cupti_profiler/*.json.gz
else
	skip "corpus reports, roofline CSV and cuda_profiler_range" "no corpus"
fi

# ---- what did not match is said, never lost ----------------------------------------
run_trex link metrics "$DATA/gemm.unitrace.json" "$DATA/gemm.q.csv"
if [ "$(rc_of link)" -eq 0 ] &&
	grep -q '^10 of 12 metric instances matched trace kernels (10 by instance id); 2 did not: 1 has an id no trace kernel has, 1 has the id of another kernel$' "$TEST_TMP/link.out" &&
	grep -q '^  *26  Device #0  99  no such id ' "$TEST_TMP/link.out" &&
	grep -q '^  *28  Device #0   3  other kernel.s id ' "$TEST_TMP/link.out"; then
	ok "metrics: how many instances matched, and each unmatched one with its line and why"
else
	not_ok "metrics: how many instances matched, and each unmatched one with its line and why"
	diag_file "$TEST_TMP/link.out" 60
fi

# The fixtures against a trace of another run: nothing matches; warned, kept.
if have_corpus; then
	other=$TREX_CORPUS/kineto/hta_trace_compare/base.json.gz
	run_trex other metrics --metric GpuTime "$other" "$DATA/gemm.q.csv" --format csv
	if [ "$(rc_of other)" -eq 0 ] && [ "$(grep -c ',no such id,' "$TEST_TMP/other.out")" -eq 12 ]; then
		ok "metrics of another run's trace: all 12 instances kept, each marked 'no such id'"
	else
		not_ok "metrics of another run's trace: all 12 instances kept, each marked 'no such id'"
		diag_file "$TEST_TMP/other.out"
	fi
	run_trex kother kernels "$other" "$DATA/gemm.q.csv"
	run_trex kplain kernels "$other"
	if [ "$(rc_of kother)" -eq 0 ] && cmp -s "$TEST_TMP/kother.out" "$TEST_TMP/kplain.out" &&
		grep -q '0 of 12 metric instances matched trace kernels' "$TEST_TMP/kother.err"; then
		ok "kernels with a metrics file that does not match: a warning, the table unchanged"
	else
		not_ok "kernels with a metrics file that does not match: a warning, the table unchanged"
		diag_file "$TEST_TMP/kother.err"
	fi
else
	skip "metrics of another run's trace" "no corpus"
	skip "kernels with a metrics file that does not match" "no corpus"
fi

# Without --metric the kernels table is the trace's alone, in every format.
for fmt in text csv json; do
	run_trex "k_$fmt" kernels --format "$fmt" "$DATA/gemm.unitrace.json" "$DATA/gemm.q.csv" \
		"$DATA/gemm.d.txt"
	run_trex "p_$fmt" kernels --format "$fmt" "$DATA/gemm.unitrace.json"
	check "kernels --format $fmt without --metric: the same with metrics inputs" \
		cmp "$TEST_TMP/k_$fmt.out" "$TEST_TMP/p_$fmt.out"
done

# Report columns join the kernels table by name (the -v suffix dropped).
run_trex join kernels --metric Calls,SIMD --format csv "$DATA/gemm.unitrace.json" "$DATA/gemm.d.txt"
if [ "$(rc_of join)" -eq 0 ] && head -n 1 "$TEST_TMP/join.out" | grep -q ',timing_calls,simd,name$' &&
	grep -q '^[^"]*,2,16,"gemm_kernel<float, 16>' "$TEST_TMP/join.out" &&
	[ "$(grep -c ',4,32,main::' "$TEST_TMP/join.out")" -eq 2 ]; then
	ok "kernels --metric Calls,SIMD: the -d report's calls and SIMD of each kernel"
else
	not_ok "kernels --metric Calls,SIMD: the -d report's calls and SIMD of each kernel"
	diag_file "$TEST_TMP/join.out"
fi

# ---- damaged input: positioned messages, intact rows kept ---------------------------
run_trex damaged metrics --metric GpuTime --format csv "$DATA/gemm.damaged.csv"
if [ "$(rc_of damaged)" -eq 0 ] &&
	grep -q 'gemm.damaged.csv:12:1: (byte 822) metric row has 10 fields where its header has 13' "$TEST_TMP/damaged.err" &&
	grep -q 'gemm.damaged.csv:14:1: (byte 941) metric row has 14 fields' "$TEST_TMP/damaged.err" &&
	grep -q "gemm.damaged.csv:22:100: (byte 1609) metric value 'abc' is not a number (row kept without it)" "$TEST_TMP/damaged.err" &&
	grep -q 'gemm.damaged.csv:30:1: .*the input ends inside it' "$TEST_TMP/damaged.err" &&
	[ "$(($(wc -l <"$TEST_TMP/damaged.out") - 1))" -eq 11 ]; then
	ok "damaged -q: each problem at its line:col and byte, the 11 intact instances kept"
else
	not_ok "damaged -q: each problem at its line:col and byte, the 11 intact instances kept"
	diag_file "$TEST_TMP/damaged.err"
	diag_file "$TEST_TMP/damaged.out"
fi
run_trex strict metrics --strict "$DATA/gemm.damaged.csv"
check "damaged -q with --strict: exit 2" test "$(rc_of strict)" -eq 2

done_testing
