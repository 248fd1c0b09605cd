/* The critical path of a trace without an execution graph (`trex
 * critical-path` on Kineto, unitrace, Perfetto GPU traces): from each
 * file's (rank's) last event, walked back along the dependency that bound
 * each point, in the lightweight model of HTA's critical-path analysis
 * (doc/critical-path.md says where it matches HTA and where not):
 *  - a CPU thread runs in order: a point on a thread waits for whatever
 *    the thread ran before it (the deepest slice there, its own time
 *    between its children);
 *  - device work (kernels, copies, sets) starts after its launch call
 *    started ("launch"), after the work before it on its stream ended
 *    ("stream order") and after the work a cudaStreamWaitEvent made it
 *    wait for ("wait"); the latest of these bound it;
 *  - a synchronizing call (cudaDeviceSynchronize, cudaStreamSynchronize,
 *    cudaEventSynchronize, ...; Kineto's cuda_sync events say which
 *    stream or event) ends after the device work it waited for ("sync").
 * A path is a chain of segments that covers the time from its first
 * segment's start to the file's last end without overlap. */
#ifndef TREX_ANALYSIS_TRACE_CRITICAL_PATH_H
#define TREX_ANALYSIS_TRACE_CRITICAL_PATH_H

#include <stddef.h>
#include <stdint.h>

#include "trex/analysis/table.h"
#include "trex/core/index.h"
#include "trex/core/status.h"

/* What a segment of the path is. */
enum trex_tpath_what {
	TREX_TPATH_CPU,    /* a CPU slice's own time on its thread */
	TREX_TPATH_SYNC,   /* a synchronizing call, from the end of what it waited for */
	TREX_TPATH_LAUNCH, /* from a launch call's start to its device work's start */
	TREX_TPATH_DEVICE, /* device work */
	TREX_TPATH_IDLE,   /* a gap: nothing traced on the path then */
};

/* How a segment follows the one before it on the path. */
enum trex_tpath_bound {
	TREX_TPATH_START,        /* the path's first segment */
	TREX_TPATH_THREAD_ORDER, /* the thread ran it after what it ran before */
	TREX_TPATH_LAUNCH_BOUND, /* device work started by its launch */
	TREX_TPATH_STREAM_ORDER, /* device work queued behind the work before it */
	TREX_TPATH_SYNC_BOUND,   /* a sync call released by the device work it waited for */
	TREX_TPATH_WAIT,         /* device work released by a cudaStreamWaitEvent's event */
};

struct trex_tpath_seg {
	uint32_t file;  /* the file (rank) whose path it is */
	uint32_t slice; /* TREX_NONE for an idle gap */
	uint32_t track; /* the slice's track; an idle gap's: the track it waited on */
	int64_t start, dur;
	uint8_t what;  /* enum trex_tpath_what */
	uint8_t bound; /* enum trex_tpath_bound */
};

/* The paths of every file of an index, file by file, each in time order. */
struct trex_tpath {
	struct trex_tpath_seg *seg;
	size_t n, cap;
};

/* Walks every file's critical path into *out (freed with
 * trex_tpath_free, also on failure). A file without a CPU or device
 * slice has no path. TREX_NOMEM when out of memory. */
enum trex_status trex_tpath_compute(const struct trex_index *idx, struct trex_tpath *out,
                                    struct trex_error *err);
void trex_tpath_free(struct trex_tpath *p);

/* Which slices the paths run through (CPU, sync, launch and device
 * segments), for the timeline's highlight: *marks receives a malloc'd
 * array of trex_index_slice_count(idx) bytes, 1 for such a slice (the
 * caller frees it). TREX_NOMEM when out of memory. */
enum trex_status trex_tpath_slice_marks(const struct trex_index *idx, uint8_t **marks,
                                        struct trex_error *err);

const char *trex_tpath_what_label(enum trex_tpath_what w);
const char *trex_tpath_bound_label(enum trex_tpath_bound b);

/* The share a segment counts for in the summary. */
enum trex_tpath_share {
	TREX_SHARE_CPU,    /* CPU and sync segments */
	TREX_SHARE_GPU,    /* device work other than communication */
	TREX_SHARE_COMM,   /* device work that matched a communication rule */
	TREX_SHARE_LAUNCH, /* launch delays */
	TREX_SHARE_IDLE,   /* gaps */
	TREX_SHARE_COUNT
};
enum trex_tpath_share trex_tpath_share_of(const struct trex_index *idx,
                                          const struct trex_tpath_seg *s);

/* One row per segment, each file's path in time order:
 *   rank, track (trex_track_label), name (the slice's, "(idle)" for a
 *   gap), kind ("cpu", "sync", "launch", the device work's kind label,
 *   "communication" for collectives, "idle"), start_ns (since the
 *   trace's start, trex_index_start), duration_ns,
 *   bound (trex_tpath_bound_label: how it follows the segment before).
 * *summary (may be NULL) receives one row per file with a path:
 *   rank, path_ns (first start to last end), then ns and % of the path
 *   for cpu, gpu, comm, launch and idle.
 * TREX_FORMAT ("no CPU or device slices ...") when no file has a path. */
enum trex_status trex_trace_critical_path_table(const struct trex_index *idx, struct trex_table *t,
                                                struct trex_table *summary, struct trex_error *err);

#endif
