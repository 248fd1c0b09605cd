#!/bin/sh
# Keys bound to views this trex does not have yet (3 stalls, 5 sources,
# e open-source) say so in the status line instead of doing nothing, in
# the timeline and in a table; a key bound to nothing stays silent.
. "${TREX_SRCDIR:-.}/tests/e2e/lib.sh"
require_built
. "${TREX_SRCDIR:-.}/tests/screen/lib.sh"

W=120 H=30

# pending KEYS WHAT DESCRIPTION: the last screen line after KEYS names WHAT.
pending() {
	screen_script "$W" "$H" "$TEST_TMP/screen.txt" "$1" --demo
	if tail -n 2 "$TEST_TMP/screen.txt" | grep -F -q -- "$2 is not in this trex yet"; then
		ok "$3"
	else
		not_ok "$3"
		diag_file "$TEST_TMP/screen.txt" 40
	fi
}

pending '3' 'the stalls view' '3 in the timeline: no stalls view yet'
pending '2 3' 'the stalls view' '3 in the kernels table: no stalls view yet'
pending '5' 'the sources view' '5: no sources view yet'
pending '2 e' 'opening a source line in $EDITOR' 'e: no open-source yet'

screen_script "$W" "$H" "$TEST_TMP/plain.txt" '2' --demo
check "a key that is bound says nothing of the sort" \
	sh -c "! grep -q 'is not in this trex yet' '$TEST_TMP/plain.txt'"

done_testing
