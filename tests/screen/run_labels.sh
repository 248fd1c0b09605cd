#!/bin/sh
# Runs and devices named alike everywhere (analysis/labels.h): two files
# that claim rank 1 (written here, a/t.json and b/t.json: a GPU stream and
# a python3 thread each) are told apart in `trex info`'s tracks, the
# timeline's rank rows, the details pane and the range pane, and the GPU
# is "GPU 0" in all of them; `trex info --format json` keeps its numbers.
. "${TREX_SRCDIR:-.}/tests/e2e/lib.sh"
require_built
. "${TREX_SRCDIR:-.}/tests/screen/lib.sh"

SCREEN=$TEST_TMP/screen.txt
mkdir -p "$TEST_TMP/a" "$TEST_TMP/b"
for d in a b; do
	cat >"$TEST_TMP/$d/t.json" <<'EOF'
{"distributedInfo":{"rank":1},"traceEvents":[
{"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":10,"dur":20,"args":{"stream":7}},
{"ph":"M","name":"thread_name","pid":0,"tid":7,"args":{"name":"stream 7"}},
{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":42,"tid":42,"ts":5,"dur":30},
{"ph":"M","name":"process_name","pid":42,"args":{"name":"python3"}}
]}
EOF
done
cd "$TEST_TMP" || bail_out "no $TEST_TMP"

# dump W H KEYS: the screen of both files after KEYS into $SCREEN.
dump() {
	rm -f "$SCREEN"
	screen_dump "$1" "$2" "$SCREEN" --script="$3" a/t.json b/t.json
}
shows() { grep -E -q -- "$1" "$SCREEN" || { sed 's/^/|/' "$SCREEN"; false; }; }

run_trex info info a/t.json b/t.json
check "info: the tracks table names each run and the GPU" sh -c "
	grep -q '^rank 1 (a/t.json)  GPU 0  .* stream 7\$' '$TEST_TMP/info.out' &&
	grep -q '^rank 1 (b/t.json)  GPU 0  .* stream 7\$' '$TEST_TMP/info.out' &&
	grep -q '^rank 1 (b/t.json)  python3 (42)  .* thread 42\$' '$TEST_TMP/info.out'"
run_trex json info --format json a/t.json b/t.json
check "info --format json: the tracks keep their rank number and pid" "$PYTHON3" -c '
import json, sys
rows = json.load(open(sys.argv[1]))["tracks"]["rows"]
assert [(r["rank"], r["process"]) for r in rows] == [(1, "0"), (1, "python3 (42)")] * 2, rows
' "$TEST_TMP/json.out"

dump 120 30 ''
check "timeline: the two rank rows say which file" \
	sh -c "grep -q '^▾ rank 1 a/t.json ' '$SCREEN' && grep -q '^▾ rank 1 b/t.json ' '$SCREEN'"
dump 120 30 'G k k , Enter'
check "details pane: the track of the second run's kernel" \
	shows '^ track: rank 1 \(b/t\.json\) / GPU 0 / stream 7$'
dump 120 30 'G , Enter'
check "details pane: a CPU thread under its process" \
	shows '^ track: rank 1 \(b/t\.json\) / python3 \(42\) / thread 42$'
dump 120 30 'T 5 u s Enter m T 2 5 u s Enter m'
check "range pane: each track under its run and device" sh -c "
	grep -c '100.0%      20 us  rank 1 (a/t.json) / GPU 0 / stream 7\$' '$SCREEN' | grep -qx 1 &&
	grep -c '100.0%      20 us  rank 1 (b/t.json) / GPU 0 / stream 7\$' '$SCREEN' | grep -qx 1 &&
	grep -c 'rank 1 (b/t.json) / python3 (42) / thread 42\$' '$SCREEN' | grep -qx 1"

done_testing
