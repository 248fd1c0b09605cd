#!/bin/sh
# What a reopened set keeps resident (man trex: INDEX FILES): opening an
# index file checks every section, and laying out the timeline reads each
# track's first slices, which made the whole set file resident for as long
# as the interface stayed open. Once the timeline is laid out those pages
# go back (they stay in the page cache), so the interface of a 64-rank set
# showing its first ranks maps a small part of the set's file. Measured in
# /proc/PID/smaps of the real trex in tmux.
. "${TREX_SRCDIR:-.}/tests/e2e/lib.sh"
require_built
. "${TREX_SRCDIR:-.}/tests/screen/lib.sh"
[ -r /proc/self/smaps ] || skip_all "no /proc/PID/smaps"
command -v "$PYTHON3" >/dev/null 2>&1 || skip_all "python3 not found"

TREX_INDEX_DIR=$TEST_TMP/index
export TREX_INDEX_DIR
SET=$TEST_TMP/set
mkdir -p "$SET" "$TREX_INDEX_DIR"
# 64 ranks of 10000 slices each (a CPU thread and a stream), about 0.4 MB
# of index per rank
"$PYTHON3" - "$SET" <<'PY'
import sys
for rank in range(64):
    with open(f"{sys.argv[1]}/rank{rank}.json", "w") as f:
        f.write('{"distributedInfo": {"rank": %d}, "traceEvents": [\n' % rank)
        ev = []
        for i in range(5000):
            ev.append('{"ph":"X","cat":"cpu_op","name":"op%d","pid":1,"tid":1,"ts":%d,"dur":5}'
                      % (i % 50, i * 10))
            ev.append('{"ph":"X","cat":"kernel","name":"k%d","pid":0,"tid":7,"ts":%d,"dur":4}'
                      % (i % 40, i * 10 + 2))
        f.write(",\n".join(ev))
        f.write("\n]}\n")
PY

check "trex index: the 64 ranks' index files" "$TREX" index -q -j 2 "$SET"
# the set's file is composed at the first open
check "the set opens once (composing its index file)" \
	sh -c '"$1" -q --script= --force --dump-screen "$2/first.txt" "$3" </dev/null >/dev/null' \
	sh "$TREX" "$TEST_TMP" "$SET"
setfile=$(ls "$TREX_INDEX_DIR"/set-64.*.trex 2>/dev/null | head -1)
check "the set's index file exists" test -n "$setfile"

# rss_kb PID FILE: resident kB of PID's mappings of FILE (smaps)
rss_kb() {
	awk -v f="$2" '/^[0-9a-f]+-[0-9a-f]+ / { m = ($NF == f) }
		m && /^Rss:/ { kb += $2 } END { print kb + 0 }' "/proc/$1/smaps"
}

screen_start 100 30 -- "$SET"
if screen_wait "rank 0" && screen_settle; then
	shell=$(tm display-message -p -t t '#{pane_pid}')
	pid=$(cat /proc/"$shell"/task/*/children 2>/dev/null | tr ' ' '\n' | grep . | head -1)
	size_kb=$(($(wc -c <"$setfile") / 1024))
	rss=$(rss_kb "$pid" "$setfile")
	if [ -n "$pid" ] && [ "$size_kb" -gt 4096 ] && [ "$rss" -lt $((size_kb / 3)) ]; then
		ok "the set's first screen maps a small part of its index file"
	else
		not_ok "the set's first screen maps a small part of its index file"
		diag "pid '$pid': $rss kB resident of a $size_kb kB file"
	fi
else
	not_ok "the set's first screen maps a small part of its index file"
	screen_text | diag_file /dev/stdin
fi
screen_keys q
done_testing
