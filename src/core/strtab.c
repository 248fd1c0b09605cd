#include "config.h"

#include "trex/core/strtab.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "builder_internal.h"

/* Strings live back to back, NUL-terminated, in one arena addressed by
 * 32-bit offsets: growing the arena is one realloc and nothing points into
 * it. offs[id] is where string id starts and offs[id + 1] where the next
 * one does, so a length costs no extra storage.
 *
 * The hash table is open addressing with linear probing over 8-byte slots
 * holding a 32-bit hash and id + 1 (0 = empty). Looking up a string that
 * is present costs one hash, usually one slot, and one memcmp: the stored
 * hash rejects almost every other string before the arena is touched. */

struct strtab_slot {
	uint32_t hash;
	uint32_t id1; /* id + 1; 0 marks an empty slot */
};

struct trex_strtab {
	char *arena;
	size_t used, cap;
	uint32_t *offs; /* count + 1 entries */
	uint32_t count, offs_cap;
	struct strtab_slot *slots;
	uint32_t mask; /* slot count - 1 */
	bool borrowed; /* arena, offs and slots lie in an index file's mapping */
};

#define ARENA_MAX ((size_t)UINT32_MAX)
#define FIRST_SLOTS 64u

/* ---- hashing (wyhash-style multiply-fold) ---------------------------------- */

static const uint64_t hash_p0 = 0xa0761d6478bd642full;
static const uint64_t hash_p1 = 0xe7037ed1a0b428dbull;
static const uint64_t hash_p2 = 0x8ebc6af09c88c6e3ull;
static const uint64_t hash_p3 = 0x589965cc75374cc3ull;

static inline uint64_t rd64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint64_t rd32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Reads 0..16 bytes as two words without touching memory past p + len. */
static inline void load_short(const unsigned char *p, size_t len, uint64_t *a, uint64_t *b)
{
	if (len >= 4) {
		size_t step = (len >> 3) << 2;

		*a = (rd32(p) << 32) | rd32(p + step);
		*b = (rd32(p + len - 4) << 32) | rd32(p + len - 4 - step);
	} else if (len > 0) {
		*a = ((uint64_t)p[0] << 16) | ((uint64_t)p[len >> 1] << 8) | p[len - 1];
		*b = 0;
	} else {
		*a = 0;
		*b = 0;
	}
}

uint64_t trex_hash_bytes(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t seed = hash_p0 ^ len, a, b;

	if (len <= 16) {
		load_short(p, len, &a, &b);
	} else {
		size_t i = len;

		if (i > 48) {
			uint64_t s1 = seed, s2 = seed;

			do {
				seed = trex_mum(rd64(p) ^ hash_p1, rd64(p + 8) ^ seed);
				s1 = trex_mum(rd64(p + 16) ^ hash_p2, rd64(p + 24) ^ s1);
				s2 = trex_mum(rd64(p + 32) ^ hash_p3, rd64(p + 40) ^ s2);
				p += 48;
				i -= 48;
			} while (i > 48);
			seed ^= s1 ^ s2;
		}
		while (i > 16) {
			seed = trex_mum(rd64(p) ^ hash_p1, rd64(p + 8) ^ seed);
			p += 16;
			i -= 16;
		}
		a = rd64(p + i - 16);
		b = rd64(p + i - 8);
	}
	return trex_mum(hash_p1 ^ len, trex_mum(a ^ hash_p1, b ^ seed));
}

static inline uint32_t hash32(const char *s, size_t len)
{
	uint64_t h = trex_hash_bytes(s, len);

	return (uint32_t)(h ^ (h >> 32));
}

/* ---- table ---------------------------------------------------------------- */

struct trex_strtab *trex_strtab_new(void)
{
	struct trex_strtab *tab = calloc(1, sizeof(*tab));

	if (!tab)
		return NULL;
	tab->cap = 256;
	tab->offs_cap = 16;
	tab->arena = malloc(tab->cap);
	tab->offs = malloc(tab->offs_cap * sizeof(*tab->offs));
	tab->slots = calloc(FIRST_SLOTS, sizeof(*tab->slots));
	if (!tab->arena || !tab->offs || !tab->slots) {
		trex_strtab_free(tab);
		return NULL;
	}
	tab->mask = FIRST_SLOTS - 1;
	/* Id 0 is "" and is answered without hashing, so it has no slot. */
	tab->arena[0] = '\0';
	tab->used = 1;
	tab->offs[0] = 0;
	tab->offs[1] = 1;
	tab->count = 1;
	return tab;
}

void trex_strtab_free(struct trex_strtab *tab)
{
	if (!tab)
		return;
	if (!tab->borrowed) {
		free(tab->arena);
		free(tab->offs);
		free(tab->slots);
	}
	free(tab);
}

static inline bool slot_matches(const struct trex_strtab *tab, struct strtab_slot sl, uint32_t h,
                                const char *s, size_t len)
{
	uint32_t id = sl.id1 - 1;

	return sl.hash == h && tab->offs[id + 1] - tab->offs[id] - 1 == len &&
	       memcmp(tab->arena + tab->offs[id], s, len) == 0;
}

/* The slot holding s, or the empty slot where it would go. */
static inline uint32_t probe(const struct trex_strtab *tab, uint32_t h, const char *s, size_t len)
{
	uint32_t i = h & tab->mask;

	while (tab->slots[i].id1 && !slot_matches(tab, tab->slots[i], h, s, len))
		i = (i + 1) & tab->mask;
	return i;
}

static bool grow_slots(struct trex_strtab *tab)
{
	uint32_t n = (tab->mask + 1) * 2;
	struct strtab_slot *slots = calloc(n, sizeof(*slots));

	if (!slots)
		return false;
	/* Stored hashes make rehashing free of string reads. */
	for (uint32_t i = 0; i <= tab->mask; i++) {
		struct strtab_slot sl = tab->slots[i];
		uint32_t j;

		if (!sl.id1)
			continue;
		j = sl.hash & (n - 1);
		while (slots[j].id1)
			j = (j + 1) & (n - 1);
		slots[j] = sl;
	}
	free(tab->slots);
	tab->slots = slots;
	tab->mask = n - 1;
	return true;
}

static bool reserve(struct trex_strtab *tab, size_t len)
{
	if (len >= ARENA_MAX - tab->used || tab->count >= UINT32_MAX - 2)
		return false;
	if (tab->used + len + 1 > tab->cap) {
		size_t cap = tab->cap * 2;
		char *arena;

		while (cap < tab->used + len + 1)
			cap *= 2;
		if (cap > ARENA_MAX)
			cap = ARENA_MAX;
		arena = realloc(tab->arena, cap);
		if (!arena)
			return false;
		tab->arena = arena;
		tab->cap = cap;
	}
	if (tab->count + 2 > tab->offs_cap) {
		uint32_t cap = tab->offs_cap > UINT32_MAX / 2 ? UINT32_MAX : tab->offs_cap * 2;
		uint32_t *offs = realloc(tab->offs, (size_t)cap * sizeof(*offs));

		if (!offs)
			return false;
		tab->offs = offs;
		tab->offs_cap = cap;
	}
	/* Keep the load factor at or below 3/4. */
	if (((uint64_t)tab->count + 1) * 4 > ((uint64_t)tab->mask + 1) * 3)
		return grow_slots(tab);
	return true;
}

static uint32_t intern_plain(struct trex_strtab *tab, const char *s, size_t len)
{
	uint32_t h, i, id, mask;

	if (len == 0)
		return TREX_STR_NONE;
	h = hash32(s, len);
	i = probe(tab, h, s, len);
	if (tab->slots[i].id1)
		return tab->slots[i].id1 - 1;
	if (tab->borrowed && !trex_strtab_own(tab))
		return TREX_STR_ERROR;
	mask = tab->mask;
	if (!reserve(tab, len))
		return TREX_STR_ERROR;
	if (tab->mask != mask)
		i = probe(tab, h, s, len);
	id = tab->count++;
	memcpy(tab->arena + tab->used, s, len);
	tab->arena[tab->used + len] = '\0';
	tab->used += len + 1;
	tab->offs[id + 1] = (uint32_t)tab->used;
	tab->slots[i].hash = h;
	tab->slots[i].id1 = id + 1;
	return id;
}

static uint32_t find_plain(const struct trex_strtab *tab, const char *s, size_t len)
{
	uint32_t i;

	if (len == 0)
		return TREX_STR_NONE;
	i = probe(tab, hash32(s, len), s, len);
	return tab->slots[i].id1 ? tab->slots[i].id1 - 1 : TREX_STR_ERROR;
}

/* ---- NUL bytes ------------------------------------------------------------ */

/* The stored form of s[0..len): s itself, or when it holds a NUL a copy
 * (malloc'd into *copy, for the caller to free) with every NUL as C0 80;
 * *len is updated. NULL when out of memory. */
static const char *stored_form(const char *s, size_t *len, char **copy)
{
	size_t nuls = 0, o = 0;
	char *e;

	*copy = NULL;
	if (*len == 0 || !memchr(s, '\0', *len))
		return s;
	for (size_t i = 0; i < *len; i++)
		nuls += s[i] == '\0';
	if (*len > SIZE_MAX - nuls || !(e = malloc(*len + nuls)))
		return NULL;
	for (size_t i = 0; i < *len; i++) {
		if (s[i] == '\0') {
			e[o++] = (char)0xc0;
			e[o++] = (char)0x80;
		} else {
			e[o++] = s[i];
		}
	}
	*len = o;
	return *copy = e;
}

uint32_t trex_strtab_intern(struct trex_strtab *tab, const char *s, size_t len)
{
	char *copy;
	uint32_t id;

	s = stored_form(s, &len, &copy);
	id = s ? intern_plain(tab, s, len) : TREX_STR_ERROR;
	free(copy);
	return id;
}

uint32_t trex_strtab_find(const struct trex_strtab *tab, const char *s, size_t len)
{
	char *copy;
	uint32_t id;

	s = stored_form(s, &len, &copy);
	id = s ? find_plain(tab, s, len) : TREX_STR_ERROR;
	free(copy);
	return id;
}

const char *trex_strtab_get(const struct trex_strtab *tab, uint32_t id, size_t *len)
{
	if (len)
		*len = tab->offs[id + 1] - tab->offs[id] - 1;
	return tab->arena + tab->offs[id];
}

uint32_t trex_strtab_count(const struct trex_strtab *tab)
{
	return tab->count;
}

size_t trex_strtab_memory(const struct trex_strtab *tab)
{
	return sizeof(*tab) + tab->cap + (size_t)tab->offs_cap * sizeof(*tab->offs) +
	       ((size_t)tab->mask + 1) * sizeof(*tab->slots);
}

void trex_strtab_shrink(struct trex_strtab *tab)
{
	char *arena = realloc(tab->arena, tab->used);
	uint32_t *offs = realloc(tab->offs, ((size_t)tab->count + 1) * sizeof(*offs));

	/* A failed shrink keeps the larger, still valid buffer. */
	if (arena) {
		tab->arena = arena;
		tab->cap = tab->used;
	}
	if (offs) {
		tab->offs = offs;
		tab->offs_cap = tab->count + 1;
	}
}

/* ---- an index file's table (index_file.c) ------------------------------------------------ */

void trex_strtab_raw(const struct trex_strtab *tab, struct trex_strtab_raw *out)
{
	out->arena = tab->arena;
	out->arena_len = tab->used;
	out->offs = tab->offs;
	out->count = tab->count;
	out->slots = tab->slots;
	out->nslots = tab->mask + 1;
}

/* Whether raw is a table intern and get can use without reading outside
 * it: offsets ascending within the arena, every string NUL-terminated,
 * id 0 "", slot ids in range and at least one empty slot (probing stops). */
static bool raw_valid(const struct trex_strtab_raw *raw)
{
	const struct strtab_slot *slots = raw->slots;
	bool empty = false;

	if (raw->count == 0 || raw->nslots == 0 || (raw->nslots & (raw->nslots - 1)) ||
	    raw->offs[0] != 0 || raw->offs[1] != 1 || raw->offs[raw->count] != raw->arena_len)
		return false;
	for (uint32_t i = 0; i < raw->count; i++)
		if (raw->offs[i + 1] <= raw->offs[i] || raw->offs[i + 1] > raw->arena_len ||
		    raw->arena[raw->offs[i + 1] - 1] != '\0')
			return false;
	for (uint32_t i = 0; i < raw->nslots; i++) {
		if (slots[i].id1 > raw->count)
			return false;
		empty |= slots[i].id1 == 0;
	}
	return empty;
}

struct trex_strtab *trex_strtab_borrow(const struct trex_strtab_raw *raw)
{
	struct trex_strtab *tab;

	if (!raw_valid(raw) || !(tab = calloc(1, sizeof(*tab))))
		return NULL;
	tab->arena = (char *)(uintptr_t)raw->arena;
	tab->used = tab->cap = raw->arena_len;
	tab->offs = (uint32_t *)(uintptr_t)raw->offs;
	tab->count = raw->count;
	tab->offs_cap = raw->count + 1;
	tab->slots = (struct strtab_slot *)(uintptr_t)raw->slots;
	tab->mask = raw->nslots - 1;
	tab->borrowed = true;
	return tab;
}

bool trex_strtab_own(struct trex_strtab *tab)
{
	size_t nslots = (size_t)tab->mask + 1;
	char *arena;
	uint32_t *offs;
	struct strtab_slot *slots;

	if (!tab->borrowed)
		return true;
	arena = malloc(tab->used);
	offs = malloc(((size_t)tab->count + 1) * sizeof(*offs));
	slots = malloc(nslots * sizeof(*slots));
	if (!arena || !offs || !slots) {
		free(arena);
		free(offs);
		free(slots);
		return false;
	}
	memcpy(arena, tab->arena, tab->used);
	memcpy(offs, tab->offs, ((size_t)tab->count + 1) * sizeof(*offs));
	memcpy(slots, tab->slots, nslots * sizeof(*slots));
	tab->arena = arena;
	tab->offs = offs;
	tab->slots = slots;
	tab->borrowed = false;
	return true;
}
