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
