/* Matching names between two runs: the normalising rules of `trex diff
 * --normalize`, and the table of matched names (keys) both sides share. */
#include "config.h"

#include "trex/analysis/diff.h"

#include <stdio.h>
#include <string.h>

#include "diff_internal.h"
#include "trex/core/strtab.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static const char *const norm_names[] = {
#define TREX_DIFF_NORM_NAME(id, name, help) name,
    TREX_DIFF_NORM_INFO(TREX_DIFF_NORM_NAME)
#undef TREX_DIFF_NORM_NAME
};

/* One rule name s[0..len) or "all" into *rules; false if unknown. */
static bool norm_word(const char *s, size_t len, unsigned *rules)
{
	if (len == 3 && memcmp(s, "all", 3) == 0) {
		*rules |= TREX_DIFF_NORM_ALL;
		return true;
	}
	for (size_t i = 0; i < ARRAY_LEN(norm_names); i++) {
		if (strlen(norm_names[i]) == len && memcmp(s, norm_names[i], len) == 0) {
			*rules |= 1u << i;
			return true;
		}
	}
	return false;
}

bool trex_diff_norm_parse(const char *s, unsigned *out)
{
	unsigned rules = 0;

	if (strcmp(s, "exact") == 0) {
		*out = 0;
		return true;
	}
	for (;;) {
		const char *comma = strchr(s, ',');
		size_t len = comma ? (size_t)(comma - s) : strlen(s);

		if (!norm_word(s, len, &rules))
			return false;
		if (!comma)
			break;
		s = comma + 1;
	}
	*out = rules;
	return true;
}

const char *trex_diff_norm_text(unsigned rules, char *buf, size_t size)
{
	size_t n = 0;

	if (size)
		buf[0] = '\0';
	if (!rules) {
		snprintf(buf, size, "exact");
		return buf;
	}
	for (size_t i = 0; i < ARRAY_LEN(norm_names) && n < size; i++) {
		if (rules & (1u << i))
			n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? "," : "",
			                      norm_names[i]);
	}
	return buf;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_hex(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* How the template depth moves at name[i]: '<' opens one unless it is part
 * of "operator<", "<<" or "<="; '>' closes one when open. */
static int depth_step(const char *name, size_t len, size_t i, int depth)
{
	char c = name[i];

	if (c == '<') {
		bool op = i >= 8 && memcmp(name + i - 8, "operator", 8) == 0;
		bool pair = (i + 1 < len && (name[i + 1] == '<' || name[i + 1] == '=')) ||
		            (i > 0 && name[i - 1] == '<');

		return op || pair ? depth : depth + 1;
	}
	if (c == '>' && depth > 0 && !(i > 0 && name[i - 1] == '-'))
		return depth - 1;
	return depth;
}

/* Appends s[0..n) to out (size bytes, at *o), cutting what does not fit. */
static void put(char *out, size_t size, size_t *o, const char *s, size_t n)
{
	size_t room = size && *o < size - 1 ? size - 1 - *o : 0;

	if (n > room)
		n = room;
	memcpy(out + *o, s, n);
	*o += n;
}

size_t trex_diff_normalize(const char *name, size_t len, unsigned rules, char *out, size_t size)
{
	size_t o = 0, i = 0;
	int depth = 0;

	while (i < len) {
		if ((rules & TREX_DIFF_NORM_HEX) && name[i] == '0' && i + 2 < len &&
		    (name[i + 1] == 'x' || name[i + 1] == 'X') && is_hex(name[i + 2]) &&
		    (i == 0 || !is_hex(name[i - 1]))) {
			i += 2;
			while (i < len && is_hex(name[i]))
				i++;
			put(out, size, &o, "0x?", 3);
			continue;
		}
		if (is_digit(name[i]) && ((rules & TREX_DIFF_NORM_DIGITS) ||
		                          ((rules & TREX_DIFF_NORM_TEMPLATE) && depth))) {
			while (i < len && is_digit(name[i]))
				i++;
			put(out, size, &o, "N", 1);
			continue;
		}
		depth = depth_step(name, len, i, depth);
		put(out, size, &o, name + i, 1);
		i++;
	}
	if (size)
		out[o] = '\0';
	return o;
}

/* ---- keys ----------------------------------------------------------------------------------- */

enum trex_status diff_keys_init(struct diff_keys *k, unsigned rules)
{
	memset(k, 0, sizeof(*k));
	k->rules = rules;
	k->tab = trex_strtab_new();
	return k->tab ? TREX_OK : TREX_NOMEM;
}

void diff_keys_free(struct diff_keys *k)
{
	trex_strtab_free(k->tab);
	free(k->side[0].of_name);
	free(k->side[1].of_name);
	free(k->buf);
	memset(k, 0, sizeof(*k));
}

enum trex_status diff_keys_bind(struct diff_keys *k, int side, const struct trex_index *idx)
{
	uint32_t n = trex_strtab_count(trex_index_strings(idx));

	k->side[side].idx = idx;
	k->side[side].of_name = calloc(n ? n : 1, sizeof(*k->side[side].of_name));
	return k->side[side].of_name ? TREX_OK : TREX_NOMEM;
}

uint32_t diff_keys_text(struct diff_keys *k, const char *s, size_t len)
{
	return trex_strtab_intern(k->tab, s, len);
}

uint32_t diff_keys_name(struct diff_keys *k, int side, uint32_t name)
{
	uint32_t *slot = &k->side[side].of_name[name];
	size_t len;
	const char *s;

	if (*slot)
		return *slot - 1;
	s = trex_strtab_get(trex_index_strings(k->side[side].idx), name, &len);
	if (k->rules) {
		size_t need = len + 1; /* every rule shortens or keeps what it replaces */

		if (need > k->buf_cap) {
			char *b = realloc(k->buf, need);

			if (!b)
				return TREX_STR_ERROR;
			k->buf = b;
			k->buf_cap = need;
		}
		len = trex_diff_normalize(s, len, k->rules, k->buf, k->buf_cap);
		s = k->buf;
	}
	uint32_t key = trex_strtab_intern(k->tab, s, len);

	if (key != TREX_STR_ERROR)
		*slot = key + 1;
	return key;
}

uint32_t diff_keys_count(const struct diff_keys *k)
{
	return trex_strtab_count(k->tab);
}

const char *diff_keys_str(const struct diff_keys *k, uint32_t key)
{
	return trex_strtab_get(k->tab, key, NULL);
}
