#include "config.h"

#include "timeline_rows.h"

#include <stdlib.h>
#include <string.h>

#include "trex/analysis/search.h"
#include "trex/core/grow.h"
#include "trex/ui/layout.h"

static bool push(struct tl_rows *r, enum tl_row_kind kind, uint32_t id)
{
	struct tl_row *v = trex_grow(r->v, &r->cap, r->n + 1, sizeof(*v), 64);

	if (!v)
		return false;
	r->v = v;
	r->v[r->n++] = (struct tl_row){(uint8_t)kind, id};
	return true;
}

static bool lane_shown(const struct tl_rows *r, uint32_t lane)
{
	uint32_t n = 1;

	if (r->filter)
		trex_search_lane(r->filter, lane, &n);
	return n > 0;
}

static bool push_track(struct tl_rows *r, uint32_t id, const struct trex_track *t)
{
	if (t->kind == TREX_TRACK_COUNTER)
		return r->filter || t->sample_count == 0 || push(r, TL_ROW_COUNTER, id);
	for (uint32_t l = 0; l < t->lane_count; l++)
		if (lane_shown(r, t->first_lane + l) && !push(r, TL_ROW_LANE, t->first_lane + l))
			return false;
	/* instants never match a filter (they are not slices) */
	return r->filter || t->instant_count == 0 || push(r, TL_ROW_INSTANTS, id);
}

/* Under a filter, a process without a match has no row at all. */
static bool process_shown(const struct tl_rows *r, const struct trex_process *proc)
{
	if (!r->filter)
		return true;
	for (uint32_t t = 0; t < proc->track_count; t++)
		if (trex_search_track_has_match(r->filter, proc->first_track + t))
			return true;
	return false;
}

static bool push_process(struct tl_rows *r, const struct trex_index *idx, uint32_t p)
{
	const struct trex_process *proc = trex_index_process(idx, p);

	if (!process_shown(r, proc))
		return true;
	if (!push(r, TL_ROW_PROCESS, p))
		return false;
	if (r->process_collapsed[p])
		return true;
	for (uint32_t t = 0; t < proc->track_count; t++)
		if (!push_track(r, proc->first_track + t, trex_index_track(idx, proc->first_track + t)))
			return false;
	return true;
}

bool tl_rows_build(struct tl_rows *r, const struct trex_index *idx)
{
	uint32_t np = trex_index_process_count(idx);

	r->n = 0;
	for (uint32_t p = 0; p < np; p++) {
		uint32_t file = trex_index_process(idx, p)->file;

		if (p == 0 || trex_index_process(idx, p - 1)->file != file)
			if (!push(r, TL_ROW_FILE, file))
				return false;
		if (!r->file_collapsed[file] && !push_process(r, idx, p))
			return false;
	}
	return true;
}

bool tl_rows_init(struct tl_rows *r, const struct trex_index *idx)
{
	memset(r, 0, sizeof(*r));
	r->file_collapsed = calloc(trex_index_file_count(idx) + 1, sizeof(bool));
	r->process_collapsed = calloc(trex_index_process_count(idx) + 1, sizeof(bool));
	r->counter_min = calloc(trex_index_track_count(idx) + 1, sizeof(double));
	r->counter_max = calloc(trex_index_track_count(idx) + 1, sizeof(double));
	if (!r->file_collapsed || !r->process_collapsed || !r->counter_min || !r->counter_max)
		return false;
	/* once per view: the sparkline scale of every series */
	for (uint32_t t = 0; t < trex_index_track_count(idx); t++)
		if (trex_index_track(idx, t)->kind == TREX_TRACK_COUNTER)
			trex_counter_range(idx, t, &r->counter_min[t], &r->counter_max[t]);
	return tl_rows_build(r, idx);
}

void tl_rows_free(struct tl_rows *r)
{
	free(r->v);
	free(r->file_collapsed);
	free(r->process_collapsed);
	free(r->counter_min);
	free(r->counter_max);
	memset(r, 0, sizeof(*r));
}

size_t tl_rows_find(const struct tl_rows *r, enum tl_row_kind kind, uint32_t id)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->v[i].kind == kind && r->v[i].id == id)
			return i;
	return 0;
}

size_t tl_rows_lookup(const struct tl_rows *r, enum tl_row_kind kind, uint32_t id)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->v[i].kind == kind && r->v[i].id == id)
			return i;
	return r->n;
}
