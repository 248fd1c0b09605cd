#include "config.h"

#include "trex/core/kind.h"

#include <stdbool.h>
#include <string.h>

/* One row per category spelling seen across dialects (kineto.md §5,
 * unitrace.md §1, acelyzer.md §1). Categories not listed are OTHER. */
struct cat_rule {
	const char *cat;
	enum trex_kind kind;
};

static const struct cat_rule cat_rules[] = {
	{"kernel", TREX_KIND_KERNEL},          /* Kineto CUDA and ROCm */
	{"Kernel", TREX_KIND_KERNEL},          /* 2021 legacy */
	{"gpu_memcpy", TREX_KIND_MEMCPY},
	{"Memcpy", TREX_KIND_MEMCPY},          /* 2021 legacy */
	{"gpu_memset", TREX_KIND_MEMSET},
	{"Memset", TREX_KIND_MEMSET},          /* 2021 legacy */
	{"gpu_user_annotation", TREX_KIND_GPU_ANNOTATION},
	{"cuda_sync", TREX_KIND_GPU_SYNC},
	{"mtia_ccp_events", TREX_KIND_GPU_OTHER}, /* MTIA device work (dma_request, ...) */
	{"cpu_op", TREX_KIND_CPU_OP},
	{"Operator", TREX_KIND_CPU_OP},        /* 2021 legacy */
	{"user_annotation", TREX_KIND_ANNOTATION},
	{"cuda_runtime", TREX_KIND_RUNTIME},   /* also ROCm hip* calls */
	{"cuda_driver", TREX_KIND_RUNTIME},
	{"Runtime", TREX_KIND_RUNTIME},        /* 2021 legacy */
	{"xpu_runtime", TREX_KIND_RUNTIME},
	{"xpu_driver", TREX_KIND_RUNTIME},
	{"mtia_runtime", TREX_KIND_RUNTIME},
	{"privateuse1_runtime", TREX_KIND_RUNTIME},
	{"privateuse1_driver", TREX_KIND_RUNTIME},
	{"python_function", TREX_KIND_PYTHON},
	{"cpu_instant_event", TREX_KIND_CPU_INSTANT},
	{"overhead", TREX_KIND_OVERHEAD},
};

/* unitrace writes every device command under one category; only the
 * name tells a kernel from a memory command (unitrace.md §1). */
static const char unitrace_gpu_cat[] = "gpu_op";

struct name_rule {
	const char *prefix;
	enum trex_kind kind;
};

static const struct name_rule unitrace_name_rules[] = {
	{"zeCommandListAppendMemoryCopy", TREX_KIND_MEMCPY}, /* also ...Region, ...FromContext */
	{"zeCommandListAppendMemoryFill", TREX_KIND_MEMSET},
	{"zeCommandListAppend", TREX_KIND_GPU_OTHER},         /* barriers, event resets, ... */
	{"clEnqueueReadBuffer", TREX_KIND_MEMCPY},
	{"clEnqueueWriteBuffer", TREX_KIND_MEMCPY},
	{"clEnqueueCopyBuffer", TREX_KIND_MEMCPY},
	{"clEnqueueSVMMemcpy", TREX_KIND_MEMCPY},
	{"clEnqueueFillBuffer", TREX_KIND_MEMSET},
	{"clEnqueueSVMMemFill", TREX_KIND_MEMSET},
};

static bool starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Implicit-scaling events are named "Tile #<n>: <command>". */
static const char *skip_tile_prefix(const char *name)
{
	if (!starts_with(name, "Tile #"))
		return name;
	const char *colon = strstr(name, ": ");
	return colon ? colon + 2 : name;
}

static enum trex_kind unitrace_kind(const char *name)
{
	if (!name)
		return TREX_KIND_KERNEL;
	name = skip_tile_prefix(name);
	for (size_t i = 0; i < sizeof unitrace_name_rules / sizeof unitrace_name_rules[0]; i++)
		if (starts_with(name, unitrace_name_rules[i].prefix))
			return unitrace_name_rules[i].kind;
	return TREX_KIND_KERNEL;
}

bool trex_kind_category_rule(size_t i, const char **cat, enum trex_kind *kind)
{
	if (i >= sizeof cat_rules / sizeof cat_rules[0])
		return false;
	*cat = cat_rules[i].cat;
	*kind = cat_rules[i].kind;
	return true;
}

bool trex_kind_name_rule(size_t i, const char **prefix, enum trex_kind *kind)
{
	if (i >= sizeof unitrace_name_rules / sizeof unitrace_name_rules[0])
		return false;
	*prefix = unitrace_name_rules[i].prefix;
	*kind = unitrace_name_rules[i].kind;
	return true;
}

bool trex_kind_needs_name(const char *cat)
{
	return cat && strcmp(cat, unitrace_gpu_cat) == 0;
}

enum trex_kind trex_kind_of(const char *cat, const char *name)
{
	if (!cat)
		return TREX_KIND_OTHER;
	if (trex_kind_needs_name(cat))
		return unitrace_kind(name);
	for (size_t i = 0; i < sizeof cat_rules / sizeof cat_rules[0]; i++)
		if (strcmp(cat, cat_rules[i].cat) == 0)
			return cat_rules[i].kind;
	return TREX_KIND_OTHER;
}

bool trex_kind_is_gpu(enum trex_kind kind)
{
	static const bool gpu[] = {
#define TREX_KIND_GPU(name, label, is_gpu) is_gpu,
		TREX_KIND_INFO(TREX_KIND_GPU)
#undef TREX_KIND_GPU
	};
	return (unsigned)kind < TREX_KIND_COUNT && gpu[kind];
}

const char *trex_kind_label(enum trex_kind kind)
{
	static const char *const labels[] = {
#define TREX_KIND_LABEL(name, label, is_gpu) label,
		TREX_KIND_INFO(TREX_KIND_LABEL)
#undef TREX_KIND_LABEL
	};
	return (unsigned)kind < TREX_KIND_COUNT ? labels[kind] : "?";
}
