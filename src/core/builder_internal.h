/* Internals shared by builder.c, index_build.c, index.c and strtab.c:
 * blocked vectors, a small fixed-key hash map, and the builder's records.
 * Not installed, not part of any contract outside src/core. */
#ifndef TREX_CORE_BUILDER_INTERNAL_H
#define TREX_CORE_BUILDER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trex/core/builder.h"
#include "trex/core/index.h"
#include "trex/core/strtab.h"
#include "integrity_internal.h"
#include "members.h"

/* ---- hashing ---------------------------------------------------------------- */

/* 64x64 -> 128 multiply folded to 64 bits: the mixing step of the hashes. */
static inline uint64_t trex_mum(uint64_t a, uint64_t b)
{
#ifdef __SIZEOF_INT128__
	__uint128_t r = (__uint128_t)a * b;

	return (uint64_t)r ^ (uint64_t)(r >> 64);
#else
	uint64_t ha = a >> 32, la = (uint32_t)a, hb = b >> 32, lb = (uint32_t)b;
	uint64_t hh = ha * hb, hl = ha * lb, lh = la * hb, ll = la * lb;
	uint64_t mid = (ll >> 32) + (uint32_t)hl + (uint32_t)lh;
	uint64_t lo = (mid << 32) | (uint32_t)ll;
	uint64_t hi = hh + (hl >> 32) + (lh >> 32) + (mid >> 32);

	return lo ^ hi;
#endif
}

/* Hash of arbitrary bytes (strtab.c). */
uint64_t trex_hash_bytes(const void *data, size_t len);

/* malloc for a large array that is written in full soon after: asks for
 * transparent huge pages on the 2 MiB-aligned part of it (THP in madvise
 * mode), so filling it takes a fault per 2 MiB instead of per 4 KiB. The
 * pages are all touched anyway, so this costs no memory. */
void *trex_big_malloc(size_t n);

/* Releases unused arena and offset capacity once a table stops growing. */
void trex_strtab_shrink(struct trex_strtab *tab);

/* A table's storage as written into an index file (index_file.c): the
 * arena (arena_len bytes), count + 1 offsets and nslots 8-byte hash slots. */
struct trex_strtab_raw {
	const char *arena;
	size_t arena_len;
	const uint32_t *offs;
	uint32_t count;
	const void *slots;
	uint32_t nslots;
};
void trex_strtab_raw(const struct trex_strtab *tab, struct trex_strtab_raw *out);
/* A table over raw storage it does not own (an index file's mapping, which
 * must outlive it), checked first; NULL when raw is not a valid table or
 * out of memory. Interning a new string into it copies it first
 * (trex_strtab_own). */
struct trex_strtab *trex_strtab_borrow(const struct trex_strtab_raw *raw);
/* Makes a borrowed table own a copy of its storage; false when out of memory. */
bool trex_strtab_own(struct trex_strtab *tab);

/* ---- blocked vectors ---------------------------------------------------------------
 * Records live in fixed-size blocks, so growing never copies what is already
 * stored and never needs one giant allocation; block 0 starts small and
 * doubles up to the block size, so tiny builders stay tiny. */

#define TREX_VEC_SHIFT 15
#define TREX_VEC_BLOCK ((size_t)1 << TREX_VEC_SHIFT)
#define TREX_VEC_MASK (TREX_VEC_BLOCK - 1)

struct trex_vec {
	unsigned char **blocks;
	size_t count;     /* records stored */
	size_t cap;       /* records the allocated blocks hold */
	uint32_t nblocks; /* blocks allocated (some may be released) */
	uint32_t dir_cap; /* entries of blocks[] */
	uint32_t elem;    /* record size in bytes */
};

#define TREX_VEC_AT(v, type, i) ((type *)(v)->blocks[(i) >> TREX_VEC_SHIFT] + ((i)&TREX_VEC_MASK))

void trex_vec_init(struct trex_vec *v, uint32_t elem);
void trex_vec_free(struct trex_vec *v);
/* Sizes the first block of an empty vector for about n records, so that
 * a vector whose size is known roughly does not grow by doubling. */
bool trex_vec_reserve(struct trex_vec *v, size_t n);
/* Slow path of trex_vec_push: makes room, returns the new slot or NULL. */
void *trex_vec_grow(struct trex_vec *v);
/* Appends src's records to dst by moving its blocks, without copying,
 * and leaves src empty. Only possible when dst ends at a block boundary
 * (returns false otherwise, and when out of memory, changing nothing). */
bool trex_vec_adopt(struct trex_vec *dst, struct trex_vec *src);
/* Moves src's full blocks to the end of dst without copying; dst must end
 * exactly at a block boundary with no spare room (a vector that only ever
 * receives full blocks this way). src keeps its count, but its moved
 * blocks are gone (NULL): only records from the returned index on remain
 * readable. Returns 0, moving nothing, when src has no full block or when
 * out of memory (*ok false then). */
size_t trex_vec_take_full_blocks(struct trex_vec *dst, struct trex_vec *src, bool *ok);
/* Frees block k (its records were consumed); later access to it is invalid. */
void trex_vec_release_block(struct trex_vec *v, uint32_t k);
/* Gives back the unused tail of the last block; for frozen vectors only
 * (no push after it). */
void trex_vec_shrink(struct trex_vec *v);
size_t trex_vec_memory(const struct trex_vec *v);
/* Records of elem bytes from now on (smaller than before): the caller has
 * rewritten each block's records at the new size from its start; each
 * block gives back the tail it no longer needs. */
void trex_vec_narrow(struct trex_vec *v, uint32_t elem);
/* Reorders records so that new position i holds old record perm[i], in
 * place (cycle walk). perm is left as the identity. */
void trex_vec_permute(struct trex_vec *v, uint32_t *perm);

static inline void *trex_vec_at(const struct trex_vec *v, size_t i)
{
	return v->blocks[i >> TREX_VEC_SHIFT] + (i & TREX_VEC_MASK) * v->elem;
}

/* A new uninitialised slot at the end, or NULL when out of memory. */
static inline void *trex_vec_push(struct trex_vec *v)
{
	if (v->count < v->cap)
		return trex_vec_at(v, v->count++);
	return trex_vec_grow(v);
}

/* ---- slices while the index is built -------------------------------------------------
 * A slice until the build has placed it (build.c narrows them into struct
 * trex_slice and the side tables): the fields only some slices have
 * travel with it, and flags has room for the merge's saturation bit. */
struct trex_bslice {
	int64_t ts;
	int64_t dur;
	uint32_t name, cat, track;
	uint16_t depth;
	uint16_t flags; /* enum trex_slice_flag */
	trex_args_ref args;
	uint32_t launch_link, op_link, shape; /* as in trex_slice_launch_link, ... */
	uint8_t kind;
};

/* ---- a map from three 64-bit words to a 32-bit value ---------------------------------- */

struct trex_kmap_entry {
	uint64_t a, b, c;
	uint32_t val; /* TREX_NONE marks an empty entry */
};

struct trex_kmap {
	struct trex_kmap_entry *e;
	uint32_t mask, count;
};

static inline uint64_t trex_kmap_hash(uint64_t a, uint64_t b, uint64_t c)
{
	return trex_mum(a ^ 0xa0761d6478bd642full, b ^ 0xe7037ed1a0b428dbull) ^
	       trex_mum(c ^ 0x8ebc6af09c88c6e3ull, 0x589965cc75374cc3ull);
}

void trex_kmap_free(struct trex_kmap *m);
/* The value slot of key (a, b, c), or NULL if absent. */
uint32_t *trex_kmap_find(const struct trex_kmap *m, uint64_t a, uint64_t b, uint64_t c);
/* The value slot of key, added with value TREX_NONE when absent; NULL
 * when out of memory. Slots move when the map grows. */
uint32_t *trex_kmap_insert(struct trex_kmap *m, uint64_t a, uint64_t b, uint64_t c);
/* Forgets every key, keeping the allocation. */
void trex_kmap_clear(struct trex_kmap *m);

/* ---- builder records ------------------------------------------------------------------
 * A builder keeps every slice it is given in one vector, in the order it
 * was given them (a handle is a place in it), so a part's slices can move
 * into the index a block at a time. What pairs or links slices is kept
 * beside them, in records that name slices by their place. */

enum trex_btrack_class {
	TREX_BT_THREAD = 0,
	TREX_BT_NAMED = 1,
	TREX_BT_ASYNC = 2,
	TREX_BT_COUNTER = 3,
};

struct trex_btrack {
	int64_t sort_index;
	uint32_t pid;    /* local string id of the pid text */
	uint32_t key;    /* tid text, named track key, or counter series */
	uint32_t name;   /* thread_name, when has_name */
	uint32_t proc;   /* local process */
	uint32_t parent; /* named tracks: the local track it nests under, or TREX_NONE */
	uint8_t cls;     /* enum trex_btrack_class */
	uint8_t has_name, has_sort;
};

struct trex_bproc {
	int64_t sort_index, rank;
	uint32_t pid, name, labels;
	uint8_t has_name, has_labels, has_sort, has_rank, has_device, device;
};

/* An end (trex_builder_end): it closes the open slice on its track at ts;
 * `after` slices of the builder were recorded before it. */
struct trex_bend {
	int64_t ts;
	uint32_t track, name, after;
};

/* A keyed record (trex_builder_keyed_*): a begin names its slice, an end
 * or instant comes after `at` slices (the instant's own fields are kept
 * for when its track is known). */
enum trex_keyed_op { TREX_KEYED_BEGIN, TREX_KEYED_END, TREX_KEYED_INSTANT };

struct trex_bkeyed {
	int64_t ts;
	uint64_t num;
	trex_args_ref args;
	uint32_t proc, space, str, name, cat, at;
	uint8_t op;   /* enum trex_keyed_op */
	uint8_t kind; /* an instant's */
};

struct trex_bflow {
	int64_t ts;
	uint64_t num;
	uint32_t track, space, str, name;
	trex_handle slice; /* TREX_HANDLE_NONE: bound by track, ts and bind */
	uint8_t role;      /* enum trex_flow_role */
	uint8_t bind;      /* enum trex_flow_bind */
	uint8_t id_unsigned;
};

struct trex_bedge {
	trex_handle from, to;
	uint8_t kind; /* enum trex_edge_kind */
};

/* A slice that shows a node of the build's graph (trex_builder_graph_node). */
struct trex_bgraph {
	trex_handle slice;
	uint32_t node;
};

struct trex_bsample {
	int64_t ts;
	double value;
	uint32_t track;
};

struct trex_builder {
	uint32_t file;
	bool failed;
	bool has_time;
	int64_t max_end; /* latest ts or ts + dur seen, file clock */
	/* earliest and latest start, longest complete duration, and the
	 * offsets of the events they came from (-1 unknown): where time
	 * outliers are */
	int64_t min_ts, max_ts, max_dur;
	int64_t min_ts_at, max_ts_at, max_dur_at;
	int64_t at; /* offset of the event being recorded (trex_builder_at) */
	struct trex_problem_list probs;
	uint64_t events;
	struct trex_strtab *strs;
	struct trex_btrack *tracks;
	uint32_t ntracks, tracks_cap;
	struct trex_bproc *procs;
	uint32_t nprocs, procs_cap;
	struct trex_kmap track_map;                    /* (pid, key), class -> track */
	struct trex_kmap proc_map;                     /* pid -> process */
	uint32_t last_pid, last_tid, last_track;       /* one-entry cache of trex_builder_track */
	uint32_t last_cpid, last_series, last_counter; /* and of counter tracks */
	/* Slices in the order they were given: complete ones, begun ones
	 * (PAIRED, dur 0 until their end) and keyed ones (ASYNC, track
	 * TREX_NONE until their key's track is known). */
	struct trex_vec slices;   /* struct trex_bslice */
	struct trex_vec begins;   /* uint32_t: places of the begun slices, ascending */
	struct trex_vec ends;     /* struct trex_bend */
	struct trex_vec keyed;    /* struct trex_bkeyed */
	struct trex_vec instants; /* struct trex_instant */
	struct trex_vec samples;  /* struct trex_bsample */
	struct trex_vec flows;    /* struct trex_bflow */
	struct trex_vec edges;    /* struct trex_bedge */
	struct trex_vec graph;    /* struct trex_bgraph */
	/* the file's top-level members (trex_builder_file_member) */
	struct trex_member_list members;
};

/* Every record vector of a builder, for what applies to all of them. */
#define TREX_BUILDER_VECS(b)                                                                       \
	{                                                                                          \
		&(b)->slices, &(b)->begins, &(b)->ends, &(b)->keyed, &(b)->instants,               \
		    &(b)->samples, &(b)->flows, &(b)->edges, &(b)->graph                           \
	}

#endif
