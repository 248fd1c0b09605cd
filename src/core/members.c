#include "config.h"

#include "members.h"

#include <stdlib.h>
#include <string.h>

#include "trex/core/grow.h"

static bool members_fit(struct trex_member_list *l, size_t bytes, size_t recs)
{
	char *text;
	struct trex_member_rec *v;

	if (bytes > SIZE_MAX - l->len || recs > SIZE_MAX - l->n)
		return false;
	text = trex_grow(l->text, &l->cap, l->len + bytes, 1, 256);
	if (!text)
		return false;
	l->text = text;
	v = trex_grow(l->v, &l->vcap, l->n + recs, sizeof(*l->v), 8);
	if (!v)
		return false;
	l->v = v;
	return true;
}

bool trex_members_add(struct trex_member_list *l, const struct trex_file_member *m)
{
	if (m->key_len > SIZE_MAX / 2 || m->value_len > SIZE_MAX / 2 ||
	    !members_fit(l, m->key_len + m->value_len, 1))
		return false;
	struct trex_member_rec *r = &l->v[l->n++];

	*r = (struct trex_member_rec){l->len, l->len + m->key_len, m->key_len, m->value_len,
	                              m->after_events};
	if (m->key_len)
		memcpy(l->text + r->key_at, m->key, m->key_len);
	if (m->value_len)
		memcpy(l->text + r->value_at, m->value, m->value_len);
	l->len += m->key_len + m->value_len;
	return true;
}

bool trex_members_take(struct trex_member_list *dst, struct trex_member_list *src)
{
	if (!src->n)
		return true;
	if (!dst->n) {
		trex_members_free(dst);
		*dst = *src;
		memset(src, 0, sizeof(*src));
		return true;
	}
	if (!members_fit(dst, src->len, src->n))
		return false;
	memcpy(dst->text + dst->len, src->text, src->len);
	for (size_t i = 0; i < src->n; i++) {
		struct trex_member_rec r = src->v[i];

		r.key_at += dst->len;
		r.value_at += dst->len;
		dst->v[dst->n++] = r;
	}
	dst->len += src->len;
	return true;
}

void trex_members_get(const struct trex_member_list *l, size_t i, struct trex_file_member *out)
{
	const struct trex_member_rec *r = &l->v[i];

	*out = (struct trex_file_member){l->text + r->key_at, r->key_len, l->text + r->value_at,
	                                 r->value_len, r->after_events};
}

size_t trex_members_memory(const struct trex_member_list *l)
{
	return l->cap + l->vcap * sizeof(*l->v);
}

void trex_members_free(struct trex_member_list *l)
{
	free(l->text);
	free(l->v);
	memset(l, 0, sizeof(*l));
}
