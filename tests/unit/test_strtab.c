#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trex/core/strtab.h"
#include "../../src/core/builder_internal.h"

static uint32_t intern(struct trex_strtab *t, const char *s)
{
	return trex_strtab_intern(t, s, strlen(s));
}

Test(strtab, id_zero_is_the_empty_string)
{
	struct trex_strtab *t = trex_strtab_new();
	size_t len = 99;

	cr_assert_not_null(t);
	cr_assert_eq(trex_strtab_count(t), 1);
	cr_assert_str_eq(trex_strtab_get(t, TREX_STR_NONE, &len), "");
	cr_assert_eq(len, 0);
	cr_assert_eq(trex_strtab_intern(t, "ignored", 0), TREX_STR_NONE);
	cr_assert_eq(trex_strtab_find(t, "", 0), TREX_STR_NONE);
	cr_assert_eq(trex_strtab_count(t), 1);
	trex_strtab_free(t);
}

Test(strtab, interning_is_idempotent_and_ids_are_dense)
{
	struct trex_strtab *t = trex_strtab_new();
	uint32_t a = intern(t, "aten::mm"), b = intern(t, "kernel"), a2 = intern(t, "aten::mm");
	size_t len;

	cr_assert_eq(a, 1);
	cr_assert_eq(b, 2);
	cr_assert_eq(a2, a);
	cr_assert_eq(trex_strtab_count(t), 3);
	cr_assert_str_eq(trex_strtab_get(t, a, &len), "aten::mm");
	cr_assert_eq(len, 8);
	cr_assert_str_eq(trex_strtab_get(t, b, NULL), "kernel");
	trex_strtab_free(t);
}

Test(strtab, length_not_terminator_defines_the_string)
{
	struct trex_strtab *t = trex_strtab_new();
	const char buf[] = "abcdef";
	uint32_t abc = trex_strtab_intern(t, buf, 3);
	uint32_t abcd = trex_strtab_intern(t, buf, 4);
	uint32_t nul = trex_strtab_intern(t, "a\0b", 3);
	size_t len;
	const char *s;

	cr_assert_neq(abc, abcd);
	cr_assert_str_eq(trex_strtab_get(t, abc, NULL), "abc");
	cr_assert_str_eq(trex_strtab_get(t, abcd, NULL), "abcd");
	s = trex_strtab_get(t, nul, &len);
	cr_assert_eq(len, 4);
	cr_assert_str_eq(s,
	                 "a\xc0\x80"
	                 "b",
	                 "the inner NUL kept as C0 80: one whole C string");
	cr_assert_eq(trex_strtab_intern(t, "a", 1) == nul, false);
	cr_assert_eq(trex_strtab_intern(t, "a\0b", 3), nul);
	cr_assert_eq(trex_strtab_find(t, "a\0b", 3), nul);
	cr_assert_neq(trex_strtab_intern(t, "a\0c", 3), nul, "names differing after a NUL differ");
	trex_strtab_free(t);
}

Test(strtab, find_does_not_add)
{
	struct trex_strtab *t = trex_strtab_new();
	uint32_t x = intern(t, "x");

	cr_assert_eq(trex_strtab_find(t, "x", 1), x);
	cr_assert_eq(trex_strtab_find(t, "y", 1), TREX_STR_ERROR);
	cr_assert_eq(trex_strtab_find(t, "xx", 2), TREX_STR_ERROR);
	cr_assert_eq(trex_strtab_count(t), 2);
	trex_strtab_free(t);
}

Test(strtab, near_misses_and_long_strings)
{
	struct trex_strtab *t = trex_strtab_new();
	char a[3000], b[3000];
	uint32_t ia, ib;

	/* Long C++ kernel names differing only in the last or first byte. */
	memset(a, 'k', sizeof(a) - 1);
	a[sizeof(a) - 1] = '\0';
	memcpy(b, a, sizeof(a));
	b[sizeof(b) - 2] = 'j';
	ia = intern(t, a);
	ib = intern(t, b);
	cr_assert_neq(ia, ib);
	b[sizeof(b) - 2] = 'k';
	b[0] = 'j';
	cr_assert_neq(intern(t, b), ia);
	cr_assert_eq(intern(t, a), ia);
	cr_assert_str_eq(trex_strtab_get(t, ia, NULL), a);
	/* Every short length 1..48 is its own string. */
	for (size_t n = 1; n <= 48; n++)
		cr_assert_eq(trex_strtab_intern(t, a, n), trex_strtab_intern(t, a, n));
	cr_assert_eq(trex_strtab_count(t), 4 + 48);
	trex_strtab_free(t);
}

Test(strtab, many_strings_survive_growth)
{
	struct trex_strtab *t = trex_strtab_new();
	enum { N = 200000 };
	char buf[64];
	size_t mem0 = trex_strtab_memory(t);

	for (uint32_t i = 0; i < N; i++) {
		int n = snprintf(buf, sizeof(buf), "name_%u_%x", i, i * 2654435761u);

		cr_assert_eq(trex_strtab_intern(t, buf, (size_t)n), i + 1);
	}
	cr_assert_eq(trex_strtab_count(t), N + 1);
	for (uint32_t i = 0; i < N; i += 7) {
		int n = snprintf(buf, sizeof(buf), "name_%u_%x", i, i * 2654435761u);
		size_t len;

		cr_assert_eq(trex_strtab_find(t, buf, (size_t)n), i + 1);
		cr_assert_str_eq(trex_strtab_get(t, i + 1, &len), buf);
		cr_assert_eq(len, (size_t)n);
	}
	cr_assert_gt(trex_strtab_memory(t), mem0);
	/* Strings + offsets + slots; generous bound against runaway growth. */
	cr_assert_lt(trex_strtab_memory(t), (size_t)N * 64);
	trex_strtab_free(t);
}

Test(strtab, binary_bytes_and_utf8)
{
	struct trex_strtab *t = trex_strtab_new();
	unsigned char bytes[256];
	uint32_t id;
	size_t len;

	for (int i = 0; i < 256; i++)
		bytes[i] = (unsigned char)(255 - i);
	id = trex_strtab_intern(t, (const char *)bytes, sizeof(bytes));
	/* every byte as it was, but the last (a NUL), kept as C0 80 */
	cr_assert_eq(memcmp(trex_strtab_get(t, id, &len), bytes, sizeof(bytes) - 1), 0);
	cr_assert_eq(len, 257);
	cr_assert_eq(memcmp(trex_strtab_get(t, id, NULL) + 255, "\xc0\x80", 3), 0);
	cr_assert_eq(intern(t, "stream 7 \xe2\x96\x8f"), id + 1);
	cr_assert_eq(trex_strtab_find(t, (const char *)bytes, sizeof(bytes)), id);
	trex_strtab_free(t);
}

Test(strtab, free_null_is_a_no_op)
{
	trex_strtab_free(NULL);
}

/* An index file's table is borrowed as it lies (index_file.c) and checked
 * first: offsets that run past the arena and back are refused without a
 * read outside it (found by fuzz_index_file: the read came before the
 * check that offsets ascend). */
Test(strtab, borrowed_storage_is_checked_before_it_is_read)
{
	char *arena = malloc(6); /* exactly "", "ab", "c": ASan sees any byte beyond */
	uint32_t good[] = {0, 1, 4, 6}, bad[] = {0, 1, 100, 6};
	uint64_t slots[4] = {0};
	struct trex_strtab_raw raw = {arena, 6, good, 3, slots, 4};
	struct trex_strtab *t;

	cr_assert(arena);
	memcpy(arena, "\0ab\0c", 6);
	t = trex_strtab_borrow(&raw);
	cr_assert_not_null(t);
	cr_assert_str_eq(trex_strtab_get(t, 1, NULL), "ab");
	/* a new string copies the table first; the borrowed bytes stay as they are */
	cr_assert_eq(trex_strtab_intern(t, "zz", 2), 3);
	cr_assert_str_eq(trex_strtab_get(t, 2, NULL), "c");
	cr_assert_eq(memcmp(arena, "\0ab\0c", 6), 0);
	trex_strtab_free(t);
	raw.offs = bad;
	cr_assert_null(trex_strtab_borrow(&raw));
	free(arena);
}
