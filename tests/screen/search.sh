#!/bin/sh
# Screen tests of the timeline's search (/, n, N), filter (\), Esc, counters
# and the mouse: the real trex in tmux on the demo trace and corpus traces.
# Expected counts come from `trex kernels --format csv` or Python over the JSON.
. "${TREX_SRCDIR:-.}/tests/e2e/lib.sh"
require_built
. "${TREX_SRCDIR:-.}/tests/screen/lib.sh"

python=${PYTHON3:-python3}

# The last two rows (the status line; the prompt covers the last one).
status1() {
	screen_text | tail -n 2 | head -n 1
}
status2() {
	screen_text | tail -n 1
}

# The cursor time in ns, from "cursor 12.3 ms": n/N put it on the match's start.
start_ns() {
	status1 | sed -n 's/.*cursor \([0-9.]*\) \([a-z]*\) .*/\1 \2/p' |
		awk '{ m = $2 == "s" ? 1e9 : $2 == "ms" ? 1e6 : $2 == "us" ? 1e3 : 1; printf "%.0f\n", $1 * m }'
}

# The match rank in "/PAT i/n".
rank() {
	status1 | sed -n 's|.*/[^ ]* \([0-9]*\)/[0-9]*.*|\1|p'
}

type_text() {
	screen_keys -l "$1"
	screen_settle
}

# Matching slices of the demo: GPU kernels are its only names with "gemm".
demo_gemm=$("$TREX" kernels -q --demo --format csv |
	"$python" -c 'import csv, re, sys
print(sum(int(r["instances"]) for r in csv.DictReader(sys.stdin) if re.search("gemm", r["name"], re.I)))')

# search_checks W H: one session through search, n/N, filter and Esc on the demo.
search_checks() {
	w=$1 h=$2
	what="$w""x$h demo"
	screen_start "$w" "$h" -- --demo
	screen_wait ' .. ' >/dev/null
	screen_settle
	if tm capture-pane -t t -p -e | grep -q '48;5;221'; then
		not_ok "$what: no match colour before a search"
	else
		ok "$what: no match colour before a search"
	fi
	screen_keys /
	type_text gemm
	check_screen "$what: /gemm counts $demo_gemm matches while typing" \
		sh -c "tmux -L $SCREEN_SOCK capture-pane -t t -p | grep -q ' $demo_gemm matches'"
	check_screen "$what: the prompt shows /gemm" \
		sh -c "tmux -L $SCREEN_SOCK capture-pane -t t -p | tail -n 1 | grep -q '^/gemm'"
	screen_keys Enter
	screen_settle
	check_screen "$what: Enter selects a match (its name in the status bar)" \
		sh -c "tmux -L $SCREEN_SOCK capture-pane -t t -p | tail -n 1 | grep -qi '^ [^ ]*gemm'"
	check_screen "$what: the status line shows /gemm i/$demo_gemm" \
		sh -c "tmux -L $SCREEN_SOCK capture-pane -t t -p | tail -n 2 | head -n 1 | grep -q '/gemm [0-9]*/$demo_gemm'"
	check_screen "$what: matches are drawn in the match colour" \
		sh -c "tmux -L $SCREEN_SOCK capture-pane -t t -p -e | grep -q '48;5;221'"
	r0=$(rank) s0=$(start_ns)
	screen_keys n
	screen_settle
	r1=$(rank) s1=$(start_ns)
	screen_keys n
	screen_settle
	r2=$(rank) s2=$(start_ns)
	if [ -n "$r0" ] && [ "$r1" = $((r0 + 1)) ] && [ "$r2" = $((r0 + 2)) ] &&
		[ -n "$s0" ] && [ "$s0" -le "$s1" ] && [ "$s1" -le "$s2" ]; then
		ok "$what: n steps forward in time order ($r0 $r1 $r2 at $s0 $s1 $s2 ns)"
	else
		not_ok "$what: n steps forward in time order ('$r0' '$r1' '$r2' at '$s0' '$s1' '$s2')"
	fi
	screen_keys N
	screen_settle
	r3=$(rank) s3=$(start_ns)
	if [ "$r3" = "$r1" ] && [ "$s3" = "$s1" ]; then ok "$what: N steps back"; else not_ok "$what: N steps back ('$r3' at '$s3', want '$r1' at '$s1')"; fi
	# wrap around at the end: G is not needed, N from the first match wraps
	for _ in $(seq "$r3"); do screen_keys N; done
	screen_settle
	check_screen "$what: N past the first match wraps" \
		sh -c "tmux -L $SCREEN_SOCK capture-pane -t t -p | grep -q 'search wrapped'"
	check_screen "$what: ... to the last match" \
		sh -c "tmux -L $SCREEN_SOCK capture-pane -t t -p | grep -q '/gemm $demo_gemm/$demo_gemm'"
	# Esc: selection, then search, one per press
	screen_keys Escape
	check_screen "$what: Esc clears the selection" screen_wait 'selection cleared'
	screen_keys Escape
	check_screen "$what: Esc again clears the search" screen_wait 'search cleared'
	screen_settle
	if tm capture-pane -t t -p -e | grep -q '48;5;221'; then
		not_ok "$what: no match colour after Esc"
	else
		ok "$what: no match colour after Esc"
	fi
	# the filter: only NCCL slices; the CPU threads have none and go
	check_screen "$what: CPU thread rows before the filter" \
		sh -c "tmux -L $SCREEN_SOCK capture-pane -t t -p | grep -q '^   thread '"
	screen_keys '\'
	type_text nccl
	screen_keys Enter
	screen_settle
	check_screen "$what: the filter badge" sh -c "tmux -L $SCREEN_SOCK capture-pane -t t -p | grep -q 'FILTER: nccl'"
	check_screen "$what: threads without a match are hidden" \
		sh -c "! tmux -L $SCREEN_SOCK capture-pane -t t -p | grep -q 'thread 1663432'"
	check_screen "$what: the thread with NCCL ops keeps its label (its first shown level is deeper)" \
		sh -c "tmux -L $SCREEN_SOCK capture-pane -t t -p | grep -q '^   thread 166'"
	check_screen "$what: non-matching slices are hidden" \
		sh -c "! tmux -L $SCREEN_SOCK capture-pane -t t -p | grep -q 'ProfilerStep'"
	check_screen "$what: a stream with NCCL kernels stays" \
		sh -c "tmux -L $SCREEN_SOCK capture-pane -t t -p | grep -q '^   stream '"
	screen_keys Escape
	check_screen "$what: Esc clears the filter" screen_wait 'filter cleared'
	check_screen "$what: the threads are back" screen_wait 'thread '
	screen_keys Escape
	check_screen "$what: then nothing is left to clear" screen_wait 'nothing to clear'
	# a bad pattern: the error, no crash, the old search survives
	screen_keys /
	type_text 'gemm('
	check_screen "$what: a bad regex shows PCRE2's error" \
		sh -c "tmux -L $SCREEN_SOCK capture-pane -t t -p | grep -q 'missing closing parenthesis at offset 5'"
	screen_keys Enter
	screen_settle
	check_screen "$what: ... also after Enter" \
		sh -c "tmux -L $SCREEN_SOCK capture-pane -t t -p | grep -q 'missing closing parenthesis'"
	screen_keys n
	check_screen "$what: n without a search says so" screen_wait 'no search'
	screen_keys q
	check_screen "$what: trex still quits cleanly" screen_wait 'EXIT=0'
}

search_checks 80 24
search_checks 160 48

# 40x12: the prompt and the count still fit.
screen_start 40 12 -- --demo
screen_wait ' .. ' >/dev/null
screen_settle
screen_keys /
type_text gemm
check_screen "40x12: the count while typing" screen_wait " $demo_gemm matches"
screen_keys Enter
screen_settle
check_screen "40x12: Enter selects a gemm kernel" \
	sh -c "tmux -L $SCREEN_SOCK capture-pane -t t -p | tail -n 1 | grep -qi 'gemm'"
screen_keys n q
check_screen "40x12: quits cleanly" screen_wait 'EXIT=0'

# Smart case: an upper-case letter makes the search exact ("GEMM" is not in the demo).
screen_start 80 24 -- --demo
screen_wait ' .. ' >/dev/null
screen_keys /
type_text GEMM
check_screen "smart case: /GEMM is exact: 0 matches" screen_wait ' 0 matches'
screen_keys Escape q
screen_wait 'EXIT=0' >/dev/null

# Showing a kernel from the kernels view (2, Enter, Enter) while the filter
# hides it: the filter is dropped and the message says so; a filter that
# matches the kernel stays.
dump=$TEST_TMP/show.txt
screen_dump 120 30 "$dump" --demo --script '2 <Enter>'
kname=$(sed -n 's/^ trex: [0-9]* instances of \(.*\) - demo trace.*/\1/p' "$dump")
screen_dump 120 30 "$dump" --demo --script '\ P r o f i l e r <Enter> 2 <Enter> <Enter>'
if [ -n "$kname" ] && grep -q "^ filter cleared to show $kname" "$dump" && ! grep -q 'FILTER:' "$dump"; then ok "kernels view -> a kernel the filter hides: filter cleared to show $kname"; else not_ok "kernels view -> a kernel the filter hides: filter cleared to show '$kname'"; diag_file "$dump" 30; fi
screen_dump 120 30 "$dump" --demo --script '\ P r o f i l e r <Enter> 2 <Enter> <Enter> <Enter>'
if grep -q "name: $(printf '%.40s' "$kname")" "$dump" && grep -q 'category: kernel' "$dump"; then ok "... and the kernel is selected on its row"; else not_ok "... and the kernel is selected on its row"; diag_file "$dump" 30; fi
screen_dump 120 30 "$dump" --demo --script '\ g e m m <Enter> 2 <Enter> <Enter>'
if grep -q 'FILTER: gemm' "$dump" && ! grep -q 'filter cleared' "$dump"; then ok "a filter that matches the kernel stays"; else not_ok "a filter that matches the kernel stays"; diag_file "$dump" 30; fi

# The mouse (scripted clicks): a click on a lane (row 4: the top lane of
# the first GPU stream, its ProfilerStep annotations) selects the slice
# under it.
dump=$TEST_TMP/click.txt
screen_dump 100 30 "$dump" --demo --script 'click:4,60'
if grep -q '  start .*  dur ' "$dump"; then ok "mouse: a click on a lane selects a slice"; else not_ok "mouse: a click on a lane selects a slice"; diag_file "$dump" 30; fi
screen_dump 100 30 "$dump" --demo --script 'wheel-up:6,60'
if grep -q '^ [0-9.]* [a-z]* \.\. .*(28' "$dump"; then ok "mouse: the wheel over the time area zooms in 2x"; else not_ok "mouse: the wheel over the time area zooms in 2x"; diag_file "$dump" 30; fi
screen_dump 100 30 "$dump" --demo --script 'wheel-up:6,60 wheel-down:6,60'
if grep -q '^ [0-9.]* [a-z]* \.\. .*(56' "$dump"; then ok "mouse: ... and back out"; else not_ok "mouse: ... and back out"; diag_file "$dump" 30; fi
screen_dump 100 30 "$dump" --demo --script 'S-wheel-up:6,60 S-wheel-up:6,60 wheel-up:6,60 S-wheel-down:6,60'
if grep -q '^ [0-9.]* [a-z]* \.\. .*(28' "$dump"; then ok "mouse: Shift+wheel pans, not zooms"; else not_ok "mouse: Shift+wheel pans, not zooms"; diag_file "$dump" 30; fi
# over the track names (or with Ctrl) the wheel scrolls the tracks by 3:
# body row k shows what row k + 3 showed (at 16 rows: 12 body rows, the
# demo has more than 15 rows)
screen_dump 100 16 "$TEST_TMP/before.txt" --demo
sed -n '6,14p' "$TEST_TMP/before.txt" | cut -c1-22 >"$TEST_TMP/want.txt"
for ev in wheel-down:6,5 C-wheel-down:6,60; do
	screen_dump 100 16 "$dump" --demo --script "$ev"
	sed -n '3,11p' "$dump" | cut -c1-22 >"$TEST_TMP/got.txt"
	if diff "$TEST_TMP/want.txt" "$TEST_TMP/got.txt" >"$TEST_TMP/diff.txt"; then ok "mouse: $ev scrolls 3 tracks"; else not_ok "mouse: $ev scrolls 3 tracks"; diag_file "$TEST_TMP/diff.txt" 20; fi
done

# Instants as ticks on their thread's top lane, counters as sparklines
# scaled to the series: 1 then 8 -> the lowest, then the full block.
cat >"$TEST_TMP/inst.json" <<'EOF'
{"traceEvents":[
{"ph":"X","name":"work","pid":1,"tid":1,"ts":0,"dur":100},
{"ph":"X","name":"work2","pid":1,"tid":1,"ts":900,"dur":100},
{"ph":"i","name":"mark","pid":1,"tid":1,"ts":500,"s":"t"},
{"ph":"C","name":"mem","pid":1,"ts":0,"args":{"v":1}},
{"ph":"C","name":"mem","pid":1,"ts":500,"args":{"v":8}}
]}
EOF
screen_dump 80 14 "$dump" "$TEST_TMP/inst.json"
if grep -q '^   thread 1 *│work .*│.*work2' "$dump"; then ok "an instant is a tick between two slices"; else not_ok "an instant is a tick between two slices"; diag_file "$dump" 14; fi
if grep -q '^   mem *│▁▁*██*$' "$dump"; then ok "a counter is a sparkline from ▁ to █"; else not_ok "a counter is a sparkline from ▁ to █"; diag_file "$dump" 14; fi
screen_dump 80 14 "$dump" --ascii "$TEST_TMP/inst.json"
if grep -q '^   thread 1 *|work .*|.*work2' "$dump" && grep -q '^   mem *|__*##*$' "$dump"; then ok "ASCII: the tick is |, the sparkline _ to #"; else not_ok "ASCII: the tick is |, the sparkline _ to #"; diag_file "$dump" 14; fi

# Counter peaks are exact: 20,000 samples (about 300 per cell) of 1 with
# three one-sample spikes of 9; each spike's column (floor(ts * w / span),
# computed here) is the full block, every other column the lowest.
"$python" - "$TEST_TMP/spikes.json" <<'EOF'
import json, sys
ev = [{"ph": "X", "name": "run", "pid": 1, "tid": 1, "ts": 0, "dur": 2000}]
for i in range(20000):
    v = 9 if i in (5021, 12347, 17773) else 1
    ev.append({"ph": "C", "name": "mem", "pid": 1, "ts": i / 10, "args": {"v": v}})
json.dump({"traceEvents": ev}, open(sys.argv[1], "w"))
EOF
for size in "80 24" "160 48"; do
	set -- $size
	screen_dump "$1" "$2" "$dump" "$TEST_TMP/spikes.json"
	names=$(sed -n 3p "$dump" | sed 's/│.*//' | wc -m)
	w=$(($1 - names))
	want=$("$python" -c 'import sys; w = int(sys.argv[1]); print(" ".join(str(i * w // 20000) for i in (5021, 12347, 17773)))' "$w")
	got=$(sed -n 's/^   mem *│//p' "$dump" | "$python" -c 'import sys; print(" ".join(str(i) for i, c in enumerate(sys.stdin.read().rstrip("\n")) if c == "\u2588"))')
	if [ "$got" = "$want" ]; then ok "$1x$2: every short counter spike shows at its column ($want)"; else not_ok "$1x$2: every short counter spike shows at its column (got '$got', want '$want')"; diag_file "$dump" 10; fi
done

if have_corpus; then
	# a Kineto trace: the count of /sgemm equals Python's over the JSON
	trace=$(corpus_traces | grep hta_alexnet_cuda_sync | head -n 1)
	want=$(gzip -dc "$trace" | "$python" -c 'import json, re, sys
ev = json.load(sys.stdin)["traceEvents"]
print(sum(1 for e in ev if e.get("ph") == "X" and re.search("sgemm", e.get("name", ""), re.I)))')
	screen_start 100 30 -- "$trace"
	screen_wait ' .. ' >/dev/null
	screen_keys /
	type_text sgemm
	check_screen "corpus: /sgemm counts $want matches (Python)" screen_wait " $want matches"
	screen_keys Enter
	screen_settle
	check_screen "corpus: Enter selects an sgemm kernel" \
		sh -c "tmux -L $SCREEN_SOCK capture-pane -t t -p | tail -n 1 | grep -q 'sgemm.*  start '"
	screen_keys q
	screen_wait 'EXIT=0' >/dev/null

	# counters as sparklines
	trace=$(corpus_traces | grep gpu_metrics_expected | head -n 1)
	if [ -n "$trace" ]; then
		screen_dump 120 40 "$TEST_TMP/counters.txt" "$trace"
		if grep -q 'GPU 0 Utilization.*│.*[▁▂▃▄▅▆▇█]' "$TEST_TMP/counters.txt"; then
			ok "corpus: counters are drawn as sparklines"
		else
			not_ok "corpus: counters are drawn as sparklines"
			diag_file "$TEST_TMP/counters.txt" 40
		fi
		screen_dump 120 40 "$TEST_TMP/counters.txt" --ascii "$trace"
		if grep -q 'GPU 0 Utilization.*|.*[_.:=+*#-]' "$TEST_TMP/counters.txt"; then
			ok "corpus: counters in ASCII"
		else
			not_ok "corpus: counters in ASCII"
			diag_file "$TEST_TMP/counters.txt" 40
		fi
	else
		skip "counters as sparklines" "no gpu_metrics trace in the corpus"
	fi
else
	skip "corpus search and counters" "no corpus"
fi

done_testing
