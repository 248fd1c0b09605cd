#!/bin/sh
# End-to-end: names with NUL, ESC, other C0 controls, DEL and C1 controls
# (tests/data/control_chars.json, in kernel names, categories, args and
# process/thread names) are kept whole and shown escaped in text, CSV and
# JSON output, checked by tests/e2e/names.py against the trace itself; no
# raw control character reaches stdout or stderr.
. "${TREX_SRCDIR:?run through make check}/tests/e2e/lib.sh"
require_built

data=$TREX_SRCDIR/tests/data
trace=$data/control_chars.json
t=$TEST_TMP

run_trex ktext kernels "$trace"
run_trex kcsv kernels --format csv "$trace"
run_trex kjson kernels --format json "$trace"
run_trex itext info "$trace"
run_trex ijson info --format json "$trace"
for run in ktext kcsv kjson itext ijson; do
	if [ "$(rc_of $run)" -ne 0 ] || [ -s "$t/$run.err" ]; then
		not_ok "trex ($run) exits 0 without messages"
		diag "exit $(rc_of $run)"
		diag_file "$t/$run.err"
	fi
done
"$PYTHON3" "$TREX_SRCDIR/tests/e2e/names.py" "$trace" "$t/ktext.out" "$t/kcsv.out" \
	"$t/kjson.out" "$t/itext.out" "$t/ijson.out" >"$t/py.out" 2>"$t/py.err"
py_rc=$?
tap_from_stream <"$t/py.out"
if [ "$py_rc" -ne 0 ]; then
	not_ok "names.py ran (exit $py_rc)"
	diag_file "$t/py.err" 30
fi

# An error message naming a path with an escape sequence shows it escaped.
esc=$(printf '\033')
run_trex badpath kernels "$t/no${esc}[31mfile.json"
if [ "$(rc_of badpath)" -eq 2 ] && grep -q -F 'no\x1b[31mfile.json' "$t/badpath.err" &&
	! grep -q "$esc" "$t/badpath.err"; then
	ok "an error naming a path with ESC in it shows \\x1b, never the raw byte"
else
	not_ok "an error naming a path with ESC in it shows \\x1b, never the raw byte"
	diag "exit $(rc_of badpath)"
	diag_file "$t/badpath.err"
fi

done_testing
