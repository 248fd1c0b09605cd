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

done_testing
