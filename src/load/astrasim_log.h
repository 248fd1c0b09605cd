/* One issue or callback line of an ASTRA-sim simulator log, the input of
 * Chakra's timeline visualizer (doc/formats/astrasim.md): private to
 * src/load (the timeline loader and its args codec read lines the same
 * way). */
#ifndef TREX_LOAD_ASTRASIM_LOG_H
#define TREX_LOAD_ASTRASIM_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum asl_kind { ASL_NONE = 0, ASL_ISSUE, ASL_CALLBACK };

struct asl_record {
	enum asl_kind kind;
	uint32_t npu;
	uint64_t tick, node_id;
	const char *name; /* into the line, name_len bytes */
	size_t name_len;
	int node_type; /* the Chakra NodeType the line names (node->type=), -1: none */
	size_t at;     /* where the kind word starts in the line (after a log prefix) */
};

/* Parses one line. ASL_NONE in r->kind: no issue or callback word starts
 * a column of the line (another log line). Else true when its columns are
 * kind,K=npu,K=tick,K=node_id,K=name[,...]; false with *why (what was
 * expected) and *col (0-based byte of the problem) when they are not.
 * A name runs to the column "node->type=" when the line has one (names
 * may hold commas: C++ signatures), else to the next comma. */
bool asl_parse_line(const char *p, size_t len, struct asl_record *r, const char **why, size_t *col);

#endif
