#!/bin/sh
# End-to-end: damaged input. trex must never crash: exit 0 (loaded what is
# complete, problems reported) or 2 (refused, "FILE:LINE:COL: (byte N) ..."),
# one-line messages naming the file, no sanitizer report (under the ASan
# build a report aborts, which shows as a signal). Every corpus trace and
# tests/data file is cut at 10 evenly spaced offsets plus 1 byte before its
# end (the complete events must load, ignored bytes are reported, and the
# count of loaded events never decreases with the cut offset; with --strict
# the middle cut exits 2) and gets 20 single-byte flips (fixed seed; files
# over 4 MiB are flipped within their first 4 MiB); plus an empty file, 1 MiB of random bytes,
# 10,000-deep nesting, a 100 MiB string and a gzip file cut mid-stream.
# TREX_E2E_QUICK=1 (used by distcheck) does 3 cuts and 3 flips per file.
. "${TREX_SRCDIR:?run through make check}/tests/e2e/lib.sh"
require_built

# tests/data files Python can lay out (strict JSON), then the corpus
for f in "$TREX_SRCDIR"/tests/data/*.json; do
	"$PYTHON3" -c 'import json,sys; json.loads(open(sys.argv[1],"rb").read().decode("utf-8","replace"))' \
		"$f" 2>/dev/null </dev/null && printf '%s\n' "$f"
done >"$TEST_TMP/traces"
have_corpus && corpus_traces >>"$TEST_TMP/traces"
# shellcheck disable=SC2046 # paths have no spaces
run_py malformed $(cat "$TEST_TMP/traces")

gz=
have_corpus && gz=$TREX_CORPUS/kineto/hta_sampled_2rank/sampled_rank-0.json.gz
[ -n "$gz" ] || gz=$TREX_SRCDIR/tests/data/object.json.gz
run_py special "$TEST_TMP" "$gz"

done_testing
