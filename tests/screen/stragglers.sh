#!/bin/sh
# Screen tests of the stragglers view (issue 16 item 2), through
# --script/--dump-screen on the 8-rank DLRM set with known clock offsets
# injected (tests/e2e/align.py shift): W lists per collective and step the
# rank that arrived last, largest wait first, titled with the rank that
# held the others up most; Enter shows that rank's kernel in the timeline,
# whose details pane gives its recorded time beside the aligned one. The
# numbers themselves are checked against Python in tests/e2e/align.sh.
. "${TREX_SRCDIR:-.}/tests/e2e/lib.sh"
require_built
have_corpus || skip_all "no corpus (TREX_CORPUS)"
. "${TREX_SRCDIR:-.}/tests/screen/lib.sh"

SCREEN=$TEST_TMP/screen.txt
SHIFTED=$TEST_TMP/shifted
mkdir -p "$SHIFTED"
"$PYTHON3" "$E2E_DIR/align.py" shift "$SHIFTED" "$TREX_CORPUS"/kineto/param_dlrm_8rank/*.json.gz ||
	bail_out "align.py shift failed"

# the screen at 130 x 44 after KEYS (lib.sh's dump), and what it shows
shows() { grep -F -q -- "$1" "$SCREEN"; }
shows_re() { grep -E -q -- "$1" "$SCREEN"; }

dump 130 44 'W' --align collectives "$SHIFTED"/*.json
check_dump "W: the stragglers view, titled with the rank that held the others up most" \
	shows "trex: rank 7 held the others up most: 35.554 ms, last at 5 of 9 (clocks aligned)"
check_dump "... its columns, wait first" \
	shows_re "Last rank +Wait \(sum\) +Wait \(max\) +Late by +Ranks +At +Kind +Group +Event"
check_dump "... the largest wait first: all-to-all #1, rank 7 last" \
	shows_re "^ +7 +26\.435 ms +7\.624 ms +505\.5 +us +8 .* collective +#1 ncclKernel_SendRecv"
check_dump "... the step among the collectives" shows_re "^ +4 .* step +ProfilerStep#10"

dump 130 44 'W' "$SHIFTED"/*.json
check_dump "without --align the title says the times are as recorded" \
	shows "(times as recorded: trex --align collectives)"

# the recorded start of rank 7's first collective: its ts in the shifted file
recorded=$("$PYTHON3" -c '
import decimal, glob, json, sys
doc = json.load(open(glob.glob(sys.argv[1] + "/worker7_*")[0]), parse_float=decimal.Decimal)
ts = min(e["ts"] for e in doc["traceEvents"] if e.get("cat") == "kernel" and "nccl" in e["name"])
print(int(decimal.Decimal(ts) * 1000))' "$SHIFTED")
dump 130 44 'W Enter Enter' --align collectives "$SHIFTED"/*.json
check_dump "Enter: the last arrival in the timeline, on rank 7" shows "track: rank 7 / GPU 7 / stream 84"
check_dump "... the details pane shows its recorded time and the rank's clock offset" \
	shows_re "^ recorded: absolute $recorded ns \(clock offset -99\.998 ms, drift 0\.000 ppm\)"

dump 130 44 'W' "$TREX_CORPUS"/kineto/param_dlrm_8rank/worker0_step_12.1694128201545.pt.trace.json.gz
check_dump "one rank: the view says there is nothing to compare" \
	shows "stragglers: one rank: nothing to align"
done_testing
