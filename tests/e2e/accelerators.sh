#!/bin/sh
# End-to-end: device work on every accelerator and communication on every
# library (issue 9 item 6, issue 10 item 5). The hand-checked trace
# tests/data/communication.json (NCCL, RCCL, DeepEP, oneCCL, HCCL, pplx and
# NVSHMEM kernels, one launched under record_param_comms, one known only by
# its "Collective name" arg; numbers worked out below); acelyzer's summary and
# its categories table from the DeepTools compiler log against
# tests/e2e/accelerators.py (Python over the corpus JSON and logs); the one
# line that says why a table is empty; the options.
. "${TREX_SRCDIR:?run through make check}/tests/e2e/lib.sh"
require_built

ACCEL_PY=$E2E_DIR/accelerators.py
DATA=$TREX_SRCDIR/tests/data

# run_accel SUBCOMMAND ARGS...: accelerators.py's PASS/FAIL lines as TAP.
run_accel() {
	run_checker "$ACCEL_PY" "$@"
}

# json_check NAME LABEL PYTHON: runs PYTHON with `rows` (the JSON rows of
# $TEST_TMP/NAME.out); ok when it prints nothing, its output the diagnostics.
json_check() {
	"$PYTHON3" -c "import json, sys
rows = json.load(open(sys.argv[1]))['rows']
$3" "$TEST_TMP/$1.out" >"$TEST_TMP/json_check.out" 2>&1
	if [ "$(rc_of "$1")" -eq 0 ] && [ ! -s "$TEST_TMP/json_check.out" ]; then
		ok "$2"
	else
		not_ok "$2"
		diag_file "$TEST_TMP/json_check.out"
		diag_file "$TEST_TMP/$1.err"
	fi
}

# ---- options ----------------------------------------------------------------------
expect_usage "--explain is for categories" kernels --demo --explain
expect_usage "--compiler-log is for categories" gpu-time --demo --compiler-log x.log
expect_usage "--core-freq needs --compiler-log" categories --demo --core-freq 1000
expect_usage "--core-freq takes MHz" categories --demo --compiler-log x.log --core-freq 0
expect_usage "--compiler-log and --schema are two tables" categories --demo \
	--compiler-log x.log --schema y.ini
expect_usage "--compiler-log and --explain are two tables" categories --demo \
	--compiler-log x.log --explain

run_trex nolog categories --demo --compiler-log "$TEST_TMP/no-such.log"
check "--compiler-log of a missing file: exit 2 naming it" \
	sh -c "[ $(rc_of nolog) -eq 2 ] && grep -q 'no-such.log' '$TEST_TMP/nolog.err'"

printf 'just text\nno table\n' >"$TEST_TMP/empty.log"
run_trex emptylog categories --demo --compiler-log "$TEST_TMP/empty.log"
check "--compiler-log without a table: exit 2 at FILE:LINE:COL" \
	grep -q 'empty.log:3:1: (byte 19) no kernel in an ideal-cycles table' "$TEST_TMP/emptylog.err"

printf ' Ideal/Total Cycles \nfoo Cmpt-opCatX 1\ngood-opCatX 5\nbig-opCatX 99999999999999999999\n' \
	>"$TEST_TMP/bad.log"
run_trex badlog categories --demo --compiler-log "$TEST_TMP/bad.log" --format csv
check "--compiler-log problems: positioned warnings, the rest loads" sh -c "
	[ $(rc_of badlog) -eq 0 ] &&
	grep -q '^trex: .*bad.log:2:1: (byte 21) expected' '$TEST_TMP/badlog.err' &&
	grep -q '^trex: .*bad.log:4:12: (byte 64) ideal cycles beyond' '$TEST_TMP/badlog.err' &&
	grep -q '^trex: .*bad.log:1:1: (byte 0) the ideal-cycles table starting here does not end' \
		'$TEST_TMP/badlog.err' &&
	head -n 1 '$TEST_TMP/badlog.out' | grep -q '^rank,device,phase,kernel_ns,time_pct,calls,ideal_ns,ideal_cycles,ideal_pct,pt_util_pct,category$'"

# ---- communication: tests/data/communication.json, worked out by hand ----------------
# GPU 0, stream 7, back to back from 0 to 80 us: NCCL 10, RCCL 10, DeepEP
# dispatch 10 and combine 10, oneCCL 5, HCCL 5, pplx 5, NVSHMEM 5, my_ring_kernel
# 10 (its launch inside record_param_comms inside c10d::allreduce_), mystery 10
# (no launch, a "Collective name" arg). Stream 8: sgemm [5, 25), relu [65, 75).
# Communication: 10 kernels, 80 us, its union [0, 80); compute union 30 us, all
# of it under communication: overlap 30 / 80 = 37.5 %.
trace=$DATA/communication.json
run_trex comm_gt gpu-time --format json "$trace"
json_check comm_gt "communication.json gpu-time: comm 80 us, compute 30 us, overlap 37.5 %" '
r = rows[0]
want = {"comm_ns": 80000, "compute_ns": 30000, "memory_ns": 0, "busy_ns": 80000, "kernels": 12}
for k, v in want.items():
    if r[k] != v:
        print(k, r[k], "want", v)
if abs(r["overlap_pct"] - 37.5) > 1e-9:
    print("overlap_pct", r["overlap_pct"])'

run_trex comm_cat categories --format json "$trace"
json_check comm_cat "communication.json categories: collective 10 calls, 80 us, and its rules" '
r = {x["category"]: x for x in rows}["collective"]
if (r["calls"], r["total_ns"]) != (10, 80000):
    print(r["calls"], r["total_ns"])
want = "deepep, rccl, nccl, record-param-comms-op, collective-arg, oneccl, hccl, pplx, nvshmem"
if r["rules"] != want:
    print(repr(r["rules"]))'

run_trex comm_explain categories --explain --format json "$trace"
json_check comm_explain "communication.json categories --explain: each rule, what it matched" '
got = {(x["rule"], x["on"]): (x["calls"], x["total_ns"], x["example"]) for x in rows}
want = {("deepep", "name"): (2, 20000, "dpsk::ep::internode::dispatch"),
        ("rccl", "name"): (1, 10000,
                           "void rcclGenericKernel<1, false>(ncclDevKernelArgsStorage<4096ul>)"),
        ("nccl", "name"): (1, 10000, "ncclDevKernel_AllReduce_Sum_f32_RING_LL"),
        ("oneccl", "name"): (1, 5000, "allreduce_kernel_float32_sum"),
        ("hccl", "name"): (1, 5000, "hcom_allReduce__428_0_1"),
        ("pplx", "name"): (1, 5000,
                           "void combineKernel<__nv_bfloat16, float, 10ul, true, true>(float*)"),
        ("nvshmem", "name"): (1, 5000, "nvshmemi_barrier_all_kernel"),
        ("record-param-comms-op", "op"): (1, 10000, "my_ring_kernel"),
        ("collective-arg", "arg"): (1, 10000, "mystery"),
        ("gemm regex", "name"): (1, 20000, "ampere_sgemm_128x64_tn"),
        ("elementwise regex", "name"): (1, 10000, "void at::native::relu_kernel<float>(float*)")}
for k in sorted(set(got) | set(want)):
    if got.get(k) != want.get(k):
        print(k, got.get(k), "want", want.get(k))'

# The args of unlaunched work read back through gzip: the same rules.
gzip -c "$trace" >"$TEST_TMP/communication.json.gz"
run_trex comm_gz categories --explain --format json "$TEST_TMP/communication.json.gz"
check "communication.json.gz categories --explain: as the plain file (args read through gzip)" \
	cmp "$TEST_TMP/comm_explain.out" "$TEST_TMP/comm_gz.out"

# ---- empty tables say why --------------------------------------------------------------
cat >"$TEST_TMP/cpu.json" <<'EOF'
[{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 1, "dur": 5},
 {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 9, "dur": 1},
 {"ph": "X", "cat": "user_annotation", "name": "step", "pid": 1, "tid": 2, "ts": 0, "dur": 20}]
EOF
# note_is NAME TEXT: the text report's last line is "(TEXT)".
note_is() {
	[ "$(rc_of "$1")" -eq 0 ] && [ "$(tail -n 1 "$TEST_TMP/$1.out")" = "($2)" ]
}
for cmd in kernels categories gpu-time; do
	run_trex "cpu_$cmd" "$cmd" "$TEST_TMP/cpu.json"
done
cpu_why="this trace has only CPU events (categories cpu_op, user_annotation)"
check "kernels of a CPU-only trace: one line says why" note_is cpu_kernels "no GPU kernels: $cpu_why"
check "categories of a CPU-only trace: no row, one line says why" sh -c "
	[ \$(wc -l <'$TEST_TMP/cpu_categories.out') -eq 3 ] &&
	[ \"\$(tail -n 1 '$TEST_TMP/cpu_categories.out')\" = '(no GPU work: $cpu_why)' ]"
check "gpu-time of a CPU-only trace: one line says why" note_is cpu_gpu-time "no GPU work: $cpu_why"

cat >"$TEST_TMP/mem.json" <<'EOF'
[{"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD", "pid": 0, "tid": 7, "ts": 1, "dur": 5}]
EOF
run_trex mem kernels "$TEST_TMP/mem.json"
check "kernels of copies only: says --memory lists them" note_is mem \
	"no GPU kernels: only 1 memory copies and 0 memory sets (trex kernels --memory lists them)"

if ! have_corpus; then
	skip "shared corpus" "not found at ${TREX_CORPUS:-(TREX_CORPUS unset)}"
	done_testing
	exit
fi

cupti=$(ls "$TREX_CORPUS"/kineto/hta_cupti_profiler/*.json.gz)
for cmd in kernels categories gpu-time; do
	run_trex "cupti_$cmd" "$cmd" "$cupti"
	check "$cmd of a CUPTI range-profiler trace says kernels are its 77 ranges" note_is \
		"cupti_$cmd" "CUPTI range-profiler trace: kernels appear as 77 cuda_profiler_range events (counters per kernel, no kernel times)"
done
run_trex meta gpu-time "$TREX_CORPUS/acelyzer/meta_events_only.json"
check "gpu-time of metadata only says there is no event with a duration" note_is meta \
	"no GPU work: the trace has no events with a duration (0 instants, 0 counter samples)"
run_trex unknown kernels "$TREX_CORPUS/acelyzer/basic_event_test_cases.json"
check "kernels of unknown categories names them" note_is unknown \
	"no GPU kernels: no category or track of this trace is a device's (categories CatA, CatB; see GPU WORK in trex(1))"

# ---- AIU: acelyzer's summary and categories ----------------------------------------------
A=$TREX_CORPUS/acelyzer
for f in "$A/sample_flex_3062_job_4.json" "$A/allreduce_tp4.json"; do
	run_accel summary "$f"
	for log in "$A/sample_comp_log_ideal.txt" "$A/dt_cycles_table.log"; do
		run_accel ideal "$log" "$f"
	done
done
# Two tables: the sample trace's kernels are in the second (DECODING) one.
{ cat "$A/dt_cycles_table.log"; printf '   DECODING   \n'; cat "$A/sample_comp_log_ideal.txt"; } \
	>"$TEST_TMP/two.log"
run_accel ideal "$TEST_TMP/two.log" "$A/sample_flex_3062_job_4.json"
run_trex two categories --compiler-log "$TEST_TMP/two.log" --format csv "$A/sample_flex_3062_job_4.json"
check "two tables: the device takes the one listing its kernels (DECODING)" sh -c "
	grep -q ',DECODING,.*,Conv_fp16\$' '$TEST_TMP/two.out' && ! grep -q ',UNKN,' '$TEST_TMP/two.out'"
run_trex fast categories --compiler-log "$A/sample_comp_log_ideal.txt" --core-freq 2200 \
	--format json "$A/sample_flex_3062_job_4.json"
json_check fast "--core-freq 2200: the 556336 ideal cycles take 252.88 us" '
t = {r["category"]: r for r in rows}["Total"]
if t["ideal_cycles"] != 556336 or abs(t["ideal_ns"] - 556336 * 1000 / 2200) > 1e-6:
    print(t)'

done_testing
