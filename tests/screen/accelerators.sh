#!/bin/sh
# Screen tests: the interface's empty tables say why in one line (the same
# line as the CLI's text report), and the categories view shows acelyzer's
# table with --compiler-log. Expected lines are the CLI's own output.
. "${TREX_SRCDIR:-.}/tests/e2e/lib.sh"
require_built
. "${TREX_SRCDIR:-.}/tests/screen/lib.sh"

SCREEN=$TEST_TMP/screen.txt
# shows TEXT: the screen holds TEXT (fixed string); else it prints the screen.
shows() {
	grep -F -q -- "$1" "$SCREEN" || { cat "$SCREEN"; false; }
}

# The CLI's note line without its parentheses.
note_of() {
	"$TREX" -q "$@" | tail -n 1 | sed 's/^(//; s/)$//'
}

cat >"$TEST_TMP/cpu.json" <<'EOT'
[{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 1, "dur": 5},
 {"ph": "X", "cat": "user_annotation", "name": "step", "pid": 1, "tid": 2, "ts": 0, "dur": 20}]
EOT
# A wide screen shows the whole line; the views are 2, 4 and 6.
for view in "2 kernels" "4 categories" "6 gpu-time"; do
	key=${view%% *} cmd=${view#* }
	note=$(note_of "$cmd" "$TEST_TMP/cpu.json")
	rm -f "$SCREEN"; screen_dump 160 24 "$SCREEN" --script "$key" "$TEST_TMP/cpu.json"
	check "$cmd view of a CPU-only trace: '$note'" shows "$note"
	check "$cmd view of a CPU-only trace: not just (no rows)" sh -c \
		"! grep -F -q '(no rows)' '$SCREEN'"
done

if ! have_corpus; then
	skip "shared corpus" "not found at ${TREX_CORPUS:-(TREX_CORPUS unset)}"
	done_testing
	exit
fi

cupti=$(ls "$TREX_CORPUS"/kineto/hta_cupti_profiler/*.json.gz)
note=$(note_of kernels "$cupti")
rm -f "$SCREEN"; screen_dump 160 24 "$SCREEN" --script "2" "$cupti"
check "kernels view of a CUPTI range-profiler trace: '$note'" shows "$note"
note=$(note_of gpu-time "$cupti")
rm -f "$SCREEN"; screen_dump 60 12 "$SCREEN" --script "6" "$cupti"
check "GPU time view at 60x12: the reason wraps over lines, none wider than the screen" \
	"$PYTHON3" -c '
import sys
lines = open(sys.argv[1]).read().split("\n")[2:]
body = []
for l in lines:
    if not l.strip():
        break
    body.append(l)
assert len(body) > 1 and all(len(l) <= 60 for l in body), body
assert " ".join(l.strip() for l in body) == sys.argv[2], body
' "$SCREEN" "$note"

A=$TREX_CORPUS/acelyzer
rm -f "$SCREEN"
screen_dump 120 30 "$SCREEN" --script "4" --compiler-log "$A/sample_comp_log_ideal.txt" \
	"$A/sample_flex_3062_job_4.json"
check "--compiler-log: the categories view is acelyzer's table" shows \
	"categories (--compiler-log ideal cycles)"
"$TREX" -q categories --compiler-log "$A/sample_comp_log_ideal.txt" \
	"$A/sample_flex_3062_job_4.json" >"$TEST_TMP/ideal.txt"
conv=$(grep ' Conv_fp16$' "$TEST_TMP/ideal.txt" | sed 's/  */ /g; s/^ //')
check "--compiler-log: Conv_fp16 as the CLI prints it ($conv)" sh -c \
	"sed 's/  */ /g; s/^ //' '$SCREEN' | grep -F -q -- '$conv'"
rm -f "$SCREEN"; screen_dump 120 30 "$SCREEN" --script "2" "$A/sample_flex_3062_job_4.json"
check "AIU Cmpt Exec slices are kernels in the kernels view" shows "convolution_2 Cmpt Exec"

done_testing
