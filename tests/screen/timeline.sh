#!/bin/sh
# Screen tests of the timeline: the real trex in tmux at 80x24, 160x48 and
# 40x12, on the demo trace and a corpus trace.
. "${TREX_SRCDIR:-.}/tests/e2e/lib.sh"
require_built
. "${TREX_SRCDIR:-.}/tests/screen/lib.sh"

# The visible range in the status line, "0 ns .. 56.2 ms (56.214 ms)".
range() {
	screen_text | grep -E '^ .* \.\. .*\(' | sed 's/  .*//; s/ *cursor.*//'
}

# timeline_checks W H ARGS...: one session through the main keys.
timeline_checks() {
	w=$1 h=$2
	shift 2
	what="$w""x$h $*"
	screen_start "$w" "$h" -- "$@"
	check_screen "$what: the timeline appears" screen_wait 'trex:'
	screen_settle
	check_screen "$what: track names" sh -c "tmux -L $SCREEN_SOCK capture-pane -t t -p | grep -E -q '(thread|stream)'"
	check_screen "$what: the axis has ticks with units" sh -c "tmux -L $SCREEN_SOCK capture-pane -t t -p | sed -n 2p | grep -E -q '[0-9]+(ns|us|ms|s)'"
	r0=$(range)
	screen_keys w
	screen_settle
	r1=$(range)
	if [ -n "$r0" ] && [ -n "$r1" ] && [ "$r0" != "$r1" ]; then ok "$what: zoom-in changes the range"; else not_ok "$what: zoom-in changes the range ('$r0' -> '$r1')"; fi
	screen_keys 0
	screen_settle
	r2=$(range)
	if [ "$r0" = "$r2" ]; then ok "$what: fit-all restores it"; else not_ok "$what: fit-all restores it ('$r0' -> '$r2')"; fi
	screen_keys .
	screen_settle
	check_screen "$what: next slice shows name, start and duration" sh -c "tmux -L $SCREEN_SOCK capture-pane -t t -p | grep -E -q ' start .* dur [0-9]'"
	screen_keys '?'
	check_screen "$what: ? shows the keys" screen_wait 'keys of the timeline'
	screen_settle
	check_screen "$what: help lists the zoom keys" screen_page_to 'w, \+, = +Zoom in'
	check_screen "$what: help lists fit-all" screen_page_to '^ +0 +Show the'
	screen_keys q
	check_screen "$what: q closes the help" screen_wait ' .. '
	screen_keys q
	check_screen "$what: q quits, the shell prompt is back" screen_wait 'EXIT=0'
	check_screen "$what: the timeline is gone" sh -c "! tmux -L $SCREEN_SOCK capture-pane -t t -p | grep -q 'trex: '"
}

timeline_checks 80 24 --demo
timeline_checks 160 48 --demo
timeline_checks 40 12 --demo

# Resize: the screen equals a fresh start at the new size.
for size in "100 30" "60 20" "160 48"; do
	set -- $size
	screen_dump "$1" "$2" "$TEST_TMP/fresh.txt" --demo
	screen_start 80 24 -- --demo
	screen_wait ' .. ' >/dev/null
	screen_settle
	tm resize-window -t t -x "$1" -y "$2"
	# A loaded machine may take longer than one settle interval to deliver
	# SIGWINCH and redraw, so wait for the fresh screen (10 s at most).
	screen_wait_file "$TEST_TMP/fresh.txt"
	screen_text >"$TEST_TMP/resized.txt"
	if diff "$TEST_TMP/fresh.txt" "$TEST_TMP/resized.txt" >"$TEST_TMP/diff.txt"; then
		ok "resize 80x24 -> $1x$2 redraws exactly like a fresh start"
	else
		not_ok "resize 80x24 -> $1x$2 redraws exactly like a fresh start"
		diag_file "$TEST_TMP/diff.txt" 30
	fi
	screen_keys q
	screen_wait 'EXIT=0' >/dev/null
done

# Below 40x12: the enlarge message, and back.
screen_start 80 24 -- --demo
screen_wait ' .. ' >/dev/null
screen_settle
tm resize-window -t t -x 39 -y 12
check_screen "39x12: enlarge the window" screen_wait 'enlarge the window'
tm resize-window -t t -x 40 -y 11
check_screen "40x11: enlarge the window" screen_wait 'need 40x12, have 40x11'
tm resize-window -t t -x 40 -y 12
check_screen "back to 40x12: the timeline" screen_wait 'trex: demo'
screen_keys q
check_screen "q quits from the small screen" screen_wait 'EXIT=0'

# Instants: every one shows, in an "instants" row under its thread's lanes
# (also where slices cover them) or, for a thread with no slices, in the
# thread's own row. tick_cols FILE ROW_NAME: the timeline columns of the
# ticks on the first row whose name starts with ROW_NAME; want_cols W NS...: floor(ns * w / span) per instant,
# over the fit-all window of the trace (0 .. 1 ms), computed here.
tick_cols() {
	"$PYTHON3" - "$1" "$2" <<'EOF'
import sys
for line in open(sys.argv[1], encoding="utf-8"):
    line = line.rstrip("\n")
    sep = "\u2502" if "\u2502" in line else "|"
    if line.split(sep)[0].rstrip().startswith(sys.argv[2]):
        body = line.split(sep, 1)[1]
        print(" ".join(str(i) for i, ch in enumerate(body) if ch in "\u2502\u2503|!"))
        break
EOF
}
want_cols() {
	"$PYTHON3" -c 'import sys
w = int(sys.argv[1])
print(" ".join(str(int(ns) * w // 1000000) for ns in sys.argv[2:]))' "$@"
}
inst=$TREX_SRCDIR/tests/data/instants.json
for size in "80 24" "160 48" "40 12"; do
	set -- $size
	screen_dump "$1" "$2" "$TEST_TMP/inst.txt" "$inst"
	# the timeline's width: the screen less the names column and its border
	names=$(sed -n 3p "$TEST_TMP/inst.txt" | sed 's/│.*//' | wc -m)
	w=$(($1 - names))
	got=$(tick_cols "$TEST_TMP/inst.txt" "   quiet")
	want=$(want_cols "$w" 500000 950000)
	if [ "$got" = "$want" ]; then ok "$1x$2: a thread with only instants shows them all ($want)"; else not_ok "$1x$2: a thread with only instants shows them all (got '$got', want '$want')"; diag_file "$TEST_TMP/inst.txt" "$2"; fi
	got=$(tick_cols "$TEST_TMP/inst.txt" "   └ insta") # narrow: "insta"
	want=$(want_cols "$w" 250000 750000)
	if [ "$got" = "$want" ]; then ok "$1x$2: instants under slices show in the instants row ($want)"; else not_ok "$1x$2: instants under slices show in the instants row (got '$got', want '$want')"; diag_file "$TEST_TMP/inst.txt" "$2"; fi
done
screen_dump 80 24 "$TEST_TMP/inst.txt" --ascii "$inst"
got=$(tick_cols "$TEST_TMP/inst.txt" "   quiet")
if [ "$got" = "$(want_cols 62 500000 950000)" ]; then ok "ASCII: instant ticks are |"; else not_ok "ASCII: instant ticks are | (got '$got')"; diag_file "$TEST_TMP/inst.txt" 24; fi
# a filter shows slices only: the instants rows go
screen_dump 80 24 "$TEST_TMP/inst0.txt" "$inst"
screen_dump 80 24 "$TEST_TMP/inst.txt" "$inst" --script '\ o u t e r <Enter>'
if grep -q '^   └ instants' "$TEST_TMP/inst0.txt" && ! grep -q '└ instants' "$TEST_TMP/inst.txt" && grep -q '^   busy' "$TEST_TMP/inst.txt"; then ok "under a filter the instants rows are hidden"; else not_ok "under a filter the instants rows are hidden"; diag_file "$TEST_TMP/inst.txt" 24; fi

# The corpus trace with 12,840 instants on two threads: each thread's
# instants row has a tick in exactly the columns Python finds an instant in.
RESNET=$TREX_CORPUS/kineto/kineto_tb_resnet50_2021/worker0.1623143089861.pt.trace.json.gz
if have_corpus && [ -f "$RESNET" ]; then
	screen_dump 200 70 "$TEST_TMP/resnet.txt" "$RESNET"
	names=$(sed -n 3p "$TEST_TMP/resnet.txt" | sed 's/│.*//' | wc -m)
	w=$((200 - names))
	"$TREX" info -q --format=json "$RESNET" | sed -n 's/^{"start_ns": \([0-9]*\), "end_ns": \([0-9]*\),.*/\1 \2/p' >"$TEST_TMP/span"
	read -r t0 t1 <"$TEST_TMP/span"
	"$PYTHON3" - "$RESNET" "$t0" "$t1" "$w" "$TEST_TMP/resnet.txt" <<'EOF' >"$TEST_TMP/resnet.tap"
import gzip, json, sys
from decimal import Decimal
path, t0, t1, w, dump = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
ev = json.loads(gzip.open(path).read(), parse_float=Decimal)["traceEvents"]
want, count = {}, {}
for e in ev:
    if e.get("ph") in ("i", "I") and e.get("s", "t") == "t":
        col = (int(Decimal(e["ts"]) * 1000) - t0) * w // (t1 - t0)
        want.setdefault(str(e["tid"]), set()).add(col)
        count[str(e["tid"])] = count.get(str(e["tid"]), 0) + 1
lines = open(dump, encoding="utf-8").read().split("\n")
for tid, cols in sorted(want.items()):
    # the thread's row, then the first "instants" row after it
    start = [i for i, l in enumerate(lines) if l.startswith("   thread " + tid)]
    rows = [i for i in range(start[0], len(lines)) if lines[i].startswith("   \u2514 instants")] if start else []
    if not rows:
        print("not ok - resnet: thread %s has an instants row" % tid)
        continue
    body = lines[rows[0]].split("\u2502", 1)[1]
    got = {i for i, ch in enumerate(body) if ch in "\u2502\u2503"}
    cols = {c for c in cols if 0 <= c < w}
    print("%s - resnet: thread %s: %d instants in %d columns" % ("ok" if got == cols else "not ok", tid, count[tid], len(cols)))
    if got != cols:
        print("# missing %s extra %s" % (sorted(cols - got)[:10], sorted(got - cols)[:10]))
EOF
	while IFS= read -r line; do
		case $line in
		'ok - '*) ok "${line#ok - }" ;;
		'not ok - '*) not_ok "${line#not ok - }" ;;
		*) echo "$line" ;;
		esac
	done <"$TEST_TMP/resnet.tap"
	[ -s "$TEST_TMP/resnet.tap" ] || not_ok "resnet: the instants check ran"
else
	skip "instants of the resnet corpus trace" "no corpus"
fi

# A corpus trace.
if have_corpus; then
	trace=$(corpus_traces | grep kineto | head -n 1)
	timeline_checks 80 24 "$trace"
	# Kineto's "Record Window End" instant has pid "": its group still has a
	# label when the hidden tracks are shown
	dlrm=$TREX_CORPUS/kineto/param_dlrm_8rank/worker0_step_12.1694128201545.pt.trace.json.gz
	screen_dump 80 24 "$TEST_TMP/nopid.txt" "$dlrm" --script 'H'
	check "a process with an empty pid is shown as (no pid)" grep -q '^ ▾ (no pid)' "$TEST_TMP/nopid.txt"
else
	skip "corpus trace in the timeline" "no corpus"
fi

# ---- toggle-critical-path (P) ----------------------------------------------------------------
screen_dump 100 30 "$TEST_TMP/cp1.txt" --demo --script 'P'
check "P: the critical path's highlight turned off, and said" \
	grep -q "critical path: not highlighted" "$TEST_TMP/cp1.txt"
screen_dump 100 30 "$TEST_TMP/cp2.txt" --demo --script 'P P'
check "P P: highlighted again, and said" \
	grep -q "critical path: highlighted in the mark colour" "$TEST_TMP/cp2.txt"
printf '{"traceEvents": [{"ph": "C", "name": "mem", "pid": 1, "ts": 1, "args": {"v": 1}}, {"ph": "C", "name": "mem", "pid": 1, "ts": 9, "args": {"v": 2}}]}\n' \
	>"$TEST_TMP/counters.json"
screen_dump 100 30 "$TEST_TMP/cp3.txt" "$TEST_TMP/counters.json" --script 'P P'
check "P P on a trace with no path: says there is none" \
	grep -q "critical path: none in this trace" "$TEST_TMP/cp3.txt"

done_testing
