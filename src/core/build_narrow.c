/* Between stages 3 and 4: the placed slices narrowed into the index's
 * struct trex_slice, and what only some of them have into side tables
 * (build_internal.h). */
#include "config.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "build_internal.h"
#include "trex/core/grow.h"
#include "trex/core/task.h"

void bld_side_start(struct bld_side *s, struct trex_side_table *t, size_t nslices)
{
	*s = (struct bld_side){t, nslices, 0, false};
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
	uint32_t *v = trex_grow(t->values, &s->cap, t->n + 1, sizeof(*v), 1024);

	if (!v) {
		s->failed = true;
		return;
	}
	t->values = v;
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

#define SIDE_KINDS (TREX_SIDE_SHAPE + 1) /* the tables the narrowing fills */

/* One block's side values, in slice order: a task's output, joined in
 * block order afterwards so the tables do not depend on the threads. */
struct narrow_out {
	uint32_t *values[SIDE_KINDS];
	uint32_t n[SIDE_KINDS];
};

struct narrow_job {
	struct trex_vec *v;
	struct trex_side_table *side; /* idx->side: bits set by the tasks */
	struct narrow_out *out;       /* per block */
	uint32_t *scratch;            /* per worker: SIDE_KINDS x TREX_VEC_BLOCK */
	atomic_bool failed;
};

/* Slice id's value of side table f: its bit, and the value after the block's. */
static inline void narrow_put(struct trex_side_table *side, uint32_t *const vals[SIDE_KINDS],
                              uint32_t n[SIDE_KINDS], int f, uint32_t id, uint32_t value)
{
	side[f].bits[id / 64] |= UINT64_C(1) << (id % 64);
	vals[f][n[f]++] = value;
}

static void narrow_one(const struct trex_bslice *w, uint32_t id, struct trex_slice *out,
                       struct trex_side_table *side, uint32_t *const vals[SIDE_KINDS],
                       uint32_t n[SIDE_KINDS])
{
	if (w->flags & TREX_SLICE_HAS_LAUNCH_LINK)
		narrow_put(side, vals, n, TREX_SIDE_LAUNCH_LINK, id, w->launch_link);
	if (w->flags & TREX_SLICE_HAS_OP_LINK)
		narrow_put(side, vals, n, TREX_SIDE_OP_LINK, id, w->op_link);
	if (w->shape)
		narrow_put(side, vals, n, TREX_SIDE_SHAPE, id, w->shape);
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

/* Task: block k's records rewritten in place, front to back (record i's new
 * place ends before record i + 1's old one begins, and record i itself is
 * read whole before its place is written); its side values set in the
 * shared bits (a block is whole words of them) and copied out. */
static void narrow_task(void *arg, size_t k, unsigned worker)
{
	struct narrow_job *j = arg;
	unsigned char *block = j->v->blocks[k];
	size_t first = k << TREX_VEC_SHIFT;
	size_t n = j->v->count - first < TREX_VEC_BLOCK ? j->v->count - first : TREX_VEC_BLOCK;
	uint32_t *vals[SIDE_KINDS];
	struct narrow_out *o = &j->out[k];

	for (int f = 0; f < SIDE_KINDS; f++)
		vals[f] = j->scratch + ((size_t)worker * SIDE_KINDS + (size_t)f) * TREX_VEC_BLOCK;
	for (size_t i = 0; i < n; i++) {
		struct trex_bslice w;

		memcpy(&w, block + i * sizeof(w), sizeof(w));
		narrow_one(&w, (uint32_t)(first + i), (struct trex_slice *)(void *)block + i,
		           j->side, vals, o->n);
	}
	for (int f = 0; f < SIDE_KINDS; f++) {
		if (!o->n[f])
			continue;
		o->values[f] = malloc(o->n[f] * sizeof(uint32_t));
		if (!o->values[f]) {
			atomic_store(&j->failed, true);
			return;
		}
		memcpy(o->values[f], vals[f], o->n[f] * sizeof(uint32_t));
	}
}

/* The blocks' values of table f joined in block order; a table without
 * any loses its bits (as one that never had a value). */
static bool narrow_join(struct narrow_job *j, size_t nblocks, int f, size_t nslices)
{
	struct trex_side_table *t = &j->side[f];
	struct bld_side s = {t, nslices, 0, false};
	size_t total = 0;

	for (size_t k = 0; k < nblocks; k++)
		total += j->out[k].n[f];
	if (!total) {
		free(t->bits);
		t->bits = NULL;
		return true;
	}
	if (!(t->values = malloc(total * sizeof(*t->values))))
		return false;
	for (size_t k = 0; k < nblocks; k++) {
		if (!j->out[k].n[f])
			continue; /* its values are NULL */
		memcpy(t->values + t->n, j->out[k].values[f], j->out[k].n[f] * sizeof(*t->values));
		t->n += j->out[k].n[f];
	}
	s.cap = total;
	return bld_side_finish(&s);
}

enum trex_status bld_narrow(struct bld *c)
{
	struct trex_index *idx = c->idx;
	struct trex_vec *v = &idx->slices;
	size_t nblocks = (v->count + TREX_VEC_BLOCK - 1) / TREX_VEC_BLOCK;
	unsigned workers = trex_task_workers(bld_threads(c, v->count), nblocks);
	struct narrow_job j = {.v = v, .side = idx->side};
	bool ok = true;

	_Static_assert(sizeof(struct trex_slice) <= sizeof(struct trex_bslice),
	               "slices narrow in place");
	_Static_assert(TREX_VEC_BLOCK % 64 == 0, "a block is whole words of side bits");
	atomic_init(&j.failed, false);
	j.out = calloc(nblocks ? nblocks : 1, sizeof(*j.out));
	j.scratch = malloc((size_t)workers * SIDE_KINDS * TREX_VEC_BLOCK * sizeof(*j.scratch));
	for (int f = 0; f < SIDE_KINDS && j.out && j.scratch; f++) {
		if (!(idx->side[f].bits =
		          calloc(v->count ? trex_side_words(v->count) : 1, sizeof(uint64_t))))
			ok = false;
	}
	if (ok && j.out && j.scratch) {
		trex_task_run(workers, nblocks, narrow_task, &j);
		trex_vec_narrow(v, sizeof(struct trex_slice));
		for (int f = 0; f < SIDE_KINDS && !atomic_load(&j.failed); f++)
			ok &= narrow_join(&j, nblocks, f, v->count);
	}
	ok = ok && j.out && j.scratch && !atomic_load(&j.failed);
	for (size_t k = 0; j.out && k < nblocks; k++) {
		for (int f = 0; f < SIDE_KINDS; f++)
			free(j.out[k].values[f]);
	}
	free(j.out);
	free(j.scratch);
	return ok ? TREX_OK : bld_nomem(c);
}
