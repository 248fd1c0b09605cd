#!/bin/sh
# End-to-end: salvage of damaged traces (issue 10). tests/e2e/damage.py
# makes damaged variants of every corpus trace (the top-level object's
# structure, the bytes between events, wrong-typed values, one event's
# brace or quote, cut gzip headers and members) and checks that trex loads
# every event outside the damage (issue 10 asks for 99%), reports the
# damage with its position and fails with --strict; it prints the
# distribution of recovery. Without the corpus, the tests/data traces are
# used.
. "${TREX_SRCDIR:?run through make check}/tests/e2e/lib.sh"
require_built

if have_corpus; then
	corpus_traces >"$TEST_TMP/traces"
else
	# the tests/data traces Python can lay out (strict JSON)
	for f in "$TREX_SRCDIR"/tests/data/*.json "$TREX_SRCDIR"/tests/data/*.gz; do
		"$PYTHON3" -c 'import gzip,json,sys; d=open(sys.argv[1],"rb").read(); json.loads((gzip.decompress(d) if d[:2]==b"\x1f\x8b" else d).decode("utf-8","replace"))' \
			"$f" 2>/dev/null </dev/null && printf '%s\n' "$f"
	done >"$TEST_TMP/traces"
fi
mkdir -p "$TEST_TMP/variants"
# shellcheck disable=SC2046 # paths have no spaces
TEST_TMP=$TEST_TMP "$PYTHON3" "$E2E_DIR/damage.py" "$TEST_TMP/variants" \
	$(cat "$TEST_TMP/traces") >"$TEST_TMP/damage.out" 2>"$TEST_TMP/damage.err"
rc=$?
tap_from_stream <"$TEST_TMP/damage.out"
if [ "$rc" -ne 0 ] && ! grep -q '^FAIL ' "$TEST_TMP/damage.out"; then
	not_ok "damage.py ran (exit $rc)"
	diag_file "$TEST_TMP/damage.err" 30
fi
done_testing
