#include "config.h"

#include "trex/load/kinds.h"

#include <stdbool.h>
#include <string.h>

/* One row per category spelling seen across dialects (doc/formats/chrome-trace.md §5,
 * unitrace.md §1, acelyzer.md §1). Categories with name rules (below)
 * are decided by the name; any other category is OTHER. */
struct cat_rule {
	const char *cat;
	enum trex_kind kind;
};

static const struct cat_rule cat_rules[] = {
    {"kernel", TREX_KIND_KERNEL}, /* Kineto CUDA and ROCm */
    {"Kernel", TREX_KIND_KERNEL}, /* 2021 legacy */
    {"gpu_memcpy", TREX_KIND_MEMCPY},
    {"Memcpy", TREX_KIND_MEMCPY}, /* 2021 legacy */
    {"gpu_memset", TREX_KIND_MEMSET},
    {"Memset", TREX_KIND_MEMSET}, /* 2021 legacy */
    {"gpu_user_annotation", TREX_KIND_GPU_ANNOTATION},
    {"cuda_sync", TREX_KIND_GPU_SYNC},
    /* CUPTI range profiler: one range per kernel, replayed to read its
     * counters; the times are the replays', not the kernel's. */
    {"cuda_profiler_range", TREX_KIND_GPU_OTHER},
    {"cpu_op", TREX_KIND_CPU_OP},
    {"Operator", TREX_KIND_CPU_OP}, /* 2021 legacy */
    {"user_annotation", TREX_KIND_ANNOTATION},
    {"cuda_runtime", TREX_KIND_RUNTIME}, /* also ROCm hip* calls */
    {"cuda_driver", TREX_KIND_RUNTIME},
    {"Runtime", TREX_KIND_RUNTIME}, /* 2021 legacy */
    {"xpu_runtime", TREX_KIND_RUNTIME},
    {"xpu_driver", TREX_KIND_RUNTIME},
    {"mtia_runtime", TREX_KIND_RUNTIME},
    {"privateuse1_runtime", TREX_KIND_RUNTIME},
    {"privateuse1_driver", TREX_KIND_RUNTIME},
    {"python_function", TREX_KIND_PYTHON},
    {"cpu_instant_event", TREX_KIND_CPU_INSTANT},
    {"overhead", TREX_KIND_OVERHEAD},
};

/* Where the category is not enough, the name decides: unitrace writes
 * every device command as gpu_op (unitrace.md §1), MTIA's command
 * processor every device event as mtia_ccp_events, and acelyzer's FLEX
 * dumps have no category at all (acelyzer.md §1). The rules of a category
 * are tried in order; the first whose text the name starts with (or ends
 * with, or any name for NAME_ANY) gives the kind. */
enum name_match { NAME_PREFIX, NAME_SUFFIX, NAME_EQUALS, NAME_ANY };

struct name_rule {
	const char *cat;
	enum name_match how;
	const char *text;
	enum trex_kind kind;
};

static const struct name_rule name_rules[] = {
    {"gpu_op", NAME_PREFIX, "zeCommandListAppendMemoryCopy", TREX_KIND_MEMCPY}, /* ...Region */
    {"gpu_op", NAME_PREFIX, "zeCommandListAppendMemoryFill", TREX_KIND_MEMSET},
    {"gpu_op", NAME_PREFIX, "zeCommandListAppend", TREX_KIND_GPU_OTHER}, /* barriers, ... */
    {"gpu_op", NAME_PREFIX, "clEnqueueReadBuffer", TREX_KIND_MEMCPY},
    {"gpu_op", NAME_PREFIX, "clEnqueueWriteBuffer", TREX_KIND_MEMCPY},
    {"gpu_op", NAME_PREFIX, "clEnqueueCopyBuffer", TREX_KIND_MEMCPY},
    {"gpu_op", NAME_PREFIX, "clEnqueueSVMMemcpy", TREX_KIND_MEMCPY},
    {"gpu_op", NAME_PREFIX, "clEnqueueFillBuffer", TREX_KIND_MEMSET},
    {"gpu_op", NAME_PREFIX, "clEnqueueSVMMemFill", TREX_KIND_MEMSET},
    {"gpu_op", NAME_ANY, "", TREX_KIND_KERNEL},
    /* MTIA: dma_request copies, event_wait waits on another stream,
     * event_record marks; pe_exe, merge, remote, ... run on the PE grid. */
    {"mtia_ccp_events", NAME_PREFIX, "dma_", TREX_KIND_MEMCPY},
    {"mtia_ccp_events", NAME_EQUALS, "event_wait", TREX_KIND_GPU_SYNC},
    {"mtia_ccp_events", NAME_PREFIX, "event_", TREX_KIND_GPU_OTHER},
    {"mtia_ccp_events", NAME_ANY, "", TREX_KIND_KERNEL},
    /* acelyzer FLEX: "<op> Cmpt Exec" runs a kernel (what acelyzer's
     * summary counts), "<op> Cmpt Prep" prepares it, "... DmaI" / "... DmaO"
     * move data in and out (RDMA transfers of collectives included). */
    {"", NAME_SUFFIX, " Cmpt Exec", TREX_KIND_KERNEL},
    {"", NAME_SUFFIX, " Cmpt Prep", TREX_KIND_GPU_OTHER},
    {"", NAME_SUFFIX, " DmaI", TREX_KIND_MEMCPY},
    {"", NAME_SUFFIX, " DmaO", TREX_KIND_MEMCPY},
};

static bool starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

/* Implicit-scaling events are named "Tile #<n>: <command>". */
static const char *skip_tile_prefix(const char *name)
{
	if (!starts_with(name, "Tile #"))
		return name;
	const char *colon = strstr(name, ": ");
	return colon ? colon + 2 : name;
}

static bool name_matches(const struct name_rule *r, const char *name)
{
	switch (r->how) {
	case NAME_PREFIX:
		return starts_with(name, r->text);
	case NAME_SUFFIX:
		return ends_with(name, r->text);
	case NAME_EQUALS:
		return strcmp(name, r->text) == 0;
	case NAME_ANY:
		return true;
	}
	return false;
}

/* The kind of a category that needs the name (trex_kind_needs_name). */
static enum trex_kind kind_by_name(const char *cat, const char *name)
{
	if (!name)
		name = "";
	if (strcmp(cat, "gpu_op") == 0)
		name = skip_tile_prefix(name);
	for (size_t i = 0; i < sizeof name_rules / sizeof name_rules[0]; i++)
		if (strcmp(cat, name_rules[i].cat) == 0 && name_matches(&name_rules[i], name))
			return name_rules[i].kind;
	return TREX_KIND_OTHER;
}

bool trex_kind_category_rule(size_t i, const char **cat, enum trex_kind *kind)
{
	if (i >= sizeof cat_rules / sizeof cat_rules[0])
		return false;
	*cat = cat_rules[i].cat;
	*kind = cat_rules[i].kind;
	return true;
}

bool trex_kind_name_rule(size_t i, struct trex_kind_name_rule *out)
{
	static const char *const how[] = {"starts with", "ends with", "is", "any other name"};

	if (i >= sizeof name_rules / sizeof name_rules[0])
		return false;
	out->cat = name_rules[i].cat;
	out->how = how[name_rules[i].how];
	out->text = name_rules[i].text;
	out->kind = name_rules[i].kind;
	return true;
}

/* (A category's rules are adjacent: one comparison per category.) */
bool trex_kind_needs_name(const char *cat)
{
	if (!cat)
		return false;
	for (size_t i = 0; i < sizeof name_rules / sizeof name_rules[0]; i++)
		if ((i == 0 || name_rules[i].cat != name_rules[i - 1].cat) &&
		    strcmp(cat, name_rules[i].cat) == 0)
			return true;
	return false;
}

enum trex_kind trex_kind_of(const char *cat, const char *name)
{
	if (!cat)
		return TREX_KIND_OTHER;
	if (trex_kind_needs_name(cat))
		return kind_by_name(cat, name);
	for (size_t i = 0; i < sizeof cat_rules / sizeof cat_rules[0]; i++)
		if (strcmp(cat, cat_rules[i].cat) == 0)
			return cat_rules[i].kind;
	return TREX_KIND_OTHER;
}
