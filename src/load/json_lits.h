/* Member literals of JSON objects that repeat, such as a trace's events:
 * the bytes from where one member's value ends (or from the object's '{')
 * to where the next member's value begins: whitespace, ',', whitespace,
 * the quoted key, whitespace, ':', whitespace; or, for the end of the
 * object, whitespace and its '}'. A writer puts the same
 * literals in the same order into every object of a kind, so each one
 * predicts the next. An object walker that finds a predicted literal byte
 * for byte where it stands knows the key and the value's position without
 * scanning them; it scans (and learns) only where the prediction fails.
 *
 * Contract (what makes the shortcut exact): a node is learned only from
 * bytes the walker scanned itself, so they are a well-formed separator and
 * an unescaped ASCII key; json_lits_predict matches only where those bytes
 * repeat exactly and are followed by a byte that is not whitespace (the
 * scan would have stopped at the same value), and a literal that starts
 * with '{' only as an object's first member. The table is bounded and
 * owned by one parser; nothing is shared between threads. */
#ifndef TREX_LOAD_JSON_LITS_H
#define TREX_LOAD_JSON_LITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "json_scan.h"

#define JSON_LIT_MAX 48 /* longest literal kept, in bytes */
_Static_assert(JSON_LIT_MAX < 64, "a literal's mask holds one bit per byte");
#define JSON_LIT_NODES 96 /* literals per parser, start nodes included */
#define JSON_LIT_SLOTS 256
#define JSON_LIT_NONE 0xFFu
#define JSON_LIT_WAYS 4

/* Start nodes: one per kind of object, the predecessor of its first
 * member; a walker that wants no prediction passes JSON_LIT_NONE. */
enum json_lit_start {
	JSON_LIT_EVENT,
	JSON_LIT_ARGS,
	JSON_LIT_STARTS,
};

struct json_lit {
	char bytes[JSON_LIT_MAX];
	uint64_t mask;   /* one bit per byte of the literal */
	uint8_t len;     /* 0: a start node, never matched */
	uint8_t key_off; /* the key's first byte, after its quote */
	uint8_t key_len;
	uint8_t self; /* this node's index in the table */
	bool first;   /* starts with the object's '{' */
	bool end;     /* ends the object: no key, no value */
	/* the successors seen last, newest first: index + 1; 0: none. Four:
	 * Kineto's flow starts and ends and its slices share the literal
	 * of "name" and go on three ways from it. */
	uint8_t next[JSON_LIT_WAYS];
};

struct json_lits {
	struct json_lit node[JSON_LIT_NODES];
	uint8_t slot[JSON_LIT_SLOTS]; /* open addressing by json_lit_hash: index + 1 */
	unsigned n;                   /* nodes in use, JSON_LIT_STARTS at least */
};

/* An empty table (its start nodes only). */
void json_lits_init(struct json_lits *l);

/* Whether the literal of node matches the bytes at p, which has at least
 * JSON_LIT_MAX + 1 bytes readable. */
static inline bool json_lit_equal(const struct json_lit *node, const char *p)
{
	uint64_t want = node->mask;
#if defined(__SSE2__)
	__m128i a = _mm_loadu_si128((const __m128i *)(const void *)p);
	__m128i b = _mm_loadu_si128((const __m128i *)(const void *)(p + 16));
	__m128i x = _mm_loadu_si128((const __m128i *)(const void *)node->bytes);
	__m128i y = _mm_loadu_si128((const __m128i *)(const void *)(node->bytes + 16));
	uint64_t same = (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(a, x)) |
	                (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(b, y)) << 16;
	if (node->len > 32) {
		__m128i c = _mm_loadu_si128((const __m128i *)(const void *)(p + 32));
		__m128i z = _mm_loadu_si128((const __m128i *)(const void *)(node->bytes + 32));
		same |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(c, z)) << 32;
	}
	return (same & want) == want;
#else
	(void)want;
	return memcmp(node->bytes, p, node->len) == 0;
#endif
}

/* The successor of node `from` whose literal is at p (first: the walker
 * stands at its object's '{'), or NULL: then the walker scans. An end
 * node's literal ends the object just after it. */
static inline const struct json_lit *json_lits_predict(const struct json_lits *l, unsigned from,
                                                       const char *p, const char *end, bool first)
{
	if (from == JSON_LIT_NONE || end - p <= JSON_LIT_MAX)
		return NULL;
	const struct json_lit *cur = &l->node[from];
	for (int i = 0; i < JSON_LIT_WAYS && cur->next[i]; i++) {
		const struct json_lit *n = &l->node[cur->next[i] - 1];
		if (n->first == first && json_lit_equal(n, p) &&
		    (n->end || !json_is_ws((unsigned char)p[n->len])))
			return n;
	}
	return NULL;
}

/* Records that the walker, after node `from` (JSON_LIT_NONE: unknown),
 * scanned the literal p[0..len) whose key is p[key_off..key_off+key_len)
 * (end: the object's end, p[len - 1] its '}'; no key): returns its node
 * (learned if new), or JSON_LIT_NONE when it is too long or the table is
 * full. `from` then predicts it first (the oldest of its successors goes). */
unsigned json_lits_learn(struct json_lits *l, unsigned from, const char *p, size_t len,
                         size_t key_off, size_t key_len, bool end);

#endif
