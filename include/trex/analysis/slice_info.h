/* What the details pane shows about one slice: self time, parent and
 * children, the enclosing ProfilerStep and user annotation, the slices it
 * links to (launch <-> GPU work, flows, op link), and its args decoded
 * into (key, value) text pairs. Pure model code: no curses. */
#ifndef TREX_ANALYSIS_SLICE_INFO_H
#define TREX_ANALYSIS_SLICE_INFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trex/core/index.h"
#include "trex/core/status.h"

#define TREX_SLICE_INFO_CHILDREN 16 /* children ids kept (the total is counted) */
#define TREX_SLICE_INFO_LINKS 48    /* links kept (the total is counted) */

/* X(ID, "label"), in the order links are listed: the first one is what
 * "follow link" takes by default. WAITS_FOR and NEEDED_BY are dependency
 * edges (trex_index_edges_of: an execution graph's), the dependencies
 * that ended last first: the one that decided the start leads. */
#define TREX_LINK_INFO(X)                                                                          \
	X(LAUNCH, "launched by")                                                                   \
	X(LAUNCHED, "launched")                                                                    \
	X(FLOW_OUT, "flow to")                                                                     \
	X(FLOW_IN, "flow from")                                                                    \
	X(WAITS_FOR, "waits for")                                                                  \
	X(NEEDED_BY, "needed by")                                                                  \
	X(EXT_ID, "same External id")                                                              \
	X(ANNOTATION, "annotation")                                                                \
	X(STEP, "step")                                                                            \
	X(PARENT, "parent")                                                                        \
	X(CHILD, "child")

enum trex_link_kind {
#define TREX_LINK_ENUM(id, label) TREX_LINK_##id,
	TREX_LINK_INFO(TREX_LINK_ENUM)
#undef TREX_LINK_ENUM
	    TREX_LINK_COUNT
};

/* "launched by", "flow to", ...; "" out of range. */
const char *trex_link_label(enum trex_link_kind kind);

struct trex_link {
	enum trex_link_kind kind;
	uint32_t slice;
};

struct trex_slice_info {
	uint32_t slice;
	int64_t self_ns; /* dur minus the union of its direct children (clipped to it) */
	uint32_t parent; /* TREX_NONE at depth 0 */
	uint32_t children[TREX_SLICE_INFO_CHILDREN]; /* the first children, by start */
	uint32_t child_count;                        /* all direct children */
	uint32_t step;       /* enclosing ProfilerStep#N, TREX_NONE if none */
	uint32_t annotation; /* innermost enclosing user annotation, TREX_NONE if none */
	uint32_t launch;     /* GPU work: the runtime call that launched it, else TREX_NONE */
	struct trex_link links[TREX_SLICE_INFO_LINKS]; /* distinct slices, primary first */
	size_t link_count;
	size_t links_dropped; /* links beyond TREX_SLICE_INFO_LINKS (children past the kept ones
	                       * are not counted here: see child_count) */
};

/* Fills info for slice id (< trex_index_slice_count). For GPU slices the
 * step and annotation are looked up through the launching call's
 * ancestors when the GPU track itself has none. */
void trex_slice_info_compute(const struct trex_index *idx, uint32_t id,
                             struct trex_slice_info *info);

/* Direct children of slice id: the slices one lane deeper on its track
 * starting inside it. Writes the first ids (at most max) to out, returns
 * the total; *busy (if not NULL) gets the union of their time clipped to
 * the slice. */
uint32_t trex_slice_children(const struct trex_index *idx, uint32_t id, uint32_t *out, size_t max,
                             int64_t *busy);

/* ---- args ------------------------------------------------------------------------------- */

/* Reads slice id's args back through its file's codec (core/args.h) and
 * decodes them; no args: n = 0. */
enum trex_status trex_slice_args(const struct trex_index *idx, uint32_t id, struct trex_args *out,
                                 struct trex_error *err);

#endif
