#!/bin/sh
# Many ranks lazily (man trex: INDEX FILES): `trex kernels` of several
# traces reads each rank's kernel summary from its own index file and
# merges them (with --memory or --by op each rank's groups, durations
# sorted, merged the same way; by shape, stream, device or rank each
# rank's own rows joined), `trex gpu-time`, `steps` and `gaps` join each
# rank's own table (times from the set's start, gaps longest first),
# `trex categories` sums each rank's per-rule and per-category parts,
# `trex ops` and `api` join each rank's groups by name (durations sorted
# together for the median and P95), and `trex integrity` and `info` join
# each rank's own report, never loading the set as one index (no set
# index file is written, the ranks' index files are only read). Their
# output, stdout and stderr, is the merged load's (--no-cache) byte for
# byte: text, CSV, JSON, --per-rank, a directory, a glob, any input
# order, -j 1 and -j 3, ranks from distributedInfo or from the order,
# equal totals on several ranks, a damaged rank (its warnings, in rank
# order), clocks 2^54 ns apart, --strict. A corrupt, truncated or stale
# index file in the set is noticed (one line) and rebuilt; two files of
# one rank, a rank that is not a trace, --align and a set without any
# kernel take the merged load.
. "${TREX_SRCDIR:-.}/tests/e2e/lib.sh"
require_built
have_corpus || skip_all "corpus not found (TREX_CORPUS)"

TREX_INDEX_DIR=$TEST_TMP/index
export TREX_INDEX_DIR
IDX=$TREX_INDEX_DIR
D=$TREX_SRCDIR/tests/data
# the 8 ranks copied, so that one can be edited
R=$TEST_TMP/dlrm
mkdir -p "$R" "$IDX"
cp "$TREX_CORPUS"/kineto/param_dlrm_8rank/*.json.gz "$R/"
touch -d '2020-01-01' "$R"/*
set -- "$R"/*.json.gz

# listing NAME: each index file's name, size and mtime (not ls -l's
# columns, whose widths change with the largest file).
listing() {
	find "$IDX" -name '*.trex' -printf '%f %s %T@\n' | sort >"$TEST_TMP/$1.ls"
}

# untouched: since listing before, no index file changed or went, and no
# index file of a set was written.
untouched() {
	listing after
	[ -z "$(comm -23 "$TEST_TMP/before.ls" "$TEST_TMP/after.ls")" ] &&
		[ "$(grep -c '^set-' "$TEST_TMP/before.ls")" = "$(grep -c '^set-' "$TEST_TMP/after.ls")" ]
}

# same_as_merged LABEL [ARGS...] -- MERGED_ARGS...: `trex $CMD ARGS` (the
# lazy path, which must write no set index file and leave the index files
# there as they were) prints what `trex $CMD --no-cache MERGED_ARGS` does.
CMD=kernels
same_as_merged() {
	label="$CMD: $1"
	shift
	lazy=""
	while [ "$1" != "--" ]; do
		lazy="$lazy $1"
		shift
	done
	shift
	# a merged load of the same inputs would map the set's index file an
	# earlier one wrote, and leave no trace: none may be there
	rm -f "$IDX"/set-*.trex
	listing before
	# shellcheck disable=SC2086
	run_trex lazy $CMD $lazy
	run_trex merged $CMD --no-cache "$@"
	if cmp -s "$TEST_TMP/merged.out" "$TEST_TMP/lazy.out" &&
		cmp -s "$TEST_TMP/merged.err" "$TEST_TMP/lazy.err" &&
		[ "$(rc_of merged)" = "$(rc_of lazy)" ] &&
		{ [ -s "$TEST_TMP/lazy.out" ] || [ "$(rc_of lazy)" != 0 ]; } &&
		untouched; then
		ok "$label: from the ranks' summaries = the merged load"
	else
		not_ok "$label: from the ranks' summaries = the merged load"
		diag "exit $(rc_of lazy), merged $(rc_of merged); index files changed:"
		comm -3 "$TEST_TMP/before.ls" "$TEST_TMP/after.ls" | grep -v "^	" | head -4 | sed 's/^/# gone: /'
		grep "^set-" "$TEST_TMP/after.ls" | head -2 | sed 's/^/# /'
		diff "$TEST_TMP/merged.out" "$TEST_TMP/lazy.out" | head -10 | sed 's/^/# /'
		diff "$TEST_TMP/merged.err" "$TEST_TMP/lazy.err" | head -10 | sed 's/^/# /'
	fi
}

# ---- the 8 ranks, indexed first ---------------------------------------------------------------

run_trex index index -j2 "$@"
check "trex index -j2 builds the 8 ranks' index files" \
	[ "$(rc_of index):$(grep -c ': built ' "$TEST_TMP/index.out")" = 0:8 ]

same_as_merged "8 ranks" "$@" -- "$@"
same_as_merged "8 ranks, csv" --format csv "$@" -- --format csv "$@"
same_as_merged "8 ranks, json" --format json "$@" -- --format json "$@"
same_as_merged "8 ranks, --per-rank" --per-rank "$@" -- --per-rank "$@"
same_as_merged "8 ranks, --per-rank csv" --per-rank --format csv "$@" -- --per-rank --format csv "$@"
same_as_merged "a directory" "$R" -- "$@"
same_as_merged "a quoted glob" "$R/*.json.gz" -- "$@"
same_as_merged "reversed order" "$8" "$7" "$6" "$5" "$4" "$3" "$2" "$1" -- "$@"
same_as_merged "-j 1" -j 1 "$R" -- "$@"
same_as_merged "-j 3" -j 3 "$R" -- "$@"
same_as_merged "3 ranks" "$2" "$5" "$7" -- "$2" "$5" "$7"
CMD=gpu-time
same_as_merged "8 ranks" "$@" -- "$@"
same_as_merged "8 ranks, csv" --format csv "$@" -- --format csv "$@"
same_as_merged "8 ranks, json" --format json "$@" -- --format json "$@"
same_as_merged "a directory, -j 1" -j 1 "$R" -- "$@"
same_as_merged "3 ranks, reversed" "$7" "$5" "$2" -- "$2" "$5" "$7"
CMD=steps
same_as_merged "8 ranks" "$@" -- "$@"
same_as_merged "8 ranks, json" --format json "$@" -- --format json "$@"
same_as_merged "a directory, --step" --step 'ProfilerStep#1[0-9]' "$R" -- --step 'ProfilerStep#1[0-9]' "$@"
same_as_merged "3 ranks, reversed" "$7" "$5" "$2" -- "$7" "$5" "$2"
CMD=gaps
# µs traces: gaps of one length and start on two ranks (ranks 1 and 4 at
# 10.927 ms), ordered as the merged load orders them
same_as_merged "8 ranks" "$@" -- "$@"
same_as_merged "8 ranks, csv" --format csv "$@" -- --format csv "$@"
same_as_merged "8 ranks, json, --top 40" --format json --top 40 "$@" -- --format json --top 40 "$@"
same_as_merged "a directory, --min 50us" --min 50us "$R" -- --min 50us "$@"
same_as_merged "reversed order" "$8" "$7" "$6" "$5" "$4" "$3" "$2" "$1" -- \
	"$8" "$7" "$6" "$5" "$4" "$3" "$2" "$1"
same_as_merged "-j 3, --top 7" -j 3 --top 7 "$R" -- --top 7 "$@"
same_as_merged "no gap that long" --min 10s "$R" -- --min 10s "$@"
CMD=steps
same_as_merged "no step matches" --step '^nothing$' "$R" -- --step '^nothing$' "$@"
CMD=categories
same_as_merged "8 ranks" "$@" -- "$@"
same_as_merged "8 ranks, csv" --format csv "$@" -- --format csv "$@"
same_as_merged "8 ranks, json" --format json "$@" -- --format json "$@"
same_as_merged "a directory, -j 1" -j 1 "$R" -- "$@"
same_as_merged "3 ranks, reversed" "$7" "$5" "$2" -- "$7" "$5" "$2"
for CMD in ops api; do
	same_as_merged "8 ranks" "$@" -- "$@"
	same_as_merged "8 ranks, csv" --format csv "$@" -- --format csv "$@"
	same_as_merged "a directory, json, --top 6" --format json --top 6 "$R" -- \
		--format json --top 6 "$@"
	same_as_merged "3 ranks, reversed, -j 1" -j 1 "$7" "$5" "$2" -- "$7" "$5" "$2"
done
CMD=kernels
# every grouping and --memory from each rank's index: by name (--memory)
# and op a part per rank (durations sorted together), by shape, stream,
# device and rank each rank's own rows
for by in shape op stream device rank; do
	same_as_merged "--by $by" --by $by "$@" -- --by $by "$@"
	same_as_merged "--by $by, csv" --by $by --format csv "$@" -- --by $by --format csv "$@"
	same_as_merged "--by $by, json" --by $by --format json "$@" -- --by $by --format json "$@"
	same_as_merged "--by $by --memory, 3 ranks, reversed, -j 1" -j 1 --by $by --memory \
		"$7" "$5" "$2" -- --by $by --memory "$7" "$5" "$2"
done
same_as_merged "--memory" --memory "$@" -- --memory "$@"
same_as_merged "--memory, csv" --memory --format csv "$@" -- --memory --format csv "$@"
same_as_merged "--memory, json, a directory" --memory --format json "$R" -- \
	--memory --format json "$@"
same_as_merged "--memory --per-rank" --memory --per-rank "$@" -- --memory --per-rank "$@"
same_as_merged "--by op --per-rank, csv, -j 3" -j 3 --by op --per-rank --format csv "$R" -- \
	--by op --per-rank --format csv "$@"
same_as_merged "--by op --memory --per-rank, json" --by op --memory --per-rank --format json \
	"$@" -- --by op --memory --per-rank --format json "$@"

# The numbers themselves, computed apart (expected.py: Python over the JSON).
run_py multi "8 ranks from their summaries" "$R" "$@"

# ---- ranks from the order, a damaged rank ---------------------------------------------------

W=$TEST_TMP/w
mkdir -p "$W"
for i in 0 1 2; do # no distributedInfo: ranks 0, 1, 2 in command-line order
	sed "s/\"dur\": *\([0-9]*\)/\"dur\": \1$i/" "$D/kernels.json" >"$W/k$i.json"
done
touch -d '2020-01-01' "$W"/*
same_as_merged "ranks from the order, not indexed yet" "$W/k2.json" "$W/k0.json" "$W/k1.json" \
	-- "$W/k2.json" "$W/k0.json" "$W/k1.json"
check "that wrote each rank's index file" [ "$(ls "$IDX"/k[012].json.*.trex | wc -l)" = 3 ]
same_as_merged "ranks from the order, again (mapped)" "$W/k2.json" "$W/k0.json" "$W/k1.json" -- \
	"$W/k2.json" "$W/k0.json" "$W/k1.json"
same_as_merged "a damaged rank among them" "$1" "$2" "$D/damaged.json" "$W/k0.json" -- \
	"$1" "$2" "$D/damaged.json" "$W/k0.json"
for CMD in gpu-time steps gaps categories ops api; do
	same_as_merged "ranks from the order" "$W/k2.json" "$W/k0.json" "$W/k1.json" -- \
		"$W/k2.json" "$W/k0.json" "$W/k1.json"
	same_as_merged "a damaged rank among them" "$1" "$2" "$D/damaged.json" "$W/k0.json" -- \
		"$1" "$2" "$D/damaged.json" "$W/k0.json"
done
CMD=kernels
# three copies of one trace: equal totals on every rank, in rank order
for i in a b c; do
	cp "$D/kernels.json" "$W/copy_$i.json"
done
touch -d '2020-01-01' "$W"/copy_*.json # old enough for their index files to be trusted
for opts in "--by shape --format json" "--by op" "--by stream" "--by device --format csv" \
	"--by rank" "--memory" "--memory --by op --per-rank --format csv"; do
	# shellcheck disable=SC2086
	same_as_merged "$opts, ranks from the order" $opts "$W/k2.json" "$W/k0.json" "$W/k1.json" \
		-- $opts "$W/k2.json" "$W/k0.json" "$W/k1.json"
	# shellcheck disable=SC2086
	same_as_merged "$opts, a damaged rank (and copies without sizes)" $opts "$1" \
		"$D/damaged.json" "$W/k0.json" -- $opts "$1" "$D/damaged.json" "$W/k0.json"
	# shellcheck disable=SC2086
	same_as_merged "$opts, equal totals on three ranks" $opts "$W/copy_c.json" \
		"$W/copy_a.json" "$W/copy_b.json" -- $opts "$W/copy_c.json" "$W/copy_a.json" \
		"$W/copy_b.json"
done
# integrity: each rank's counters, joined in rank order
CMD=integrity
same_as_merged "8 ranks" "$@" -- "$@"
same_as_merged "8 ranks, csv, a directory" --format csv "$R" -- --format csv "$@"
same_as_merged "8 ranks, json" --format json "$@" -- --format json "$@"
same_as_merged "ranks from the order" "$W/k2.json" "$W/k0.json" "$W/k1.json" -- \
	"$W/k2.json" "$W/k0.json" "$W/k1.json"
same_as_merged "a damaged rank among them, -j 1" -j 1 "$1" "$2" "$D/damaged.json" "$W/k0.json" -- \
	"$1" "$2" "$D/damaged.json" "$W/k0.json"
# three damaged traces, two of which claim ranks 0 and 1: the warnings,
# the headline and the rows by rank, not in the order given
for CMD in integrity gpu-time; do
	for fmt in text csv json; do
		same_as_merged "damaged ranks given out of rank order, $fmt" --format $fmt \
			"$D/damaged.json" "$D/damaged_value_swallows.json" \
			"$D/damaged_top_level.json.gz" -- --format $fmt "$D/damaged.json" \
			"$D/damaged_value_swallows.json" "$D/damaged_top_level.json.gz"
	done
done
same_as_merged "--strict with a damaged rank" --strict "$1" "$D/damaged.json" -- \
	--strict "$1" "$D/damaged.json"
# info: each rank's own report joined (files, phases, categories, tracks,
# integrity, problems, examples with the set's slice ids, the time span)
CMD=info
same_as_merged "8 ranks" "$@" -- "$@"
same_as_merged "8 ranks, json, a directory" --format json "$R" -- --format json "$@"
same_as_merged "3 ranks, reversed, -j 1" -j 1 "$7" "$5" "$2" -- "$2" "$5" "$7"
same_as_merged "ranks from the order" "$W/k2.json" "$W/k0.json" "$W/k1.json" -- \
	"$W/k2.json" "$W/k0.json" "$W/k1.json"
for fmt in text json; do
	same_as_merged "a damaged rank among them, $fmt" --format $fmt "$1" "$2" "$D/damaged.json" \
		"$W/k0.json" -- --format $fmt "$1" "$2" "$D/damaged.json" "$W/k0.json"
	same_as_merged "damaged ranks given out of rank order, $fmt" --format $fmt \
		"$D/damaged.json" "$D/damaged_value_swallows.json" \
		"$D/damaged_top_level.json.gz" -- --format $fmt "$D/damaged.json" \
		"$D/damaged_value_swallows.json" "$D/damaged_top_level.json.gz"
done
# clocks 2^54 ns apart (ROCm, CUDA): times from the set's start rounded
# once, as the merged load rounds them
K=$TREX_CORPUS/kineto
F="$K/hta_amd_mi250/mi250_minitoy_train_ROCm6_2_kineto.json.gz $K/hta_nccl_data/nccl_data.json.gz"
for CMD in integrity gaps info kernels; do
	# shellcheck disable=SC2086
	same_as_merged "clocks far apart, json" --format json $F -- --format json $F
done
CMD=kernels

# a rank that cannot be loaded: the merged load tells it
printf 'not a trace\n' >"$W/broken.json"
touch -d '2020-01-01' "$W/broken.json"
same_as_merged "--by device, a rank that is not a trace" --by device "$1" "$W/broken.json" -- \
	--by device "$1" "$W/broken.json"
check "that rank fails the command" [ "$(rc_of lazy)" != 0 ]
for CMD in integrity info; do
	same_as_merged "a rank that is not a trace" "$1" "$W/broken.json" -- "$1" "$W/broken.json"
done
CMD=kernels
same_as_merged "--memory --by op, a rank that is not a trace" --memory --by op "$1" \
	"$W/broken.json" -- --memory --by op "$1" "$W/broken.json"
same_as_merged "--strict with a damaged rank" --strict "$1" "$D/damaged.json" -- \
	--strict "$1" "$D/damaged.json"
check "--strict with a damaged rank exits 2" [ "$(rc_of lazy)" = 2 ]

# ---- index files that cannot be used ----------------------------------------------------------

# rebuilt LABEL WHAT: the lazy run says WHAT in one line, prints the merged
# table and leaves a fresh index file (the next run prints nothing more).
rebuilt() {
	run_trex lazy kernels "$R"
	run_trex merged kernels --no-cache "$R"
	run_trex again kernels "$R"
	if cmp -s "$TEST_TMP/merged.out" "$TEST_TMP/lazy.out" &&
		cmp -s "$TEST_TMP/merged.out" "$TEST_TMP/again.out" &&
		[ "$(rc_of lazy)" = 0 ] && [ "$(wc -l <"$TEST_TMP/lazy.err")" = 1 ] &&
		grep -q "$2" "$TEST_TMP/lazy.err" && grep -q 'rebuilt from the trace' "$TEST_TMP/lazy.err" &&
		[ ! -s "$TEST_TMP/again.err" ] && sanitizer_clean "$TEST_TMP/lazy.err"; then
		ok "$1: noticed, rebuilt, the same table"
	else
		not_ok "$1: noticed, rebuilt, the same table"
		diag "exit $(rc_of lazy)"
		diag_file "$TEST_TMP/lazy.err"
		diff "$TEST_TMP/merged.out" "$TEST_TMP/lazy.out" | head -10 | sed 's/^/# /'
	fi
}

rank3=$(ls "$IDX"/worker3_*.trex)
"$PYTHON3" -c 'import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
b[len(b) - 100] ^= 0x10  # the kernel summary, the last section
open(p, "wb").write(b)' "$rank3"
rebuilt "a flipped byte in a rank's summary" "damaged index file"
rank5=$(ls "$IDX"/worker5_*.trex)
truncate -s 5000 "$rank5"
rebuilt "a truncated index file" "truncated index file"
printf 'not an index\n' >"$(ls "$IDX"/worker6_*.trex)"
rebuilt "a foreign file" "not a trex index file"
# rank 1 edited: a kernel renamed, its index file stale
gzip -dc "$2" | sed 's/ncclKernel_AllReduce/ncclKernel_ALLREDUCE/g' | gzip >"$TEST_TMP/w1.gz"
mv "$TEST_TMP/w1.gz" "$2"
touch -d '2020-01-02' "$2"
rebuilt "an edited rank" "stale (the trace changed)"
check "the edited rank's kernel is in the table" grep -q ncclKernel_ALLREDUCE "$TEST_TMP/again.out"

# ---- what the summaries do not hold: the merged load ------------------------------------------

# lazy_is_merged [WORDS]: the last lazy and merged runs printed the same,
# exit 0; with WORDS, their stderr the same too, and holding WORDS.
lazy_is_merged() {
	[ "$(rc_of lazy)" = 0 ] && cmp -s "$TEST_TMP/merged.out" "$TEST_TMP/lazy.out" &&
		{ [ -z "${1:-}" ] || { cmp -s "$TEST_TMP/merged.err" "$TEST_TMP/lazy.err" &&
			grep -q "$1" "$TEST_TMP/lazy.err"; }; }
}

C=$TREX_CORPUS/kineto/hta_trace_compare
run_trex index index "$C/base.json.gz" "$C/test.json.gz"
run_trex lazy kernels "$C/base.json.gz" "$C/test.json.gz"
run_trex merged kernels --no-cache "$C/base.json.gz" "$C/test.json.gz"
check "two files of one rank: the merged load (both totals, the warning)" \
	lazy_is_merged 'both claim rank'
for cmd in steps gaps categories ops; do
	run_trex lazy $cmd "$C/base.json.gz" "$C/test.json.gz"
	run_trex merged $cmd --no-cache "$C/base.json.gz" "$C/test.json.gz"
	check "$cmd, two files of one rank: the merged load" lazy_is_merged 'both claim rank'
	run_trex lazy $cmd --align collectives "$R"
	run_trex merged $cmd --no-cache --align collectives "$@"
	check "$cmd --align: the merged load (ranks moved against each other)" lazy_is_merged
done
for opt in "--explain" "--format unitrace-json"; do
	# shellcheck disable=SC2086
	run_trex lazy categories $opt "$R"
	# shellcheck disable=SC2086
	run_trex merged categories --no-cache $opt "$@"
	check "categories $opt: the merged load" lazy_is_merged
done
for opt in "--memory --align collectives" "--by op --align collectives"; do
	# shellcheck disable=SC2086
	run_trex lazy kernels $opt "$R"
	# shellcheck disable=SC2086
	run_trex merged kernels --no-cache $opt "$@"
	check "kernels $opt: the merged load" lazy_is_merged
done
run_trex lazy kernels --by device "$C/base.json.gz" "$C/test.json.gz"
run_trex merged kernels --no-cache --by device "$C/base.json.gz" "$C/test.json.gz"
check "kernels --by device, two files of one rank: the merged load" lazy_is_merged 'both claim rank'
# no kernel on any rank: the note (why) needs the merged load
for i in 0 1; do
	printf '{"traceEvents":[{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":2,"ts":1,"dur":5}]}\n' \
		>"$W/cpu$i.json"
done
for opt in "--by stream" "--by op" "--memory"; do
	# shellcheck disable=SC2086
	run_trex lazy kernels $opt "$W/cpu0.json" "$W/cpu1.json"
	# shellcheck disable=SC2086
	run_trex merged kernels --no-cache $opt "$W/cpu0.json" "$W/cpu1.json"
	check "kernels $opt without a kernel: the merged load (its note)" lazy_is_merged
done

# ---- one trace: its kernels table by name from its own summary --------------------------------

# The index file's kernel summary alone serves `trex kernels TRACE` (by
# name) once the trace is indexed; what it cannot serve (the first open, a
# damaged trace, --align, a trace without kernels, a damaged summary) is
# the whole load's, as before.
O=$TEST_TMP/one
mkdir -p "$O"
cp "$1" "$O/"
one=$O/${1##*/}
touch -d '2020-01-01' "$one"
run_trex index index "$one"
same_as_merged "one trace" "$one" -- "$one"
same_as_merged "one trace, csv" --format csv "$one" -- --format csv "$one"
same_as_merged "one trace, json, --per-rank" --format json --per-rank "$one" -- \
	--format json --per-rank "$one"
same_as_merged "a directory of one trace" "$O" -- "$one"
same_as_merged "one damaged trace" "$D/damaged.json" -- "$D/damaged.json"
same_as_merged "one trace without a kernel" "$W/cpu0.json" -- "$W/cpu0.json"
run_trex lazy kernels --align collectives "$one"
run_trex merged kernels --no-cache --align collectives "$one"
check "one trace, --align: the whole load's message" \
	[ "$(rc_of lazy)" = "$(rc_of merged)" ] && cmp -s "$TEST_TMP/lazy.err" "$TEST_TMP/merged.err"
# a flipped byte outside the summary: the table never reads it (the file
# left as it is); the timeline's open, which checks the whole file, does
# (the copy's own index file: the rank it came from has one of the same name)
one_idx=$(sed -n 's/^.*: built \(.*\.trex\) (.*$/\1/p' "$TEST_TMP/index.out")
"$PYTHON3" -c 'import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
b[len(b) // 2] ^= 0x10  # the events, far from the summary (the last section)
open(p, "wb").write(b)' "$one_idx"
same_as_merged "one trace, a flipped byte outside its summary" "$one" -- "$one"
run_trex whole --script '' --force --dump-screen="$TEST_TMP/screen.txt" "$one"
if [ "$(rc_of whole)" = 0 ] && grep -q 'damaged index file' "$TEST_TMP/whole.err"; then
	ok "that byte is noticed by the whole open, and the file rebuilt"
else
	not_ok "that byte is noticed by the whole open, and the file rebuilt"
	diag "index file $one_idx, exit $(rc_of whole)"
	diag_file "$TEST_TMP/whole.err"
fi
"$PYTHON3" -c 'import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
b[len(b) - 100] ^= 0x10  # the kernel summary
open(p, "wb").write(b)' "$one_idx"
run_trex lazy kernels "$one"
run_trex merged kernels --no-cache "$one"
check "one trace, a flipped byte in its summary: the whole load notices, the same table" \
	lazy_is_merged && grep -q 'damaged index file' "$TEST_TMP/lazy.err"

done_testing
