#!/bin/sh
# A set of ranks opened whole (the timeline, `trex export`) once each rank
# has its own index file (`trex index`, run here through `xargs -P` as a
# job's launcher would spread it): the set's index file is composed from
# the ranks' files, parsing nothing (man trex: INDEX FILES), and shows
# what a parse of the set shows, byte for byte: Chrome JSON and CSV
# exports, Perfetto's read back (its interned string numbers follow the
# index's string ids), and the timeline's screens (first screen, a rank
# folded, a slice's details). The ranks' own files stay as they were; a
# rank edited later makes the set parse again, and still match. Whether the set was
# composed rather than parsed is asserted by tests/unit/test_index_compose.c.
. "${TREX_SRCDIR:-.}/tests/e2e/lib.sh"
require_built
have_corpus || skip_all "corpus not found (TREX_CORPUS)"

TREX_INDEX_DIR=$TEST_TMP/compose-index
export TREX_INDEX_DIR
IDX=$TREX_INDEX_DIR
R=$TEST_TMP/dlrm
mkdir -p "$R" "$IDX"
cp "$TREX_CORPUS"/kineto/param_dlrm_8rank/*.json.gz "$R/"
touch -d '2020-01-01' "$R"/*

# each rank indexed by its own process, two at a time
check "xargs -P 2 trex index: one index file per rank" \
	sh -c 'ls "$1"/*.json.gz | xargs -P 2 -n 1 "$2" index -q &&
		[ "$(ls "$3" | grep -c "\.json\.gz\..*\.trex$")" = 8 ] &&
		[ "$(ls "$3" | grep -c "^set-")" = 0 ]' sh "$R" "$TREX" "$IDX"
find "$IDX" -name '*.json.gz.*.trex' -printf '%f %s %T@\n' | sort >"$TEST_TMP/ranks.before"

# same_export LABEL FILE ARGS...: `trex export -o composed.FILE ARGS DIR`
# (the set from its index file) writes what --no-cache writes.
same_export() {
	label=$1 file=$2
	shift 2
	run_trex exp-c export -q -o "$TEST_TMP/composed.$file" "$@" "$R"
	run_trex exp-m export -q --no-cache -o "$TEST_TMP/merged.$file" "$@" "$R"
	if [ "$(rc_of exp-c)" = 0 ] && [ "$(rc_of exp-m)" = 0 ] &&
		cmp -s "$TEST_TMP/composed.$file" "$TEST_TMP/merged.$file"; then
		ok "$label"
	else
		not_ok "$label"
		diag "exit $(rc_of exp-c) / $(rc_of exp-m)"
		diag_file "$TEST_TMP/exp-c.err"
		cmp "$TEST_TMP/composed.$file" "$TEST_TMP/merged.$file" 2>&1 | diag_file /dev/stdin
	fi
}

same_export "chrome export of the composed set is the parse's" json
check "the set's index file was written once, from the ranks' files" \
	sh -c '[ "$(ls "$1" | grep -c "^set-8\..*\.trex$")" = 1 ]' sh "$IDX"
# Perfetto numbers interned strings by the index's string ids, which a
# composed index gives in another order: the traces read back must match
run_trex pf-c export -q -o "$TEST_TMP/composed.pftrace" "$R"
run_trex pf-m export -q --no-cache -o "$TEST_TMP/merged.pftrace" "$R"
run_trex pf-c2 export -q --no-cache -o "$TEST_TMP/composed.pf.json" "$TEST_TMP/composed.pftrace"
run_trex pf-m2 export -q --no-cache -o "$TEST_TMP/merged.pf.json" "$TEST_TMP/merged.pftrace"
check "perfetto export of the composed set reads back as the parse's" \
	cmp "$TEST_TMP/composed.pf.json" "$TEST_TMP/merged.pf.json"
same_export "csv export of the composed set is the parse's" csv
same_export "a time range of it, as JSON" part.json --range 5ms:25ms

# same_screen LABEL KEYS: the timeline's screen after KEYS, from the set's
# index file and parsed.
same_screen() {
	for how in composed merged; do
		opt=""
		[ "$how" = merged ] && opt=--no-cache
		TERM=xterm-256color COLUMNS=120 LINES=40 "$TREX" $opt --script "$2" \
			--force --dump-screen "$TEST_TMP/$how.screen" "$R" </dev/null >/dev/null \
			2>"$TEST_TMP/$how.screen.err"
	done
	if [ -s "$TEST_TMP/composed.screen" ] &&
		cmp -s "$TEST_TMP/composed.screen" "$TEST_TMP/merged.screen"; then
		ok "$1"
	else
		not_ok "$1"
		diag_file "$TEST_TMP/composed.screen.err"
		diff "$TEST_TMP/composed.screen" "$TEST_TMP/merged.screen" | diag_file /dev/stdin 30
	fi
}

same_screen "the timeline's first screen" ""
same_screen "a rank folded, the cursor moved down" "Down Down Left Down Down"
same_screen "a slice's details" "Down Down Down Down Down Right Right Enter"

find "$IDX" -name '*.json.gz.*.trex' -printf '%f %s %T@\n' | sort >"$TEST_TMP/ranks.after"
check "the ranks' index files are untouched" cmp "$TEST_TMP/ranks.before" "$TEST_TMP/ranks.after"

# a rank edited since: its own file and the set's are stale, the set parsed
gzip -dc "$R/worker3_step_12.1694128201557.pt.trace.json.gz" |
	sed 's/"name": "ProfilerStep#12"/"name": "ProfilerStep#13"/' |
	gzip -c >"$TEST_TMP/w3.gz"
mv "$TEST_TMP/w3.gz" "$R/worker3_step_12.1694128201557.pt.trace.json.gz"
same_export "a rank edited since: the set parsed again, the same as --no-cache" edited.json
check "... and says so in one line" grep -q 'stale (the trace changed); rebuilt' "$TEST_TMP/exp-c.err"

done_testing
