/* Flows by time: the flows with an end inside a time window, found without
 * looking at the others, so that the timeline can draw every flow of what
 * it shows at any zoom. The flow ids are kept in two orders, by the time
 * of their start and of their end, built once (O(flows log flows)); a
 * query is two binary searches per order plus the flows it lists. Pure
 * model code: no curses. */
#ifndef TREX_ANALYSIS_FLOW_WINDOW_H
#define TREX_ANALYSIS_FLOW_WINDOW_H

#include <stddef.h>
#include <stdint.h>

#include "trex/core/index.h"
#include "trex/core/status.h"

struct trex_flow_order {
	const struct trex_index *idx;
	uint32_t *by_from; /* flow ids by (from_ts, id) */
	uint32_t *by_to;   /* flow ids by (to_ts, id) */
	uint32_t count;
};

/* Builds the two orders of idx's flows. Out of memory: TREX_NOMEM. */
enum trex_status trex_flow_order_build(const struct trex_index *idx, struct trex_flow_order *out,
                                       struct trex_error *err);
void trex_flow_order_free(struct trex_flow_order *o);

/* The flows with at least one end in [t0, t1): writes the first max of
 * them (each once: those starting in the window by start time, then those
 * only ending in it by end time) to out and returns how many there are in
 * all. */
size_t trex_flows_in_window(const struct trex_flow_order *o, int64_t t0, int64_t t1, uint32_t *out,
                            size_t max);

#endif
