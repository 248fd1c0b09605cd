#!/bin/sh
# Screen tests of the diff view (issue 16 item 1): `trex A --compare B`
# and V show A's kernels against B's, as `trex diff --by kernels` prints
# them (largest change first, new and gone marked); Enter shows a kernel
# of A in A's timeline, and says so for a kernel only B has; without
# --compare, V says how to give a run. B goes through every --by of trex
# diff, R through the name rules (said in the title), H hides small
# changes; Enter finds each kind of row in A; on both terminal types; and
# the view's rows are trex diff's, column for column, for several --by and
# rules. Hand-checked traces written here:
#   A: k_same 10 us twice, k_slow 10 us, k_gone 5 us
#   B: k_same 10 us twice, k_slow 30 us, k_new 7 us
# so the rows are k_slow +20 us, k_new +7 us, k_gone -5 us, k_same 0.
. "${TREX_SRCDIR:-.}/tests/e2e/lib.sh"
require_built
. "${TREX_SRCDIR:-.}/tests/screen/lib.sh"

SCREEN=$TEST_TMP/screen.txt
A=$TEST_TMP/a.json
B=$TEST_TMP/b.json
kernel() { # NAME TS DUR
	printf '{"ph":"X","cat":"kernel","name":"%s","pid":0,"tid":7,"ts":%s,"dur":%s}' "$1" "$2" "$3"
}
{
	printf '{"traceEvents":[%s,%s,%s,%s]}\n' "$(kernel k_same 0 10)" "$(kernel k_same 20 10)" \
		"$(kernel k_slow 40 10)" "$(kernel k_gone 60 5)"
} >"$A"
{
	printf '{"traceEvents":[%s,%s,%s,%s]}\n' "$(kernel k_same 0 10)" "$(kernel k_same 20 10)" \
		"$(kernel k_slow 40 30)" "$(kernel k_new 80 7)"
} >"$B"

shows() { grep -E -q -- "$1" "$SCREEN" || { sed 's/^/|/' "$SCREEN"; false; }; }
# row_order: the names of the diff rows, top to bottom, one line.
row_order() { grep -o -E 'k_(slow|new|gone|same)$' "$SCREEN" | head -n 4 | tr '\n' ' '; }

screen_script 160 30 "$SCREEN" "V" "$A" --compare "$B"
check "V with --compare: the diff view, titled" shows 'this run \(A\) against --compare \(B\)'
check "the rows by largest change: k_slow, k_new, k_gone, k_same" \
	test "$(row_order)" = "k_slow k_new k_gone k_same "
check "k_slow changed by 20 us (+200 %)" shows '^ *changed +20 +us +200\.00 .*k_slow$'
check "k_new is new, k_gone gone, k_same same" \
	sh -c "grep -q -E '^ *new .*k_new\$' '$SCREEN' && grep -q -E '^ *gone .*k_gone\$' '$SCREEN' &&
		grep -q -E '^ *same .*k_same\$' '$SCREEN'"

screen_script 160 30 "$SCREEN" "V Enter" "$A" --compare "$B"
check "Enter on k_slow: A's timeline with k_slow selected" shows 'k_slow'
check "Enter on k_slow: the timeline, not the table" sh -c "! grep -q 'against --compare' '$SCREEN'"

screen_script 160 30 "$SCREEN" "V j Enter" "$A" --compare "$B"
check "Enter on k_new (only in B): says it is not in this timeline" \
	shows 'only in the --compare run: not in this timeline'

screen_script 160 30 "$SCREEN" "V" "$A"
check "V without --compare: says how to give a run" shows 'no run to compare with: open with --compare B'

run_trex nobar "$A" --compare "$TEST_TMP/no-such.json" --force --dump-screen "$SCREEN" --script V
check "--compare of a missing run: exit 2 naming it" \
	sh -c "[ \"\$(cat '$TEST_TMP/nobar.rc')\" -eq 2 ] && grep -q no-such.json '$TEST_TMP/nobar.err'"

# ---- what is compared, how names match, small changes hidden (both terminal types) -----------

# vdump TERM LANG W H KEYS ARGS...: the W x H screen after KEYS in $SCREEN.
vdump() {
	term=$1 lang=$2 w=$3 h=$4 keys=$5
	shift 5
	rm -f "$SCREEN"
	# shellcheck disable=SC2046
	$(screen_env LINES="$h" COLUMNS="$w" TERM="$term" LANG="$lang" LC_ALL="$lang") "$TREX" -q \
		--force --dump-screen "$SCREEN" --script="$keys" "$@" </dev/null >/dev/null 2>"$TEST_TMP/err"
	[ -f "$SCREEN" ] || echo "(no screen: trex $* failed)" >"$SCREEN"
}

# Names with numbers, written here: A has k_17 (10 us) and k_18 (20 us),
# B k_17 (15 us); k_x 5 us on both. Exactly, k_18 is gone (-20 us), k_17
# changed (+5 us); through digits both are k_N: 30 us against 15 us, and
# Enter shows A's longest of the group, k_18 at 20 us.
NA=$TEST_TMP/na.json
NB=$TEST_TMP/nb.json
printf '{"traceEvents":[%s,%s,%s]}\n' "$(kernel k_17 0 10)" "$(kernel k_18 20 20)" \
	"$(kernel k_x 50 5)" >"$NA"
printf '{"traceEvents":[%s,%s]}\n' "$(kernel k_17 0 15)" "$(kernel k_x 50 5)" >"$NB"
# the hand-made pair with steps, CPU ops and kernels (tests/screen/compare.sh)
CA=$TREX_SRCDIR/tests/data/compare/a.json
CB=$TREX_SRCDIR/tests/data/compare/b.json

for mode in "xterm-256color C.UTF-8" "vt100 C"; do
	set -- $mode
	term=$1 lang=$2
	what="TERM=$term"
	vdump "$term" "$lang" 160 30 'V' "$NA" --compare "$NB"
	check "$what: the title says names are matched exactly" \
		shows '^ trex: kernels: this run \(A\) against --compare \(B\); names matched: exact'
	check "$what: exactly, k_18 is gone" shows '^ *gone +-20 +us .*k_18$'
	vdump "$term" "$lang" 160 30 'V R R R' "$NA" --compare "$NB"
	check "$what: R R R: names matched through digits, said in the title" \
		shows 'names matched: digits'
	check "$what: ... k_17 and k_18 are one row k_N, -15 us" shows '^ *changed +-15 +us .*k_N$'
	check "$what: ... the status line counts the rows" shows 'kernels: 2 rows, names matched: digits'
	vdump "$term" "$lang" 160 30 'V R R R <Enter> <Enter>' "$NA" --compare "$NB"
	check "$what: Enter on k_N: A's longest of the group, k_18 (20 us)" \
		sh -c "grep -q '^ name: k_18' '$SCREEN' && grep -q '^ duration: 20 us' '$SCREEN'"
	vdump "$term" "$lang" 160 30 'V R R R R R' "$NA" --compare "$NB"
	check "$what: R after all: exact again" shows 'names matched: exact'
	vdump "$term" "$lang" 160 30 'V' "$NA" --compare "$NB" --normalize digits
	check "$what: --normalize digits starts the view so" shows 'names matched: digits'

	vdump "$term" "$lang" 160 30 'V B' "$CA" --compare "$CB"
	check "$what: B: the CPU ops compared" \
		sh -c "grep -q '^ trex: ops: this run (A)' '$SCREEN' && grep -q -E '^ *same .*aten::zeros\$' '$SCREEN'"
	vdump "$term" "$lang" 160 30 'V B <Enter> <Enter>' "$CA" --compare "$CB"
	check "$what: Enter on an op: its longest instance in A" shows '^ name: aten::mm'
	vdump "$term" "$lang" 160 30 'V B B' "$CA" --compare "$CB"
	check "$what: B B: the categories compared" shows '^ trex: categories: this run \(A\)'
	vdump "$term" "$lang" 160 30 'V B B B' "$CA" --compare "$CB"
	check "$what: B B B: the steps, the name rule not used there" \
		shows '^ trex: steps: this run \(A\) against --compare \(B\); names matched: exact \(not used\)'
	check "$what: ... step 0 of rank 0: 1 ms against 1.5 ms" shows '^ *changed +0 +0 +1 +ms +1\.5 +ms +500 +us'
	vdump "$term" "$lang" 160 30 'V B B B <Enter> <Enter>' "$CA" --compare "$CB"
	check "$what: Enter on a step: A's step in the timeline" shows '^ name: ProfilerStep#[12]'
	vdump "$term" "$lang" 160 30 'V B B B B' "$NA" --compare "$NB"
	check "$what: B B B B: the kernel sequence per stream" \
		sh -c "grep -q '^ trex: sequence: this run (A)' '$SCREEN' && grep -q -E '^ *removed .*k_18\$' '$SCREEN'"
	vdump "$term" "$lang" 160 30 'V B B B B B' "$NA" --compare "$NB"
	check "$what: B once more: the kernels again" shows '^ trex: kernels: this run'
	vdump "$term" "$lang" 160 30 'V H 6 u s <Enter>' "$NA" --compare "$NB"
	check "$what: H 6us: k_17 (+5 us) and k_x (0) hidden, said" \
		sh -c "grep -q '2 rows changed less than 6 us' '$SCREEN' && ! grep -q 'k_17\$' '$SCREEN' &&
			grep -q -E '^ *gone .*k_18\$' '$SCREEN'"
	vdump "$term" "$lang" 160 30 'V H 6 u s <Enter> H <C-u> 0 <Enter>' "$NA" --compare "$NB"
	check "$what: H 0: every row again" sh -c "grep -q -E 'k_17\$' '$SCREEN' && grep -q 'every row shown: 3' '$SCREEN'"
	vdump "$term" "$lang" 160 30 'V' "$NA" --compare "$NB" --min 60%
	check "$what: --min 60% starts the view with small changes hidden" \
		shows '2 rows changed less than 60 %'
done

# ---- Enter on sequence rows ---------------------------------------------------------------------
# The first pair's stream: k_same k_same k_slow k_gone in A, k_same k_same
# k_slow k_new in B: k_slow changed (A's kernel 2), k_gone removed, k_new
# added at B's kernel 3 (80 us from B's start).
screen_script 160 30 "$SCREEN" "V B B B B <Enter> <Enter>" "$A" --compare "$B"
check "sequence: Enter on the changed run: its first kernel in A" \
	sh -c "grep -q '^ name: k_slow' '$SCREEN' && grep -q '^ start: 40 us' '$SCREEN'"
screen_script 160 30 "$SCREEN" "V B B B B j j <Enter>" "$A" --compare "$B"
check "sequence: Enter on an added run: where B has it, not in this timeline" \
	shows 'only in the --compare run: kernel 3 of rank 0 GPU 0 stream 7 there, at 80 us from B.s start'
screen_script 160 30 "$SCREEN" "V B B B B j <Enter> <Enter>" "$A" --compare "$B"
check "sequence: Enter on a removed run: A's kernel" shows '^ name: k_gone'

# ---- the options in the interface -----------------------------------------------------------------
run_trex nocmp "$A" --normalize hex --force --dump-screen "$TEST_TMP/x.txt" --script=V
check "--normalize without --compare: exit 1 (usage), saying it needs a second run" \
	sh -c "[ \"\$(cat '$TEST_TMP/nocmp.rc')\" -eq 1 ] && grep -q 'is for the diff view (V) of two runs' '$TEST_TMP/nocmp.err'"
run_trex badrule "$A" --compare "$B" --normalize nonsense --force --dump-screen "$TEST_TMP/x.txt" --script=V
check "--normalize nonsense: exit 1 (usage)" test "$(cat "$TEST_TMP/badrule.rc")" -eq 1

# ---- one computation, two consumers: the view's rows are trex diff's -------------------------------
# squeeze: blanks squeezed, none at either end (the view aligns units apart)
squeeze() { sed -e 's/  */ /g' -e 's/^ //' -e 's/ $//'; }
# cli_rows: the rows of trex diff's last text table (after its dashes)
cli_rows() {
	awk '/^-+(  +-+)*$/ { k = 0; inside = 1; next }
		/^$/ || /^\(/ { inside = 0 }
		inside { rows[++k] = $0 }
		END { for (i = 1; i <= k; i++) print rows[i] }'
}
# view_is_cli A B BY RULE [OPTION...]: the view's rows, every column shown,
# are trex diff A B --by BY --normalize RULE's, in order.
view_is_cli() {
	va=$1 vb=$2 by=$3 rule=$4
	shift 4
	case $by in
	kernels) keys=V ;;
	ops) keys='V B' ;;
	categories) keys='V B B' ;;
	steps) keys='V B B B' ;;
	*) keys='V B B B B' ;;
	esac
	screen_script 480 80 "$SCREEN" "$keys" "$va" --compare "$vb" --normalize "$rule" "$@"
	sed -n '3,$p' "$SCREEN" | sed '/^ *$/,$d' | squeeze >"$TEST_TMP/view.txt"
	"$TREX" -q diff "$va" "$vb" --by "$by" --normalize "$rule" "$@" | cli_rows | squeeze \
		>"$TEST_TMP/cli.txt"
	if [ -s "$TEST_TMP/cli.txt" ] && cmp -s "$TEST_TMP/view.txt" "$TEST_TMP/cli.txt"; then
		return 0
	fi
	diff "$TEST_TMP/cli.txt" "$TEST_TMP/view.txt" | head -n 20
	false
}
check "the view is trex diff: kernels, exact" view_is_cli "$NA" "$NB" kernels exact
check "the view is trex diff: kernels, digits" view_is_cli "$NA" "$NB" kernels digits
check "the view is trex diff: kernels, --min 6us" view_is_cli "$NA" "$NB" kernels exact --min 6us
check "the view is trex diff: ops" view_is_cli "$CA" "$CB" ops exact
check "the view is trex diff: categories" view_is_cli "$CA" "$CB" categories all
check "the view is trex diff: steps" view_is_cli "$CA" "$CB" steps exact
check "the view is trex diff: sequence" view_is_cli "$A" "$B" sequence exact
if have_corpus; then
	base=$TREX_CORPUS/kineto/hta_trace_compare/base.json.gz
	test=$TREX_CORPUS/kineto/hta_trace_compare/test.json.gz
	for case in "kernels exact" "kernels template" "kernels digits" "kernels hex" "ops all" \
		"categories exact" "steps exact" "sequence digits" "sequence exact"; do
		set -- $case
		check "corpus pair: the view is trex diff --by $1 --normalize $2" \
			view_is_cli "$base" "$test" "$1" "$2"
	done
else
	skip "corpus pair: the view is trex diff" "shared corpus not found"
fi

done_testing
