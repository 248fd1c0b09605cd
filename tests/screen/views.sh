#!/bin/sh
# Screen tests of the gaps, steps, CPU ops and runtime API views (issue 9
# items 17-19) on the demo trace and corpus Kineto traces, through
# --script/--dump-screen: each opened by its key as `?` lists it, showing
# what the CLI prints (its CSV is the expected table: tests/e2e/views.sh
# checks it against Python), Enter zooming the timeline to a gap or a step,
# Enter listing an op's calls and showing one in the timeline, export.
. "${TREX_SRCDIR:-.}/tests/e2e/lib.sh"
require_built
. "${TREX_SRCDIR:-.}/tests/screen/lib.sh"

python=${PYTHON3:-python3}
W=200 H=50

table() { "$python" "$TREX_SRCDIR/tests/screen/screen_table.py" "$@"; }
# dump OUT KEYS ARGS...: the screen after KEYS at W x H.
dump() {
	out=$1 keys=$2
	shift 2
	screen_dump "$W" "$H" "$out" --script="$keys" "$@"
}
# csv FILE ROW KEY: the KEY field of data row ROW (1-based) of a CSV file.
csv() {
	"$python" -c 'import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
n = int(sys.argv[2])
print(rows[n - 1][sys.argv[3]] if 0 < n <= len(rows) else "")' "$@"
}
rows_of() { echo $(($(wc -l <"$1") - 1)); }
# label ARGS...: the trace a check is about
label() { case $1 in --demo) echo demo ;; *) echo "${1#"$TREX_CORPUS"/kineto/}" ;; esac; }
# check_dump DESCRIPTION FILE COMMAND...: check, with the screen as diagnostics.
check_dump() {
	desc=$1 file=$2
	shift 2
	if "$@" >/dev/null 2>&1; then ok "$desc"; else not_ok "$desc"; diag_file "$file" 8; fi
}

# ---- the keys, from `?` ------------------------------------------------------------
key_for() {
	awk -v want="$2" 'index($0, want) { k = substr($0, 1, index($0, want) - 1)
		sub(/^ +/, "", k); sub(/ +$/, "", k); n = index(k, ", "); print (n ? substr(k, 1, n - 1) : k); exit }' "$1"
}
screen_dump 120 150 "$TEST_TMP/help-tl.txt" --demo --script='?'
screen_dump 120 150 "$TEST_TMP/help-table.txt" --demo --script='2 ?'
k_gaps=$(key_for "$TEST_TMP/help-tl.txt" "Show the idle gaps of each GPU")
k_steps=$(key_for "$TEST_TMP/help-tl.txt" "Show the time of each step")
k_ops=$(key_for "$TEST_TMP/help-tl.txt" "Show the CPU ops summary")
k_api=$(key_for "$TEST_TMP/help-table.txt" "Show the runtime API summary")
check "? lists the gaps, steps and ops keys: $k_gaps $k_steps $k_ops" \
	test "$k_gaps" = 7 -a "$k_steps" = 8 -a "$k_ops" = 9
check "? in a table lists the runtime API key: $k_api" test "$k_api" = 0
check "? in the timeline does not offer 0 for the API (it fits all there)" \
	sh -c "! grep -q 'Show the runtime API summary' '$TEST_TMP/help-tl.txt'"

# ---- gaps ----------------------------------------------------------------------------
gaps_checks() {
	what="gaps $(label "$@")"
	"$TREX" -q gaps --format csv "$@" >"$TEST_TMP/gaps.csv" 2>/dev/null
	n=$(rows_of "$TEST_TMP/gaps.csv")
	dump "$TEST_TMP/g.txt" "$k_gaps" "$@"
	check_dump "$what: $k_gaps opens the view of $n gaps" "$TEST_TMP/g.txt" \
		grep -q " $n GPU idle gaps, longest first" "$TEST_TMP/g.txt"
	[ "$n" -gt 1 ] || return
	for r in 1 2; do
		len=$(csv "$TEST_TMP/gaps.csv" "$r" length_ns)
		start=$(csv "$TEST_TMP/gaps.csv" "$r" start_ns)
		op=$(csv "$TEST_TMP/gaps.csv" "$r" cpu_op)
		check_dump "$what: row $r is the CLI's: $len ns at $start ns, $op" "$TEST_TMP/g.txt" \
			sh -c "table() { \"$python\" \"$TREX_SRCDIR/tests/screen/screen_table.py\" \"\$@\"; }
			table near $len \"\$(table row '$TEST_TMP/g.txt' $r Length)\" &&
			table near $start \"\$(table row '$TEST_TMP/g.txt' $r Start)\" &&
			[ \"\$(table row '$TEST_TMP/g.txt' $r 'CPU op')\" = '$op' ]"
	done
	# Enter on the second: the timeline shows it, the work after it selected
	dump "$TEST_TMP/gt.txt" "$k_gaps j Enter" "$@"
	check_dump "$what: Enter on a gap shows it in the timeline" "$TEST_TMP/gt.txt" \
		table covers "$TEST_TMP/gt.txt" "$start" $((start + len))
	check_dump "$what: ... the work that ends it selected" "$TEST_TMP/gt.txt" \
		table selected "$TEST_TMP/gt.txt" $((start + len))
	dump "$TEST_TMP/gb.txt" "$k_gaps j Enter $k_gaps" "$@"
	check_dump "$what: $k_gaps goes back to the gaps, the row kept" "$TEST_TMP/gb.txt" \
		sh -c "tail -n 2 '$TEST_TMP/gb.txt' | grep -q ' 2/$n'"
}
gaps_checks --demo

# ---- steps ---------------------------------------------------------------------------
steps_checks() {
	what="steps $(label "$@")"
	"$TREX" -q steps --format csv "$@" >"$TEST_TMP/steps.csv" 2>/dev/null
	n=$(rows_of "$TEST_TMP/steps.csv")
	dump "$TEST_TMP/s.txt" "$k_steps" "$@"
	check_dump "$what: $k_steps shows $n steps" "$TEST_TMP/s.txt" test "$(table rows "$TEST_TMP/s.txt")" -eq "$n"
	good=0 r=1
	while [ "$r" -le "$n" ]; do
		step=$(csv "$TEST_TMP/steps.csv" "$r" step)
		for col in "dur_ns:Step time" "busy_ns:GPU busy" "idle_ns:GPU idle"; do
			cell=$(table cell "$TEST_TMP/s.txt" Step "$step" "${col#*:}") &&
				table near "$(csv "$TEST_TMP/steps.csv" "$r" "${col%%:*}")" "$cell" || break
		done && good=$((good + 1))
		r=$((r + 1))
	done
	check_dump "$what: each step's time, GPU busy and idle are the CLI's ($good of $n)" "$TEST_TMP/s.txt" \
		test "$good" -eq "$n" -a "$n" -gt 0
	[ "$n" -gt 1 ] || return
	start=$(csv "$TEST_TMP/steps.csv" 2 start_ns)
	dur=$(csv "$TEST_TMP/steps.csv" 2 dur_ns)
	dump "$TEST_TMP/st.txt" "$k_steps j Enter" "$@"
	check_dump "$what: Enter zooms the timeline to the second step" "$TEST_TMP/st.txt" \
		table covers "$TEST_TMP/st.txt" "$start" $((start + dur))
	check_dump "$what: ... the step selected" "$TEST_TMP/st.txt" \
		sh -c "tail -n 1 '$TEST_TMP/st.txt' | grep -q -F '$(csv "$TEST_TMP/steps.csv" 2 step) ' &&
		\"$python\" \"$TREX_SRCDIR/tests/screen/screen_table.py\" selected '$TEST_TMP/st.txt' $start"
}
steps_checks --demo
if have_corpus; then
	steps_checks "$TREX_CORPUS/kineto/kineto_tb_resnet50_2021/worker0.1623143089861.pt.trace.json.gz"
	gaps_checks "$TREX_CORPUS/kineto/hta_nccl_data/nccl_data.json.gz"
else
	skip "steps and gaps of corpus traces" "corpus not found (TREX_CORPUS)"
fi

"$TREX" -q steps --format csv --demo --step '^aten::item$' >"$TEST_TMP/items.csv" 2>/dev/null
dump "$TEST_TMP/si.txt" "$k_steps" --demo --step '^aten::item$'
check_dump "--step in the interface: the steps view shows the pattern's $(rows_of "$TEST_TMP/items.csv") steps" \
	"$TEST_TMP/si.txt" sh -c "grep -q -F '(^aten::item\$) on the GPUs' '$TEST_TMP/si.txt' &&
	[ \"\$(\"$python\" \"$TREX_SRCDIR/tests/screen/screen_table.py\" rows '$TEST_TMP/si.txt')\" -eq $(rows_of "$TEST_TMP/items.csv") ]"
dump "$TEST_TMP/sn.txt" "$k_steps" --demo --step '^no such step$'
check_dump "no step matches: the view says so and why" "$TEST_TMP/sn.txt" \
	sh -c "grep -q '(no rows)' '$TEST_TMP/sn.txt' && tail -n 1 '$TEST_TMP/sn.txt' | grep -q 'no steps: no CPU op or annotation matches'"

# ---- ops and api ---------------------------------------------------------------------
cpu_checks() {
	cmd=$1 keys=$2 sortcol=$3
	shift 3
	what="$cmd $(label "$@")"
	"$TREX" -q "$cmd" --format csv "$@" >"$TEST_TMP/$cmd.csv" 2>/dev/null
	n=$(rows_of "$TEST_TMP/$cmd.csv")
	name=$(csv "$TEST_TMP/$cmd.csv" 1 name)
	calls=$(csv "$TEST_TMP/$cmd.csv" 1 calls)
	dump "$TEST_TMP/o.txt" "$keys" "$@"
	check_dump "$what: $keys shows $n names, the CLI's first ($name) first" "$TEST_TMP/o.txt" \
		sh -c "grep -q ': $n names' '$TEST_TMP/o.txt' &&
		[ \"\$(\"$python\" \"$TREX_SRCDIR/tests/screen/screen_table.py\" row '$TEST_TMP/o.txt' 1 Name)\" = '$name' ] &&
		sed -n 2p '$TEST_TMP/o.txt' | grep -q '$sortcol▼'"
	dump "$TEST_TMP/oi.txt" "$keys Enter" "$@"
	check_dump "$what: Enter lists the $calls calls of $name, longest first" "$TEST_TMP/oi.txt" \
		sh -c "grep -q -F ' $calls call' '$TEST_TMP/oi.txt' && grep -q -F ' of $name' '$TEST_TMP/oi.txt' &&
		\"$python\" \"$TREX_SRCDIR/tests/screen/screen_table.py\" near $(csv "$TEST_TMP/$cmd.csv" 1 max_ns) \
		\"\$(\"$python\" \"$TREX_SRCDIR/tests/screen/screen_table.py\" row '$TEST_TMP/oi.txt' 1 Duration)\""
	dump "$TEST_TMP/ot.txt" "$keys Enter Enter" "$@"
	check_dump "$what: Enter on a call shows it selected in the timeline" "$TEST_TMP/ot.txt" \
		sh -c "tail -n 1 '$TEST_TMP/ot.txt' | grep -q -F '$name '"
}
cpu_checks ops "$k_ops" Self --demo
cpu_checks api "2 $k_api" Total --demo
if have_corpus; then
	cpu_checks ops "$k_ops" Self "$TREX_CORPUS/kineto/hta_ns_resolution/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz"
	cpu_checks api "2 $k_api" Total "$TREX_CORPUS/kineto/tracelens_mi300_bert_small/gaunernst_bert-small-uncased__1016001.json.gz"
fi

dump "$TEST_TMP/z.txt" "$k_api" --demo
check_dump "in the timeline $k_api fits the whole trace (the API is one table away)" "$TEST_TMP/z.txt" \
	sh -c "sed -n 2p '$TEST_TMP/z.txt' | grep -q '│' && ! grep -q 'runtime API calls' '$TEST_TMP/z.txt'"

# ---- export: what x writes is the CLI's table -----------------------------------------
mkdir -p "$TEST_TMP/export"
for v in "gaps:$k_gaps" "steps:$k_steps" "ops:$k_ops" "api:2 $k_api"; do
	cmd=${v%%:*}
	(cd "$TEST_TMP/export" && dump "$TEST_TMP/x.txt" "${v#*:} x Enter" --demo)
	"$TREX" -q "$cmd" --demo --format csv >"$TEST_TMP/cli-$cmd.csv"
	check "export of the $cmd view equals trex $cmd --format csv" \
		cmp "$TEST_TMP/cli-$cmd.csv" "$TEST_TMP/export/$cmd.csv"
done

done_testing
