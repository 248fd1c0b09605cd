#!/bin/sh
# Bounded fuzz runs of tests/fuzz/fuzz_json.c, fuzz_classify.c, fuzz_metrics.c,
# fuzz_perfetto.c and the stall-report parsers' fuzz_unitrace.c, fuzz_ncu.c and
# fuzz_asm.c, and the ASTRA-sim and PyTorch host-trace parsers' fuzz_astrasim_*.c
# (`make fuzz`).
#
#   tests/fuzz/run.sh SRCDIR BUILDDIR
#
# Builds the libFuzzer target with clang -fsanitize=fuzzer,address,undefined
# from the core sources listed in Makefile.am (libtrex_core_a_SOURCES) and
# BUILDDIR/config.h, seeds it from every JSON and gzip file of the shared
# corpus and tests/data (gzip files also decompressed; seeds cut to the
# maximum input length), and runs it for FUZZ_SECONDS (default 60) seconds;
# then fuzz_classify.c (compiler logs and traces through the device-work
# analyses), seeded with the same files and the corpus' .txt and .log
# compiler logs, for FUZZ_CLASSIFY_SECONDS (default 15); then fuzz_metrics.c
# (unitrace metric CSVs and text reports, Kineto profiler ranges), seeded
# with the same files and the unitrace texts of tests/data/metrics and the
# corpus, for FUZZ_METRICS_SECONDS (default 15); then fuzz_perfetto.c
# (the Perfetto protobuf decoder), seeded with the corpus perfetto/ traces,
# for FUZZ_PERFETTO_SECONDS (default 15); then fuzz_chakra.c (the Chakra
# ET decoder and loader), seeded with the corpus chakra/ files, for
# FUZZ_CHAKRA_SECONDS (default 15); then fuzz_index_file.c (the index-file
# opener, checksums off), seeded with the index files of tests/data traces,
# for FUZZ_INDEX_SECONDS (default 15).
# Any crash, leak, sanitizer report or timeout fails the run; the input that
# caused it is kept in BUILDDIR/tests/fuzz/out/. Environment: FUZZ_SECONDS,
# FUZZ_MAX_LEN (65536), FUZZ_CC (clang), FUZZ_JOBS (2, compile jobs),
# TREX_CORPUS (default SRCDIR/../shared/corpus).
set -eu

srcdir=$(cd "${1:?usage: run.sh SRCDIR BUILDDIR}" && pwd)
builddir=$(cd "${2:?usage: run.sh SRCDIR BUILDDIR}" && pwd)
seconds=${FUZZ_SECONDS:-60}
max_len=${FUZZ_MAX_LEN:-65536}
cc=${FUZZ_CC:-clang}
jobs=${FUZZ_JOBS:-2}
corpus=${TREX_CORPUS:-$srcdir/../shared/corpus}
work=$builddir/tests/fuzz/out

fail() {
	echo "fuzz: FAIL: $*"
	exit 1
}

command -v "$cc" >/dev/null 2>&1 || fail "$cc not found (Debian: apt-get install clang libclang-rt-14-dev)"
[ -f "$builddir/config.h" ] || fail "$builddir/config.h missing (run configure first)"
pkg-config --exists zlib libpcre2-8 libprotobuf-c ||
	fail "pkg-config cannot find zlib, libpcre2-8 and libprotobuf-c"
command -v protoc-c >/dev/null 2>&1 || fail "protoc-c not found (Debian: apt-get install protobuf-c-compiler)"

mkdir -p "$work/obj" "$work/corpus"
rm -rf "$work/seeds" "$work/obj"/*.o
mkdir -p "$work/seeds"

# ---- build ---------------------------------------------------------------
# The stall-report parsers' targets (fuzz_stalls.h), each run FUZZ_STALLS_SECONDS (default 10).
stall_targets='tests/fuzz/fuzz_unitrace.c tests/fuzz/fuzz_ncu.c tests/fuzz/fuzz_asm.c'
# The ASTRA-sim and PyTorch host-trace parsers' targets, each run FUZZ_ASTRA_SECONDS
# (default 10), seeded with tests/data/astrasim and the corpus astrasim1/ and pytorch_et/.
astra_targets='tests/fuzz/fuzz_astrasim_timeline.c tests/fuzz/fuzz_astrasim_text.c
	tests/fuzz/fuzz_pytorch_et.c'
# The .c files of libtrex_core_a_SOURCES (its `=` and `+=` lines), in
# Makefile.am order, and the protobuf-c code protoc-c generates.
sources=$(awk '/^libtrex_core_a_SOURCES[[:space:]]*\+?=/ { on = 1 }
	on { print; if ($0 !~ /\\$/) on = 0 }' "$srcdir/Makefile.am" |
	tr -d '\\' | tr ' \t' '\n\n' | grep '\.c$') || fail "no libtrex_core_a_SOURCES in Makefile.am"
mkdir -p "$work/proto"
protoc-c --proto_path="$srcdir/src/load/proto" --c_out="$work/proto" \
	"$srcdir/src/load/proto/perfetto_trace.proto" || fail "protoc-c failed"
protoc-c --proto_path="$srcdir/src/load/proto" --c_out="$work/proto" \
	"$srcdir/src/load/proto/chakra_et.proto" || fail "protoc-c failed"

# ISA-L as configured for BUILDDIR (config.h's HAVE_ISAL decides the code)
isal_cflags=$(sed -n 's/^ISAL_CFLAGS = //p' "$builddir/Makefile" 2>/dev/null)
isal_libs=$(sed -n 's/^ISAL_LIBS = //p' "$builddir/Makefile" 2>/dev/null)

set -f # cflags and libs are word lists
cflags="-std=gnu17 -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined
 -fno-sanitize-recover=all -fsanitize=fuzzer-no-link -I$builddir -I$srcdir/include
 -pthread $(pkg-config --cflags zlib libpcre2-8 libprotobuf-c) $isal_cflags
 -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
 -I$work/proto -I$srcdir/src/load"
libs="$isal_libs $(pkg-config --libs zlib libpcre2-8 libprotobuf-c) -lm -pthread"

: >"$work/build.log"
objects=
pids=
for s in $sources tests/fuzz/fuzz_json.c tests/fuzz/fuzz_classify.c tests/fuzz/fuzz_metrics.c \
	tests/fuzz/fuzz_perfetto.c "$work/proto/perfetto_trace.pb-c.c" tests/fuzz/fuzz_chakra.c \
	tests/fuzz/fuzz_index_file.c \
	$stall_targets $astra_targets; do
	o=$work/obj/$(printf '%s' "${s%.c}" | tr '/' '_').o
	objects="$objects $o"
	case $s in /*) ;; *) s=$srcdir/$s ;; esac
	"$cc" $cflags -DTREX_PKGDATADIR='"/nonexistent"' -c "$s" -o "$o" \
		>>"$work/build.log" 2>&1 &
	pids="$pids $!"
	if [ "$(echo "$pids" | wc -w)" -ge "$jobs" ]; then
		for p in $pids; do wait "$p" || build_failed=1; done
		pids=
	fi
done
for p in $pids; do wait "$p" || build_failed=1; done
core_objects=
for o in $objects; do
	case $o in *tests_fuzz_fuzz_*) ;; *) core_objects="$core_objects $o" ;; esac
done
for target in fuzz_json fuzz_classify fuzz_metrics fuzz_perfetto fuzz_chakra fuzz_index_file \
	fuzz_unitrace \
	fuzz_ncu fuzz_asm $(for t in $astra_targets; do basename "$t" .c; done); do
	if [ -n "${build_failed:-}" ] || ! "$cc" -fsanitize=fuzzer,address,undefined $core_objects \
		"$work/obj/tests_fuzz_$target.o" $libs -o "$work/$target" >>"$work/build.log" 2>&1; then
		cat "$work/build.log"
		fail "cannot build the fuzz target $target"
	fi
done
set +f

# ---- seeds ---------------------------------------------------------------
n=0
add_seed() { # FILE: the file itself and, for gzip, its decompressed text
	n=$((n + 1))
	head -c "$max_len" "$1" >"$work/seeds/$n"
	if [ "$(head -c 2 "$1" | od -An -tx1 | tr -d ' \n')" = 1f8b ]; then
		n=$((n + 1))
		{ gzip -dc "$1" 2>/dev/null || :; } | head -c "$max_len" >"$work/seeds/$n"
	fi
}
for dir in "$srcdir/tests/data" "$corpus"; do
	[ -d "$dir" ] || continue
	find "$dir" -type f \( -name '*.json' -o -name '*.gz' \) | LC_ALL=C sort >"$work/seed-files"
	while IFS= read -r f; do
		add_seed "$f"
	done <"$work/seed-files"
done
[ -d "$corpus/acelyzer" ] && for f in "$corpus"/acelyzer/*.txt "$corpus"/acelyzer/*.log; do
	[ -f "$f" ] && add_seed "$f"
done
for dir in "$srcdir/tests/data/metrics" "$corpus/unitrace"; do
	[ -d "$dir" ] || continue
	find "$dir" -type f ! -name '*.py' ! -name '*.md' ! -name '*.json' | LC_ALL=C sort \
		>"$work/seed-files"
	while IFS= read -r f; do
		add_seed "$f"
	done <"$work/seed-files"
done
# Perfetto traces: the corpus perfetto/ files (cut to max_len) and gzip copies.
rm -rf "$work/seeds-perfetto"
mkdir -p "$work/seeds-perfetto"
n_pf=0
for f in "$corpus"/perfetto/*; do
	[ -f "$f" ] || continue
	n_pf=$((n_pf + 1))
	head -c "$max_len" "$f" >"$work/seeds-perfetto/$n_pf"
	gzip -c "$f" | head -c "$max_len" >"$work/seeds-perfetto/$n_pf.gz"
done
# Chakra ET files: the corpus chakra/ files (cut to max_len).
rm -rf "$work/seeds-chakra"
mkdir -p "$work/seeds-chakra"
n_ck=0
for f in "$corpus"/chakra/*/*; do
	[ -f "$f" ] || continue
	n_ck=$((n_ck + 1))
	head -c "$max_len" "$f" >"$work/seeds-chakra/$n_ck"
done
# Index files: those BUILDDIR's trex writes for the tests/data traces.
rm -rf "$work/seeds-index"
mkdir -p "$work/seeds-index"
if [ -x "$builddir/src/trex" ]; then
	TREX_INDEX_DIR=$work/seeds-index "$builddir/src/trex" index -j "$jobs" \
		"$srcdir"/tests/data/*.json "$srcdir"/tests/data/*.json.gz >/dev/null 2>&1 || :
else
	echo "fuzz: note: $builddir/src/trex not built, fuzz_index_file starts unseeded"
fi
[ -d "$corpus" ] || echo "fuzz: note: corpus $corpus not found, seeding from tests/data only"

# ---- run ---------------------------------------------------------------
# fuzz TARGET SECONDS DICT CORPUS...: runs one target over the corpus
# directories (new inputs go to the first); fails on any finding.
fuzz() {
	target=$1 secs=$2 dict=$3
	shift 3
	mkdir -p "$1"
	echo "fuzz: $target: $n seeds, ${secs}s, max_len $max_len"
	rm -f "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-*
	set +e
	ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1} \
	UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
		"$work/$target" -max_total_time="$secs" -max_len="$max_len" -timeout=20 \
		-rss_limit_mb=2048 ${dict:+-dict="$dict"} -artifact_prefix="$work/" \
		-print_final_stats=1 "$@" >"$work/$target.log" 2>&1 </dev/null
	rc=$?
	set -e
	runs=$(sed -n 's/^Done \([0-9]*\) runs in \([0-9]*\) second.*/\1 runs in \2 s/p' "$work/$target.log")
	if [ "$rc" -ne 0 ]; then
		tail -n 60 "$work/$target.log"
		for a in "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-*; do
			[ -e "$a" ] && echo "fuzz: artifact: $a"
		done
		fail "$target exited with $rc (log: $work/$target.log)"
	fi
	echo "fuzz: $target: PASS: ${runs:-?}, no crash, leak or sanitizer report"
}

fuzz fuzz_json "$seconds" "$srcdir/tests/fuzz/json.dict" "$work/corpus" "$work/seeds"
fuzz fuzz_classify "${FUZZ_CLASSIFY_SECONDS:-15}" "" "$work/corpus-classify" "$work/seeds"
fuzz fuzz_metrics "${FUZZ_METRICS_SECONDS:-15}" "" "$work/corpus-metrics" "$work/seeds"

# The stall parsers, seeded with their own fixtures (tests/data/stalls).
for kind in unitrace:intel/*.csv ncu:nvidia/*.csv asm:intel/dumps/*.asm; do
	target=fuzz_${kind%%:*}
	mkdir -p "$work/seeds-$target"
	for f in "$srcdir"/tests/data/stalls/${kind#*:}; do
		[ -f "$f" ] && head -c "$max_len" "$f" >"$work/seeds-$target/${f##*/}"
	done
	fuzz "$target" "${FUZZ_STALLS_SECONDS:-10}" "" "$work/corpus-$target" "$work/seeds-$target"
done

n=$((n_pf * 2)) # the perfetto seeds, for fuzz's message
fuzz fuzz_perfetto "${FUZZ_PERFETTO_SECONDS:-15}" "" "$work/corpus-perfetto" "$work/seeds-perfetto"
n=$n_ck # the chakra seeds, for fuzz's message
fuzz fuzz_chakra "${FUZZ_CHAKRA_SECONDS:-15}" "" "$work/corpus-chakra" "$work/seeds-chakra"
fuzz fuzz_index_file "${FUZZ_INDEX_SECONDS:-15}" "" "$work/corpus-index" "$work/seeds-index"

# The ASTRA-sim and PyTorch host-trace parsers, seeded with their own files.
rm -rf "$work/seeds-astra"
mkdir -p "$work/seeds-astra"
n=0
for f in "$srcdir"/tests/data/astrasim/* "$corpus"/astrasim1/* "$corpus"/pytorch_et/*; do
	[ -f "$f" ] || continue
	n=$((n + 1))
	head -c "$max_len" "$f" >"$work/seeds-astra/$n"
done
for t in $astra_targets; do
	target=$(basename "$t" .c)
	fuzz "$target" "${FUZZ_ASTRA_SECONDS:-10}" "" "$work/corpus-$target" "$work/seeds-astra"
done
