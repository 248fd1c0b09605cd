#include "config.h"

#include "trex/analysis/table.h"

#include <stdlib.h>
#include <string.h>

/* Text cells live in large blocks, so a table of a million kernel names
 * costs a handful of allocations and frees in one sweep. */
#define TREX_ARENA_BLOCK (64u * 1024u)

struct trex_table_arena {
	struct trex_table_arena *next;
	size_t used, size;
	char data[];
};

void trex_table_init(struct trex_table *t, const char *name, const struct trex_column *cols,
                     size_t ncols)
{
	memset(t, 0, sizeof(*t));
	t->name = name;
	t->cols = cols;
	t->ncols = ncols;
}

struct trex_column *trex_table_init_owned(struct trex_table *t, const char *name, size_t ncols)
{
	struct trex_column *cols = calloc(ncols ? ncols : 1, sizeof(*cols));

	trex_table_init(t, name, cols, cols ? ncols : 0);
	t->owned_cols = cols;
	return cols;
}

void trex_table_free(struct trex_table *t)
{
	struct trex_table_arena *a = t->arena;

	while (a) {
		struct trex_table_arena *next = a->next;

		free(a);
		a = next;
	}
	free(t->cells);
	if (t->owned_cols) {
		free(t->owned_cols);
		t->owned_cols = NULL;
		t->cols = NULL;
		t->ncols = 0;
	}
	t->cells = NULL;
	t->arena = NULL;
	t->note = NULL;
	t->nrows = 0;
	t->cap_rows = 0;
}

union trex_cell *trex_table_add_row(struct trex_table *t)
{
	union trex_cell *row;

	if (t->nrows == t->cap_rows) {
		size_t cap = t->cap_rows ? t->cap_rows * 2 : 16;
		size_t width = t->ncols ? t->ncols : 1;
		union trex_cell *cells;

		if (cap > SIZE_MAX / sizeof(*cells) / width)
			return NULL;
		cells = realloc(t->cells, cap * width * sizeof(*cells));
		if (!cells)
			return NULL;
		t->cells = cells;
		t->cap_rows = cap;
	}
	row = &t->cells[t->nrows * t->ncols];
	memset(row, 0, t->ncols * sizeof(*row));
	t->nrows++;
	return row;
}

/* A block with room for need bytes: the current one, or a new one in front. */
static struct trex_table_arena *arena_room(struct trex_table *t, size_t need)
{
	struct trex_table_arena *a = t->arena;
	size_t size;

	if (a && a->size - a->used >= need)
		return a;
	size = need > TREX_ARENA_BLOCK ? need : TREX_ARENA_BLOCK;
	a = malloc(sizeof(*a) + size);
	if (!a)
		return NULL;
	a->next = t->arena;
	a->used = 0;
	a->size = size;
	t->arena = a;
	return a;
}

/* Bytes of s[0..len) once each NUL is two bytes (C0 80). */
static size_t stored_len(const char *s, size_t len)
{
	size_t n = len;
	const char *p = len ? memchr(s, '\0', len) : NULL;

	while (p) {
		n++;
		p = memchr(p + 1, '\0', len - (size_t)(p + 1 - s));
	}
	return n;
}

const char *trex_table_strdup(struct trex_table *t, const char *s, size_t len)
{
	struct trex_table_arena *a;
	size_t n;
	char *p, *o;

	if (len == SIZE_MAX || (n = stored_len(s, len)) == SIZE_MAX)
		return NULL;
	a = arena_room(t, n + 1);
	if (!a)
		return NULL;
	p = o = a->data + a->used;
	if (n == len && len) {
		memcpy(p, s, len);
		o += len;
	}
	for (size_t i = 0; n != len && i < len; i++) {
		if (s[i] == '\0') {
			*o++ = (char)0xc0;
			*o++ = (char)0x80;
		} else {
			*o++ = s[i];
		}
	}
	*o = '\0';
	a->used += n + 1;
	return p;
}
