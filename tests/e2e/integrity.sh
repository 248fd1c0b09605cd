#!/bin/sh
# End-to-end: `trex integrity` (issue 9 item 5) on damaged variants of the
# corpus Kineto traces (tests/e2e/integrity.py: a cut, a flipped separator,
# wrong-typed values), every counter and first example checked against
# what Python counts in the variant's bytes; without the corpus, on the
# tests/data traces Python can lay out. Then the command's options and the
# hand-checked tests/data/damaged.json.
. "${TREX_SRCDIR:?run through make check}/tests/e2e/lib.sh"
require_built

if have_corpus; then
	# one trace per corpus directory, the small ones (the layout is Python's)
	for d in "$TREX_CORPUS"/kineto/*/; do
		for f in "$d"*; do
			[ -f "$f" ] && [ "$(wc -c <"$f")" -lt 1200000 ] && { printf '%s\n' "$f"; break; }
		done
	done >"$TEST_TMP/traces"
else
	for f in "$TREX_SRCDIR"/tests/data/kernels.json "$TREX_SRCDIR"/tests/data/flows.json; do
		printf '%s\n' "$f"
	done >"$TEST_TMP/traces"
fi
mkdir -p "$TEST_TMP/variants"
# shellcheck disable=SC2046 # paths have no spaces
run_checker "$E2E_DIR/integrity.py" "$TEST_TMP/variants" $(cat "$TEST_TMP/traces")

# ---- tests/data/damaged.json, by hand (its .expect says what is in it) ---------------------
data=$TREX_SRCDIR/tests/data/damaged.json
run_trex dj integrity --format csv "$data"
check "damaged.json: exit 0, one warning summary" \
	sh -c "[ $(rc_of dj) -eq 0 ] && grep -c 'damaged input' '$TEST_TMP/dj.err' | grep -qx 1"
check "damaged.json: 24 counters, damage first: bad_ts, bad_dur, syntax_errors" \
	sh -c "[ \$(wc -l <'$TEST_TMP/dj.out') -eq 25 ] &&
		sed -n '2,4p' '$TEST_TMP/dj.out' | cut -d, -f2 | tr '\n' ' ' | grep -qx 'bad_ts bad_dur syntax_errors '"
check "damaged.json: bad_dur's example is k6 on stream 7, 50 us into the trace, at 8:68" \
	grep -q '^rank 5,bad_dur,1,,damage,1,damaged.json:8:68 (byte 517),dur is a string (kept with duration 0),GPU 1 / stream 7,50000,k6,' "$TEST_TMP/dj.out"
run_trex djt integrity "$data"
check "damaged.json: the text report begins with the loss, as the warning says it" \
	sh -c "head -1 '$TEST_TMP/djt.out' | grep -qxF 'rank 5 ($data): lost about 1 event and 95 bytes at 6 damaged spots; 2 values not taken as written'"
check "damaged.json: the warning on stderr has the same words" \
	grep -qF 'damaged input: read 7 events; lost about 1 event and 95 bytes at 6 damaged spots; 2 values not taken as written' "$TEST_TMP/djt.err"

# one event read, and dropped for its ts: singular words
printf '[{"ph":"X","cat":"kernel","name":"k","pid":1,"tid":1,"ts":"abc","dur":1}]\n' >"$TEST_TMP/one.json"
run_trex one integrity "$TEST_TMP/one.json"
check "one event read, one value: the warning says it in the singular" \
	grep -qF "one.json: damaged input: read 1 event; 1 value not taken as written" "$TEST_TMP/one.err"

# ---- a clean trace and the options ----------------------------------------------------------
run_trex clean integrity "$TREX_SRCDIR/tests/data/kernels.json"
check "a clean trace: no damage, every counter 0 but the notes" \
	sh -c "[ $(rc_of clean) -eq 0 ] && [ ! -s '$TEST_TMP/clean.err' ] &&
		head -1 '$TEST_TMP/clean.out' | grep -q '^No damage' &&
		! grep -q ' damage  *[1-9]' '$TEST_TMP/clean.out'"
run_trex js integrity --format json -o "$TEST_TMP/i.json" "$data"
check "-o FILE.json writes the JSON table" \
	"$PYTHON3" -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['table'] == 'integrity' and len(d['rows']) == 24" "$TEST_TMP/i.json"
run_trex strict integrity --strict "$data"
check "--strict still fails on damage (exit 2)" test "$(rc_of strict)" -eq 2
run_trex help --help
check "--help lists the integrity command" grep -q '^  integrity ' "$TEST_TMP/help.out"
expect_usage "integrity takes no --by" integrity --by op "$data"
done_testing
