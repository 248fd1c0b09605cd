#!/bin/sh
# End-to-end: the Chakra ET writer (issue 13 item 4) through
# tests/unit/chakra_write_tool, on the corpus Chakra sets and the 8-rank
# Kineto DLRM trace, judged by trex itself and by ASTRA-sim's kit
# (../shared/tools/astrasim):
#  - every corpus set round-trips: the reload has the same graph tables
#    (trex info --format json, "graph") and node rows (trex nodes), the
#    written files of sets with GlobalMetadata are byte-identical to the
#    originals (gzip unwrapped), and Chakra's reader counts the same nodes
#    per type in the written files as trex wrote;
#  - the sets ASTRA-sim accepts as shipped still PASS check_et.sh;
#  - param_dlrm_8rank exported to Chakra PASSes check_et.sh on 8 ranks, with
#    collectives typed from the launching c10d ops;
#  - chakra-json is one valid JSON document; --force and refusal semantics.
. "${TREX_SRCDIR:?run through make check}/tests/e2e/lib.sh"
require_built

CW=${TREX_DUMP%/*}/chakra_write_tool
CK_CORPUS=${TREX_CORPUS:-}/chakra
KIT=${TREX_CORPUS:-}/../tools/astrasim
[ -x "$CW" ] || bail_out "$CW is not built"
[ -d "$CK_CORPUS" ] || skip_all "no corpus chakra/ sets in ${TREX_CORPUS:-}"

# set: dir/prefix, ranks, whether ASTRA-sim accepts it as shipped
SETS="custom-ring-allreduce-8npus/custom_allreduce 8 yes
microbench-allreduce-8npus/all_reduce 8 yes
onecomm-allreduce-uint64size/one_comm_coll_node_allreduce 8 yes
pytorch-1rank-chakra-tests/chakra 1 no
pytorch-2rank-allreduce/chakra_trace 2 no
resnet50-dp-64npus-legacy2023/resnet50_DataParallel 64 no
torus3d-pgname-8npus/trace 8 no"

have_reader=no
if [ -f "$KIT/chakra_read.py" ] && /usr/bin/python3 -c 'import google.protobuf' 2>/dev/null; then
	have_reader=yes
fi

# graph_of FILE: the "graph" member of trex info --format json, canonical, paths left out.
graph_of() {
	"$PYTHON3" -c '
import json, sys
def strip(v):  # the file paths differ, nothing else may
    if isinstance(v, dict): return {k: strip(x) for k, x in v.items() if k != "file"}
    if isinstance(v, list): return [strip(x) for x in v]
    return v
print(json.dumps(strip(json.load(open(sys.argv[1]))["graph"]), sort_keys=True))' "$1"
}

# reader_counts PREFIX N: "TYPE COUNT" totals over the set, as Chakra's reader counts them.
reader_counts() {
	i=0
	files=
	while [ "$i" -lt "$2" ]; do
		files="$files $1.$i.et"
		i=$((i + 1))
	done
	# shellcheck disable=SC2086
	/usr/bin/python3 "$KIT/chakra_read.py" -q $files 2>&1 | "$PYTHON3" -c '
import re, sys, collections
c = collections.Counter()
for line in sys.stdin:
    if not line.startswith("OK "):
        print("BAD", line.strip()); continue
    for t, n in re.findall(r"([A-Z_]+_NODE)=(\d+)", line):
        c[t] += int(n)
for t in sorted(c): print(t, c[t])'
}

while read -r set n accepted; do
	sname=${set%%/*}
	out=$TEST_TMP/$sname
	if ! "$CW" "$out" "$CK_CORPUS/$set" >"$TEST_TMP/w.out" 2>"$TEST_TMP/w.err"; then
		not_ok "$sname: written"
		diag_file "$TEST_TMP/w.err"
		continue
	fi
	ok "$sname: written ($(head -n 1 "$TEST_TMP/w.out"))"
	run_trex a info --format json "$CK_CORPUS/$set"
	run_trex b info --format json "$out"
	# a legacy set gains the GlobalMetadata it lacked: its schema column says so
	graph_of "$TEST_TMP/a.out" | sed 's/"schema": "legacy (no GlobalMetadata)"/"schema": "0.0.4"/g' >"$TEST_TMP/ga"
	graph_of "$TEST_TMP/b.out" >"$TEST_TMP/gb"
	check "$sname: the reload has the same graph tables" cmp "$TEST_TMP/ga" "$TEST_TMP/gb"
	run_trex a nodes --format json "$CK_CORPUS/$set"
	run_trex b nodes --format json "$out"
	check "$sname: the reload has the same nodes" cmp "$TEST_TMP/a.out" "$TEST_TMP/b.out"
	if [ "$sname" != resnet50-dp-64npus-legacy2023 ]; then
		same=yes
		for f in "$CK_CORPUS/${set%/*}"/*.et*; do
			r=$(printf '%s\n' "$f" | sed 's/.*\.\([0-9][0-9]*\)\.et\(\.gz\)\{0,1\}$/\1/')
			gzip -dcf "$f" | cmp -s - "$out.$r.et" || same="no ($f)"
		done
		check "$sname: the files are byte-identical to the originals" test "$same" = yes
	fi
	if [ "$have_reader" = no ]; then
		skip "$sname: Chakra's reader counts the nodes written" "no chakra_read.py or python3-protobuf"
	else
		sed -n 's/^type //p' "$TEST_TMP/w.out" | sort >"$TEST_TMP/wt"
		reader_counts "$out" "$n" >"$TEST_TMP/rt"
		check "$sname: Chakra's reader counts the nodes written" cmp "$TEST_TMP/wt" "$TEST_TMP/rt"
	fi
	if [ "$accepted" = yes ] && [ -x "$KIT/check_et.sh" ]; then
		verdict=$(TIMEOUT=60 "$KIT/check_et.sh" "$out" "$n" 2>/dev/null | tail -n 1)
		case $verdict in
		PASS*) ok "$sname: ASTRA-sim still accepts it: $verdict" ;;
		*) not_ok "$sname: ASTRA-sim still accepts it: $verdict" ;;
		esac
	fi
done <<EOF
$SETS
EOF

# The 8-rank DLRM Kineto set, no host trace: COMP and COMM_COLL nodes.
DLRM=${TREX_CORPUS:-}/kineto/param_dlrm_8rank
if [ -d "$DLRM" ]; then
	out=$TEST_TMP/dlrm
	"$CW" "$out" "$DLRM"/*.json.gz >"$TEST_TMP/d.out" 2>"$TEST_TMP/d.err"
	check "dlrm: written" grep -q '^ranks 8 ' "$TEST_TMP/d.out"
	# 5 all-to-alls (ncclKernel_SendRecv under c10d::alltoall_base_) and 3 all-reduces per rank
	check "dlrm: 8 collectives per rank, in the same order" \
		grep -q -x 'type COMM_COLL_NODE 64' "$TEST_TMP/d.out"
	check "dlrm: collective order checked the same" grep -q -x 'order same' "$TEST_TMP/d.out"
	if [ "$have_reader" = yes ]; then
		reader_counts "$out" 8 >"$TEST_TMP/rt"
		sed -n 's/^type //p' "$TEST_TMP/d.out" | sort >"$TEST_TMP/wt"
		check "dlrm: Chakra's reader counts the nodes written" cmp "$TEST_TMP/wt" "$TEST_TMP/rt"
	fi
	if [ -x "$KIT/check_et.sh" ]; then
		verdict=$(TIMEOUT=60 "$KIT/check_et.sh" "$out" 8 2>/dev/null | tail -n 1)
		case $verdict in
		PASS*) ok "dlrm: ASTRA-sim simulates it: $verdict" ;;
		*) not_ok "dlrm: ASTRA-sim simulates it: $verdict" ;;
		esac
	else
		skip "dlrm: ASTRA-sim simulates it" "no $KIT/check_et.sh"
	fi
	"$CW" --json "$out.json" "$DLRM"/*.json.gz >/dev/null 2>&1
	check "dlrm: chakra-json is one JSON document with 8 ranks and every node" \
		"$PYTHON3" -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["ranks"]) == 8, len(d["ranks"])
assert all(r["metadata"]["version"] == "0.0.4" for r in d["ranks"])
n = sum(len(r["nodes"]) for r in d["ranks"])
want = int(open(sys.argv[2]).readline().split()[3])
assert n == want, (n, want)' "$out.json" "$TEST_TMP/d.out"
	"$CW" "$out" "$DLRM"/*.json.gz >/dev/null 2>"$TEST_TMP/e.err"
	check "an existing set is refused without --force" grep -q 'exists' "$TEST_TMP/e.err"
	check "and replaced with --force" "$CW" --force "$out" "$DLRM"/*.json.gz
	check "no temporary file is left behind" sh -c "! ls '$TEST_TMP' | grep -q tmp"

	# the same through the command line
	cli=$TEST_TMP/cli
	run_trex ex export --to chakra -o "$cli" "$DLRM"/*.json.gz
	check "trex export --to chakra: exit 0, 2244 nodes said" \
		sh -c "[ $(rc_of ex) -eq 0 ] && grep -q 'wrote .*cli (chakra): 2244 nodes' '$TEST_TMP/ex.err'"
	check "... and the approximation said: 8 collectives with comm_size 0" \
		grep -q 'cli: 8 collectives written with comm_size 0' "$TEST_TMP/ex.err"
	same=yes
	for r in 0 1 2 3 4 5 6 7; do cmp -s "$cli.$r.et" "$out.$r.et" || same=no; done
	check "... the very files the writer makes" test "$same" = yes
	if [ -x "$KIT/check_et.sh" ]; then
		verdict=$(TIMEOUT=60 "$KIT/check_et.sh" "$cli" 8 2>/dev/null | tail -n 1)
		case $verdict in
		PASS*) ok "trex export --to chakra, then ASTRA-sim: $verdict" ;;
		*) not_ok "trex export --to chakra, then ASTRA-sim: $verdict" ;;
		esac
	fi
	expect_usage "chakra takes no --range" export --to chakra --range 0:1us -o "$TEST_TMP/r" \
		"$DLRM"/worker0_step_12.1694128201545.pt.trace.json.gz
	run_trex again export --to chakra -o "$cli" "$DLRM"/*.json.gz
	check "trex export refuses an existing set (exit 2)" sh -c "[ $(rc_of again) -eq 2 ]"
fi
done_testing
