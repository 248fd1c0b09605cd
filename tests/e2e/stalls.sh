#!/bin/sh
# End-to-end: `trex stalls` (issue 14) on the hand-made unitrace and Nsight
# Compute fixtures of tests/data/stalls, against what tests/e2e/stalls.py
# computes from the same files with unitrace's analyzeperfmetrics.py rules
# restated in Python: hottest instructions per reason, their source lines,
# the instructions SBID stalls wait for, per-line comparisons; and the
# awkward inputs: no dump, truncated and ragged rows, moved source files.
. "${TREX_SRCDIR:?run through make check}/tests/e2e/lib.sh"
require_built

STALLS_PY=$E2E_DIR/stalls.py
D=$TREX_SRCDIR/tests/data/stalls
INTEL=$D/intel
NV=$D/nvidia

# json NAME ARGS...: `trex stalls --format json ARGS` into $TEST_TMP/NAME.out, checked to run.
json() {
	name=$1
	shift
	run_trex "$name" stalls --format json "$@"
	check "stalls $name runs" test "$(rc_of "$name")" -eq 0
}

# ---- Intel: the analyzeperfmetrics findings -----------------------------------------
for top in 1 3 10; do
	json "intel_top$top" --dump "$INTEL/dumps" --top "$top" "$INTEL/stalls.csv" \
		"$INTEL/stalls_xe2.csv"
	run_checker "$STALLS_PY" intel "$TEST_TMP/intel_top$top.out" "$INTEL/dumps" "$top" \
		"$INTEL/stalls.csv" "$INTEL/stalls_xe2.csv"
done

# No dump: every kernel still gets its per-address histogram (no lines, no waits).
mkdir -p "$TEST_TMP/nodump"
json intel_nodump --top 5 "$INTEL/stalls.csv"
run_checker "$STALLS_PY" intel "$TEST_TMP/intel_nodump.out" "$TEST_TMP/nodump" 5 \
	"$INTEL/stalls.csv"

# ---- NVIDIA: each export layout -----------------------------------------------------
for f in sass sass_2022 cuda_sass cuda; do
	json "ncu_$f" --top 4 "$NV/$f.csv"
	run_checker "$STALLS_PY" ncu "$TEST_TMP/ncu_$f.out" 4 "$NV/$f.csv"
done
# With and without SASS, the same samples per source line.
run_checker "$STALLS_PY" same-lines "$TEST_TMP/ncu_cuda_sass.out" "$TEST_TMP/ncu_cuda.out"

# ---- comparisons --------------------------------------------------------------------
json compare --dump "$INTEL/dumps" --compare "$INTEL/stalls_before.csv" "$INTEL/stalls.csv"
run_checker "$STALLS_PY" lines "$TEST_TMP/compare.out" "$INTEL/dumps" "$INTEL/stalls_before.csv" \
	"$INTEL/stalls.csv"
run_trex notstalls stalls --compare "$D/README.md" "$INTEL/stalls.csv"
check "--compare with a file that is no stall report fails, saying so" \
	grep -q -- '--compare: expected a stall report' "$TEST_TMP/notstalls.err"
expect_usage "--dump is for stalls and the interface" info --dump "$INTEL/dumps" --demo

# ---- source files: recorded elsewhere, found through --source-map / --source-path ----------
run_trex moved stalls --kernel 'vadd' --top 1 --source-map "/build/ci/src=$NV/src" "$NV/cuda.csv"
check "a moved source file is found through --source-map" \
	grep -q 'c\[i\] = a\[i\] + b\[i\];' "$TEST_TMP/moved.out"
run_trex unmapped stalls --kernel 'vadd' --top 1 --format csv "$NV/sass.csv"
check "without source files the report still runs" test "$(rc_of unmapped)" -eq 0

# ---- damaged inputs: positioned messages, intact rows kept ---------------------------
head -n 12 "$INTEL/stalls.csv" >"$TEST_TMP/truncated.csv"
printf '"GEMM",  1a8,  3\n' >>"$TEST_TMP/truncated.csv"
json truncated --dump "$INTEL/dumps" --top 10 "$TEST_TMP/truncated.csv"
check "a ragged row is reported at file:line:col" \
	grep -q 'truncated.csv:13:[0-9]*: ' "$TEST_TMP/truncated.err"
mkdir -p "$TEST_TMP/intact" # the rows before the ragged one, under the same name
sed '$d' "$TEST_TMP/truncated.csv" >"$TEST_TMP/intact/truncated.csv"
run_checker "$STALLS_PY" intel "$TEST_TMP/truncated.out" "$INTEL/dumps" 10 \
	"$TEST_TMP/intact/truncated.csv"
run_trex strict stalls --strict --dump "$INTEL/dumps" "$TEST_TMP/truncated.csv"
check "--strict fails on a ragged row" test "$(rc_of strict)" -ne 0

done_testing
