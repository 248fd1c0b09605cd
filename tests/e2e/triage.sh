#!/bin/sh
# End-to-end: kernel triage (issue 4) against numbers that tests/e2e/triage.py
# computes from the same JSON with Python: per-kernel percentiles, --memory,
# --by stream/rank/op/shape and --per-rank, the built-in categories and
# gpu-time (busy as a union, idle split into host wait / kernel gap / sync /
# other, overlap, launch delays) on the corpus Kineto traces; files as runs
# (ranks, labels, files that claim one rank, any file order); the LLaMA
# unitrace schema against unitrace's own compiled form of it; and the option
# checks of the triage commands.
. "${TREX_SRCDIR:?run through make check}/tests/e2e/lib.sh"
require_built

TRIAGE_PY=$E2E_DIR/triage.py

# run_triage SUBCOMMAND ARGS...: triage.py's PASS/FAIL lines as TAP.
run_triage() {
	run_checker "$TRIAGE_PY" "$@"
}

# ---- options ----------------------------------------------------------------------
expect_usage "--by takes name, shape, op, stream, device or rank" kernels --demo --by bogus
expect_usage "--per-rank needs --by name or op" kernels --demo --per-rank --by shape
expect_usage "--memory is for kernels" info --demo --memory
expect_usage "--per-rank is for kernels" info --demo --per-rank

run_trex pct kernels --demo --format csv
if [ "$(rc_of pct)" -eq 0 ] && head -n 1 "$TEST_TMP/pct.out" | grep -q ',stddev_ns,p95_ns,p99_ns,name$'; then
	ok "kernels CSV has p95_ns and p99_ns"
else
	not_ok "kernels CSV has p95_ns and p99_ns"
	diag_file "$TEST_TMP/pct.out" 2
fi

for by in name shape op stream device rank; do
	run_trex "by_$by" kernels --demo --by "$by" --memory
	check "kernels --demo --by $by --memory runs" test "$(rc_of "by_$by")" -eq 0
done

expect_usage "--schema is for categories" kernels --demo --schema x.ini
expect_usage "--format unitrace-json is for categories" kernels --demo --format unitrace-json

run_trex nosuch categories --demo --schema "$TEST_TMP/no-such.ini"
if [ "$(rc_of nosuch)" -eq 2 ] && grep -q 'no-such.ini: cannot open' "$TEST_TMP/nosuch.err"; then
	ok "categories --schema of a missing file: exit 2 naming it"
else
	not_ok "categories --schema of a missing file: exit 2 naming it"
	diag_file "$TEST_TMP/nosuch.err"
fi

# A schema with problems: each reported as FILE:LINE: message, the rest loads.
printf '[gemm if starts with]\nampere_\n[x if contains]\ny\n[gemm if starts with]\nz\n' \
	>"$TEST_TMP/bad.ini"
printf 'gemm = (?i)gemm\nattention = flash(\nnot a rule\n' >"$TEST_TMP/bad.rules"
run_trex badini categories --demo --schema "$TEST_TMP/bad.ini" --format csv
if [ "$(rc_of badini)" -eq 0 ] && grep -q "bad.ini:3: unknown rule 'contains'" "$TEST_TMP/badini.err" &&
	grep -q 'bad.ini:5: duplicate section' "$TEST_TMP/badini.err" &&
	grep -q '^[1-9][0-9]*,.*,gemm$' "$TEST_TMP/badini.out"; then
	ok "categories: INI schema problems reported as FILE:LINE, the rest loads"
else
	not_ok "categories: INI schema problems reported as FILE:LINE, the rest loads"
	diag_file "$TEST_TMP/badini.err"
	diag_file "$TEST_TMP/badini.out"
fi
run_trex badrules categories --demo --schema "$TEST_TMP/bad.rules" --format csv
if [ "$(rc_of badrules)" -eq 0 ] && grep -q 'bad.rules:2: bad regex' "$TEST_TMP/badrules.err" &&
	grep -q 'bad.rules:3: expected CATEGORY = REGEX' "$TEST_TMP/badrules.err" &&
	grep -q '^[1-9][0-9]*,.*,gemm$' "$TEST_TMP/badrules.out"; then
	ok "categories: rules file problems reported as FILE:LINE, the rest loads"
else
	not_ok "categories: rules file problems reported as FILE:LINE, the rest loads"
	diag_file "$TEST_TMP/badrules.err"
	diag_file "$TEST_TMP/badrules.out"
fi

for fmt in text csv json; do
	run_trex "gt_$fmt" gpu-time --demo --format "$fmt"
	check "gpu-time --demo --format $fmt runs" test "$(rc_of "gt_$fmt")" -eq 0
done
expect_usage "--schema is not for ops" ops --demo --schema x.ini

run_trex ujson categories --demo --format unitrace-json
if [ "$(rc_of ujson)" -eq 0 ] && "$PYTHON3" -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert "gemm_time" in d and "gemm_calls" in d and "device_time" in d, d
assert all(k.endswith(("_time", "_calls")) for k in d), d
' "$TEST_TMP/ujson.out" 2>"$TEST_TMP/ujson.py"; then
	ok "categories --format unitrace-json: <cat>_time and <cat>_calls keys"
else
	not_ok "categories --format unitrace-json: <cat>_time and <cat>_calls keys"
	diag_file "$TEST_TMP/ujson.py"
fi

if ! have_corpus; then
	skip "shared corpus" "not found at ${TREX_CORPUS:-(TREX_CORPUS unset)}"
	done_testing
	exit
fi

# Every Kineto trace of the corpus on its own.
for f in "$TREX_CORPUS"/kineto/*/*; do
	case $f in
	*.json | *.json.gz) [ "${f##*/}" = gpu_metrics_expected.json ] || printf '%s\n' "$f" ;;
	esac
done >"$TEST_TMP/kineto"
# shellcheck disable=SC2046 # corpus paths have no spaces
run_triage kernels $(cat "$TEST_TMP/kineto")
# shellcheck disable=SC2046
run_triage shape $(cat "$TEST_TMP/kineto")

# shellcheck disable=SC2046
run_triage categories $(cat "$TEST_TMP/kineto")
schema=$TREX_CORPUS/unitrace/categorize_schema
if [ -f "$schema/LLaMA.ini" ] && [ -f "$schema/LLaMA.json" ]; then
	run_triage schema "$schema/LLaMA.ini" "$schema/LLaMA.json" "$TEST_TMP"
else
	skip "LLaMA category schema" "not in the corpus"
fi

# shellcheck disable=SC2046
run_triage gpu-time $(cat "$TEST_TMP/kineto")

# Several ranks, one per file.
run_triage per-rank "$TREX_CORPUS"/kineto/param_dlrm_8rank/*.json.gz
run_triage per-rank "$TREX_CORPUS"/kineto/hta_sampled_2rank/*.json.gz
run_triage gpu-ranks "$TREX_CORPUS"/kineto/param_dlrm_8rank/*.json.gz
run_triage gpu-ranks "$TREX_CORPUS"/kineto/hta_sampled_2rank/*.json.gz

# Every file one run: two runs that both claim rank 1, 8 distinct ranks, and
# a file with distributedInfo.rank beside one without, in both orders.
compare=$TREX_CORPUS/kineto/hta_trace_compare
triton=$TREX_CORPUS/kineto/hta_triton/triton_example.json.gz
run_triage runs "$compare/base.json.gz" "$compare/test.json.gz"
run_triage runs "$TREX_CORPUS"/kineto/param_dlrm_8rank/*.json.gz
run_triage runs "$compare/base.json.gz" "$triton"
run_triage runs "$triton" "$compare/base.json.gz"

done_testing
