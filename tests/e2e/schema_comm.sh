#!/bin/sh
# End-to-end: communication is one classification, made once at load by
# the built-in rules or by --schema (issue 11 item 1), and gpu-time, steps
# and categories read the same one. tests/data/schema_comm/trace.json has
# three kernels, checked by hand: gemm_big 100 us on stream 7,
# my_exchange_kernel 40 us and ncclDevKernel_AllReduce_Sum_f32 30 us on
# stream 8. The built-in rules call only the NCCL kernel communication;
# rules.txt and schema.ini (a trex rules file and a unitrace INI) put
# my_exchange in a communication category (comm, allreduce.custom) and the
# NCCL kernel in gemm, so with either only my_exchange is communication.
. "${TREX_SRCDIR:?run through make check}/tests/e2e/lib.sh"
require_built

DIR=$TREX_SRCDIR/tests/data/schema_comm

# gpu_time LABEL COMPUTE_NS COMM_NS ARGS...: gpu-time's one row.
gpu_time() {
	label=$1 compute=$2 comm=$3
	shift 3
	run_trex gt gpu-time --format json "$@" "$DIR/trace.json"
	got=$("$PYTHON3" -c 'import json,sys; r=json.load(open(sys.argv[1]))["rows"][0]
print(r["compute_ns"], r["comm_ns"])' "$TEST_TMP/gt.out" 2>/dev/null)
	if [ "$(rc_of gt)" -eq 0 ] && [ "$got" = "$compute $comm" ]; then
		ok "$label: compute $compute ns, comm $comm ns"
	else
		not_ok "$label: compute $compute ns, comm $comm ns (got '$got', exit $(rc_of gt))"
		diag_file "$TEST_TMP/gt.err"
	fi
}

gpu_time "built-in rules" 100000 30000
gpu_time "--schema rules.txt" 130000 40000 --schema "$DIR/rules.txt"
gpu_time "--schema schema.ini" 130000 40000 --schema "$DIR/schema.ini"

# categories with the same file: the comm category holds the same 40 us
run_trex cat categories --format json --schema "$DIR/rules.txt" "$DIR/trace.json"
got=$("$PYTHON3" -c 'import json,sys
rows = {r["category"]: r["total_ns"] for r in json.load(open(sys.argv[1]))["rows"]}
print(rows.get("comm"), rows.get("gemm"))' "$TEST_TMP/cat.out" 2>/dev/null)
if [ "$(rc_of cat)" -eq 0 ] && [ "$got" = "40000 130000" ]; then
	ok "categories --schema: comm 40 us, gemm 130 us, as gpu-time counts them"
else
	not_ok "categories --schema (got '$got', exit $(rc_of cat))"
	diag_file "$TEST_TMP/cat.out" 20
fi

# steps takes --schema too (no steps in this trace: it says so, exit 0)
run_trex steps steps --schema "$DIR/rules.txt" "$DIR/trace.json"
if [ "$(rc_of steps)" -eq 0 ]; then
	ok "steps accepts --schema"
else
	not_ok "steps --schema (exit $(rc_of steps))"
	diag_file "$TEST_TMP/steps.err"
fi
expect_usage "--schema is not for kernels" kernels --schema "$DIR/rules.txt" "$DIR/trace.json"
done_testing
