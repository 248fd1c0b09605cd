#!/bin/sh
# End-to-end: rank alignment and stragglers (issue 16 item 2) on the 8-rank
# DLRM set: copies with known per-rank offsets injected (align.py shift)
# are put back on one clock to within 1 us, the offsets are the least
# squares align.py computes, stragglers match its last arrivals and waits,
# --align moves every report's times (parsed or mapped from the index
# file), and bad inputs say what is missing.
. "${TREX_SRCDIR:?run through make check}/tests/e2e/lib.sh"
require_built
have_corpus || skip_all "no corpus (TREX_CORPUS)"

ALIGN_PY=$E2E_DIR/align.py
DLRM=$TREX_CORPUS/kineto/param_dlrm_8rank
SHIFTED=$TEST_TMP/shifted
mkdir -p "$SHIFTED"
"$PYTHON3" "$ALIGN_PY" shift "$SHIFTED" "$DLRM"/*.json.gz || bail_out "align.py shift failed"

run_checker "$ALIGN_PY" offsets "$DLRM" "$SHIFTED"
run_checker "$ALIGN_PY" stragglers "$SHIFTED"
run_checker "$ALIGN_PY" stragglers "$DLRM"

# --align: the shifted set's reports equal the original's once aligned
# (rank 0 is the reference in both, its injected offset is 0).
run_trex orig steps --align collectives --format csv "$DLRM"/*.json.gz
run_trex shifted steps --align collectives --format csv "$SHIFTED"/*.json
check "steps --align collectives: the shifted set reads as the original" \
	cmp "$TEST_TMP/orig.out" "$TEST_TMP/shifted.out"
run_trex raw steps --format csv "$SHIFTED"/*.json
check "steps without --align shows the injected offsets" \
	sh -c "! cmp -s '$TEST_TMP/orig.out' '$TEST_TMP/raw.out'"
check "--align says on stderr how many ranks it put on one clock" \
	grep -q '^trex: 8 ranks put on one clock by 8 collectives (largest residual ' \
	"$TEST_TMP/shifted.err"
# the second load maps the index file written by the first; its times are
# corrected in private pages, the file left as it was
idx_sum() { cat "$TREX_INDEX_DIR"/* | cksum; }
before=$(idx_sum)
run_trex mapped steps --align collectives --format csv "$SHIFTED"/*.json
check "steps --align from the index file equals the parse" \
	cmp "$TEST_TMP/shifted.out" "$TEST_TMP/mapped.out"
check "aligning a mapped index leaves its index file unchanged" test "$before" = "$(idx_sum)"
run_trex quiet kernels -q --align collectives "$SHIFTED"/*.json
check "-q: no alignment line" test ! -s "$TEST_TMP/quiet.err"

# export --align: the slices as the aligned clock has them
run_trex exp_orig export --to csv -o - --align collectives "$DLRM"/*.json.gz
run_trex exp_shifted export --to csv -o - --align collectives "$SHIFTED"/*.json
check "export --align collectives: the shifted set's slices are the original's" \
	cmp "$TEST_TMP/exp_orig.out" "$TEST_TMP/exp_shifted.out"

# stragglers: aligned by default; --align none says times are as recorded
run_trex st stragglers "$SHIFTED"/*.json
check "stragglers aligns on collectives by default" \
	grep -q '^Times aligned on collectives' "$TEST_TMP/st.out"
run_trex st_none stragglers --align none "$SHIFTED"/*.json
check "stragglers --align none says times are as recorded" \
	grep -q 'Times as recorded (--align none)' "$TEST_TMP/st_none.out"
run_trex st_csv stragglers --format csv "$SHIFTED"/*.json
check "stragglers CSV: the events table" \
	grep -q '^last_rank,wait_sum_ns,wait_max_ns,late_ns,ranks,at_ns,kind,group,event$' \
	"$TEST_TMP/st_csv.out"
run_trex al_steps align --on steps "$SHIFTED"/*.json
check "align --on steps: 2 anchors (start and end of ProfilerStep#10)" \
	grep -q '^2 anchors: the starts and ends of steps of 1 step name' "$TEST_TMP/al_steps.out"

# ---- bad inputs and options ---------------------------------------------------------------
# expect_fail LABEL WORDS ARGS...: exit 2 with WORDS in the message
expect_fail() {
	label=$1 words=$2
	shift 2
	run_trex fail "$@"
	if [ "$(rc_of fail)" -eq 2 ] && grep -q -F -- "$words" "$TEST_TMP/fail.err"; then
		ok "$label"
	else
		not_ok "$label"
		diag "exit $(rc_of fail)"
		diag_file "$TEST_TMP/fail.err"
	fi
}
expect_fail "align of one rank says there is nothing to align" \
	"trex: one rank: nothing to align: give the traces of several ranks" \
	align "$DLRM/worker0_step_12.1694128201545.pt.trace.json.gz"
expect_fail "--align on one rank says so" \
	"trex: --align collectives: one rank: nothing to align" \
	kernels --align collectives "$DLRM/worker0_step_12.1694128201545.pt.trace.json.gz"
expect_fail "stragglers of one rank says so" "one rank: nothing to align" \
	stragglers "$DLRM/worker0_step_12.1694128201545.pt.trace.json.gz"
for r in 0 1; do
	printf '{"distributedInfo": {"rank": %d}, "traceEvents": [
{"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 10, "dur": 5}]}\n' \
		"$r" >"$TEST_TMP/plain$r.json"
done
expect_fail "align of ranks without collectives says so" \
	"no two ranks share a collective: nothing to match across ranks" \
	align "$TEST_TMP/plain0.json" "$TEST_TMP/plain1.json"
expect_fail "align --on steps of ranks without steps says so" \
	"no two ranks share a step" align --on steps "$TEST_TMP/plain0.json" "$TEST_TMP/plain1.json"
expect_fail "stragglers without collectives cannot align, and says so" \
	"trex: --align collectives: no two ranks share a collective" \
	stragglers "$TEST_TMP/plain0.json" "$TEST_TMP/plain1.json"
expect_fail "stragglers --align none without collectives or steps says so" \
	"no two ranks share a collective or a step" \
	stragglers --align none "$TEST_TMP/plain0.json" "$TEST_TMP/plain1.json"
expect_fail "--align refuses execution graphs, scheduled on one clock" \
	"are scheduled on one clock already" \
	kernels --align collectives "$TREX_SRCDIR/tests/data/astrasim/data_2layers.txt"
expect_usage "--on takes collectives or steps" align --on none --demo
expect_usage "--align takes collectives, steps or none" kernels --align bogus --demo
expect_usage "--on is for align" kernels --on steps --demo
expect_usage "--align is not for align itself" align --align steps --demo
done_testing
