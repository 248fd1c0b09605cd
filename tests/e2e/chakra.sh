#!/bin/sh
# End-to-end: the Chakra ET reader (issue 12 items 1 and 4) on the 7 corpus
# sets (corpus chakra/), their damaged copies, and what ASTRA-sim's kit in
# ../shared/tools/astrasim says of them.
#  - tests/unit/chakra_dump (the decoder) and tests/e2e/chakra.py (a wire
#    decoder of our own) agree on every file: records, legacy files, node
#    counts by type, and every damaged spot (kind, record, offset, bytes);
#  - Chakra's own reader (chakra_read.py, with Debian's python3-protobuf)
#    counts the same nodes by type in every file it accepts;
#  - every set ASTRA-sim (check_et.sh) accepts as shipped loads in trex with
#    the same nodes per rank and type (trex info --format csv);
#  - trex names the file, record index and byte offset of damage.
. "${TREX_SRCDIR:?run through make check}/tests/e2e/lib.sh"
require_built

CK_DUMP=${TREX_DUMP%/*}/chakra_dump
CK_PY=$E2E_DIR/chakra.py
CK_CORPUS=${TREX_CORPUS:-}/chakra
KIT=${TREX_CORPUS:-}/../tools/astrasim
[ -x "$CK_DUMP" ] || bail_out "$CK_DUMP is not built"
[ -d "$CK_CORPUS" ] || skip_all "no corpus chakra/ sets in ${TREX_CORPUS:-}"

SETS="custom-ring-allreduce-8npus/custom_allreduce microbench-allreduce-8npus/all_reduce
onecomm-allreduce-uint64size/one_comm_coll_node_allreduce pytorch-1rank-chakra-tests/chakra
pytorch-2rank-allreduce/chakra_trace resnet50-dp-64npus-legacy2023/resnet50_DataParallel
torus3d-pgname-8npus/trace"

# set_files SET: the set's files in rank order.
set_files() {
	ls "$CK_CORPUS/${1%/*}" | sed -n 's/^\(.*\)\.\([0-9][0-9]*\)\.et\(\.gz\)\{0,1\}$/\2 &/p' |
		sort -n | while read -r _ f; do printf '%s\n' "$CK_CORPUS/${1%/*}/$f"; done
}

# same LABEL FILE...: the decoder and chakra.py agree on every line.
same() {
	label=$1
	shift
	"$CK_DUMP" "$@" >"$TEST_TMP/c.full" 2>"$TEST_TMP/c.err"
	c_rc=$?
	grep -v '^what ' "$TEST_TMP/c.full" >"$TEST_TMP/c.out"
	"$PYTHON3" "$CK_PY" "$@" >"$TEST_TMP/py.out" 2>"$TEST_TMP/py.err"
	if [ "$c_rc" -eq 0 ] && [ -s "$TEST_TMP/c.out" ] &&
		diff "$TEST_TMP/py.out" "$TEST_TMP/c.out" >"$TEST_TMP/diff"; then
		ok "$label: $(awk '/^nodes/ {n += $2} END {print n}' "$TEST_TMP/c.out") nodes as chakra.py decodes them"
	else
		not_ok "$label: the decoder and chakra.py agree (exit $c_rc)"
		diag_file "$TEST_TMP/diff" 20
		diag_file "$TEST_TMP/c.err"
		diag_file "$TEST_TMP/py.err"
	fi
}

for set in $SETS; do
	# shellcheck disable=SC2046
	same "${set%/*}" $(set_files "$set")
done

# ---- Chakra's own reader --------------------------------------------------------------------

# counts_of_reader FILE: "TYPE COUNT" lines as chakra_read.py -q says them.
counts_of_reader() {
	/usr/bin/python3 "$KIT/chakra_read.py" -q "$1" 2>/dev/null |
		sed -n 's/^OK [^;]*; //p' | tr ',' '\n' | sed 's/^ *//; s/=/ /' | sort
}

if [ ! -f "$KIT/chakra_read.py" ]; then
	skip "Chakra's reader counts the same nodes" "no $KIT/chakra_read.py"
elif ! /usr/bin/python3 -c 'import google.protobuf' 2>/dev/null; then
	skip "Chakra's reader counts the same nodes" "/usr/bin/python3 has no python3-protobuf"
else
	for set in $SETS; do
		accepted=0 differ=""
		for f in $(set_files "$set"); do
			counts_of_reader "$f" >"$TEST_TMP/reader"
			[ -s "$TEST_TMP/reader" ] || continue # a legacy file: Chakra's reader refuses it
			accepted=$((accepted + 1))
			"$CK_DUMP" "$f" | sed -n 's/^type //p' | sort >"$TEST_TMP/ours"
			cmp -s "$TEST_TMP/reader" "$TEST_TMP/ours" || differ="$differ ${f##*/}"
		done
		if [ "$accepted" -eq 0 ]; then
			ok "${set%/*}: Chakra's reader refuses every file (legacy, no GlobalMetadata)"
		elif [ -z "$differ" ]; then
			ok "${set%/*}: Chakra's reader counts the same nodes by type in $accepted files"
		else
			not_ok "${set%/*}: Chakra's reader counts other nodes in$differ"
		fi
	done
fi

# ---- damaged copies ---------------------------------------------------------------------------

TORUS=$CK_CORPUS/torus3d-pgname-8npus/trace.0.et
PYT=$CK_CORPUS/pytorch-2rank-allreduce/chakra_trace.1.et
for cut in 1 9 60 200 331; do
	head -c "$cut" "$TORUS" >"$TEST_TMP/cut$cut.0.et"
	same "torus rank 0 cut at byte $cut" "$TEST_TMP/cut$cut.0.et"
done
head -c 400000 "$PYT" >"$TEST_TMP/pycut.1.et"
same "PyTorch rank 1 cut at byte 400000" "$TEST_TMP/pycut.1.et"

# bad_copy NAME OFFSET BYTES: TORUS with BYTES (printf octal escapes) at OFFSET.
bad_copy() {
	head -c "$2" "$TORUS" >"$TEST_TMP/$1"
	printf "$3" >>"$TEST_TMP/$1"
	tail -c +"$(($2 + 1))" "$TORUS" >>"$TEST_TMP/$1"
}
# record 1 starts at byte 8 (1 + 7 bytes of GlobalMetadata): a record of 3
# bytes that is no protobuf (field 1, wire type 7) before it
bad_copy undecodable.0.et 8 '\003\017\001\002'
same "an undecodable record" "$TEST_TMP/undecodable.0.et"
bad_copy badlen.0.et 8 '\377\377\377\377\377\001'
same "a record length beyond 32 bits" "$TEST_TMP/badlen.0.et"
bad_copy pastend.0.et 332 '\177\010'
same "a length past the end" "$TEST_TMP/pastend.0.et"
if grep -q '^what record length 127 runs past the end of the file (1 byte there; the record is lost)$' \
	"$TEST_TMP/c.full"; then
	ok "a length past the end: the decoder says how long and how much was there"
else
	not_ok "a length past the end: the decoder says how long and how much was there"
	diag_file "$TEST_TMP/c.full"
fi

# ---- trex info on the sets ------------------------------------------------------------------

# trex_counts NAME: "RANK TYPE COUNT" lines of trex info --format json NAME.json
# (the graph's ranks table), in chakra.py --counts' words and order.
trex_counts() {
	"$PYTHON3" - "$TEST_TMP/$1.out" <<'PY'
import json, sys
names = {"other": "INVALID_NODE", "metadata": "METADATA_NODE", "mem_load": "MEM_LOAD_NODE",
         "mem_store": "MEM_STORE_NODE", "compute": "COMP_NODE", "send": "COMM_SEND_NODE",
         "recv": "COMM_RECV_NODE", "collective": "COMM_COLL_NODE"}
info = json.load(open(sys.argv[1]))
for row in info["graph"]["ranks"]["rows"]:
    for key in sorted(names, key=lambda k: names[k]):
        if row[key]:
            print("%d %s %d" % (row["rank"], names[key], row[key]))
PY
}

# same_counts LABEL SET FILE...: trex info on SET (a prefix, member or
# directory) counts the nodes of chakra.py per rank and type.
same_counts() {
	label=$1 set=$2
	shift 2
	run_trex info -q --format json info "$set"
	"$PYTHON3" "$CK_PY" --counts "$@" | sort -k1,1n -k2 >"$TEST_TMP/want"
	trex_counts info 2>"$TEST_TMP/parse.err" | sort -k1,1n -k2 >"$TEST_TMP/got"
	if [ "$(rc_of info)" -eq 0 ] && [ -s "$TEST_TMP/want" ] &&
		diff "$TEST_TMP/want" "$TEST_TMP/got" >"$TEST_TMP/diff"; then
		ok "$label: trex info counts $(wc -l <"$TEST_TMP/want") (rank, type) pairs as chakra.py"
	else
		not_ok "$label: trex info counts the nodes per rank and type (exit $(rc_of info))"
		diag_file "$TEST_TMP/diff" 20
		diag_file "$TEST_TMP/info.err"
		diag_file "$TEST_TMP/parse.err"
	fi
}

for set in $SETS; do
	dir=$CK_CORPUS/${set%/*}
	# shellcheck disable=SC2046
	same_counts "${set%/*} by prefix" "$CK_CORPUS/$set" $(set_files "$set")
done
# shellcheck disable=SC2046
same_counts "torus3d by directory" "$CK_CORPUS/torus3d-pgname-8npus" \
	$(set_files torus3d-pgname-8npus/trace)
# shellcheck disable=SC2046
same_counts "custom ring by a member" "$CK_CORPUS/custom-ring-allreduce-8npus/custom_allreduce.5.et" \
	$(set_files custom-ring-allreduce-8npus/custom_allreduce)

run_trex info "$CK_CORPUS/microbench-allreduce-8npus/all_reduce"
check "trex says how many files of the set it found" \
	grep -q '^trex: .*/all_reduce: 8 Chakra files (ranks 0-7)$' "$TEST_TMP/info.err"
check "all-reduce: 8 nodes of 1 MiB, all estimated" \
	grep -Eq '^ *all-reduce +8 +8 +8388608 +0 +8$' "$TEST_TMP/info.out"
check "the schema version is the file's" grep -Eq ' 0\.0\.4 +.*/all_reduce\.7\.et$' "$TEST_TMP/info.out"
run_trex info "$CK_CORPUS/resnet50-dp-64npus-legacy2023/resnet50_DataParallel.0.et"
check "legacy files say so" grep -q 'legacy (no GlobalMetadata)' "$TEST_TMP/info.out"
check "legacy files: ctrl deps order (a makespan)" grep -q '^Makespan: ' "$TEST_TMP/info.out"

mkdir "$TEST_TMP/mixed"
cp "$CK_CORPUS"/torus3d-pgname-8npus/trace.[013].et "$TEST_TMP/mixed/"
run_trex info -q "$TEST_TMP/mixed/trace"
check "a missing rank is a warning" \
	grep -q "^trex: warning: .*/mixed/trace: no file for rank 2 (.*/mixed/trace.2.et)$" \
	"$TEST_TMP/info.err"
cp "$CK_CORPUS/microbench-allreduce-8npus/all_reduce.0.et" "$TEST_TMP/mixed/"
run_trex info "$TEST_TMP/mixed"
if [ "$(rc_of info)" -ne 0 ] &&
	grep -q 'the directory holds several Chakra sets (all_reduce, trace): name one' "$TEST_TMP/info.err"; then
	ok "a directory with several sets: an error naming them"
else
	not_ok "a directory with several sets: an error naming them (exit $(rc_of info))"
	diag_file "$TEST_TMP/info.err"
fi

# ---- ASTRA-sim's acceptance ------------------------------------------------------------------

if [ ! -x "$KIT/check_et.sh" ]; then
	skip "sets ASTRA-sim accepts load with the same counts" "no $KIT/check_et.sh"
else
	for set in $SETS; do
		n=$(set_files "$set" | wc -l)
		verdict=$(TIMEOUT=120 "$KIT/check_et.sh" "$CK_CORPUS/$set" "$n" 2>/dev/null | tail -n 1)
		case $verdict in
		PASS*)
			# shellcheck disable=SC2046
			same_counts "${set%/*}: ASTRA-sim accepts it ($verdict)" "$CK_CORPUS/$set" \
				$(set_files "$set")
			;;
		*) diag "${set%/*}: ASTRA-sim refuses it as shipped: $verdict" ;;
		esac
	done
fi

# ---- positioned problems through trex --------------------------------------------------------

cp "$TEST_TMP/cut200.0.et" "$TEST_TMP/cutset.0.et"
run_trex info -q "$TEST_TMP/cutset.0.et"
rc=$(rc_of info)
check "a cut file loads (exit $rc) and says where it was cut" \
	grep -q 'cutset.0.et: (byte [0-9]*) record [0-9]*: record length [0-9]* runs past the end' \
	"$TEST_TMP/info.out"
run_trex info -q --strict "$TEST_TMP/cutset.0.et"
if [ "$(rc_of info)" -eq 2 ] &&
	grep -q 'cutset.0.et: (byte [0-9]*) record [0-9]*: record length' "$TEST_TMP/info.err"; then
	ok "--strict refuses a cut file with the file, byte offset and record index"
else
	not_ok "--strict refuses a cut file with its position (exit $(rc_of info))"
	diag_file "$TEST_TMP/info.err"
fi
cp "$TEST_TMP/undecodable.0.et" "$TEST_TMP/undec.0.et"
run_trex undec info -q "$TEST_TMP/undec.0.et"
check "an undecodable record: its record index and byte offset" \
	grep -q 'undec.0.et: (byte 8) record 1: does not decode as a Node (skipped)' "$TEST_TMP/undec.out"
for kind in dangling cycle; do
	"$PYTHON3" "$CK_PY" --make "$kind" "$TEST_TMP/$kind.0.et"
	run_trex "$kind" info -q "$TEST_TMP/$kind.0.et"
done
check "a dependency on a missing id is counted with its node" \
	grep -Eq '^ *0 +dangling dependencies +1 +node 3 \(COMP_NODE_3, record 3, byte [0-9]+\) depends on id 99' \
	"$TEST_TMP/dangling.out"
check "a cycle is cut and counted" \
	grep -Eq '^ *0 +dependencies cut to break cycles +1 ' "$TEST_TMP/cycle.out"
check "a dependency on a missing id: a warning with its record and byte" \
	grep -q '^trex: warning: .*/dangling.0.et: 1 dangling dependency (first: node 3 (COMP_NODE_3, record 3, byte 51) depends on id 99, which the file lacks)$' \
	"$TEST_TMP/dangling.err"
check "a cycle: a warning with its record and byte" \
	grep -q '^trex: warning: .*/cycle.0.et: 1 dependency cut to break a cycle (first: the dependency of node 2 (COMP_NODE_2, record 2, byte 28) on id 3 was cut' \
	"$TEST_TMP/cycle.err"
check "an undecodable record: a warning with its record and byte" \
	grep -q '^trex: warning: .*/undec.0.et: (byte 8) record 1: does not decode as a Node (skipped) (3 bytes, 1 event lost)' \
	"$TEST_TMP/undec.err"
run_trex info -q --input-format chakra-et "$CK_CORPUS/torus3d-pgname-8npus/trace.0.et"
check "--input-format chakra-et reads a .et file" grep -q '^Execution graph' "$TEST_TMP/info.out"

done_testing
