#!/bin/sh
# End-to-end: trex gaps, steps, ops and api and the bytes and GB/s of
# kernels --memory (issue 9 items 17-19) against numbers that
# tests/e2e/views.py computes from the same JSON with Python, on every
# Kineto trace of the corpus and on the multi-rank sets; and their options.
. "${TREX_SRCDIR:?run through make check}/tests/e2e/lib.sh"
require_built

VIEWS_PY=$E2E_DIR/views.py

# run_views ARGS...: views.py's PASS/FAIL lines as TAP.
run_views() {
	TREX=$TREX "$PYTHON3" "$VIEWS_PY" "$@" >"$TEST_TMP/views.out" 2>"$TEST_TMP/views.err"
	py_rc=$?
	tap_from_stream <"$TEST_TMP/views.out"
	if [ "$py_rc" -ne 0 ] && ! grep -q '^FAIL ' "$TEST_TMP/views.out"; then
		not_ok "views.py $1 ran (exit $py_rc)"
		diag_file "$TEST_TMP/views.err" 30
	fi
}

# expect_usage LABEL MESSAGE ARGS...: trex exits 1 with MESSAGE on stderr.
expect_usage() {
	label=$1 message=$2
	shift 2
	run_trex usage "$@"
	if [ "$(rc_of usage)" -eq 1 ] && grep -q -F -- "$message" "$TEST_TMP/usage.err"; then
		ok "usage error: $label"
	else
		not_ok "usage error: $label"
		diag "exit $(rc_of usage)"
		diag_file "$TEST_TMP/usage.err"
	fi
}

# ---- options ----------------------------------------------------------------------
expect_usage "--min takes a time" "--min: expected a time" gaps --demo --min 12parsecs
expect_usage "--min is not relative" "--min: expected a time" gaps --demo --min +5us
expect_usage "--min is for gaps, diff and the interface" "--min applies to 'trex gaps', 'trex diff' and the interface only" ops --demo --min 5us
expect_usage "--top takes a count of rows" "--top: expected a number" api --demo --top 0
expect_usage "--top is for gaps, ops and api" "--top applies to" steps --demo --top 3
expect_usage "--step is for steps" "--step applies to" kernels --demo --step x
expect_usage "a bad --step pattern, before loading" "--step 'Step#(': missing closing parenthesis" \
	steps --step 'Step#(' "$TEST_TMP/not-loaded.json"
expect_usage "--step without a command needs the interface" "--step without a command" \
	--demo --step x

for cmd in gaps steps ops api; do
	for fmt in text csv json; do
		run_trex "${cmd}_$fmt" "$cmd" --demo --format "$fmt"
		check "$cmd --demo --format $fmt runs" test "$(rc_of "${cmd}_$fmt")" -eq 0
	done
	check "$cmd --demo prints rows" sh -c "[ \$(wc -l <'$TEST_TMP/${cmd}_csv.out') -gt 2 ]"
done

run_trex empty_steps steps --demo --step '^no such step$'
check "steps: none match: one line says which pattern" \
	grep -q -F "(no steps: no CPU op or annotation matches ^no such step\$" "$TEST_TMP/empty_steps.out"
run_trex long_gaps gaps --demo --min 1s
check "gaps --min longer than any gap: one line says so" grep -q -F "(no GPU gap that long)" \
	"$TEST_TMP/long_gaps.out"
run_trex top_ops ops --demo --top 3 --format csv
check "ops --top 3: a header and three rows" test "$(wc -l <"$TEST_TMP/top_ops.out")" -eq 4

if ! have_corpus; then
	skip "shared corpus" "not found at ${TREX_CORPUS:-(TREX_CORPUS unset)}"
	done_testing
	exit
fi

# Every Kineto trace of the corpus on its own, each read once for all checks.
for f in "$TREX_CORPUS"/kineto/*/*; do
	case $f in
	*.json | *.json.gz) printf '%s\n' "$f" ;;
	esac
done >"$TEST_TMP/kineto"
# shellcheck disable=SC2046 # corpus paths have no spaces
run_views all $(cat "$TEST_TMP/kineto")

# Several ranks, one per file, loaded together.
run_views ranks "$TREX_CORPUS"/kineto/param_dlrm_8rank/*.json.gz
run_views ranks "$TREX_CORPUS"/kineto/hta_sampled_2rank/*.json.gz

done_testing
