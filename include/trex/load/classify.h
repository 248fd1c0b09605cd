/* What the build cannot decide alone, decided once for every loader at
 * the end of the build (builder.h, trex_build_classifier), from the
 * complete index:
 *
 *  - device queues: a slice of an unknown category (kind OTHER, some
 *    category) is a kernel when its track is a device's: a device queue
 *    of the index (TREX_TRACK_GPU), or a track of a process whose name or
 *    labels start with one of TREX_DEVICE_WORDS;
 *  - communication: device work (kernels, memory copies and sets) that
 *    one of TREX_COMM_RULE_INFO's rules matches, tried in table order:
 *    first the NAME rules on the work's name, then the OP rules on the
 *    CPU slices enclosing its launch (the runtime call sharing its launch
 *    link, innermost first; without one, the CPU op sharing its op link),
 *    then, only for work with no launching CPU slice at all (GPU-only
 *    traces), the ARG rules on its own args. Work that shows a
 *    communication node of the index's graph (trex_index_graph) is
 *    communication by the GRAPH rule, before all of these.
 *
 * The slices keep the result (trex_slice.kind and .comm): every analysis,
 * view and export reads the same classification. */
#ifndef TREX_LOAD_CLASSIFY_H
#define TREX_LOAD_CLASSIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trex/core/args.h"
#include "trex/core/builder.h"
#include "trex/core/index.h"
#include "trex/core/kind.h"
#include "trex/core/status.h"

/* Process name/label words that make a device (see above). */
#define TREX_DEVICE_WORDS "GPU", "AIU", "MTIA", "XPU", "HPU", "NPU", "TPU"

/* X(ID, "id", BY, "pattern", "what it recognises"). NAME and OP patterns
 * are PCRE2 regexes (searched, not anchored unless they say so); an ARG
 * pattern is the exact key of a top-level args member. */
#define TREX_COMM_RULE_INFO(X)                                                                     \
	X(RCCL, "rccl", NAME, "(?i)rccl", "RCCL: rcclGenericKernel")                               \
	X(MSCCL, "msccl", NAME, "(?i)msccl", "MSCCL and MSCCL++: mscclKernel_*")                   \
	X(NCCL, "nccl", NAME, "(?i)nccl", "NCCL, and RCCL on ROCm: ncclDevKernel_*, ncclKernel_*") \
	X(ONECCL, "oneccl", NAME,                                                                  \
	  "(?i)oneccl|\\bccl::|^ccl_|^(allreduce|alltoallv|reduce_read_write|local_reduce|"        \
	  "(read_)?write_monolithic|reduce_monolithic)_kernel_|"                                   \
	  "^reduce_(single_)?local_(inplace|outofplace)_kernel_",                                  \
	  "Intel oneCCL: its Level Zero kernels (allreduce_kernel_*, "                             \
	  "reduce_local_inplace_kernel_*, ...) and ccl:: SYCL kernels")                            \
	X(HCCL, "hccl", NAME, "(?i)hccl|^hcom",                                                    \
	  "Huawei HCCL (hcom_allReduce_*, HcclAllReduce) and Habana HCCL")                         \
	X(DEEPEP, "deepep", NAME, "deep_ep::|dpsk::ep::",                                          \
	  "DeepEP expert-parallel all-to-all: dispatch, combine, notify_dispatch, "                \
	  "cached_notify, get_dispatch_layout")                                                    \
	X(PPLX, "pplx", NAME,                                                                      \
	  "pplx::|^(void )?(\\(anonymous namespace\\)::)?(dispatch|combine)Kernel<",               \
	  "pplx-kernels all-to-all: dispatchKernel, combineKernel")                                \
	X(NVSHMEM, "nvshmem", NAME, "(?i)nvshmem", "NVSHMEM: nvshmemi_*, nvshmemx_*")              \
	X(CUSTOM_AR, "custom-allreduce", NAME,                                                     \
	  "cross_device_reduce|multimem_|(one|two)_shot_all_reduce|(?i:custom_?all_?reduce)",      \
	  "custom all-reduce over peer memory (vLLM, SGLang, aiter, PyTorch symmetric "            \
	  "memory)")                                                                               \
	X(AIU, "aiu", NAME, "HCOLL|Rdma(Send|Recv|Receive)|\\[sync=",                              \
	  "IBM AIU collectives: HCOLL work and RDMA transfers of a sync group")                    \
	X(WORDS, "collective-name", NAME,                                                          \
	  "(?i)allreduce|all_reduce|allgather|all_gather|reducescatter|reduce_scatter|"            \
	  "alltoall|all_to_all|sendrecv|send_recv",                                                \
	  "a collective's name in the kernel name")                                                \
	X(C10D_OP, "c10d-op", OP, "^(_?c10d_functional|c10d|symm_mem)::",                          \
	  "launched under a PyTorch c10d operator (c10d::allreduce_, "                             \
	  "_c10d_functional::all_gather_into_tensor, symm_mem::...)")                              \
	X(PG_OP, "process-group-op", OP, "^(nccl|gloo|xccl|hccl|ucc|mpi):",                        \
	  "launched under a process group's range (nccl:all_reduce, gloo:broadcast, ...)")         \
	X(PARAM_COMMS_OP, "record-param-comms-op", OP, "^record_param_comms$",                     \
	  "launched under record_param_comms")                                                     \
	X(LIBRARY_OP, "library-op", OP,                                                            \
	  "^(oneccl_bindings_for_pytorch|pplx_kernels|_C_custom_ar)::|"                            \
	  "^vllm::(all_reduce|all_gather|reduce_scatter|all_to_all)",                              \
	  "launched under a communication library's operator (torch-ccl, pplx, vLLM)")             \
	X(COLLECTIVE_ARG, "collective-arg", ARG, "Collective name",                                \
	  "Kineto's collective metadata on the kernel")                                            \
	X(COLLGROUP_ARG, "collgroup-arg", ARG, "CollGroup", "an AIU collective group")             \
	X(GRAPH, "graph-comm", GRAPH, "send|recv|collective",                                      \
	  "a communication node of an execution graph (Chakra ET, ASTRA-sim, PyTorch ET), "        \
	  "by its node type; decided before every other rule")

enum trex_comm_by { TREX_COMM_BY_NAME, TREX_COMM_BY_OP, TREX_COMM_BY_ARG, TREX_COMM_BY_GRAPH };

enum trex_comm_rule_id {
#define TREX_COMM_RULE_ENUM(id, name, by, pattern, about) TREX_COMM_##id,
	TREX_COMM_RULE_INFO(TREX_COMM_RULE_ENUM)
#undef TREX_COMM_RULE_ENUM
	    TREX_COMM_RULE_COUNT
};

struct trex_comm_rule {
	const char *id; /* "nccl" */
	enum trex_comm_by by;
	const char *pattern;
	const char *about;
};

/* The i-th rule (enum trex_comm_rule_id), for documentation, the
 * categories view and tests; false past the end. */
bool trex_comm_rule(size_t i, struct trex_comm_rule *out);
/* "name", "op" or "arg". */
const char *trex_comm_by_label(enum trex_comm_by by);

/* The compiled NAME and OP rules, to match single names. */
struct trex_comm_matcher;
enum trex_status trex_comm_matcher_new(struct trex_comm_matcher **out, struct trex_error *err);
void trex_comm_matcher_free(struct trex_comm_matcher *m);
/* The first rule of kind by (NAME or OP) whose regex finds name, or
 * TREX_COMM_NONE. */
unsigned trex_comm_match(const struct trex_comm_matcher *m, enum trex_comm_by by, const char *name);
/* The first ARG rule naming a top-level member of decoded args, or
 * TREX_COMM_NONE. */
unsigned trex_comm_match_args(const struct trex_args *args);

_Static_assert(TREX_COMM_RULE_COUNT < TREX_COMM_NONE, "rule ids fit trex_slice.comm");

/* Is the process a device by its name or labels (TREX_DEVICE_WORDS)? */
bool trex_device_process(const struct trex_index *idx, uint32_t process);

/* The classifier the loaders give the build. */
extern const struct trex_build_classifier trex_load_classifier;

#endif
