#!/bin/sh
# Screen tests of the timeline's rows: noise tracks hidden (H), GPU streams
# first, depth-row labels, navigation that stays on what the filter draws,
# the track finder (J), the track filter (|), pins (p), folds (c) and depth
# limits (< >), on the demo and the 8-rank DLRM corpus set. Expected
# numbers come from Python over the corpus JSON.
. "${TREX_SRCDIR:-.}/tests/e2e/lib.sh"
require_built
. "${TREX_SRCDIR:-.}/tests/screen/lib.sh"

python=${PYTHON3:-python3}
scr=$TEST_TMP/s.txt  # (not $out: screen_dump sets that)

# names FILE: the names column of the body rows (title, axis and the two
# status rows left out), trailing blanks removed.
names() {
	"$python" -c 'import sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")[2:-3]
for l in lines:
    sep = "\u2502" if "\u2502" in l else "|"
    if l.startswith("\u2500"):
        print("----")
    else:
        print(l.split(sep)[0].rstrip())' "$1"
}

# first_names FILE N: the first N names, joined by '/'.
first_names() {
	names "$1" | head -n "$2" | tr '\n' '/'
}

# has FILE PATTERN (grep -E) / lacks FILE PATTERN
has() {
	grep -E -q -- "$2" "$1"
}
lacks() {
	! grep -E -q -- "$2" "$1"
}

# ---- the demo: GPU streams first, noise hidden, depth rows labelled ---------------------

screen_dump 80 24 "$scr" --demo
names "$scr" >"$TEST_TMP/names.txt"
check "demo 80x24: the first screen shows a GPU stream" has "$TEST_TMP/names.txt" '^   stream [0-9]+'
check "demo 80x24: the rank's GPU process comes before its CPU process" \
	sh -c "grep -E '^ . ' '$TEST_TMP/names.txt' | head -n 1 | grep -q 'GPU 0'"
check "demo: no (no pid), Traces or Spans rows" lacks "$TEST_TMP/names.txt" '\(no pid\)|Traces|Spans|PyTorch Profiler'
check "demo: the status line says how many are hidden and which key shows them" \
	has "$scr" '^ [0-9]+ empty or marker-only tracks and groups hidden; H shows them$'
check "demo: depth rows are labelled, not bare numbers" \
	sh -c "grep -q '├ depth 2' '$TEST_TMP/names.txt' && ! grep -E -q '^ +[0-9]+$' '$TEST_TMP/names.txt'"
hidden=$(sed -n 's/^ \([0-9]*\) empty or marker-only.*/\1/p' "$scr")
screen_dump 80 60 "$scr" --demo --script 'H'
check "demo: H shows (no pid), Traces and Spans" \
	sh -c "grep -q '(no pid)' '$scr' && grep -q 'Traces' '$scr' && grep -q 'Spans' '$scr'"
check "demo: H says what it shows" has "$scr" "^ showing $hidden empty or marker-only tracks and groups; H hides them$"
screen_dump 80 60 "$TEST_TMP/h2.txt" --demo --script 'H H <C-l>'
screen_dump 80 60 "$TEST_TMP/h0.txt" --demo --script '<C-l>'
check "demo: H twice hides them again" cmp "$TEST_TMP/h0.txt" "$TEST_TMP/h2.txt"

# ? lists the track keys of the default keymap
screen_dump 100 120 "$scr" --demo --script '?'
for line in 'Timeline: tracks' 'J +Jump to a track or rank' '\| +Show only the tracks matching' 'p +Pin the track' \
	'c +Fold the track' '(<|LessThan) +Show one level less' '> +Show one level more' 'H +Show or hide empty'; do
	check "? lists '$line'" has "$scr" "^ *$line"
done

# ---- the filter constrains navigation (issue 9 item 3) ----------------------------------------

screen_dump 80 24 "$scr" --demo --script '\ g e m m | f l a s h <Enter> g j j .'
check "\\ gemm|flash, g j j .: a gemm or flash kernel is selected" sh -c "tail -n 1 '$scr' | grep -i -E -q 'gemm|flash'"
for keys in '. . .' ', ,' 'j .' 'j j .' 'j j j .' 'j j j j .' 'j j j j j .' 'G , ,' 'G k ,'; do
	screen_dump 80 24 "$scr" --demo --script "\\ g e m m | f l a s h <Enter> g j j $keys"
	sel=$(tail -n 1 "$scr")
	if printf '%s\n' "$sel" | grep -i -E -q 'gemm|flash'; then
		ok "filtered: g j j $keys selects a match ($(printf '%.40s' "$sel"))"
	elif printf '%s\n' "$sel" | grep -E -q '^ no (next |previous )?slices? on this row$'; then
		ok "filtered: g j j $keys selects nothing ($sel)"
	else
		not_ok "filtered: g j j $keys selects only matches (got '$sel')"
	fi
done
# every visible row of a filtered view says whose it is
screen_dump 80 24 "$scr" --demo --script '\ n c c l <Enter>'
names "$scr" | grep -v '^$' >"$TEST_TMP/names.txt"
check "filtered: no row is a bare depth number" lacks "$TEST_TMP/names.txt" '^ +[0-9]+$'
check "filtered: a track whose top level has no match is labelled with its name and depth" \
	has "$TEST_TMP/names.txt" '^   thread 166.* d[0-9]+$'
# clicks: on a row with matches a click selects a match only
screen_dump 100 30 "$scr" --demo --script '\ g e m m <Enter> click:4,40 click:4,60 click:4,80'
check "filtered: a click selects a match, not what the filter hides" sh -c "tail -n 1 '$scr' | grep -i -q gemm"
# F to a launch the filter hides: said, not followed
screen_dump 120 24 "$scr" --demo --script '\ g e m m <Enter> / g e m m <Enter> F'
check "filtered: F to a filtered-out launch says so" has "$scr" '^ cudaLaunchKernel is filtered out \(Esc clears the filter\)$'
check "filtered: ... and keeps the filter" has "$scr" 'FILTER: gemm'
# n/N: only matches that are drawn
screen_dump 80 24 "$scr" --demo --script 'J t h r e a d <Space> 1 6 6 3 4 3 2 <Enter> c / a t e n : : i t e m <Enter>'
check "n/N skip matches in a folded track, and say so" has "$scr" 'no match for /aten::item on the rows shown \([0-9]+ hidden\)'
screen_dump 80 24 "$scr" --demo --script 'J t h r e a d <Space> 1 6 6 3 4 3 2 <Enter> c c / a t e n : : i t e m <Enter>'
check "... unfolded, they are found" sh -c "tail -n 1 '$scr' | grep -q '^ aten::item'"

# ---- find, filter, pin, fold, depth on the demo -------------------------------------------------

# (c folds the cursor's track and names it: where the cursor is)
screen_dump 80 24 "$scr" --demo --script 'J t h r e a d <Space> 1 6 6 9 <Enter> c'
check "J: the cursor on the track found" has "$scr" '^ thread 1669020 \(pt_autograd_0\) folded into one row \(c unfolds\)$'
screen_dump 80 24 "$scr" --demo --script 'J n o p e x y z <Enter>'
check "J: no match says so" has "$scr" '^ no track or rank matches nopexyz$'
screen_dump 80 24 "$scr" --demo --script 'J s t r e a m ( <Enter>'
check "J: a bad pattern gives PCRE2's error" has "$scr" 'missing closing parenthesis at offset 7'
screen_dump 80 24 "$scr" --demo --script 'J s t r e a m <Enter> J <Enter> c'
check "J Enter: the next match of the last pattern" has "$scr" '^ stream 24 folded into one row'
screen_dump 80 24 "$scr" --demo --script 'J s t r e a m <Enter> J <Enter> J <Enter> c'
check "... and around to the first" has "$scr" '^ stream 7 folded into one row'

screen_dump 80 24 "$scr" --demo --script '| s t r e a m <Enter>'
names "$scr" | grep -v '^$' >"$TEST_TMP/names.txt"
check "|: only the tracks matching (and their groups)" \
	sh -c "! grep -E -v '^(▾ rank|  ▾ 0 GPU 0| ▾ 0 GPU 0|   stream|   [├└] depth)' '$TEST_TMP/names.txt' | grep -q ."
check "|: the status line shows the track filter" has "$scr" 'TRACKS: stream'
check "|: ... and how many tracks match" has "$scr" '^ track filter: 3 of [0-9]+ tracks match$'
screen_dump 80 24 "$scr" --demo --script '| s t r e a m <Enter> <Esc>'
check "Esc clears the track filter" sh -c "grep -q '^ track filter cleared' '$scr' && grep -q 'thread 1663432' '$scr'"

screen_dump 80 16 "$scr" --demo --script 'J t h r e a d <Space> 1 6 6 9 <Enter> p G'
names "$scr" >"$TEST_TMP/names.txt"
check "p: the pinned track is at the top after G" sh -c "head -n 1 '$TEST_TMP/names.txt' | grep -q '^   thread 1669020'"
check "p: a line under the pinned rows" grep -q '^----$' "$TEST_TMP/names.txt"
check "p: ... while the rest scrolled to the end" sh -c "sed -n '/^----$/,\$p' '$TEST_TMP/names.txt' | grep -q 'thread 1663432\\|depth 6'"
screen_dump 80 16 "$scr" --demo --script 'J t h r e a d <Space> 1 6 6 9 <Enter> p'
check "p: says how to unpin" has "$scr" '^ pinned thread 1669020 \(pt_autograd_0\) above the other tracks \(p unpins\)$'
screen_dump 80 16 "$scr" --demo --script 'J t h r e a d <Space> 1 6 6 9 <Enter> p p'
names "$scr" >"$TEST_TMP/names.txt"
check "p p: unpinned, no line" sh -c "! grep -q '^----$' '$TEST_TMP/names.txt' && grep -q '^ unpinned thread 1669020' '$scr'"

screen_dump 80 24 "$scr" --demo --script 'J t h r e a d <Space> 1 6 6 3 <Enter> c'
names "$scr" >"$TEST_TMP/names.txt"
check "c: the thread is one row, marked folded with its hidden levels" \
	sh -c "grep -A1 '▸ thread 16.*+5' '$TEST_TMP/names.txt' | tail -n 1 | grep -q '^   thread 1669020'"
screen_dump 80 24 "$scr" --demo --script 'J t h r e a d <Space> 1 6 6 3 <Enter> c c'
check "c c: unfolded again" has "$scr" '^ thread 1663432 \(pt_main_thread\) unfolded$'
screen_dump 80 24 "$scr" --demo --script 'J t h r e a d <Space> 1 6 6 3 <Enter> < <'
names "$scr" >"$TEST_TMP/names.txt"
check "< <: four levels, the last says two are hidden" \
	sh -c "grep -A4 '^   thread 1663432' '$TEST_TMP/names.txt' | tail -n 2 | tr '\n' '/' | grep -q '└ depth 4 +2/   thread 1669020'"
check "< <: the message counts levels" has "$scr" ': 4 of 6 levels shown \(< fewer, > more\)$'
screen_dump 80 24 "$scr" --demo --script 'J t h r e a d <Space> 1 6 6 3 <Enter> < < >'
check "< < >: five levels" has "$scr" ': 5 of 6 levels shown'
screen_dump 80 24 "$scr" --demo --script 'J t h r e a d <Space> 1 6 6 3 <Enter> >'
check ">: at all levels says so" has "$scr" 'shows all its levels already'

# ---- every hand-written trace takes the track keys --------------------------------------------

data_takes_keys 40 12 "takes the track keys at 40x12" \
	'H j c j p G < < > H g p c J . <Enter> J <Enter> | t <Enter> j p k c \ . <Enter> j . , n | <Enter> < > t t H'

# ---- the 8-rank DLRM set ----------------------------------------------------------------------------

if have_corpus && [ -d "$TREX_CORPUS/kineto/param_dlrm_8rank" ]; then
	dlrm=$(ls "$TREX_CORPUS"/kineto/param_dlrm_8rank/*.json.gz)
	# the noise rule over the JSON: tracks (pid, tid) with no slice but Trace
	# ones and no instant but global ones, processes with only such tracks
	want=$("$python" - $dlrm <<'EOF'
import gzip, json, sys
tracks = groups = streams = 0
cpu_pids = []
for path in sys.argv[1:]:
    ev = json.load(gzip.open(path))["traceEvents"]
    cpu_pids.append(next(str(e["pid"]) for e in ev if e.get("cat") == "cpu_op"))
    procs, tr = set(), {}
    for e in ev:
        pid, tid, ph = str(e.get("pid", "")), str(e.get("tid", "")), e.get("ph")
        procs.add(pid)
        if ph == "M" and e.get("name", "").startswith("process"):
            continue
        info = tr.setdefault((pid, tid), {"real": False, "gpu": False})
        if ph == "X" and e.get("cat") != "Trace":
            info["real"] = True
        if ph in ("i", "I") and e.get("s", "t") != "g":
            info["real"] = True
        if ph == "X" and e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset"):
            info["gpu"] = True
    tracks += sum(1 for t in tr.values() if not t["real"])
    streams += sum(1 for t in tr.values() if t["gpu"])
    for p in procs:
        if not any(t["real"] for (pp, _), t in tr.items() if pp == p):
            groups += 1
print(tracks + groups, streams, cpu_pids[2])
EOF
)
	set -- $want
	noise=$1 streams=$2 pid2=$3
	screen_dump 100 400 "$scr" $dlrm
	names "$scr" | grep -v '^$' >"$TEST_TMP/names.txt"
	check "DLRM: the status line counts $noise hidden tracks and groups (Python)" \
		has "$scr" "^ $noise empty or marker-only tracks and groups hidden; H shows them$"
	"$python" - "$TEST_TMP/names.txt" >"$TEST_TMP/empty.txt" <<'EOF'
import sys
rows = open(sys.argv[1], encoding="utf-8").read().split("\n")
for i, r in enumerate(rows):
    if r.startswith(" \u25be "):
        nxt = rows[i + 1] if i + 1 < len(rows) else ""
        if not nxt.startswith("   "):
            print(r)
EOF
	check "DLRM: no empty group rows by default" test ! -s "$TEST_TMP/empty.txt"
	check "DLRM: no (no pid), Traces or Spans rows" lacks "$TEST_TMP/names.txt" '\(no pid\)|Traces|Spans'
	check "DLRM: each rank starts with its GPU streams" \
		sh -c "grep -A2 '^▾ rank' '$TEST_TMP/names.txt' | grep -c '^   stream 7' | grep -q '^8$'"
	n0=$(wc -l <"$TEST_TMP/names.txt")
	screen_dump 100 400 "$scr" --script 'H' $dlrm
	n1=$(names "$scr" | grep -c -v '^$')
	check "DLRM: H shows exactly $noise more rows ($n0 -> $n1)" test "$((n1 - n0))" -eq "$noise"
	check "DLRM: ... among them the empty GPU groups" has "$scr" '^ ▾ 1 GPU 1 +│'
	# the track finder and the track filter across ranks
	screen_dump 100 40 "$scr" --script 'J r a n k <Space> 3 <Enter>' $dlrm
	case $(first_names "$scr" 1) in '▾ rank 3 '*) ok "DLRM: J rank 3 stops at rank 3's row" ;; *) not_ok "DLRM: J rank 3 stops at rank 3's row"; diag_file "$scr" 40 ;; esac
	screen_dump 100 40 "$scr" --script 'J s t r e a m <Space> 8 4 <Enter> J <Enter> J <Enter>' $dlrm
	# the row after rank 2's stream 84 is its CPU process (Python's pid)
	case $(first_names "$scr" 2) in "   stream 84/ ▾ $pid2 python3/") ok "DLRM: J stream 84, Enter twice: rank 2's stream 84" ;; *) not_ok "DLRM: J stream 84, Enter twice: rank 2's stream 84"; diag_file "$scr" 40 ;; esac
	screen_dump 100 400 "$scr" --script '| s t r e a m <Enter>' $dlrm
	got=$(names "$scr" | grep -c '^   stream ')
	check "DLRM: | stream shows the $streams GPU streams of Python's count ($got)" test "$got" -eq "$streams"
	check "DLRM: ... and no thread" lacks "$scr" '^   thread '
	check "DLRM: ... and says so" has "$scr" "^ track filter: $streams of [0-9]+ tracks match$"
	# pins stay while the rest scrolls: pin rank 0's stream 84, go to the end
	screen_dump 100 30 "$scr" --script 'J s t r e a m <Space> 8 4 <Enter> p G' $dlrm
	names "$scr" >"$TEST_TMP/names.txt"
	check "DLRM: the pinned stream stays on top with its rank" sh -c "head -n 2 '$TEST_TMP/names.txt' | tr '\n' '/' | grep -q '^   r0 stream 84/----/'"
	check "DLRM: ... while the end of rank 7 shows below" grep -q 'depth' "$TEST_TMP/names.txt"
	# interactively: J moves as you type, Esc goes back to where it was
	screen_start 80 24 -- $dlrm
	screen_wait ' .. ' >/dev/null
	screen_settle
	screen_keys J
	screen_keys -l 'rank 5'
	screen_settle
	check_screen "tmux: J rank 5 (still typing): rank 5 at the top" \
		sh -c "tmux -L $SCREEN_SOCK capture-pane -t t -p | sed -n 3p | grep -q '^▾ rank 5 '"
	check_screen "tmux: ... the prompt shows it" \
		sh -c "tmux -L $SCREEN_SOCK capture-pane -t t -p | tail -n 1 | grep -q '^track: rank 5'"
	screen_keys Escape
	screen_settle
	check_screen "tmux: Esc: the view is back at the top" \
		sh -c "tmux -L $SCREEN_SOCK capture-pane -t t -p | sed -n 3p | grep -q '^▾ rank 0 '"
	screen_keys c
	check_screen "tmux: ... and the cursor on rank 0's first stream" screen_wait ' stream 7 has no nested levels to fold'
	screen_keys q
	check_screen "tmux: q quits" screen_wait 'EXIT=0'
else
	skip "the DLRM set" "no corpus"
fi

done_testing
