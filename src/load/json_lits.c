/* Learning member literals (json_lits.h): a node per distinct literal,
 * found again by a hash of its bytes, and each node's two newest
 * successors. Runs only where a prediction failed. */
#include "config.h"

#include "json_lits.h"

void json_lits_init(struct json_lits *l)
{
	memset(l, 0, sizeof *l);
	l->n = JSON_LIT_STARTS;
}

static unsigned json_lit_hash(const char *p, size_t len)
{
	uint32_t h = 2166136261u ^ (uint32_t)len;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)p[i]) * 16777619u;
	return h ^ (h >> 15);
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
		n->mask = len >= 32 ? UINT32_MAX : (UINT32_C(1) << len) - 1u;
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
		next[1] = next[0];
		next[0] = (uint8_t)(node + 1);
	}
	return node;
}
