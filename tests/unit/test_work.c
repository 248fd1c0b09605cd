/* Device work and communication: the rules against real kernel and op
 * names from public traces and library sources, and the classification
 * of small traces loaded from memory. */
#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "index_fixture.h"
#include "trex/analysis/work.h"
#include "trex/load/json_args.h"
#include "trex/load/loader.h"
#include "trex/load/source.h"

static struct trex_comm_matcher *matcher(void)
{
	struct trex_comm_matcher *m = NULL;
	struct trex_error err;

	cr_assert_eq(trex_comm_matcher_new(&m, &err), TREX_OK, "%s", err.message);
	return m;
}

static const char *rule_id(unsigned r)
{
	struct trex_comm_rule rule;

	return trex_comm_rule(r, &rule) ? rule.id : "(none)";
}

/* The ARG rule matching args text json, decoded as the loader's codec does. */
static unsigned match_args(const char *json)
{
	struct trex_args a;
	struct trex_error err;
	unsigned r;

	cr_assert_eq(trex_json_args_decode(json, strlen(json), &a, NULL, &err), TREX_OK);
	r = trex_comm_match_args(&a);
	trex_args_free(&a);
	return r;
}

static void assert_rules(enum trex_comm_by by, const char *const (*cases)[2], size_t n)
{
	struct trex_comm_matcher *m = matcher();

	for (size_t i = 0; i < n; i++)
		cr_expect_str_eq(rule_id(trex_comm_match(m, by, cases[i][0])), cases[i][1], "%s",
		                 cases[i][0]);
	trex_comm_matcher_free(m);
}

/* Kernel names as they appear in traces: corpus kineto/hta_nccl_data,
 * param_dlrm_8rank and tracelens_b200_eager, and names from the libraries'
 * sources (NCCL device_table, RCCL/MSCCL, oneCCL kernels.cl, HCCL profiler
 * task names, DeepEP csrc/kernels, pplx-kernels csrc/all_to_all, NVSHMEM,
 * vLLM custom all-reduce) and the public DeepSeek profile traces. */
Test(work, communication_kernel_names)
{
	static const char *const cases[][2] = {
	    {"ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)",
	     "nccl"},
	    {"ncclKernel_Broadcast_RING_LL_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)",
	     "nccl"},
	    {"ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)",
	     "nccl"},
	    {"ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "nccl"},
	    {"ncclDevKernel_AllReduce_Sum_f32_RING_LL", "nccl"},
	    {"ncclKernel_AllGather_RING_LL_Sum_int8_t", "nccl"},
	    {"ncclDevKernel_Generic_1(ncclDevKernelArgsStorage<4096ul>)", "nccl"},
	    {"void rcclGenericKernel<1, false>(ncclDevKernelArgsStorage<4096ul>)", "rccl"},
	    {"mscclKernel_Sum_hip_bfloat16_Simple_false", "msccl"},
	    {"allreduce_kernel_float32_sum", "oneccl"},
	    {"reduce_local_inplace_kernel_bfloat16_sum", "oneccl"},
	    {"reduce_local_outofplace_kernel_float16_sum", "oneccl"},
	    {"alltoallv_kernel_2_int32_custom", "oneccl"},
	    {"write_monolithic_kernel_3_float32_sum", "oneccl"},
	    {"oneccl_allgatherv_kernel", "oneccl"},
	    {"ccl::v1::allreduce_large_kernel<float>", "oneccl"},
	    {"hcom_allReduce__428_0_1", "hccl"},
	    {"hcom_allGather__503_1_1", "hccl"},
	    {"HcclAllReduce", "hccl"},
	    {"dpsk::ep::internode::combine", "deepep"},
	    {"dpsk::ep::internode::dispatch", "deepep"},
	    {"dpsk::ep::internode::cached_notify", "deepep"},
	    {"dpsk::ep::internode::notify_dispatch", "deepep"},
	    {"dpsk::ep::cuda::get_dispatch_layout", "deepep"},
	    {"void deep_ep::internode_ll::dispatch<false, 3, 7168>(void*, float*, int*)", "deepep"},
	    {"void deep_ep::legacy::intranode::combine<__nv_bfloat16, 8, 768>(__nv_bfloat16*)",
	     "deepep"},
	    {"void combineKernel<__nv_bfloat16, float, 10ul, true, true>(__nv_bfloat16*)", "pplx"},
	    {"void (anonymous namespace)::dispatchKernel<10u, true, true>(int*, unsigned long)",
	     "pplx"},
	    {"nvshmemi_init_array_kernel", "nvshmem"},
	    {"void nvshmemi_transfer_rma_nbi<(threadgroup_t)3>(void*, void*)", "nvshmem"},
	    {"void vllm::cross_device_reduce_1stage<__nv_bfloat16, 8>(vllm::RankData*)",
	     "custom-allreduce"},
	    {"void (anonymous namespace)::multimem_all_reduce_kernel<c10::BFloat16, 16>"
	     "(c10::BFloat16*, unsigned long)",
	     "custom-allreduce"},
	    {"SenRdmaSend_82227 [sync=AllReduce_all_reduce_4_s0_r1_0] DmaO", "aiu"},
	    {"SenRdmaReceive_82239 [524288B] [sync=AllReduce_all_reduce_4_s3_r0x7_6] DmaI", "aiu"},
	    {"aiuHCOLLAllReduce", "aiu"},
	    {"AllReduce_all_reduce_4_Add_1 Cmpt Exec", "collective-name"},
	    {"all_to_all_single_kernel", "collective-name"},
	    /* not communication */
	    {"ampere_sgemm_128x64_tn", "(none)"},
	    {"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float>>(float)",
	     "(none)"},
	    {"void at::native::(anonymous namespace)::scatter_gather_elementwise_kernel<128, 4>",
	     "(none)"},
	    {"Memcpy DtoD (Device -> Device)", "(none)"},
	    {"triton_poi_fused_add_0", "(none)"},
	    {"convolution_1 Cmpt Exec", "(none)"},
	    {"combine_kernel", "(none)"},
	};
	assert_rules(TREX_COMM_BY_NAME, cases, sizeof(cases) / sizeof(cases[0]));
}

/* CPU slices enclosing a launch: corpus kineto/hta_nccl_data (c10d::allreduce_,
 * record_param_comms, nccl:all_reduce is a user_annotation there),
 * tracelens_b200_eager (vllm::all_reduce, symm_mem::multimem_all_reduce_),
 * torch-ccl's RECORD_FUNCTION names, pplx's torch library. */
Test(work, communication_op_names)
{
	static const char *const cases[][2] = {
	    {"c10d::allreduce_", "c10d-op"},
	    {"c10d::alltoall_base_", "c10d-op"},
	    {"_c10d_functional::all_gather_into_tensor", "c10d-op"},
	    {"c10d_functional::all_reduce", "c10d-op"},
	    {"symm_mem::multimem_all_reduce_", "c10d-op"},
	    {"nccl:all_reduce", "process-group-op"},
	    {"nccl:_all_gather_base", "process-group-op"},
	    {"gloo:broadcast", "process-group-op"},
	    {"hccl:all_reduce", "process-group-op"},
	    {"record_param_comms", "record-param-comms-op"},
	    {"oneccl_bindings_for_pytorch::allreduce", "library-op"},
	    {"pplx_kernels::all_to_all_internode_dispatch", "library-op"},
	    {"vllm::all_reduce", "library-op"},
	    {"aten::mm", "(none)"},
	    {"ProfilerStep#12", "(none)"},
	    {"## alltoall_fwd_single ##", "(none)"},
	    {"record_param_comms_wrapper", "(none)"},
	    {"torch/distributed/distributed_c10d.py(3953): all_gather_into_tensor", "(none)"},
	};
	assert_rules(TREX_COMM_BY_OP, cases, sizeof(cases) / sizeof(cases[0]));
}

Test(work, communication_args_keys)
{
	static const char *const cases[][2] = {
	    {"{\"External id\": 12945, \"Collective name\": \"allreduce\", \"dtype\": \"Float\"}",
	     "collective-arg"},
	    {"{\"Collective name\" : \"_allgather_base\"}", "collective-arg"},
	    {"{\"Bytes\": \"524288\", \"CollGroup\": \"AllReduce_all_reduce_4\"}", "collgroup-arg"},
	    {"{\"note\": \"Collective name\", \"x\": 1}", "(none)"},
	    {"{\"inner\": {\"Collective name\": \"allreduce\"}}", "(none)"},
	    {"{\"a\\\"Collective name\": 1}", "(none)"},
	    {"{\"grid\": [1, 2, 3], \"correlation\": 7}", "(none)"},
	    {"{", "(none)"},
	    {"", "(none)"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_expect_str_eq(rule_id(match_args(cases[i][0])), cases[i][1], "%s", cases[i][0]);
}

/* Every rule compiles and has an id, a pattern and a description. */
Test(work, rules_are_complete)
{
	struct trex_comm_rule r;
	size_t n = 0;

	trex_comm_matcher_free(matcher());
	for (; trex_comm_rule(n, &r); n++)
		cr_assert(*r.id && *r.pattern && *r.about, "rule %zu", n);
	cr_assert_eq(n, TREX_COMM_RULE_COUNT);
	cr_assert_str_eq(trex_comm_by_label(TREX_COMM_BY_OP), "op");
}

/* ---- classifying loaded traces ------------------------------------------------------------- */

static struct trex_index *load_json(const char *text)
{
	struct trex_source *src = NULL;
	struct trex_load_opts opts = {.threads = 1};
	struct trex_index *idx = NULL;
	struct trex_error err;

	cr_assert_eq(trex_source_open_memory("t.json", text, strlen(text), true, &src, &err),
	             TREX_OK);
	cr_assert_eq(trex_load_sources(&src, 1, &opts, &idx, &err), TREX_OK, "%s", err.message);
	return idx;
}

static struct trex_work classify(const struct trex_index *idx)
{
	struct trex_work w;

	trex_work_count(idx, &w);
	return w;
}

/* The slice id of the slice named name. */
static uint32_t slice_named(const struct trex_index *idx, const char *name)
{
	for (uint32_t i = 0; i < trex_index_slice_count(idx); i++) {
		if (strcmp(trex_index_str(idx, trex_index_slice(idx, i)->name), name) == 0)
			return i;
	}
	cr_assert_fail("no slice %s", name);
	return TREX_NONE;
}

#define CPU_OP(name, ts, dur)                                                                      \
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"" name "\",\"pid\":1,\"tid\":1,\"ts\":" #ts   \
	",\"dur\":" #dur "},"
#define LAUNCH(ts, corr)                                                                           \
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":"  \
	"1,"                                                                                       \
	"\"ts\":" #ts ",\"dur\":1,\"args\":{\"correlation\":" #corr "}},"
#define KERNEL(name, ts, args)                                                                     \
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"" name "\",\"pid\":0,\"tid\":7,\"ts\":" #ts   \
	",\"dur\":2,\"args\":" args "},"

/* Name first, then the ops around the launch (innermost first), then, for
 * work launched by nothing, its args. */
Test(work, name_then_launching_op_then_args)
{
	struct trex_index *idx = load_json(
	    "[" CPU_OP("c10d::allreduce_", 10, 50) CPU_OP("record_param_comms", 11, 40)
	        LAUNCH(12, 1) LAUNCH(14, 2) CPU_OP("aten::mm", 60, 10) LAUNCH(61, 3)
	            KERNEL("my_ring_kernel", 20, "{\"correlation\":1}") KERNEL(
	                "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 23,
	                "{\"correlation\":2}") KERNEL("sgemm", 62, "{\"correlation\":3}")
	                KERNEL("orphan", 70, "{\"Collective name\":\"allreduce\"}") KERNEL(
	                    "lonely", 80,
	                    "{\"x\":{\"Collective name\":1}}") "{\"ph\":\"X\",\"cat\":\"kernel\","
	                                                       "\"name\":\"late\",\"pid\":0,"
	                                                       "\"tid\":7,\"ts\":90,\"dur\":1,"
	                                                       "\"args\":{\"correlation\":3,"
	                                                       "\"Collective name\":\"x\"}}]");
	struct trex_work w = classify(idx);

	cr_expect_str_eq(rule_id(trex_work_comm(&w, slice_named(idx, "my_ring_kernel"))),
	                 "record-param-comms-op", "innermost op first");
	cr_expect_str_eq(rule_id(trex_work_comm(
	                     &w, slice_named(idx, "ncclDevKernel_AllReduce_Sum_f32_RING_LL"))),
	                 "nccl", "the name before the op");
	cr_expect_str_eq(rule_id(trex_work_comm(&w, slice_named(idx, "sgemm"))), "(none)");
	cr_expect_str_eq(rule_id(trex_work_comm(&w, slice_named(idx, "orphan"))), "collective-arg");
	cr_expect_str_eq(rule_id(trex_work_comm(&w, slice_named(idx, "lonely"))), "(none)");
	cr_expect_str_eq(rule_id(trex_work_comm(&w, slice_named(idx, "late"))), "(none)",
	                 "a launched kernel is decided by its launching op, not its args");
	cr_expect_str_eq(rule_id(trex_work_comm(&w, slice_named(idx, "aten::mm"))), "(none)",
	                 "CPU slices are not work");
	cr_expect_eq(w.kernels, 6);
	trex_index_free(idx);
}

/* An unknown category on a device track (a process named like a device,
 * or a GPU stream) is a kernel; elsewhere it stays other. */
Test(work, unknown_categories_on_device_tracks_are_kernels)
{
	struct trex_index *idx = load_json("[{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":5,"
	                                   "\"args\":{\"name\":\"AIU Device 0\"}},"
	                                   "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":6,"
	                                   "\"args\":{\"name\":\"GPUDirect helper\"}},"
	                                   "{\"ph\":\"X\",\"cat\":\"aiu_op\",\"name\":\"bmm\","
	                                   "\"pid\":5,\"tid\":1,\"ts\":1,\"dur\":5},"
	                                   "{\"ph\":\"X\",\"cat\":\"aiu_op\",\"name\":\"host\","
	                                   "\"pid\":6,\"tid\":1,\"ts\":1,\"dur\":5},"
	                                   "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\","
	                                   "\"pid\":7,\"tid\":2,\"ts\":1,\"dur\":5},"
	                                   "{\"ph\":\"X\",\"cat\":\"weird\",\"name\":\"w\",\"pid\":"
	                                   "7,\"tid\":2,\"ts\":10,\"dur\":5},"
	                                   "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"c\","
	                                   "\"pid\":7,\"tid\":2,\"ts\":20,\"dur\":5},"
	                                   "{\"ph\":\"X\",\"cat\":\"weird\",\"name\":\"x\",\"pid\":"
	                                   "8,\"tid\":2,\"ts\":1,\"dur\":5}]");
	struct trex_work w = classify(idx);

	cr_expect_eq(trex_work_kind(&w, slice_named(idx, "bmm")), TREX_KIND_KERNEL);
	cr_expect_eq(trex_work_kind(&w, slice_named(idx, "host")), TREX_KIND_OTHER,
	             "GPUDirect is not the word GPU");
	cr_expect_eq(trex_work_kind(&w, slice_named(idx, "w")), TREX_KIND_KERNEL,
	             "beside a kernel on a GPU stream");
	cr_expect_eq(trex_work_kind(&w, slice_named(idx, "c")), TREX_KIND_CPU_OP,
	             "known categories keep their kind");
	cr_expect_eq(trex_work_kind(&w, slice_named(idx, "x")), TREX_KIND_OTHER);
	cr_expect_eq(w.kernels, 3);
	trex_index_free(idx);
}

/* trex_index_parents walks the lanes; it must agree with the per-slice
 * search, partial overlaps and equal starts included. */
Test(work, parents_of_every_slice_agree_with_the_search)
{
	struct trex_index *idx = load_json(
	    "[" CPU_OP("a", 0, 100) CPU_OP("b", 10, 20) CPU_OP("c", 12, 2) CPU_OP("d", 40, 80)
	        CPU_OP("e", 40, 5) CPU_OP("f", 50, 10) CPU_OP("g", 110, 30) CPU_OP("h", 200, 1)
	            KERNEL("k1", 0, "{}") KERNEL("k2", 5, "{}") "{}]");
	uint32_t n = trex_index_slice_count(idx), parent[32];

	cr_assert_leq(n, 32);
	trex_index_parents(idx, parent);
	for (uint32_t i = 0; i < n; i++) {
		cr_expect_eq(parent[i], trex_index_parent(idx, i), "slice %u", i);
		cr_expect(parent[i] == TREX_NONE || parent[i] < i, "parent of %u before it", i);
	}
	cr_expect_eq(parent[slice_named(idx, "c")], slice_named(idx, "b"));
	trex_index_free(idx);
}

static void expect_reason(const char *json, enum trex_work_want want, const char *reason)
{
	struct trex_index *idx = load_json(json);
	struct trex_work w = classify(idx);
	char buf[512];
	const char *got = trex_work_empty_reason(idx, &w, want, buf, sizeof(buf));

	if (!reason)
		cr_expect_null(got, "%s", got);
	else
		cr_expect_str_eq(got ? got : "(null)", reason);
	trex_index_free(idx);
}

Test(work, empty_views_say_why)
{
	expect_reason("[" CPU_OP("aten::mm", 1, 2) CPU_OP(
	                  "aten::add", 5,
	                  2) "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"a\",\"pid\":1,"
	                     "\"tid\":2,\"ts\":1,\"dur\":9}]",
	              TREX_WORK_WANT_KERNELS,
	              "no GPU kernels: this trace has only CPU events (categories cpu_op, "
	              "user_annotation)");
	expect_reason("[{\"ph\":\"X\",\"cat\":\"cuda_profiler_range\",\"name\":\"k\",\"pid\":1,"
	              "\"tid\":1,\"ts\":1,\"dur\":2}," CPU_OP("aten::mm", 1, 2) "{}]",
	              TREX_WORK_WANT_DEVICE,
	              "CUPTI range-profiler trace: kernels appear as 1 cuda_profiler_range events "
	              "(counters per kernel, no kernel times)");
	expect_reason("[{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy HtoD\",\"pid\":0,"
	              "\"tid\":7,\"ts\":1,\"dur\":2}]",
	              TREX_WORK_WANT_KERNELS,
	              "no GPU kernels: only 1 memory copies and 0 memory sets (trex kernels "
	              "--memory lists them)");
	expect_reason("[{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy HtoD\",\"pid\":0,"
	              "\"tid\":7,\"ts\":1,\"dur\":2}]",
	              TREX_WORK_WANT_DEVICE, NULL);
	expect_reason(
	    "[{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":0,\"args\":{\"name\":\"AIU 0\"}}]",
	    TREX_WORK_WANT_DEVICE,
	    "no GPU work: the trace has no events with a duration (0 instants, 0 counter "
	    "samples)");
	expect_reason("[{\"ph\":\"X\",\"cat\":\"cuda_sync\",\"name\":\"Stream Sync\",\"pid\":0,"
	              "\"tid\":7,\"ts\":1,\"dur\":2}]",
	              TREX_WORK_WANT_KERNELS,
	              "no GPU kernels: the device events are only of categories cuda_sync");
	expect_reason("[{\"ph\":\"X\",\"cat\":\"CatA\",\"name\":\"a\",\"pid\":0,\"tid\":5,\"ts\":1,"
	              "\"dur\":2}," CPU_OP("x", 1, 2) "{}]",
	              TREX_WORK_WANT_DEVICE,
	              "no GPU work: no category or track of this trace is a device's (categories "
	              "CatA, cpu_op; see GPU WORK in trex(1))");
}

/* s as man/trex.1.in writes it: '\' as \e, '-' as \-. */
static void roff(const char *s, char *out, size_t size)
{
	size_t n = 0;

	for (; *s && n + 3 < size; s++) {
		if (*s == '\\' || *s == '-')
			out[n++] = '\\';
		out[n++] = *s == '\\' ? 'e' : *s;
	}
	out[n] = '\0';
}

/* The man page's COMMUNICATION section lists every rule, its pattern and
 * what it recognises, so the documentation cannot drift from the table. */
Test(work, man_page_lists_every_rule)
{
	const char *srcdir = getenv("TREX_SRCDIR");
	static char text[1 << 20];
	char path[4096], want[1024];
	struct trex_comm_rule r;
	const char *section, *end;
	size_t n, len;
	FILE *f;

	if (!srcdir)
		cr_skip_test("TREX_SRCDIR not set (run through make check)");
	snprintf(path, sizeof path, "%s/man/trex.1.in", srcdir);
	f = fopen(path, "r");
	cr_assert_not_null(f, "cannot open %s", path);
	n = fread(text, 1, sizeof text - 1, f);
	fclose(f);
	text[n] = '\0';
	section = strstr(text, ".SH COMMUNICATION");
	cr_assert_not_null(section);
	end = strstr(section + 1, "\n.SH ");
	len = end ? (size_t)(end - section) : strlen(section);
	for (size_t i = 0; trex_comm_rule(i, &r); i++) {
		char id[128];

		roff(r.id, id, sizeof(id));
		snprintf(want, sizeof(want), ".BR %s \" (%s)\"\n%s\n.EX\n\\&", id,
		         trex_comm_by_label(r.by), r.about);
		roff(r.pattern, want + strlen(want), sizeof(want) - strlen(want));
		cr_expect_not_null(memmem(section, len, want, strlen(want)),
		                   "rule %s is not in COMMUNICATION as\n%s", r.id, want);
	}
}
