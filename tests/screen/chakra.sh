#!/bin/sh
# Screen test: a Chakra ET set on the timeline, and a node's details pane
# read back through the chakra args codec (every field and attribute of
# the node's record). The values are those of the corpus files, which
# tests/e2e/chakra.sh checks against an independent decoding.
. "${TREX_SRCDIR:-.}/tests/e2e/lib.sh"
require_built
. "${TREX_SRCDIR:-.}/tests/screen/lib.sh"

SET=$TREX_CORPUS/chakra/microbench-allreduce-8npus/all_reduce
[ -f "$SET.0.et" ] || skip_all "no corpus chakra/ sets in ${TREX_CORPUS:-}"

# j j j: rank 1's comm track (rank 0's rows first); . selects its node
dump 160 50 'j j j . Enter' "$SET"
check_dump "the set draws one comm track per rank" has "rank 7 all_reduce.7.et"
check_dump "the node's name" has " name: all_reduce_8npus_1MB"
check_dump "the details list the record's fields" has "   type: COMM_COLL_NODE"
check_dump "the details list the node's id (rank 1's node is 1)" has "   id: 1"
check_dump "an attribute as the file has it" has "   comm_size: 1048576"
check_dump "a false bool attribute is listed too" has "   is_cpu_op: false"
check_dump "an all-reduce's int comm_type" has "   comm_type: 0"

done_testing
