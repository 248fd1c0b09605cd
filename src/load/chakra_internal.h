/* What the Chakra ET loader's files share (src/load/chakra*.c). */
#ifndef TREX_LOAD_CHAKRA_INTERNAL_H
#define TREX_LOAD_CHAKRA_INTERNAL_H

#include "chakra_decode.h"
#include "perfetto_internal.h" /* pf_text, pf_json_string */
#include "trex/core/args.h"
#include "trex/load/source.h"

/* The codec context of one .et file: its source (owned), and the text
 * trex_build_file.dialect points at until the index copies it. */
#define TREX_CHAKRA_CODEC_MAGIC UINT64_C(0x636b72612d657431) /* "ckra-et1" */

struct trex_chakra_codec {
	/* tells the codec's context from the bare source a file has until its
	 * load runs (a load that never ran leaves it; close handles both) */
	uint64_t magic;
	struct trex_source *src;
	char dialect[128];
};

/* Reads a node back by its reference: the decoded offset of its record
 * plus one (so that a legacy file's node at offset 0 is no TREX_ARGS_NONE). */
extern const struct trex_args_codec trex_chakra_args_codec;

#endif
