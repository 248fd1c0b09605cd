#!/bin/sh
# End-to-end: `trex diff A B` (issue 16, item 1) against numbers that
# tests/e2e/diff.py computes from the same JSON with Python: the corpus's
# two-run pair (HTA trace_compare base vs test) and a generated pair with
# kernels removed, added, slowed and renamed, whose sequence alignment must
# report exactly those edits; several files per side, index files as
# inputs, one side without kernels or steps, the output formats and the
# option checks.
. "${TREX_SRCDIR:?run through make check}/tests/e2e/lib.sh"
require_built

DIFF_PY=$E2E_DIR/diff.py

# ---- options ----------------------------------------------------------------------
expect_usage "diff needs two runs" diff "$TEST_TMP/a.json"
check "one run: the message says what diff takes and what it got" \
	grep -q 'expected two runs, A and B .*got 1 argument$' "$TEST_TMP/usage.err"
expect_usage "diff without runs" diff
expect_usage "diff takes two runs, not three" diff a b c
expect_usage "diff does not take --demo" diff --demo
expect_usage "--by of diff: kernels, ops, categories, steps or sequence" diff --by shape a b
expect_usage "--normalize takes known rules" diff --normalize addresses a b
expect_usage "--normalize is for diff" kernels --demo --normalize hex
expect_usage "--min PCT% is for diff" gaps --demo --min 5%
expect_usage "--min takes a percentage above 0" diff --min 0% a b
run_trex badby diff --by shape a b
check "--by shape names what diff compares" grep -q 'kernels, ops, categories, steps or sequence' \
	"$TEST_TMP/badby.err"

# ---- the corpus pair ------------------------------------------------------------------
if have_corpus; then
	P=$TREX_CORPUS/kineto/hta_trace_compare
	run_checker "$DIFF_PY" compare "$P/base.json.gz" "$P/test.json.gz"
	run_checker "$DIFF_PY" compare "$P/base.json.gz" "$P/test.json.gz" --normalize all
	# several files per side: a comma list each; the same runs compare as same
	W=$TREX_CORPUS/kineto/param_dlrm_8rank
	set -- "$W"/worker0_*.json.gz "$W"/worker1_*.json.gz
	run_trex multi diff "$1,$2" "$1,$2" --format csv
	if [ "$(rc_of multi)" -eq 0 ] && [ "$(tail -n +2 "$TEST_TMP/multi.out" | grep -c '^same,0,')" -gt 0 ] &&
		! tail -n +2 "$TEST_TMP/multi.out" | grep -v -q '^same,0,'; then
		ok "diff A1,A2 A1,A2: every kernel row same, change 0"
	else
		not_ok "diff A1,A2 A1,A2: every kernel row same, change 0"
		diag_file "$TEST_TMP/multi.out" 5
		diag_file "$TEST_TMP/multi.err" 5
	fi
	run_trex multitext diff "$1,$2" "$1,$2" -q
	check "diff A1,A2 B1,B2: both sides list their two files" \
		grep -q '^B: 2 files: ' "$TEST_TMP/multitext.out"
else
	skip "corpus pair" "no corpus (TREX_CORPUS)"
fi

# ---- a generated pair -----------------------------------------------------------------
mkdir -p "$TEST_TMP/pair"
run_checker "$DIFF_PY" pair "$TEST_TMP/pair" 3
A=$TEST_TMP/pair/a.json
B=$TEST_TMP/pair/b.json
run_checker "$DIFF_PY" compare "$A" "$B"
run_checker "$DIFF_PY" compare "$A" "$B" --normalize template

# index files stand for their traces, and give the same report
run_trex parsed diff --no-cache --by sequence --format json "$A" "$B"
(unset TREX_INDEX_DIR && "$TREX" index -q "$A" "$B" >/dev/null 2>&1)
run_trex fromidx diff --by sequence --format json "$A.trex" "$B.trex"
if [ -f "$A.trex" ] && [ "$(rc_of fromidx)" -eq 0 ] &&
	cmp -s "$TEST_TMP/parsed.out" "$TEST_TMP/fromidx.out"; then
	ok "diff A.trex B.trex: the same report as from the JSON"
else
	not_ok "diff A.trex B.trex: the same report as from the JSON"
	diag_file "$TEST_TMP/fromidx.err" 5
fi

# --top and --min leave rows out and say so
run_trex top diff --by kernels --top 2 "$A" "$B"
check "--top 2: two kernel rows and how many more" \
	grep -q '^(13 more rows past --top 2)$' "$TEST_TMP/top.out"
run_trex min diff --by kernels --min 1ms "$A" "$B"
check "--min 1ms: every kernel row changed less, said" \
	grep -q '^(13 rows changed less than --min)$' "$TEST_TMP/min.out"

# ---- one side without kernels or steps ------------------------------------------------
printf '{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 0, "dur": 5}]}\n' \
	>"$TEST_TMP/cpu.json"
run_trex cpu diff "$TEST_TMP/cpu.json" "$A"
if [ "$(rc_of cpu)" -eq 0 ] && grep -q '^(A: no GPU kernels' "$TEST_TMP/cpu.out" &&
	grep -q '^new ' "$TEST_TMP/cpu.out"; then
	ok "A without kernels: B's are new, and the report says why A has none"
else
	not_ok "A without kernels: B's are new, and the report says why A has none"
	diag_file "$TEST_TMP/cpu.out" 30
fi
run_trex nosteps diff --by steps "$A" "$TEST_TMP/cpu.json"
check "B without steps: said, A's steps gone" \
	grep -q 'B has no steps (no CPU op or annotation matches ^ProfilerStep#)' \
	"$TEST_TMP/nosteps.out"

# ---- formats and output files ---------------------------------------------------------
run_trex csv diff --by categories "$A" "$B" --format csv
check "CSV: one table, its header" grep -q \
	'^status,delta_ns,delta_pct,a_total_ns,b_total_ns,a_count,b_count,a_avg_ns,b_avg_ns,avg_delta_pct,a_p95_ns,b_p95_ns,name$' \
	"$TEST_TMP/csv.out"
run_trex json diff "$A" "$B" --normalize hex,template -o "$TEST_TMP/d.json"
if [ "$(rc_of json)" -eq 0 ] && "$PYTHON3" -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["normalize"] == "hex,template", d["normalize"]
assert d["a"][0].endswith("a.json") and d["b"][0].endswith("b.json")
assert d["summary"]["table"] == "summary" and d["kernels"]["table"] == "kernels"
assert d["kernels"]["columns"][-1] == "name_normalized"
' "$TEST_TMP/d.json"; then
	ok "-o X.json: JSON with both runs, the rule, the summary and the kernels"
else
	not_ok "-o X.json: JSON with both runs, the rule, the summary and the kernels"
	diag_file "$TEST_TMP/json.err"
fi
run_trex again diff "$A" "$B" -o "$TEST_TMP/d.json"
check "-o of an existing file without --force: refused before loading" \
	test "$(rc_of again)" -ne 0
run_trex missing diff "$A" "$TEST_TMP/no-such.json"
check "a missing run: exit 2 naming it" test "$(rc_of missing)" -eq 2
check "a missing run: the message names it" grep -q 'no-such.json' "$TEST_TMP/missing.err"

# ---- both runs load at once; what each says comes in A, B order -----------------------
run_trex bothmissing diff "$TEST_TMP/no-such-a.json" "$TEST_TMP/no-such-b.json"
check "both runs missing: exit 2 naming A, the first" sh -c \
	'test "$1" -eq 2 && grep -q "no-such-a.json" "$2" && ! grep -q "no-such-b.json" "$2"' \
	sh "$(rc_of bothmissing)" "$TEST_TMP/bothmissing.err"
head -c "$(($(wc -c <"$A") * 2 / 3))" "$A" >"$TEST_TMP/cut-a.json"
head -c "$(($(wc -c <"$B") / 2))" "$B" >"$TEST_TMP/cut-b.json"
run_trex cut diff --no-cache -q "$TEST_TMP/cut-a.json" "$TEST_TMP/cut-b.json"
grep 'damaged input' "$TEST_TMP/cut.err" | sed -n 's/^trex: warning: .*\(cut-[ab]\.json\).*/\1/p' |
	uniq >"$TEST_TMP/cut.order"
check "two damaged runs: A's warnings, then B's" \
	test "$(tr '\n' ' ' <"$TEST_TMP/cut.order")" = "cut-a.json cut-b.json "
run_trex cutstrict diff --no-cache -q --strict "$A" "$TEST_TMP/cut-b.json"
check "--strict, B damaged: exit 2 naming B" sh -c \
	'test "$1" -eq 2 && grep -q "cut-b.json" "$2"' sh "$(rc_of cutstrict)" "$TEST_TMP/cutstrict.err"
run_trex onethread diff --no-cache -j 1 "$A" "$B"
run_trex twothreads diff --no-cache -j 2 "$A" "$B"
check "-j 1 (one run after the other) and -j 2 (both at once): the same report" \
	cmp "$TEST_TMP/onethread.out" "$TEST_TMP/twothreads.out"

done_testing
