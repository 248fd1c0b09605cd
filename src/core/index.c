#include "config.h"

#include "trex/core/index.h"

#include <stdlib.h>
#include <string.h>

#include "index_internal.h"

/* ---- accessors ------------------------------------------------------------------ */

struct trex_strtab *trex_index_strings(const struct trex_index *idx)
{
	return idx->strs;
}

uint32_t trex_index_file_count(const struct trex_index *idx)
{
	return idx->nfiles;
}

const struct trex_file *trex_index_file(const struct trex_index *idx, uint32_t id)
{
	return id < idx->nfiles ? &idx->files[id] : NULL;
}

uint32_t trex_index_process_count(const struct trex_index *idx)
{
	return idx->nprocs;
}

const struct trex_process *trex_index_process(const struct trex_index *idx, uint32_t id)
{
	return id < idx->nprocs ? &idx->procs[id] : NULL;
}

uint32_t trex_index_track_count(const struct trex_index *idx)
{
	return idx->ntracks;
}

const struct trex_track *trex_index_track(const struct trex_index *idx, uint32_t id)
{
	return id < idx->ntracks ? &idx->tracks[id] : NULL;
}

uint32_t trex_index_lane_count(const struct trex_index *idx)
{
	return idx->nlanes;
}

const struct trex_lane *trex_index_lane(const struct trex_index *idx, uint32_t id)
{
	return id < idx->nlanes ? &idx->lanes[id] : NULL;
}

uint32_t trex_index_slice_count(const struct trex_index *idx)
{
	return (uint32_t)idx->slices.count;
}

const struct trex_slice *trex_index_slice(const struct trex_index *idx, uint32_t id)
{
	return id < idx->slices.count ? trex_idx_slice(idx, id) : NULL;
}

uint32_t trex_index_instant_count(const struct trex_index *idx)
{
	return (uint32_t)idx->instants.count;
}

const struct trex_instant *trex_index_instant(const struct trex_index *idx, uint32_t id)
{
	if (id >= idx->instants.count)
		return NULL;
	return TREX_VEC_AT(&idx->instants, const struct trex_instant, id);
}

uint32_t trex_index_sample_count(const struct trex_index *idx)
{
	return idx->nsamples;
}

const struct trex_counter_sample *trex_index_sample(const struct trex_index *idx, uint32_t id)
{
	return id < idx->nsamples ? &idx->samples[id] : NULL;
}

uint32_t trex_index_flow_count(const struct trex_index *idx)
{
	return (uint32_t)idx->flows.count;
}

const struct trex_flow *trex_index_flow(const struct trex_index *idx, uint32_t id)
{
	return id < idx->flows.count ? trex_idx_flow(idx, id) : NULL;
}

int64_t trex_index_start(const struct trex_index *idx)
{
	return idx->start;
}

int64_t trex_index_end(const struct trex_index *idx)
{
	return idx->end;
}

void trex_integrity_add(struct trex_integrity *a, const struct trex_integrity *b)
{
#define INTEGRITY_ADD(field, label) a->field += b->field;
	TREX_INTEGRITY_INFO(INTEGRITY_ADD)
#undef INTEGRITY_ADD
}

struct trex_integrity trex_index_integrity(const struct trex_index *idx)
{
	struct trex_integrity sum;

	memset(&sum, 0, sizeof(sum));
	for (uint32_t i = 0; i < idx->nfiles; i++)
		trex_integrity_add(&sum, &idx->files[i].integrity);
	return sum;
}

uint64_t trex_file_events_of_type(const struct trex_index *idx, uint32_t file, const char *label)
{
	const struct trex_file *f = trex_index_file(idx, file);

	for (uint32_t i = 0; f && i < f->event_type_count; i++) {
		if (strcmp(trex_index_str(idx, f->event_types[i].label), label) == 0)
			return f->event_types[i].events;
	}
	return 0;
}

size_t trex_index_memory(const struct trex_index *idx)
{
	size_t n = sizeof(*idx) + trex_strtab_memory(idx->strs);
	size_t launch = 0, op = 0;

	for (uint32_t i = 0; i < idx->nfiles; i++) {
		const struct trex_file *f = &idx->files[i];

		launch += idx->links[i].launch_count;
		op += idx->links[i].op_count;
		if (f->codec && f->codec_ctx && f->codec->memory)
			n += f->codec->memory(f->codec_ctx);
		if (idx->problems)
			n += sizeof(*idx->problems) +
			     idx->problems[i].cap * sizeof(*idx->problems[i].v);
		if (idx->members)
			n += sizeof(*idx->members) + trex_members_memory(&idx->members[i]);
	}
	n += idx->nfiles * (sizeof(*idx->files) + sizeof(*idx->links));
	n += idx->nprocs * sizeof(*idx->procs) + idx->ntracks * sizeof(*idx->tracks);
	n += idx->nlanes * sizeof(*idx->lanes) + idx->nsamples * sizeof(*idx->samples);
	n += trex_vec_memory(&idx->slices) + trex_vec_memory(&idx->instants);
	n += trex_vec_memory(&idx->flows) + 2 * idx->flows.count * sizeof(*idx->flows_in);
	n += idx->flow_ids_cap * (sizeof(*idx->flow_id_val) + sizeof(*idx->flow_id_how));
	n += idx->nedges * (sizeof(*idx->edges) + sizeof(*idx->edges_in));
	if (idx->graph)
		n += trex_graph_memory(idx->graph);
	for (int f = 0; f < TREX_SIDE_COUNT; f++)
		n += idx->side[f].words * (sizeof(uint64_t) + sizeof(uint32_t)) +
		     idx->side[f].n * sizeof(uint32_t);
	return n + (launch + op) * sizeof(uint32_t) + launch * sizeof(uint64_t); /* ids, keys */
}

struct trex_flow_id trex_index_flow_id(const struct trex_index *idx, uint32_t flow)
{
	struct trex_flow_id id = {0, 0, TREX_FLOW_ID_NONE, false};
	uint8_t how;

	if (flow >= idx->flows.count || !idx->flow_id_how)
		return id;
	how = idx->flow_id_how[flow];
	id.kind = how & FLOW_ID_KIND_MASK;
	id.chained = (how & FLOW_ID_CHAINED) != 0;
	if (id.kind == TREX_FLOW_ID_STR)
		id.str = (uint32_t)idx->flow_id_val[flow];
	else if (id.kind != TREX_FLOW_ID_NONE)
		id.num = (int64_t)idx->flow_id_val[flow];
	return id;
}

uint32_t trex_index_file_member_count(const struct trex_index *idx, uint32_t file)
{
	if (file >= idx->nfiles || !idx->members)
		return 0;
	return (uint32_t)idx->members[file].n;
}

bool trex_index_file_member(const struct trex_index *idx, uint32_t file, uint32_t i,
                            struct trex_file_member *out)
{
	if (i >= trex_index_file_member_count(idx, file))
		return false;
	trex_members_get(&idx->members[file], i, out);
	return true;
}

bool trex_index_file_member_find(const struct trex_index *idx, uint32_t file, const char *key,
                                 struct trex_file_member *out)
{
	size_t klen = strlen(key);

	for (uint32_t i = trex_index_file_member_count(idx, file); i-- > 0;) {
		trex_members_get(&idx->members[file], i, out);
		if (out->key_len == klen && memcmp(out->key, key, klen) == 0)
			return true;
	}
	return false;
}

const struct trex_graph *trex_index_graph(const struct trex_index *idx)
{
	return idx->graph;
}

void trex_index_free(struct trex_index *idx)
{
	if (!idx)
		return;
	free(idx->clock_fix);
	if (idx->mapped) {
		trex_index_file_release(idx);
		return;
	}
	for (uint32_t i = 0; i < idx->nfiles; i++) {
		if (idx->files[i].codec && idx->files[i].codec_ctx)
			idx->files[i].codec->close(idx->files[i].codec_ctx);
	}
	trex_strtab_free(idx->strs);
	free(idx->files);
	free(idx->links);
	free(idx->procs);
	free(idx->tracks);
	free(idx->lanes);
	trex_vec_free(&idx->slices);
	trex_vec_free(&idx->instants);
	trex_vec_free(&idx->flows);
	free(idx->samples);
	free(idx->launch_ids);
	free(idx->op_ids);
	free(idx->launch_keys);
	for (int f = 0; f < TREX_SIDE_COUNT; f++) {
		free(idx->side[f].bits);
		free(idx->side[f].before);
		free(idx->side[f].values);
	}
	free(idx->flows_out);
	free(idx->flows_in);
	free(idx->edges);
	free(idx->edges_in);
	trex_graph_free(idx->graph);
	for (uint32_t i = 0; idx->problems && i < idx->nfiles; i++)
		trex_problems_free(&idx->problems[i]);
	free(idx->problems);
	for (uint32_t i = 0; idx->members && i < idx->nfiles; i++)
		trex_members_free(&idx->members[i]);
	free(idx->members);
	free(idx->flow_id_val);
	free(idx->flow_id_how);
	free(idx);
}

/* ---- lanes ----------------------------------------------------------------------
 * Slices of a lane do not overlap, so both their starts and their ends
 * ascend: each search below is a plain binary search. */

uint32_t trex_lane_find_end_at_or_after(const struct trex_index *idx, const struct trex_lane *lane,
                                        int64_t t)
{
	uint32_t lo = lane->first, hi = lane->first + lane->count;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (trex_slice_end(trex_idx_slice(idx, mid)) >= t)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

uint32_t trex_lane_find_start_after(const struct trex_index *idx, const struct trex_lane *lane,
                                    int64_t t)
{
	uint32_t lo = lane->first, hi = lane->first + lane->count;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (trex_idx_slice(idx, mid)->ts > t)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* The last slice of lane starting at or before t, TREX_NONE if none. */
static uint32_t lane_last_at_or_before(const struct trex_index *idx, const struct trex_lane *lane,
                                       int64_t t)
{
	uint32_t i = trex_lane_find_start_after(idx, lane, t);

	return i > lane->first ? i - 1 : TREX_NONE;
}

uint32_t trex_index_slice_at(const struct trex_index *idx, uint32_t track, int64_t t)
{
	const struct trex_track *tr = trex_index_track(idx, track);

	if (!tr)
		return TREX_NONE;
	/* A partial overlap can leave a deeper lane busy over a gap in a
	 * shallower one, so every lane is asked, deepest first. */
	for (uint32_t d = tr->lane_count; d-- > 0;) {
		uint32_t i = lane_last_at_or_before(idx, &idx->lanes[tr->first_lane + d], t);
		const struct trex_slice *s;

		if (i == TREX_NONE)
			continue;
		s = trex_idx_slice(idx, i);
		if (t < trex_slice_end(s) || (s->dur == 0 && s->ts == t))
			return i;
	}
	return TREX_NONE;
}

uint32_t trex_index_parent(const struct trex_index *idx, uint32_t slice)
{
	const struct trex_slice *s = trex_index_slice(idx, slice);
	const struct trex_track *tr;

	if (!s || s->depth == 0)
		return TREX_NONE;
	tr = &idx->tracks[s->track];
	/* The parent is the latest-starting slice one lane up that starts no
	 * later than s: that is the slice s was stacked on when depths were
	 * assigned. */
	return lane_last_at_or_before(idx, &idx->lanes[tr->first_lane + s->depth - 1], s->ts);
}

/* The parents of lane's slices in up (the lane above), both sorted by start. */
static void lane_parents(const struct trex_index *idx, const struct trex_lane *lane,
                         const struct trex_lane *up, uint32_t *parent)
{
	uint32_t j = up->first, end = up->first + up->count;

	for (uint32_t i = lane->first; i < lane->first + lane->count; i++) {
		int64_t ts = trex_idx_slice(idx, i)->ts;

		while (j + 1 < end && trex_idx_slice(idx, j + 1)->ts <= ts)
			j++;
		parent[i] = j < end && trex_idx_slice(idx, j)->ts <= ts ? j : TREX_NONE;
	}
}

void trex_index_parents(const struct trex_index *idx, uint32_t *parent)
{
	trex_index_parents_of(idx, 0, idx->ntracks, parent);
}

void trex_index_parents_of(const struct trex_index *idx, uint32_t first_track, uint32_t end_track,
                           uint32_t *parent)
{
	for (uint32_t t = first_track; t < end_track && t < idx->ntracks; t++) {
		const struct trex_track *tr = &idx->tracks[t];

		for (uint32_t d = 0; d < tr->lane_count; d++) {
			const struct trex_lane *lane = &idx->lanes[tr->first_lane + d];

			if (d == 0) {
				for (uint32_t i = lane->first; i < lane->first + lane->count; i++)
					parent[i] = TREX_NONE;
			} else {
				lane_parents(idx, lane, lane - 1, parent);
			}
		}
	}
}

/* ---- side tables ---------------------------------------------------------------------- */

uint32_t trex_slice_launch_link(const struct trex_index *idx, uint32_t slice)
{
	return trex_side_get(idx, TREX_SIDE_LAUNCH_LINK, slice, 0);
}

uint32_t trex_slice_op_link(const struct trex_index *idx, uint32_t slice)
{
	return trex_side_get(idx, TREX_SIDE_OP_LINK, slice, 0);
}

uint32_t trex_slice_shape(const struct trex_index *idx, uint32_t slice)
{
	return trex_side_get(idx, TREX_SIDE_SHAPE, slice, 0);
}

unsigned trex_slice_comm(const struct trex_index *idx, uint32_t slice)
{
	return trex_side_get(idx, TREX_SIDE_COMM, slice, TREX_COMM_NONE);
}

/* ---- links --------------------------------------------------------------------------- */

static uint32_t slice_file(const struct trex_index *idx, const struct trex_slice *s)
{
	return idx->procs[idx->tracks[s->track].process].file;
}

static uint32_t link_key(const struct trex_index *idx, uint32_t slice, bool launch)
{
	return launch ? trex_slice_launch_link(idx, slice) : trex_slice_op_link(idx, slice);
}

/* The key of entry i of a file's launch (op) table: its link. */
static uint32_t link_entry(const struct trex_index *idx, const struct trex_file_links *fl,
                           bool launch, size_t i)
{
	return launch ? (uint32_t)(idx->launch_keys[fl->launch_first + i] >> 1)
	              : trex_side_get(idx, TREX_SIDE_OP_LINK, idx->op_ids[fl->op_first + i], 0);
}

/* The first entry of a file's table (n entries) whose link is >= key.
 * Links are mostly dense increasing ids (correlation ids): a guess from
 * the key's place between the table's ends lands on it or near it, and a
 * search outwards from the guess in doubling steps, then a binary one
 * between the last two probes, stays near it too (few cache misses; at
 * worst about twice a binary search's probes). */
static size_t link_lower_bound(const struct trex_index *idx, const struct trex_file_links *fl,
                               bool launch, uint32_t key, size_t n)
{
	size_t lo, hi, guess, step = 1;
	uint32_t first, last;

	if (n == 0 || key <= (first = link_entry(idx, fl, launch, 0)))
		return 0;
	if (key > (last = link_entry(idx, fl, launch, n - 1)))
		return n;
	guess = (size_t)((double)(key - first) / (last - first) * (double)(n - 1));
	if (link_entry(idx, fl, launch, guess) < key) {
		for (lo = guess + 1;
		     lo + step - 1 < n && link_entry(idx, fl, launch, lo + step - 1) < key;
		     step *= 2)
			lo += step;
		hi = lo + step - 1 < n ? lo + step - 1 : n;
	} else {
		for (hi = guess; hi >= step && link_entry(idx, fl, launch, hi - step) >= key;
		     step *= 2)
			hi -= step;
		lo = hi >= step ? hi - step + 1 : 0;
	}
	while (lo < hi) { /* entries before lo are < key, those from hi on >= key */
		size_t mid = lo + (hi - lo) / 2;

		if (link_entry(idx, fl, launch, mid) < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The slices of slice's file sharing its launch link (launch) or op link
 * (!launch), slice included: entries [lo, hi) of the file's table *fl, in
 * id order. Returns false when slice has no such link. */
static bool link_run(const struct trex_index *idx, uint32_t slice, bool launch,
                     const struct trex_file_links **fl_out, size_t *lo_out, size_t *hi_out)
{
	const struct trex_slice *s = trex_index_slice(idx, slice);
	const struct trex_file_links *fl;
	size_t lo, hi, end;
	uint32_t key;

	if (!s || !(s->flags & (launch ? TREX_SLICE_HAS_LAUNCH_LINK : TREX_SLICE_HAS_OP_LINK)))
		return false;
	fl = &idx->links[slice_file(idx, s)];
	end = launch ? fl->launch_count : fl->op_count;
	key = link_key(idx, slice, launch);
	lo = link_lower_bound(idx, fl, launch, key, end);
	for (hi = lo; hi < end && link_entry(idx, fl, launch, hi) == key; hi++)
		;
	*fl_out = fl;
	*lo_out = lo;
	*hi_out = hi;
	return true;
}

/* Other slices of the same file sharing slice's launch link (launch) or
 * op link (!launch). */
static size_t linked(const struct trex_index *idx, uint32_t slice, bool launch, uint32_t *out,
                     size_t max)
{
	const struct trex_file_links *fl;
	const uint32_t *ids;
	size_t lo, hi, n = 0;

	if (!link_run(idx, slice, launch, &fl, &lo, &hi))
		return 0;
	ids = launch ? idx->launch_ids + fl->launch_first : idx->op_ids + fl->op_first;
	for (; lo < hi; lo++) {
		if (ids[lo] == slice)
			continue;
		if (n < max)
			out[n] = ids[lo];
		n++;
	}
	return n;
}

size_t trex_index_same_launch_link(const struct trex_index *idx, uint32_t slice, uint32_t *out,
                                   size_t max)
{
	return linked(idx, slice, true, out, max);
}

size_t trex_index_same_op_link(const struct trex_index *idx, uint32_t slice, uint32_t *out,
                               size_t max)
{
	return linked(idx, slice, false, out, max);
}

/* First position of ids (flows ordered by the slice at one end: to when
 * in, from otherwise) whose slice is >= slice. */
static size_t flow_lower_bound(const struct trex_index *idx, const uint32_t *ids, bool in,
                               uint32_t slice)
{
	size_t lo = 0, hi = idx->flows.count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct trex_flow *f = trex_idx_flow(idx, ids[mid]);

		if ((in ? f->to_slice : f->from_slice) < slice)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

size_t trex_index_flows_of(const struct trex_index *idx, uint32_t slice, uint32_t *out, size_t max)
{
	size_t n = 0, count = idx->flows.count;

	if (slice == TREX_NONE)
		return 0;
	for (size_t i = flow_lower_bound(idx, idx->flows_out, false, slice); i < count; i++) {
		if (trex_idx_flow(idx, idx->flows_out[i])->from_slice != slice)
			break;
		if (n < max)
			out[n] = idx->flows_out[i];
		n++;
	}
	for (size_t i = flow_lower_bound(idx, idx->flows_in, true, slice); i < count; i++) {
		const struct trex_flow *f = trex_idx_flow(idx, idx->flows_in[i]);

		if (f->to_slice != slice)
			break;
		if (f->from_slice == slice)
			continue; /* a flow within one slice was listed as leaving it */
		if (n < max)
			out[n] = idx->flows_in[i];
		n++;
	}
	return n;
}

uint32_t trex_index_launch_of(const struct trex_index *idx, uint32_t slice)
{
	const struct trex_file_links *fl;
	size_t lo, hi;

	if (!link_run(idx, slice, true, &fl, &lo, &hi))
		return TREX_NONE;
	/* every slice of the run: a graph launch shares its link with all its
	 * kernels, which may come before it in id order */
	for (; lo < hi; lo++) {
		uint32_t id = idx->launch_ids[fl->launch_first + lo];

		if (id != slice && (idx->launch_keys[fl->launch_first + lo] & 1))
			return id;
	}
	return TREX_NONE;
}

/* ---- dependencies ---------------------------------------------------------------------- */

uint32_t trex_index_edge_count(const struct trex_index *idx)
{
	return idx->nedges;
}

const struct trex_edge *trex_index_edge(const struct trex_index *idx, uint32_t id)
{
	return id < idx->nedges ? &idx->edges[id] : NULL;
}

/* First place in edges (incoming: in edges_in order) whose slice is >= slice. */
static size_t edge_lower_bound(const struct trex_index *idx, bool incoming, uint32_t slice)
{
	size_t lo = 0, hi = idx->nedges;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint32_t at = incoming ? idx->edges[idx->edges_in[mid]].to : idx->edges[mid].from;

		if (at < slice)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

size_t trex_index_edges_of(const struct trex_index *idx, uint32_t slice, bool incoming,
                           uint32_t *out, size_t max)
{
	size_t n = 0;

	for (size_t i = edge_lower_bound(idx, incoming, slice); i < idx->nedges; i++) {
		uint32_t id = incoming ? idx->edges_in[i] : (uint32_t)i;

		if ((incoming ? idx->edges[id].to : idx->edges[id].from) != slice)
			break;
		if (n < max)
			out[n] = id;
		n++;
	}
	return n;
}

/* ---- args, through the file's codec ------------------------------------------------------ */

static enum trex_status file_codec(const struct trex_index *idx, uint32_t file,
                                   const struct trex_file **out, struct trex_error *err)
{
	if (file >= idx->nfiles)
		return trex_error_set(err, TREX_USAGE, NULL, -1, "no file %u in the index", file);
	*out = &idx->files[file];
	if (!(*out)->codec || !(*out)->codec_ctx)
		return trex_error_set(err, TREX_IO, trex_index_str(idx, (*out)->path), -1,
		                      "this file's args cannot be read back");
	return TREX_OK;
}

enum trex_status trex_index_args(const struct trex_index *idx, uint32_t file, trex_args_ref ref,
                                 struct trex_args *out, bool *truncated, struct trex_error *err)
{
	const struct trex_file *f = NULL;
	enum trex_status st;

	memset(out, 0, sizeof(*out));
	if (truncated)
		*truncated = false;
	if (ref == TREX_ARGS_NONE)
		return TREX_OK;
	st = file_codec(idx, file, &f, err);
	return st == TREX_OK ? f->codec->decode(f->codec_ctx, ref, out, truncated, err) : st;
}

enum trex_status trex_index_args_json(const struct trex_index *idx, uint32_t file,
                                      trex_args_ref ref, char **out, size_t *len,
                                      struct trex_error *err)
{
	const struct trex_file *f = NULL;
	enum trex_status st;

	*out = NULL;
	*len = 0;
	if (ref == TREX_ARGS_NONE)
		return TREX_OK;
	st = file_codec(idx, file, &f, err);
	return st == TREX_OK ? f->codec->json(f->codec_ctx, ref, out, len, err) : st;
}

enum trex_status trex_index_args_each(const struct trex_index *idx, uint32_t file,
                                      const trex_args_ref *refs, size_t n, trex_args_each_fn *fn,
                                      void *user, struct trex_error *err)
{
	const struct trex_file *f = NULL;
	enum trex_status st;

	if (n == 0)
		return TREX_OK;
	st = file_codec(idx, file, &f, err);
	if (st != TREX_OK)
		return st;
	if (f->codec->decode_each)
		return f->codec->decode_each(f->codec_ctx, refs, n, fn, user, err);
	for (size_t i = 0; i < n && st == TREX_OK; i++) {
		struct trex_args a = {0};

		st = f->codec->decode(f->codec_ctx, refs[i], &a, NULL, err);
		if (st == TREX_OK)
			st = fn(user, i, &a, err);
		trex_args_free(&a);
	}
	return st;
}

/* A codec without json_each: its json, one reference at a time. */
static enum trex_status args_json_one_by_one(const struct trex_file *f, const trex_args_ref *refs,
                                             size_t n, trex_args_json_fn *fn, void *user,
                                             struct trex_error *err)
{
	enum trex_status st = TREX_OK;

	for (size_t i = 0; i < n && st == TREX_OK; i++) {
		char *text = NULL;
		size_t len = 0;

		st = f->codec->json(f->codec_ctx, refs[i], &text, &len, err);
		if (st == TREX_OK)
			st = fn(user, i, text ? text : "", len, err);
		free(text);
	}
	return st;
}

enum trex_status trex_index_args_json_each(const struct trex_index *idx, uint32_t file,
                                           const trex_args_ref *refs, size_t n,
                                           trex_args_json_fn *fn, void *user,
                                           struct trex_error *err)
{
	const struct trex_file *f = NULL;
	enum trex_status st;

	if (n == 0)
		return TREX_OK;
	st = file_codec(idx, file, &f, err);
	if (st != TREX_OK)
		return st;
	if (!f->codec->json_each)
		return args_json_one_by_one(f, refs, n, fn, user, err);
	return f->codec->json_each(f->codec_ctx, refs, n, fn, user, err);
}

void trex_args_free(struct trex_args *a)
{
	free(a->v);
	free(a->buf);
	memset(a, 0, sizeof(*a));
}
