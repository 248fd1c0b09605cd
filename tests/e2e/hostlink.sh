#!/bin/sh
# End-to-end: trex export --to chakra|chakra-json --host-et (issue 13 item 4,
# host ET linking):
#  - a hand-made pair (tests/data/hostlink/tiny.*): every node, its type,
#    duration, data and ctrl deps and is_cpu_op as checked by hand in
#    tiny.expect; the host op's attributes carried; the summary's counts;
#  - the corpus host ET (pytorch_et/1.0.2-chakra.0.0.4.json) with Kineto
#    traces of 2 ranks generated to match it (hostlink_kineto.py, which
#    also counts what trex should write): the summary's counts, Chakra's
#    reader's node counts per type, ASTRA-sim's verdict (check_et.sh);
#  - the {rank} pattern names the same files as the list;
#  - a host ET of another program, the wrong number of host ETs, another
#    output format and an execution-graph input are clear errors that write
#    nothing.
. "${TREX_SRCDIR:?run through make check}/tests/e2e/lib.sh"
require_built

DATA=$TREX_SRCDIR/tests/data/hostlink
HL_PY=$E2E_DIR/hostlink.py
GEN=$E2E_DIR/hostlink_kineto.py
KIT=${TREX_CORPUS:-}/../tools/astrasim
HOST_ET=${TREX_CORPUS:-}/pytorch_et/1.0.2-chakra.0.0.4.json

# ---- the hand-made pair ----------------------------------------------------------------
run_trex tiny export "$DATA/tiny.kineto.json" --to chakra-json --host-et "$DATA/tiny.host.json" \
	-o "$TEST_TMP/tiny.json"
check "tiny: exported" test "$(rc_of tiny)" -eq 0
"$PYTHON3" "$HL_PY" nodes "$TEST_TMP/tiny.json" >"$TEST_TMP/tiny.nodes" 2>&1
grep -v '^#' "$DATA/tiny.expect" >"$TEST_TMP/tiny.want"
check "tiny: nodes, durations and deps as checked by hand" \
	diff "$TEST_TMP/tiny.want" "$TEST_TMP/tiny.nodes"
"$PYTHON3" "$HL_PY" attrs "$TEST_TMP/tiny.json" 4 >"$TEST_TMP/tiny.attrs" 2>&1
check "tiny: the host ET's attributes carried, in the converter's order" diff - "$TEST_TMP/tiny.attrs" <<'WANT'
rf_id=11
fw_parent=0
seq_id=-1
scope=0
tid=1
fw_tid=0
op_schema=aten::mm(Tensor self, Tensor mat2) -> Tensor
is_cpu_op=True
WANT
check "tiny: the summary counts linked and unmatched ops and work" grep -q \
	'host ETs: 7 host ops as CPU nodes (4 linked by record-function id, 0 by name, 3 unmatched), 5 device ops after their launching op, 1 with none' \
	"$TEST_TMP/tiny.err"

# a host ET cut inside its 6th node: the loader keeps 5 ops; record_param_comms is lost, so
# the all-reduce kernel it launched has no host op; the damage is said, not only counted
head -c 4142 "$DATA/tiny.host.json" >"$TEST_TMP/cut.host.json"
run_trex cut export "$DATA/tiny.kineto.json" --to chakra-json --host-et "$TEST_TMP/cut.host.json" \
	-o "$TEST_TMP/cut.json"
check "a cut host ET: what it kept is linked, and its damage is said" grep -q \
	'host ETs: 5 host ops as CPU nodes (3 linked by record-function id, 0 by name, 2 unmatched), 4 device ops after their launching op, 2 with none; 1 host ET damaged: `trex integrity` on it says what was lost' \
	"$TEST_TMP/cut.err"

# ---- errors: nothing written ------------------------------------------------------------
expect_usage "--host-et with another format" export "$DATA/tiny.kineto.json" --to chrome \
	--host-et "$DATA/tiny.host.json" -o "$TEST_TMP/x.json"
expect_usage "--host-et: one host ET per trace file" export "$DATA/tiny.kineto.json" --to chakra \
	--host-et "$DATA/tiny.host.json,$DATA/tiny.host.json" -o "$TEST_TMP/two"
check "--host-et: nothing written after a usage error" test ! -e "$TEST_TMP/two.0.et"
run_trex missing export "$DATA/tiny.kineto.json" --to chakra --host-et "$TEST_TMP/none.json" \
	-o "$TEST_TMP/missing"
check "--host-et: a missing host ET is an error naming it" \
	sh -c "test $(rc_of missing) -ne 0 && grep -q 'none.json' '$TEST_TMP/missing.err' && test ! -e '$TEST_TMP/missing.0.et'"

# ---- the corpus host ET, two ranks ----------------------------------------------------------
if [ ! -f "$HOST_ET" ]; then
	skip "corpus host ET linked on 2 ranks" "no $HOST_ET"
	done_testing
	exit 0
fi
for r in 0 1; do
	"$PYTHON3" "$GEN" "$HOST_ET" "$r" "$TEST_TMP/k$r.json" || bail_out "hostlink_kineto.py failed"
done
"$PYTHON3" "$GEN" "$HOST_ET" 0 - --expect >"$TEST_TMP/want" || bail_out "hostlink_kineto.py --expect failed"
want() { sed -n "s/^$1 //p" "$TEST_TMP/want"; }

run_trex et export "$TEST_TMP/k0.json" "$TEST_TMP/k1.json" --to chakra \
	--host-et "$HOST_ET,$HOST_ET" -o "$TEST_TMP/set"
check "corpus: exported" test "$(rc_of et)" -eq 0
ops=$(($(want host_ops) * 2))
linked=$(($(want linked_rf_id) * 2))
unmatched=$(($(want unmatched) * 2))
work=$(($(want device_ops) * 2))
check "corpus: $ops host ops, $linked linked by rf_id, $unmatched unmatched, $work device ops linked" \
	grep -q "host ETs: $ops host ops as CPU nodes ($linked linked by record-function id, 0 by name, $unmatched unmatched), $work device ops after their launching op, 0 with none" \
	"$TEST_TMP/et.err"

# the same files from a {rank} pattern
mkdir -p "$TEST_TMP/et"
cp "$HOST_ET" "$TEST_TMP/et/host.0.json"
cp "$HOST_ET" "$TEST_TMP/et/host.1.json"
run_trex pat export "$TEST_TMP/k0.json" "$TEST_TMP/k1.json" --to chakra \
	--host-et "$TEST_TMP/et/host.{rank}.json" -o "$TEST_TMP/pat"
check "corpus: a {rank} pattern writes the same set" \
	sh -c "cmp '$TEST_TMP/set.0.et' '$TEST_TMP/pat.0.et' && cmp '$TEST_TMP/set.1.et' '$TEST_TMP/pat.1.et'"

if [ -f "$KIT/chakra_read.py" ] && /usr/bin/python3 -c 'import google.protobuf' 2>/dev/null; then
	/usr/bin/python3 "$KIT/chakra_read.py" -q "$TEST_TMP/set.0.et" "$TEST_TMP/set.1.et" \
		>"$TEST_TMP/read" 2>&1
	comp=$(want COMP_NODE)
	coll=$(want COMM_COLL_NODE)
	n=$((comp + coll))
	check "corpus: Chakra's reader reads $n nodes per rank (COMP $comp, COMM_COLL $coll)" \
		test "$(grep -c "^OK .*GlobalMetadata + $n nodes); COMM_COLL_NODE=$coll, COMP_NODE=$comp\$" "$TEST_TMP/read")" -eq 2
else
	skip "corpus: Chakra's reader counts the nodes" "no chakra_read.py or python3-protobuf"
fi
if [ -x "$KIT/check_et.sh" ]; then
	verdict=$(TIMEOUT=120 "$KIT/check_et.sh" "$TEST_TMP/set" 2 2>/dev/null | tail -n 1)
	case $verdict in
	PASS*) ok "corpus: ASTRA-sim simulates the linked set: $verdict" ;;
	*) not_ok "corpus: ASTRA-sim simulates the linked set: $verdict" ;;
	esac
else
	skip "corpus: ASTRA-sim simulates the linked set" "no check_et.sh in $KIT"
fi

# a host ET of another program: refused, nothing written
run_trex wrong export "$TEST_TMP/k0.json" --to chakra --host-et "$DATA/tiny.host.json" \
	-o "$TEST_TMP/wrong"
check "another program's host ET is refused, naming both files" \
	sh -c "test $(rc_of wrong) -ne 0 && grep -q 'tiny.host.json.*does not fit.*k0.json' '$TEST_TMP/wrong.err' && test ! -e '$TEST_TMP/wrong.0.et'"
diag_file "$TEST_TMP/wrong.err" 3
# an execution graph has its host ops already
run_trex graph export "$HOST_ET" --to chakra --host-et "$HOST_ET" -o "$TEST_TMP/graph"
check "an execution-graph input is refused" \
	sh -c "test $(rc_of graph) -ne 0 && grep -q 'execution graph' '$TEST_TMP/graph.err'"

done_testing
