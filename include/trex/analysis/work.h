/* Device work and communication: the one rule set that every analysis
 * and view uses to decide which slices are device work (kernels, memory
 * copies and sets, on any accelerator) and which of them communicate.
 *
 * A slice's kind comes from trex_kind_of (core/kind.h); on top of it a
 * slice of an unknown category (kind OTHER) is a kernel when its track
 * is a device track: a GPU stream of the index (TREX_TRACK_GPU), or a
 * track of a process whose name or labels start with one of
 * TREX_WORK_DEVICE_WORDS. Device work is every kernel, memcpy and memset.
 *
 * Communication is device work that one of TREX_COMM_RULE_INFO's rules
 * matches, tried in table order: first the NAME rules on the work's name,
 * then the OP rules on the CPU slices enclosing its launch (the runtime
 * call with its correlation id, innermost first; without one, the cpu_op
 * sharing its External id), then, only for work with no launching CPU
 * slice at all (GPU-only traces), the ARG rules on its own args. */
#ifndef TREX_ANALYSIS_WORK_H
#define TREX_ANALYSIS_WORK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trex/core/index.h"
#include "trex/core/kind.h"
#include "trex/core/status.h"

/* Process name/label words that make a device (see above). */
#define TREX_WORK_DEVICE_WORDS "GPU", "AIU", "MTIA", "XPU", "HPU", "NPU", "TPU"

/* X(ID, "id", BY, "pattern", "what it recognises"). NAME and OP patterns
 * are PCRE2 regexes (searched, not anchored unless they say so); an ARG
 * pattern is the exact key of a top-level args member. */
#define TREX_COMM_RULE_INFO(X)                                                                 \
	X(RCCL, "rccl", NAME, "(?i)rccl", "RCCL: rcclGenericKernel")                           \
	X(MSCCL, "msccl", NAME, "(?i)msccl", "MSCCL and MSCCL++: mscclKernel_*")               \
	X(NCCL, "nccl", NAME, "(?i)nccl",                                                      \
	  "NCCL, and RCCL on ROCm: ncclDevKernel_*, ncclKernel_*")                            \
	X(ONECCL, "oneccl", NAME,                                                              \
	  "(?i)oneccl|\\bccl::|^ccl_|^(allreduce|alltoallv|reduce_read_write|local_reduce|"              \
	  "(read_)?write_monolithic|reduce_monolithic)_kernel_|"                               \
	  "^reduce_(single_)?local_(inplace|outofplace)_kernel_",                              \
	  "Intel oneCCL: its Level Zero kernels (allreduce_kernel_*, "                         \
	  "reduce_local_inplace_kernel_*, ...) and ccl:: SYCL kernels")                        \
	X(HCCL, "hccl", NAME, "(?i)hccl|^hcom",                                                \
	  "Huawei HCCL (hcom_allReduce_*, HcclAllReduce) and Habana HCCL")                     \
	X(DEEPEP, "deepep", NAME, "deep_ep::|dpsk::ep::",                                      \
	  "DeepEP expert-parallel all-to-all: dispatch, combine, notify_dispatch, "            \
	  "cached_notify, get_dispatch_layout")                                                \
	X(PPLX, "pplx", NAME,                                                                  \
	  "pplx::|^(void )?(\\(anonymous namespace\\)::)?(dispatch|combine)Kernel<",           \
	  "pplx-kernels all-to-all: dispatchKernel, combineKernel")                            \
	X(NVSHMEM, "nvshmem", NAME, "(?i)nvshmem", "NVSHMEM: nvshmemi_*, nvshmemx_*")          \
	X(CUSTOM_AR, "custom-allreduce", NAME,                                                 \
	  "cross_device_reduce|multimem_|(one|two)_shot_all_reduce|(?i:custom_?all_?reduce)",  \
	  "custom all-reduce over peer memory (vLLM, SGLang, aiter, PyTorch symmetric "        \
	  "memory)")                                                                           \
	X(AIU, "aiu", NAME, "HCOLL|Rdma(Send|Recv|Receive)|\\[sync=",                         \
	  "IBM AIU collectives: HCOLL work and RDMA transfers of a sync group")                \
	X(WORDS, "collective-name", NAME,                                                      \
	  "(?i)allreduce|all_reduce|allgather|all_gather|reducescatter|reduce_scatter|"        \
	  "alltoall|all_to_all|sendrecv|send_recv",                                            \
	  "a collective's name in the kernel name")                                            \
	X(C10D_OP, "c10d-op", OP, "^(_?c10d_functional|c10d|symm_mem)::",                      \
	  "launched under a PyTorch c10d operator (c10d::allreduce_, "                         \
	  "_c10d_functional::all_gather_into_tensor, symm_mem::...)")                          \
	X(PG_OP, "process-group-op", OP, "^(nccl|gloo|xccl|hccl|ucc|mpi):",                    \
	  "launched under a process group's range (nccl:all_reduce, gloo:broadcast, ...)")    \
	X(PARAM_COMMS_OP, "record-param-comms-op", OP, "^record_param_comms$",                 \
	  "launched under record_param_comms")                                                 \
	X(LIBRARY_OP, "library-op", OP,                                                        \
	  "^(oneccl_bindings_for_pytorch|pplx_kernels|_C_custom_ar)::|"                        \
	  "^vllm::(all_reduce|all_gather|reduce_scatter|all_to_all)",                          \
	  "launched under a communication library's operator (torch-ccl, pplx, vLLM)")        \
	X(COLLECTIVE_ARG, "collective-arg", ARG, "Collective name",                            \
	  "Kineto's collective metadata on the kernel")                                        \
	X(COLLGROUP_ARG, "collgroup-arg", ARG, "CollGroup", "an AIU collective group")

enum trex_comm_by { TREX_COMM_BY_NAME, TREX_COMM_BY_OP, TREX_COMM_BY_ARG };

enum trex_comm_rule_id {
#define TREX_COMM_RULE_ENUM(id, name, by, pattern, about) TREX_COMM_##id,
	TREX_COMM_RULE_INFO(TREX_COMM_RULE_ENUM)
#undef TREX_COMM_RULE_ENUM
	TREX_COMM_RULE_COUNT
};
#define TREX_COMM_NONE TREX_COMM_RULE_COUNT

struct trex_comm_rule {
	const char *id;      /* "nccl" */
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
unsigned trex_comm_match(const struct trex_comm_matcher *m, enum trex_comm_by by,
			 const char *name);
/* The first ARG rule naming a top-level member of the args object text
 * ("{...}"), or TREX_COMM_NONE. */
unsigned trex_comm_match_args(const char *args, size_t len);

/* What every slice of an index is: filled once, read by all analyses. */
struct trex_work {
	uint8_t *kind;     /* per slice: enum trex_kind, device tracks applied */
	uint8_t *comm;     /* per slice: communication rule, TREX_COMM_NONE if none;
	                    * NULL when classified without them */
	uint32_t nslices;
	uint64_t kernels, memcpys, memsets; /* device work counts */
};

/* Classifies every slice of idx: kinds, and with comm the communication
 * rules too (they cost a launch lookup per piece of device work). Fails
 * with NOMEM, or with the error of an args object that cannot be read
 * back (IO, FORMAT, positioned). */
enum trex_status trex_work_classify(const struct trex_index *idx, bool comm,
				    struct trex_work *out, struct trex_error *err);
void trex_work_free(struct trex_work *w);

static inline enum trex_kind trex_work_kind(const struct trex_work *w, uint32_t slice)
{
	return (enum trex_kind)w->kind[slice];
}
static inline bool trex_work_is_device(const struct trex_work *w, uint32_t slice)
{
	enum trex_kind k = trex_work_kind(w, slice);

	return k == TREX_KIND_KERNEL || k == TREX_KIND_MEMCPY || k == TREX_KIND_MEMSET;
}
/* Communication rule of a slice, TREX_COMM_NONE if it does not communicate. */
static inline unsigned trex_work_comm(const struct trex_work *w, uint32_t slice)
{
	return w->comm ? w->comm[slice] : TREX_COMM_NONE;
}

/* Is the process a device by its name or labels (TREX_WORK_DEVICE_WORDS)? */
bool trex_work_device_process(const struct trex_index *idx, uint32_t process);

/* What the empty views say. */
enum trex_work_want {
	TREX_WORK_WANT_KERNELS, /* the kernels table */
	TREX_WORK_WANT_DEVICE,  /* categories, GPU time: kernels, copies and sets */
};

/* Why idx has no device work of the wanted sort, in one line written to
 * buf ("no GPU kernels: this trace has only CPU events (categories
 * cpu_op, user_annotation)"); NULL (buf untouched) when it has some. */
const char *trex_work_empty_reason(const struct trex_index *idx, const struct trex_work *w,
				   enum trex_work_want want, char *buf, size_t size);

#endif
