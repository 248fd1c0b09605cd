#!/bin/sh
# Golden outputs: every command of tests/golden/commands on every set of
# tests/golden/traces, as JSON, byte for byte what tests/golden/SET/CMD.json.gz
# holds, with the exit status tests/golden/status lists. The files were made
# by the trex of the commit that added this test, before the format-neutral
# core (issue 11) changed any code, so they guard the redesign: the core
# may change how it computes, never what it prints.
#
# With GOLDEN_UPDATE=1 the outputs are written instead of compared (only
# for a change of output that is meant; say why in the commit).
. "${TREX_SRCDIR:?run through make check}/tests/e2e/lib.sh"
require_built

GOLDEN=$TREX_SRCDIR/tests/golden
DATA=$TREX_SRCDIR/tests/data
have_corpus || skip_all "shared corpus not found at ${TREX_CORPUS:-(TREX_CORPUS unset)}"
command -v gzip >/dev/null 2>&1 || skip_all "gzip not found"

# run_set SET DIR FILES... : every command on one set, run in DIR so that
# the paths trex prints are the same wherever the tree is.
run_set() {
	set_id=$1
	dir=$2
	shift 2
	nfiles=$#
	mkdir -p "$TEST_TMP/$set_id"
	grep -v '^#' "$GOLDEN/commands" | while read -r cmd_name args; do
		[ -n "$cmd_name" ] || continue
		if [ "$cmd_name" = multi ]; then
			[ "$nfiles" -gt 1 ] || continue
			cmd_name=${args%% *}
			args=${args#* }
		fi
		args=$(printf '%s' "$args" | sed "s|\\\$CORPUS|$TREX_CORPUS|g")
		case $args in *--format*) ;; *) args="$args --format json" ;; esac
		# shellcheck disable=SC2086 # the arguments are words, no spaces
		(cd "$dir" && "$TREX" $args -q "$@" </dev/null \
			>"$TEST_TMP/$set_id/$cmd_name.json" 2>/dev/null)
		echo "$set_id/$cmd_name $?"
	done
}

: >"$TEST_TMP/status"
grep -v '^#' "$GOLDEN/traces" | while read -r set_id files; do
	[ -n "$set_id" ] || continue
	case $files in
	data/*) # shellcheck disable=SC2086
		run_set "$set_id" "$DATA" $(printf '%s\n' $files | sed 's|^data/||') ;;
	*) # shellcheck disable=SC2086
		run_set "$set_id" "$TREX_CORPUS" $files ;;
	esac >>"$TEST_TMP/status"
done

if [ "${GOLDEN_UPDATE:-0}" = 1 ]; then
	while read -r case_id rc; do
		mkdir -p "$GOLDEN/${case_id%/*}"
		gzip -9n <"$TEST_TMP/$case_id.json" >"$GOLDEN/$case_id.json.gz"
	done <"$TEST_TMP/status"
	cp "$TEST_TMP/status" "$GOLDEN/status"
	ok "golden outputs written to $GOLDEN"
	done_testing
	exit
fi

while read -r case_id rc; do
	want_rc=$(grep "^$case_id " "$GOLDEN/status" | cut -d' ' -f2)
	if [ ! -f "$GOLDEN/$case_id.json.gz" ]; then
		not_ok "$case_id: no golden file"
	elif ! gzip -dc "$GOLDEN/$case_id.json.gz" | cmp -s - "$TEST_TMP/$case_id.json"; then
		not_ok "$case_id: output differs from the golden file"
		gzip -dc "$GOLDEN/$case_id.json.gz" >"$TEST_TMP/want.json"
		diff "$TEST_TMP/want.json" "$TEST_TMP/$case_id.json" | head -n 20 >"$TEST_TMP/diff"
		diag_file "$TEST_TMP/diff" 20
	elif [ "$rc" != "$want_rc" ]; then
		not_ok "$case_id: exit $rc, golden $want_rc"
	else
		ok "$case_id"
	fi
done <"$TEST_TMP/status"
# every golden case still runs
if [ "$(wc -l <"$GOLDEN/status")" -ne "$(wc -l <"$TEST_TMP/status")" ]; then
	not_ok "the golden status lists $(wc -l <"$GOLDEN/status") cases, this run $(wc -l <"$TEST_TMP/status")"
fi
done_testing
