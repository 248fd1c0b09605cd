/* Kernel categories: which share of GPU time goes to GEMMs, attention,
 * collectives, copies, ... A category set maps a kernel name to a
 * category; the built-in set is a table of PCRE2 regexes, user sets come
 * from unitrace category schemas (INI) or trex rules files. */
#ifndef TREX_ANALYSIS_CATEGORIES_H
#define TREX_ANALYSIS_CATEGORIES_H

#include <stdbool.h>
#include <stddef.h>

#include "trex/analysis/table.h"
#include "trex/core/index.h"
#include "trex/core/status.h"

/* X(ID, "category", "PCRE2 regex"): the built-in rules, tried in order
 * against the kernel name (first match wins). An empty regex stands for
 * the communication rules of analysis/work.h: by name in
 * trex_catset_match, by name, launching op and args in the tables. */
#define TREX_CATEGORY_BUILTIN_INFO(X)                                                              \
	X(COLLECTIVE, "collective", "")                                                            \
	X(MEMCPY, "memcpy", "(?i)memcpy|memorycopy|memmove|clEnqueue(Read|Write|Copy)Buffer")      \
	X(MEMSET, "memset", "(?i)memset|memoryfill|fillbuffer|memfill")                            \
	X(ATTENTION, "attention", "(?i)flash|fmha|attention|attn|sdpa|mha_")                       \
	X(CONVOLUTION, "convolution", "(?i)conv|winograd|implicit_?gemm|fprop|dgrad|wgrad")        \
	X(GEMM, "gemm", "(?i)gemm|gemv|matmul|cutlass|cublas|xmma|wgmma|Cijk_|_mm_|bmm")           \
	X(NORMALIZATION, "normalization", "(?i)norm|bn_fw|bn_bw|welford")                          \
	X(SOFTMAX, "softmax", "(?i)softmax")                                                       \
	X(REDUCTION, "reduction", "(?i)reduce|reduction|sum_kernel|argmax|argmin|cub::")           \
	X(ELEMENTWISE, "elementwise",                                                              \
	  "(?i)elementwise|vectorized|pointwise|triton_poi|unary|binary|activation|gelu|"          \
	  "relu|silu|sigmoid|tanh|add_kernel|mul_kernel|copy|fill")                                \
	X(OTHER, "other",                                                                          \
	  "(?i)sync|barrier|index|scatter|gather|cat|embedding|sort|topk|random|philox|"           \
	  "dropout|arange")

/* What kernels no rule matches are counted as (always a row). */
#define TREX_CATEGORY_NONE "uncategorized"
/* The built-in category of communication (trex_catset_comm_decides). */
#define TREX_CATEGORY_COMM "collective"

struct trex_catset; /* opaque, immutable once made */

/* Called once per problem in a schema file, with "FILE:LINE: message". */
typedef void trex_catset_diag_fn(void *user, const char *line);

enum trex_status trex_catset_builtin(struct trex_catset **out, struct trex_error *err);

/* Parses a category file's text (path is for messages). Two formats:
 *  - a unitrace schema (the first rule line starts with '['): sections
 *    "[CAT if equals to|starts with|ends with]" (spaces inside the verb
 *    ignored, ".sub" after CAT dropped), one name tag per line ('#' and
 *    ';' start comments, text after ":=" ignored, spaces and tabs removed).
 *    A name (spaces removed) takes the category of the longest "starts
 *    with" tag it starts with or the "equals to" tag it equals, whichever is
 *    longer; failing that, of the longest "ends with" tag it ends with.
 *  - trex rules: "CATEGORY = PCRE2-REGEX" lines, '#' comments; the first
 *    rule (file order) whose regex matches the name wins.
 * A bad line is reported through diag (may be NULL) and skipped; the rest
 * loads. Fails (FORMAT) only when nothing loads, NOMEM when out of memory. */
enum trex_status trex_catset_parse(const char *path, const char *text, size_t len,
                                   trex_catset_diag_fn *diag, void *user, struct trex_catset **out,
                                   struct trex_error *err);

/* The category of a kernel name, or NULL when no rule matches. */
const char *trex_catset_match(const struct trex_catset *cs, const char *name);
/* Does the communication rule set (trex_work_comm) decide the set's
 * "collective" category? True for the built-in set only. */
bool trex_catset_comm_decides(const struct trex_catset *cs);
void trex_catset_free(struct trex_catset *cs);

/* Is a category of a category file communication? Its name, up to the
 * first '.', is one of TREX_CATEGORY_COMM_WORDS (case ignored, '_' and '-'
 * ignored): "comm", "Communication", "allreduce", "all_gather", "nccl"... */
#define TREX_CATEGORY_COMM_WORDS                                                                   \
	"comm", "communication", "collective", "collectives", "allreduce", "allgather",            \
	    "reducescatter", "alltoall", "sendrecv", "send", "recv", "p2p", "ccl", "nccl", "rccl", \
	    "oneccl", "hccl", "xccl"
bool trex_category_is_comm(const char *category);
/* What a category file (not the built-in set) says of device work called
 * name, for the load's communication (trex_comm_override, load/classify.h):
 * 1 when it puts the name in a communication category, 0 in another one,
 * -1 in none. user is the struct trex_catset. */
int trex_catset_comm_by_name(const void *user, const char *name);

struct trex_category_opts {
	const struct trex_catset *set; /* NULL: the built-in rules */
	bool bar;                      /* add the text "bar" column */
};

/* One row per category of the set, plus "uncategorized", over every piece
 * of device work (trex_work_is_device: kernels, memcpy and memset, by
 * total descending, ties by name):
 *   total_ns, share_pct (of all their time), calls,
 *   rank<R>_<DEVICE>_ns per GPU device that ran any (DEVICE = the pid text),
 *   [bar: '#' per 5 %, rounded], rules, category.
 * A slice's category: with the built-in set, "collective" when a
 * communication rule matches it (trex_work_comm), else the first built-in
 * regex matching its name; with a set of rules, its name's rule.
 * rules names the rules that decided the category's work, by time
 * (descending): a communication rule's id ("nccl", "c10d-op",
 * "collective-arg"), "<category> regex", an INI tag ("starts with Gemm")
 * or a rules file line ("line 3").
 * Without any device work the table has no row and t->note says why
 * (trex_work_empty_reason). */
enum trex_status trex_categories_table(const struct trex_index *idx,
                                       const struct trex_category_opts *opts, struct trex_table *t,
                                       struct trex_error *err);

/* One row per rule that decided any device work, by time (descending):
 *   total_ns, share_pct, calls, category, on (what the rule looked at:
 *   "name", "op" or "arg"; "" for uncategorized work), rule (as in the
 *   rules column, "" for uncategorized work), example (the name of the
 *   rule's longest slice, the earliest id of equals).
 * Empty as trex_categories_table is, with the same note. */
enum trex_status trex_categories_explain_table(const struct trex_index *idx,
                                               const struct trex_category_opts *opts,
                                               struct trex_table *t, struct trex_error *err);

/* Categories of a set of ranks without one index of them all (cli_ranks.c):
 * each rank's part by the built-in rules, made from that rank alone, then
 * the table trex_categories_table gives for the merged load of the set.
 * A part holds the rank's per-rule and per-category sums and its device
 * columns (names and keys), not the index. */
struct trex_category_part;
enum trex_status trex_category_part_new(const struct trex_index *idx,
                                        struct trex_category_part **out, struct trex_error *err);
void trex_category_part_free(struct trex_category_part *p);
/* parts[0..n) in the set's rank order, ranks[i] the set's rank of
 * parts[i] (no two alike); bar as trex_category_opts'. *joined false (t
 * empty) when no part holds any device work: the merged load's note says
 * why from the index. */
enum trex_status trex_categories_join_table(struct trex_category_part *const *parts,
                                            const int64_t *ranks, size_t n, bool bar,
                                            struct trex_table *t, bool *joined,
                                            struct trex_error *err);

#endif
