#include "config.h"

#include "timeline_rows.h"

#include <stdlib.h>
#include <string.h>

#include "trex/core/grow.h"

static bool push(struct tl_rows *r, enum tl_row_kind kind, uint32_t id)
{
	struct tl_row *v = trex_grow(r->v, &r->cap, r->n + 1, sizeof(*v), 64);

	if (!v)
		return false;
	r->v = v;
	r->v[r->n++] = (struct tl_row){(uint8_t)kind, id};
	return true;
}

static bool push_track(struct tl_rows *r, const struct trex_track *t)
{
	if (t->kind == TREX_TRACK_COUNTER)
		return true; /* counters are not drawn yet */
	for (uint32_t l = 0; l < t->lane_count; l++)
		if (!push(r, TL_ROW_LANE, t->first_lane + l))
			return false;
	return true;
}

static bool push_process(struct tl_rows *r, const struct trex_index *idx, uint32_t p)
{
	const struct trex_process *proc = trex_index_process(idx, p);

	if (!push(r, TL_ROW_PROCESS, p))
		return false;
	if (r->process_collapsed[p])
		return true;
	for (uint32_t t = 0; t < proc->track_count; t++)
		if (!push_track(r, trex_index_track(idx, proc->first_track + t)))
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
	if (!r->file_collapsed || !r->process_collapsed)
		return false;
	return tl_rows_build(r, idx);
}

void tl_rows_free(struct tl_rows *r)
{
	free(r->v);
	free(r->file_collapsed);
	free(r->process_collapsed);
	memset(r, 0, sizeof(*r));
}

size_t tl_rows_find(const struct tl_rows *r, enum tl_row_kind kind, uint32_t id)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->v[i].kind == kind && r->v[i].id == id)
			return i;
	return 0;
}
