#!/bin/sh
# Screen tests of two runs stacked on one timeline (trex A --compare B):
# both runs under their header rows, the alignment at the first common
# ProfilerStep, at a chosen step, at the selected slice's name and at the
# traces' starts, B's slices with their own times in the details pane,
# keys and search crossing from A to B, track choices (pins, folds, levels,
# collapsed groups, the track filter) following on the other run's matching
# tracks while a track without one acts alone, and a bad B refused in one
# line.
#
# The hand-made pair tests/data/compare/{a,b}.json (times in us):
#   A: starts at 500; ProfilerStep#1 at 1000, #2 at 2000; aten::mm at 1100
#      and 2100; gemm_a at 1200 and 2200; ends at 3000.
#   B: starts at 4000; ProfilerStep#1 at 5000, #2 at 6500; aten::mm at 5300
#      and 6700; gemm_a at 5400 and 6900; ends at 8000.
# So B's offset is 1000 - 5000 = -4 ms at step 1 (the default), 2000 - 6500
# = -4.5 ms at step 2, 2100 - 6700 = -4.6 ms at aten::mm #2, 500 - 4000 =
# -3.5 ms at the starts. On A's axis (0 = A's start, 500) B's first gemm_a
# starts at 5400 - 4000 - 500 = 900 us (step 1), 400 us (step 2), 300 us
# (aten::mm #2), 1400 us (starts); in B's own time at 5400 - 4000 = 1.4 ms.
# The corpus pair's numbers are computed from its JSON by Python.
. "${TREX_SRCDIR:-.}/tests/e2e/lib.sh"
require_built
. "${TREX_SRCDIR:-.}/tests/screen/lib.sh"

A=$TREX_SRCDIR/tests/data/compare/a.json
B=$TREX_SRCDIR/tests/data/compare/b.json
SCREEN=$TEST_TMP/screen.txt

# cdump TERM LANG KEYS ARGS...: the 120 x 40 screen after KEYS in $SCREEN.
cdump() {
	term=$1 lang=$2 keys=$3
	shift 3
	rm -f "$SCREEN"
	# shellcheck disable=SC2046
	$(screen_env LINES=40 COLUMNS=120 TERM="$term" LANG="$lang" LC_ALL="$lang") "$TREX" -q \
		--force --dump-screen "$SCREEN" --script="$keys" "$@" </dev/null >/dev/null 2>"$TEST_TMP/err"
	[ -f "$SCREEN" ] || echo "(no screen: trex $* failed)" >"$SCREEN"
}

shows() { screen_has "$SCREEN" "$1"; }
# expect N REGEX [+REGEX | -REGEX]...: N lines of the screen match REGEX
# (basic), some line each +REGEX, none a -REGEX; else the screen as reason.
expect() {
	n=$1 re=$2 good=true
	shift 2
	[ "$(grep -c -- "$re" "$SCREEN")" -eq "$n" ] || good=false
	for x; do
		case $x in
		+*) grep -q -- "${x#+}" "$SCREEN" || good=false ;;
		-*) ! grep -q -- "${x#-}" "$SCREEN" || good=false ;;
		esac
	done
	$good || sed 's/^/|/' "$SCREEN"
	$good
}
# first_rows REGEX: how many runs have a first row matching REGEX
first_rows() { grep -A1 -E '^ [AB]: ' "$SCREEN" | grep -c -- "$1"; }

# B's first gemm_a selected and its details open: from A's start (T 0),
# the search's first match is A's first gemm_a, n A's second, n B's first.
to_b_gemm='T 0 <Enter> / g e m m _ a <Enter> n n <Enter>'

for mode in "xterm-256color C.UTF-8" "vt100 C"; do
	set -- $mode
	term=$1 lang=$2
	what="TERM=$term"
	cdump "$term" "$lang" '' "$A" --compare "$B"
	check "$what: A's header row names its run" shows '^ A: a\.json'
	check "$what: B's header row names its run and the offset" \
		shows '^ B: b\.json  aligned -4 ms \(step 1\)'
	check "$what: A's rows and B's rows are both drawn" \
		sh -c "[ \"\$(grep -c 'rank 0 [ab]\.json' '$SCREEN')\" -eq 2 ]"
	check "$what: the status line says the alignment" shows ' B -4 ms \(step 1\) '
	check "$what: one axis over both runs: A's start is 0, B's starts 500 us before" \
		shows '^ -500 us \.\. 3\.50 ms \(4 ms\)'

	cdump "$term" "$lang" "$to_b_gemm" "$A" --compare "$B"
	check "$what: n goes on from A's last match to B's first" shows '/gemm_a 1/2'
	check "$what: B's slice at 900 us on A's axis (step 1)" \
		shows '^ start: 900 us \(900000 ns; absolute 1400000 ns\)'
	check "$what: ... and at 1.4 ms of its own run, offset -4 ms" \
		shows "^ run B time: 1\\.4 ms \\(1400000 ns from B's start; absolute 5400000 ns\\), offset -4 ms"

	cdump "$term" "$lang" "<Hash> 2 <Enter> $to_b_gemm" "$A" --compare "$B"
	check "$what: # 2 aligns at step 2: B -4.5 ms" shows ' B -4\.5 ms \(step 2\) '
	check "$what: ... B's slice moved to 400 us" shows '^ start: 400 us \(400000 ns;'
	check "$what: ... its own time unchanged" shows "^ run B time: 1\\.4 ms \\(1400000 ns from B's start"

	cdump "$term" "$lang" "<Hash> s t a r t <Enter> $to_b_gemm" "$A" --compare "$B"
	check "$what: # start aligns the traces' starts: B -3.5 ms" shows ' B -3\.5 ms \(start\) '
	check "$what: ... B's slice at 1.4 ms" shows '^ start: 1\.4 ms \(1400000 ns;'

	# A's second aten::mm: from A's start, the first match, then the second
	cdump "$term" "$lang" "T 0 <Enter> / a t e n : : m m <Enter> n @ $to_b_gemm" "$A" --compare "$B"
	check "$what: @ aligns at the selected slice's name and occurrence" \
		shows ' B -4\.6 ms \(aten::mm #2\) '
	check "$what: ... B's slice moved to 300 us" shows '^ start: 300 us \(300000 ns;'

	# track choices follow on the other run's matching track: the cursor
	# starts on A's stream 7; thread 1 (two levels) is two rows below it
	cdump "$term" "$lang" 'p' "$A" --compare "$B"
	check "$what: p pins A's stream 7 and B's, the status line says B followed" \
		expect 2 '^. pinned ' '+pinned stream 7 above the other tracks (p unpins); run B too'
	check "$what: ... stream 7 first in both runs" test "$(first_rows '^   stream 7 ')" -eq 2
	check "$what: ... each run still shows all its rows, the pinned line counted" \
		expect 2 'depth 2 '
	cdump "$term" "$lang" 'p p' "$A" --compare "$B"
	check "$what: p again unpins both" expect 0 '^. pinned '
	cdump "$term" "$lang" 'j j c' "$A" --compare "$B"
	check "$what: c folds A's thread 1 and B's" expect 2 'thread 1 +1 ' '-depth 2 ' \
		'+thread 1 folded into one row (c unfolds); run B too'
	cdump "$term" "$lang" 'G k c' "$A" --compare "$B"
	check "$what: ... and from B, A's too" expect 2 'thread 1 +1 ' '+run A too'
	cdump "$term" "$lang" 'j j <' "$A" --compare "$B"
	check "$what: < shows one level less in both runs" expect 0 'depth 2 '
	cdump "$term" "$lang" 't' "$A" --compare "$B"
	check "$what: t collapses A's GPU 0 and B's" expect 0 'stream 7'
	# a pattern naming A's file: B's tracks follow their counterparts
	cdump "$term" "$lang" '| a . j s o n . * s t r e a m <Enter>' "$A" --compare "$B"
	check "$what: a track filter naming A's file: B's counterparts match as A's do" \
		expect 2 'stream 7 ' '-thread 1'
	cdump "$term" "$lang" '| s t r e a m <Enter>' "$A" --compare "$B"
	check "$what: | stream: only the streams, in both runs" expect 2 'stream 7 ' '-thread 1'
	cdump "$term" "$lang" '& p' "$A" --compare "$B"
	check "$what: & then p: the pin is A's own" expect 1 '^. pinned ' '-run B too'
	cdump "$term" "$lang" '& p &' "$A" --compare "$B"
	check "$what: & again: B takes A's choices, the pin in both" \
		expect 2 '^. pinned ' "+run B took run A's"
done

# A track only B has acts alone: B with a thread "worker" A lacks; G goes
# to B's last row, the worker's.
{
	sed '$d' "$B"
	echo ',{"ph":"M","name":"thread_name","pid":1,"tid":99,"args":{"name":"worker"}},'
	echo '{"ph":"X","cat":"cpu_op","name":"aten::copy_","pid":1,"tid":99,"ts":5100,"dur":50}'
	echo ']}'
} >"$TEST_TMP/bw.json"
cdump xterm-256color C.UTF-8 'G p' "$A" --compare "$TEST_TMP/bw.json"
check "a track with no counterpart is pinned in its run alone" \
	expect 1 '^. pinned ' '+pinned worker above the other tracks (p unpins)$'
check "... in run B" test "$(first_rows '^   worker ')" -eq 1
cdump xterm-256color C.UTF-8 'p' "$A" --compare "$TEST_TMP/bw.json"
check "... while a pin on a matched track still follows" expect 2 '^. pinned ' '+worker '

cdump xterm-256color C.UTF-8 '<Hash> 7 <Enter>' "$A" --compare "$B"
check "a step one run lacks: said, the alignment kept" \
	sh -c "grep -q 'cannot align: no ProfilerStep#7 in A (steps 1..2)' '$SCREEN' &&
		grep -q ' B -4 ms (step 1) ' '$SCREEN'"
cdump xterm-256color C.UTF-8 '@' "$A" --compare "$B"
check "@ without a selection says what it needs" shows 'select a slice first'
cdump xterm-256color C.UTF-8 '@' "$A"
check "one run alone: the align keys say they need a second run" \
	shows 'aligning needs a second run: trex A --compare B'
cdump xterm-256color C.UTF-8 '&' "$A"
check "one run alone: & says track choices follow between two runs" \
	shows 'track choices follow between two runs: trex A --compare B'

# j from A's last row goes on at B's first: A has 6 rows, the cursor starts
# on the third (stream 7); 4 j reach B's first row, 2 more its stream 7.
cdump xterm-256color C.UTF-8 'j j j j j j , <Enter>' "$A" --compare "$B"
check "j crosses from A's rows into B's: , selects there" \
	shows "^ run B time: 1\\.4 ms \\(1400000 ns from B's start"

# G goes to B's last row (aten::mm's level); , selects B's mm before the
# cursor (1.5 ms on A's axis: 6000 in B), the one at 5300
cdump xterm-256color C.UTF-8 'G , <Enter>' "$A" --compare "$B"
check "G goes to B's last row" \
	sh -c "grep -q '^ name: aten::mm' '$SCREEN' &&
		grep -q \"^ run B time: 1.3 ms (1300000 ns from B's start\" '$SCREEN'"
# a range marked in A ([0, 2 ms) on A's axis: 4500..6500 in B) has B's
# statistics once the cursor is in B: ProfilerStep#1 1.5 ms, gemm_a 600 us
cdump xterm-256color C.UTF-8 'T 0 <Enter> m T 2 m s <Enter> m j j j j j j' "$A" --compare "$B"
check "a range marked in A gives B's statistics in B" \
	sh -c "grep -q '1.5 ms *1x  ProfilerStep#1' '$SCREEN' && grep -q '600 us *1x  gemm_a' '$SCREEN'"

# ---- the corpus pair -----------------------------------------------------------------------

if have_corpus; then
	base=$TREX_CORPUS/kineto/hta_trace_compare/base.json.gz
	test=$TREX_CORPUS/kineto/hta_trace_compare/test.json.gz
	"$PYTHON3" - "$base" "$test" >"$TEST_TMP/expect.sh" <<'EOF'
import gzip, json, re, sys
from decimal import Decimal

def load(path):
    with gzip.open(path) as f:
        return [e for e in json.loads(f.read(), parse_float=Decimal)["traceEvents"]
                if e.get("ph") == "X"]
ns = lambda us: int(Decimal(us) * 1000)
a, b = load(sys.argv[1]), load(sys.argv[2])
start = lambda ev: min(ns(e["ts"]) for e in ev)
def steps(ev):
    out = {}
    for e in ev:
        m = re.fullmatch(r"ProfilerStep#(\d+)", e["name"])
        if m and e.get("cat") in ("cpu_op", "user_annotation"):
            n = int(m.group(1))
            out[n] = min(out.get(n, ns(e["ts"])), ns(e["ts"]))
    return out
sa, sb = steps(a), steps(b)
first = min(set(sa) & set(sb))
named = lambda ev, name: sorted(ns(e["ts"]) for e in ev if e["name"] == name)
a_str, b_str = named(a, "aten::as_strided"), named(b, "aten::as_strided")
vec = lambda ev: [e for e in ev if e["name"].startswith("void at::native::vectorized_elementwise")]
print(f"first_step={first}")
print(f"step_offset={sa[first] - sb[first]}")
# aligned at A's first aten::as_strided, B's first reads on A's axis
# (0 = A's start) where A's does, and at its own time in B
off = a_str[0] - b_str[0]
print(f"b_strided_rel={b_str[0] + off - start(a)}")
print(f"b_strided_own={b_str[0] - start(b)}")
# A's last of them (its name's n-th in A), and how many B has of its name
last = max(vec(a), key=lambda e: ns(e["ts"]))["name"]
same = lambda ev: len([e for e in ev if e["name"] == last])
assert same(b) < same(a)
print(f"a_vec={len(vec(a))}")
print(f"a_same={same(a)}")
print(f"b_same={same(b)}")
EOF
	. "$TEST_TMP/expect.sh"
	cdump xterm-256color C.UTF-8 '' "$base" --compare "$test"
	check "corpus: both runs' header rows" \
		sh -c "grep -q '^ A: base.json.gz' '$SCREEN' && grep -q '^ B: test.json.gz' '$SCREEN'"
	check "corpus: the first common step starts at the same time in each run" \
		test "$step_offset" -eq 0
	check "corpus: aligned there (step $first_step), B +0 ns" \
		shows " B \\+0 ns \\(step $first_step\\) "
	# from the window's middle the search wraps to A's first as_strided; @
	# aligns B's first with it; n goes to A's second, n to B's first
	cdump xterm-256color C.UTF-8 '/ a s _ s t r i d e d <Enter> @ n n <Enter>' \
		"$base" --compare "$test"
	check "corpus: @ on A's first aten::as_strided aligns B's with it" \
		shows ' B \+0 ns \(aten::as_strided #1\) '
	check "corpus: ... B's first at A's first's time on the axis" \
		shows "^ start: [0-9.]+ ms \\($b_strided_rel ns;"
	check "corpus: ... and at its own time in the pane" \
		shows "^ run B time: [0-9.]+ ms \\($b_strided_own ns from B's start"
	# A's last vectorized_elementwise kernel, the n-th of its name: B has fewer
	nexts=$(yes n | head -n $((a_vec - 1)) | tr '\n' ' ')
	cdump xterm-256color C.UTF-8 "/ v e c t o r i z e d <Enter> $nexts @" "$base" --compare "$test"
	check "corpus: @ on A's #$a_same of a kernel B has $b_same of: said, nothing moved" \
		sh -c "grep -q 'cannot align: B has $b_same slices\\? named void at::native::vectorized' '$SCREEN' &&
			grep -q ' B +0 ns (step $first_step) ' '$SCREEN'"
else
	skip "corpus pair" "shared corpus not found"
fi

# ---- a bad B -------------------------------------------------------------------------------

run_trex missing --force --dump-screen "$TEST_TMP/x.txt" --script= "$A" --compare "$TEST_TMP/nothing.json"
check "a missing B: exit 2, one line naming it" \
	sh -c "[ \$(cat '$TEST_TMP/missing.rc') -eq 2 ] && [ \$(wc -l <'$TEST_TMP/missing.err') -eq 1 ] &&
		grep -q 'nothing.json: cannot open' '$TEST_TMP/missing.err'"
echo garbage >"$TEST_TMP/garbage.json"
run_trex garbage --no-cache --force --dump-screen "$TEST_TMP/x.txt" --script= "$A" --compare "$TEST_TMP/garbage.json"
check "a B that is no trace: exit 2, one line" \
	sh -c "[ \$(cat '$TEST_TMP/garbage.rc') -eq 2 ] && [ \$(wc -l <'$TEST_TMP/garbage.err') -eq 1 ]"
head -c 400 "$B" >"$TEST_TMP/cut.json"
cdump xterm-256color C.UTF-8 '' --no-cache "$A" --compare "$TEST_TMP/cut.json"
check "a damaged B opens, and the first screen says what B lost" \
	sh -c "grep -q '^ B: cut.json' '$SCREEN' && grep -q 'run B: .*ignored' '$SCREEN'"

# ---- interactively, in tmux ------------------------------------------------------------------

screen_start 100 30 -- "$A" --compare "$B"
check_screen "tmux: both runs shown" screen_wait ' B: b.json  aligned -4 ms (step 1)'
screen_keys '#'
screen_wait 'align at step:' >/dev/null
screen_keys 2 Enter
check_screen "tmux: # 2 Enter aligns at step 2" screen_wait 'B aligned at step 2: its times read -4.5 ms'
screen_keys q
check_screen "tmux: q quits" screen_wait 'EXIT=0'

done_testing
