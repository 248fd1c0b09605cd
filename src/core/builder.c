#include "config.h"

#include "trex/core/builder.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "builder_internal.h"

/* ---- large arrays ------------------------------------------------------------------ */

#define HUGE_PAGE ((uintptr_t)2 << 20)

void *trex_big_malloc(size_t n)
{
	void *p = malloc(n);

#ifdef MADV_HUGEPAGE
	if (p && n >= 2 * HUGE_PAGE) {
		uintptr_t lo = ((uintptr_t)p + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
		uintptr_t hi = ((uintptr_t)p + n) & ~(HUGE_PAGE - 1);

		/* advice only: where it is refused, pages are small */
		if (lo < hi)
			(void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
	}
#endif
	return p;
}

/* ---- blocked vectors ------------------------------------------------------------ */

#define VEC_FIRST 64u

void trex_vec_init(struct trex_vec *v, uint32_t elem)
{
	memset(v, 0, sizeof(*v));
	v->elem = elem;
}

void trex_vec_free(struct trex_vec *v)
{
	for (uint32_t k = 0; k < v->nblocks; k++)
		free(v->blocks[k]);
	free(v->blocks);
	trex_vec_init(v, v->elem);
}

static bool vec_grow_block0(struct trex_vec *v)
{
	size_t n = v->cap ? v->cap * 2 : VEC_FIRST;
	unsigned char *b;

	if (n > TREX_VEC_BLOCK)
		n = TREX_VEC_BLOCK;
	if (!v->blocks) {
		v->blocks = malloc(4 * sizeof(*v->blocks));
		if (!v->blocks)
			return false;
		v->dir_cap = 4;
	}
	b = realloc(v->nblocks ? v->blocks[0] : NULL, n * v->elem);
	if (!b)
		return false;
	v->blocks[0] = b;
	v->nblocks = 1;
	v->cap = n;
	return true;
}

bool trex_vec_reserve(struct trex_vec *v, size_t n)
{
	unsigned char *b;

	if (v->nblocks || n == 0)
		return true;
	n = n < TREX_VEC_BLOCK ? n : TREX_VEC_BLOCK;
	v->blocks = malloc(4 * sizeof(*v->blocks));
	b = malloc(n * v->elem);
	if (!v->blocks || !b) {
		free(v->blocks);
		free(b);
		v->blocks = NULL;
		return false;
	}
	v->dir_cap = 4;
	v->blocks[0] = b;
	v->nblocks = 1;
	v->cap = n;
	return true;
}

static bool vec_add_block(struct trex_vec *v)
{
	if (v->nblocks == v->dir_cap) {
		unsigned char **dir = realloc(v->blocks, 2 * v->dir_cap * sizeof(*dir));

		if (!dir)
			return false;
		v->blocks = dir;
		v->dir_cap *= 2;
	}
	v->blocks[v->nblocks] = malloc(TREX_VEC_BLOCK * v->elem);
	if (!v->blocks[v->nblocks])
		return false;
	v->nblocks++;
	v->cap += TREX_VEC_BLOCK;
	return true;
}

void *trex_vec_grow(struct trex_vec *v)
{
	bool ok = v->cap < TREX_VEC_BLOCK ? vec_grow_block0(v) : vec_add_block(v);

	if (!ok)
		return NULL;
	return trex_vec_at(v, v->count++);
}

bool trex_vec_adopt(struct trex_vec *dst, struct trex_vec *src)
{
	unsigned char **dir;

	/* dst must end exactly at a block boundary with no spare room, and
	 * src's block 0 must be full-size unless it becomes dst's block 0. */
	if (src->count == 0 || dst->count != dst->cap || (dst->count & TREX_VEC_MASK) != 0 ||
	    (dst->count && src->cap < TREX_VEC_BLOCK) || dst->elem != src->elem)
		return false;
	if (dst->nblocks + src->nblocks > dst->dir_cap) {
		uint32_t cap = dst->dir_cap ? dst->dir_cap : 4;

		while (cap < dst->nblocks + src->nblocks)
			cap *= 2;
		dir = realloc(dst->blocks, cap * sizeof(*dir));
		if (!dir)
			return false;
		dst->blocks = dir;
		dst->dir_cap = cap;
	}
	memcpy(dst->blocks + dst->nblocks, src->blocks, src->nblocks * sizeof(*dir));
	dst->nblocks += src->nblocks;
	dst->count += src->count;
	dst->cap += src->cap;
	free(src->blocks);
	trex_vec_init(src, src->elem);
	return true;
}

size_t trex_vec_take_full_blocks(struct trex_vec *dst, struct trex_vec *src, bool *ok)
{
	uint32_t full = (uint32_t)(src->count >> TREX_VEC_SHIFT);

	*ok = true;
	/* Block 0 reaches full size before block 1 exists, so full blocks are
	 * exactly the first count / TREX_VEC_BLOCK. */
	if (full == 0 || src->cap < TREX_VEC_BLOCK || dst->count != dst->cap ||
	    (dst->count & TREX_VEC_MASK) != 0 || dst->elem != src->elem)
		return 0;
	if (dst->nblocks + full > dst->dir_cap) {
		uint32_t cap = dst->dir_cap ? dst->dir_cap : 4;
		unsigned char **dir;

		while (cap < dst->nblocks + full)
			cap *= 2;
		dir = realloc(dst->blocks, cap * sizeof(*dir));
		if (!dir) {
			*ok = false;
			return 0;
		}
		dst->blocks = dir;
		dst->dir_cap = cap;
	}
	for (uint32_t k = 0; k < full; k++) {
		dst->blocks[dst->nblocks++] = src->blocks[k];
		src->blocks[k] = NULL;
	}
	dst->count += (size_t)full << TREX_VEC_SHIFT;
	dst->cap = dst->count;
	return (size_t)full << TREX_VEC_SHIFT;
}

void trex_vec_release_block(struct trex_vec *v, uint32_t k)
{
	free(v->blocks[k]);
	v->blocks[k] = NULL;
}

void trex_vec_shrink(struct trex_vec *v)
{
	size_t used, last;
	unsigned char *b;

	if (!v->nblocks || v->count == v->cap)
		return;
	last = v->count ? (v->count - 1) >> TREX_VEC_SHIFT : 0;
	/* Whole blocks past the end go first, then the tail of the last one. */
	while (v->nblocks > last + 1) {
		free(v->blocks[--v->nblocks]);
		v->cap -= TREX_VEC_BLOCK;
	}
	used = v->count - (last << TREX_VEC_SHIFT);
	if (used == 0)
		used = 1;
	b = realloc(v->blocks[last], used * v->elem);
	if (!b)
		return;
	v->blocks[last] = b;
	v->cap = (last << TREX_VEC_SHIFT) + used;
}

size_t trex_vec_memory(const struct trex_vec *v)
{
	return v->cap * v->elem + v->dir_cap * sizeof(*v->blocks);
}

void trex_vec_permute(struct trex_vec *v, uint32_t *perm)
{
	unsigned char tmp[128];

	for (size_t i = 0; i < v->count; i++) {
		size_t j = i;

		if (perm[i] == i)
			continue;
		memcpy(tmp, trex_vec_at(v, i), v->elem);
		while (perm[j] != i) {
			size_t k = perm[j];

			memcpy(trex_vec_at(v, j), trex_vec_at(v, k), v->elem);
			perm[j] = (uint32_t)j;
			j = k;
		}
		memcpy(trex_vec_at(v, j), tmp, v->elem);
		perm[j] = (uint32_t)j;
	}
}

/* ---- fixed-key hash map ------------------------------------------------------------ */

void trex_kmap_free(struct trex_kmap *m)
{
	free(m->e);
	memset(m, 0, sizeof(*m));
}

void trex_kmap_clear(struct trex_kmap *m)
{
	if (m->e)
		memset(m->e, 0xff, ((size_t)m->mask + 1) * sizeof(*m->e));
	m->count = 0;
}

static inline size_t kmap_slot(const struct trex_kmap *m, uint64_t a, uint64_t b, uint64_t c)
{
	size_t i = trex_kmap_hash(a, b, c) & m->mask;

	while (m->e[i].val != TREX_NONE && (m->e[i].a != a || m->e[i].b != b || m->e[i].c != c))
		i = (i + 1) & m->mask;
	return i;
}

uint32_t *trex_kmap_find(const struct trex_kmap *m, uint64_t a, uint64_t b, uint64_t c)
{
	size_t i;

	if (!m->e)
		return NULL;
	i = kmap_slot(m, a, b, c);
	return m->e[i].val == TREX_NONE ? NULL : &m->e[i].val;
}

static bool kmap_grow(struct trex_kmap *m)
{
	size_t n = m->e ? ((size_t)m->mask + 1) * 2 : 16;
	struct trex_kmap old = *m;

	if (n > ((size_t)1 << 31))
		return false;
	m->e = malloc(n * sizeof(*m->e));
	if (!m->e) {
		*m = old;
		return false;
	}
	m->mask = (uint32_t)(n - 1);
	trex_kmap_clear(m);
	for (size_t i = 0; old.e && i <= old.mask; i++) {
		if (old.e[i].val != TREX_NONE)
			m->e[kmap_slot(m, old.e[i].a, old.e[i].b, old.e[i].c)] = old.e[i];
	}
	m->count = old.count;
	free(old.e);
	return true;
}

uint32_t *trex_kmap_insert(struct trex_kmap *m, uint64_t a, uint64_t b, uint64_t c)
{
	size_t i;

	if (!m->e || ((size_t)m->count + 1) * 2 > (size_t)m->mask + 1) {
		if (!kmap_grow(m))
			return NULL;
	}
	i = kmap_slot(m, a, b, c);
	if (m->e[i].val == TREX_NONE) {
		m->e[i].a = a;
		m->e[i].b = b;
		m->e[i].c = c;
		m->count++;
	}
	return &m->e[i].val;
}

/* ---- the builder ------------------------------------------------------------------------ */

struct trex_builder *trex_builder_new(uint32_t file)
{
	struct trex_builder *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	b->file = file;
	b->at = -1;
	b->last_track = TREX_NONE;
	b->last_counter = TREX_NONE;
	b->strs = trex_strtab_new();
	if (!b->strs) {
		free(b);
		return NULL;
	}
	trex_vec_init(&b->slices, sizeof(struct trex_slice));
	trex_vec_init(&b->be, sizeof(struct trex_slice));
	trex_vec_init(&b->asyncs, sizeof(struct trex_basync));
	trex_vec_init(&b->instants, sizeof(struct trex_instant));
	trex_vec_init(&b->samples, sizeof(struct trex_bsample));
	trex_vec_init(&b->flows, sizeof(struct trex_bflow));
	return b;
}

/* Block 0 grows by doubling, so a small vector may have up to half of it
 * spare. Only a lone block 0 shrinks: a shrunk later block would break
 * adding after the trim (every block but the first is assumed full-size). */
static void vec_trim(struct trex_vec *v)
{
	if (v->nblocks == 1)
		trex_vec_shrink(v);
}

/* Every record vector of a builder, for what applies to all of them. */
static void builder_each_vec(struct trex_builder *b, void (*fn)(struct trex_vec *))
{
	struct trex_vec *vecs[] = {&b->slices,    &b->be,      &b->asyncs,
				   &b->instants, &b->samples, &b->flows};

	for (size_t i = 0; i < sizeof(vecs) / sizeof(vecs[0]); i++)
		fn(vecs[i]);
}

void trex_builder_trim(struct trex_builder *b)
{
	builder_each_vec(b, vec_trim);
	trex_strtab_shrink(b->strs);
}

void trex_builder_set_file(struct trex_builder *b, uint32_t file)
{
	b->file = file;
}

void trex_builder_free(struct trex_builder *b)
{
	if (!b)
		return;
	trex_strtab_free(b->strs);
	free(b->tracks);
	free(b->procs);
	trex_kmap_free(&b->track_map);
	trex_kmap_free(&b->proc_map);
	builder_each_vec(b, trex_vec_free);
	trex_problems_free(&b->probs);
	free(b);
}

/* Marks the builder unusable; every later call fails too, and the build
 * reports NOMEM. */
static int fail(struct trex_builder *b)
{
	b->failed = true;
	return -1;
}

uint32_t trex_builder_intern(struct trex_builder *b, const char *s, size_t len)
{
	uint32_t id = trex_strtab_intern(b->strs, s, len);

	if (id == TREX_STR_ERROR)
		b->failed = true;
	return id;
}

static void note_time(struct trex_builder *b, int64_t ts, int64_t dur)
{
	int64_t end = ts;

	if (dur > 0 && __builtin_add_overflow(ts, dur, &end))
		end = INT64_MAX;
	if (!b->has_time) {
		b->max_end = end;
		b->min_ts = b->max_ts = ts;
		b->min_ts_at = b->max_ts_at = b->at;
		b->max_dur = 0;
		b->max_dur_at = -1;
		b->has_time = true;
	}
	if (end > b->max_end)
		b->max_end = end;
	if (ts < b->min_ts) {
		b->min_ts = ts;
		b->min_ts_at = b->at;
	}
	if (ts > b->max_ts) {
		b->max_ts = ts;
		b->max_ts_at = b->at;
	}
	if (dur > b->max_dur) {
		b->max_dur = dur;
		b->max_dur_at = b->at;
	}
}

static bool valid_str(const struct trex_builder *b, uint32_t id)
{
	return id < trex_strtab_count(b->strs);
}

/* Index of the local process for pid, created on first use. */
static uint32_t builder_proc(struct trex_builder *b, uint32_t pid)
{
	uint32_t *slot;

	if (b->failed || !valid_str(b, pid))
		return TREX_NONE;
	slot = trex_kmap_insert(&b->proc_map, pid, 0, 0);
	if (!slot)
		return TREX_NONE;
	if (*slot != TREX_NONE)
		return *slot;
	if (b->nprocs == b->procs_cap) {
		uint32_t cap = b->procs_cap ? b->procs_cap * 2 : 8;
		struct trex_bproc *p = realloc(b->procs, cap * sizeof(*p));

		if (!p)
			return TREX_NONE;
		b->procs = p;
		b->procs_cap = cap;
	}
	memset(&b->procs[b->nprocs], 0, sizeof(b->procs[0]));
	b->procs[b->nprocs].pid = pid;
	*slot = b->nprocs;
	return b->nprocs++;
}

static uint32_t add_track(struct trex_builder *b, uint32_t *slot, uint32_t proc, uint32_t pid,
                          uint32_t key, uint8_t cls)
{
	struct trex_btrack *t;

	if (b->ntracks == b->tracks_cap) {
		uint32_t cap = b->tracks_cap ? b->tracks_cap * 2 : 8;
		struct trex_btrack *p = realloc(b->tracks, cap * sizeof(*p));

		if (!p)
			return TREX_NONE;
		b->tracks = p;
		b->tracks_cap = cap;
	}
	t = &b->tracks[b->ntracks];
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->key = key;
	t->proc = proc;
	t->cls = cls;
	*slot = b->ntracks;
	return b->ntracks++;
}

static uint32_t find_track(struct trex_builder *b, uint32_t pid, uint32_t key, uint8_t cls)
{
	uint32_t proc, *slot;

	if (!valid_str(b, key))
		return TREX_NONE;
	proc = builder_proc(b, pid);
	if (proc == TREX_NONE)
		return TREX_NONE;
	/* The process comes first: a slot pointer is only valid until the next
	 * insert into its map. */
	slot = trex_kmap_insert(&b->track_map, ((uint64_t)pid << 32) | key, cls, 0);
	if (!slot)
		return TREX_NONE;
	if (*slot != TREX_NONE)
		return *slot;
	return add_track(b, slot, proc, pid, key, cls);
}

uint32_t trex_builder_track(struct trex_builder *b, uint32_t pid, uint32_t tid)
{
	uint32_t t;

	/* Loaders ask for the same (pid, tid) many times in a row. */
	if (b->last_track != TREX_NONE && b->last_pid == pid && b->last_tid == tid)
		return b->last_track;
	t = find_track(b, pid, tid, TREX_BT_THREAD);
	if (t == TREX_NONE) {
		b->failed = true;
		return TREX_NONE;
	}
	b->last_pid = pid;
	b->last_tid = tid;
	b->last_track = t;
	return t;
}

static struct trex_slice *push_slice(struct trex_builder *b, struct trex_vec *v, uint32_t track,
                                     const struct trex_ev *ev)
{
	struct trex_slice *s;

	if (b->failed || track >= b->ntracks || b->tracks[track].cls != TREX_BT_THREAD)
		return NULL;
	s = trex_vec_push(v);
	if (!s)
		return NULL;
	s->ts = ev->ts;
	s->dur = 0;
	s->name = ev->name;
	s->cat = ev->cat;
	s->track = track;
	s->depth = 0;
	s->flags = ev->flags;
	s->args = ev->args;
	s->corr = ev->corr;
	s->ext_id = ev->ext_id;
	s->shape = ev->shape;
	s->reserved = b->seq++;
	b->events++;
	return s;
}

int trex_builder_complete(struct trex_builder *b, uint32_t track, const struct trex_ev *ev)
{
	struct trex_slice *s = push_slice(b, &b->slices, track, ev);

	if (!s)
		return fail(b);
	s->dur = ev->dur;
	note_time(b, ev->ts, ev->dur);
	return 0;
}

static int push_be(struct trex_builder *b, uint32_t track, const struct trex_ev *ev, char tag)
{
	struct trex_slice *s = push_slice(b, &b->be, track, ev);

	if (!s)
		return fail(b);
	s->depth = (uint16_t)tag;
	note_time(b, ev->ts, 0);
	return 0;
}

int trex_builder_begin(struct trex_builder *b, uint32_t track, const struct trex_ev *ev)
{
	return push_be(b, track, ev, TREX_BE_BEGIN);
}

int trex_builder_end(struct trex_builder *b, uint32_t track, const struct trex_ev *ev)
{
	return push_be(b, track, ev, TREX_BE_END);
}

int trex_builder_instant(struct trex_builder *b, uint32_t track, const struct trex_ev *ev,
                         enum trex_instant_scope scope)
{
	struct trex_instant *in;

	if (b->failed || track >= b->ntracks || b->tracks[track].cls != TREX_BT_THREAD)
		return fail(b);
	in = trex_vec_push(&b->instants);
	if (!in)
		return fail(b);
	memset(in, 0, sizeof(*in));
	in->ts = ev->ts;
	in->name = ev->name;
	in->cat = ev->cat;
	in->track = track;
	in->scope = (uint8_t)scope;
	in->args = ev->args;
	b->events++;
	note_time(b, ev->ts, 0);
	return 0;
}

int trex_builder_counter(struct trex_builder *b, uint32_t pid, uint32_t series, int64_t ts,
                         double value)
{
	uint32_t track;
	struct trex_bsample *s;

	if (b->failed)
		return -1;
	if (b->last_counter != TREX_NONE && b->last_cpid == pid && b->last_series == series) {
		track = b->last_counter;
	} else {
		track = find_track(b, pid, series, TREX_BT_COUNTER);
		if (track == TREX_NONE)
			return fail(b);
		b->last_cpid = pid;
		b->last_series = series;
		b->last_counter = track;
	}
	s = trex_vec_push(&b->samples);
	if (!s)
		return fail(b);
	s->ts = ts;
	s->value = value;
	s->track = track;
	b->events++;
	note_time(b, ts, 0);
	return 0;
}

int trex_builder_flow(struct trex_builder *b, uint32_t track, int64_t ts, uint32_t cat,
                      uint32_t name, uint64_t id, uint32_t id_str, char phase, bool bind_enclosing)
{
	struct trex_bflow *f;

	if (b->failed || track >= b->ntracks || b->tracks[track].cls != TREX_BT_THREAD)
		return fail(b);
	if (phase != 's' && phase != 't' && phase != 'f')
		return fail(b);
	f = trex_vec_push(&b->flows);
	if (!f)
		return fail(b);
	memset(f, 0, sizeof(*f));
	f->ts = ts;
	f->id = id;
	f->track = track;
	f->cat = cat;
	f->name = name;
	f->id_str = id_str;
	f->phase = phase;
	f->enclosing = phase != 'f' || bind_enclosing;
	b->events++;
	note_time(b, ts, 0);
	return 0;
}

int trex_builder_async(struct trex_builder *b, uint32_t pid, char phase, uint64_t id,
                       uint32_t id_str, const struct trex_ev *ev)
{
	struct trex_basync *a;
	uint32_t proc;

	if (b->failed || (phase != 'b' && phase != 'e' && phase != 'n'))
		return fail(b);
	proc = builder_proc(b, pid);
	if (proc == TREX_NONE)
		return fail(b);
	a = trex_vec_push(&b->asyncs);
	if (!a)
		return fail(b);
	memset(a, 0, sizeof(*a));
	a->ts = ev->ts;
	a->id = id;
	a->args = ev->args;
	a->proc = proc;
	a->name = ev->name;
	a->cat = ev->cat;
	a->id_str = id_str;
	a->corr = ev->corr;
	a->ext_id = ev->ext_id;
	a->shape = ev->shape;
	a->seq = b->seq++;
	a->flags = ev->flags;
	a->phase = phase;
	b->events++;
	note_time(b, ev->ts, 0);
	return 0;
}

/* ---- metadata ------------------------------------------------------------------------------ */

static struct trex_bproc *meta_proc(struct trex_builder *b, uint32_t pid)
{
	uint32_t p = builder_proc(b, pid);

	if (p == TREX_NONE) {
		b->failed = true;
		return NULL;
	}
	b->events++;
	return &b->procs[p];
}

int trex_builder_process_name(struct trex_builder *b, uint32_t pid, uint32_t name)
{
	struct trex_bproc *p = meta_proc(b, pid);

	if (!p)
		return -1;
	p->name = name;
	p->has_name = 1;
	return 0;
}

int trex_builder_process_labels(struct trex_builder *b, uint32_t pid, uint32_t labels)
{
	struct trex_bproc *p = meta_proc(b, pid);

	if (!p)
		return -1;
	p->labels = labels;
	p->has_labels = 1;
	return 0;
}

int trex_builder_process_sort_index(struct trex_builder *b, uint32_t pid, int64_t index)
{
	struct trex_bproc *p = meta_proc(b, pid);

	if (!p)
		return -1;
	p->sort_index = index;
	p->has_sort = 1;
	return 0;
}

static struct trex_btrack *meta_track(struct trex_builder *b, uint32_t track)
{
	if (b->failed || track >= b->ntracks || b->tracks[track].cls != TREX_BT_THREAD) {
		b->failed = true;
		return NULL;
	}
	b->events++;
	return &b->tracks[track];
}

int trex_builder_thread_name(struct trex_builder *b, uint32_t track, uint32_t name)
{
	struct trex_btrack *t = meta_track(b, track);

	if (!t)
		return -1;
	t->name = name;
	t->has_name = 1;
	return 0;
}

int trex_builder_thread_sort_index(struct trex_builder *b, uint32_t track, int64_t index)
{
	struct trex_btrack *t = meta_track(b, track);

	if (!t)
		return -1;
	t->sort_index = index;
	t->has_sort = 1;
	return 0;
}

uint64_t trex_builder_event_count(const struct trex_builder *b)
{
	return b->events;
}

void trex_builder_at(struct trex_builder *b, int64_t offset)
{
	b->at = offset;
}

int trex_builder_problem(struct trex_builder *b, const struct trex_problem *p)
{
	if (b->failed)
		return -1;
	if (!trex_problems_add(&b->probs, p))
		return fail(b);
	return 0;
}
