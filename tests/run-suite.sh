#!/usr/bin/env bash
# The test command (CI runs it through .ci/run):
#
#   1. bootstrap: autoreconf -fi when configure is missing or older than
#      configure.ac;
#   2. build/normal: configure --enable-werror, make, make check, and once
#      make distcheck (its own make check runs the unit tests and the golden
#      outputs; scripts/check-dist.sh then checks that the tarball holds
#      every file git tracks);
#   3. build/asan: configure --enable-werror --enable-sanitizers, make check
#      (ASan + UBSan, leaks detected, any report aborts; TREX_E2E_QUICK=1:
#      fewer damaged-input variants than the normal build's);
#   4. build/noisal: configure --enable-werror --without-isal (gzip through
#      zlib alone), built with clang where it is installed (the other builds
#      use the default compiler, gcc: so both compilers' warnings, tests
#      included, are errors at no extra build), make check of a fast subset:
#      the source, loader and Chrome-parser unit tests and every command's
#      golden output;
#   5. make fuzz: the JSON target for FUZZ_SECONDS (default here 30) seconds,
#      the other parsers' targets for 8 seconds each (FUZZ_*_SECONDS);
#   6. scripts/check-format.sh: every tracked C file as clang-format 14 writes it.
#
# Prints the failing logs, and ends with exactly one line "N passed, N failed":
# the tests of the make check runs (PASS vs FAIL + ERROR + XPASS of each
# test-suite.log), plus distcheck, the fuzz run and the format check as one test each. Exits
# non-zero when anything failed. Needs no terminal and no stdin.
#
# Environment: JOBS (make -j, default 2), FUZZ_SECONDS (30), TREX_CORPUS (the
# shared trace corpus; default ../shared/corpus beside this checkout or beside
# the repository it was cloned from), SKIP_DISTCHECK=1, SKIP_ASAN=1, SKIP_NOISAL=1,
# SKIP_FUZZ=1, SKIP_FORMAT=1.
set -u
exec </dev/null

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$top" || exit 2
jobs=${JOBS:-2}
# CI fuzzes each parser briefly (a smoke run over the seeds and a little
# beyond); `make fuzz` alone keeps its longer defaults.
export FUZZ_SECONDS=${FUZZ_SECONDS:-30}
for f in CLASSIFY METRICS PERFETTO CHAKRA INDEX STALLS ASTRA; do
	v=FUZZ_${f}_SECONDS
	export "$v=${!v:-8}"
done
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
start=$SECONDS
passed=0
failed=0
notes=()

say() { printf '\n=== run-suite [%ds]: %s\n' "$((SECONDS - start))" "$*"; }

# Counts a make check run from its test-suite.log.
count_log() { # LOG
	local p f
	p=$(awk '/^# PASS:/ { s += $3 } END { print s + 0 }' "$1")
	f=$(awk '/^# (FAIL|ERROR|XPASS):/ { s += $3 } END { print s + 0 }' "$1")
	passed=$((passed + p))
	failed=$((failed + f))
	notes+=("$2: $p passed, $f failed")
}

one_test() { # NAME OK(0/1)
	if [ "$2" -eq 0 ]; then
		passed=$((passed + 1))
		notes+=("$1: passed")
	else
		failed=$((failed + 1))
		notes+=("$1: FAILED")
	fi
}

# ---- the corpus -----------------------------------------------------------------
find_corpus() {
	local origin c
	if [ -n "${TREX_CORPUS:-}" ] && [ -d "$TREX_CORPUS" ]; then
		TREX_CORPUS=$(cd "$TREX_CORPUS" && pwd)
		return 0
	fi
	origin=$(git -C "$top" config --get remote.origin.url 2>/dev/null || true)
	origin=${origin#file://}
	for c in "$top/../shared/corpus" "${origin:+$origin/../shared/corpus}"; do
		if [ -n "$c" ] && [ -d "$c/kineto" ]; then
			TREX_CORPUS=$(cd "$c" && pwd)
			return 0
		fi
	done
	return 1
}
if find_corpus; then
	export TREX_CORPUS
else
	unset TREX_CORPUS
	notes+=("corpus: NOT FOUND (../shared/corpus); corpus tests were skipped")
fi

# ---- bootstrap ------------------------------------------------------------------------
# Automake refuses out-of-tree builds of a source tree configured in place
# (the README's quick start does that), so such a tree is tested through a
# pristine copy of its files in build/src.
src=$top
if [ -f "$top/config.status" ]; then
	say "the source tree is configured in place: testing a copy in build/src"
	rm -rf build/src
	mkdir -p build/src
	if [ -d .git ]; then
		git ls-files -z --cached --others --exclude-standard |
			tar --null -T - --ignore-failed-read -cf - 2>/dev/null | tar -C build/src -xf -
	else
		tar --exclude=./build --exclude=./config.status --exclude=./config.log --exclude=./Makefile \
			--exclude='*.o' --exclude='*.a' -cf - . | tar -C build/src -xf -
	fi
	src=$top/build/src
fi
if [ ! -x "$src/configure" ] || [ "$src/configure" -ot "$src/configure.ac" ]; then
	say "autoreconf -fi"
	(cd "$src" && autoreconf -fi) || {
		one_test autoreconf 1
		printf '%d passed, %d failed\n' "$passed" "$failed"
		exit 1
	}
fi

# configure_build DIR FLAGS...: configures (when needed) and builds in build/DIR.
configure_build() {
	local dir=$1 flags
	shift
	flags="$src $*"
	if [ "$(cat "build/$dir/.flags" 2>/dev/null)" != "$flags" ]; then
		rm -rf "build/$dir" # other sources or options: start afresh
	fi
	mkdir -p "build/$dir"
	if [ ! -f "build/$dir/config.status" ] || [ "build/$dir/config.status" -ot "$src/configure" ]; then
		say "configure ($dir): $*"
		(cd "build/$dir" && "$src/configure" "$@") >"build/$dir.configure.log" 2>&1 || {
			tail -n 40 "build/$dir.configure.log"
			return 1
		}
		echo "$flags" >"build/$dir/.flags"
	fi
	say "make ($dir)"
	make -C "build/$dir" -j"$jobs"
}

# slowest BUILDDIR: the eight tests of the last make check that ran longest
# (birth to last write of each .log), to keep the suite's time in view.
slowest() {
	find "$1/tests" -name '*.log' -newer "$1/config.status" -exec stat -c '%W %Y %n' {} + 2>/dev/null |
		awk '$1 > 0 { printf "%6ds %s\n", $2 - $1, $3 }' | sort -rn | head -n 8 |
		sed 's/^/  slowest: /'
}

# check DIR [MAKE-ARGS...]: make check in build/DIR (TESTS='...' for a
# subset); counts its tests.
check() {
	local dir=$1 log=build/$1/test-suite.log
	shift
	say "make check ($dir) $*"
	rm -f "$log"
	if ! make -C "build/$dir" -j"$jobs" check "$@"; then
		[ -f "$log" ] && cat "$log"
	fi
	if [ -f "$log" ]; then
		count_log "$log" "make check ($dir)"
		slowest "build/$dir"
	else
		one_test "make check ($dir): no test-suite.log" 1
	fi
}

# ---- 2. normal build ------------------------------------------------------------------
if configure_build normal --enable-werror; then
	check normal
	if [ -z "${SKIP_DISTCHECK:-}" ]; then
		say "make distcheck"
		# The tarball's completeness is checked file by file (check-dist.sh),
		# so the build from it runs the unit tests and the golden outputs
		# only: the whole suite has just run on the same sources.
		if TREX_E2E_QUICK=1 make -C build/normal -j"$jobs" distcheck \
			DISTCHECK_CONFIGURE_FLAGS=--enable-werror \
			TESTS='$(UNIT_TESTS) tests/e2e/golden.sh' >build/distcheck.log 2>&1 &&
			scripts/check-dist.sh build/normal/trex-*.tar.gz >>build/distcheck.log 2>&1; then
			tail -n 7 build/distcheck.log
			one_test "make distcheck" 0
		else
			tail -n 150 build/distcheck.log
			find build/normal -path '*/_build/*' -name test-suite.log -exec cat {} + 2>/dev/null
			one_test "make distcheck (log: build/distcheck.log)" 1
		fi
	fi
else
	one_test "build (normal)" 1
fi

# ---- 3. ASan + UBSan build ---------------------------------------------------------------
if [ -z "${SKIP_ASAN:-}" ]; then
	if configure_build asan --enable-werror --enable-sanitizers; then
		# Fewer damaged variants under the sanitizers (the normal build ran
		# them all; the fuzzers go further): the suite stays under 20 min.
		TREX_E2E_QUICK=1 check asan
	else
		one_test "build (asan)" 1
	fi
fi

# ---- 4. zlib only -------------------------------------------------------------------------
if [ -z "${SKIP_NOISAL:-}" ]; then
	noisal_cc=()
	command -v clang >/dev/null 2>&1 && noisal_cc=(CC=clang)
	if configure_build noisal --enable-werror --without-isal "${noisal_cc[@]}"; then
		check noisal TESTS="tests/unit/test_source tests/unit/test_loader \
tests/unit/test_chrome_json tests/e2e/golden.sh"
	else
		one_test "build (noisal)" 1
	fi
fi

# ---- 5. fuzzing ------------------------------------------------------------------------------
if [ -z "${SKIP_FUZZ:-}" ]; then
	say "make fuzz (${FUZZ_SECONDS}s)"
	if [ -f build/normal/Makefile ] && make -C build/normal fuzz; then
		one_test "fuzz (${FUZZ_SECONDS}s)" 0
	else
		one_test "fuzz (${FUZZ_SECONDS}s)" 1
	fi
fi

# ---- 6. formatting ---------------------------------------------------------------------------
if [ -z "${SKIP_FORMAT:-}" ]; then
	say "clang-format check"
	if scripts/check-format.sh; then
		one_test "clang-format" 0
	else
		one_test "clang-format" 1
	fi
fi

say "summary ($((SECONDS - start))s)"
printf '  %s\n' "${notes[@]}"
printf '%d passed, %d failed\n' "$passed" "$failed"
[ "$failed" -eq 0 ]
