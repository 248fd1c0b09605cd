#!/bin/sh
# Screen tests of damage in the interface (issue 9 item 5): a truncated or
# repaired trace says on its first screen what was lost, in the CLI's
# words and with the real key of the integrity view (from the keymap in
# use); a clean trace says nothing. The integrity view lists every counter
# of `trex info` (zero ones dimmed), Enter lists a counter's examples, and
# Enter on an example shows its slice (or its track at its time) in the
# timeline, or says where in the file the damage is. The numbers are
# hand-checked (tests/data/damaged.json.expect, tests/data/flows.json) or
# counted by Python in the file written here.
. "${TREX_SRCDIR:-.}/tests/e2e/lib.sh"
require_built
. "${TREX_SRCDIR:-.}/tests/screen/lib.sh"

SCREEN=$TEST_TMP/screen.txt
DAMAGED=$TREX_SRCDIR/tests/data/damaged.json
FLOWS=$TREX_SRCDIR/tests/data/flows.json

# dump W H KEYS ARGS...: the screen after KEYS into $SCREEN, headless.
dump() {
	w=$1 h=$2 keys=$3
	shift 3
	rm -f "$SCREEN"
	screen_dump "$w" "$h" "$SCREEN" --script="$keys" "$@"
	[ -f "$SCREEN" ] || echo "(no screen: trex $* failed)" >"$SCREEN"
}
# shows TEXT / shows_re REGEX: the screen holds it, else the screen.
shows() { grep -F -q -- "$1" "$SCREEN" || { sed 's/^/|/' "$SCREEN"; false; }; }
shows_re() { grep -E -q -- "$1" "$SCREEN" || { sed 's/^/|/' "$SCREEN"; false; }; }
last_is() {
	[ "$(sed -n '$p' "$SCREEN")" = "$1" ] || { sed 's/^/|/' "$SCREEN"; false; }
}

# ---- a truncated trace: a kernel whose args hold 2.4 MB, cut in their middle -----------------
"$PYTHON3" - "$TEST_TMP/cut.json" >"$TEST_TMP/cut.want" <<'EOF'
import sys
head = b'{"traceEvents":[\n{"ph":"X","cat":"kernel","name":"k1","pid":0,"tid":7,"ts":10,"dur":5},\n'
big = b'{"ph":"X","cat":"kernel","name":"big","pid":0,"tid":7,"ts":20,"dur":5,"args":{"blob":"'
data = head + big + b"a" * 2400000 + b'"}}]}'
cut = len(head) + len(big) + 1200000
open(sys.argv[1], "wb").write(data[:cut])
n = cut - len(head)  # ignored: from the cut event's '{' to the end
print("%.1f MB" % (n / 1e6))
EOF
size=$(cat "$TEST_TMP/cut.want")
dump 80 24 '' "$TEST_TMP/cut.json"
check "truncated: the first screen says $size ignored after truncation, and the key" \
	last_is " $size ignored after truncation; !: integrity"
dump 80 24 'j' "$TEST_TMP/cut.json"
check "truncated: the notice goes with the first key" sh -c "! grep -q 'ignored after' '$SCREEN'"
printf 'bind generic ! none\nbind generic <F7> open-integrity\n' >"$TEST_TMP/f7.keys"
dump 80 24 '' --keys "$TEST_TMP/f7.keys" "$TEST_TMP/cut.json"
check "truncated, integrity on F7 in the keymap: the notice names F7" \
	last_is " $size ignored after truncation; F7: integrity"
dump 80 24 'F7' --keys "$TEST_TMP/f7.keys" "$TEST_TMP/cut.json"
check "... and F7 opens the view" shows "trex: integrity:"
printf 'bind generic ! none\n' >"$TEST_TMP/none.keys"
dump 80 24 '' --keys "$TEST_TMP/none.keys" "$TEST_TMP/cut.json"
check "truncated, integrity unbound: the notice names the command" \
	last_is " $size ignored after truncation; \`trex integrity\` lists it"

# ---- a clean trace ---------------------------------------------------------------------
dump 80 24 '' "$TREX_SRCDIR/tests/data/kernels.json"
# (the path in the title may say anything: the status lines are looked at)
quiet() { ! tail -2 "$SCREEN" | grep -q -e ': integrity' -e 'ignored after' -e 'damaged' -e 'written'; }
check "a clean trace: no notice" quiet
dump 80 24 '' --demo
check "the demo: no notice" quiet

# ---- damaged.json: the notice, cut to whole phrases on narrow screens -------------------
loss='lost about 1 event and 95 bytes at 6 damaged spots; 2 values not taken as written'
dump 120 24 '' "$DAMAGED"
check "damaged.json at 120 columns: the whole loss, as the CLI's warning says it" \
	last_is " $loss; !: integrity"
dump 80 24 '' "$DAMAGED"
check "damaged.json at 80 columns: whole phrases that fit, then the key" \
	last_is " lost about 1 event and 95 bytes at 6 damaged spots; ...; !: integrity"
dump 40 12 '' "$DAMAGED"
check "damaged.json at 40 columns: still the key" last_is " damaged input; !: integrity"

# several files: the damaged one named by its run, or how many are damaged
dump 160 24 '' "$DAMAGED" "$TREX_SRCDIR/tests/data/kernels.json"
check "one of two files damaged: the notice names its run" last_is " rank 5: $loss; !: integrity"
dump 160 24 '' "$DAMAGED" "$TEST_TMP/cut.json"
check "two of two damaged: their losses together (the cut's lost event not at a spot)" \
	last_is " 2 of 2 files: lost about 1 event and 95 bytes at 6 damaged spots; $size ignored after truncation; 2 values not taken as written; !: integrity"
# ---- the view ------------------------------------------------------------------------------
dump 120 40 '!' "$DAMAGED"
check "! opens the integrity view" shows "trex: integrity: 5 damage checks and 1 note non-zero (zero ones dimmed)"
"$TREX" info "$DAMAGED" 2>/dev/null | sed -n '/^Integrity$/,/^$/p' | awk 'NR > 3 && NF { print $1 }' >"$TEST_TMP/checks"
n=$(wc -l <"$TEST_TMP/checks")
missing=
while read -r c; do
	grep -q "^ $c  " "$SCREEN" || missing="$missing $c"
done <"$TEST_TMP/checks"
check "the view lists all $n counters of trex info" test "$n" -eq 24 -a -z "$missing"
check "damage first: bad_ts, bad_dur, syntax_errors, bytes_skipped, events_lost, then the note" \
	sh -c "sed -n '3,8p' '$SCREEN' | awk '{ print \$1 }' | tr '\n' ' ' |
		grep -qx 'bad_ts bad_dur syntax_errors bytes_skipped events_lost zero_duration '"
check "the byte counter has its size" shows_re '^ bytes_skipped +95 +95 bytes +damage'
check "one run: its label is not repeated on every row" sh -c "! grep -q 'rank 5  bad_ts' '$SCREEN'"
dump 120 40 '! G Enter' "$DAMAGED"
check "Enter on a zero counter: nothing counted" last_is " nothing counted: bytes ignored after truncation"

# ---- examples ---------------------------------------------------------------------------------
dump 120 24 '! j j Enter' "$DAMAGED"
check "Enter on syntax_errors lists its 6 examples" shows "syntax_errors in rank 5: 6 examples of 6"
check "... the first at 3:1, byte 88" shows_re '^ +1  damaged\.json:3:1 \(byte 88\) +1 +0 '
check "... the largest at 5:1, 72 bytes, 1 event lost" shows_re '^ +3  damaged\.json:5:1 \(byte 231\) +72 +1 '
dump 120 24 '! j j Enter j j Enter' "$DAMAGED"
check "Enter on a damaged spot: no event to show, where it is" \
	last_is " no event to show: damage at byte 231 (line 5:1): expected ',' or ']' between events"
dump 120 24 '! Enter Enter' "$DAMAGED"
check "Enter on bad_ts's example (a dropped event): where it is" \
	last_is " no event to show: damage at byte 434 (line 7:59): ts is a string"
dump 200 24 '! j Enter' "$DAMAGED"
check "Enter on bad_dur lists its example: k6 on stream 7 at 50 us, 8:68" \
	shows_re '^ +1  damaged\.json:8:68 \(byte 517\) +- +- +GPU 1 / stream 7 +50 +us +[0-9]+  k6 +dur is a string'
dump 120 24 '! j Enter Enter' "$DAMAGED"
check "Enter on it: the timeline, k6 selected (50 us from the start, kept with duration 0)" \
	last_is " k6  start 50.0 us  dur 0 ns"
dump 120 24 '! j Enter Enter !' "$DAMAGED"
check "! from there goes back to the examples, as they were left" \
	shows "bad_dur in rank 5: 1 example of 1"

# an example on a track with no slice: the flow end of flows.json with no start (id 3,
# stream 7 at 41 us, which kernel C [40, 45) covers)
dump 200 24 '! j Enter' "$FLOWS"
check "flows.json: orphan_flow_end's example on GPU 0 / stream 7 at 41 us" \
	shows_re '^ +1 +- +- +GPU 0 / stream 7 +41 +us +-1  ac2g +flow step or end \(id 3\) without a start'
dump 100 24 '! j Enter Enter' "$FLOWS"
check "Enter on it: the timeline's cursor at 41 us on its track, C under it" \
	sh -c "grep -q 'cursor 41.0 us' '$SCREEN' && tail -1 '$SCREEN' | grep -q '^ C  start 40.0 us  dur 5 us'" 

# ---- help and a real terminal ------------------------------------------------------------------
dump 120 60 '?' "$DAMAGED"
check "? in the timeline lists ! for the integrity view" \
	shows_re '^ +! +Show the integrity counters: what was lost or repaired'
dump 120 60 '! ?' "$DAMAGED"
check "? in the integrity view lists Enter" shows_re 'Enter.*Open the selected item'

screen_start 100 30 -- --theme mono "$TEST_TMP/cut.json"
check_screen "tmux: the truncated trace's notice on the terminal" \
	screen_wait "$size ignored after truncation; !: integrity"
screen_keys '!'
check_screen "tmux: ! shows the integrity view" screen_wait "bytes_ignored"
tm capture-pane -t t -p -e >"$TEST_TMP/colours.txt"
check "tmux, mono theme: the zero counters are dim, the damage bold" "$PYTHON3" -c '
import re, sys
seen = {}
for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
    words = re.sub(r"\x1b\[[0-9;]*m", "", line).split()
    if words and words[0] in ("overlaps", "bytes_ignored"):
        # the attributes of the SGR sequence just before the check name
        sgr = re.findall(r"\x1b\[([0-9;]*)m", line[:line.find(words[0])])
        seen[words[0]] = set(sgr[-1].split(";")) if sgr else set()
assert "2" in seen["overlaps"] and "1" not in seen["overlaps"], seen
assert "1" in seen["bytes_ignored"] and "2" not in seen["bytes_ignored"], seen
' "$TEST_TMP/colours.txt"
screen_keys Q
check_screen "tmux: Q quits" screen_wait "EXIT=0"

done_testing
