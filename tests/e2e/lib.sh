# TAP helpers for the end-to-end tests (sourced, POSIX sh).
#
# The automake TAP driver reads stdout: one "ok N - what" / "not ok N - what"
# per check, "# ..." diagnostics, and the plan "1..N", printed at the end by
# done_testing (a trailing plan is valid TAP). Environment (Makefile.am):
# TREX, TREX_DUMP, TREX_SRCDIR, TREX_CORPUS, PYTHON3.

tap_n=0

# A private scratch directory, removed on exit.
TEST_TMP=$(mktemp -d "${TMPDIR:-/tmp}/trex-e2e.XXXXXX") || exit 99
trap 'rm -rf "$TEST_TMP"' EXIT
trap 'exit 130' INT TERM

# Index files (TRACE.trex) go to the scratch directory, never beside the
# traces in the source tree or the corpus: every test runs through the
# cache, writing on a file's first load and mapping it on the next.
# TREX_TEST_INDEX_DIR keeps them across scripts and runs instead: a second
# run of the suite then loads every trace from its index file.
TREX_INDEX_DIR=${TREX_TEST_INDEX_DIR:-$TEST_TMP/index}
export TREX_INDEX_DIR

: "${PYTHON3:=python3}"
E2E_DIR=${TREX_SRCDIR:-.}/tests/e2e
EXPECTED_PY=$E2E_DIR/expected.py

# diag LINE... : prints each argument as a TAP diagnostic.
diag() {
	for line in "$@"; do
		printf '%s\n' "$line" | sed 's/^/# /'
	done
}

# diag_file FILE [MAX_LINES]: a file's head as diagnostics.
diag_file() {
	[ -s "$1" ] || return 0
	printf '# --- %s\n' "${1##*/}"
	head -n "${2:-20}" "$1" | sed 's/^/#   /'
}

ok() {
	tap_n=$((tap_n + 1))
	printf 'ok %d - %s\n' "$tap_n" "$1"
}

not_ok() {
	tap_n=$((tap_n + 1))
	printf 'not ok %d - %s\n' "$tap_n" "$1"
}

skip() {
	tap_n=$((tap_n + 1))
	printf 'ok %d - %s # SKIP %s\n' "$tap_n" "$1" "$2"
}

# check DESCRIPTION COMMAND...: ok when the command succeeds; on failure its
# output (stdout and stderr, kept in a file) becomes the diagnostics.
check() {
	desc=$1
	shift
	if "$@" >"$TEST_TMP/check.out" 2>&1; then
		ok "$desc"
	else
		not_ok "$desc"
		diag "command: $*"
		diag_file "$TEST_TMP/check.out" 40
	fi
}

# skip_all REASON: the whole script is skipped.
skip_all() {
	printf '1..0 # SKIP %s\n' "$1"
	exit 0
}

# bail_out REASON: stops the whole test run (the driver reports an error).
bail_out() {
	printf 'Bail out! %s\n' "$1"
	exit 1
}

done_testing() {
	printf '1..%d\n' "$tap_n"
	return 0 # failures are the "not ok" lines; a non-zero exit means the script broke
}

# tap_from_stream: turns "PASS what" / "FAIL what" lines on stdin (as
# expected.py prints them) into TAP lines; other lines become diagnostics.
tap_from_stream() {
	while IFS= read -r line; do
		case $line in
		"PASS "*) ok "${line#PASS }" ;;
		"FAIL "*) not_ok "${line#FAIL }" ;;
		"SKIP "*)
			rest=${line#SKIP }
			skip "${rest%% -- *}" "${rest#* -- }"
			;;
		*) diag "$line" ;;
		esac
	done
}

# run_trex NAME ARGS...: runs $TREX with stdin closed; stdout, stderr and the
# exit status go to $TEST_TMP/NAME.{out,err,rc}. Returns 0.
run_trex() {
	name=$1
	shift
	"$TREX" "$@" <"/dev/null" >"$TEST_TMP/$name.out" 2>"$TEST_TMP/$name.err"
	echo $? >"$TEST_TMP/$name.rc"
	return 0
}

# rc_of NAME: the exit status saved by run_trex.
rc_of() {
	cat "$TEST_TMP/$1.rc"
}

# sanitizer_clean FILE: no AddressSanitizer/UBSan/LeakSanitizer report in FILE.
sanitizer_clean() {
	! grep -E -q 'ERROR: (Address|Leak|Undefined)Sanitizer|runtime error:|SUMMARY: [A-Za-z]+Sanitizer' "$1"
}

# require_built: skips everything when the program under test is missing.
require_built() {
	[ -n "${TREX:-}" ] || bail_out "TREX is not set (run through make check)"
	[ -x "$TREX" ] || bail_out "$TREX is not built"
	command -v "$PYTHON3" >/dev/null 2>&1 || bail_out "python3 not found ($PYTHON3)"
}

# have_corpus: is the shared corpus there?
have_corpus() {
	[ -n "${TREX_CORPUS:-}" ] && [ -d "$TREX_CORPUS/kineto" ]
}

# run_checker SCRIPT SUBCOMMAND ARGS...: runs a Python checker and reports
# its PASS/FAIL lines as TAP; a crash of the checker itself is a failure too.
run_checker() {
	script=$1
	shift
	TEST_TMP=$TEST_TMP TREX=$TREX "$PYTHON3" "$script" "$@" >"$TEST_TMP/py.out" \
		2>"$TEST_TMP/py.err"
	py_rc=$?
	tap_from_stream <"$TEST_TMP/py.out"
	if [ "$py_rc" -ne 0 ] && ! grep -q '^FAIL ' "$TEST_TMP/py.out"; then
		not_ok "${script##*/} $1 ran (exit $py_rc)"
		diag_file "$TEST_TMP/py.err" 30
	fi
}

# run_py SUBCOMMAND ARGS...: expected.py's checks as TAP.
run_py() {
	run_checker "$EXPECTED_PY" "$@"
}

# expect_usage LABEL ARGS...: trex exits 1 with one message line.
expect_usage() {
	label=$1
	shift
	run_trex usage "$@"
	if [ "$(rc_of usage)" -eq 1 ] && grep -q '^trex: ' "$TEST_TMP/usage.err"; then
		ok "usage error: $label"
	else
		not_ok "usage error: $label"
		diag "exit $(rc_of usage)"
		diag_file "$TEST_TMP/usage.err"
	fi
}

# corpus_traces: the Chrome-JSON traces of the corpus, one per line.
corpus_traces() {
	for f in "$TREX_CORPUS"/kineto/*/* "$TREX_CORPUS"/acelyzer/*.json; do
		[ -f "$f" ] && printf '%s\n' "$f"
	done
}
