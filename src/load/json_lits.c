/* Learning member literals (json_lits.h): a node per distinct literal,
 * found again by a hash of its bytes, and each node's newest
 * successors. Runs only where a prediction failed. */
#include "config.h"

#include "json_lits.h"

void json_lits_init(struct json_lits *l)
{
	memset(l, 0, sizeof *l);
	l->n = JSON_LIT_STARTS;
}

/* Literals differ in their key, which their last bytes hold. */
static unsigned json_lit_hash(const char *p, size_t len)
{
	uint64_t head = 0, tail = 0;
	memcpy(&head, p, len < 8 ? len : 8);
	if (len > 8)
		memcpy(&tail, p + len - 8, 8);
	uint64_t h = (head * 0x9E3779B97F4A7C15ull) ^ (tail * 0xFF51AFD7ED558CCDull) ^ len;
	return (unsigned)(h >> 40);
}

/* The node of literal p[0..len), or JSON_LIT_NONE when it is not known and
 * not learned (table full). */
static unsigned json_lits_find(struct json_lits *l, const char *p, size_t len, size_t key_off,
                               size_t key_len, bool end)
{
	unsigned h = json_lit_hash(p, len);
	for (unsigned probe = 0; probe < JSON_LIT_SLOTS; probe++) {
		uint8_t *slot = &l->slot[(h + probe) % JSON_LIT_SLOTS];
		if (*slot) {
			struct json_lit *n = &l->node[*slot - 1];
			if (n->len == len && n->end == end && memcmp(n->bytes, p, len) == 0)
				return *slot - 1u;
			continue;
		}
		if (l->n >= JSON_LIT_NODES)
			return JSON_LIT_NONE;
		struct json_lit *n = &l->node[l->n];
		memset(n, 0, sizeof *n);
		memcpy(n->bytes, p, len);
		n->len = (uint8_t)len;
		n->mask = (UINT64_C(1) << len) - 1u; /* len <= JSON_LIT_MAX < 64 */
		n->key_off = (uint8_t)key_off;
		n->key_len = (uint8_t)key_len;
		n->self = (uint8_t)l->n;
		n->first = p[0] == '{';
		n->end = end;
		*slot = (uint8_t)(l->n + 1);
		return l->n++;
	}
	return JSON_LIT_NONE;
}

unsigned json_lits_learn(struct json_lits *l, unsigned from, const char *p, size_t len,
                         size_t key_off, size_t key_len, bool end)
{
	if (len == 0 || len > JSON_LIT_MAX)
		return JSON_LIT_NONE;
	unsigned node = json_lits_find(l, p, len, key_off, key_len, end);
	if (node == JSON_LIT_NONE || from == JSON_LIT_NONE)
		return node;
	uint8_t *next = l->node[from].next;
	if (next[0] != node + 1) {
		size_t k = 1;
		while (k < JSON_LIT_WAYS - 1 && next[k] != node + 1)
			k++;
		memmove(next + 1, next, k); /* node's own old place, or the oldest, goes */
		next[0] = (uint8_t)(node + 1);
	}
	return node;
}
