/* What the trace exporters share beyond trace_export.h: args read in
 * batches, in the order the file reads fastest. */
#ifndef TREX_EXPORT_EXPORT_INTERNAL_H
#define TREX_EXPORT_EXPORT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trex/core/index.h"
#include "trex/export/trace_export.h"

/* Events whose args one batch reads: bounds the memory an export holds
 * beyond the index (their text and a few words each). */
#define XARGS_BATCH 65536

/* The args texts of one batch: event i's at text + off[i], len[i] bytes
 * (0: none). */
struct xargs {
	trex_args_ref in[XARGS_BATCH]; /* the batch's refs, for the caller to fill */
	char *text;
	size_t used, cap;
	size_t off[XARGS_BATCH];
	uint32_t len[XARGS_BATCH];
	trex_args_ref refs[XARGS_BATCH];
	uint32_t at[XARGS_BATCH]; /* batch index of each ref */
};

/* Reads the args of a->in[0..n) (n <= XARGS_BATCH; TREX_ARGS_NONE: none)
 * of file into a, as the file holds them. */
enum trex_status xargs_fetch(struct xargs *a, const struct trex_index *idx, uint32_t file, size_t n,
                             struct trex_error *err);
/* What a batch reads the args of: n events from first (slices when
 * slices, else instants) into a->in, then xargs_fetch. */
enum trex_status xargs_fetch_events(struct xargs *a, const struct trex_index *idx, uint32_t file,
                                    bool slices, uint32_t first, size_t n, struct trex_error *err);
void xargs_free(struct xargs *a);
/* The count events from first (slices, else instants) of file, a batch
 * of args at a time: fn gets each event's id and its place in a. False
 * when fn fails or the args cannot be read (err set). */
typedef bool xevent_fn(void *user, uint32_t id, size_t at);
bool xargs_each(struct xargs *a, const struct trex_index *idx, uint32_t file, bool slices,
                uint32_t first, uint32_t count, xevent_fn *fn, void *user, struct trex_error *err);

/* Whether slice id is kept by the scope (its track is checked apart);
 * *cts, *cdur, *clip as trex_export_clip. */
bool xscope_slice(const struct trex_index *idx, const struct trex_export_scope *s, uint32_t id,
                  int64_t *cts, int64_t *cdur, enum trex_clip *clip);

/* Whether a flow's ends are both kept, with the times its points get
 * inside their (clipped) slices. */
bool xscope_flow(const struct trex_index *idx, const struct trex_export_scope *s,
                 const struct trex_flow *f, int64_t *from_ts, int64_t *to_ts);

/* Calls fn for each track in scope, in index order; first: the first of
 * its process (the tracks of a process follow each other). False when fn
 * fails. */
typedef bool xtrack_fn(void *user, uint32_t track, bool first_of_process);
bool xscope_tracks(const struct trex_index *idx, const struct trex_export_scope *s, xtrack_fn *fn,
                   void *user);

/* A counter series' samples as the scope keeps them: those in the range
 * and, when there is one, the value at its start (the last sample before
 * it, moved there), each to fn; false when fn fails. Nothing when the
 * series' name is not in scope. */
typedef bool xsample_fn(void *user, uint32_t track, int64_t ts, double value);
bool xscope_samples(const struct trex_index *idx, const struct trex_export_scope *s, uint32_t track,
                    xsample_fn *fn, void *user);

/* Flow ids for an export: the id the file gave the flow (trex_index_flow_id)
 * unless the flow is one hop of a longer chain, else the launch link both
 * ends share (Kineto's correlation); each (category, id) once, except
 * that flows of one file may share their own ids; else fresh ids above
 * every id and link the index holds. */
struct xflow_ids {
	const struct trex_index *idx;
	uint32_t *used; /* open addressing set: flow id + 1 of each key's claimant, 0 empty */
	size_t mask;
	int64_t next;
};
bool xflow_ids_init(struct xflow_ids *f, const struct trex_index *idx);
/* The id flow is written with: a number or a string id. */
struct trex_flow_id xflow_id(struct xflow_ids *f, uint32_t flow);
void xflow_ids_free(struct xflow_ids *f);

#endif
