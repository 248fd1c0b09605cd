#!/bin/sh
# --input-format NAME: every input is read as that format instead of
# being told by its first bytes; the same trace loads the same either way,
# and an unknown name is a usage error naming the formats there are.
. "${TREX_SRCDIR:?run through make check}/tests/e2e/lib.sh"
require_built

DATA=$TREX_SRCDIR/tests/data

for f in flows.json nesting_be.json object.json.gz; do
	"$TREX" -q info --format json "$DATA/$f" >"$TEST_TMP/sniffed.json" 2>/dev/null
	rc_sniffed=$?
	"$TREX" -q info --format json --input-format chrome-json "$DATA/$f" \
		>"$TEST_TMP/named.json" 2>/dev/null
	rc_named=$?
	if [ "$rc_sniffed" -eq 0 ] && [ "$rc_named" -eq 0 ] &&
		cmp -s "$TEST_TMP/sniffed.json" "$TEST_TMP/named.json"; then
		ok "$f: --input-format chrome-json loads what sniffing loads"
	else
		not_ok "$f: --input-format chrome-json loads what sniffing loads (exit $rc_sniffed/$rc_named)"
		diff "$TEST_TMP/sniffed.json" "$TEST_TMP/named.json" | head -20 | sed 's/^/# /'
	fi
done

"$TREX" -q info --input-format no-such-format "$DATA/flows.json" \
	>"$TEST_TMP/out" 2>"$TEST_TMP/err"
rc=$?
if [ "$rc" -eq 1 ] && [ ! -s "$TEST_TMP/out" ] &&
	grep -q "no format 'no-such-format' (formats: chrome-json" "$TEST_TMP/err"; then
	ok "an unknown --input-format is a usage error listing the formats"
else
	not_ok "an unknown --input-format is a usage error listing the formats (exit $rc)"
	diag_file "$TEST_TMP/err"
fi

if "$TREX" --help 2>/dev/null | grep -q -- '--input-format'; then
	ok "--help lists --input-format"
else
	not_ok "--help lists --input-format"
fi

done_testing
