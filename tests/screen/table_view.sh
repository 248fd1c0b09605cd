#!/bin/sh
# Screen tests of the generic table view (issue 9 item 12) on the demo and
# corpus traces, at 80x24 and 160x48, with --script/--dump-screen and live
# in tmux: Esc clears the search, then the marks, then the filter, then goes
# back; columns off screen are counted by the "◂ N more" / "N more ▸"
# markers and P95/P99 show at 160 columns; F6 lists the columns to sort by,
# F2 those shown; Space-marked rows are what x exports; the GPU-time view
# has one row per device, sortable like every table. Expected values come
# from the CLI (its text headers and CSV rows, sorted in Python) and from
# the trace JSON, never from the UI.
. "${TREX_SRCDIR:-.}/tests/e2e/lib.sh"
require_built
. "${TREX_SRCDIR:-.}/tests/screen/lib.sh"

BERT=$TREX_CORPUS/kineto/tracelens_h100_bert_small/gaunernst_bert-small-uncased__1016001.json.gz
DLRM=$TREX_CORPUS/kineto/param_dlrm_8rank

cat >"$TEST_TMP/t.py" <<'EOF'
# t.py COMMAND ARGS: expectations from the CLI's output and the trace JSON.
import csv, gzip, json, re, sys

def titles(path):
    """The column titles of a CLI text table (its first line, 2+ blanks apart)."""
    return re.split(r"\s{2,}", open(path).readline().strip())

def rows(path):
    return list(csv.DictReader(open(path, newline="")))

def ordered(path, key, desc, name):
    """CSV rows sorted as the view sorts: by key, ties by name (bytes), then row."""
    rs = rows(path)
    idx = sorted(range(len(rs)), key=lambda i: (rs[i][name].encode(), i))
    return [rs[i] for i in sorted(idx, key=lambda i: float(rs[i][key]), reverse=desc)]

MARKS = r"[\u25bc\u25b2]$"  # the sort mark (UTF-8 only: ASCII's v would eat StdDev's)

def markers(screen, cli, pinned, name_last):
    """The header row (line 2) shows a run of the CLI's columns; its markers
    count exactly the scrolling columns left out on each side."""
    head = open(screen).read().split("\n")[1].strip()
    left = re.search(r"(?:^|  )[\u25c2<] (\d+) more(?=  )", head)  # after the pinned ones
    right = re.search(r"  (\d+) more [\u25b8>]$", head)
    nl = int(left.group(1)) if left else 0
    nr = int(right.group(1)) if right else 0
    if right:
        head = head[:right.start()]
    if left:
        head = head[:left.start()] + "  " + head[left.end():]
    vis = [re.sub(MARKS, "", t) for t in re.split(r"\s{2,}", head.strip()) if t]
    want = titles(cli)
    scroll = want[pinned:len(want) - (1 if name_last else 0)]
    vscroll = vis[pinned:len(vis) - (1 if name_last else 0)]
    print("shown %s, %d on the left, %d on the right; columns %s" % (vis, nl, nr, want))
    assert vis[:pinned] == want[:pinned]
    assert not name_last or vis[-1] == want[-1]
    assert vscroll == scroll[nl:nl + len(vscroll)], "not a run of the columns"
    assert nl + len(vscroll) + nr == len(scroll), "the counts do not add up"

def first_work(path):
    """Name of the earliest GPU work (kernel, copy, set) in a Kineto trace."""
    doc = json.load(gzip.open(path) if path.endswith(".gz") else open(path))
    ev = doc["traceEvents"] if isinstance(doc, dict) else doc
    work = [e for e in ev if e.get("ph") == "X" and
            str(e.get("cat", "")).lower() in ("kernel", "gpu_memcpy", "gpu_memset")]
    return min(work, key=lambda e: float(e["ts"]))["name"]

cmd, a = sys.argv[1], sys.argv[2:]
if cmd == "markers":  # SCREEN CLI_TEXT PINNED NAME_LAST(0/1)
    markers(a[0], a[1], int(a[2]), a[3] == "1")
elif cmd == "title":  # CLI_TEXT N: the title of column N (0-based)
    print(titles(a[0])[int(a[1])])
elif cmd == "index":  # CLI_TEXT TITLE: the 0-based index of a column
    print(titles(a[0]).index(a[1]))
elif cmd == "count":  # CLI_TEXT: how many columns
    print(len(titles(a[0])))
elif cmd == "first":  # CSV KEY asc|desc NAMECOL: the name of the first row
    print(ordered(a[0], a[1], a[2] == "desc", a[3])[0][a[3]])
elif cmd == "ranks":  # CSV KEY asc|desc: the ranks in that order, blank-separated
    print(" ".join(r["rank"] for r in ordered(a[0], a[1], a[2] == "desc", "device")))
elif cmd == "rows":  # CSV KEY asc|desc NAMECOL I,J,...: those rows (0-based, in that order)
    rs = ordered(a[0], a[1], a[2] == "desc", a[3])
    print("\n".join(rs[int(i)][a[3]] for i in a[4].split(",")))
elif cmd == "names":  # CSV: the names of its rows
    print("\n".join(r["name"] for r in rows(a[0])))
elif cmd == "first_work":  # TRACE
    print(first_work(a[0]))
EOF

t() {
	"$PYTHON3" "$TEST_TMP/t.py" "$@"
}

hasnt() {
	! grep -F -q -- "$1" "$TEST_TMP/screen.txt"
}

# starts_with TEXT PREFIX (the first 60 characters of the prefix at most)
starts_with() {
	p=$("$PYTHON3" -c 'import sys; print(sys.argv[1][:60])' "$2")
	case $1 in "$p"*) return 0 ;; esac
	return 1
}

# The first status row (rows, sort, filter, search, marks).
status_row() {
	grep ' rows  sort: ' "$TEST_TMP/screen.txt"
}

# status_is +TEXT... -TEXT...: the status row shows each +TEXT and no -TEXT.
status_is() {
	for s in "$@"; do
		case $s in
		+*) status_row | grep -F -q -- "${s#+}" || return 1 ;;
		-*) ! status_row | grep -F -q -- "${s#-}" || return 1 ;;
		esac
	done
}

markers_are() { # CLI_TEXT PINNED NAME_LAST
	t markers "$TEST_TMP/screen.txt" "$@" >"$TEST_TMP/markers.out" 2>&1 ||
		{ sed 's/^/# /' "$TEST_TMP/markers.out"; return 1; }
}

# ---- hidden columns: markers, counts, P95/P99 ------------------------------------

# more_checks ARGS...: the kernels table by name at 80 and 160 columns.
more_checks() {
	what="columns $*"
	cli=$TEST_TMP/kernels.txt
	"$TREX" -q kernels "$@" >"$cli"
	ncols=$(t count "$cli")
	dump 160 48 '2' "$@"
	check_dump "$what: 160x48 shows P95 and P99" sh -c "sed -n 2p '$TEST_TMP/screen.txt' | grep -q 'P95.*P99'"
	check_dump "$what: 160x48 shows all $ncols columns, no marker" markers_are "$cli" 0 1
	check_dump "$what: ... and no scroll hint" hasnt 'more column'
	dump 80 24 '2' "$@"
	check_dump "$what: 80x24 hides P95" sh -c "! sed -n 2p '$TEST_TMP/screen.txt' | grep -q P95"
	check_dump "$what: 80x24 counts the hidden columns" markers_are "$cli" 0 1
	check_dump "$what: ... with a marker on the right" sh -c "sed -n 2p '$TEST_TMP/screen.txt' | grep -q '[0-9] more ▸\$'"
	n=$(line 2 | sed 's/.* \([0-9]*\) more ▸$/\1/')
	check_dump "$what: ... and says which keys scroll to them" has "h/l: $n more columns"
	dump 80 24 '2 l l' "$@"
	check_dump "$what: l l: two on the left" sh -c "sed -n 2p '$TEST_TMP/screen.txt' | grep -q '^ ◂ 2 more '"
	check_dump "$what: ... the counts still add up" markers_are "$cli" 0 1
	dump 80 24 '2 l l l l l l l l l l l l' "$@"
	check_dump "$what: l to the end shows P95 and P99" sh -c "sed -n 2p '$TEST_TMP/screen.txt' | grep -q 'P95.*P99'"
	check_dump "$what: ... nothing more on the right" markers_are "$cli" 0 1
	check_dump "$what: ... and l says so" has 'no more columns on the right'
	dump 80 24 '2 l l l l l l l l l l l l h h h h h h h h h h h h' "$@"
	check_dump "$what: h back to the start" sh -c "sed -n 2p '$TEST_TMP/screen.txt' | grep -q '^  Time %'"
	dump 80 24 '2 l l' --ascii "$@"
	check_dump "$what: ASCII markers" sh -c "sed -n 2p '$TEST_TMP/screen.txt' | grep -q '^ < 2 more .* [0-9] more >\$'"
	dump 160 48 '2 B' "$@"
	"$TREX" -q kernels --by shape "$@" >"$TEST_TMP/shape.txt"
	check_dump "$what: by shape at 160x48: the counts add up" markers_are "$TEST_TMP/shape.txt" 0 1
}

# ---- Esc: search, marks, filter, back ------------------------------------------

esc_checks() {
	what="Esc $*"
	"$TREX" -q kernels --format csv "$@" >"$TEST_TMP/k.csv"
	n=$("$PYTHON3" -c 'import csv, sys; print(len(list(csv.DictReader(open(sys.argv[1])))))' "$TEST_TMP/k.csv")
	keys='2 \ g e m m Enter / s m Enter Space'
	dump 80 24 "$keys" "$@"
	check_dump "$what: filter, search and a mark show in the status line" \
		status_is '+FILTER: gemm' '+/sm' '+1 marked'
	dump 80 24 "$keys Esc" "$@"
	check_dump "$what: the first Esc clears the search" has 'search cleared'
	check_dump "$what: ... only the search" status_is '+FILTER: gemm' '+1 marked' '-/sm'
	dump 80 24 "$keys Esc Esc" "$@"
	check_dump "$what: the second the marks" has '1 mark cleared'
	check_dump "$what: ... the filter stays" status_is '+FILTER: gemm' '-marked'
	dump 80 24 "$keys Esc Esc Esc" "$@"
	check_dump "$what: the third the filter" has 'filter cleared'
	check_dump "$what: ... all $n rows back" has " $n/$n rows"
	check_dump "$what: ... still the kernels" has 'trex: kernels by name'
	dump 80 24 "$keys Esc Esc Esc Esc" "$@"
	check_dump "$what: the fourth goes back to the timeline" sh -c "grep -q '/col' '$TEST_TMP/screen.txt' && ! grep -q 'kernels by name' '$TEST_TMP/screen.txt'"
	dump 80 24 '4 g Enter / a Enter Esc' "$@"
	check_dump "$what: in a drilled-in table too: the search first" \
		sh -c "grep -q 'search cleared' '$TEST_TMP/screen.txt' && grep -q 'work by name' '$TEST_TMP/screen.txt'"
	dump 80 24 '4 g Enter / a Enter Esc Esc' "$@"
	check_dump "$what: ... then back to the categories" has 'trex: categories'
}

help_checks() {
	dump 80 60 '2 ?' --demo
	check_dump "? in a table describes Esc" has 'Esc, Backspace         Go back (tables: clear search, marks, filter first)'
	check_dump "? lists F2" has 'F2                     Choose the columns shown'
	check_dump "? says x exports the marked rows" has 'Export the table or its marked rows'
}

# ---- F6: the list of the columns ------------------------------------------------

sort_list_checks() {
	w=$1 h=$2
	shift 2
	what="F6 ${w}x$h $*"
	cli=$TEST_TMP/kernels.txt
	csv=$TEST_TMP/k.csv
	"$TREX" -q kernels "$@" >"$cli"
	"$TREX" -q kernels --format csv "$@" >"$csv"
	dump "$w" "$h" '2 F6' "$@"
	check_dump "$what: F6 opens a list titled sort by" has '─ sort by ─'
	i=0
	while [ "$i" -lt "$(t count "$cli")" ]; do
		title=$(t title "$cli" "$i")
		[ "$title" = Total ] && title='Total ▼'
		check_dump "$what: ... it lists $title" grep -q -- "│ $title  *│" "$TEST_TMP/screen.txt"
		i=$((i + 1))
	done
	# the cursor starts on Total; two down is Avg
	avg=$(t title "$cli" $(($(t index "$cli" Total) + 2)))
	dump "$w" "$h" '2 F6 j j Enter g' "$@"
	check_dump "$what: j j Enter sorts by $avg" has "sort: $avg ▼"
	check_dump "$what: ... the biggest $avg first" \
		starts_with "$(last_line)" "$(t first "$csv" avg_ns desc name)"
	check_dump "$what: ... and the list is gone" hasnt '─ sort by ─'
	dump "$w" "$h" '2 F6 G Enter g' "$@"
	check_dump "$what: G Enter sorts by the name, ascending" has 'sort: Name ▲'
	check_dump "$what: ... the first name first" \
		starts_with "$(last_line)" "$(t names "$csv" | LC_ALL=C sort | head -n 1)"
	dump "$w" "$h" '2 F6 j j Esc' "$@"
	check_dump "$what: Esc cancels" sh -c "grep -q 'sort unchanged' '$TEST_TMP/screen.txt' && grep -q 'sort: Total ▼' '$TEST_TMP/screen.txt'"
	dump "$w" "$h" '2 F6 F6' "$@"
	check_dump "$what: F6 again closes it" sh -c "! grep -q '─ sort by ─' '$TEST_TMP/screen.txt'"
	# the mouse: a click on Instances in the list sorts by it
	dump "$w" "$h" '2 F6' "$@"
	y=$(grep -n '│ Instances  *│' "$TEST_TMP/screen.txt" | cut -d: -f1)
	x=$(grep '│ Instances  *│' "$TEST_TMP/screen.txt" | "$PYTHON3" -c 'import sys; print(sys.stdin.readline().index("Instances"))')
	dump "$w" "$h" "2 F6 click:$((y - 1)),$x g" "$@"
	check_dump "$what: a click on Instances sorts by it" has 'sort: Instances ▼'
	check_dump "$what: ... the most instances first" \
		starts_with "$(last_line)" "$(t first "$csv" instances desc name)"
	dump "$w" "$h" "2 F6 click:$((h - 4)),0" "$@"
	check_dump "$what: a click outside closes it" sh -c "grep -q 'sort unchanged' '$TEST_TMP/screen.txt' && ! grep -q '─ sort by ─' '$TEST_TMP/screen.txt'"
}

# ---- F2: the columns shown ---------------------------------------------------------

columns_checks() {
	what="F2 $*"
	cli=$TEST_TMP/kernels.txt
	"$TREX" -q kernels "$@" >"$cli"
	"$TREX" -q kernels --format csv "$@" >"$TEST_TMP/cli.csv"
	avg=$(t title "$cli" 3)
	dump 160 48 '2 F2' "$@"
	check_dump "$what: F2 lists the columns shown" sh -c "grep -q '│ \[x\] Time %  *│' '$TEST_TMP/screen.txt' && grep -q '│ \[x\] Name (always)  *│' '$TEST_TMP/screen.txt'"
	dump 160 48 '2 F2 j j j Space Esc' "$@"
	check_dump "$what: Space on $avg hides it" sh -c "! sed -n 2p '$TEST_TMP/screen.txt' | grep -q ' $avg '"
	check_dump "$what: ... and Esc says what is hidden" has '1 column hidden (F2 shows them)'
	check_dump "$what: ... the others still show" sh -c "sed -n 2p '$TEST_TMP/screen.txt' | grep -q 'Instances .* Med .*P99  Name'"
	dump 160 48 '2 F2 j j j Space Esc F2' "$@"
	check_dump "$what: ... unticked in the list" grep -q "│ \[ \] $avg  *│" "$TEST_TMP/screen.txt"
	dump 160 48 '2 F2 j j j Enter Enter Esc' "$@"
	check_dump "$what: Enter twice shows it again" has 'every column shown'
	dump 160 48 '2 F2 G Space' "$@"
	check_dump "$what: the name always shows" has 'Name always shows'
	dump 160 48 '2 F2 j j j Space Esc B' "$@"
	check_dump "$what: regrouping keeps it hidden" sh -c "grep -q 'kernels by shape' '$TEST_TMP/screen.txt' && ! sed -n 2p '$TEST_TMP/screen.txt' | grep -q ' $avg '"
	dir=$TEST_TMP/f2
	rm -rf "$dir"
	mkdir -p "$dir"
	(cd "$dir" && dump 160 48 '2 F2 j j j Space Esc x Enter' "$@")
	check "$what: export still writes every column" cmp "$TEST_TMP/cli.csv" "$dir/kernels.csv"
}

# ---- marks ------------------------------------------------------------------------------

mark_checks() {
	what="marks $*"
	csv=$TEST_TMP/k.csv
	"$TREX" -q kernels --format csv "$@" >"$csv"
	dir=$TEST_TMP/marks
	rm -rf "$dir"
	mkdir -p "$dir"
	(cd "$dir" && dump 80 24 '2 Space j Space x' "$@")
	check_dump "$what: x with two marks says it exports them" has 'export 2 marked rows to: kernels.csv'
	(cd "$dir" && dump 80 24 '2 Space j Space x Enter' "$@")
	check_dump "$what: ... and what it wrote" has 'wrote 2 rows to kernels.csv (the marked rows)'
	"$PYTHON3" - "$csv" "$dir/kernels.csv" 0,2 total_ns >"$TEST_TMP/marks.diff" <<'EOF' || true
import csv, sys
cli, got, picks, key = sys.argv[1:5]
rs = list(csv.DictReader(open(cli, newline="")))
idx = sorted(range(len(rs)), key=lambda i: (rs[i]["name"].encode(), i))
idx = sorted(idx, key=lambda i: float(rs[i][key]), reverse=True)
lines = open(cli, newline="").read().splitlines()
want = [lines[0]] + [lines[1 + idx[int(p)]] for p in picks.split(",")]
have = open(got, newline="").read().splitlines()
print("want %s\nhave %s" % (want, have) if want != have else "", end="\n" if want != have else "")
EOF
	check "$what: the file holds rows 1 and 3 as the CLI prints them" test ! -s "$TEST_TMP/marks.diff"
	[ -s "$TEST_TMP/marks.diff" ] && diag_file "$TEST_TMP/marks.diff"
	rm -f "$dir/kernels.csv"
	(cd "$dir" && dump 80 24 '2 > g Space Space Space x Enter' "$@")
	"$PYTHON3" - "$csv" "$dir/kernels.csv" >"$TEST_TMP/marks.diff" <<'EOF' || true
import csv, sys
rs = list(csv.DictReader(open(sys.argv[1], newline="")))
idx = sorted(range(len(rs)), key=lambda i: (rs[i]["name"].encode(), i))
idx = sorted(idx, key=lambda i: float(rs[i]["instances"]), reverse=True)[:3]
got = [r["name"] for r in csv.DictReader(open(sys.argv[2], newline=""))]
want = [rs[i]["name"] for i in idx]
print("want %s\nhave %s" % (want, got) if want != got else "", end="\n" if want != got else "")
EOF
	check "$what: sorted by Instances, the marked rows in that order" test ! -s "$TEST_TMP/marks.diff"
	[ -s "$TEST_TMP/marks.diff" ] && diag_file "$TEST_TMP/marks.diff"
	(cd "$dir" && dump 80 24 '2 Space' --ascii "$@")
	check_dump "$what: a marked row shows a star in ASCII too" sh -c "sed -n 3p '$TEST_TMP/screen.txt' | grep -q '^\*'"
	check_dump "$what: ... not the others" sh -c "! sed -n 4p '$TEST_TMP/screen.txt' | grep -q '^\*'"
	rm -f "$dir/kernels.csv"
	(cd "$dir" && dump 80 24 '2 Space Esc x Enter' "$@")
	check_dump "$what: Esc clears the marks, x exports every row again" \
		has "wrote $(wc -l <"$csv" | awk '{print $1 - 1}') rows to kernels.csv"
	check "$what: ... the CLI's CSV" cmp "$csv" "$dir/kernels.csv"
}

# ---- GPU time: one row per device ----------------------------------------------

gpu_checks() {
	what="GPU time $*"
	cli=$TEST_TMP/gpu.txt
	csv=$TEST_TMP/gpu.csv
	"$TREX" -q gpu-time "$@" >"$cli"
	"$TREX" -q gpu-time --format csv "$@" >"$csv"
	n=$(($(wc -l <"$csv") - 1))
	dump 80 24 '6' "$@"
	rows=rows
	[ "$n" -eq 1 ] && rows=row
	check_dump "$what: one row per device ($n)" has " $n/$n $rows"
	check_dump "$what: rank and device first, the others counted" markers_are "$cli" 2 0
	check_dump "$what: ... with the keys that scroll" has 'h/l: '
	want=$(t ranks "$csv" rank asc)
	got=$(sed -n "3,$((2 + n))p" "$TEST_TMP/screen.txt" | awk '{ printf "%s%s", sep, $1; sep = " " }')
	check_dump "$what: in the CLI's order ($want)" test "$got" = "$want"
	dump 160 48 '6 l l l' "$@"
	check_dump "$what: scrolled at 160x48, rank and device stay" markers_are "$cli" 2 0
	for col in busy_pct:Busy_% idle_ns:Idle overlap_pct:Overlap_%; do
		key=${col%%:*}
		title=$(printf '%s' "${col#*:}" | tr _ ' ')
		i=$(t index "$cli" "$title")
		keys='6 F6'
		while [ "$i" -gt 0 ]; do
			keys="$keys j"
			i=$((i - 1))
		done
		dump 160 48 "$keys Enter" "$@"
		check_dump "$what: F6 sorts by $title" has "sort: $title ▼"
		want=$(t ranks "$csv" "$key" desc)
		got=$(sed -n "3,$((2 + n))p" "$TEST_TMP/screen.txt" | awk '{ printf "%s%s", sep, $1; sep = " " }')
		check_dump "$what: ... the ranks by $title, largest first ($want)" test "$got" = "$want"
		dump 160 48 "$keys Enter I" "$@"
		want=$(t ranks "$csv" "$key" asc)
		got=$(sed -n "3,$((2 + n))p" "$TEST_TMP/screen.txt" | awk '{ printf "%s%s", sep, $1; sep = " " }')
		check_dump "$what: ... I: smallest first ($want)" test "$got" = "$want"
	done
}

# gpu_enter_checks ROW TRACE_OF_THAT_ROW ARGS...: Enter on a device shows its
# earliest GPU work (from the JSON) selected in the timeline.
gpu_enter_checks() {
	row=$1 trace=$2
	shift 2
	keys=6
	i=1
	while [ "$i" -lt "$row" ]; do
		keys="$keys j"
		i=$((i + 1))
	done
	name=$(t first_work "$trace")
	dump 160 48 "$keys Enter" "$@"
	check_dump "GPU time: Enter on device $row shows its first work ($(printf '%.40s' "$name"))" \
		starts_with "$(last_line | sed 's/^ //')" "$name"
}

more_checks --demo
esc_checks --demo
help_checks
sort_list_checks 80 24 --demo
sort_list_checks 160 48 --demo
columns_checks --demo
mark_checks --demo
gpu_checks --demo
if [ -f "$BERT" ] && [ -d "$DLRM" ]; then
	more_checks "$BERT"
	esc_checks "$BERT"
	sort_list_checks 80 24 "$BERT"
	mark_checks "$BERT"
	gpu_checks "$DLRM"/worker*
	gpu_enter_checks 1 "$BERT" "$BERT"
	gpu_enter_checks 3 "$(ls "$DLRM"/worker2_*)" "$DLRM"/worker*
else
	skip "corpus traces" "not found: $BERT, $DLRM"
fi

# ---- live, in tmux ------------------------------------------------------------------

# A marked row keeps an attribute of its own without colours (underline).
screen_start 80 24 NO_COLOR=1 -- --demo
screen_wait 'trex:' >/dev/null
screen_keys 2
screen_wait 'kernels by name' >/dev/null
screen_keys Space
check_screen "tmux: Space marks the row" screen_wait '1 marked'
tm capture-pane -t t -p -e | sed -n 3p >"$TEST_TMP/row.txt"
check "tmux: without colours the marked row is underlined" grep -q "$(printf '\033')\[[0-9;]*4[;m]" "$TEST_TMP/row.txt"
screen_keys Escape
check_screen "tmux: Esc clears the mark" screen_wait '1 mark cleared'
screen_keys F6
check_screen "tmux: F6 opens the list" screen_wait '─ sort by ─'
screen_keys Down Down Enter
check_screen "tmux: Down Down Enter sorts by Avg" screen_wait 'sort: Avg ▼'
screen_keys Escape
check_screen "tmux: Esc leaves the table" screen_wait '/col'
screen_keys Q
check_screen "tmux: Q quits" screen_wait 'EXIT=0'

screen_start 160 48 -- --demo
screen_wait 'trex:' >/dev/null
screen_keys 2
check_screen "tmux 160x48: P95 and P99 show" screen_wait 'P99  Name'
screen_keys '\' g e m m Enter
check_screen "tmux 160x48: the filter" screen_wait 'FILTER: gemm'
screen_keys Escape
check_screen "tmux 160x48: Esc clears it first" screen_wait 'filter cleared'
screen_keys Q
check_screen "tmux 160x48: Q quits" screen_wait 'EXIT=0'

done_testing
