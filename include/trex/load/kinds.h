/* What an event of a Chrome-trace dialect is: the one table that says
 * which categories (and, where the category is not enough, which names)
 * are GPU kernels, memory copies, runtime calls, ... (doc/formats/chrome-trace.md §5,
 * unitrace.md §1, acelyzer.md). The loaders store the kind of every slice
 * (trex_ev.kind); nothing downstream reads categories again. */
#ifndef TREX_LOAD_KINDS_H
#define TREX_LOAD_KINDS_H

#include <stdbool.h>
#include <stddef.h>

#include "trex/core/kind.h"

/* Classifies an event by category and, where the category is not enough
 * (unitrace gpu_op, MTIA mtia_ccp_events, acelyzer FLEX events without a
 * category: ""), by name. Either may be NULL. */
enum trex_kind trex_kind_of(const char *cat, const char *name);
/* Does the kind depend on the name for this category? (Callers caching
 * kinds per category must then classify per name.) */
bool trex_kind_needs_name(const char *cat);

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

#endif
