#!/bin/sh
# Load benchmarks (`make bench`): tests/bench/run.sh BUILDDIR
#
# Generates synthetic Kineto traces into tests/bench/data/ (git-ignored,
# reused while the generator is unchanged), plain and gzip -6, and times on
# each: `cat FILE`, tests/bench/baseline.py (Python json.load),
# `trex kernels -q -j1/-j2` and, on plain traces where libsimdjson-dev is
# installed, tests/bench/simdjson_ref.cpp. Prints the machine and a
# Markdown table of medians. See tests/bench/README.md.
#
# Environment:
#   TREX_BENCH_SIZES    event counts (default "100000 1000000 4000000")
#   TREX_BENCH_RUNS     runs per measurement (default 5; the 4M set uses
#                       3, and Python runs once on it)
#   TREX_BENCH_STREAMS  compute streams in the traces (default 2)
#   TREX_BENCH_SEED     generator seed (default 1)
#   TREX_BENCH_PERFETTO events of the Perfetto protobuf trace that
#                       tests/bench/perfetto_gen.py writes (default 1000000;
#                       0: none), timed like the JSON ones
set -eu

[ $# -eq 1 ] || { echo "usage: $0 BUILDDIR" >&2; exit 1; }
builddir=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
srcdir=$(cd "$here/../.." && pwd)
data=$here/data
trex=$builddir/src/trex
python=${PYTHON3:-python3}
sizes=${TREX_BENCH_SIZES:-100000 1000000 4000000}
runs=${TREX_BENCH_RUNS:-5}
streams=${TREX_BENCH_STREAMS:-2}
seed=${TREX_BENCH_SEED:-1}
results=$data/results.jsonl
start=$(date +%s)

machine_info() {
	echo "## Machine"
	echo
	echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "- arch: $(uname -m), kernel $(uname -r)"
	echo "- cpu: $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1)"
	echo "- cores (nproc): $(nproc)"
	echo "- memory: $(free -g | awk '/^Mem:/ { print $2 " GiB total, " $7 " GiB available" }')"
	echo "- python: $("$python" --version 2>&1)"
	echo "- trex: $("$trex" --version 2>/dev/null | head -n 1 || echo missing)"
	echo "- load average at start: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null) (1/5/15 min)"
	echo
}

# gen_trace and the rusage wrapper are compiled straight from the sources,
# with the build's compiler and config.h when there is one.
build_generator() {
	cc=$(sed -n 's/^CC = //p' "$builddir/Makefile" 2>/dev/null || true)
	cc=${cc:-${CC:-cc}}
	inc=$builddir
	if [ ! -f "$builddir/config.h" ]; then
		inc=$data/include
		mkdir -p "$inc"
		: > "$inc/config.h"
	fi
	$cc -O2 -std=gnu17 -I"$inc" -I"$srcdir/include" "$here/gen_trace.c" \
		"$srcdir/src/demo/synthetic.c" "$srcdir/src/core/status.c" -o "$data/gen_trace"
	$cc -O2 -std=gnu17 -I"$inc" "$here/rusage.c" -o "$data/rusage"
	TREX_RUSAGE=$data/rusage
	export TREX_RUSAGE
	# The simdjson reference, only where libsimdjson-dev is installed.
	have_simdjson=no
	if command -v c++ >/dev/null 2>&1 &&
		c++ -O2 -march=native -std=c++17 "$here/simdjson_ref.cpp" -lsimdjson \
			-o "$data/simdjson_ref" 2>/dev/null; then
		have_simdjson=yes
	fi
	# Traces are regenerated only when the generator or its parameters change.
	stamp="$(cat "$srcdir/src/demo/synthetic.c" "$here/gen_trace.c" | cksum | cut -d' ' -f1)"
	stamp="$stamp streams=$streams seed=$seed"
}

# make_trace N: sets $plain, $gz and $events for a trace of about N events.
make_trace() {
	plain=$data/kineto_$1.json
	gz=$plain.gz
	if [ ! -f "$plain.stamp" ] || [ "$(sed -n 1p "$plain.stamp")" != "$stamp" ] ||
		[ ! -f "$gz" ]; then
		rm -f "$plain.stamp"
		"$data/gen_trace" "$1" "$plain" --streams "$streams" --seed "$seed" 2>"$plain.log"
		cat "$plain.log"
		gzip -6 -c "$plain" > "$gz"
		printf '%s\n%s\n' "$stamp" \
			"$(sed -n 's/^gen_trace: \([0-9]*\) events.*/\1/p' "$plain.log")" > "$plain.stamp"
	fi
	events=$(sed -n 2p "$plain.stamp")
}

trex_works() {
	[ -x "$trex" ] && "$trex" info -q "$data/kineto_probe.json" >/dev/null 2>&1
}

# measure LABEL RUNS FILE RAW_BYTES CMD...
measure() {
	label=$1 n=$2 file=$3 raw=$4
	shift 4
	"$python" "$here/measure.py" run "$results" "$label" "$n" "$file" "$events" "$raw" -- "$@"
}

# bench_file FILE RAW_BYTES TOOL_RUNS PYTHON_RUNS
bench_file() {
	cat "$1" > /dev/null # warm the page cache
	measure cat "$3" "$1" "$2" cat "$1"
	measure python "$4" "$1" "$2" "$python" "$here/baseline.py" "$1"
	if [ "$have_trex" = yes ]; then
		measure "trex -j1" "$3" "$1" "$2" "$trex" kernels -q -j1 "$1"
		measure "trex -j2" "$3" "$1" "$2" "$trex" kernels -q -j2 "$1"
	fi
	case $1 in
	*.json)
		if [ "$have_simdjson" = yes ]; then
			measure "simdjson ref" "$3" "$1" "$2" "$data/simdjson_ref" "$1"
			"$data/simdjson_ref" "$1" | sed -n 's/^parse: /    simdjson ref, parse loop alone: /p'
		fi
		;;
	esac
}

# Timeline redraw and search timings (tests/bench/redraw.c and search.c,
# built by `make bench`) on the traces of 1M events and more.
ui_bench() {
	if [ ! -x "$builddir/tests/bench/redraw" ] || [ ! -x "$builddir/tests/bench/search" ]; then
		echo "note: tests/bench/redraw or search not built: skipped" >&2
		return 0
	fi
	echo "## Timeline redraw (200x60, median of 20) and search (median of 5)"
	for n in $sizes; do
		[ "$n" -ge 1000000 ] || continue
		make_trace "$n"
		echo
		TERM=xterm-256color LC_ALL=C.UTF-8 "$builddir/tests/bench/redraw" "$plain" 200x60 20 \
			</dev/null
		echo
		"$builddir/tests/bench/search" "$plain" 5
	done
	echo
}

# Triage tables (tests/bench/tables.c, built by `make bench`): the kernels
# table, each regrouping and re-sort after a load, on the largest trace.
tables_bench() {
	if [ ! -x "$builddir/tests/bench/tables" ]; then
		echo "note: tests/bench/tables not built: skipped" >&2
		return 0
	fi
	last=
	for n in $sizes; do last=$n; done
	make_trace "$last"
	echo "## Triage tables on $(basename "$plain") (median of $runs)"
	echo
	"$builddir/tests/bench/tables" "$plain" --runs "$runs"
	echo
}

# The graph engine (tests/bench/schedule.c, built by `make bench`): finish,
# schedule and critical path of a generated 3M-node, 64-rank graph.
schedule_bench() {
	if [ ! -x "$builddir/tests/bench/schedule" ]; then
		echo "note: tests/bench/schedule not built: skipped" >&2
		return 0
	fi
	echo "## Execution-graph schedule (3M nodes, 64 ranks, median of $runs)"
	echo
	"$builddir/tests/bench/schedule" 3000000 64 "$runs"
	echo
}

# Metric CSV load (tests/bench/metrics.c, built by `make bench`): a 1 GiB
# unitrace -q CSV, generated once, loaded on one thread.
metrics_bench() {
	if [ ! -x "$builddir/tests/bench/metrics" ]; then
		echo "note: tests/bench/metrics not built: skipped" >&2
		return 0
	fi
	csv=$data/unitrace_q_1024mb.csv
	echo "## Metric CSV load (unitrace -q, one thread, median of $runs)"
	echo
	if [ -s "$csv" ]; then
		"$builddir/tests/bench/metrics" "$csv" --runs "$runs"
	else
		"$builddir/tests/bench/metrics" "$csv" --generate 1024 --runs "$runs"
	fi
	echo
}

# The stall views of a kernel with 100k sampled instructions (issue 14
# target: <= 100 ms to open; tests/bench/stalls.c, built by `make bench`):
# the data each view opens with, then trex end to end (--dump-screen)
# loading only, opening the report (3 Enter) and the source pane (5 Enter),
# interleaved. The inputs are generated once per version of stalls.c.
# The trace writers (tests/bench/export.c, built by `make bench`) on the
# 1M-event trace: Chrome JSON, Perfetto, csv; MB/s of output, events/s.
export_bench() {
	if [ ! -x "$builddir/tests/bench/export" ]; then
		echo "note: tests/bench/export not built: skipped" >&2
		return 0
	fi
	n=1000000
	for s in $sizes; do [ "$s" -le 1000000 ] && n=$s; done
	make_trace "$n"
	echo "## Trace export of $(basename "$plain") (median of 3, one thread)"
	echo
	mkdir -p "$data/export"
	"$builddir/tests/bench/export" "$plain" "$data/export" --runs 3
	rm -rf "$data/export"
	echo
}

# Run comparison (issue 16 targets): the alignment of 1M kernels per side
# (tests/bench/diff.c, built by `make bench`), then `trex diff` end to end
# of the 1M-event trace and a copy with kernels removed, added and slowed
# (tests/e2e/diff.py mutate), from the JSON (--no-cache) and from their
# index files, interleaved.
diff_bench() {
	if [ -x "$builddir/tests/bench/diff" ]; then
		echo "## Sequence alignment (median of $runs)"
		echo
		"$builddir/tests/bench/diff" 1000000 --runs "$runs"
		echo
	else
		echo "note: tests/bench/diff not built: skipped" >&2
	fi
	[ "$have_trex" = yes ] || return 0
	n=1000000
	for s in $sizes; do [ "$s" -le 1000000 ] && n=$s; done
	make_trace "$n"
	b=$data/kineto_${n}_b.json
	if [ ! -f "$b" ] || [ "$(sed -n 1p "$plain.stamp")" != "$(cat "$b.stamp" 2>/dev/null)" ]; then
		"$python" "$srcdir/tests/e2e/diff.py" mutate "$plain" "$b" "$seed"
		sed -n 1p "$plain.stamp" > "$b.stamp"
	fi
	idx=$data/diff_index
	mkdir -p "$idx"
	TREX_INDEX_DIR=$idx "$trex" index -q "$plain" "$b" > /dev/null
	echo "## trex diff of $(basename "$plain") and a changed copy ($runs interleaved rounds)"
	echo
	for by in kernels sequence; do
		echo "--by $by: from JSON (--no-cache), then from index files:"
		TREX_INDEX_DIR=$idx "$python" "$here/interleave.py" "$runs" \
			"$trex" diff -q --no-cache --by "$by" "$plain" "$b" -- \
			"$trex" diff -q --by "$by" "$plain" "$b" </dev/null
	done
	rm -rf "$idx"
	echo
}

# The Perfetto loader on a generated protobuf trace, plain and gzip'd: its
# rows join the results table (MB/s and Mevents/s).
perfetto_bench() {
	n=${TREX_BENCH_PERFETTO:-1000000}
	[ "$n" -gt 0 ] && [ "$have_trex" = yes ] || return 0
	pf=$data/perfetto_$n.pftrace
	pstamp="$(cksum < "$here/perfetto_gen.py" | cut -d' ' -f1) seed=$seed"
	if [ "$(sed -n 1p "$pf.stamp" 2>/dev/null)" != "$pstamp" ] || [ ! -f "$pf.gz" ]; then
		"$python" "$here/perfetto_gen.py" "$n" "$pf" --seed "$seed" --summary "$pf.json"
		gzip -6 -c "$pf" > "$pf.gz"
		echo "$pstamp" > "$pf.stamp"
	fi
	events=$("$trex" info -q --format json "$pf" |
		"$python" -c 'import json, sys; print(json.load(sys.stdin)["files"]["rows"][0]["events"])')
	raw=$(wc -c < "$pf")
	echo "$(basename "$pf"): $events events, $raw bytes, $(wc -c < "$pf.gz") bytes gzip'd"
	for f in "$pf" "$pf.gz"; do
		cat "$f" > /dev/null
		measure cat "$runs" "$f" "$raw" cat "$f"
		measure "trex -j1" "$runs" "$f" "$raw" "$trex" kernels -q -j1 "$f"
	done
}

stalls_bench() {
	if [ ! -x "$builddir/tests/bench/stalls" ]; then
		echo "note: tests/bench/stalls not built: skipped" >&2
		return 0
	fi
	dir=$data/stalls_100k
	sstamp=$(cksum < "$here/stalls.c" | cut -d' ' -f1)
	gen=
	if [ "$(cat "$dir.stamp" 2>/dev/null)" != "$sstamp" ]; then
		rm -rf "$dir"
		gen="--generate 100000"
	fi
	echo "## Stall views of a kernel with 100k sampled instructions (median of $runs)"
	echo
	# shellcheck disable=SC2086 # gen is empty or two words
	"$builddir/tests/bench/stalls" "$dir" $gen --runs "$runs" && echo "$sstamp" > "$dir.stamp"
	echo
	echo "End to end, trex --dump-screen at 160x50 ($runs interleaved rounds):"
	set -- --dump "$dir/dumps" --source-map "/bench/src=$dir/src" "$dir/stalls.csv"
	LINES=50 COLUMNS=160 TERM=xterm-256color "$python" "$here/interleave.py" "$runs" \
		"$trex" -q --dump-screen /dev/null --script "" "$@" -- \
		"$trex" -q --dump-screen /dev/null --script "3 Enter" "$@" -- \
		"$trex" -q --dump-screen /dev/null --script "5 Enter" "$@" </dev/null
	echo
}

# Chakra ET sets (issue 12 target: >= 2M nodes/s per core): a generated
# set of TREX_BENCH_CHAKRA ranks x nodes (default "64 50000"; "0 0": none),
# written once into data/chakra_RxN/ by tests/bench/chakra.c.
chakra_bench() {
	set -- ${TREX_BENCH_CHAKRA:-64 50000}
	if [ "$1" = 0 ]; then
		return 0
	fi
	if [ ! -x "$builddir/tests/bench/chakra" ]; then
		echo "note: tests/bench/chakra not built: skipped" >&2
		return 0
	fi
	echo "## Chakra ET set of $1 ranks x $2 nodes (median of $runs, one thread)"
	echo
	"$builddir/tests/bench/chakra" "$data/chakra_$1x$2" "$1" "$2" "$runs" | sed 's/^/    /'
	echo
}

# The Chakra writer (issue 13 target: >= 2M nodes/s): the set chakra_bench
# wrote, loaded and written again, then the GPU trace of export_bench (its
# device work as nodes), each by tests/bench/chakra_write on one thread.
chakra_write_bench() {
	set -- ${TREX_BENCH_CHAKRA:-64 50000}
	if [ ! -x "$builddir/tests/bench/chakra_write" ]; then
		echo "note: tests/bench/chakra_write not built: skipped" >&2
		return 0
	fi
	echo "## Chakra ET writing (median of $runs, one thread)"
	echo
	if [ "$1" != 0 ] && [ -f "$data/chakra_$1x$2/bench.0.et" ]; then
		echo "    from the Chakra set of $1 ranks x $2 nodes:"
		"$builddir/tests/bench/chakra_write" "$data/chakra_write" "$runs" \
			"$data/chakra_$1x$2/bench" | sed 's/^/    /'
	fi
	n=1000000
	for s in $sizes; do [ "$s" -le 1000000 ] && n=$s; done
	make_trace "$n"
	echo "    from the GPU trace $(basename "$plain"):"
	"$builddir/tests/bench/chakra_write" "$data/chakra_write" "$runs" "$plain" | sed 's/^/    /'
	rm -rf "$data/chakra_write"
	echo
}

mkdir -p "$data"
: > "$results"
info=$(machine_info)
echo "$info"
build_generator
"$data/gen_trace" 2000 "$data/kineto_probe.json" 2>/dev/null
have_trex=no
if trex_works; then
	have_trex=yes
else
	echo "note: $trex missing or cannot load a trace yet: baselines only" >&2
fi
echo "## Runs"
echo
for n in $sizes; do
	make_trace "$n"
	tool_runs=$runs py_runs=$runs
	if [ "$n" -ge 4000000 ]; then
		tool_runs=$((runs < 3 ? runs : 3))
		py_runs=1
	elif [ "$n" -ge 1000000 ]; then
		py_runs=$((runs < 3 ? runs : 3))
	fi
	raw=$(wc -c < "$plain")
	echo "$(basename "$plain"): $events events, $raw bytes, $(wc -c < "$gz") bytes gzip'd"
	if [ "$have_trex" = yes ]; then
		"$trex" info -q "$plain" | sed 's/^/    /'
	fi
	bench_file "$plain" "$raw" "$tool_runs" "$py_runs"
	bench_file "$gz" "$raw" "$tool_runs" "$py_runs"
done
perfetto_bench
echo
echo "## Results (median wall time; page cache warm)"
echo
"$python" "$here/measure.py" report "$results"
echo
echo "Wall time: CLOCK_MONOTONIC around fork/exec/wait4 in tests/bench/rusage.c."
echo "Peak RSS: ru_maxrss of the command (wait4), the largest of its runs. trex"
echo "mmaps a plain trace, so its pages count in RSS: RSS-file subtracts the"
echo "file size. gzip input is streamed; MB/s raw is the decompressed rate."
echo "Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)."
echo
ui_bench
tables_bench
diff_bench
schedule_bench
export_bench
metrics_bench
stalls_bench
chakra_bench
chakra_write_bench
echo "Total bench time: $(($(date +%s) - start)) s"
