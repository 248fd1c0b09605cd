#!/bin/sh
# Screen tests of the triage tables (kernels, instances, categories, GPU
# time) on the demo trace and a corpus Kineto trace, at 80x24, 160x48 and
# 40x12. Expected rows are computed here from the CLI's CSV/text output
# (sorted and filtered in Python), never taken from the UI.
. "${TREX_SRCDIR:-.}/tests/e2e/lib.sh"
require_built
. "${TREX_SRCDIR:-.}/tests/screen/lib.sh"

CORPUS_TRACE=$TREX_CORPUS/kineto/tracelens_h100_bert_small/gaunernst_bert-small-uncased__1016001.json.gz

cat >"$TEST_TMP/exp.py" <<'EOF'
# exp.py CSV CMD ARGS: expected values from `trex kernels --format csv`.
import csv, re, sys

rows = list(csv.DictReader(open(sys.argv[1], newline="")))
cmd, args = sys.argv[2], sys.argv[3:]

def fold(name):
    """<...> -> <…>, (...) -> (…), outermost only, nesting counted."""
    out, i = [], 0
    while i < len(name):
        c = name[i]
        if c in "<(" and not name.startswith("operator", max(0, i - 8)):
            depth, j = 0, i
            while j < len(name):
                if name[j] in "<(":
                    depth += 1
                elif name[j] in ">)" and not (name[j] == ">" and name[j - 1] == "-"):
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            if j < len(name) and j > i + 1:
                out.append(c + "\u2026" + name[j])
                i = j + 1
                continue
        out.append(c)
        i += 1
    return "".join(out)

def trimmed(v):
    s = "%.3f" % v
    s = s.rstrip("0").rstrip(".")
    return s

def duration(ns):
    """trex_format_duration: 3 decimals, trailing zeros dropped."""
    units = [("ns", 1), ("us", 1e3), ("ms", 1e6), ("s", 1e9)]
    u = 0
    while u < 3 and abs(ns) >= units[u + 1][1]:
        u += 1
    if u < 3 and abs(float(trimmed(ns / units[u][1]))) >= 1000:
        u += 1
    return "%s %s" % (trimmed(ns / units[u][1]), units[u][0])

if cmd == "first":  # first COLUMN asc|desc: name of the first row, ties by name
    col, desc = args[0], args[1] == "desc"
    key = lambda r: float(r[col])
    best = sorted(rows, key=lambda r: r["name"].encode())
    best = sorted(best, key=key, reverse=desc)
    print(best[0]["name"])
elif cmd == "count":  # count REGEX: rows whose name matches (smart case)
    flags = 0 if re.search("[A-Z]", args[0]) else re.I
    print(sum(1 for r in rows if re.search(args[0], r["name"], flags)))
elif cmd == "positions":  # positions REGEX: 1-based rows (by total) whose name matches
    order = sorted(rows, key=lambda r: (-float(r["total_ns"]), r["name"].encode()))
    flags = 0 if re.search("[A-Z]", args[0]) else re.I
    print(" ".join(str(i + 1) for i, r in enumerate(order) if re.search(args[0], r["name"], flags)))
elif cmd == "rows":
    print(len(rows))
elif cmd == "top":  # top FIELD: a field of the row with the largest total
    r = sorted(rows, key=lambda r: (-float(r["total_ns"]), r["name"].encode()))[0]
    print(r[args[0]])
elif cmd == "bracketed":  # the first name (by total) with brackets to fold
    for r in sorted(rows, key=lambda r: (-float(r["total_ns"]), r["name"].encode())):
        if fold(r["name"]) != r["name"]:
            print(r["name"])
            break
elif cmd == "keys":  # keys NAME: --script keys searching for the longest word of the name
    word = max(re.findall("[A-Za-z0-9_]+", fold(args[0])), key=len)
    print(" ".join(word[:30]))
elif cmd == "fold":
    print(fold(args[0]))
elif cmd == "duration":
    print(duration(float(args[0])))
EOF

exp() {
	"$PYTHON3" "$TEST_TMP/exp.py" "$@"
}

# The first n characters of s (n = width - 2, names get cut on screen).
prefix() {
	"$PYTHON3" -c 'import sys; print(sys.argv[1][:int(sys.argv[2])])' "$1" "$2"
}

# position_is N: the status line says the selection is on row N.
position_is() {
	sed -n "$(($(wc -l <"$TEST_TMP/screen.txt") - 1))p" "$TEST_TMP/screen.txt" |
		grep -E -q " $1/[0-9]+ *\$"
}

starts_with() {
	case $1 in "$2"*) return 0 ;; esac
	return 1
}

# kernel_checks W H ARGS...: the kernels view of one trace at one size.
kernel_checks() {
	w=$1 h=$2
	shift 2
	what="$w""x$h $*"
	csv=$TEST_TMP/kernels.csv
	"$TREX" -q kernels --format csv "$@" >"$csv"
	n=$((w - 2))

	first=$(exp "$csv" first total_ns desc)
	dump "$w" "$h" '2' "$@"
	check_dump "$what: 2 shows the kernels by name" has 'kernels by name'
	check_dump "$what: the longest total is selected first" \
		starts_with "$(last_line)" "$(prefix "$first" "$n")"
	check_dump "$what: ... and is the first row" \
		sh -c "sed -n 3p '$TEST_TMP/screen.txt' | grep -F -q -- '$(prefix "$first" 12)'"
	check_dump "$what: Total is the sort column" has 'sort: Total ▼'
	rows=$(exp "$csv" rows)
	check_dump "$what: every row counted" has " $rows/$rows rows"

	by_n=$(exp "$csv" first instances desc)
	dump "$w" "$h" '2 > g' "$@"
	check_dump "$what: > sorts by Instances" has 'sort: Instances ▼'
	check_dump "$what: the most instances come first" \
		starts_with "$(last_line)" "$(prefix "$by_n" "$n")"
	few=$(exp "$csv" first instances asc)
	dump "$w" "$h" '2 > I g' "$@"
	check_dump "$what: I inverts" has 'sort: Instances ▲'
	check_dump "$what: the fewest instances come first" \
		starts_with "$(last_line)" "$(prefix "$few" "$n")"
	dump "$w" "$h" '2 > > < I I g' "$@"
	check_dump "$what: < goes back, I I restores" starts_with "$(last_line)" "$(prefix "$by_n" "$n")"

	matches=$(exp "$csv" count gemm)
	dump "$w" "$h" '2 \ g e m m Enter' "$@"
	check_dump "$what: the filter narrows the rows ($matches)" has " $matches/$rows rows"
	check_dump "$what: the filter shows in the status line" has 'FILTER: gemm'
	dump "$w" "$h" '2 \ g e m m ( Enter' "$@"
	check_dump "$what: a bad pattern keeps the last good filter" has " $matches/$rows rows"
	check_dump "$what: ... and says what is wrong" has 'missing closing parenthesis'
	dump "$w" "$h" '2 \ g e m m Esc' "$@"
	check_dump "$what: Esc in the filter prompt removes it" has " $rows/$rows rows"

	if [ "$w" -ge 70 ]; then # narrow status lines leave the position out
		pos=$(exp "$csv" positions elementwise)
		p1=${pos%% *} rest=${pos#* } p2=${rest%% *}
		dump "$w" "$h" '2 / e l e m e n t w i s e Enter' "$@"
		check_dump "$what: / selects the first match (row $p1)" position_is "$p1"
		dump "$w" "$h" '2 / e l e m e n t w i s e Enter n' "$@"
		check_dump "$what: n selects the next one (row $p2)" position_is "$p2"
		check_dump "$what: ... and counts the matches" has "/elementwise  2/$(echo "$pos" | wc -w)"
		dump "$w" "$h" '2 / e l e m e n t w i s e Enter n N' "$@"
		check_dump "$what: N goes back" position_is "$p1"
	fi

	for g in shape op stream device rank; do
		keys="$keys B"
		case $g in shape) keys='2 B' ;; esac
		n_g=$("$TREX" -q kernels --by "$g" --format csv "$@" | "$PYTHON3" -c 'import csv, sys; print(len(list(csv.reader(sys.stdin))) - 1)')
		dump "$w" "$h" "$keys" "$@"
		check_dump "$what: B regroups by $g" has "kernels by $g"
		check_dump "$what: by $g has $n_g rows" has " $n_g/$n_g $([ "$n_g" -eq 1 ] && echo row || echo rows)"
	done
	dump "$w" "$h" '2 B B B B B B' "$@"
	check_dump "$what: B six times is back to names" has 'kernels by name'

	# the first row (by total) whose name has brackets to fold, selected with n
	long=$(exp "$csv" bracketed)
	short=$(exp "$csv" fold "$long")
	dump "$w" "$h" "2 S / $(exp "$csv" keys "$long") Enter" "$@"
	check_dump "$what: S shortens names" starts_with "$(last_line)" "$(prefix "$short" "$n")"
	check_dump "$what: ... in the table too" has "$(prefix "$short" 18)"
	dump "$w" "$h" "2 S S / $(exp "$csv" keys "$long") Enter" "$@"
	check_dump "$what: S again shows them in full" starts_with "$(last_line)" "$(prefix "$long" "$n")"

	count=$(exp "$csv" top instances)
	max=$(exp "$csv" top max_ns)
	dump "$w" "$h" '2 Enter' "$@"
	check_dump "$what: Enter lists the $count instances" has "$count instances of"
	check_dump "$what: the longest instance first ($(exp "$csv" duration "$max"))" \
		sh -c "sed -n 3p '$TEST_TMP/screen.txt' | tr -s ' ' | grep -F -q -- '$(exp "$csv" duration "$max")'"
	dump "$w" "$h" '2 Enter Enter' "$@"
	check_dump "$what: Enter on it selects it in the timeline" \
		starts_with "$(last_line | sed 's/^ //')" "$(prefix "$first" 20)"
	if [ $((${#first} + 60)) -le "$w" ]; then
		check_dump "$what: ... with its duration" has "dur $(exp "$csv" duration "$max")"
	fi
}

export_checks() {
	what="export $*"
	dir=$TEST_TMP/export
	rm -rf "$dir"
	mkdir -p "$dir"
	"$TREX" -q kernels --format csv "$@" >"$TEST_TMP/cli.csv"
	rows=$(exp "$TEST_TMP/cli.csv" rows)
	(cd "$dir" && dump 80 24 '2 x' "$@")
	check_dump "$what: x prompts with a default name" has 'export to: kernels.csv'
	(cd "$dir" && dump 80 24 '2 x Esc' "$@")
	check_dump "$what: Esc cancels, and says so" has 'export cancelled'
	check "$what: ... nothing written" test ! -e "$dir/kernels.csv"
	(cd "$dir" && dump 80 24 '2 x Enter' "$@")
	check_dump "$what: the status line says what was written" has "wrote $rows rows to kernels.csv"
	check "$what: the CSV equals trex kernels --format csv" cmp "$TEST_TMP/cli.csv" "$dir/kernels.csv"
	echo sentinel >"$dir/kernels.csv"
	(cd "$dir" && dump 80 24 '2 x Enter' "$@")
	check_dump "$what: an existing file asks first" has 'kernels.csv exists; overwrite? (y/n)'
	(cd "$dir" && dump 80 24 '2 x Enter n' "$@")
	check_dump "$what: n keeps it" has 'not overwritten: kernels.csv'
	check "$what: ... untouched" grep -q -x sentinel "$dir/kernels.csv"
	(cd "$dir" && dump 80 24 '2 x Enter y' "$@")
	check "$what: y replaces it" cmp "$TEST_TMP/cli.csv" "$dir/kernels.csv"
	(cd "$dir" && dump 80 24 '2 \ g e m m Enter x <C-u> g . j s o n Enter' "$@")
	check "$what: JSON of the filtered rows" "$PYTHON3" -c '
import csv, json, re, sys
doc = json.load(open(sys.argv[1]))
want = [r["name"] for r in csv.DictReader(open(sys.argv[2])) if re.search("gemm", r["name"], re.I)]
got = [r["name"] for r in doc["rows"]]
assert doc["table"] == "kernels" and got == want, (got, want)
' "$dir/g.json" "$TEST_TMP/cli.csv"
	(cd "$dir" && dump 80 24 '6 x <C-u> g t . c s v Enter' "$@")
	"$TREX" -q gpu-time --format csv "$@" >"$TEST_TMP/gpu.csv"
	check "$what: the GPU-time export is the per-device CSV" cmp "$TEST_TMP/gpu.csv" "$dir/gt.csv"
}

# The first data row of a CLI text table, fields split at 2+ blanks.
cli_fields() {
	sed -n 3p | sed 's/^ *//; s/   */|/g'
}

triage_checks() {
	w=$1 h=$2
	shift 2
	what="$w""x$h $*"
	"$TREX" -q categories "$@" >"$TEST_TMP/cat.txt"
	dump "$w" "$h" '4' "$@"
	check_dump "$what: 4 shows the categories" has 'trex: categories'
	IFS='|' read -r time share calls rest <<EOF
$(cli_fields <"$TEST_TMP/cat.txt")
EOF
	category=${rest##*|}
	want="^ *$time +$share +$calls .* $category\$"
	[ "$w" -ge 60 ] || want="^ *$time +$share .* $category\$" # no room for Calls
	check_dump "$what: the first category row equals the CLI's ($category $time)" \
		sh -c "sed -n 3p '$TEST_TMP/screen.txt' | grep -E -q -- '$want'"
	check_dump "$what: uncategorized is always a row" sh -c \
		"'$TREX' -q categories $* | grep -q uncategorized"

	"$TREX" -q gpu-time "$@" >"$TEST_TMP/gpu.txt"
	dump "$w" "$h" '6' "$@"
	check_dump "$what: 6 shows the GPU time" has 'GPU time of'
	IFS='|' read -r rank device span busy rest <<EOF
$(cli_fields <"$TEST_TMP/gpu.txt")
EOF
	# one row per device, as the CLI prints it: rank and device first
	dev=$(printf '%s' "$device" | sed 's/[][\.*^$()+?{}|]/\\&/g')
	check_dump "$what: the first row is the CLI's device ($rank $device)" \
		sh -c "sed -n 3p '$TEST_TMP/screen.txt' | grep -E -q -- '^ +$rank +$dev( |\$)'"
	if [ "$w" -ge 80 ]; then
		check_dump "$what: ... with its Span and Busy ($span, $busy)" \
			sh -c "sed -n 3p '$TEST_TMP/screen.txt' | grep -E -q -- '^ +$rank +$dev +$span +$busy '"
	fi
}

mouse_checks() {
	what="mouse $*"
	csv=$TEST_TMP/kernels.csv
	"$TREX" -q kernels --format csv "$@" >"$csv"
	dump 160 48 '2' "$@"
	x=$(line 2 | awk '{ print index($0, "Instances") }')
	by_n=$(exp "$csv" first instances desc)
	dump 160 48 "2 click:1,$x g" "$@"
	check_dump "$what: a click on Instances sorts by it" has 'sort: Instances ▼'
	check_dump "$what: ... most instances first" starts_with "$(last_line)" "$(prefix "$by_n" 150)"
	dump 160 48 "2 click:1,$x click:1,$x" "$@"
	check_dump "$what: a second click inverts" has 'sort: Instances ▲'
	dump 160 48 '2 click:3,10' "$@"
	check_dump "$what: a click on a row selects it" position_is 2
	dump 80 12 '2 wheel-down:5,10 wheel-down:5,10' "$@"
	check_dump "$what: the wheel scrolls 3 rows at a time" position_is 7
}

# Several ranks: one total column per rank, sortable like the others.
rank_checks() {
	what="ranks"
	csv=$TEST_TMP/ranks.csv
	"$TREX" -q kernels --per-rank --format csv "$@" >"$csv"
	dump 160 48 '2 < < < g' "$@"
	check_dump "$what: a total column per rank" has 'sort: rank 1 ▼'
	check_dump "$what: ... shown in the header" sh -c "sed -n 2p '$TEST_TMP/screen.txt' | grep -q 'rank 1'"
	check_dump "$what: the biggest rank-1 total first" \
		starts_with "$(last_line)" "$(prefix "$(exp "$csv" first rank1_total_ns desc)" 150)"
	dump 160 48 '2 B B B B' "$@"
	check_dump "$what: by device: a row per device of each rank" has "$("$TREX" -q kernels --by device --format csv "$@" | "$PYTHON3" -c 'import csv, sys; n = len(list(csv.reader(sys.stdin))) - 1; print("%d/%d rows" % (n, n))')"
}

# F6 sorts by a column picked in the list of the columns; Space marks rows.
sort_mark_checks() {
	what="sort list and marks $*"
	csv=$TEST_TMP/kernels.csv
	"$TREX" -q kernels --format csv "$@" >"$csv"
	# from Total (the second column) seven down: P95
	dump 160 48 '2 F6 j j j j j j j Enter g' "$@"
	check_dump "$what: F6 and seven j sort by P95" has 'sort: P95 ▼'
	check_dump "$what: ... the biggest P95 first" \
		starts_with "$(last_line)" "$(prefix "$(exp "$csv" first p95_ns desc)" 150)"
	dump 160 48 '2 F6 j Esc' "$@"
	check_dump "$what: Esc in the list keeps the sort" has 'sort: Total ▼'
	check_dump "$what: ... and says so" has 'sort unchanged'
	dump 160 48 '2 Space Space' "$@"
	check_dump "$what: Space marks and moves down" position_is 3
	check_dump "$what: ... the status line counts marks" has '2 marked'
	check_dump "$what: ... marked rows show a star" sh -c "sed -n 3,4p '$TEST_TMP/screen.txt' | grep -c '^\\*' | grep -qx 2"
	dump 160 48 '2 Space k Space' "$@"
	check_dump "$what: Space again unmarks" sh -c "! grep -q 'marked' '$TEST_TMP/screen.txt'"
}

# category_checks ARGS...: Enter on the first (largest) category lists its
# work, whose totals add up to the category's total in trex categories.
category_checks() {
	what="categories drill-in $*"
	dir=$TEST_TMP/cat
	rm -rf "$dir"
	mkdir -p "$dir"
	"$TREX" -q categories --format csv "$@" >"$TEST_TMP/cats.csv"
	cat=$("$PYTHON3" -c 'import csv, sys; print(next(csv.DictReader(open(sys.argv[1])))["category"])' "$TEST_TMP/cats.csv")
	(cd "$dir" && dump 100 24 '4 g Enter' "$@")
	check_dump "$what: Enter on $cat lists its work" has "$cat: work by name"
	(cd "$dir" && dump 100 24 '4 g Enter x C-u d . c s v Enter' "$@")
	check "$what: the work of $cat adds up to its total" "$PYTHON3" -c '
import csv, sys
want = [r for r in csv.DictReader(open(sys.argv[1])) if r["category"] == sys.argv[3]][0]
rows = list(csv.DictReader(open(sys.argv[2])))
got = sum(int(float(r["total_ns"])) for r in rows)
calls = sum(int(r["instances"]) for r in rows)
sys.exit(0 if got == int(float(want["total_ns"])) and calls == int(want["calls"]) else 1)
' "$TEST_TMP/cats.csv" "$dir/d.csv" "$cat"
	(cd "$dir" && dump 100 24 '4 g Enter Esc' "$@")
	check_dump "$what: Esc goes back to the categories" has 'categories  '
}

kernel_checks 80 24 --demo
kernel_checks 160 48 --demo
kernel_checks 40 12 --demo
export_checks --demo
triage_checks 80 24 --demo
triage_checks 40 12 --demo
category_checks --demo
mouse_checks --demo
sort_mark_checks --demo
if [ -f "$CORPUS_TRACE" ]; then
	kernel_checks 80 24 "$CORPUS_TRACE"
	kernel_checks 160 48 "$CORPUS_TRACE"
	triage_checks 80 24 "$CORPUS_TRACE"
	export_checks "$CORPUS_TRACE"
	category_checks "$CORPUS_TRACE"
	category_checks "$TREX_CORPUS/kineto/hta_nccl_data/nccl_data.json.gz"
	rank_checks "$TREX_CORPUS/kineto/hta_sampled_2rank/sampled_rank-0.json.gz" \
		"$TREX_CORPUS/kineto/hta_sampled_2rank/sampled_rank-1.json.gz"
else
	skip "corpus kineto trace" "not found: $CORPUS_TRACE"
fi

# Live, in tmux: the filter narrows while typing.
screen_start 80 24 -- --demo
screen_wait 'trex:' >/dev/null
screen_keys 2
check_screen "tmux: 2 shows the kernels" screen_wait 'kernels by name'
screen_keys '\' g e
screen_settle
check_screen "tmux: the filter applies while typing" screen_wait "FILTER: ge"
screen_keys Escape
screen_keys Q
check_screen "tmux: Q quits" screen_wait 'EXIT=0'

done_testing
