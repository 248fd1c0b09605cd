#!/bin/sh
# Random keys and mouse events through every view (tests/screen/monkey.py):
# fixed seeds, so a failure replays; never a crash, a hang or a sanitizer
# report (the suite also runs this under ASan+UBSan). TREX_MONKEY_RUNS
# changes the number of runs (default 40).
. "${TREX_SRCDIR:-.}/tests/e2e/lib.sh"
require_built

traces="--demo $TREX_SRCDIR/tests/data/damaged.json" # damaged: the notice, every counter's examples
if have_corpus; then
	traces="$traces $(ls "$TREX_CORPUS"/kineto/*/* | tr '\n' ' ')"
fi
mkdir -p "$TEST_TMP/work"
# shellcheck disable=SC2086
"${PYTHON3:-python3}" "$TREX_SRCDIR/tests/screen/monkey.py" "$TREX" "$TEST_TMP/work" 20261121 \
	"${TREX_MONKEY_RUNS:-40}" $traces
