#include "config.h"

#include "trex/analysis/work.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trex/core/strtab.h"

void trex_work_count(const struct trex_index *idx, struct trex_work *out)
{
	memset(out, 0, sizeof(*out));
	out->idx = idx;
	out->nslices = trex_index_slice_count(idx);
	for (uint32_t i = 0; i < out->nslices; i++) {
		enum trex_kind k = trex_work_kind(out, i);

		out->kernels += k == TREX_KIND_KERNEL;
		out->memcpys += k == TREX_KIND_MEMCPY;
		out->memsets += k == TREX_KIND_MEMSET;
	}
}

/* ---- why there is nothing ---------------------------------------------------------------------
 */

struct cat_count {
	uint32_t cat;
	uint64_t n;
};

static int cmp_cat_count(const void *a, const void *b)
{
	const struct cat_count *x = a, *y = b;

	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return (x->cat > y->cat) - (x->cat < y->cat);
}

/* "cat_a, cat_b, cat_c and 2 more" of the slices whose kind passes keep
 * (most slices first) into buf; the number of slices listed. */
static uint64_t list_categories(const struct trex_index *idx, const struct trex_work *w,
                                bool (*keep)(enum trex_kind), char *buf, size_t size)
{
	size_t nstr = trex_strtab_count(trex_index_strings(idx)) + 1, ncats = 0;
	uint64_t *count = calloc(nstr, sizeof(*count)), total = 0;
	struct cat_count *v = NULL;
	size_t len = 0;

	buf[0] = '\0';
	for (uint32_t i = 0; count && i < w->nslices; i++) {
		if (keep(trex_work_kind(w, i))) {
			ncats += count[trex_index_slice(idx, i)->cat]++ == 0;
			total++;
		}
	}
	v = count ? malloc((ncats ? ncats : 1) * sizeof(*v)) : NULL;
	for (size_t c = 0, k = 0; v && c < nstr; c++) {
		if (count[c])
			v[k++] = (struct cat_count){(uint32_t)c, count[c]};
	}
	if (v)
		qsort(v, ncats, sizeof(*v), cmp_cat_count);
	for (size_t i = 0; v && i < ncats && i < 4 && len < size; i++) {
		const char *cat = trex_index_str(idx, v[i].cat);

		len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? ", " : "",
		                        cat && *cat ? cat : "(none)");
	}
	if (v && ncats > 4 && len < size)
		snprintf(buf + len, size - len, " and %zu more", ncats - 4);
	free(v);
	free(count);
	return total;
}

static bool host_kind(enum trex_kind k)
{
	return k == TREX_KIND_CPU_OP || k == TREX_KIND_PYTHON || k == TREX_KIND_ANNOTATION ||
	       k == TREX_KIND_RUNTIME || k == TREX_KIND_CPU_INSTANT || k == TREX_KIND_OVERHEAD;
}

static bool unknown_kind(enum trex_kind k)
{
	return k == TREX_KIND_OTHER;
}

static bool gpu_kind(enum trex_kind k)
{
	return trex_kind_is_gpu(k);
}

static bool any_kind(enum trex_kind k)
{
	(void)k;
	return true;
}

/* The number of slices of category text cat. */
static uint64_t slices_of_category(const struct trex_index *idx, const char *cat)
{
	uint32_t id = trex_strtab_find(trex_index_strings(idx), cat, strlen(cat)), n = 0;

	for (uint32_t i = 0; id != TREX_STR_ERROR && i < trex_index_slice_count(idx); i++)
		n += trex_index_slice(idx, i)->cat == id;
	return n;
}

const char *trex_work_empty_reason(const struct trex_index *idx, const struct trex_work *w,
                                   enum trex_work_want want, char *buf, size_t size)
{
	const char *what = want == TREX_WORK_WANT_KERNELS ? "no GPU kernels" : "no GPU work";
	uint64_t memory = w->memcpys + w->memsets, ranges;
	char cats[256];

	if (w->kernels || (want == TREX_WORK_WANT_DEVICE && memory))
		return NULL;
	if (memory) {
		snprintf(buf, size,
		         "%s: only %llu memory copies and %llu memory sets "
		         "(trex kernels --memory lists them)",
		         what, (unsigned long long)w->memcpys, (unsigned long long)w->memsets);
	} else if ((ranges = slices_of_category(idx, "cuda_profiler_range")) != 0) {
		snprintf(buf, size,
		         "CUPTI range-profiler trace: kernels appear as %llu "
		         "cuda_profiler_range events (counters per kernel, no kernel times)",
		         (unsigned long long)ranges);
	} else if (w->nslices == 0) {
		snprintf(buf, size,
		         "%s: the trace has no events with a duration "
		         "(%u instants, %u counter samples)",
		         what, trex_index_instant_count(idx), trex_index_sample_count(idx));
	} else if (list_categories(idx, w, gpu_kind, cats, sizeof(cats))) {
		snprintf(buf, size, "%s: the device events are only of categories %s", what, cats);
	} else if (!list_categories(idx, w, unknown_kind, cats, sizeof(cats))) {
		list_categories(idx, w, host_kind, cats, sizeof(cats));
		snprintf(buf, size, "%s: this trace has only CPU events (categories %s)", what,
		         cats);
	} else {
		list_categories(idx, w, any_kind, cats, sizeof(cats));
		snprintf(buf, size,
		         "%s: no category or track of this trace is a device's "
		         "(categories %s; see GPU WORK in trex(1))",
		         what, cats);
	}
	return buf;
}
