#!/bin/sh
# Index files (.trex, man trex: INDEX FILES): `trex info`, `kernels` and
# `categories` print the same from an index file as from a parse, for
# Kineto (plain, gzip, 2021 dialect), unitrace, Perfetto, acelyzer,
# multi-file and damaged traces; a changed trace or a damaged index file is
# noticed (one line) and rebuilt; index files go beside the trace, or to
# the cache directory when its directory is read-only; `trex index` builds
# them in parallel, also when xargs -P spreads the files.
. "${TREX_SRCDIR:-.}/tests/e2e/lib.sh"
require_built
have_corpus || skip_all "corpus not found (TREX_CORPUS)"

C=$TREX_CORPUS
D=$TREX_SRCDIR/tests/data
# a directory of its own, whatever TREX_TEST_INDEX_DIR says: files are counted
TREX_INDEX_DIR=$TEST_TMP/index
export TREX_INDEX_DIR
IDX=$TREX_INDEX_DIR

# same_from_index NAME FILE...: for info, kernels and categories, the parse
# (--no-cache), the first cached run (which writes the index file) and a
# second one (which maps it, leaving the file as it was) print the same;
# `trex index` then calls the file up to date.
same_from_index() {
	label=$1
	shift
	for cmd in info kernels categories; do
		run_trex parse "$cmd" --no-cache "$@"
		run_trex first "$cmd" "$@"
		stamp=$(ls -l --time-style=+%s.%N "$IDX" | sort | md5sum)
		run_trex again "$cmd" "$@"
		if cmp -s "$TEST_TMP/parse.out" "$TEST_TMP/first.out" &&
			cmp -s "$TEST_TMP/parse.out" "$TEST_TMP/again.out" &&
			cmp -s "$TEST_TMP/parse.err" "$TEST_TMP/again.err" &&
			[ "$(rc_of parse)" = "$(rc_of again)" ] &&
			[ "$stamp" = "$(ls -l --time-style=+%s.%N "$IDX" | sort | md5sum)" ]; then
			ok "$label: $cmd from the index file = from the parse"
		else
			not_ok "$label: $cmd from the index file = from the parse"
			diff "$TEST_TMP/parse.out" "$TEST_TMP/again.out" | head -20 | sed 's/^/# /'
			diag_file "$TEST_TMP/again.err"
		fi
	done
}

same_from_index "kineto gzip" "$C/kineto/hta_ns_resolution/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz"
same_from_index "kineto 2021" "$C/kineto/kineto_tb_resnet50_2021/worker0.1623143089861.pt.trace.json.gz"
same_from_index "kineto plain, counters" "$C/kineto/kineto_tb_gpu_metrics/gpu_metrics_expected.json"
same_from_index "unitrace" "$D/unclosed_unitrace.json"
same_from_index "acelyzer" "$C/acelyzer/allreduce_tp4.json"
same_from_index "perfetto" "$C/perfetto/tokio-runtime-slices.pftrace"
same_from_index "damaged" "$D/damaged.json"
same_from_index "damaged gzip" "$D/damaged_top_level.json.gz"
same_from_index "8 ranks" "$C"/kineto/param_dlrm_8rank/*.json.gz
same_from_index "two runs of rank 1" "$C/kineto/hta_trace_compare/base.json.gz" \
	"$C/kineto/hta_trace_compare/test.json.gz"

# The export reads every event's args back through the index file (gzip
# access points included).
G=$C/kineto/hta_nccl_data/nccl_data.json.gz
run_trex e1 export --no-cache -o "$TEST_TMP/parse.json" "$G"
run_trex e2 export -o "$TEST_TMP/first.json" "$G"
run_trex e3 export -o "$TEST_TMP/mapped.json" "$G"
check "export: args read back through the index file" \
	cmp "$TEST_TMP/parse.json" "$TEST_TMP/mapped.json"

# ---- stale traces, damaged index files -------------------------------------------------------

W=$TEST_TMP/work
mkdir -p "$W"
cp "$D/flows.json" "$W/t.json"
run_trex ref info --no-cache "$W/t.json"
run_trex build info "$W/t.json"
one_index() {
	set -- "$IDX"/t.json.*.trex
	[ "$#" -eq 1 ] && [ -f "$1" ] && echo "$1"
}
T=$(one_index)
check "the index file is written to TREX_INDEX_DIR" test -n "$T"

# refused REASON DESCRIPTION: the next info names the index file and REASON,
# prints what the parse prints, and the one after says nothing (rebuilt).
refused() {
	run_trex r1 info "$W/t.json"
	run_trex r2 info "$W/t.json"
	if grep -q "index file $T: $1; rebuilt from the trace" "$TEST_TMP/r1.err" &&
		[ "$(wc -l <"$TEST_TMP/r1.err")" -eq 1 ] &&
		cmp -s "$TEST_TMP/ref.out" "$TEST_TMP/r1.out" &&
		cmp -s "$TEST_TMP/ref.out" "$TEST_TMP/r2.out" && [ ! -s "$TEST_TMP/r2.err" ]; then
		ok "$2: one line, then rebuilt"
	else
		not_ok "$2: one line, then rebuilt"
		diag_file "$TEST_TMP/r1.err"
		diag_file "$TEST_TMP/r2.err"
	fi
}

touch -d '2001-01-01' "$W/t.json"
refused "stale (the trace changed)" "a touched trace"
sed 's/ac2g/AC2G/' "$D/flows.json" >"$W/t.json"
run_trex ref info --no-cache "$W/t.json"
refused "stale (the trace changed)" "an edited trace"
truncate -s 2000 "$T"
refused "truncated index file" "a truncated index file"
"$PYTHON3" -c 'import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
b[len(b) // 2] ^= 0x10
open(p, "wb").write(b)' "$T"
refused "damaged index file (checksum)" "a flipped byte"
printf 'TREXIDX\n' | dd of="$T" bs=1 seek=0 conv=notrunc 2>/dev/null
"$PYTHON3" -c 'import sys, struct
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
b[8:12] = struct.pack("<I", 7)
open(p, "wb").write(b)' "$T"
refused "index file version 7, this trex reads 4" "a newer index file"
echo 'not an index' >"$T"
refused "not a trex index file" "a foreign file"

# a load with other options keeps its own index file: no rebuild back and forth
before=$(ls "$IDX" | wc -l)
run_trex o1 kernels --input-format chrome-json "$W/t.json"
run_trex o2 kernels "$W/t.json"
run_trex o3 kernels --input-format chrome-json "$W/t.json"
run_trex o4 kernels "$W/t.json"
check "--input-format keeps an index file of its own" \
	sh -c 'test ! -s "$1/o2.err" && test ! -s "$1/o3.err" && test ! -s "$1/o4.err" &&
	cmp "$1/o1.out" "$1/o4.out" && test "$(ls "$2" | wc -l)" -eq "$3"' \
	sh "$TEST_TMP" "$IDX" $((before + 1))

rm -rf "$IDX"
run_trex nc kernels --no-cache "$W/t.json"
check "--no-cache writes no index file" test ! -e "$IDX"
run_trex rb1 info "$W/t.json"
T=$(one_index)
touch -d '2001-01-01' "$T"
run_trex rb2 info --rebuild-cache "$W/t.json"
check "--rebuild-cache writes the index file again" test "$T" -nt "$W/t.json"

# ---- where index files go ----------------------------------------------------------------------

B=$TEST_TMP/beside
mkdir -p "$B/ro" "$TEST_TMP/xdg"
cp "$D/kernels.json" "$B/k.json"
cp "$D/kernels.json" "$B/ro/k.json"
chmod a-w "$B/ro"
run_trex k0 kernels --no-cache "$B/k.json"
(
	unset TREX_INDEX_DIR
	export XDG_CACHE_HOME="$TEST_TMP/xdg"
	run_trex k1 kernels "$B/k.json"
	run_trex k2 kernels "$B/ro/k.json"
	cd "$B" && run_trex k3 kernels k.json.trex
	cd "$B" && run_trex k4 kernels 'k*'
)
check "beside the trace: TRACE.trex" test -f "$B/k.json.trex"
check "a read-only directory: under XDG_CACHE_HOME/trex" \
	sh -c 'ls "$1"/xdg/trex/k.json.*.trex && test ! -e "$1/beside/ro/k.json.trex"' sh "$TEST_TMP"
check "TRACE.trex given stands for the trace" cmp "$TEST_TMP/k0.out" "$TEST_TMP/k3.out"
check "a glob leaves index files out" cmp "$TEST_TMP/k0.out" "$TEST_TMP/k4.out"
chmod u+w "$B/ro"

# ---- trex index ----------------------------------------------------------------------------------

R=$TEST_TMP/ranks
mkdir -p "$R"
cp "$C"/kineto/param_dlrm_8rank/*.json.gz "$R"/
rm -rf "$IDX"
run_trex ix1 index -j 2 "$R"/*.json.gz
check "index -j 2: one line per file, each built" \
	sh -c 'test "$(grep -c ": built .*events.*bytes/event" "$1")" -eq 8' sh "$TEST_TMP/ix1.out"
check "index: one index file per input" sh -c 'test "$(ls "$1" | wc -l)" -eq 8' sh "$IDX"
run_trex ix2 index "$R"/*.json.gz
check "index again: every file up to date" \
	sh -c 'test "$(grep -c ": up to date, " "$1")" -eq 8' sh "$TEST_TMP/ix2.out"
rm -rf "$IDX"
# as a cluster launcher would spread them: two tasks, four files each
ls "$R"/*.json.gz | xargs -P 2 -n 4 "$TREX" index -j 1 >"$TEST_TMP/xa.out" 2>&1
check "xargs -P 2: every file indexed" \
	sh -c 'test "$(grep -c ": built " "$1")" -eq 8 && test "$(ls "$2" | wc -l)" -eq 8' \
	sh "$TEST_TMP/xa.out" "$IDX"
run_trex one kernels --no-cache "$R/worker3_step_12.1694128201557.pt.trace.json.gz"
run_trex two kernels "$R/worker3_step_12.1694128201557.pt.trace.json.gz"
check "a rank opened alone maps its index file" cmp "$TEST_TMP/one.out" "$TEST_TMP/two.out"
run_trex ig index "$C/chakra/custom-ring-allreduce-8npus/custom_allreduce.0.et"
check "index: execution graphs are not indexed, and say so" \
	grep -q "not indexed: execution graphs are not cached" "$TEST_TMP/ig.out"
mkfifo "$TEST_TMP/pipe.json"
cat "$D/flows.json" >"$TEST_TMP/pipe.json" &
run_trex fifo index "$TEST_TMP/pipe.json"
wait
check "index: a pipe is read but not indexed, and says so" \
	grep -q "pipe.json: not indexed: only regular files are indexed" "$TEST_TMP/fifo.out"
run_trex bad index "$R/worker0_step_12.1694128201545.pt.trace.json.gz" "$TEST_TMP/missing.json"
check "index: a missing file fails, the others are built" \
	sh -c 'test "$(cat "$1.rc")" -eq 2 && grep -q "1 of 2 files failed" "$1.err" &&
	grep -q "missing.json" "$1.err" && grep -q "up to date\|built" "$1.out"' sh "$TEST_TMP/bad"

# A write that fails (a file size limit here; a full disk fails the same
# way) says why in one line and leaves no file; `trex index` then fails,
# while a load still prints its table. A gzip trace: its access points go
# through the codec's save, which took a refused write for lack of memory.
G=$R/worker0_step_12.1694128201545.pt.trace.json.gz
LIM=$TEST_TMP/limited
mkdir -p "$LIM"
limited() { # NAME ARGS...: run_trex with files capped under 200 KB, SIGXFSZ ignored
	(
		trap '' XFSZ
		ulimit -f 200
		TREX_INDEX_DIR=$LIM
		export TREX_INDEX_DIR
		run_trex "$@"
	)
}
limited lim_index index "$G"
check "index: a write cut short fails (exit 2), says why, leaves no file" \
	sh -c 'test "$(cat "$1.rc")" -eq 2 && grep -q "cannot write index file .*: File too large" "$1.err" &&
	! grep -q "out of memory" "$1.err" && test -z "$(ls -A "$2")"' sh "$TEST_TMP/lim_index" "$LIM"
limited lim_kernels kernels "$G"
run_trex lim_plain kernels --no-cache "$G"
check "a load whose index file cannot be written: its table, one line saying why" \
	sh -c 'test "$(cat "$1.rc")" -eq 0 && cmp -s "$1.out" "$2.out" && test "$(wc -l <"$1.err")" -eq 1 &&
	grep -q "File too large" "$1.err"' sh "$TEST_TMP/lim_kernels" "$TEST_TMP/lim_plain"

done_testing
