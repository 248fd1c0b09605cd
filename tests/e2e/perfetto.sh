#!/bin/sh
# End-to-end: the Perfetto protobuf decoder (issue 11 item 6) on the corpus
# perfetto/ traces, their gzip copies and truncated copies.
# tests/unit/perfetto_dump prints the decoder's records (tracks, slice
# begins/ends, instants, counters with names, categories, timestamps,
# flows and debug annotations) and counts; tests/e2e/perfetto.py decodes
# the wire format itself and must print the same. A truncated trace keeps
# every packet before the cut and says where the cut packet starts.
. "${TREX_SRCDIR:?run through make check}/tests/e2e/lib.sh"
require_built

PF_DUMP=${TREX_DUMP%/*}/perfetto_dump
PF_PY=$E2E_DIR/perfetto.py
[ -x "$PF_DUMP" ] || bail_out "$PF_DUMP is not built"
[ -d "${TREX_CORPUS:-}/perfetto" ] || skip_all "no corpus perfetto/ traces in ${TREX_CORPUS:-}"

# same LABEL FILE: the decoder and perfetto.py agree on every record and count.
same() {
	"$PF_DUMP" "$2" >"$TEST_TMP/c.out" 2>"$TEST_TMP/c.err"
	c_rc=$?
	"$PYTHON3" "$PF_PY" "$2" >"$TEST_TMP/py.out" 2>"$TEST_TMP/py.err"
	if [ "$c_rc" -eq 0 ] && diff "$TEST_TMP/py.out" "$TEST_TMP/c.out" >"$TEST_TMP/diff"; then
		ok "$1: $(grep -c -v '^stat ' "$TEST_TMP/c.out") records as perfetto.py decodes them"
	else
		not_ok "$1: the decoder and perfetto.py agree (exit $c_rc)"
		diag_file "$TEST_TMP/diff" 20
		diag_file "$TEST_TMP/c.err"
		diag_file "$TEST_TMP/py.err"
	fi
}

# stat NAME: a count from the last perfetto_dump output.
stat() {
	sed -n "s/^stat $1 //p" "$TEST_TMP/c.out"
}

# cut LABEL FILE BYTES: FILE's first BYTES bytes keep the records before the
# cut; the error names the byte where the cut packet starts and its index.
cut() {
	head -c "$3" "$2" >"$TEST_TMP/cut.pb"
	"$PF_DUMP" "$TEST_TMP/cut.pb" >"$TEST_TMP/c.out" 2>"$TEST_TMP/c.err"
	c_rc=$?
	"$PYTHON3" "$PF_PY" "$TEST_TMP/cut.pb" >"$TEST_TMP/py.out" 2>"$TEST_TMP/py.err"
	at=$(sed -n 's/^error truncated at byte \([0-9]*\), packet \([0-9]*\)$/\1 \2/p' "$TEST_TMP/py.out")
	byte=${at% *} packet=${at#* }
	grep -v '^error ' "$TEST_TMP/c.out" >"$TEST_TMP/c.records"
	grep -v '^error ' "$TEST_TMP/py.out" >"$TEST_TMP/py.records"
	if [ "$c_rc" -eq 2 ] && [ -n "$at" ] && [ "$(stat truncated)" = 1 ] &&
		diff "$TEST_TMP/py.records" "$TEST_TMP/c.records" >"$TEST_TMP/diff" &&
		grep -q "^error .*cut.pb: (byte $byte) truncated: packet $packet[: ]" "$TEST_TMP/c.out"; then
		ok "$1: $(stat packets) packets kept, truncation at byte $byte (packet $packet) reported"
	else
		not_ok "$1: cut at $3 bytes keeps what is complete and says where (exit $c_rc)"
		diag "perfetto.py: $at"
		grep '^error ' "$TEST_TMP/c.out" | diag_file /dev/stdin
		diag_file "$TEST_TMP/diff" 20
	fi
}

tokio=$TREX_CORPUS/perfetto/tokio-runtime-slices.pftrace
systing=$TREX_CORPUS/perfetto/systing-linux-system.pb
service=$TREX_CORPUS/perfetto/qmljulia-service-only.pftrace

same "tokio (slices, instants, annotations)" "$tokio"
# MANIFEST.md's census of the file, counted by other means
if [ "$(stat packets)" = 472 ] && [ "$(stat track_descriptors)" = 10 ] &&
	[ "$(stat slice_begins)" = 227 ] && [ "$(stat slice_ends)" = 227 ] &&
	[ "$(stat instants)" = 8 ] && [ "$(stat debug_annotations)" = 557 ] &&
	[ "$(stat unfinished_slices)" = 0 ]; then
	ok "tokio: 472 packets, 10 tracks, 227 slices, 8 instants, 557 annotations (MANIFEST.md)"
else
	not_ok "tokio: the counts of MANIFEST.md"
	diag_file "$TEST_TMP/c.out" 400 | grep '^#   stat'
fi
same "systing (tracks, no track events)" "$systing"
if [ "$(stat track_descriptors)" = 219 ] && [ "$(stat track_events)" = 0 ] &&
	[ "$(stat packets)" = 739 ] && [ "$(stat unknown_fields)" -gt 0 ]; then
	ok "systing: 739 packets, 219 tracks, no track event, $(stat unknown_fields) unknown fields skipped"
else
	not_ok "systing: the counts of MANIFEST.md"
fi
same "service-only trace" "$service"
if [ "$(stat packets)" = 23 ] && [ "$(stat track_events)" = 0 ] &&
	[ "$(stat clock_snapshots)" = 12 ]; then
	ok "service-only: 23 packets, 12 clock snapshots, nothing to show"
else
	not_ok "service-only: the counts of MANIFEST.md"
fi

gzip -c "$tokio" >"$TEST_TMP/tokio.pftrace.gz"
same "tokio, gzip" "$TEST_TMP/tokio.pftrace.gz"

size=$(wc -c <"$tokio")
cut "tokio cut inside a packet" "$tokio" $((size / 2))
cut "tokio cut after a tag byte" "$tokio" 1
cut "tokio cut inside a length" "$tokio" 2
cut "tokio cut one byte short" "$tokio" $((size - 1))
cut "systing cut inside a packet" "$systing" 100000

gz_size=$(wc -c <"$TEST_TMP/tokio.pftrace.gz")
head -c $((gz_size / 2)) "$TEST_TMP/tokio.pftrace.gz" >"$TEST_TMP/cut.gz"
"$PF_DUMP" "$TEST_TMP/cut.gz" >"$TEST_TMP/c.out" 2>&1
if [ $? -eq 2 ] && [ "$(stat truncated)" = 1 ] && [ "$(stat packets)" -gt 0 ] &&
	[ "$(stat packets)" -lt 472 ] &&
	grep -q '^error .*truncated' "$TEST_TMP/c.out"; then
	ok "tokio gzip cut: $(stat packets) packets kept, truncation reported"
else
	not_ok "tokio gzip cut: keeps packets and reports the truncation"
	diag_file "$TEST_TMP/c.out" 5
fi
done_testing
