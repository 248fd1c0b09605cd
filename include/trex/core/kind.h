/* What an event is, across trace dialects: the one table that says which
 * categories count as GPU kernels, memory copies, runtime calls, ...
 * (kineto.md §5, unitrace.md §1, acelyzer.md). */
#ifndef TREX_CORE_KIND_H
#define TREX_CORE_KIND_H

#include <stdbool.h>
#include <stddef.h>

/* X(NAME, "label", is_gpu) */
#define TREX_KIND_INFO(X)                               \
	X(OTHER, "other", false)                        \
	X(CPU_OP, "cpu op", false)                      \
	X(PYTHON, "python", false)                      \
	X(ANNOTATION, "annotation", false)              \
	X(RUNTIME, "runtime", false)                    \
	X(CPU_INSTANT, "cpu instant", false)            \
	X(OVERHEAD, "overhead", false)                  \
	X(KERNEL, "kernel", true)                       \
	X(MEMCPY, "memcpy", true)                       \
	X(MEMSET, "memset", true)                       \
	X(GPU_ANNOTATION, "gpu annotation", true)       \
	X(GPU_SYNC, "gpu sync", true)                   \
	X(GPU_OTHER, "gpu other", true)

enum trex_kind {
#define TREX_KIND_ENUM(name, label, gpu) TREX_KIND_##name,
	TREX_KIND_INFO(TREX_KIND_ENUM)
#undef TREX_KIND_ENUM
	TREX_KIND_COUNT
};

/* Classifies an event by category and, where the category is not enough
 * (unitrace gpu_op, MTIA mtia_ccp_events, acelyzer FLEX events without a
 * category: ""), by name. Either may be NULL. */
enum trex_kind trex_kind_of(const char *cat, const char *name);
/* Does the kind depend on the name for this category? (Callers caching
 * kinds per category must then classify per name.) */
bool trex_kind_needs_name(const char *cat);
bool trex_kind_is_gpu(enum trex_kind kind);

/* A rule for a category that needs the name: names of category cat that
 * `how` ("starts with", "ends with", "is", "any other name") text are of
 * kind. A category's rules are tried in table order. */
struct trex_kind_name_rule {
	const char *cat;
	const char *how;
	const char *text;
	enum trex_kind kind;
};

/* The rules themselves, for documentation and its tests: the i-th
 * category rule / name rule; false past the end. */
bool trex_kind_category_rule(size_t i, const char **cat, enum trex_kind *kind);
bool trex_kind_name_rule(size_t i, struct trex_kind_name_rule *out);
const char *trex_kind_label(enum trex_kind kind);

#endif
