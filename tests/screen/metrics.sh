#!/bin/sh
# Screen: the metrics view and the kernels table's metric columns (issue 14
# item 5), drawn by the real UI (--script/--dump-screen) over the fixtures of
# tests/data/metrics. Numbers worked out by hand from make_fixtures.py:
# GpuTime[ns] of instance i is 20000 + 137 i (summed over sub-devices);
# main#1's -q instances are ids 1, 4, 7, 10 (in the trace) and 3 (a copy's
# id): min 20137, avg 103425 / 5 = 20685, max 21370, file order
# 20137 20548 20959 21370 20411; its kernels-table mean is over the four
# linked ones: 82014 / 4 = 20753.5. XVE_ACTIVE[%] of the gemm kernel (ids
# 12, 13): (65 + 66.25) / 2 = 65.625; -d says SIMD 16.
. "${TREX_SRCDIR:?run through make check}/tests/e2e/lib.sh"
. "$TREX_SRCDIR/tests/screen/lib.sh"
require_built

D=$TREX_SRCDIR/tests/data/metrics
TRACE=$D/gemm.unitrace.json
S=$TEST_TMP/screen.txt
K1='main::\{lambda\(auto:1\)#1\}'

# ---- the metrics view -----------------------------------------------------------------
dump 160 20 "M" "$TRACE" "$D/gemm.q.csv"
check_dump "M: one row per kernel with instances, matched, samples, trace time" \
	screen_has "$S" "^ Device #0 +5 +4 +5 +83\.5 +us .*$K1"
check_dump "M: the status line says how many instances matched and why not" \
	screen_has "$S" "10 of 12 metric instances matched trace kernels \(10 by instance id\); 2 did not"

dump 160 24 "M Enter" "$TRACE" "$D/gemm.q.csv"
check_dump "Enter: the kernel's instances, titled with how many are in the trace" \
	screen_has "$S" "metrics of $K1.*: 5 instances, 4 in the trace"
check_dump "instances: min, avg and max of each metric above the rows" \
	sh -c "grep -E -q '^ min .* 20137 ' '$S' && grep -E -q '^ avg .* 20685 ' '$S' &&
		grep -E -q '^ max .* 21370 ' '$S'"
check_dump "instances: the trend in file order as a sparkline (20137 20548 20959 21370 20411)" \
	screen_has "$S" '^ trend .*▁▃▆█▂'
check_dump "instances: the one with another kernel's id has no trace time and says why" \
	screen_has "$S" "^ Device #0 +5 +3 +1 +- +- .*other kernel's id"

dump 160 12 "M B" "$TRACE" "$D/gemm.q.csv"
check_dump "B: the next table (devices)" screen_has "$S" '^ +3 +12 +13 +Device #0'

# ---- the kernels table's metric columns ------------------------------------------------
dump 200 12 "2" "$TRACE" "$D/gemm.q.csv"
check_dump "kernels: no metric columns by default" \
	sh -c "! grep -q 'GpuTime' '$S' && grep -q ' P99  Name' '$S'"
dump 200 12 "2 C" "$TRACE" "$D/gemm.q.csv"
check_dump "C: metric columns, each the mean over the kernel's linked instances" \
	screen_has "$S" "^ +20\.10 .* 20753\.5  $K1"
dump 200 12 "2 C C" "$TRACE" "$D/gemm.q.csv"
check_dump "C again: hidden, and said so" \
	sh -c "! grep -q 'GpuTime' '$S' && grep -q 'metric columns hidden' '$S'"
dump 200 12 "2" "$TRACE" "$D/gemm.q.csv" "$D/gemm.d.txt" --metric XVE_ACTIVE,SIMD
check_dump "--metric XVE_ACTIVE,SIMD: a metric and a -d report column from the start" \
	screen_has "$S" '^ +71\.84 .* 65\.625 +16  gemm_kernel<float, 16>'
dump 200 16 "2 M" "$TRACE" "$D/gemm.q.csv"
check_dump "M on a kernels row: that kernel's instances" \
	screen_has "$S" 'metrics of gemm_kernel<float, 16>.*: 2 instances, 2 in the trace'

dump 120 12 "M" "$D/gemm.q.csv"
check_dump "M over metrics alone: the kernels, and no trace to match said as such" \
	sh -c "grep -q '^ Device #0 .* gemm_kernel' '$S' && grep -q '^ no trace loaded' '$S'"

# ---- without metrics: said, never a key that does nothing ------------------------------
dump 120 12 "2 C" "$TRACE"
check_dump "C without metrics inputs says what to give" screen_has "$S" '^ no metrics loaded: give'
dump 120 12 "M" "$TRACE"
check_dump "M without metrics inputs says what to give" screen_has "$S" '^ no metrics loaded: give'

done_testing
