#!/bin/sh
# Screen tests of links in the timeline, through --script/--dump-screen:
# the status line says what F would follow and the message what it
# followed; the selected slice's launch <-> kernel link is drawn as a
# connector between the two rows, at the columns of their start times
# (computed here from the JSON by Python), with an edge marker when one end
# is off the screen; L draws every flow of the window and the status line
# counts them (also counted by Python from the s/f pairs of the JSON).
. "${TREX_SRCDIR:-.}/tests/e2e/lib.sh"
require_built
. "${TREX_SRCDIR:-.}/tests/screen/lib.sh"

TRACE=$TREX_CORPUS/kineto/hta_alexnet_cuda_sync/benchmark_result_2869224_1695835535_trace.json.gz

# rows_down FILE NAME DEPTH: the j presses from the first row (g) to the
# row DEPTH under the track row NAME in a dump where every row shows.
rows_down() {
	awk -v name="$2" -v depth="$3" '
		NR > 2 && index($0, "   " name) == 1 && target == 0 { target = NR + depth }
		END { if (target) print target - 3; else print -1 }' "$1"
}

# j_times N: "j j ... j", N of them.
j_times() {
	i=0
	while [ "$i" -lt "$1" ]; do
		printf 'j '
		i=$((i + 1))
	done
}

# ---- the demo: what F follows, before and after ----------------------------------------------

screen_script 160 48 "$TEST_TMP/rows.txt" "" --demo
down=$(rows_down "$TEST_TMP/rows.txt" "stream 7" 1)
kgo="g $(j_times "$down"). "
screen_script 160 48 "$TEST_TMP/k.txt" "$kgo" --demo
check "demo: a kernel's status line says F follows its launch" \
	screen_has "$TEST_TMP/k.txt" "^ .*  start .*  dur .*  F: launched by cuda[A-Za-z]+$"
screen_script 160 48 "$TEST_TMP/f.txt" "$kgo F" --demo
check "demo: after F, which link it followed" screen_has "$TEST_TMP/f.txt" "^ launched by: cuda[A-Za-z]+ \(u goes back\)$"
screen_script 160 48 "$TEST_TMP/ff.txt" "$kgo F <C-l>" --demo
check "demo: the launch's status line says F follows to the kernel" \
	screen_has "$TEST_TMP/ff.txt" "F: launched kernel "
screen_script 160 48 "$TEST_TMP/d.txt" "$kgo <Enter>" --demo
check "demo: the details pane says which link F follows" screen_has "$TEST_TMP/d.txt" "links: F follows 1, Tab chooses"
check "demo: ... and names each link" screen_has "$TEST_TMP/d.txt" " 1 launched by: cuda"
sed -n '3,$p' "$TEST_TMP/k.txt" >"$TEST_TMP/k-body.txt"
# (GPU streams come first, so the launch's thread lies below: the connector
# goes up from the launch and turns right along the kernel's row)
check "demo: the selected kernel's launch link is drawn (up from the launch, right to it)" \
	screen_has "$TEST_TMP/k-body.txt" "┌─*▶"
# a slice without launch or flow links: F says so rather than follow its parent
screen_script 160 48 "$TEST_TMP/n.txt" "g $(j_times "$(rows_down "$TEST_TMP/rows.txt" "thread 1663432" 1)"). F" --demo
check "demo: F without a launch or flow link says so" \
	screen_has "$TEST_TMP/n.txt" "^ no launch, flow or dependency link from this slice \(Tab chooses among its [0-9]+ other links\)"

# ---- a corpus trace: the connector's cells, edge markers, every flow (L) ---------------------

corpus_checks() {
	W=200 H=70
	start=$("$TREX" info -q --format=json "$TRACE" | sed -n 's/^{"start_ns": \([0-9]*\),.*/\1/p')
	end=$("$TREX" info -q --format=json "$TRACE" | sed -n 's/.*"end_ns": \([0-9]*\),.*/\1/p')
	screen_script "$W" "$H" "$TEST_TMP/rows.txt" "" "$TRACE"
	sep=$(sed -n 3p "$TEST_TMP/rows.txt" | "$PYTHON3" -c 'import sys; print(sys.stdin.read().index("\u2502"))')
	cols=$((W - sep - 1))
	"$PYTHON3" - "$TRACE" "$start" "$end" "$cols" >"$TEST_TMP/expect.sh" <<'EOF' || return 1
import gzip, json, sys
from decimal import Decimal

path, start, end, cols = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
with gzip.open(path) as f:
    events = json.loads(f.read(), parse_float=Decimal)["traceEvents"]
ns = lambda us: int(Decimal(us) * 1000)
xs = [e for e in events if e.get("ph") == "X"]

def depth(e):
    """Slices of its track enclosing its start, as trex nests them."""
    t, d = ns(e["ts"]), ns(e["dur"])
    return sum(1 for o in xs if o is not e and o["pid"] == e["pid"] and o["tid"] == e["tid"]
               and ns(o["ts"]) <= t < ns(o["ts"]) + ns(o["dur"]) and (ns(o["ts"]), -ns(o["dur"])) < (t, -d))

kernels = sorted((e for e in xs if e.get("cat") == "kernel"), key=lambda e: (-ns(e["dur"]), ns(e["ts"])))
k = kernels[0]
launch = [e for e in xs if e.get("cat") == "cuda_runtime"
          and e.get("args", {}).get("correlation") == k["args"]["correlation"]][0]
kt, lt = ns(k["ts"]), ns(launch["ts"])
# the zoom (w presses) at which the launch and the kernel are 12 columns
# apart or more, both in a window centred between them
span, w = end - start, 0
while (kt - lt) * cols < 12 * span and span // 2 > 4 * (kt - lt):
    span //= 2
    w += 1
mid = (kt + lt) // 2
t0 = mid - span // 2
col = lambda t: (t - t0) * 8 * cols // span // 8
# '.' from mid must select the kernel: nothing else starts on its lane in (mid, kt)
same_lane = [e for e in xs if e["pid"] == k["pid"] and e["tid"] == k["tid"] and depth(e) == depth(k)
             and mid < ns(e["ts"]) < kt]
# the flows: s/f pairs by (cat, id); those with an end in the window
ends = {}
for e in events:
    if e.get("ph") in ("s", "f"):
        ends.setdefault((e.get("cat"), e["id"]), {})[e["ph"]] = ns(e["ts"])
flows = [v for v in ends.values() if "s" in v and "f" in v]
in_window = lambda a, b: sum(1 for v in flows if a <= v["s"] < b or a <= v["f"] < b)
out = {
    "KSTREAM": "stream %s" % k["tid"], "KDEPTH": depth(k), "KREL": kt - start, "KCOL": col(kt),
    "LTHREAD": "thread %s" % launch["tid"], "LDEPTH": depth(launch), "LCOL": col(lt),
    "LNAME": launch["name"], "ZOOM": w, "MID": mid - start, "LREL": lt - start, "CLEAN": 0 if same_lane else 1,
    "FLOWS": in_window(t0, t0 + span), "ALLFLOWS": len(flows),
}
for key, v in out.items():
    print("%s='%s'" % (key, str(v).replace("'", "'\\''")))
EOF
	. "$TEST_TMP/expect.sh"
	if [ "$CLEAN" != 1 ]; then
		skip "corpus: the connector" "another slice starts between the window's middle and the kernel"
		return
	fi
	kdown=$(rows_down "$TEST_TMP/rows.txt" "$KSTREAM" "$KDEPTH")
	ldown=$(rows_down "$TEST_TMP/rows.txt" "$LTHREAD" "$LDEPTH")
	keys="g $(j_times "$kdown")$(printf 'w %.0s' $(seq 1 "$ZOOM"))T $(screen_keys_for "$MID") <Enter> ."
	screen_script "$W" "$H" "$TEST_TMP/c.txt" "$keys" "$TRACE"
	check "corpus: the longest kernel is selected, F: its launch ($LNAME)" \
		screen_has "$TEST_TMP/c.txt" "F: launched by $LNAME$"
	# screen rows: 3 + the j presses from the first row; columns: after the separator
	check "corpus: the connector runs from the launch's column ($LCOL) to the kernel ($KCOL)" \
		"$PYTHON3" - "$TEST_TMP/c.txt" "$((ldown + 2))" "$((kdown + 2))" "$((sep + 1))" "$LCOL" "$KCOL" <<'EOF'
import sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
lrow, krow, x0, lc, kc = (int(a) for a in sys.argv[2:])
cell = lambda r, c: (lines[r] + " " * 400)[x0 + c]
dir_ = 1 if krow > lrow else -1
bad = []
for r in range(lrow + dir_, krow, dir_):
    if cell(r, lc) != "\u2502":
        bad.append("row %d col %d: %r, not the vertical line" % (r, lc, cell(r, lc)))
if kc > lc:
    want_corner = "\u2514" if dir_ > 0 else "\u250c"
    if kc - lc > 1 and cell(krow, lc) != want_corner:
        bad.append("row %d col %d: %r, not the corner %r" % (krow, lc, cell(krow, lc), want_corner))
    for c in range(lc + 1, kc - 1):
        if cell(krow, c) != "\u2500":
            bad.append("row %d col %d: %r, not the horizontal line" % (krow, c, cell(krow, c)))
    if cell(krow, kc - 1) != "\u25b6":
        bad.append("row %d col %d: %r, not the arrow head" % (krow, kc - 1, cell(krow, kc - 1)))
else:
    bad.append("the kernel starts before its launch?")
for b in bad:
    print(b)
if bad:
    for i, line in enumerate(lines[:krow + 2]):
        print("%3d|%s" % (i, line))
sys.exit(1 if bad else 0)
EOF
	# the launch off the screen to the left: the connector ends at the edge
	keys="g $(j_times "$kdown")$(printf 'w %.0s' $(seq 1 "$ZOOM"))T $(screen_keys_for "$MID") <Enter> . w w w w w w"
	screen_script "$W" "$H" "$TEST_TMP/e.txt" "$keys" "$TRACE"
	check "corpus: zoomed in past the launch, an edge marker points left to it" \
		"$PYTHON3" -c 'import sys; l = open(sys.argv[1], encoding="utf-8").read().split("\n")[int(sys.argv[2])]; sys.exit(0 if l[int(sys.argv[3])] == "\u25c0" else 1)' \
		"$TEST_TMP/e.txt" "$((kdown + 2))" "$((sep + 1))"
	# the launch selected (go-to-time to its start on its row) with the view
	# scrolled down to it: the kernel's row lies off the screen, "▲ N rows"
	# above or "▼ N rows" below (the body is H - 4 rows)
	keys="g $(j_times "$ldown")$(printf 'w %.0s' $(seq 1 "$ZOOM"))T $(screen_keys_for "$LREL") <Enter>"
	screen_script "$W" 16 "$TEST_TMP/s.txt" "$keys" "$TRACE"
	top=$((ldown - 11))
	[ "$top" -lt 0 ] && top=0
	if [ "$kdown" -lt "$top" ]; then
		beyond=$((top - kdown)) arrow=▲
	else
		beyond=$((kdown - top - 11)) arrow=▼
	fi
	rows=rows
	[ "$beyond" -eq 1 ] && rows=row
	check "corpus: from the launch, the kernel's row off the screen: $arrow $beyond $rows" \
		screen_has "$TEST_TMP/s.txt" "$arrow $beyond $rows"
	keys="g $(j_times "$kdown")$(printf 'w %.0s' $(seq 1 "$ZOOM"))T $(screen_keys_for "$MID") <Enter> ."
	# L: every flow of the window, counted
	screen_script "$W" "$H" "$TEST_TMP/l.txt" "$keys L" "$TRACE"
	if [ "$FLOWS" -gt 64 ]; then want="FLOWS 64 of $FLOWS"; else want="FLOWS $FLOWS"; fi
	check "corpus: L draws the window's flows, $FLOWS by Python" screen_has "$TEST_TMP/l.txt" "  $want  "
	screen_script "$W" "$H" "$TEST_TMP/l.txt" "L" "$TRACE"
	if [ "$ALLFLOWS" -gt 64 ]; then want="FLOWS 64 of $ALLFLOWS"; else want="FLOWS $ALLFLOWS"; fi
	check "corpus: L on the whole trace: all $ALLFLOWS flows" screen_has "$TEST_TMP/l.txt" "  $want  "
	screen_script "$W" "$H" "$TEST_TMP/l.txt" "L L" "$TRACE"
	check "corpus: L again draws only the selection's links" sh -c "! grep -q FLOWS '$TEST_TMP/l.txt'"
	check "corpus: ... and says so" screen_has "$TEST_TMP/l.txt" "only the selected slice's links"
}

if have_corpus && [ -f "$TRACE" ]; then
	corpus_checks
else
	skip "corpus checks" "no corpus at $TREX_CORPUS"
fi

done_testing
