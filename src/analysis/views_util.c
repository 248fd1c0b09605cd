#include "config.h"

#include "views_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trex/analysis/kernels.h"
#include "trex/core/strtab.h"

const char *views_device_label(const struct trex_index *idx, uint32_t process, char *buf,
                               size_t size)
{
	return trex_process_label(idx, process, buf, size);
}

double views_from_start(const struct trex_index *idx, int64_t t)
{
	return (double)((__int128)t - trex_index_start(idx));
}

const char *views_text(struct trex_table *t, const char *s)
{
	return trex_table_strdup(t, s, strlen(s));
}

/* ---- statistics --------------------------------------------------------------------------- */

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

void views_sort_i64(int64_t *v, size_t n)
{
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_i64);
}

/* Merges the sorted runs a[0..na) and b[0..nb) (size-byte elements) into
 * out, a's element first on ties. */
static void merge_two(const char *a, size_t na, const char *b, size_t nb, char *out, size_t size,
                      int (*cmp)(const void *, const void *))
{
	const char *a_end = a + na * size, *b_end = b + nb * size;

	while (a < a_end && b < b_end) {
		const char **from = cmp(b, a) < 0 ? &b : &a;

		memcpy(out, *from, size);
		*from += size;
		out += size;
	}
	memcpy(out, a, (size_t)(a_end - a));
	out += a_end - a;
	memcpy(out, b, (size_t)(b_end - b));
}

/* One bottom-up pass: runs 2k and 2k + 1 (starting at start[2k] and
 * start[2k + 1], start[runs] = n) of src merged into dst; start keeps the
 * new runs' starts. Returns how many runs are left. */
static size_t merge_pass(const char *src, char *dst, size_t *start, size_t runs, size_t size,
                         int (*cmp)(const void *, const void *))
{
	size_t k = 0;

	for (size_t r = 0; r < runs; r += 2, k++) {
		size_t from = start[r], mid = start[r + (r + 1 < runs)],
		       to = start[r + 1 + (r + 1 < runs)];

		merge_two(src + from * size, mid - from, src + mid * size, to - mid,
		          dst + from * size, size, cmp);
		start[k] = from;
	}
	start[k] = start[runs];
	return k;
}

bool views_sort_runs(void *v, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	char *base = v, *tmp, *src = base, *dst;
	size_t runs = 1, *start;

	for (size_t i = 1; i < n; i++)
		runs += cmp(base + (i - 1) * size, base + i * size) > 0;
	if (n < 2 || runs == 1)
		return true;
	start = malloc((runs + 1) * sizeof(*start));
	tmp = malloc(n * size);
	if (!start || !tmp) {
		free(start);
		free(tmp);
		return false;
	}
	start[0] = 0;
	for (size_t i = 1, r = 1; i < n; i++)
		if (cmp(base + (i - 1) * size, base + i * size) > 0)
			start[r++] = i;
	start[runs] = n;
	for (dst = tmp; runs > 1; dst = dst == tmp ? base : tmp) {
		runs = merge_pass(src, dst, start, runs, size, cmp);
		src = dst;
	}
	if (src != base)
		memcpy(base, src, n * size);
	free(start);
	free(tmp);
	return true;
}

void views_stats_of(const int64_t *v, size_t n, struct views_stats *out)
{
	long double mean, m2 = 0;

	memset(out, 0, sizeof(*out));
	if (n == 0)
		return;
	for (size_t i = 0; i < n; i++)
		out->sum += v[i];
	mean = (long double)out->sum / (long double)n;
	for (size_t i = 0; n > 1 && i < n; i++)
		m2 += ((long double)v[i] - mean) * ((long double)v[i] - mean);
	out->avg = (double)mean;
	out->med = n % 2 ? (double)v[n / 2] : (double)((__int128)v[n / 2 - 1] + v[n / 2]) / 2.0;
	out->sd = n > 1 ? (double)sqrtl(m2 / (long double)(n - 1)) : 0;
	out->min = v[0];
	out->max = v[n - 1];
	out->p95 = v[(n * 95 + 99) / 100 - 1];
}

/* ---- spans -------------------------------------------------------------------------------- */

int64_t views_union(struct views_span *v, size_t n, size_t *merged)
{
	int64_t total = 0;
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		if (k && v[i].ts <= v[k - 1].end) {
			if (v[i].end > v[k - 1].end)
				v[k - 1].end = v[i].end;
			continue;
		}
		v[k++] = v[i];
	}
	for (size_t i = 0; i < k; i++)
		total += v[i].end - v[i].ts;
	if (merged)
		*merged = k;
	return total;
}

int64_t views_overlap(const struct views_span *a, size_t na, const struct views_span *b, size_t nb)
{
	int64_t total = 0;
	size_t i = 0, j = 0;

	while (i < na && j < nb) {
		int64_t lo = a[i].ts > b[j].ts ? a[i].ts : b[j].ts;
		int64_t hi = a[i].end < b[j].end ? a[i].end : b[j].end;

		if (hi > lo)
			total += hi - lo;
		if (a[i].end < b[j].end)
			i++;
		else
			j++;
	}
	return total;
}
