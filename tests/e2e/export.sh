#!/bin/sh
# End-to-end: trex export (issue 13 items 1-3). Every corpus Kineto and
# acelyzer trace exported to Chrome JSON (plain and gzip) and to Perfetto
# loads back with the same `trex info` counts and the same `trex kernels`
# (Chrome: the same categories and tracks tables too); a range export
# against Python over the original file; csv rows; --force, an existing
# output refused, usage errors; Ctrl-C during an export leaves no file.
. "${TREX_SRCDIR:?run through make check}/tests/e2e/lib.sh"
require_built
have_corpus || skip_all "no corpus in ${TREX_CORPUS:-}"

EXPORT_PY=$E2E_DIR/export.py

# acelyzer traces: the Perfetto loader tells device work by category and
# name alone, and acelyzer's categories are no Kineto ones, so only their
# Chrome exports are compared.
corpus_traces >"$TEST_TMP/traces"
while read -r f; do
	"$TREX" info -q "$f" >/dev/null 2>&1 || continue # not a trace trex loads
	case $f in
	*/kineto/*) run_checker "$EXPORT_PY" roundtrip "$f" chrome perfetto ;;
	*) run_checker "$EXPORT_PY" roundtrip "$f" chrome ;;
	esac
done <"$TEST_TMP/traces"
ns_trace=$TREX_CORPUS/kineto/hta_ns_resolution/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz
run_checker "$EXPORT_PY" roundtrip "$ns_trace" chrome-gz

# faithful: top-level members byte for byte and flow ids (base time,
# members after the events, fwdbwd beside ac2g; gzip in and out; merged ranks)
nccl=$TREX_CORPUS/kineto/hta_nccl_data/nccl_data.json.gz
dlrm=$TREX_CORPUS/kineto/param_dlrm_8rank
run_checker "$EXPORT_PY" faithful chrome "$nccl"
run_checker "$EXPORT_PY" faithful chrome-gz "$dlrm"/worker0_step_12.1694128201545.pt.trace.json.gz
run_checker "$EXPORT_PY" faithful chrome "$TREX_CORPUS"/kineto/tracelens_h100_bert_small/*.json.gz
run_checker "$EXPORT_PY" faithful chrome "$dlrm"/worker3_*.json.gz "$dlrm"/worker1_*.json.gz
run_checker "$EXPORT_PY" faithful chrome-gz "$dlrm"/worker*.json.gz

# a range with exact ns decimals, and one of integer microseconds
run_checker "$EXPORT_PY" range "$ns_trace"
run_checker "$EXPORT_PY" range "$TREX_CORPUS/kineto/param_dlrm_8rank/worker0_step_12.1694128201545.pt.trace.json.gz"

# csv: one row per slice, a header; --filter and --tracks narrow it
small=$TREX_CORPUS/kineto/hta_alexnet_cuda_sync/benchmark_result_2869224_1695835535_trace.json.gz
run_trex csv export -q -o "$TEST_TMP/s.csv" "$small"
check "csv: a header and one row per slice (868)" \
	test "$(rc_of csv)" -eq 0 -a "$(sed -n 1p "$TEST_TMP/s.csv")" = \
	"rank,process,track,ts_ns,dur_ns,depth,kind,category,name,clipped" -a \
	"$(wc -l <"$TEST_TMP/s.csv")" -eq 869
run_trex csv2 export -q --to csv --filter '^ampere_sgemm' --tracks '^stream 7' -o - "$small"
check "csv --filter --tracks: the 6 ampere_sgemm kernels of stream 7" \
	test "$(rc_of csv2)" -eq 0 -a "$(grep -c ',kernel,kernel,ampere_sgemm' "$TEST_TMP/csv2.out")" -eq 6 \
	-a "$(wc -l <"$TEST_TMP/csv2.out")" -eq 7
run_trex ranks export -q --ranks 1-3 -o "$TEST_TMP/r.csv" "$small"
check "--ranks 1-3 of a rank 0 trace: the header alone" \
	test "$(rc_of ranks)" -eq 0 -a "$(wc -l <"$TEST_TMP/r.csv")" -eq 1

# an existing output is refused (exit 2) and kept; --force replaces it
echo keep >"$TEST_TMP/exists.json"
run_trex exists export -q -o "$TEST_TMP/exists.json" "$small"
check "an existing output is refused with exit 2 and kept" \
	test "$(rc_of exists)" -eq 2 -a "$(cat "$TEST_TMP/exists.json")" = keep
grep -q 'use --force' "$TEST_TMP/exists.err" && ok "the refusal says --force" ||
	not_ok "the refusal says --force"
run_trex force export -q --force -o "$TEST_TMP/exists.json" "$small"
check "--force replaces it with the trace" \
	test "$(rc_of force)" -eq 0 -a "$(head -c 21 "$TEST_TMP/exists.json")" = '{"schemaVersion": 1,' \
	-a "$(grep -c '^"traceEvents": \[$' "$TEST_TMP/exists.json")" -eq 1

expect_usage "export without -o" export "$small"
expect_usage "export to a name that says no format" export -o "$TEST_TMP/x.txt" "$small"
expect_usage "--to of no exporter" export --to chakra9 -o "$TEST_TMP/x" "$small"
expect_usage "--range that is no range" export --range 5ms -o "$TEST_TMP/x.json" "$small"
expect_usage "--range that ends before it starts" export --range 5ms:1ms -o "$TEST_TMP/x.json" "$small"
expect_usage "--ranks that is no list" export --ranks 3-1 -o "$TEST_TMP/x.json" "$small"
expect_usage "--tracks that is no pattern" export --tracks '(' -o "$TEST_TMP/x.json" "$small"
expect_usage "--range outside export" kernels --range 1ms:2ms "$small"

# Ctrl-C once the export writes: exit 130, no output, no temp file left
"$PYTHON3" "$EXPORT_PY" gen 200000 "$TEST_TMP/big.json"
mkdir -p "$TEST_TMP/out"
"$TREX" export -q -o "$TEST_TMP/out/big.json.gz" "$TEST_TMP/big.json" </dev/null \
	>"$TEST_TMP/int.out" 2>"$TEST_TMP/int.err" &
pid=$!
tries=0
while [ "$tries" -lt 1200 ] && ! ls "$TEST_TMP/out/" | grep -q tmp; do
	sleep 0.05
	tries=$((tries + 1))
done
kill -INT "$pid" 2>/dev/null
wait "$pid"
rc=$?
check "Ctrl-C during an export: exit 130 (was $rc)" test "$rc" -eq 130
check "Ctrl-C during an export: no output and no temp file left" \
	test -z "$(ls -A "$TEST_TMP/out")"

done_testing
