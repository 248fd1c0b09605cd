/* Device work and communication, as every analysis and view sees them:
 * the kinds and communication rules the build stored in each slice
 * (trex_slice.kind, .comm; decided once by the loader's classifier,
 * load/classify.h, which also lists the rules), and the counts of device
 * work of an index. */
#ifndef TREX_ANALYSIS_WORK_H
#define TREX_ANALYSIS_WORK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trex/core/index.h"
#include "trex/core/kind.h"
#include "trex/load/classify.h"

/* The device work of an index. */
struct trex_work {
	const struct trex_index *idx;
	uint32_t nslices;
	uint64_t kernels, memcpys, memsets; /* device work counts */
};

/* Counts the device work of idx. */
void trex_work_count(const struct trex_index *idx, struct trex_work *out);

static inline enum trex_kind trex_work_kind(const struct trex_work *w, uint32_t slice)
{
	return (enum trex_kind)trex_index_slice(w->idx, slice)->kind;
}
static inline bool trex_work_is_device(const struct trex_work *w, uint32_t slice)
{
	return trex_kind_is_device_work(trex_work_kind(w, slice));
}
/* Communication rule of a slice, TREX_COMM_NONE if it does not communicate. */
static inline unsigned trex_work_comm(const struct trex_work *w, uint32_t slice)
{
	return trex_slice_comm(w->idx, slice);
}

/* What the empty views say. */
enum trex_work_want {
	TREX_WORK_WANT_KERNELS, /* the kernels table */
	TREX_WORK_WANT_DEVICE,  /* categories, GPU time: kernels, copies and sets */
};

/* Why idx has no device work of the wanted sort, in one line written to
 * buf ("no GPU kernels: this trace has only CPU events (categories
 * cpu_op, user_annotation)"); NULL (buf untouched) when it has some. */
const char *trex_work_empty_reason(const struct trex_index *idx, const struct trex_work *w,
                                   enum trex_work_want want, char *buf, size_t size);

#endif
