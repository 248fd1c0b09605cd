#!/bin/sh
# End-to-end: what `trex export --to chakra` adds to stream order on GPU
# traces (issue 13 item 4), judged against hand-worked or generated
# expectations and by ASTRA-sim's kit (../shared/tools/astrasim):
#  - process groups: pg_name on collectives of groups that are not the whole
#    set, PREFIX.comm_groups.json beside the set (chakra-json: its
#    "comm_groups"), the summary and the ASTRA-sim command line; the corpus
#    traces whose groups are the whole set get no pg_name and no file;
#  - dependencies from cross-stream waits and synchronizations: hand-made
#    traces (tests/data/chakra_sync, deps worked out by hand in its README)
#    and the generated multi-rank set (tests/gen_nccl_kineto.py prints the
#    dependencies its own model implies);
#  - --steps: the work launched in the chosen ProfilerSteps (counted from the
#    JSON by Python), unknown steps refused, other formats' time range;
#  - the generated 2-rank and 4-rank sets with NCCL collectives on every rank
#    PASS check_et.sh (4 ranks: with the comm-group file).
. "${TREX_SRCDIR:?run through make check}/tests/e2e/lib.sh"
require_built

GEN=$TREX_SRCDIR/tests/gen_nccl_kineto.py
SYNC=$TREX_SRCDIR/tests/data/chakra_sync
KIT=${TREX_CORPUS:-}/../tools/astrasim

# deps_of DOC: "ID NAME DEPS" per node of every rank of a chakra-json
# document ("R ID NAME DEPS" with a rank column when given "ranks").
deps_of() {
	"$PYTHON3" -c '
import json, sys
d = json.load(open(sys.argv[1]))
for r, rk in enumerate(d["ranks"]):
    for n in rk["nodes"]:
        deps = ",".join(sorted(n.get("dataDeps", []), key=int)) or "-"
        line = "%s %s %s" % (n.get("id", "0"), n["name"].split("(")[0], deps)
        print(("%d " % r if len(sys.argv) > 2 else "") + line)' "$@"
}

# check_et LABEL PREFIX N [ARGS...]: ASTRA-sim's verdict as one TAP line.
check_et() {
	label=$1
	shift
	if [ ! -x "$KIT/check_et.sh" ]; then
		skip "$label" "no $KIT/check_et.sh"
		return
	fi
	verdict=$(TIMEOUT=120 "$KIT/check_et.sh" "$@" 2>/dev/null | tail -n 1)
	case $verdict in
	PASS*) ok "$label: $verdict" ;;
	*) not_ok "$label: $verdict" ;;
	esac
}

# ---- waits and synchronizations, worked out by hand ------------------------------------------
for t in streams device; do
	run_trex "$t" export --to chakra-json -o "$TEST_TMP/$t.json" "$SYNC/$t.json"
	deps_of "$TEST_TMP/$t.json" >"$TEST_TMP/$t.got"
	check "sync $t: the dependencies worked out by hand" diff "$TEST_TMP/$t.got" "$SYNC/$t.deps"
done
# ---- one collective, one node -----------------------------------------------------------------
# node_types OUT: each node of a chakra-json file as NAME:TYPE[:COMM_TYPE].
node_types() {
	"$PYTHON3" -c '
import json, sys
d = json.load(open(sys.argv[1]))
def ct(n):
    return "".join(":" + str(a["int64Val"]) for a in n.get("attr", []) if a["name"] == "comm_type")
print(" ".join("%s:%s%s" % (n["name"].split("(")[0], n["type"], ct(n)) for r in d["ranks"] for n in r["nodes"]))' "$1"
}
helper_said="1 kernel launched inside a collective's call beside its communication kernel written as compute"
run_trex helper export --to chakra-json -o "$TEST_TMP/helper.json" "$SYNC/helper_copy.json"
check "a copy kernel inside nccl:all_gather is COMP, the NCCL kernel the one collective" \
	test "$(node_types "$TEST_TMP/helper.json")" = \
	"ncclDevKernel_AllGather_RING_LL:COMM_COLL_NODE:2 CatArrayBatchedCopy:COMP_NODE"
check "the summary says the copy was written as compute" grep -q "$helper_said" "$TEST_TMP/helper.err"
# The same under a functional collective: which ops are a collective's call
# is the classifier's OP rules (c10d-op here), not a list of the writer's own.
run_trex helper_c10d export --to chakra-json -o "$TEST_TMP/helper_c10d.json" \
	"$SYNC/helper_copy_c10d.json"
check "a copy kernel inside _c10d_functional::all_gather_into_tensor is COMP too" \
	test "$(node_types "$TEST_TMP/helper_c10d.json")" = \
	"ncclDevKernel_AllGather_RING_LL:COMM_COLL_NODE:2 CatArrayBatchedCopy:COMP_NODE"
check "... and the summary counts it as the collective's helper" \
	grep -q "$helper_said" "$TEST_TMP/helper_c10d.err"
run_trex generic_c10d export --to chakra-json -o "$TEST_TMP/generic_c10d.json" \
	"$SYNC/generic_c10d.json"
check "ncclDevKernel_Generic under _c10d_functional::all_reduce is an ALL_REDUCE collective" \
	test "$(node_types "$TEST_TMP/generic_c10d.json")" = "ncclDevKernel_Generic:COMM_COLL_NODE:0"

check "sync streams: the summary counts them" grep -q -x \
	'trex: 8 dependencies from 1 stream wait and 3 synchronizations' "$TEST_TMP/streams.err"
check "sync streams: the event never recorded is said" grep -q \
	'1 wait or sync named no earlier work' "$TEST_TMP/streams.err"
check "sync device: cudaDeviceSynchronize without cuda_sync events" grep -q -x \
	'trex: 2 dependencies from 0 stream waits and 1 synchronization' "$TEST_TMP/device.err"

# ---- a generated 4-rank set: groups, waits, ASTRA-sim ----------------------------------------
"$PYTHON3" "$GEN" "$TEST_TMP/g4" 4 >"$TEST_TMP/g4.expect"
run_trex j4 export --to chakra-json -o "$TEST_TMP/s4.json" "$TEST_TMP"/g4/*.json
deps_of "$TEST_TMP/s4.json" ranks >"$TEST_TMP/s4.got"
check "4 ranks: every node's dependencies as the generator's model says" \
	diff "$TEST_TMP/s4.got" "$TEST_TMP/g4.expect"
check "4 ranks: chakra-json holds the groups" "$PYTHON3" -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["comm_groups"] == {"1": [0, 1], "2": [2, 3]}, d["comm_groups"]' "$TEST_TMP/s4.json"

run_trex e4 export --to chakra -o "$TEST_TMP/s4" "$TEST_TMP"/g4/*.json
check "4 ranks: exit 0" test "$(rc_of e4)" -eq 0
check "4 ranks: the comm-group file maps each group to its ranks" "$PYTHON3" -c '
import json, sys
assert json.load(open(sys.argv[1])) == {"1": [0, 1], "2": [2, 3]}' "$TEST_TMP/s4.comm_groups.json"
check "4 ranks: the summary says the file was written" grep -q -x \
	"trex: wrote $TEST_TMP/s4.comm_groups.json: 2 process groups (12 collectives with a pg_name)" \
	"$TEST_TMP/e4.err"
check "4 ranks: and how to hand it to ASTRA-sim" grep -q -F \
	"ASTRA-sim: AstraSim_Analytical_Congestion_Unaware --workload-configuration=$TEST_TMP/s4 --comm-group-configuration=$TEST_TMP/s4.comm_groups.json " \
	"$TEST_TMP/e4.err"
if [ -f "$KIT/chakra_read.py" ] && /usr/bin/python3 -c 'import google.protobuf' 2>/dev/null; then
	check "4 ranks: pg_name as Chakra's reader sees it (string_val; none on the world's)" \
		/usr/bin/python3 -c '
import sys
sys.path[:0] = [sys.argv[1] + "/tools"]
import _etio
for r in range(4):
    _, nodes = _etio.read("%s.%d.et" % (sys.argv[2], r))
    pgs = [_etio.attr(n, "pg_name") for n in nodes if n.type == 7]
    want = [None, str(r // 2 + 1)] * 3
    assert pgs == want, (r, pgs)
    for n in nodes:
        for a in n.attr:
            if a.name == "pg_name":
                assert a.WhichOneof("value") == "string_val"' "$KIT" "$TEST_TMP/s4"
else
	skip "4 ranks: pg_name as Chakra's reader sees it" "no chakra_read.py or python3-protobuf"
fi
check_et "4 ranks: ASTRA-sim with the comm-group file" "$TEST_TMP/s4" 4 Switch unaware \
	"--comm-group-configuration=$TEST_TMP/s4.comm_groups.json"

run_trex again export --to chakra -o "$TEST_TMP/s4" "$TEST_TMP"/g4/*.json
check "an existing set is refused without --force (exit 2)" test "$(rc_of again)" -eq 2
# ranks 0 and 2 of the 4: the world is the whole set again (no pg_name); each
# tensor-parallel group keeps only its rank in the set
run_trex e01 export --force --to chakra -o "$TEST_TMP/s01" "$TEST_TMP/g4/rank-0.pt.trace.json" \
	"$TEST_TMP/g4/rank-2.pt.trace.json"
check "ranks 0 and 2 of 4: the groups as ranks of the set" "$PYTHON3" -c '
import json, sys
assert json.load(open(sys.argv[1])) == {"1": [0], "2": [1]}' "$TEST_TMP/s01.comm_groups.json"
check "... and the ranks outside the set are said" grep -q \
	'2 groups list ranks that are not in the set' "$TEST_TMP/e01.err"

# the groups without "Process Group Ranks": their ranks are the ranks naming them
mkdir "$TEST_TMP/g4n"
for f in "$TEST_TMP"/g4/*.json; do
	"$PYTHON3" -c '
import json, sys
d = json.load(open(sys.argv[1]))
for e in d["traceEvents"]:
    e.get("args", {}).pop("Process Group Ranks", None)
json.dump(d, open(sys.argv[2], "w"))' "$f" "$TEST_TMP/g4n/${f##*/}"
done
run_trex en export --to chakra -o "$TEST_TMP/sn" "$TEST_TMP"/g4n/*.json
check "groups without ranks: the ranks whose collectives name them" "$PYTHON3" -c '
import json, sys
assert json.load(open(sys.argv[1])) == {"1": [0, 1], "2": [2, 3]}' "$TEST_TMP/sn.comm_groups.json"
check "... and the summary says so" grep -q -x \
	'trex: 2 groups without ranks in the trace: ranks are those whose collectives name them' \
	"$TEST_TMP/en.err"
check_et "groups without ranks: ASTRA-sim with the comm-group file" "$TEST_TMP/sn" 4 Switch \
	unaware "--comm-group-configuration=$TEST_TMP/sn.comm_groups.json"

# ---- the 2-rank set -----------------------------------------------------------------------------
"$PYTHON3" "$GEN" "$TEST_TMP/g2" 2 >"$TEST_TMP/g2.expect"
run_trex e2 export --to chakra -o "$TEST_TMP/s2" "$TEST_TMP"/g2/*.json
check "2 ranks: written, the world group needs no comm-group file" \
	sh -c "[ $(rc_of e2) -eq 0 ] && [ ! -e '$TEST_TMP/s2.comm_groups.json' ]"
check_et "2 ranks with NCCL collectives on both: ASTRA-sim" "$TEST_TMP/s2" 2
# --force over a set that had groups: the stale comm-group file goes
cp "$TEST_TMP/s4.comm_groups.json" "$TEST_TMP/s2.comm_groups.json"
run_trex f2 export --force --to chakra -o "$TEST_TMP/s2" "$TEST_TMP"/g2/*.json
check "--force: a stale comm-group file beside the set is removed" \
	test ! -e "$TEST_TMP/s2.comm_groups.json"

# ---- --steps ----------------------------------------------------------------------------------
# steps_expected STEPS FILE...: per file, the device work launched (runtime call start, by
# correlation) inside a chosen ProfilerStep#N, counted from the JSON independently.
steps_expected() {
	"$PYTHON3" -c '
import gzip, json, sys
from decimal import Decimal
want = {int(x) for x in sys.argv[1].split(",")}
for path in sys.argv[2:]:
    op = gzip.open if path.endswith(".gz") else open
    ev = json.load(op(path, "rt"), parse_float=Decimal)["traceEvents"]
    ns = lambda v: int(Decimal(v) * 1000)
    spans = [(ns(e["ts"]), ns(e["ts"]) + ns(e.get("dur", 0))) for e in ev
             if e.get("ph") == "X" and e.get("cat") in ("user_annotation", "cpu_op")
             and e["name"].startswith("ProfilerStep#") and int(e["name"][13:]) in want]
    launch = {e["args"]["correlation"]: ns(e["ts"]) for e in ev
              if e.get("cat") == "cuda_runtime" and "correlation" in e.get("args", {})}
    n = 0
    for e in ev:
        if e.get("ph") == "X" and e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset"):
            t = launch.get(e["args"].get("correlation"))
            n += t is not None and any(a <= t <= b for a, b in spans)
    print(n)' "$@"
}
# nodes_per_rank DOC: nodes of each rank of a chakra-json document, one line each.
nodes_per_rank() {
	"$PYTHON3" -c '
import json, sys
for r in json.load(open(sys.argv[1]))["ranks"]: print(len(r["nodes"]))' "$1"
}
run_trex s11 export --to chakra-json --steps 11 -o "$TEST_TMP/s11.json" "$TEST_TMP"/g4/*.json
nodes_per_rank "$TEST_TMP/s11.json" >"$TEST_TMP/s11.got"
steps_expected 11 "$TEST_TMP"/g4/*.json >"$TEST_TMP/s11.want"
check "--steps 11: the work launched in step 11 of each rank" \
	diff "$TEST_TMP/s11.got" "$TEST_TMP/s11.want"
run_trex s1012 export --to chakra-json --steps 10,12 -o "$TEST_TMP/s1012.json" "$TEST_TMP"/g4/*.json
nodes_per_rank "$TEST_TMP/s1012.json" >"$TEST_TMP/s1012.got"
steps_expected 10,12 "$TEST_TMP"/g4/*.json >"$TEST_TMP/s1012.want"
check "--steps 10,12: two steps apart" diff "$TEST_TMP/s1012.got" "$TEST_TMP/s1012.want"
run_trex s11et export --to chakra --steps 11 -o "$TEST_TMP/s11" "$TEST_TMP"/g4/*.json
check_et "--steps 11 of the 4-rank set: ASTRA-sim" "$TEST_TMP/s11" 4 Switch unaware \
	"--comm-group-configuration=$TEST_TMP/s11.comm_groups.json"
run_trex s13 export --to chakra --steps 13 -o "$TEST_TMP/s13" "$TEST_TMP"/g4/*.json
check "--steps 13: an error naming the steps the trace has" sh -c \
	"[ $(rc_of s13) -eq 1 ] && grep -q -x 'trex: --steps: the trace has no step 13; its steps are 10-12' '$TEST_TMP/s13.err' && [ ! -e '$TEST_TMP/s13.0.et' ]"
expect_usage "--steps takes numbers" export --to chakra --steps 1x -o "$TEST_TMP/x" \
	"$TEST_TMP/g4/rank-0.pt.trace.json"
# other formats: the time range the steps cover
run_trex c11 export --to csv --steps 11 -o "$TEST_TMP/c11.csv" "$TEST_TMP/g4/rank-0.pt.trace.json"
check "--steps 11 to csv: the step's time range (its kernels, none of steps 10 and 12)" \
	"$PYTHON3" -c '
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 8]
names = [r[8] for r in rows]
assert names.count("ProfilerStep#11") == 1, names
assert "ProfilerStep#10" not in names and "ProfilerStep#12" not in names, names
assert sum(r[6] == "kernel" for r in rows) == int(sys.argv[2]), rows' \
	"$TEST_TMP/c11.csv" "$(sed -n 1p "$TEST_TMP/s11.want")"
run_trex c1012 export --to csv --steps 10,12 -o "$TEST_TMP/c.csv" "$TEST_TMP/g4/rank-0.pt.trace.json"
check "--steps 10,12 to csv: refused, one range cannot skip step 11" sh -c \
	"[ $(rc_of c1012) -eq 1 ] && grep -q 'cannot leave out step 11' '$TEST_TMP/c1012.err'"
expect_usage "--steps with --range" export --to csv --steps 11 --range 0:1ms -o "$TEST_TMP/c.csv" \
	"$TEST_TMP/g4/rank-0.pt.trace.json"
if have_corpus; then
	NCCL=$TREX_CORPUS/kineto/hta_nccl_data/nccl_data.json.gz
	run_trex n5 export --to chakra-json --steps 5 -o "$TEST_TMP/n5.json" "$NCCL"
	nodes_per_rank "$TEST_TMP/n5.json" >"$TEST_TMP/n5.got"
	steps_expected 5 "$NCCL" >"$TEST_TMP/n5.want"
	check "hta_nccl_data --steps 5: the work launched in ProfilerStep#5 ($(cat "$TEST_TMP/n5.want"))" \
		diff "$TEST_TMP/n5.got" "$TEST_TMP/n5.want"
	expect_usage "--steps of an execution graph (a Chakra set has no steps)" export --to chakra \
		--steps 1 -o "$TEST_TMP/g" "$TREX_CORPUS/chakra/microbench-allreduce-8npus/all_reduce"
	DLRM=$TREX_CORPUS/kineto/param_dlrm_8rank
	run_trex d10 export --to chakra --steps 10 -o "$TEST_TMP/d10" "$DLRM"/*.json.gz
	check_et "param_dlrm_8rank --steps 10: ASTRA-sim" "$TEST_TMP/d10" 8
else
	skip "--steps on the corpus" "no corpus"
fi

# ---- the corpus: groups that are the whole set -------------------------------------------------
if have_corpus; then
	K=$TREX_CORPUS/kineto
	run_trex nc export --to chakra -o "$TEST_TMP/nc" "$K/hta_nccl_data/nccl_data.json.gz"
	check "hta_nccl_data (group 0, default_pg): no pg_name, no file" \
		sh -c "[ $(rc_of nc) -eq 0 ] && [ ! -e '$TEST_TMP/nc.comm_groups.json' ] && ! grep -q pg_name '$TEST_TMP/nc.0.et'"
	run_trex b2 export --to chakra -o "$TEST_TMP/b2" "$K/tracelens_b200_eager/eager_trace.json.gz"
	check "tracelens_b200_eager (rank 0 of 8, group 3 of all 8): the whole set, no file" \
		sh -c "[ $(rc_of b2) -eq 0 ] && [ ! -e '$TEST_TMP/b2.comm_groups.json' ]"
else
	skip "the corpus's process groups" "no corpus"
fi
done_testing
