#!/bin/sh
# End-to-end: the man page. groff finds nothing to warn about, and every
# command line of its EXAMPLES section runs (with trex replaced by the
# built program, from the source tree so relative paths resolve) and exits 0.
. "${TREX_SRCDIR:?run through make check}/tests/e2e/lib.sh"
require_built

man=${TREX_MAN:-$(dirname "$TREX")/../man/trex.1}
[ -f "$man" ] || bail_out "man page $man not built"

if ! command -v groff >/dev/null 2>&1; then
	skip "groff -man -ww -z" "groff not installed (Debian: groff-base)"
elif LC_ALL=C.UTF-8 groff -man -ww -z "$man" >"$TEST_TMP/groff.out" 2>&1 && [ ! -s "$TEST_TMP/groff.out" ]; then
	ok "groff -man -ww -z: no warnings"
else
	not_ok "groff -man -ww -z: no warnings"
	diag_file "$TEST_TMP/groff.out" 30
fi

# Command lines of EXAMPLES: lines starting with "trex " up to the next .SH,
# with troff escapes for '-' and '\' undone.
awk '/^\.SH/ { ex = ($0 ~ /^\.SH +"?EXAMPLES?"?/) ; next } ex && /^trex / { print }' "$man" |
	sed -e 's/\\-/-/g' -e 's/\\e/\\/g' -e 's/\\(aq/'"'"'/g' -e 's/\\&//g' >"$TEST_TMP/examples"
n=$(wc -l <"$TEST_TMP/examples")
if [ "$n" -gt 0 ]; then
	ok "EXAMPLES has $n command lines"
else
	not_ok "EXAMPLES has command lines starting with 'trex '"
fi

mkdir "$TEST_TMP/run" && cd "$TEST_TMP/run" || bail_out "cannot make a scratch directory"
i=0
while IFS= read -r line; do
	i=$((i + 1))
	cmd="\"\$TREX\"${line#trex}"
	(eval "$cmd") </dev/null >"$TEST_TMP/ex.out" 2>"$TEST_TMP/ex.err"
	rc=$?
	if [ "$rc" -eq 0 ]; then
		ok "example $i runs: $line"
	else
		not_ok "example $i runs: $line"
		diag "exit $rc"
		diag_file "$TEST_TMP/ex.err"
	fi
done <"$TEST_TMP/examples"

done_testing
