#!/bin/sh
# Screen tests of the timeline's details pane, links, go-to-time and range
# statistics: on a corpus Kineto trace every expected value is computed
# from the JSON by Python (exact decimals); on the demo trace the pane is
# checked against `trex kernels` and against itself (F, then u).
. "${TREX_SRCDIR:-.}/tests/e2e/lib.sh"
require_built
. "${TREX_SRCDIR:-.}/tests/screen/lib.sh"

TRACE=$TREX_CORPUS/kineto/hta_alexnet_cuda_sync/benchmark_result_2869224_1695835535_trace.json.gz

dump() { screen_script "$@"; }
has() { screen_has "$@"; }
keys_for() { screen_keys_for "$1"; }

# The j presses from the first row (g: move-first; screen line 3) to the
# row (ROW_NAME, DEPTH) in a screen dump where every row shows.
rows_down() {
	awk -v name="$2" -v depth="$3" '
		NR > 2 && index($0, "   " name) == 1 && target == 0 { target = NR + depth }
		END { if (target) print target - 3; else print -1 }' "$1"
}

# ---- the corpus trace ------------------------------------------------------------------

corpus_checks() {
	start=$("$TREX" info -q --format=json "$TRACE" | sed -n 's/^{"start_ns": \([0-9]*\),.*/\1/p')
	"$PYTHON3" - "$TRACE" "$start" >"$TEST_TMP/expect.sh" <<'EOF' || return 1
import gzip, json, sys
from decimal import Decimal

path, start = sys.argv[1], int(sys.argv[2])
with gzip.open(path) as f:
    events = json.loads(f.read(), parse_float=Decimal)["traceEvents"]
ns = lambda us: int(Decimal(us) * 1000)
xs = [e for e in events if e.get("ph") == "X"]
kernels = sorted((e for e in xs if e.get("cat") == "kernel"), key=lambda e: (-ns(e["dur"]), ns(e["ts"])))
k = kernels[0]
launch = [e for e in xs if e.get("cat") == "cuda_runtime"
          and e.get("args", {}).get("correlation") == k["args"]["correlation"]][0]
kt, kd = ns(k["ts"]), ns(k["dur"])
track = [e for e in xs if e["pid"] == k["pid"] and e["tid"] == k["tid"]]
# nesting depth: the slices of its track enclosing its start
depth = sum(1 for e in track if e is not k and ns(e["ts"]) <= kt < ns(e["ts"]) + ns(e["dur"])
            and (ns(e["ts"]), -ns(e["dur"])) < (kt, -kd))
# a range 2 ms either side of the kernel; the busy time of its stream is
# the union of the stream's slices clipped to the range
r0, r1 = kt - 2000000, kt + kd + 2000000
iv = sorted((max(ns(e["ts"]), r0), min(ns(e["ts"]) + ns(e["dur"]), r1)) for e in track)
busy, cur = 0, None
for b, e in iv:
    if e <= b:
        continue
    if cur is None or b > cur[1]:
        if cur:
            busy += cur[1] - cur[0]
        cur = [b, e]
    else:
        cur[1] = max(cur[1], e)
busy += (cur[1] - cur[0]) if cur else 0
out = {
    "KNAME": k["name"], "KREL": kt - start, "KDUR": kd, "KDEPTH": depth,
    "KSTREAM": "stream %s" % k["tid"], "KCORR": k["args"]["correlation"],
    "KGRID": json.dumps(k["args"]["grid"], separators=(",", ":")),
    "LNAME": launch["name"], "LREL": ns(launch["ts"]) - start, "LDUR": ns(launch["dur"]),
    "R0": r0 - start, "R1": r1 - start, "BUSY": "%.1f%%" % (busy * 100 / (r1 - r0)),
}
for key, v in out.items():
    print("%s='%s'" % (key, str(v).replace("'", "'\\''")))
EOF
	. "$TEST_TMP/expect.sh"
	dump 200 60 "$TEST_TMP/rows.txt" '' "$TRACE"
	down=$(rows_down "$TEST_TMP/rows.txt" "$KSTREAM" "$KDEPTH")
	if [ "$down" -lt 0 ]; then
		not_ok "corpus: the kernel's row $KSTREAM shows"
		return
	fi
	go="g $(printf 'j %.0s' $(seq 1 "$down"))T $(keys_for "$KREL") <Enter>"

	for size in "80 24" "160 48"; do
		set -- $size
		what="corpus $1x$2"
		dump "$1" "$2" "$TEST_TMP/k.txt" "$go <Enter>" "$TRACE"
		check "$what: details show the longest kernel's name" has "$TEST_TMP/k.txt" "name: $(printf '%.30s' "$KNAME")"
		check "$what: its exact duration" has "$TEST_TMP/k.txt" "duration: .*\\($KDUR ns\\)"
		check "$what: its start relative to the trace" has "$TEST_TMP/k.txt" "start: .*\\($KREL ns;"
		check "$what: its category" has "$TEST_TMP/k.txt" "category: kernel$"
		check "$what: its track" has "$TEST_TMP/k.txt" "track: rank 0 / .* / $KSTREAM"
		dump "$1" "$2" "$TEST_TMP/f.txt" "$go <Enter> F" "$TRACE"
		check "$what: F goes to the launch (status)" has "$TEST_TMP/f.txt" "^ launched by: $LNAME \\(u goes back\\)"
		check "$what: F goes to the launch (details)" has "$TEST_TMP/f.txt" "start: .*\\($LREL ns;"
		check "$what: the launch's duration" has "$TEST_TMP/f.txt" "duration: .*\\($LDUR ns\\)"
		dump "$1" "$2" "$TEST_TMP/u.txt" "$go <Enter> F u" "$TRACE"
		check "$what: u returns to the kernel" has "$TEST_TMP/u.txt" "start: .*\\($KREL ns;"
		dump "$1" "$2" "$TEST_TMP/b.txt" "$go <Enter> F <Backspace>" "$TRACE"
		check "$what: Backspace returns to the kernel" has "$TEST_TMP/b.txt" "duration: .*\\($KDUR ns\\)"
		dump "$1" "$2" "$TEST_TMP/ff.txt" "$go <Enter> F F" "$TRACE"
		check "$what: F from the launch goes to the kernel" has "$TEST_TMP/ff.txt" "^ launched kernel: $(printf '%.20s' "$KNAME")"
		check "$what: ... and selects it" has "$TEST_TMP/ff.txt" "start: .*\\($KREL ns;"
	done

	# 40x12: a pane of three lines; F and u still work
	dump 40 12 "$TEST_TMP/s.txt" "$go <Enter>" "$TRACE"
	check "corpus 40x12: the pane shows the kernel" has "$TEST_TMP/s.txt" "^ name: $(printf '%.20s' "$KNAME")"
	dump 40 12 "$TEST_TMP/s.txt" "$go <Enter> F" "$TRACE"
	check "corpus 40x12: F goes to the launch" has "$TEST_TMP/s.txt" "^ launched by: $LNAME"
	dump 40 12 "$TEST_TMP/s.txt" "$go <Enter> F u" "$TRACE"
	check "corpus 40x12: u returns to the kernel" has "$TEST_TMP/s.txt" "^ $(printf '%.20s' "$KNAME")"

	# the args, scrolled to with Tab and the link keys (200x60: a side pane)
	dump 200 60 "$TEST_TMP/a.txt" "$go <Enter>" "$TRACE"
	check "corpus 200x60: a side pane" has "$TEST_TMP/a.txt" "│ Details"
	check "corpus: args: correlation" has "$TEST_TMP/a.txt" "   correlation: $KCORR"
	check "corpus: args: grid as compact JSON" has "$TEST_TMP/a.txt" "   grid: \\$KGRID"
	check "corpus: the link list names the launch" has "$TEST_TMP/a.txt" " 1 launched by: $LNAME"
	dump 80 24 "$TEST_TMP/t.txt" "$go <Enter> <Tab> j <Enter>" "$TRACE"
	check "corpus 80x24: Tab, j, Enter follows the second link" has "$TEST_TMP/t.txt" "\\(u goes back\\)"

	# the way a new user gets there: the kernels table (2), the instances
	# of a kernel (Enter), one instance in the timeline (Enter), its launch
	# (F) and back (u)
	dump 120 30 "$TEST_TMP/kt.txt" "2 <Enter>" "$TRACE"
	if grep -q 'instances of' "$TEST_TMP/kt.txt"; then
		inst=$(sed -n 's/^ trex: [0-9]* instances of \(.*\) - .*/\1/p' "$TEST_TMP/kt.txt")
		dump 120 30 "$TEST_TMP/kt.txt" "2 <Enter> <Enter> F" "$TRACE"
		check "kernels table -> timeline -> F: the launch" has "$TEST_TMP/kt.txt" "^ launched by: cuda"
		dump 120 30 "$TEST_TMP/kt.txt" "2 <Enter> <Enter> F u <Enter>" "$TRACE"
		check "... u: back on the kernel ($inst)" has "$TEST_TMP/kt.txt" "^ name: $(printf '%.30s' "$inst")"
	else
		skip "kernels table -> timeline -> F" "no instances view"
	fi

	# go to time
	dump 80 24 "$TEST_TMP/g.txt" "T 1 2 . 5 s <Enter>" "$TRACE"
	check "go-to-time 12.5s moves the cursor" has "$TEST_TMP/g.txt" "cursor 12.5 s "
	dump 80 24 "$TEST_TMP/g.txt" "T 1 s <Enter> : + 5 0 0 m s <Enter>" "$TRACE"
	check "':' +500ms is relative to the cursor" has "$TEST_TMP/g.txt" "cursor 1\.50? s "
	dump 80 24 "$TEST_TMP/g.txt" "T 2 s <Enter> T 3 s <Enter> u" "$TRACE"
	check "u goes back to the previous go-to" has "$TEST_TMP/g.txt" "cursor 2\.00? s "
	dump 80 24 "$TEST_TMP/g.txt" "T 1 2 p a r s e c s <Enter>" "$TRACE"
	check "a bad time says what is expected" has "$TEST_TMP/g.txt" "^ expected a time like 12.5ms"

	# a marked range: the stream's busy % computed by Python
	mark="$go T $(keys_for "$R0") <Enter> m T $(keys_for "$R1") <Enter> m"
	dump 200 60 "$TEST_TMP/r.txt" "$mark" "$TRACE"
	check "range: the statistics pane" has "$TEST_TMP/r.txt" "Range statistics"
	check "range: the stream's busy % is the union" has "$TEST_TMP/r.txt" "^.*│ +$BUSY .* / $KSTREAM"
	check "range: the kernel is among the top names" has "$TEST_TMP/r.txt" "x  $(printf '%.30s' "$KNAME")"
	# the cursor where go-to-time R0 and R1 put it, then after ' and [ from
	# the end, and ] from the start; zoomed in around the cursor so that
	# the cursor time, rounded to the resolution, tells R0 from R1
	zoom='w w w w w w w w'
	dump 80 24 "$TEST_TMP/r0.txt" "T $(keys_for "$R0") <Enter> $zoom" "$TRACE"
	at_r0=$(sed -n 's/.*\(cursor [^ ]* [a-z]*\) .*/\1/p' "$TEST_TMP/r0.txt")
	dump 80 24 "$TEST_TMP/r1.txt" "T $(keys_for "$R1") <Enter> $zoom" "$TRACE"
	at_r1=$(sed -n 's/.*\(cursor [^ ]* [a-z]*\) .*/\1/p' "$TEST_TMP/r1.txt")
	check "range: the zoomed cursor tells R0 ($at_r0) from R1 ($at_r1)" test "$at_r0" != "$at_r1"
	dump 80 24 "$TEST_TMP/r.txt" "$mark T 1 s <Enter> ' $zoom" "$TRACE"
	check "range: ' jumps back to the range start ($at_r0)" has "$TEST_TMP/r.txt" "$at_r0 "
	dump 80 24 "$TEST_TMP/r.txt" "$mark [ $zoom" "$TRACE"
	check "range: [ goes from the end to the start" has "$TEST_TMP/r.txt" "$at_r0 "
	dump 80 24 "$TEST_TMP/r.txt" "$mark [ ] $zoom" "$TRACE"
	check "range: ] goes back to the end ($at_r1)" has "$TEST_TMP/r.txt" "$at_r1 "
	check "range: the pane fits 80x24" has "$TEST_TMP/r.txt" "Range statistics"
	dump 80 24 "$TEST_TMP/r.txt" "$mark <Esc>" "$TRACE"
	check "range: Esc clears it" sh -c "! grep -q 'Range statistics' '$TEST_TMP/r.txt'"
	dump 80 24 "$TEST_TMP/r.txt" "$go m ] ]" "$TRACE"
	check "marks: ] with only a start says so" has "$TEST_TMP/r.txt" "no mark after the cursor"

	# x exports the range's busy-by-track table; Python recomputes every
	# track's slice count and busy ns (the union of its slices clipped to
	# the range) from the JSON. Then a second export asks before it
	# overwrites: n (or Enter) keeps the file, y replaces it.
	mkdir -p "$TEST_TMP/x"
	(cd "$TEST_TMP/x" && dump 80 24 "$TEST_TMP/x.txt" "$mark x <Enter>" "$TRACE")
	check "export: the prompt's default writes range.csv" has "$TEST_TMP/x.txt" "^ wrote [0-9]+ rows to range.csv \\(busy by track\\)"
	check "export: every track's slices and busy ns equal Python's" "$PYTHON3" - "$TRACE" "$start" "$R0" "$R1" "$TEST_TMP/x/range.csv" <<'EOF'
import csv, gzip, json, sys
from decimal import Decimal

path, start, r0, r1, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
r0, r1 = start + r0, start + r1
ns = lambda us: int(Decimal(us) * 1000)
with gzip.open(path) as f:
    events = json.loads(f.read(), parse_float=Decimal)["traceEvents"]
tracks = {}
for e in events:
    if e.get("ph") != "X":
        continue
    b = ns(e["ts"])
    d = ns(e.get("dur", 0))
    if (b < r1 and b + d > r0) or (d == 0 and r0 <= b < r1):
        tracks.setdefault((e["pid"], e["tid"]), []).append((max(b, r0), min(b + d, r1)))
want = []
for iv in tracks.values():
    busy, cur = 0, None
    for b, e in sorted(iv):
        if cur is None or b > cur[1]:
            busy += cur[1] - cur[0] if cur else 0
            cur = [b, e]
        else:
            cur[1] = max(cur[1], e)
    busy += cur[1] - cur[0]
    want.append((len(iv), busy, "%.5f" % (busy * 100 / (r1 - r0))))
rows = list(csv.DictReader(open(out, newline="")))
got = [(int(r["slices"]), int(r["busy_ns"]), "%.5f" % float(r["busy_pct"])) for r in rows]
assert sorted(got) == sorted(want), "csv %s\npython %s" % (sorted(got), sorted(want))
print("%d tracks" % len(got))
EOF
	cp "$TEST_TMP/x/range.csv" "$TEST_TMP/first.csv"
	other="$go T $(keys_for "$R0") <Enter> m T $(keys_for "$KREL") <Enter> m"
	(cd "$TEST_TMP/x" && dump 80 24 "$TEST_TMP/x.txt" "$other x <Enter>" "$TRACE")
	check "export: an existing file: overwrite? (y/n)" has "$TEST_TMP/x.txt" "range.csv exists; overwrite\\? \\(y/n\\)"
	(cd "$TEST_TMP/x" && dump 80 24 "$TEST_TMP/x.txt" "$other x <Enter> n" "$TRACE")
	check "export: n says not overwritten" has "$TEST_TMP/x.txt" "^ not overwritten: range.csv"
	check "export: ... and the file is unchanged" cmp "$TEST_TMP/first.csv" "$TEST_TMP/x/range.csv"
	(cd "$TEST_TMP/x" && dump 80 24 "$TEST_TMP/x.txt" "$other x <Enter> y" "$TRACE")
	check "export: y overwrites" has "$TEST_TMP/x.txt" "^ wrote [0-9]+ rows to range.csv"
	check "export: ... with the other range's numbers" sh -c "! cmp -s '$TEST_TMP/first.csv' '$TEST_TMP/x/range.csv'"
	(cd "$TEST_TMP/x" && dump 80 24 "$TEST_TMP/x.txt" "$go x" "$TRACE")
	check "export without a range says how to mark one" has "$TEST_TMP/x.txt" "^ mark a range with m first to export its statistics"
}

if have_corpus && [ -f "$TRACE" ]; then
	corpus_checks
else
	skip "corpus checks" "no corpus at $TREX_CORPUS"
fi

# ---- the demo trace ---------------------------------------------------------------------

dump 160 48 "$TEST_TMP/demo_rows.txt" '' --demo
down=$(rows_down "$TEST_TMP/demo_rows.txt" "stream 7" 1)
kgo="g $(printf 'j %.0s' $(seq 1 "$down")). <Enter>"
for size in "80 24" "160 48" "40 12"; do
	set -- $size
	what="demo $1x$2"
	dump "$1" "$2" "$TEST_TMP/d.txt" "$kgo" --demo
	check "$what: the pane shows the selected slice" has "$TEST_TMP/d.txt" "Details"
	check "$what: name and category" has "$TEST_TMP/d.txt" "name: "
done
dump 160 48 "$TEST_TMP/d.txt" "$kgo" --demo
name=$(sed -n 's/^ name: //p' "$TEST_TMP/d.txt" | head -1)
dur=$(sed -n 's/^ duration: .*(\([0-9]*\) ns)$/\1/p' "$TEST_TMP/d.txt" | head -1)
start=$(sed -n 's/^ start: .*(\([0-9]*\) ns;.*/\1/p' "$TEST_TMP/d.txt" | head -1)
check "demo: a kernel is selected on stream 7" has "$TEST_TMP/d.txt" "category: kernel$"
"$TREX" kernels -q --demo --format=csv >"$TEST_TMP/kernels.csv" 2>&1
# the pane's first line of the (wrapped) name starts the kernel's name
check "demo: trex kernels knows the kernel, its duration within min..max" "$PYTHON3" - "$TEST_TMP/kernels.csv" "$name" "$dur" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
head, dur = sys.argv[2], int(sys.argv[3])
fits = [r for r in rows if r["name"].startswith(head)
        and float(r["min_ns"]) <= dur <= float(r["max_ns"])]
assert fits, "no kernel %r with %d ns in min..max" % (head, dur)
EOF
dump 160 48 "$TEST_TMP/d.txt" "$kgo F" --demo
check "demo: F from a kernel goes to its launch" has "$TEST_TMP/d.txt" "^ launched by: cuda"
check "demo: ... a runtime call" has "$TEST_TMP/d.txt" "category: cuda_runtime$"
dump 160 48 "$TEST_TMP/d.txt" "$kgo F u" --demo
check "demo: u returns to the kernel" has "$TEST_TMP/d.txt" "start: .*\\($start ns;"
dump 160 48 "$TEST_TMP/d.txt" "$kgo F F" --demo
check "demo: F from the launch goes back to the kernel" has "$TEST_TMP/d.txt" "start: .*\\($start ns;"

# ---- the mouse in the pane: a click on a link line follows that link ----------------------

# at FILE REGEX: "Y,X" (0-based) of the first match of REGEX in the dump.
at() {
	"$PYTHON3" - "$1" "$2" <<'EOF'
import re, sys
for y, line in enumerate(open(sys.argv[1], encoding="utf-8").read().split("\n")):
    m = re.search(sys.argv[2], line)
    if m:
        print("%d,%d" % (y, m.start() + 1))
        break
EOF
}
for size in "160 48" "80 24" "200 60"; do
	set -- $size
	what="mouse $1x$2"
	# Tab j Tab: the second link chosen, scrolled into view, focus back
	lgo="$kgo <Tab> j <Tab>"
	dump "$1" "$2" "$TEST_TMP/m2.txt" "$lgo" --demo
	line=$(grep -E -o ' 2 [a-z][a-zA-Z ]*: [^ (]+' "$TEST_TMP/m2.txt" | tail -1)
	pos=$(at "$TEST_TMP/m2.txt" "$(printf '%s' "$line" | sed 's/[]#*.[]/\\&/g')")
	label=$(printf '%s' "$line" | sed 's/^ [12] //')
	if [ -z "$pos" ]; then
		not_ok "$what: a link line shows in the pane"
		diag_file "$TEST_TMP/m2.txt" "$2"
		continue
	fi
	dump "$1" "$2" "$TEST_TMP/mc.txt" "$lgo click:$pos" --demo
	check "$what: a click on link '$label' follows it" has "$TEST_TMP/mc.txt" "^ $label \\(u goes back\\)"
	dump "$1" "$2" "$TEST_TMP/mc.txt" "$lgo click:$pos u" --demo
	check "$what: u comes back from the clicked link" has "$TEST_TMP/mc.txt" "start: .*\\($start ns;"
	dump "$1" "$2" "$TEST_TMP/m.txt" "$kgo" --demo
	pos=$(at "$TEST_TMP/m.txt" "category: kernel")
	dump "$1" "$2" "$TEST_TMP/mc.txt" "$kgo click:$pos" --demo
	check "$what: a click elsewhere on the pane focuses it" has "$TEST_TMP/mc.txt" "Details: j/k link, Enter follow, Tab back"
	check "$what: ... and follows nothing" sh -c "! grep -q 'u goes back' '$TEST_TMP/mc.txt'"
	dump "$1" "$2" "$TEST_TMP/mc.txt" "$kgo click:$pos j <Enter>" --demo
	check "$what: ... then j, Enter follow the second link" has "$TEST_TMP/mc.txt" "\\(u goes back\\)"
done

# ---- interactively, as a new user: ? teaches the keys -------------------------------------

screen_start 80 24 -- --demo
check_screen "tmux: the timeline appears" screen_wait ' .. '
screen_keys '?'
check_screen "tmux: help lists the details key" screen_page_to 'Enter +Show or hide the details pane'
check_screen "tmux: help lists go-to-time" screen_page_to 'T +Prompt for a time'
check_screen "tmux: help lists follow-link" screen_page_to 'F +Follow the'
check_screen "tmux: help lists mark-range" screen_page_to 'm +Set the start'
screen_keys q
screen_settle
for k in $kgo; do
	case $k in
	'<Enter>') screen_keys Enter ;;
	*) screen_keys "$k" ;;
	esac
done
check_screen "tmux: Enter opens the details pane" screen_wait 'category: kernel'
screen_keys F
check_screen "tmux: F jumps to the launch" screen_wait 'category: cuda_runtime'
screen_keys u
check_screen "tmux: u comes back" screen_wait 'category: kernel'
screen_keys T
check_screen "tmux: T opens the prompt" screen_wait 'go to time:'
screen_keys 1 0 m s Enter
check_screen "tmux: the cursor is at 10 ms" screen_wait 'cursor 10.0 ms'
screen_keys Q
check_screen "tmux: Q quits" screen_wait 'EXIT=0'

done_testing
