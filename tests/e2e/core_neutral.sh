#!/bin/sh
# The core is format-neutral (issue 11): src/core holds no Chrome phase
# letter handling, no trace dialect's category spelling and no JSON
# scanning, and no object of src/core refers to a symbol that an object of
# src/load defines (the loaders build on the core, never the reverse); the
# demo generator is not in the core library.
. "${TREX_SRCDIR:?run through make check}/tests/e2e/lib.sh"
require_built

core=$TREX_SRCDIR/src/core
load=$TREX_SRCDIR/src/load
builddir=${TREX%/src/trex}

# grep_core DESCRIPTION EXTENDED-REGEX: ok when no line of src/core matches.
grep_core() {
	if grep -nE "$2" "$core"/*.c "$core"/*.h >"$TEST_TMP/hits" 2>/dev/null; then
		not_ok "$1"
		diag_file "$TEST_TMP/hits" 20
	else
		ok "$1"
	fi
}

grep_core "no Chrome phase letters (ph, 'B', 'E', 'X', ...) in src/core" \
	"\"ph\"|\bph *[=!]=|'[BEXbenstfiIMC]' *[:,)]|case +'[BEXbenstfiIMC]'"
grep_core "no phase tables (TREX_PH_*, trex_phase_*) in src/core" 'TREX_PH_|trex_phase_'
grep_core "no JSON scanning (json_scan, traceEvents, args objects) in src/core" \
	'json_scan|traceEvents|"args"|\\"[a-zA-Z]+\\"'
grep_core "no loader header included by src/core" '#include "trex/load/|#include "\.\./load/'

# Every category spelling the Chrome loader classifies (src/load/kinds.c)
# stays out of src/core as a string.
sed -n 's/^[[:space:]]*{"\([^"]*\)", .*/\1/p' "$load/kinds.c" | sort -u >"$TEST_TMP/cats"
if [ "$(wc -l <"$TEST_TMP/cats")" -lt 10 ]; then
	not_ok "src/load/kinds.c lists the dialects' categories"
else
	ok "src/load/kinds.c lists $(wc -l <"$TEST_TMP/cats") category spellings"
fi
: >"$TEST_TMP/cat_hits"
while read -r cat; do
	[ -n "$cat" ] || continue
	grep -nF "\"$cat\"" "$core"/*.c "$core"/*.h >>"$TEST_TMP/cat_hits" 2>/dev/null
done <"$TEST_TMP/cats"
if [ -s "$TEST_TMP/cat_hits" ]; then
	not_ok "no Kineto/unitrace/acelyzer category spelling in src/core"
	diag_file "$TEST_TMP/cat_hits" 20
else
	ok "no Kineto/unitrace/acelyzer category spelling in src/core"
fi

# Symbols: what src/load objects define, against what src/core objects use.
if ! command -v nm >/dev/null 2>&1; then
	skip "no src/core object refers to a src/load symbol" "nm not installed (binutils)"
else
	# the objects of the sources there are (a build tree may hold stale ones)
	objects() {
		for src in "$TREX_SRCDIR/src/$1"/*.c; do
			obj=$builddir/src/$1/libtrex_core_a-$(basename "$src" .c).o
			[ -f "$obj" ] || { echo "$obj" >&2 && return 1; }
			printf '%s\n' "$obj"
		done
	}
	objects load >"$TEST_TMP/load_objs" || bail_out "src/load objects not built"
	objects core >"$TEST_TMP/core_objs" || bail_out "src/core objects not built"
	# shellcheck disable=SC2046 # object paths have no spaces
	nm -g --defined-only $(cat "$TEST_TMP/load_objs") 2>/dev/null |
		awk 'NF == 3 { print $3 }' | sort -u >"$TEST_TMP/load_syms"
	# shellcheck disable=SC2046
	nm -u $(cat "$TEST_TMP/core_objs") 2>/dev/null | awk 'NF == 2 { print $2 }' |
		sort -u >"$TEST_TMP/core_needs"
	comm -12 "$TEST_TMP/load_syms" "$TEST_TMP/core_needs" >"$TEST_TMP/crossing"
	if [ ! -s "$TEST_TMP/load_syms" ]; then
		not_ok "src/load objects define symbols"
	elif [ -s "$TEST_TMP/crossing" ]; then
		not_ok "no src/core object refers to a src/load symbol"
		diag_file "$TEST_TMP/crossing" 20
	else
		ok "no src/core object refers to any of $(wc -l <"$TEST_TMP/load_syms") src/load symbols"
	fi
fi

# The demo and benchmark generator (src/demo) is beside the core library.
if command -v nm >/dev/null 2>&1; then
	nm -g --defined-only "$builddir/libtrex_core.a" 2>/dev/null | grep -E ' T trex_synth_' \
		>"$TEST_TMP/synth"
	if [ -s "$TEST_TMP/synth" ]; then
		not_ok "libtrex_core.a holds no synthetic trace generator"
		diag_file "$TEST_TMP/synth"
	else
		ok "libtrex_core.a holds no synthetic trace generator"
	fi
fi

done_testing
