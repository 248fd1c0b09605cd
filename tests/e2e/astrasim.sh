#!/bin/sh
# End-to-end: trex reads ASTRA-sim inputs (issue 12 item 5). The simulator's
# issue/callback timeline (real logs of the analytical backend, gzip'd, and a
# hand-made file in the visualizer's plain layout with an unmatched issue, an
# unmatched callback and a broken line) must load as tests/e2e/astrasim.py
# reads it: slices per NPU and kind, ns per kind at two NPU clocks, the
# problems at their lines. ASTRA-sim 1.0 text workloads (the 8 corpus files)
# must become, through the astrasim-text graph loader (tests/unit/graph_dump),
# the graph astrasim.py's own conversion makes, node by node and dependency by
# dependency, for the default and for 3 NPUs; Resnet50 for 64 NPUs the very
# graph Chakra's text converter wrote (corpus chakra/resnet50-dp-64npus-
# legacy2023, decoded with the tools kit's schema module); broken workloads
# fail with the line:col and what was expected. Through trex info, every
# corpus workload has astrasim.py's nodes per rank and type and ns per type;
# makespans and critical paths checked by hand on microAllReduce.txt (2 and
# 4 NPUs) and a 2-layer DATA workload (tests/data/astrasim/data_by_hand.txt).
. "${TREX_SRCDIR:?run through make check}/tests/e2e/lib.sh"
require_built

ASTRA_PY=$E2E_DIR/astrasim.py
DATA=$TREX_SRCDIR/tests/data/astrasim

for f in "$DATA/ring_allreduce_8npus.log.gz" "$DATA/pytorch_2rank.log.gz" "$DATA/visualizer.csv"; do
	for ghz in 1 1.5; do
		run_checker "$ASTRA_PY" timeline "$TREX" "$f" "$ghz"
	done
done

# the log's other lines before the first issue: told by --input-format
{
	echo "simulator started"
	gzip -dc "$DATA/ring_allreduce_8npus.log.gz"
} >"$TEST_TMP/late.log"
run_trex late --input-format astrasim-timeline info "$TEST_TMP/late.log"
if [ "$(rc_of late)" -eq 0 ] && grep -q '^issue *280 ' "$TEST_TMP/late.out"; then
	ok "--input-format astrasim-timeline: a log that starts with another line"
else
	not_ok "--input-format astrasim-timeline reads a log that starts with another line"
	diag_file "$TEST_TMP/late.err"
fi

# a log without issue or callback lines says how to get them
printf '[2026-01-02 03:04:05.678] [workload] [info] sys[0] finished, 10 cycles\n' >"$TEST_TMP/quiet.log"
run_trex quiet info "$TEST_TMP/quiet.log"
if [ "$(rc_of quiet)" -eq 2 ] && grep -q 'quiet.log.*trace-enabled' "$TEST_TMP/quiet.err"; then
	ok "a log without issue lines: an error naming trace-enabled"
else
	not_ok "a log without issue lines is refused with a hint (exit $(rc_of quiet))"
	diag_file "$TEST_TMP/quiet.err"
fi

# --strict refuses the broken line, with its position
run_trex strict --strict info "$DATA/visualizer.csv"
if [ "$(rc_of strict)" -eq 2 ] && grep -q 'visualizer.csv:15:23: .*expected the cycle column' "$TEST_TMP/strict.err"; then
	ok "--strict: the broken line at 15:23"
else
	not_ok "--strict refuses the broken line with its position (exit $(rc_of strict))"
	diag_file "$TEST_TMP/strict.err"
fi

for bad in 0 -1 abc 1e9; do
	run_trex freq --npu-frequency "$bad" info "$DATA/visualizer.csv"
	if [ "$(rc_of freq)" -eq 1 ] && grep -q -- '--npu-frequency' "$TEST_TMP/freq.err"; then
		ok "--npu-frequency $bad is a usage error"
	else
		not_ok "--npu-frequency $bad is a usage error (exit $(rc_of freq))"
		diag_file "$TEST_TMP/freq.err"
	fi
done

GRAPH_DUMP=${TREX_DUMP%/*}/graph_dump

# check_makespan WORKLOAD NPUS NS PATH: trex info's makespan and trex
# critical-path's nodes, first to last (rank 0's), for NPUS NPUs (0: the default).
check_makespan() {
	npus_opt= label="${1##*/} for the default (2) NPUs"
	[ "$2" -eq 0 ] || npus_opt="--npus $2" label="${1##*/} for $2 NPUs"
	# shellcheck disable=SC2086 # npus_opt is an option and its value, or nothing
	run_trex span info --format json $npus_opt "$1"
	got=$("$PYTHON3" -c 'import json, sys; print(json.load(sys.stdin)["schedule"]["makespan_ns"])' \
		<"$TEST_TMP/span.out" 2>/dev/null)
	if [ "$(rc_of span)" -eq 0 ] && [ "$got" = "$3" ]; then
		ok "$label: makespan $3 ns"
	else
		not_ok "$label: makespan $3 ns (trex info says '$got', exit $(rc_of span))"
		diag_file "$TEST_TMP/span.err"
	fi
	# shellcheck disable=SC2086
	run_trex path critical-path --format csv $npus_opt "$1"
	got=$(awk -F, 'NR > 1 && $1 == 0 { printf "%s%s", sep, $3; sep = " " }' "$TEST_TMP/path.out")
	if [ "$(rc_of path)" -eq 0 ] && [ "$got" = "$4" ]; then
		ok "$label: critical path $4"
	else
		not_ok "$label: critical path $4"
		diag_file "$TEST_TMP/path.out"
	fi
}
if [ -d "${TREX_CORPUS:-}/astrasim1" ]; then
	for f in "$TREX_CORPUS"/astrasim1/*.txt; do
		for npus in 0 3; do
			run_checker "$ASTRA_PY" text "$GRAPH_DUMP" "$f" "$npus"
			run_checker "$ASTRA_PY" info "$TREX" "$f" "$npus"
		done
	done
	# makespans checked by hand: one all-reduce of 1 MiB, no compute, at
	# 50 GB/s and 500 ns: 2 NPUs 500 + 1048576 x 2(1/2) / 50 = 21472 ns
	# (20971.52 rounded up), 4 NPUs 500 + 1048576 x 2(3/4) / 50 = 31958 ns
	micro=$TREX_CORPUS/astrasim1/microAllReduce.txt
	for want in 0:21472 4:31958; do
		check_makespan "$micro" "${want%%:*}" "${want#*:}" COMM_COLL_NODE_conv1_ALLREDUCE
	done
else
	skip "the corpus text workloads" "no astrasim1/ in ${TREX_CORPUS:-}"
fi
# A DATA workload of 2 layers, by hand (per NPU; compute and comm are
# separate resources; an all-reduce of B bytes on 2 NPUs: 500 + B / 50 ns):
#   l1 FWD 0-100, l2 FWD 100-500, l2 WG 500-1100,
#   l2 all-reduce (2000 B) 1100-1640 beside l2 IG 1100-1600,
#   l1 WG 1600-1900, l1 all-reduce (1000 B) 1900-2420: makespan 2420 ns,
# the critical path l1 FWD, l2 FWD, l2 WG, l2 IG, l1 WG, l1 all-reduce.
check_makespan "$DATA/data_by_hand.txt" 0 2420 "COMP_NODE_l1_FWD COMP_NODE_l2_FWD \
COMP_NODE_l2_BWD_WG COMP_NODE_l2_BWD_IG COMP_NODE_l1_BWD_WG COMM_COLL_NODE_l1_ALLREDUCE"
KIT=$TREX_CORPUS/../tools/astrasim
legacy=$TREX_CORPUS/chakra/resnet50-dp-64npus-legacy2023/resnet50_DataParallel
if [ -f "$KIT/et_def_pb2.py" ] && [ -f "$legacy.0.et" ] &&
	/usr/bin/python3 -c 'import google.protobuf' 2>/dev/null; then
	ET_DEF_DIR=$KIT PYTHON3=/usr/bin/python3 run_checker "$ASTRA_PY" et "$GRAPH_DUMP" \
		"$TREX_CORPUS/astrasim1/Resnet50_DataParallel.txt" "$legacy" 64
else
	skip "Resnet50 against Chakra's converter output" "no tools kit, legacy set or python3-protobuf"
fi

# broken workloads: refused with the position and what was expected
while IFS='|' read -r file want; do
	"$GRAPH_DUMP" astrasim-text "$DATA/$file" >"$TEST_TMP/broken.out" 2>"$TEST_TMP/broken.err"
	rc=$?
	if [ "$rc" -eq 2 ] && grep -q -F "$file:$want" "$TEST_TMP/broken.err"; then
		ok "$file: refused at $want"
	else
		not_ok "$file: refused at $want (exit $rc)"
		diag_file "$TEST_TMP/broken.err"
	fi
done <<'EOF_BROKEN'
bad_policy.txt|1:1: (byte 0) header: expected a parallelism policy
short_layer.txt|5:1: (byte 98) layer 2 of 2 (conv2): expected the weight-gradient collective's size in bytes, found the end of input
bad_number.txt|3:23: (byte 30) layer 1 of 1 (fc1): expected the input-gradient compute time (cycles), found '12a'
bad_layer_policy.txt|3:44: (byte 63) layer 1 of 1 (fc1): expected the layer's policy
dlrm_no_bottom.txt|2:1: (byte 12) header: expected the index of the last bottom-MLP layer, found the end of input
EOF_BROKEN
"$GRAPH_DUMP" astrasim-text "$DATA/trailing.txt" >"$TEST_TMP/trailing.out" 2>"$TEST_TMP/trailing.err"
if [ $? -eq 0 ] && grep -q "'extra' and what follows (18 bytes) after the last layer: ignored" "$TEST_TMP/trailing.err" &&
	[ "$(grep -c '^node ' "$TEST_TMP/trailing.out")" -eq 2 ]; then
	ok "trailing.txt: tokens after the last layer are ignored and said"
else
	not_ok "trailing.txt: tokens after the last layer are ignored and said"
	diag_file "$TEST_TMP/trailing.err"
fi

done_testing
