/* Index files: an index pointed into a mapped file, after checking that
 * every id and range in it stays inside its arrays (index_file.h), so a
 * damaged or forged file is refused instead of read out of bounds. */
#include "config.h"

#include "trex/core/index_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "index_file_internal.h"
#include "members.h"
#include "index_internal.h"

struct opener {
	struct trex_index_file *f;
	struct trex_index *idx;
	uint32_t nstr;
	struct trex_error *err;
};

static enum trex_status damaged(struct opener *o, const char *what)
{
	return trex_error_set(o->err, TREX_FORMAT, o->f->name, -1, "damaged index file (%s)", what);
}

/* Section id's bytes when it holds exactly count records of elem bytes. */
static const void *section(struct opener *o, int id, uint64_t count, size_t elem)
{
	const struct section *s = &o->f->sec[id];

	if (elem && count > s->length / elem)
		return NULL;
	if (s->length != count * elem)
		return NULL;
	return o->f->data + s->offset;
}

static bool str_ok(const struct opener *o, uint32_t id)
{
	return id < o->nstr;
}

static bool str_or_none(const struct opener *o, uint32_t id)
{
	return id == TREX_NONE || id < o->nstr;
}

static bool range_ok(uint64_t first, uint64_t count, uint64_t n)
{
	return first <= n && count <= n - first;
}

/* ---- checks, array by array ---------------------------------------------------------------- */

static bool lanes_ok(const struct opener *o)
{
	const struct trex_index *idx = o->idx;

	/* every lane, also one no track names: slices_ok walks them all */
	for (uint32_t l = 0; l < idx->nlanes; l++)
		if (idx->lanes[l].track >= idx->ntracks ||
		    !range_ok(idx->lanes[l].first, idx->lanes[l].count, idx->slices.count))
			return false;

	for (uint32_t t = 0; t < idx->ntracks; t++) {
		const struct trex_track *tr = &idx->tracks[t];

		if (tr->process >= idx->nprocs || !str_ok(o, tr->tid) || !str_ok(o, tr->name) ||
		    tr->kind > TREX_TRACK_NAMED ||
		    !range_ok(tr->first_lane, tr->lane_count, idx->nlanes) ||
		    !range_ok(tr->first_slice, tr->slice_count, idx->slices.count) ||
		    !range_ok(tr->first_instant, tr->instant_count, idx->instants.count) ||
		    !range_ok(tr->first_sample, tr->sample_count, idx->nsamples) ||
		    (tr->parent != TREX_NONE && tr->parent >= idx->ntracks))
			return false;
		for (uint32_t d = 0; d < tr->lane_count; d++) {
			const struct trex_lane *l = &idx->lanes[tr->first_lane + d];

			if (l->track != t || l->depth != d ||
			    !range_ok(l->first, l->count, idx->slices.count))
				return false;
		}
	}
	return true;
}

static bool procs_ok(const struct opener *o)
{
	const struct trex_index *idx = o->idx;

	for (uint32_t i = 0; i < idx->nprocs; i++) {
		const struct trex_process *p = &idx->procs[i];

		if (p->file >= idx->nfiles || !str_ok(o, p->pid) || !str_ok(o, p->name) ||
		    !str_ok(o, p->labels) ||
		    !range_ok(p->first_track, p->track_count, idx->ntracks))
			return false;
	}
	return true;
}

/* One slice's own ids: its track and lane exist, its strings and kind. */
static bool slice_ids_ok(const struct opener *o, const struct trex_slice *s)
{
	const struct trex_index *idx = o->idx;

	return s->track < idx->ntracks && s->depth < idx->tracks[s->track].lane_count &&
	       str_ok(o, s->name) && str_ok(o, s->cat) && s->kind < TREX_KIND_COUNT;
}

/* Slices lie in their lane: track and depth agree, so every per-track and
 * per-lane walk stays inside the arrays. Lanes written by the index tile
 * the slices in order, so the walk over the lanes checks each slice once;
 * only when they do not (a forged file) are all slices walked again. */
static bool slices_ok(const struct opener *o)
{
	const struct trex_index *idx = o->idx;
	uint64_t tiled = 0; /* the slices the lanes so far cover, when they tile */

	for (uint32_t l = 0; l < idx->nlanes; l++) {
		const struct trex_lane *lane = &idx->lanes[l];

		tiled = tiled == lane->first ? tiled + lane->count : UINT64_MAX;
		for (uint32_t i = lane->first; i < lane->first + lane->count; i++) {
			const struct trex_slice *s = trex_idx_slice(idx, i);

			if (s->track != lane->track || s->depth != lane->depth ||
			    !slice_ids_ok(o, s))
				return false;
		}
	}
	if (tiled == idx->slices.count)
		return true;
	for (uint32_t i = 0; i < idx->slices.count; i++)
		if (!slice_ids_ok(o, trex_idx_slice(idx, i)))
			return false;
	return true;
}

static bool instants_ok(const struct opener *o)
{
	const struct trex_index *idx = o->idx;

	for (uint32_t i = 0; i < idx->instants.count; i++) {
		const struct trex_instant *e =
		    TREX_VEC_AT(&idx->instants, const struct trex_instant, i);

		if (e->track >= idx->ntracks || !str_ok(o, e->name) || !str_ok(o, e->cat) ||
		    e->kind >= TREX_KIND_COUNT)
			return false;
	}
	return true;
}

static bool slice_or_none(const struct trex_index *idx, uint32_t id)
{
	return id == TREX_NONE || id < idx->slices.count;
}

static bool track_or_none(const struct trex_index *idx, uint32_t id)
{
	return id == TREX_NONE || id < idx->ntracks;
}

static bool ids_below(const uint32_t *ids, size_t n, uint64_t limit)
{
	for (size_t i = 0; i < n; i++)
		if (ids[i] >= limit)
			return false;
	return true;
}

static bool flows_ok(const struct opener *o)
{
	const struct trex_index *idx = o->idx;

	for (uint32_t i = 0; i < idx->flows.count; i++) {
		const struct trex_flow *f = trex_idx_flow(idx, i);

		if (!slice_or_none(idx, f->from_slice) || !slice_or_none(idx, f->to_slice) ||
		    !track_or_none(idx, f->from_track) || !track_or_none(idx, f->to_track) ||
		    !str_ok(o, f->cat) || !str_ok(o, f->name))
			return false;
	}
	for (uint32_t i = 0; i < idx->nedges; i++)
		if (idx->edges[i].from >= idx->slices.count ||
		    idx->edges[i].to >= idx->slices.count)
			return false;
	return ids_below(idx->flows_out, idx->flows.count, idx->flows.count) &&
	       ids_below(idx->flows_in, idx->flows.count, idx->flows.count) &&
	       ids_below(idx->edges_in, idx->nedges, idx->nedges);
}

static bool links_ok(const struct opener *o)
{
	const struct trex_index *idx = o->idx;
	const struct file_header *h = &o->f->head;

	for (uint32_t i = 0; i < idx->nfiles; i++) {
		const struct trex_file_links *l = &idx->links[i];

		if (!range_ok(l->first_track, l->track_count, idx->ntracks) ||
		    !range_ok(l->first_slice, l->slice_count, idx->slices.count) ||
		    !range_ok(l->launch_first, l->launch_count, h->nlaunch) ||
		    !range_ok(l->op_first, l->op_count, h->nop))
			return false;
	}
	return ids_below(idx->launch_ids, h->nlaunch, idx->slices.count) &&
	       ids_below(idx->op_ids, h->nop, idx->slices.count);
}

/* Side tables: the counts agree with the bits, which name slices only,
 * and the values are ids in range (shapes are strings, rules fit below
 * TREX_COMM_NONE). */
static bool side_ok(const struct opener *o, enum trex_side_field field)
{
	const struct trex_side_table *t = &o->idx->side[field];
	size_t tail = o->idx->slices.count % 64, n = 0;

	for (size_t w = 0; w < t->words; w++) {
		if (t->before[w] != n)
			return false;
		n += trex_popcount64(t->bits[w]);
	}
	if (n != t->n || (t->words && tail && t->bits[t->words - 1] >> tail))
		return false;
	for (size_t i = 0; i < t->n; i++)
		if ((field == TREX_SIDE_SHAPE && !str_ok(o, t->values[i])) ||
		    (field == TREX_SIDE_COMM && t->values[i] >= TREX_COMM_NONE))
			return false;
	return true;
}

static bool sides_ok(const struct opener *o)
{
	for (int f = 0; f < TREX_SIDE_COUNT; f++)
		if (!side_ok(o, (enum trex_side_field)f))
			return false;
	return true;
}

/* A problem's ids and text, and its bool as a byte (any other value would
 * be undefined behaviour to read as bool). */
static bool problem_ok(const struct opener *o, const struct trex_problem *p)
{
	unsigned char has_ts;

	memcpy(&has_ts, (const unsigned char *)p + offsetof(struct trex_problem, has_ts), 1);
	return p->counter < TREX_INTEG_COUNT && has_ts <= 1 && track_or_none(o->idx, p->track) &&
	       slice_or_none(o->idx, p->slice) && str_or_none(o, p->name) &&
	       memchr(p->what, '\0', sizeof(p->what));
}

static bool problem_list_ok(const struct opener *o, const struct trex_problem_list *l)
{
	unsigned char has_largest;

	memcpy(&has_largest,
	       (const unsigned char *)l + offsetof(struct trex_problem_list, has_largest), 1);
	if (has_largest > 1 || (has_largest && !problem_ok(o, &l->largest)) || l->first[0] != 0 ||
	    l->first[TREX_INTEG_COUNT] != l->n)
		return false;
	for (int k = 0; k < TREX_INTEG_COUNT; k++)
		if (l->first[k] > l->first[k + 1])
			return false;
	for (uint32_t i = 0; i < l->n; i++)
		if (!problem_ok(o, &l->v[i]))
			return false;
	return true;
}

/* ---- pointing the index into the mapping -------------------------------------------------------
 */

/* A blocked vector over count records at data, which it does not own:
 * only the block directory is allocated. */
static bool vec_borrow(struct trex_vec *v, uint32_t elem, const void *data, uint64_t count)
{
	size_t nblocks = (size_t)((count + TREX_VEC_BLOCK - 1) / TREX_VEC_BLOCK);

	trex_vec_init(v, elem);
	v->blocks = malloc((nblocks ? nblocks : 1) * sizeof(*v->blocks));
	if (!v->blocks)
		return false;
	for (size_t k = 0; k < nblocks; k++)
		v->blocks[k] = (unsigned char *)(uintptr_t)data + k * TREX_VEC_BLOCK * elem;
	v->count = v->cap = (size_t)count;
	v->nblocks = v->dir_cap = (uint32_t)nblocks;
	return true;
}

static enum trex_status point_strings(struct opener *o)
{
	const struct file_header *h = &o->f->head;
	struct trex_strtab_raw raw = {
	    .arena = section(o, SEC_STR_ARENA, h->str_arena, 1),
	    .arena_len = (size_t)h->str_arena,
	    .offs = section(o, SEC_STR_OFFS, (uint64_t)h->str_count + 1, sizeof(uint32_t)),
	    .count = h->str_count,
	    .slots = section(o, SEC_STR_SLOTS, h->str_slots, 8),
	    .nslots = h->str_slots,
	};

	if (!raw.arena || !raw.offs || !raw.slots || h->str_count == UINT32_MAX)
		return damaged(o, "string sizes");
	o->idx->strs = trex_strtab_borrow(&raw);
	o->nstr = h->str_count;
	return o->idx->strs ? TREX_OK : damaged(o, "strings");
}

/* The few per-file records are copied: the codec pointers are set again. */
static enum trex_status point_files(struct opener *o)
{
	struct trex_index *idx = o->idx;
	const struct trex_file *files = section(o, SEC_FILES, idx->nfiles, sizeof(*files));

	if (!files || !(idx->files = calloc(idx->nfiles ? idx->nfiles : 1, sizeof(*idx->files))))
		return files ? TREX_NOMEM : damaged(o, "file sizes");
	memcpy(idx->files, files, idx->nfiles * sizeof(*files));
	for (uint32_t i = 0; i < idx->nfiles; i++) {
		struct trex_file *f = &idx->files[i];

		f->codec = NULL;
		f->codec_ctx = NULL;
		f->first_problem.path[sizeof(f->first_problem.path) - 1] = '\0';
		f->first_problem.message[sizeof(f->first_problem.message) - 1] = '\0';
		if (f->first_problem.status >= TREX_STATUS_COUNT || !str_ok(o, f->path) ||
		    !str_ok(o, f->format) || !str_ok(o, f->dialect) ||
		    f->event_type_count > TREX_EVENT_TYPES_MAX)
			return damaged(o, "files");
		for (uint32_t k = 0; k < f->event_type_count; k++)
			if (!str_ok(o, f->event_types[k].label) ||
			    !str_ok(o, f->event_types[k].name))
				return damaged(o, "files");
	}
	return TREX_OK;
}

/* A side table in its section: nothing, or the bits and counts for
 * every slice and at least one value. */
static bool point_side(struct opener *o, struct trex_side_table *t, const struct section *s)
{
	size_t words = trex_side_words((size_t)o->f->head.nslices);
	size_t head = words * (sizeof(*t->bits) + sizeof(*t->before));
	const unsigned char *at = o->f->data + s->offset;

	*t = (struct trex_side_table){0};
	if (s->length == 0)
		return true;
	if (s->length <= head || (s->length - head) % sizeof(*t->values))
		return false;
	t->words = words;
	t->n = (size_t)(s->length - head) / sizeof(*t->values);
	t->bits = (uint64_t *)(uintptr_t)at;
	t->before = (uint32_t *)(uintptr_t)(at + words * sizeof(*t->bits));
	t->values = (uint32_t *)(uintptr_t)(at + head);
	return true;
}

static enum trex_status point_arrays(struct opener *o)
{
	struct trex_index *idx = o->idx;
	const struct file_header *h = &o->f->head;
	const void *slices = section(o, SEC_SLICES, h->nslices, sizeof(struct trex_slice));
	const void *instants = section(o, SEC_INSTANTS, h->ninstants, sizeof(struct trex_instant));
	const void *flows = section(o, SEC_FLOWS, h->nflows, sizeof(struct trex_flow));

	idx->links = (void *)(uintptr_t)section(o, SEC_LINKS, h->nfiles, sizeof(*idx->links));
	idx->procs = (void *)(uintptr_t)section(o, SEC_PROCS, h->nprocs, sizeof(*idx->procs));
	idx->tracks = (void *)(uintptr_t)section(o, SEC_TRACKS, h->ntracks, sizeof(*idx->tracks));
	idx->lanes = (void *)(uintptr_t)section(o, SEC_LANES, h->nlanes, sizeof(*idx->lanes));
	idx->samples =
	    (void *)(uintptr_t)section(o, SEC_SAMPLES, h->nsamples, sizeof(*idx->samples));
	idx->launch_ids =
	    (void *)(uintptr_t)section(o, SEC_LAUNCH_IDS, h->nlaunch, sizeof(uint32_t));
	idx->op_ids = (void *)(uintptr_t)section(o, SEC_OP_IDS, h->nop, sizeof(uint32_t));
	idx->flows_out = (void *)(uintptr_t)section(o, SEC_FLOWS_OUT, h->nflows, sizeof(uint32_t));
	idx->flows_in = (void *)(uintptr_t)section(o, SEC_FLOWS_IN, h->nflows, sizeof(uint32_t));
	idx->edges = (void *)(uintptr_t)section(o, SEC_EDGES, h->nedges, sizeof(*idx->edges));
	idx->edges_in = (void *)(uintptr_t)section(o, SEC_EDGES_IN, h->nedges, sizeof(uint32_t));
	idx->launch_keys =
	    (void *)(uintptr_t)section(o, SEC_LAUNCH_KEYS, h->nlaunch, sizeof(uint64_t));
	if (o->f->sec[SEC_FLOW_ID_HOW].length) { /* else no flow ids were kept */
		idx->flow_id_val =
		    (void *)(uintptr_t)section(o, SEC_FLOW_ID_VAL, h->nflows, sizeof(uint64_t));
		idx->flow_id_how = (void *)(uintptr_t)section(o, SEC_FLOW_ID_HOW, h->nflows, 1);
		if (!idx->flow_id_val || !idx->flow_id_how)
			return damaged(o, "flow ids");
	}
	if (!idx->launch_keys)
		return damaged(o, "link keys");
	if (!slices || !instants || !flows || !idx->links || !idx->procs || !idx->tracks ||
	    !idx->lanes || !idx->samples || !idx->launch_ids || !idx->op_ids || !idx->flows_out ||
	    !idx->flows_in || !idx->edges || !idx->edges_in || h->nslices >= TREX_NONE ||
	    h->ninstants >= TREX_NONE || h->nflows >= TREX_NONE)
		return damaged(o, "array sizes");
	for (int f = 0; f < TREX_SIDE_COUNT; f++)
		if (!point_side(o, &idx->side[f], &o->f->sec[SEC_SIDE_FIRST + f]))
			return damaged(o, "side table sizes");
	if (!vec_borrow(&idx->slices, sizeof(struct trex_slice), slices, h->nslices) ||
	    !vec_borrow(&idx->instants, sizeof(struct trex_instant), instants, h->ninstants) ||
	    !vec_borrow(&idx->flows, sizeof(struct trex_flow), flows, h->nflows))
		return TREX_NOMEM;
	return TREX_OK;
}

static enum trex_status point_problems(struct opener *o)
{
	struct trex_index *idx = o->idx;
	const struct file_header *h = &o->f->head;
	const struct trex_problem_list *heads =
	    section(o, SEC_PROBLEM_HEADS, h->nfiles, sizeof(*heads));
	const struct trex_problem *v = section(o, SEC_PROBLEMS, h->nproblems, sizeof(*v));
	uint64_t at = 0;

	if (!heads || !v)
		return damaged(o, "integrity example sizes");
	if (!(idx->problems = calloc(idx->nfiles ? idx->nfiles : 1, sizeof(*idx->problems))))
		return TREX_NOMEM;
	for (uint32_t i = 0; i < idx->nfiles; i++) {
		struct trex_problem_list *l = &idx->problems[i];

		memcpy(l, &heads[i], sizeof(*l));
		if (l->n > h->nproblems - at)
			return damaged(o, "integrity examples");
		l->v = (struct trex_problem *)(uintptr_t)(v + at);
		l->cap = 0;
		at += l->n;
		if (!problem_list_ok(o, l))
			return damaged(o, "integrity examples");
	}
	return at == h->nproblems ? TREX_OK : damaged(o, "integrity examples");
}

static enum trex_status reopen_codecs(struct opener *o, trex_index_file_reopen_fn *reopen,
                                      void *user)
{
	struct trex_index *idx = o->idx;
	const struct codec_entry *e = section(o, SEC_CODECS, idx->nfiles, sizeof(*e));
	const struct section *data = &o->f->sec[SEC_CODEC_DATA];

	if (!e)
		return damaged(o, "codec table");
	for (uint32_t i = 0; i < idx->nfiles; i++) {
		char name[CODEC_NAME_MAX];
		enum trex_status st;

		memcpy(name, e[i].name, sizeof(name));
		name[sizeof(name) - 1] = '\0';
		if (!range_ok(e[i].offset, e[i].length, data->length) || e[i].offset % 8)
			return damaged(o, "codec table");
		if (!name[0] || !reopen)
			continue;
		st = reopen(user, trex_index_str(idx, idx->files[i].path), name,
		            o->f->data + data->offset + e[i].offset, (size_t)e[i].length,
		            &idx->files[i].codec, &idx->files[i].codec_ctx, o->err);
		if (st != TREX_OK)
			return st;
	}
	return TREX_OK;
}

static enum trex_status verify_checksums(struct opener *o)
{
	for (int i = 0; i < SEC_COUNT; i++) {
		const struct section *s = &o->f->sec[i];

		if (!trex_index_file_checksum_ok(
		        trex_index_file_checksum(o->f->data + s->offset, s->length), s->checksum))
			return damaged(o, "checksum");
	}
	return TREX_OK;
}

/* Copies each file's members out of SEC_MEMBERS (a few small texts: the
 * index owns them, as it owns the files). */
static enum trex_status point_members(struct opener *o)
{
	struct trex_index *idx = o->idx;
	const struct section *s = &o->f->sec[SEC_MEMBERS];
	const unsigned char *p = o->f->data + s->offset, *end = p + s->length;

	idx->members = calloc(idx->nfiles ? idx->nfiles : 1, sizeof(*idx->members));
	if (!idx->members)
		return TREX_NOMEM;
	for (uint32_t i = 0; i < idx->nfiles; i++) {
		uint64_t n, len, rec[5];
		const unsigned char *recs, *text;

		if ((size_t)(end - p) < 2 * sizeof(uint64_t))
			return damaged(o, "members");
		memcpy(&n, p, sizeof(n));
		memcpy(&len, p + sizeof(n), sizeof(len));
		p += 2 * sizeof(uint64_t);
		if (n > (uint64_t)(end - p) / sizeof(rec))
			return damaged(o, "members");
		recs = p;
		p += n * sizeof(rec);
		if (len > (uint64_t)(end - p) || (8 - len % 8) % 8 > (uint64_t)(end - p) - len)
			return damaged(o, "members");
		text = p;
		p += len + (8 - len % 8) % 8;
		for (uint64_t k = 0; k < n; k++) {
			struct trex_file_member m;

			memcpy(rec, recs + k * sizeof(rec), sizeof(rec));
			if (rec[0] > len || rec[1] > len - rec[0] || rec[2] > len ||
			    rec[3] > len - rec[2] || rec[4] > 1)
				return damaged(o, "members");
			m = (struct trex_file_member){(const char *)text + rec[0], rec[1],
			                              (const char *)text + rec[2], rec[3],
			                              rec[4] != 0};
			if (!trex_members_add(&idx->members[i], &m))
				return TREX_NOMEM;
		}
	}
	return p == end ? TREX_OK : damaged(o, "members");
}

static enum trex_status point_index(struct opener *o)
{
	struct trex_index *idx = o->idx;
	const struct file_header *h = &o->f->head;
	enum trex_status st;

	idx->nfiles = h->nfiles;
	idx->nprocs = h->nprocs;
	idx->ntracks = h->ntracks;
	idx->nlanes = h->nlanes;
	idx->nsamples = h->nsamples;
	idx->nedges = h->nedges;
	idx->start = h->start;
	idx->end = h->end;
	if ((st = verify_checksums(o)) != TREX_OK || (st = point_strings(o)) != TREX_OK ||
	    (st = point_files(o)) != TREX_OK || (st = point_arrays(o)) != TREX_OK)
		return st;
	if (!links_ok(o) || !procs_ok(o) || !lanes_ok(o))
		return damaged(o, "tracks");
	if (!slices_ok(o) || !sides_ok(o) || !instants_ok(o) || !flows_ok(o))
		return damaged(o, "events");
	if ((st = point_members(o)) != TREX_OK)
		return st;
	return point_problems(o);
}

enum trex_status trex_index_file_load(struct trex_index_file *f, trex_index_file_reopen_fn *reopen,
                                      void *user, struct trex_index **out, struct trex_error *err)
{
	struct opener o = {.f = f, .err = err};
	enum trex_status st;

	*out = NULL;
	if (!(o.idx = calloc(1, sizeof(*o.idx)))) {
		trex_index_file_close(f);
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	}
	o.idx->mapped = f;
	st = point_index(&o);
	if (st == TREX_OK)
		st = reopen_codecs(&o, reopen, user);
	if (st != TREX_OK) {
		if (st == TREX_NOMEM && err->status == TREX_OK)
			trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
		trex_index_free(o.idx);
		return st;
	}
	*out = o.idx;
	return TREX_OK;
}

void trex_index_file_release(struct trex_index *idx)
{
	for (uint32_t i = 0; idx->files && i < idx->nfiles; i++)
		if (idx->files[i].codec && idx->files[i].codec_ctx)
			idx->files[i].codec->close(idx->files[i].codec_ctx);
	trex_strtab_free(idx->strs);
	free(idx->files);
	free(idx->slices.blocks);
	free(idx->instants.blocks);
	free(idx->flows.blocks);
	free(idx->problems);
	for (uint32_t i = 0; idx->members && i < idx->nfiles; i++)
		trex_members_free(&idx->members[i]);
	free(idx->members);
	trex_index_file_close(idx->mapped);
	free(idx);
}

enum trex_status trex_index_rename_file(struct trex_index *idx, uint32_t file, const char *path,
                                        struct trex_error *err)
{
	struct trex_file *f = file < idx->nfiles ? &idx->files[file] : NULL;
	const char *old;
	uint32_t id;

	if (!f)
		return trex_error_set(err, TREX_USAGE, NULL, -1, "no file %u in the index", file);
	old = trex_index_str(idx, f->path);
	if (strcmp(f->first_problem.path, old) == 0)
		snprintf(f->first_problem.path, sizeof(f->first_problem.path), "%s", path);
	id = trex_strtab_intern(idx->strs, path, strlen(path));
	if (id == TREX_STR_ERROR)
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	f->path = id;
	return TREX_OK;
}
