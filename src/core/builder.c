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

void trex_vec_narrow(struct trex_vec *v, uint32_t elem)
{
	for (uint32_t k = 0; k < v->nblocks; k++) {
		size_t first = (size_t)k << TREX_VEC_SHIFT;
		size_t room = v->cap - first < TREX_VEC_BLOCK ? v->cap - first : TREX_VEC_BLOCK;
		unsigned char *b;

		if (!v->blocks[k])
			continue;
		b = realloc(v->blocks[k], (room ? room : 1) * elem);
		if (b) /* else the block keeps its old size, which is room enough */
			v->blocks[k] = b;
	}
	v->elem = elem;
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
	trex_vec_init(&b->slices, sizeof(struct trex_bslice));
	trex_vec_init(&b->begins, sizeof(uint32_t));
	trex_vec_init(&b->ends, sizeof(struct trex_bend));
	trex_vec_init(&b->keyed, sizeof(struct trex_bkeyed));
	trex_vec_init(&b->instants, sizeof(struct trex_instant));
	trex_vec_init(&b->samples, sizeof(struct trex_bsample));
	trex_vec_init(&b->flows, sizeof(struct trex_bflow));
	trex_vec_init(&b->edges, sizeof(struct trex_bedge));
	trex_vec_init(&b->graph, sizeof(struct trex_bgraph));
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

static void builder_each_vec(struct trex_builder *b, void (*fn)(struct trex_vec *))
{
	struct trex_vec *vecs[] = TREX_BUILDER_VECS(b);

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
	trex_members_free(&b->members);
	free(b);
}

/* Marks the builder unusable; every later call fails too, and the build
 * reports NOMEM. */
static int fail(struct trex_builder *b)
{
	b->failed = true;
	return -1;
}

static trex_handle fail_handle(struct trex_builder *b)
{
	b->failed = true;
	return TREX_HANDLE_NONE;
}

uint32_t trex_builder_intern(struct trex_builder *b, const char *s, size_t len)
{
	uint32_t id = trex_strtab_intern(b->strs, s, len);

	if (id == TREX_STR_ERROR)
		b->failed = true;
	return id;
}

const char *trex_builder_str(const struct trex_builder *b, uint32_t id)
{
	return id < trex_strtab_count(b->strs) ? trex_strtab_get(b->strs, id, NULL) : NULL;
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
	t->parent = TREX_NONE;
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

/* A parent must be an earlier slice track of the same process. */
static bool parent_ok(const struct trex_builder *b, uint32_t parent, uint32_t pid)
{
	return parent == TREX_NONE || (parent < b->ntracks && b->tracks[parent].pid == pid &&
	                               b->tracks[parent].cls != TREX_BT_COUNTER);
}

uint32_t trex_builder_named_track(struct trex_builder *b, uint32_t pid, uint32_t key,
                                  uint32_t parent)
{
	uint32_t before = b->ntracks, t;

	if (b->failed || !parent_ok(b, parent, pid))
		return fail_handle(b);
	t = find_track(b, pid, key, TREX_BT_NAMED);
	if (t == TREX_NONE)
		return fail_handle(b);
	/* the first call places the track; a later one may not move it */
	if (b->ntracks > before)
		b->tracks[t].parent = parent;
	else if (b->tracks[t].parent != parent)
		return fail_handle(b);
	return t;
}

/* Tracks that take slices and instants: threads and named tracks. */
static bool slice_track(const struct trex_builder *b, uint32_t track)
{
	return track < b->ntracks &&
	       (b->tracks[track].cls == TREX_BT_THREAD || b->tracks[track].cls == TREX_BT_NAMED);
}

/* A new slice record for ev, or NULL (the builder failed) when there is
 * no room or no more handles. */
static struct trex_bslice *push_slice(struct trex_builder *b, uint32_t track,
                                      const struct trex_ev *ev)
{
	struct trex_bslice *s;

	if (b->failed || b->slices.count >= TREX_HANDLE_NONE - 1)
		return NULL;
	s = trex_vec_push(&b->slices);
	if (!s)
		return NULL;
	memset(s, 0, sizeof(*s));
	s->ts = ev->ts;
	s->name = ev->name;
	s->cat = ev->cat;
	s->track = track;
	s->flags = ev->flags;
	s->args = ev->args;
	s->launch_link = ev->launch_link;
	s->op_link = ev->op_link;
	s->shape = ev->shape;
	s->kind = ev->kind;
	b->events++;
	return s;
}

static trex_handle last_handle(const struct trex_builder *b)
{
	return (trex_handle)(b->slices.count - 1);
}

trex_handle trex_builder_complete(struct trex_builder *b, uint32_t track, const struct trex_ev *ev)
{
	struct trex_bslice *s = slice_track(b, track) ? push_slice(b, track, ev) : NULL;

	if (!s)
		return fail_handle(b);
	s->dur = ev->dur;
	note_time(b, ev->ts, ev->dur);
	return last_handle(b);
}

trex_handle trex_builder_begin(struct trex_builder *b, uint32_t track, const struct trex_ev *ev)
{
	struct trex_bslice *s = slice_track(b, track) ? push_slice(b, track, ev) : NULL;
	uint32_t *at;

	if (!s)
		return fail_handle(b);
	s->flags |= TREX_SLICE_PAIRED;
	at = trex_vec_push(&b->begins);
	if (!at)
		return fail_handle(b);
	*at = last_handle(b);
	note_time(b, ev->ts, 0);
	return last_handle(b);
}

int trex_builder_end(struct trex_builder *b, uint32_t track, const struct trex_ev *ev)
{
	struct trex_bend *e;

	if (b->failed || !slice_track(b, track))
		return fail(b);
	e = trex_vec_push(&b->ends);
	if (!e)
		return fail(b);
	*e = (struct trex_bend){ev->ts, track, ev->name, (uint32_t)b->slices.count};
	b->events++;
	note_time(b, ev->ts, 0);
	return 0;
}

int trex_builder_instant(struct trex_builder *b, uint32_t track, const struct trex_ev *ev,
                         enum trex_instant_scope scope)
{
	struct trex_instant *in;

	if (b->failed || !slice_track(b, track))
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
	in->kind = ev->kind;
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

/* ---- keyed slices ----------------------------------------------------------------------- */

static bool key_ok(const struct trex_builder *b, const struct trex_key *key)
{
	return valid_str(b, key->space) && valid_str(b, key->str);
}

static struct trex_bkeyed *push_keyed(struct trex_builder *b, uint32_t pid,
                                      const struct trex_key *key, const struct trex_ev *ev,
                                      enum trex_keyed_op op)
{
	uint32_t proc = key_ok(b, key) ? builder_proc(b, pid) : TREX_NONE;
	struct trex_bkeyed *k = proc != TREX_NONE ? trex_vec_push(&b->keyed) : NULL;

	if (!k)
		return NULL;
	*k = (struct trex_bkeyed){.ts = ev->ts,
	                          .num = key->num,
	                          .args = ev->args,
	                          .proc = proc,
	                          .space = key->space,
	                          .str = key->str,
	                          .name = ev->name,
	                          .cat = ev->cat,
	                          .at = (uint32_t)b->slices.count,
	                          .op = (uint8_t)op,
	                          .kind = ev->kind};
	return k;
}

trex_handle trex_builder_keyed_begin(struct trex_builder *b, uint32_t pid,
                                     const struct trex_key *key, const struct trex_ev *ev)
{
	struct trex_bkeyed *k = push_keyed(b, pid, key, ev, TREX_KEYED_BEGIN);
	struct trex_bslice *s = k ? push_slice(b, TREX_NONE, ev) : NULL;

	if (!s)
		return fail_handle(b);
	s->flags |= TREX_SLICE_ASYNC;
	note_time(b, ev->ts, 0);
	return last_handle(b);
}

static int keyed_point(struct trex_builder *b, uint32_t pid, const struct trex_key *key,
                       const struct trex_ev *ev, enum trex_keyed_op op)
{
	if (b->failed || !push_keyed(b, pid, key, ev, op))
		return fail(b);
	b->events++;
	note_time(b, ev->ts, 0);
	return 0;
}

int trex_builder_keyed_end(struct trex_builder *b, uint32_t pid, const struct trex_key *key,
                           const struct trex_ev *ev)
{
	return keyed_point(b, pid, key, ev, TREX_KEYED_END);
}

int trex_builder_keyed_instant(struct trex_builder *b, uint32_t pid, const struct trex_key *key,
                               const struct trex_ev *ev)
{
	return keyed_point(b, pid, key, ev, TREX_KEYED_INSTANT);
}

/* ---- flows and edges ---------------------------------------------------------------------- */

static bool handle_ok(const struct trex_builder *b, trex_handle h)
{
	return h < b->slices.count;
}

int trex_builder_flow(struct trex_builder *b, const struct trex_flow_point *p)
{
	struct trex_bflow *f;
	bool on_slice = p->slice != TREX_HANDLE_NONE;
	int64_t ts = p->ts;

	if (b->failed || !key_ok(b, &p->key) || !valid_str(b, p->name) || p->role > TREX_FLOW_END ||
	    p->bind > TREX_BIND_NEXT ||
	    (on_slice ? !handle_ok(b, p->slice) : !slice_track(b, p->track)))
		return fail(b);
	f = trex_vec_push(&b->flows);
	if (!f)
		return fail(b);
	if (on_slice)
		ts = TREX_VEC_AT(&b->slices, struct trex_bslice, p->slice)->ts;
	*f = (struct trex_bflow){.ts = ts,
	                         .num = p->key.num,
	                         .track = on_slice ? TREX_NONE : p->track,
	                         .space = p->key.space,
	                         .str = p->key.str,
	                         .name = p->name,
	                         .slice = p->slice,
	                         .role = (uint8_t)p->role,
	                         .bind = (uint8_t)p->bind,
	                         .id_unsigned = p->id_unsigned};
	b->events++;
	note_time(b, ts, 0);
	return 0;
}

int trex_builder_edge(struct trex_builder *b, trex_handle from, trex_handle to,
                      enum trex_edge_kind kind)
{
	struct trex_bedge *e;

	if (b->failed || !handle_ok(b, from) || !handle_ok(b, to) || from == to ||
	    kind > TREX_EDGE_LAUNCH)
		return fail(b);
	e = trex_vec_push(&b->edges);
	if (!e)
		return fail(b);
	*e = (struct trex_bedge){from, to, (uint8_t)kind};
	return 0;
}

int trex_builder_graph_node(struct trex_builder *b, trex_handle slice, uint32_t node)
{
	struct trex_bgraph *g;

	if (b->failed || !handle_ok(b, slice) || node == TREX_GRAPH_NONE)
		return fail(b);
	g = trex_vec_push(&b->graph);
	if (!g)
		return fail(b);
	*g = (struct trex_bgraph){slice, node};
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

/* Rank and device come with other metadata, so they count no event. */
static struct trex_bproc *quiet_proc(struct trex_builder *b, uint32_t pid)
{
	uint32_t p = builder_proc(b, pid);

	if (p == TREX_NONE) {
		b->failed = true;
		return NULL;
	}
	return &b->procs[p];
}

int trex_builder_process_rank(struct trex_builder *b, uint32_t pid, int64_t rank)
{
	struct trex_bproc *p = quiet_proc(b, pid);

	if (!p)
		return -1;
	p->rank = rank;
	p->has_rank = 1;
	return 0;
}

int trex_builder_process_device(struct trex_builder *b, uint32_t pid, bool device)
{
	struct trex_bproc *p = quiet_proc(b, pid);

	if (!p)
		return -1;
	p->device = device;
	p->has_device = 1;
	return 0;
}

static struct trex_btrack *meta_track(struct trex_builder *b, uint32_t track)
{
	if (b->failed || !slice_track(b, track)) {
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

int trex_builder_file_member(struct trex_builder *b, const struct trex_file_member *m)
{
	if (b->failed || (m->key_len && !m->key) || (m->value_len && !m->value) ||
	    !trex_members_add(&b->members, m))
		return fail(b);
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
