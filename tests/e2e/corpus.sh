#!/bin/sh
# End-to-end: trex against numbers Python computes from the same files
# (tests/e2e/expected.py): events by phase, kernels (instances, exact ns
# totals, statistics), X and B/E slices via trex_dump, ranks, multi-file
# loading; and the hand-checked numbers of tests/data/*.expect.
. "${TREX_SRCDIR:?run through make check}/tests/e2e/lib.sh"
require_built

run_py data "$TREX_SRCDIR"/tests/data/*.expect

if ! have_corpus; then
	skip "shared corpus" "not found at ${TREX_CORPUS:-(TREX_CORPUS unset)}"
	done_testing
	exit
fi

# every corpus trace on its own
corpus_traces >"$TEST_TMP/traces"
# shellcheck disable=SC2046 # corpus paths have no spaces
run_py corpus $(cat "$TEST_TMP/traces")

# the 8 DLRM ranks together: as a comma list and as a quoted glob
dlrm=$TREX_CORPUS/kineto/param_dlrm_8rank
files=$(ls "$dlrm"/*.json.gz)
# shellcheck disable=SC2086
list=$(printf '%s\n' $files | paste -sd, -)
# shellcheck disable=SC2086
run_py multi "param_dlrm_8rank as a comma list" "$list" $files
# shellcheck disable=SC2086
run_py multi "param_dlrm_8rank as a quoted glob" "$dlrm/*.json.gz" $files
# shellcheck disable=SC2086
run_py multi "param_dlrm_8rank as 8 arguments" --files $files

# two ranks of one job: ranks 0 and 1 from distributedInfo
hta=$TREX_CORPUS/kineto/hta_sampled_2rank
run_py multi "hta_sampled_2rank" --files "$hta/sampled_rank-0.json.gz" "$hta/sampled_rank-1.json.gz"

done_testing
