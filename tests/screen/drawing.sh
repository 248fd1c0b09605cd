#!/bin/sh
# Screen tests of the timeline's drawing and time keys, through
# --script/--dump-screen: the cursor's marker never covers an axis label's
# digits; zooming in at the limit does not pan and zooming out stops at the
# whole trace; every shipped theme loads by name from the build tree; the
# go-to-time prompt takes the absolute times the details pane prints and
# says when a time is outside the trace; a counter row shows its value at
# the cursor and its min/max, and Enter lists the samples around the
# cursor (checked against the JSON by Python).
. "${TREX_SRCDIR:-.}/tests/e2e/lib.sh"
require_built
. "${TREX_SRCDIR:-.}/tests/screen/lib.sh"

TRACE=$TREX_CORPUS/kineto/hta_alexnet_cuda_sync/benchmark_result_2869224_1695835535_trace.json.gz

# ---- the axis: the cursor's marker and the labels --------------------------------------------

# axis_whole FILE: every label on the axis row (row 2) is whole: split at
# the ticks, the marker and blanks, each word is a number with a unit.
axis_whole() {
	sed -n 2p "$1" | cut -c24- | tr '│▼|' '   ' | tr -s ' ' '\n' | sed '/^$/d' >"$1.words"
	if grep -v -E -x -- '-?[0-9]+(\.[0-9]+)?(ns|us|ms|s)' "$1.words"; then
		echo "broken labels on the axis:"
		sed -n 2p "$1"
		return 1
	fi
	grep -q '▼' "$1" || { echo "no marker"; sed -n 2p "$1"; return 1; }
}

# the demo at 100 columns: 730 us per column, a label every 10 ms; these
# cursor times put the marker on a label's first, second and third column
# and on a tick
for t in 1ms 11ms 2ms 10.5ms 20ms 31ms 0; do
	screen_script 100 30 "$TEST_TMP/axis.txt" "T $(screen_keys_for "$t") <Enter>" --demo
	check "axis: the marker at $t covers no label's digits" axis_whole "$TEST_TMP/axis.txt"
done
for t in 1ms 12ms; do
	screen_script 100 30 "$TEST_TMP/axis.txt" "T $(screen_keys_for "$t") <Enter> w w w" --demo
	check "axis: zoomed in, the marker at $t covers no digits" axis_whole "$TEST_TMP/axis.txt"
done

# ---- zoom limits ----------------------------------------------------------------------------

# window FILE: the visible range "A .. B (SPAN)" of the status line.
window() {
	grep -E -o '^ *-?[0-9.]+ [numk]*s \.\. -?[0-9.]+ [numk]*s \([^)]*\)' "$1" | head -n 1
}

# at the limit, go-to-time puts the cursor mid-window: a w that zooms no
# further must leave the window where it is
many_w=$(printf 'w %.0s' $(seq 1 40))
screen_script 100 30 "$TEST_TMP/in.txt" "T 1 2 m s <Enter> $many_w T 1 2 m s <Enter>" --demo
screen_script 100 30 "$TEST_TMP/in2.txt" "T 1 2 m s <Enter> $many_w T 1 2 m s <Enter> w w" --demo
check "zoom: in as far as it goes, 1 ns per column" screen_has "$TEST_TMP/in.txt" " 1 ns/col"
check "zoom: w at the limit says so" screen_has "$TEST_TMP/in2.txt" "zoomed in as far as it goes"
if [ -n "$(window "$TEST_TMP/in.txt")" ] && [ "$(window "$TEST_TMP/in.txt")" = "$(window "$TEST_TMP/in2.txt")" ]; then
	ok "zoom: w at the limit does not pan ($(window "$TEST_TMP/in2.txt"))"
else
	not_ok "zoom: w at the limit does not pan ($(window "$TEST_TMP/in.txt") -> $(window "$TEST_TMP/in2.txt"))"
fi
screen_script 100 30 "$TEST_TMP/all.txt" "" --demo
for keys in "s" "s s s" "T 5 0 m s <Enter> w s s s" "T 1 m s <Enter> s s"; do
	screen_script 100 30 "$TEST_TMP/out.txt" "$keys" --demo
	if [ "$(window "$TEST_TMP/out.txt")" = "$(window "$TEST_TMP/all.txt")" ]; then
		ok "zoom: '$keys' stops at the whole trace ($(window "$TEST_TMP/out.txt"))"
	else
		not_ok "zoom: '$keys' stops at the whole trace"
		diag "whole: $(window "$TEST_TMP/all.txt")" "after: $(window "$TEST_TMP/out.txt")"
	fi
done
screen_script 100 30 "$TEST_TMP/out.txt" "s" --demo
check "zoom: s at the limit says so" screen_has "$TEST_TMP/out.txt" "zoomed out as far as it goes"

# ---- themes by name from the build tree ---------------------------------------------------------

for theme in dark light mono high-contrast; do
	screen_script 80 24 "$TEST_TMP/theme.txt" "" --demo --theme "$theme"
	check "--theme $theme works from the build tree" screen_has "$TEST_TMP/theme.txt" "trex: demo trace"
done
"$TREX" -q --demo --theme solarized --force --dump-screen "$TEST_TMP/theme.txt" </dev/null >/dev/null 2>"$TEST_TMP/theme.err"
check "--theme with an unknown name names the shipped themes" screen_has "$TEST_TMP/theme.err" \
	"no theme file or theme called 'solarized' \(themes: dark, light, mono, high-contrast\)"

# ---- go to time: absolute times, times outside the trace --------------------------------------

screen_script 100 30 "$TEST_TMP/g.txt" "T 9 9 m s <Enter>" --demo
check "goto: a time past the end says so" screen_has "$TEST_TMP/g.txt" "^ 99ms is past the trace \(0 ns \.\. 56\.[0-9]+ ms"
check "goto: ... and shows the end" screen_has "$TEST_TMP/g.txt" "cursor 56\.[0-9]+ ms"
if have_corpus && [ -f "$TRACE" ]; then
	start=$("$TREX" info -q --format=json "$TRACE" | sed -n 's/^{"start_ns": \([0-9]*\),.*/\1/p')
	at=$((start + 2500000000))
	screen_script 120 30 "$TEST_TMP/g.txt" "T $(screen_keys_for "$at") <Enter>" "$TRACE"
	check "goto: an absolute ns time ($at) goes there" screen_has "$TEST_TMP/g.txt" "cursor 2\.50* s "
	check "goto: ... and says it was read as absolute" screen_has "$TEST_TMP/g.txt" "^ absolute $at ns: 2\.5[0-9]* s into the trace"
	screen_script 120 30 "$TEST_TMP/g.txt" "T $(screen_keys_for "absolute $at ns") <Enter>" "$TRACE"
	check "goto: 'absolute N ns', as the details pane prints it" screen_has "$TEST_TMP/g.txt" "cursor 2\.50* s "
	screen_script 120 30 "$TEST_TMP/g.txt" ": $(screen_keys_for "$((start - 1000))") <Enter>" "$TRACE"
	check "goto: ':' with a time before the trace says so" screen_has "$TEST_TMP/g.txt" "^ $((start - 1000)) is before the trace"
	# the details pane's absolute start, typed back, selects the same slice
	screen_script 120 60 "$TEST_TMP/rows.txt" "" "$TRACE"
	down=$(awk 'NR > 2 && index($0, "   thread 2869224") == 1 { print NR - 3; exit }' "$TEST_TMP/rows.txt")
	go="g $(printf 'j %.0s' $(seq 1 "${down:-1}"))"
	screen_script 120 30 "$TEST_TMP/d.txt" "$go . . <Enter>" "$TRACE"
	abs=$(sed -n 's/^ start: .*; absolute \([0-9]*\) ns).*/\1/p' "$TEST_TMP/d.txt" | head -n 1)
	name=$(sed -n 's/^ name: //p' "$TEST_TMP/d.txt" | head -n 1)
	if [ -n "$abs" ]; then
		screen_script 120 30 "$TEST_TMP/d2.txt" "$go T $(screen_keys_for "$abs") <Enter> <Enter>" "$TRACE"
		check "goto: the printed absolute start selects the slice again" screen_has "$TEST_TMP/d2.txt" "absolute $abs ns\)"
		check "goto: ... the same slice" screen_has "$TEST_TMP/d2.txt" "^ name: $name"
	else
		not_ok "goto: the details pane prints an absolute start"
		diag_file "$TEST_TMP/d.txt" 30
	fi
else
	skip "goto: absolute times in a corpus trace" "no corpus at $TREX_CORPUS"
fi

# ---- counters: the value at the cursor, min/max, the samples around it ---------------------

COUNTERS=$TREX_CORPUS/kineto/kineto_tb_gpu_metrics/gpu_metrics_expected.json
counter_checks() {
	cname="GPU 0 Utilization"
	start=$("$TREX" info -q --format=json "$COUNTERS" | sed -n 's/^{"start_ns": \([0-9]*\),.*/\1/p')
	"$PYTHON3" - "$COUNTERS" "$start" "$cname" >"$TEST_TMP/cexpect.sh" <<'EOF' || return 1
import json, sys
from decimal import Decimal

path, start, name = sys.argv[1], int(sys.argv[2]), sys.argv[3]
doc = json.load(open(path), parse_float=Decimal)
events = doc["traceEvents"] if isinstance(doc, dict) else doc
ns = lambda us: int(Decimal(us) * 1000)
samples = [(ns(e["ts"]), list(e["args"].values())[0]) for e in events
           if e.get("ph") == "C" and e.get("name") == name]
values = [float(v) for _, v in samples]
times = sorted(set(t for t, _ in samples))
# 1 us after the 6th distinct sample time (or later), whose sample is alone there
t = next(t for t in times[5:] if sum(1 for s, _ in samples if s == t) == 1)
at = t + 1000
value = [v for s, v in samples if s == t][0]
out = {"AT": at - start, "SAMPLE_REL": t - start, "VALUE": "%.6g" % float(value),
       "MIN": "%.6g" % min(values), "MAX": "%.6g" % max(values), "COUNT": len(samples)}
for key, v in out.items():
    print("%s='%s'" % (key, v))
EOF
	. "$TEST_TMP/cexpect.sh"
	screen_script 120 60 "$TEST_TMP/crows.txt" "" "$COUNTERS"
	cdown=$(awk -v name="$cname" 'NR > 2 && index($0, "   " name) == 1 { print NR - 3; exit }' "$TEST_TMP/crows.txt")
	if [ -z "$cdown" ]; then
		not_ok "counter: the row '$cname' shows"
		diag_file "$TEST_TMP/crows.txt" 40
		return
	fi
	go="g $(printf 'j %.0s' $(seq 1 "$cdown"))T $(screen_keys_for "$AT") <Enter>"
	screen_script 120 40 "$TEST_TMP/c.txt" "$go" "$COUNTERS"
	check "counter: the status line shows its value at the cursor ($VALUE)" \
		screen_has "$TEST_TMP/c.txt" "^ $cname = $VALUE at "
	check "counter: ... and the row's min and max ($MIN, $MAX)" \
		screen_has "$TEST_TMP/c.txt" "\(min $MIN, max $MAX; Enter: samples\)"
	screen_script 120 40 "$TEST_TMP/c.txt" "$go <Enter>" "$COUNTERS"
	check "counter: Enter lists its samples" screen_has "$TEST_TMP/c.txt" "^ Counter samples"
	check "counter: ... all $COUNT of them counted, min and max" \
		screen_has "$TEST_TMP/c.txt" "^ samples: $COUNT, min $MIN, max $MAX$"
	check "counter: ... the one at the cursor marked, at its exact time and value" \
		"$PYTHON3" - "$TEST_TMP/c.txt" "$SAMPLE_REL" "$VALUE" <<'EOF'
import re, sys
from decimal import Decimal

text = open(sys.argv[1], encoding="utf-8").read()
m = re.search(r"^ +([0-9.]+) (ns|us|ms|s): (\S+)  \(at the cursor\)$", text, re.M)
if not m:
    print("no sample marked at the cursor")
    print(text)
    sys.exit(1)
scale = {"ns": 1, "us": 1000, "ms": 1000000, "s": 1000000000}[m.group(2)]
got = Decimal(m.group(1)) * scale
if got != int(sys.argv[2]) or m.group(3) != sys.argv[3]:
    print("marked %s ns = %s, want %s ns = %s" % (got, m.group(3), sys.argv[2], sys.argv[3]))
    sys.exit(1)
EOF
	screen_script 120 40 "$TEST_TMP/c2.txt" "$go <Enter> <Tab> <PgDn> <PgDn>" "$COUNTERS"
	if ! cmp -s "$TEST_TMP/c.txt" "$TEST_TMP/c2.txt" && grep -q 'Counter samples: j/k scroll' "$TEST_TMP/c2.txt"; then
		ok "counter: Tab and PgDn scroll the samples"
	else
		not_ok "counter: Tab and PgDn scroll the samples"
		diag_file "$TEST_TMP/c2.txt" 40
	fi
}
if have_corpus && [ -f "$COUNTERS" ]; then
	counter_checks
else
	skip "counters" "no corpus at $TREX_CORPUS"
fi

done_testing
