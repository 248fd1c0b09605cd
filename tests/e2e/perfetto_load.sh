#!/bin/sh
# End-to-end: trex loads Perfetto protobuf traces (issue 11 item 6). `trex
# info` on the corpus perfetto/ traces, their gzip copies and cut or
# damaged copies must say what tests/e2e/perfetto_load.py computes from
# perfetto.py's own decoding; `trex kernels` and the timeline work on them;
# a cut keeps every complete packet and says at which byte and packet the
# input ends; a packet that does not decode is skipped and positioned.
. "${TREX_SRCDIR:?run through make check}/tests/e2e/lib.sh"
require_built
[ -d "${TREX_CORPUS:-}/perfetto" ] || skip_all "no corpus perfetto/ traces in ${TREX_CORPUS:-}"

LOAD_PY=$E2E_DIR/perfetto_load.py
tokio=$TREX_CORPUS/perfetto/tokio-runtime-slices.pftrace
systing=$TREX_CORPUS/perfetto/systing-linux-system.pb
service=$TREX_CORPUS/perfetto/qmljulia-service-only.pftrace

for f in "$tokio" "$systing" "$service"; do
	run_checker "$LOAD_PY" info "$TREX" "$f"
done
gzip -c "$tokio" >"$TEST_TMP/tokio.pftrace.gz"
run_checker "$LOAD_PY" info "$TREX" "$TEST_TMP/tokio.pftrace.gz"

# --input-format perfetto reads a file whose first bytes are no trace start
# as one, and says where it breaks
printf 'x' >"$TEST_TMP/x.pb"
run_trex named --input-format perfetto info "$TEST_TMP/x.pb"
if [ "$(rc_of named)" -eq 2 ] && grep -q 'x.pb: (byte 0) truncated: packet 0' "$TEST_TMP/named.err"; then
	ok "--input-format perfetto: a 1-byte file is a cut Perfetto trace"
else
	not_ok "--input-format perfetto reads the input as Perfetto (exit $(rc_of named))"
	diag_file "$TEST_TMP/named.err"
fi
run_trex named --input-format perfetto info --format json "$tokio"
if [ "$(rc_of named)" -eq 0 ] && grep -q '"format": *"perfetto"' "$TEST_TMP/named.out"; then
	ok "--input-format perfetto on the tokio trace"
else
	not_ok "--input-format perfetto on the tokio trace (exit $(rc_of named))"
	diag_file "$TEST_TMP/named.err"
fi

# the service-only trace opens and says it has nothing trex shows
run_trex service info "$service"
if [ "$(rc_of service)" -eq 0 ] &&
	grep -q '^Events: 0 slices, 0 instants, 0 counter samples' "$TEST_TMP/service.out" &&
	grep -q '^other *23 *packets without track events' "$TEST_TMP/service.out"; then
	ok "service-only trace: 0 events, 23 packets without track events"
else
	not_ok "service-only trace says it has no track events (exit $(rc_of service))"
	diag_file "$TEST_TMP/service.out" 20
	diag_file "$TEST_TMP/service.err"
fi

run_trex kernels kernels "$tokio"
if [ "$(rc_of kernels)" -eq 0 ] && grep -q 'no GPU kernels' "$TEST_TMP/kernels.out"; then
	ok "kernels: the tokio trace (CPU only) has no GPU kernels"
else
	not_ok "kernels on the tokio trace (exit $(rc_of kernels))"
	diag_file "$TEST_TMP/kernels.out" 10
	diag_file "$TEST_TMP/kernels.err"
fi

# the timeline: the process, its thread tracks and slice names
"$TREX" -q "$tokio" --force --dump-screen "$TEST_TMP/screen.txt" </dev/null >/dev/null 2>"$TEST_TMP/screen.err"
if [ $? -eq 0 ] && grep -q '1605085' "$TEST_TMP/screen.txt" &&
	[ "$(grep -c 'tokio-runtime-' "$TEST_TMP/screen.txt")" -ge 8 ] &&
	grep -q '^ *main  *│' "$TEST_TMP/screen.txt" && grep -q 'park' "$TEST_TMP/screen.txt"; then
	ok "timeline: process 1605085, its worker threads and main, slices named"
else
	not_ok "timeline of the tokio trace"
	diag_file "$TEST_TMP/screen.txt" 30
	diag_file "$TEST_TMP/screen.err"
fi

# a PyTorch-like trace: kernels and copies on custom GPU stream tracks by
# their categories, flows from their launches, a counter track
"$PYTHON3" "$TREX_SRCDIR/tests/bench/perfetto_gen.py" 3000 "$TEST_TMP/gpu.pftrace" \
	--summary "$TEST_TMP/gpu.json" 2>/dev/null
run_checker "$LOAD_PY" gpu "$TREX" "$TEST_TMP/gpu.pftrace" "$TEST_TMP/gpu.json"

# cut copies: everything complete before the cut is kept (perfetto_load.py
# counts it) and the warning names the byte and packet where it ends
size=$(wc -c <"$tokio")
for cut in $((size / 2)) $((size - 1)); do
	head -c "$cut" "$tokio" >"$TEST_TMP/cut.pftrace"
	run_checker "$LOAD_PY" info "$TREX" "$TEST_TMP/cut.pftrace"
	at=$("$PYTHON3" "$E2E_DIR/perfetto.py" "$TEST_TMP/cut.pftrace" |
		sed -n 's/^error truncated at byte \([0-9]*\), packet \([0-9]*\)$/\1 \2/p')
	run_trex cut --strict info "$TEST_TMP/cut.pftrace"
	if [ -n "$at" ] && [ "$(rc_of cut)" -eq 2 ] &&
		grep -q "cut.pftrace: (byte ${at% *}) truncated: packet ${at#* }[: ]" "$TEST_TMP/cut.err"; then
		ok "cut at $cut: --strict refuses it at byte ${at% *}, packet ${at#* }"
	else
		not_ok "cut at $cut: --strict names where the input ends (exit $(rc_of cut); perfetto.py: $at)"
		diag_file "$TEST_TMP/cut.err"
	fi
done

# a packet that is no TracePacket (a varint that never ends) between two
# good ones: skipped with its position, the packets around it kept
"$PYTHON3" - "$tokio" "$TEST_TMP/bad.pftrace" <<'EOF'
import sys
b = open(sys.argv[1], "rb").read()
i, n = 0, 0
while n < 100:  # past the first 100 packets
    j, ln, s = i + 1, 0, 0
    while True:
        ln |= (b[j] & 0x7f) << s
        s += 7
        j += 1
        if not b[j - 1] & 0x80:
            break
    i, n = j + ln, n + 1
open(sys.argv[2], "wb").write(b[:i] + b"\x0a\x03\x08\xff\xff" + b[i:])
print(i)
EOF
run_trex bad info --format json "$TEST_TMP/bad.pftrace"
if [ "$(rc_of bad)" -eq 0 ] &&
	grep -q 'bad.pftrace: (byte [0-9]*) packet 100: does not decode as a TracePacket (skipped)' "$TEST_TMP/bad.err" &&
	"$PYTHON3" -c '
import json, sys
d = json.load(open(sys.argv[1]))
integ = {r["check"]: r["count"] for r in d["integrity"]["rows"]}
sys.exit(not (d["slices"] == 227 and d["instants"] == 8 and integ["syntax_errors"] == 1))
' "$TEST_TMP/bad.out"; then
	ok "a corrupt packet: skipped and positioned, all 227 slices and 8 instants kept"
else
	not_ok "a corrupt packet is skipped with its position (exit $(rc_of bad))"
	diag_file "$TEST_TMP/bad.err"
fi
done_testing
