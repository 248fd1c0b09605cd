/* A file's metadata members (index.h, trex_file_member): key and value
 * texts in one growing buffer, records of where each lies. The builder
 * collects them, the build moves them into the index per file. Private to
 * src/core. */
#ifndef TREX_CORE_MEMBERS_H
#define TREX_CORE_MEMBERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trex/core/index.h"

struct trex_member_rec {
	size_t key_at, value_at; /* offsets into text */
	size_t key_len, value_len;
	bool after_events;
};

struct trex_member_list {
	char *text;
	size_t len, cap;
	struct trex_member_rec *v;
	size_t n, vcap;
};

/* Appends a copy of m; false when out of memory (l unchanged). */
bool trex_members_add(struct trex_member_list *l, const struct trex_file_member *m);
/* Appends src's members to dst (moved when dst is empty: src is then
 * empty); false when out of memory (dst unchanged). */
bool trex_members_take(struct trex_member_list *dst, struct trex_member_list *src);
/* The i-th member of l (i < l->n). */
void trex_members_get(const struct trex_member_list *l, size_t i, struct trex_file_member *out);
size_t trex_members_memory(const struct trex_member_list *l);
void trex_members_free(struct trex_member_list *l);

#endif
