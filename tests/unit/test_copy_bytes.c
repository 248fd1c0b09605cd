/* Bytes of GPU copies and sets, read back from their args, and the bytes
 * and bandwidth columns they give `trex kernels --memory`. */
#include "config.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trex/analysis/copy_bytes.h"
#include "trex/analysis/kernels.h"
#include "trex/core/index.h"
#include "trex/load/loader.h"
#include "trex/load/source.h"

static struct trex_index *load(const char *text, size_t len)
{
	struct trex_load_opts opts = {.threads = 1};
	struct trex_source *src;
	struct trex_index *idx;
	struct trex_error err;

	cr_assert_eq(trex_source_open_memory("mem.json", text, len, true, &src, &err), TREX_OK);
	cr_assert_eq(trex_load_sources(&src, 1, &opts, &idx, &err), TREX_OK, "%s", err.message);
	return idx;
}

/* The slice named name (unique in these traces). */
static uint32_t slice_named(const struct trex_index *idx, const char *name)
{
	for (uint32_t i = 0; i < trex_index_slice_count(idx); i++) {
		if (strcmp(trex_index_str(idx, trex_index_slice(idx, i)->name), name) == 0)
			return i;
	}
	cr_assert_fail("no slice %s", name);
	return TREX_NONE;
}

/* A Kineto copy with bytes; a set whose bytes are a string; a ROCm copy
 * without bytes whose hipMemcpyWithStream launch has "size": "2560"; a
 * copy nobody sizes; a copy whose bytes are not a count. */
static const char sized[] =
    "{\"traceEvents\":[\n"
    "{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"c1\",\"pid\":0,\"tid\":7,\"ts\":10,"
    "\"dur\":2,\"args\":{\"correlation\":1,\"bytes\":4000,\"memory bandwidth (GB/s)\":2}},\n"
    "{\"ph\":\"X\",\"cat\":\"gpu_memset\",\"name\":\"s1\",\"pid\":0,\"tid\":7,\"ts\":20,"
    "\"dur\":1,\"args\":{\"bytes\":\"512\"}},\n"
    "{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"c2\",\"pid\":0,\"tid\":7,\"ts\":30,"
    "\"dur\":4,\"args\":{\"correlation\":9,\"kind\":\"HtoD\"}},\n"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"hipMemcpyWithStream\",\"pid\":5,"
    "\"tid\":5,\"ts\":29,\"dur\":8,\"args\":{\"correlation\":9,\"size\":\"2560\"}},\n"
    "{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"c3\",\"pid\":0,\"tid\":7,\"ts\":40,"
    "\"dur\":1},\n"
    "{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"c4\",\"pid\":0,\"tid\":7,\"ts\":50,"
    "\"dur\":1,\"args\":{\"bytes\":-3}}\n"
    "]}\n";

Test(copy_bytes, own_args_then_the_launchs)
{
	struct trex_index *idx = load(sized, sizeof(sized) - 1);
	const char *names[] = {"c1", "s1", "c2", "c3", "c4"};
	const int64_t want[] = {4000, 512, 2560, -1, -1};
	uint32_t ids[5];
	int64_t out[5];
	struct trex_error err;

	for (int i = 0; i < 5; i++)
		ids[i] = slice_named(idx, names[i]);
	cr_assert_eq(trex_copy_bytes(idx, ids, 5, out, &err), TREX_OK, "%s", err.message);
	for (int i = 0; i < 5; i++)
		cr_assert_eq(out[i], want[i], "%s: %lld", names[i], (long long)out[i]);
	trex_index_free(idx);
}

/* The column index of key in t. */
static size_t col_of(const struct trex_table *t, const char *key)
{
	for (size_t c = 0; c < t->ncols; c++) {
		if (strcmp(t->cols[c].key, key) == 0)
			return c;
	}
	return t->ncols;
}

Test(copy_bytes, kernels_memory_gains_bytes_and_bandwidth)
{
	struct trex_index *idx = load(sized, sizeof(sized) - 1);
	struct trex_kernel_opts o = {.group = TREX_KERNELS_BY_NAME, .memory = true};
	struct trex_table t;
	struct trex_error err;
	size_t bytes, gbps;

	cr_assert_eq(trex_kernels_table(idx, &o, &t, &err), TREX_OK, "%s", err.message);
	bytes = col_of(&t, "bytes");
	gbps = col_of(&t, "gbps");
	cr_assert_lt(bytes, t.ncols);
	cr_assert_eq(gbps, bytes + 1);
	cr_assert_eq(col_of(&t, "name"), t.ncols - 1, "the name stays last");
	for (size_t r = 0; r < t.nrows; r++) {
		const char *name = trex_table_cell(&t, r, t.ncols - 1)->text;
		double b = trex_table_cell(&t, r, bytes)->number,
		       g = trex_table_cell(&t, r, gbps)->number;

		if (strcmp(name, "c1") == 0) /* 4000 bytes in 2000 ns: 2 GB/s, as the arg says */
			cr_assert(b == 4000 && g == 2, "c1: %g %g", b, g);
		else if (strcmp(name, "c2") == 0) /* 2560 in 4000 ns */
			cr_assert(b == 2560 && g == 0.64, "c2: %g %g", b, g);
		else if (strcmp(name, "s1") == 0)
			cr_assert(b == 512 && g == 0.512, "s1: %g %g", b, g);
		else
			cr_assert(isnan(b) && isnan(g), "%s: no size: %g %g", name, b, g);
	}
	trex_table_free(&t);

	/* without --memory, or when no work carries a size, no such columns */
	o.memory = false;
	cr_assert_eq(trex_kernels_table(idx, &o, &t, &err), TREX_OK, "%s", err.message);
	cr_assert_eq(col_of(&t, "bytes"), t.ncols);
	trex_table_free(&t);
	trex_index_free(idx);
}

Test(copy_bytes, args_far_apart_are_read_window_by_window)
{
	/* two copies 6 MB apart (a 6 MB name between them) and one more near
	 * the second: more than one read window, each copy its own bytes */
	size_t pad = 6u << 20, cap = pad + 4096, n = 0;
	char *text = malloc(cap);
	uint32_t ids[3];
	int64_t out[3];
	struct trex_index *idx;
	struct trex_error err;

	cr_assert_not_null(text);
	n += (size_t)snprintf(text + n, cap - n,
	                      "[{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"a\",\"pid\":0,"
	                      "\"tid\":7,\"ts\":1,\"dur\":1,\"args\":{\"bytes\":11}},\n"
	                      "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"pid\":1,\"tid\":1,\"ts\":1,"
	                      "\"dur\":1,\"name\":\"");
	memset(text + n, 'x', pad);
	n += pad;
	n += (size_t)snprintf(text + n, cap - n,
	                      "\"},\n{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"b\",\"pid\":0,"
	                      "\"tid\":7,\"ts\":5,\"dur\":1,\"args\":{\"bytes\":22}},\n"
	                      "{\"ph\":\"X\",\"cat\":\"gpu_memset\",\"name\":\"c\",\"pid\":0,"
	                      "\"tid\":7,\"ts\":9,\"dur\":1,\"args\":{\"bytes\":33}}]\n");
	idx = load(text, n);
	free(text);
	ids[0] = slice_named(idx, "c");
	ids[1] = slice_named(idx, "a");
	ids[2] = slice_named(idx, "b");
	cr_assert_eq(trex_copy_bytes(idx, ids, 3, out, &err), TREX_OK, "%s", err.message);
	cr_assert_eq(out[0], 33);
	cr_assert_eq(out[1], 11);
	cr_assert_eq(out[2], 22);
	trex_index_free(idx);
}
