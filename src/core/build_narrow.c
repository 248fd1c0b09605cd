/* Between stages 3 and 4: the placed slices narrowed into the index's
 * struct trex_slice, and what only some of them have into side tables
 * (build_internal.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "build_internal.h"

/* Room for n values, written before they are read (so not zeroed). */
static bool side_room(struct bld_side *s, size_t n)
{
	uint32_t *v = realloc(s->t->values, n * sizeof(*v));

	if (!v)
		return false;
	s->t->values = v;
	s->cap = n;
	return true;
}

void bld_side_start(struct bld_side *s, struct trex_side_table *t, size_t nslices, size_t expect)
{
	*s = (struct bld_side){t, nslices, 0, false};
	if (expect && !side_room(s, expect))
		s->failed = true;
}

void bld_side_push_slow(struct bld_side *s, uint32_t slice, uint32_t value)
{
	struct trex_side_table *t = s->t;

	if (s->failed)
		return;
	/* the bits only once a value comes: a table without any has none */
	if (!t->bits && !(t->bits = calloc(trex_side_words(s->nslices), sizeof(*t->bits)))) {
		s->failed = true;
		return;
	}
	if (t->n == s->cap && !side_room(s, s->cap ? 2 * s->cap : 1024)) {
		s->failed = true;
		return;
	}
	bld_side_push(s, slice, value);
}

bool bld_side_finish(struct bld_side *s)
{
	struct trex_side_table *t = s->t;
	uint32_t *values;
	size_t n = 0;

	if (s->failed)
		return false;
	if (!t->n) {
		free(t->values);
		t->values = NULL;
		return true;
	}
	t->words = trex_side_words(s->nslices);
	if (!(t->before = malloc(t->words * sizeof(*t->before))))
		return false;
	for (size_t w = 0; w < t->words; w++) {
		t->before[w] = (uint32_t)n;
		n += trex_popcount64(t->bits[w]);
	}
	values = realloc(t->values, t->n * sizeof(*values));
	if (values) /* else it keeps its spare room */
		t->values = values;
	return true;
}

static void narrow_one(const struct trex_bslice *w, uint32_t id, struct trex_slice *out,
                       struct bld_side *fill)
{
	if (w->flags & TREX_SLICE_HAS_LAUNCH_LINK)
		bld_side_push(&fill[TREX_SIDE_LAUNCH_LINK], id, w->launch_link);
	if (w->flags & TREX_SLICE_HAS_OP_LINK)
		bld_side_push(&fill[TREX_SIDE_OP_LINK], id, w->op_link);
	if (w->shape)
		bld_side_push(&fill[TREX_SIDE_SHAPE], id, w->shape);
	*out = (struct trex_slice){
	    .ts = w->ts,
	    .dur = w->dur,
	    .name = w->name,
	    .cat = w->cat,
	    .track = w->track,
	    .depth = w->depth,
	    .flags = (uint8_t)w->flags,
	    .kind = w->kind,
	    .args = w->args,
	};
}

/* The block's records rewritten in place, front to back: record i's new
 * place ends before record i + 1's old one begins, and record i itself is
 * read whole before its place is written. */
static void narrow_block(unsigned char *block, size_t n, uint32_t first, struct bld_side *fill)
{
	for (size_t i = 0; i < n; i++) {
		struct trex_bslice w;

		memcpy(&w, block + i * sizeof(w), sizeof(w));
		narrow_one(&w, first + (uint32_t)i, (struct trex_slice *)(void *)block + i, fill);
	}
}

enum trex_status bld_narrow(struct bld *c)
{
	struct trex_index *idx = c->idx;
	struct trex_vec *v = &idx->slices;
	struct bld_side fill[TREX_SIDE_SHAPE + 1];
	size_t launch = 0, op = 0;
	bool ok = true;

	_Static_assert(sizeof(struct trex_slice) <= sizeof(struct trex_bslice),
	               "slices narrow in place");
	/* the links the merge counted: their tables never grow by doubling */
	for (uint32_t i = 0; i < idx->nfiles; i++) {
		launch += idx->links[i].launch_count;
		op += idx->links[i].op_count;
	}
	bld_side_start(&fill[TREX_SIDE_LAUNCH_LINK], &idx->side[TREX_SIDE_LAUNCH_LINK], v->count,
	               launch);
	bld_side_start(&fill[TREX_SIDE_OP_LINK], &idx->side[TREX_SIDE_OP_LINK], v->count, op);
	bld_side_start(&fill[TREX_SIDE_SHAPE], &idx->side[TREX_SIDE_SHAPE], v->count, 0);
	for (size_t at = 0; at < v->count; at += TREX_VEC_BLOCK) {
		size_t n = v->count - at < TREX_VEC_BLOCK ? v->count - at : TREX_VEC_BLOCK;

		narrow_block(v->blocks[at >> TREX_VEC_SHIFT], n, (uint32_t)at, fill);
	}
	trex_vec_narrow(v, sizeof(struct trex_slice));
	for (int f = 0; f <= TREX_SIDE_SHAPE; f++)
		ok &= bld_side_finish(&fill[f]);
	return ok ? TREX_OK : bld_nomem(c);
}
