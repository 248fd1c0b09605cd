#include "config.h"

#include "trex/core/builder.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "build_internal.h"
#include "trex/core/task.h"

/* trex_index_build(): the stages are described in build_internal.h. */

/* ---- shared helpers ---------------------------------------------------------------------- */

enum trex_status bld_nomem(struct bld *c)
{
	return trex_error_set(c->err, TREX_NOMEM, NULL, -1, "out of memory building the index");
}

enum trex_status bld_too_many(struct bld *c)
{
	return trex_error_set(c->err, TREX_FORMAT, c->in->files[c->file].path, -1,
	                      "more than %" PRIu32 " slices, flows or flow points: beyond what "
	                      "the index can hold",
	                      UINT32_MAX - 1);
}

void *bld_grow(void *arr, size_t *cap, size_t n, size_t elem)
{
	size_t c = *cap ? *cap : 16;
	void *p;

	while (c < n)
		c *= 2;
	p = realloc(arr, c * elem);
	if (!p)
		return NULL;
	memset((char *)p + *cap * elem, 0, (c - *cap) * elem);
	*cap = c;
	return p;
}

int64_t bld_add_sat(int64_t a, int64_t b, uint16_t *flags)
{
	int64_t r;

	if (!__builtin_add_overflow(a, b, &r))
		return r;
	if (flags)
		*flags |= TREX_SLICE_TS_SATURATED;
	return b > 0 ? INT64_MAX : INT64_MIN;
}

int64_t bld_sub_sat(int64_t a, int64_t b)
{
	int64_t r;

	if (!__builtin_sub_overflow(a, b, &r))
		return r;
	return b < 0 ? INT64_MAX : INT64_MIN;
}

unsigned bld_threads(const struct bld *c, size_t records)
{
	unsigned n = c->in->threads;

	if (n <= 1 || records < BLD_PAR_MIN_RECORDS)
		return 1;
	return n > TREX_TASK_THREADS_MAX ? TREX_TASK_THREADS_MAX : n;
}

struct trex_earliest *bld_cand(struct bld *c, uint32_t file, enum trex_integrity_counter k)
{
	return &c->cand[(size_t)file * TREX_INTEG_COUNT + k];
}

void bld_problem(struct bld *c, uint32_t file, enum trex_integrity_counter k,
                 const struct trex_bslice *s, int64_t value)
{
	struct trex_problem_cand cand = {s->ts, value, s->track, s->name};

	trex_integrity_count(&c->integ[file], k, 1);
	trex_earliest_offer(bld_cand(c, file, k), &cand);
}

void bld_note_span(struct bld *c, int64_t start, int64_t end)
{
	struct trex_index *idx = c->idx;

	if (idx->start > idx->end) {
		idx->start = start;
		idx->end = end;
		return;
	}
	idx->start = start < idx->start ? start : idx->start;
	idx->end = end > idx->end ? end : idx->end;
}

uint32_t bld_track_file(const struct trex_index *idx, uint32_t track)
{
	return idx->procs[idx->tracks[track].process].file;
}

size_t bld_ref_place(const struct bld *c, bld_ref r)
{
	return r & BLD_IN_REST ? c->nfull + (size_t)(r & ~BLD_IN_REST) : (size_t)r;
}

/* ---- files, setup and teardown ------------------------------------------------------------ */

static uint32_t intern_c(struct bld *c, const char *s)
{
	return s ? trex_strtab_intern(c->idx->strs, s, strlen(s)) : TREX_STR_NONE;
}

static enum trex_status fill_event_types(struct bld *c, const struct trex_build_file *in,
                                         struct trex_file *out)
{
	out->event_type_count = in->event_type_count < TREX_EVENT_TYPES_MAX ? in->event_type_count
	                                                                    : TREX_EVENT_TYPES_MAX;
	for (uint32_t i = 0; i < out->event_type_count; i++) {
		struct trex_event_type *t = &out->event_types[i];

		t->label = intern_c(c, in->event_types[i].label);
		t->name = intern_c(c, in->event_types[i].name);
		t->events = in->event_types[i].events;
		if (t->label == TREX_STR_ERROR || t->name == TREX_STR_ERROR)
			return bld_nomem(c);
	}
	return TREX_OK;
}

static enum trex_status fill_file(struct bld *c, uint32_t f)
{
	const struct trex_build_file *in = &c->in->files[f];
	struct trex_file *out = &c->idx->files[f];

	out->path = intern_c(c, in->path);
	out->format = intern_c(c, in->format);
	out->dialect = intern_c(c, in->dialect);
	if (out->path == TREX_STR_ERROR || out->format == TREX_STR_ERROR ||
	    out->dialect == TREX_STR_ERROR)
		return bld_nomem(c);
	out->rank = in->rank;
	out->has_rank = in->has_rank;
	out->gzip = in->gzip;
	out->truncated = in->truncated;
	out->base_time_ns = in->base_time_ns;
	out->bytes_on_disk = in->bytes_on_disk;
	out->bytes_decoded = in->bytes_decoded;
	out->events = in->events;
	out->integrity = in->integrity;
	out->first_problem = in->first_problem;
	return fill_event_types(c, in, out);
}

static void close_codecs(const struct trex_build_input *in)
{
	for (size_t f = 0; f < in->file_count; f++) {
		if (in->files[f].codec && in->files[f].codec_ctx)
			in->files[f].codec->close(in->files[f].codec_ctx);
		in->files[f].codec_ctx = NULL;
	}
}

/* Takes the codecs at once, so that on any failure the index (or, when
 * not even that exists, this function) closes them. */
static enum trex_status take_codecs(struct bld *c)
{
	const struct trex_build_input *in = c->in;
	struct trex_index *idx = calloc(1, sizeof(*idx));

	if (idx)
		idx->files = calloc(in->file_count + 1, sizeof(*idx->files));
	if (!idx || !idx->files || in->file_count > UINT32_MAX - 1) {
		close_codecs(in);
		if (idx)
			free(idx->files);
		free(idx);
		return bld_nomem(c);
	}
	c->idx = idx;
	idx->nfiles = (uint32_t)in->file_count;
	for (size_t f = 0; f < in->file_count; f++) {
		idx->files[f].codec = in->files[f].codec;
		idx->files[f].codec_ctx = in->files[f].codec_ctx;
		in->files[f].codec_ctx = NULL;
	}
	return TREX_OK;
}

static enum trex_status bld_init(struct bld *c)
{
	struct trex_index *idx;
	size_t nf = c->in->file_count + 1;
	enum trex_status st = take_codecs(c);

	if (st != TREX_OK)
		return st;
	idx = c->idx;
	trex_vec_init(&idx->slices, sizeof(struct trex_bslice));
	trex_vec_init(&idx->instants, sizeof(struct trex_instant));
	trex_vec_init(&idx->flows, sizeof(struct trex_flow));
	trex_vec_init(&c->samples, sizeof(struct trex_bsample));
	trex_vec_init(&c->rest, sizeof(struct trex_bslice));
	idx->start = 1; /* start > end: no event seen yet */
	idx->end = 0;
	c->pool_free = TREX_NONE;
	idx->strs = trex_strtab_new();
	c->integ = calloc(nf, sizeof(*c->integ));
	c->file_end = calloc(nf, sizeof(*c->file_end));
	c->cand = calloc(nf * TREX_INTEG_COUNT, sizeof(*c->cand));
	idx->problems = calloc(nf, sizeof(*idx->problems));
	idx->members = calloc(nf, sizeof(*idx->members));
	if (!idx->strs || !c->integ || !c->file_end || !c->cand || !idx->problems || !idx->members)
		return bld_nomem(c);
	for (uint32_t f = 0; f < idx->nfiles; f++) {
		st = fill_file(c, f);
		if (st != TREX_OK)
			return st;
	}
	return TREX_OK;
}

static void bld_free(struct bld *c)
{
	const struct trex_build_input *in = c->in;

	for (size_t i = 0; i < in->part_count; i++) {
		trex_builder_free(in->parts[i]);
		in->parts[i] = NULL;
	}
	free(c->procs);
	free(c->tracks);
	trex_kmap_free(&c->proc_map);
	trex_kmap_free(&c->track_map);
	trex_vec_free(&c->samples);
	trex_vec_free(&c->rest);
	free(c->block_seq);
	free(c->seq_runs);
	free(c->integ);
	free(c->cand);
	free(c->file_end);
	free(c->be_top);
	free(c->pool);
	trex_kmap_free(&c->async_map);
	free(c->async_tops);
	bld_flows_free(c);
	free(c->flow_how);
	free(c->anchors);
	free(c->file_edges);
	free(c->deps);
	free(c->graph_refs);
	free(c->track_new);
	free(c->slice_id);
}

/* Integrity counts are final only after every stage; file records take
 * them last, with the build's own examples after the loader's. */
static enum trex_status add_integrity(struct bld *c)
{
	for (uint32_t f = 0; f < c->idx->nfiles; f++) {
		trex_integrity_add(&c->idx->files[f].integrity, &c->integ[f]);
		for (int k = 0; k < TREX_INTEG_COUNT; k++) {
			if (!trex_problems_add_cands(
			        &c->idx->problems[f], (enum trex_integrity_counter)k,
			        bld_cand(c, f, (enum trex_integrity_counter)k)))
				return bld_nomem(c);
		}
		trex_problems_complete(c->idx, f);
	}
	return TREX_OK;
}

/* Examples found before the tracks were put in display order follow them. */
static void renumber_problem_tracks(struct bld *c)
{
	for (uint32_t f = 0; f < c->idx->nfiles; f++) {
		trex_problems_remap_tracks(&c->idx->problems[f], c->track_new, c->ntracks);
		for (int k = 0; k < TREX_INTEG_COUNT; k++)
			trex_earliest_remap_tracks(bld_cand(c, f, (enum trex_integrity_counter)k),
			                           c->track_new, c->ntracks);
	}
}

/* The kinds the classifier changed written back, only those (a few):
 * writing every slice would cost another pass over them all; the rules
 * matched into the comm side table, in slice id order. */
static enum trex_status apply_classes(struct bld *c, const uint8_t *kind, const uint8_t *given,
                                      const uint8_t *comm)
{
	struct trex_vec *v = &c->idx->slices;
	struct bld_side side;
	size_t n = v->count;

	bld_side_start(&side, &c->idx->side[TREX_SIDE_COMM], n);
	for (size_t i = 0; i < n; i++) {
		if (kind[i] != given[i])
			TREX_VEC_AT(v, struct trex_slice, i)->kind = kind[i];
		if (comm[i] != TREX_COMM_NONE)
			bld_side_push(&side, (uint32_t)i, comm[i]);
	}
	return bld_side_finish(&side) ? TREX_OK : bld_nomem(c);
}

/* Stage 5: the loader's classifier, over the finished index. */
static enum trex_status classify(struct bld *c)
{
	const struct trex_build_classifier *cl = c->in->classifier;
	struct trex_vec *v = &c->idx->slices;
	size_t n = v->count;
	uint8_t *kind, *given, *comm;
	enum trex_status st;

	if (!cl || !cl->classify || n == 0)
		return TREX_OK;
	kind = malloc(n);
	given = malloc(n);
	comm = malloc(n);
	if (!kind || !given || !comm) {
		free(kind);
		free(given);
		free(comm);
		return bld_nomem(c);
	}
	for (size_t i = 0; i < n; i++)
		kind[i] = TREX_VEC_AT(v, struct trex_slice, i)->kind;
	memcpy(given, kind, n);
	memset(comm, TREX_COMM_NONE, n);
	st = cl->classify(cl->user, c->idx, bld_threads(c, n), kind, comm, c->err);
	if (st == TREX_OK)
		st = apply_classes(c, kind, given, comm);
	free(kind);
	free(given);
	free(comm);
	return st;
}

/* The flow id arrays cut to the flows (they grew by doubling). */
static void shrink_flow_ids(struct trex_index *idx)
{
	size_t n = idx->flows.count;
	uint64_t *val;
	uint8_t *how;

	if (!idx->flow_ids_cap || n >= idx->flow_ids_cap)
		return;
	val = realloc(idx->flow_id_val, (n + 1) * sizeof(*val));
	how = realloc(idx->flow_id_how, n + 1);
	if (val)
		idx->flow_id_val = val;
	if (how)
		idx->flow_id_how = how;
	if (val && how)
		idx->flow_ids_cap = n + 1;
}

static void freeze(struct trex_index *idx)
{
	if (idx->start > idx->end) {
		idx->start = 0;
		idx->end = 0;
	}
	trex_vec_shrink(&idx->slices);
	trex_vec_shrink(&idx->instants);
	trex_vec_shrink(&idx->flows);
	shrink_flow_ids(idx);
	trex_strtab_shrink(idx->strs);
}

static enum trex_status check_parts(struct bld *c)
{
	const struct trex_build_input *in = c->in;

	for (size_t i = 0; i < in->part_count; i++) {
		const struct trex_builder *b = in->parts[i];

		if (!b || b->file >= in->file_count ||
		    (i > 0 && in->parts[i - 1] && b->file < in->parts[i - 1]->file))
			return trex_error_set(c->err, TREX_USAGE, NULL, -1,
			                      "build input: part %zu is missing, names no file or "
			                      "is out of file order",
			                      i);
	}
	return TREX_OK;
}

static enum trex_status build_stages(struct bld *c)
{
	enum trex_status st = check_parts(c);

	if (st == TREX_OK)
		st = bld_merge(c);
	if (st == TREX_OK)
		st = bld_order(c);
	if (st == TREX_OK)
		renumber_problem_tracks(c);
	if (st == TREX_OK)
		st = bld_lanes(c);
	if (st == TREX_OK)
		st = bld_sort_points(c);
	if (st == TREX_OK)
		st = bld_narrow(c);
	if (st == TREX_OK)
		st = bld_links(c);
	if (st == TREX_OK)
		st = add_integrity(c);
	if (st == TREX_OK)
		st = classify(c);
	return st;
}

enum trex_status trex_index_build(const struct trex_build_input *in, struct trex_index **out,
                                  struct trex_error *err)
{
	struct bld c;
	enum trex_status st;

	*out = NULL;
	trex_error_clear(err);
	memset(&c, 0, sizeof(c));
	c.in = in;
	c.err = err;
	st = bld_init(&c);
	if (c.idx)
		c.idx->graph = in->graph; /* the index frees it, failed or not */
	else
		trex_graph_free(in->graph);
	if (st == TREX_OK)
		st = build_stages(&c);
	bld_free(&c);
	if (st != TREX_OK) {
		trex_index_free(c.idx);
		return st;
	}
	freeze(c.idx);
	*out = c.idx;
	return TREX_OK;
}
