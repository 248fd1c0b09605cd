/* Synthetic Kineto traces: a GPT-like training loop (embedding, N
 * transformer layers, loss, backward on the autograd thread with DDP
 * all-reduces, fused AdamW) written the way libkineto's ChromeTraceLogger
 * prints it. The text copies kineto byte for byte (2-space indentation, key
 * order, the odd run of spaces inside kernel args) so that loaders and
 * benchmarks see what a real trace looks like, only bigger.
 *
 * Generation is per iteration: CPU ops are collected as nodes per thread
 * (a parent's duration is known only when its children are done) and
 * printed at the end of the iteration, parents first; GPU activities and
 * their runtime calls are printed as soon as they are launched. Memory is
 * bounded by one iteration whatever the target size. */
#include "config.h"

#include "trex/demo/synthetic.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* ---- text buffer with the few formatters the trace needs -------------- */

struct sbuf {
	char *p;
	size_t len;
	size_t cap;
	bool failed; /* an allocation failed: later writes are dropped */
};

static bool sb_grow(struct sbuf *b, size_t need)
{
	size_t cap = b->cap ? b->cap : (size_t)1 << 16;
	while (cap - b->len < need)
		cap *= 2;
	char *p = realloc(b->p, cap);
	if (!p) {
		b->failed = true;
		return false;
	}
	b->p = p;
	b->cap = cap;
	return true;
}

static inline char *sb_room(struct sbuf *b, size_t n)
{
	if (b->cap - b->len < n && !sb_grow(b, n))
		return NULL;
	return b->p + b->len;
}

static inline void sb_put(struct sbuf *b, const char *s, size_t n)
{
	char *d = sb_room(b, n);
	if (!d)
		return;
	memcpy(d, s, n);
	b->len += n;
}

#define SB_LIT(b, lit) sb_put((b), (lit), sizeof(lit) - 1)

static void sb_str(struct sbuf *b, const char *s)
{
	sb_put(b, s, strlen(s));
}

/* printf per field would dominate the run time of a 1.5 GB trace. */
static void sb_u64(struct sbuf *b, uint64_t v)
{
	char tmp[20];
	size_t n = 0;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	char *d = sb_room(b, n);
	if (!d)
		return;
	for (size_t i = 0; i < n; i++)
		d[i] = tmp[n - 1 - i];
	b->len += n;
}

static void sb_digits(struct sbuf *b, uint64_t v, int width)
{
	char *d = sb_room(b, (size_t)width);
	if (!d)
		return;
	for (int i = width - 1; i >= 0; i--) {
		d[i] = (char)('0' + v % 10);
		v /= 10;
	}
	b->len += (size_t)width;
}

/* Nanoseconds as kineto prints microseconds: "{us}.{ns%1000:03}". */
static void sb_us(struct sbuf *b, int64_t ns)
{
	uint64_t v = ns < 0 ? 0 : (uint64_t)ns;
	sb_u64(b, v / 1000);
	SB_LIT(b, ".");
	sb_digits(b, v % 1000, 3);
}

/* num/den rounded to 6 decimals, as fmt's "{:f}" prints kineto's floats. */
static void sb_fixed6(struct sbuf *b, uint64_t num, uint64_t den)
{
	uint64_t q = (num * 1000000 + den / 2) / den;
	sb_u64(b, q / 1000000);
	SB_LIT(b, ".");
	sb_digits(b, q % 1000000, 6);
}

/* Shortest text that reads back as the same double, as Python and fmt
 * print "memory bandwidth (GB/s)". Rare (memcpy/memset only). */
static void sb_double(struct sbuf *b, double v)
{
	char tmp[40];
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(tmp, sizeof(tmp), "%.*g", prec, v);
		if (strtod(tmp, NULL) == v)
			break;
	}
	if (!strpbrk(tmp, ".e"))
		strcat(tmp, ".0");
	sb_str(b, tmp);
}

/* ---- deterministic random numbers (xoshiro256**, state per generator) -- */

struct rng {
	uint64_t s[4];
};

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15u);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

static void rng_seed(struct rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t rng_next(struct rng *r)
{
	uint64_t *s = r->s;
	uint64_t out = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return out;
}

/* Uniform in [lo, hi]; the modulo bias is irrelevant for timings. */
static int64_t rng_span(struct rng *r, int64_t lo, int64_t hi)
{
	return lo + (int64_t)(rng_next(r) % (uint64_t)(hi - lo + 1));
}

static int64_t rng_jitter(struct rng *r, int64_t base, int pct)
{
	int64_t d = base * pct / 100;
	return rng_span(r, base - d, base + d);
}

/* ---- the GPU: one H100 SXM ---------------------------------------------- */

enum {
	GPU_SMS = 132,
	GPU_THREADS_PER_SM = 2048,
	GPU_REGS_PER_SM = 65536,
	GPU_SMEM_PER_SM = 233472,
	GPU_BLOCKS_PER_SM = 32,
	GPUS_PER_HOST = 8,
};

static const char device_properties[] =
    "  \"deviceProperties\": [\n"
    "    {\n"
    "      \"id\": %u, \"name\": \"NVIDIA H100 80GB HBM3\", \"totalGlobalMem\": 85029158912,\n"
    "      \"computeMajor\": 9, \"computeMinor\": 0,\n"
    "      \"maxThreadsPerBlock\": 1024, \"maxThreadsPerMultiprocessor\": 2048,\n"
    "      \"regsPerBlock\": 65536, \"regsPerMultiprocessor\": 65536, \"warpSize\": 32,\n"
    "      \"sharedMemPerBlock\": 49152, \"sharedMemPerMultiprocessor\": 233472,\n"
    "      \"numSms\": 132, \"sharedMemPerBlockOptin\": 232448\n"
    "    }\n"
    "  ],\n";

/* ---- kernels: a few dozen, each with several launch shapes -------------- */

struct kshape {
	uint32_t grid[3];
	uint32_t dur_ns; /* typical duration; each launch jitters it */
};

struct kernel_def {
	const char *name; /* JSON-escaped already, as kineto writes it */
	uint16_t regs;
	uint32_t smem;
	uint16_t block[3];
	uint8_t nshapes;
	struct kshape shape[4];
};

enum kernel_id {
	K_GEMM_TN,
	K_GEMM_NN,
	K_GEMM_NT,
	K_GEMM_HEAD,
	K_GEMM_HEAD_BWD,
	K_FLASH_FWD,
	K_FLASH_BWD,
	K_FLASH_DOT,
	K_FLASH_CONVERT,
	K_LN_FWD,
	K_LN_BWD,
	K_LN_GAMMA_BETA,
	K_GELU_FWD,
	K_GELU_BWD,
	K_ADD,
	K_DROPOUT,
	K_MASKED_SCALE,
	K_REDUCE_SUM,
	K_SOFTMAX_FWD,
	K_SOFTMAX_BWD,
	K_NLL_FWD,
	K_NLL_BWD,
	K_DIV_JIT,
	K_FILL,
	K_EMB_FWD,
	K_EMB_BWD,
	K_COPY_CAST,
	K_LPNORM,
	K_LPNORM_CLEANUP,
	K_CAT,
	K_NORM_REDUCE,
	K_FOREACH_MUL,
	K_ADAMW,
	K_NCCL_LL,
	K_NCCL_SIMPLE,
	K_COUNT
};

/* Shape index = the role of the op (qkv/proj/fc1/fc2 for GEMMs, hidden or
 * 4*hidden sized tensors for elementwise kernels). */
/* clang-format off */
/* One kernel a row reads better than the formatter's wrapping. */
static const struct kernel_def kernels[K_COUNT] = {
	[K_GEMM_TN] = {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_warpgroupsize2x1x1_execute_segment_k_off_kernel__5x_cublas",
		       168, 213504, {384, 1, 1}, 4,
		       {{{96, 3, 1}, 312000}, {{32, 4, 1}, 104000}, {{128, 4, 1}, 415000}, {{32, 16, 1}, 409000}}},
	[K_GEMM_NN] = {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_nn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas",
		       168, 197632, {256, 1, 1}, 4,
		       {{{64, 6, 1}, 318000}, {{64, 2, 1}, 109000}, {{64, 8, 1}, 428000}, {{256, 2, 1}, 421000}}},
	[K_GEMM_NT] = {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_nt_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_on_kernel__5x_cublas",
		       168, 197632, {256, 1, 1}, 4,
		       {{{96, 4, 1}, 331000}, {{32, 4, 1}, 117000}, {{128, 4, 1}, 446000}, {{32, 16, 1}, 440000}}},
	[K_GEMM_HEAD] = {"void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_align8>(cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_align8::Params)",
			 128, 34816, {128, 1, 1}, 2,
			 {{{1571, 64, 1}, 1480000}, {{1571, 32, 1}, 760000}}},
	[K_GEMM_HEAD_BWD] = {"ampere_bf16_s16816gemm_bf16_128x64_ldg8_f2f_stages_64x4_tn",
			     232, 98304, {128, 1, 1}, 2,
			     {{{64, 393, 1}, 1530000}, {{786, 32, 1}, 1610000}}},
	[K_FLASH_FWD] = {"void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, cutlass::bfloat16_t, pytorch_flash::Flash_kernel_traits<128, 128, 64, 4, cutlass::bfloat16_t> >, false, true, false, false, false, true, false, false>(pytorch_flash::Flash_fwd_params)",
			 255, 49152, {128, 1, 1}, 2,
			 {{{16, 32, 8}, 391000}, {{8, 32, 8}, 118000}}},
	[K_FLASH_BWD] = {"void pytorch_flash::flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<pytorch_flash::Flash_bwd_kernel_traits<128, 64, 128, 8, 2, 4, 2, false, false, cutlass::bfloat16_t, pytorch_flash::Flash_kernel_traits<128, 64, 128, 8, cutlass::bfloat16_t> >, true, false, false, false, false, true, false>(pytorch_flash::Flash_bwd_params)",
			 255, 147456, {256, 1, 1}, 2,
			 {{{32, 8, 32}, 1012000}, {{16, 8, 32}, 322000}}},
	[K_FLASH_DOT] = {"void pytorch_flash::flash_bwd_dot_do_o_kernel<true, pytorch_flash::Flash_bwd_kernel_traits<128, 64, 128, 8, 2, 4, 2, false, false, cutlass::bfloat16_t, pytorch_flash::Flash_kernel_traits<128, 64, 128, 8, cutlass::bfloat16_t> > >(pytorch_flash::Flash_bwd_params)",
			 38, 0, {256, 1, 1}, 2,
			 {{{32, 8, 32}, 21000}, {{16, 8, 32}, 11000}}},
	[K_FLASH_CONVERT] = {"void pytorch_flash::flash_bwd_convert_dq_kernel<pytorch_flash::Flash_bwd_kernel_traits<128, 64, 128, 8, 2, 4, 2, false, false, cutlass::bfloat16_t, pytorch_flash::Flash_kernel_traits<128, 64, 128, 8, cutlass::bfloat16_t> > >(pytorch_flash::Flash_bwd_params, int)",
			     40, 32768, {256, 1, 1}, 2,
			     {{{32, 8, 32}, 33000}, {{16, 8, 32}, 17000}}},
	[K_LN_FWD] = {"void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, float>(int, float, c10::BFloat16 const*, c10::BFloat16 const*, c10::BFloat16 const*, float*, float*, c10::BFloat16*)",
		      30, 0, {32, 4, 1}, 2,
		      {{{16384, 1, 1}, 61000}, {{8192, 1, 1}, 32000}}},
	[K_LN_BWD] = {"void at::native::(anonymous namespace)::layer_norm_grad_input_kernel_vectorized<c10::BFloat16, float>(c10::BFloat16 const*, c10::BFloat16 const*, float const*, float const*, c10::BFloat16 const*, c10::BFloat16*, int)",
		      40, 0, {128, 1, 1}, 2,
		      {{{16384, 1, 1}, 88000}, {{8192, 1, 1}, 45000}}},
	[K_LN_GAMMA_BETA] = {"void at::native::(anonymous namespace)::GammaBetaBackwardCUDAKernel_32x32<c10::BFloat16, float>(long, long, c10::BFloat16 const*, c10::BFloat16 const*, float const*, float const*, c10::BFloat16*, c10::BFloat16*)",
			     64, 8448, {32, 32, 1}, 2,
			     {{{128, 1, 1}, 97000}, {{64, 1, 1}, 52000}}},
	[K_GELU_FWD] = {"void at::native::jitted_vectorized_elementwise_kernel<\\\"gelu_tanh_kernel\\\", at::native::(anonymous namespace)::gelu_tanh_functor<c10::BFloat16>, 4, at::detail::Array<char*, 2> >(int, at::native::(anonymous namespace)::gelu_tanh_functor<c10::BFloat16>, at::detail::Array<char*, 2>)",
			28, 0, {128, 1, 1}, 2,
			{{{131072, 1, 1}, 142000}, {{65536, 1, 1}, 73000}}},
	[K_GELU_BWD] = {"void at::native::vectorized_elementwise_kernel<4, at::native::GeluBackwardCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#4}::operator()() const::{lambda(c10::BFloat16, c10::BFloat16)#1}, at::detail::Array<char*, 3> >(int, at::native::GeluBackwardCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#4}::operator()() const::{lambda(c10::BFloat16, c10::BFloat16)#1}, at::detail::Array<char*, 3>)",
			32, 0, {128, 1, 1}, 2,
			{{{131072, 1, 1}, 205000}, {{65536, 1, 1}, 104000}}},
	[K_ADD] = {"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, at::detail::Array<char*, 3>)",
		   26, 0, {128, 1, 1}, 3,
		   {{{32768, 1, 1}, 54000}, {{16384, 1, 1}, 28000}, {{1, 1, 1}, 1500}}},
	[K_DROPOUT] = {"void at::native::(anonymous namespace)::fused_dropout_kernel_vec<c10::BFloat16, float, unsigned int, 1, 4, bool>(at::cuda::detail::TensorInfo<c10::BFloat16 const, unsigned int>, at::cuda::detail::TensorInfo<c10::BFloat16, unsigned int>, at::cuda::detail::TensorInfo<bool, unsigned int>, unsigned int, float, at::PhiloxCudaState)",
		       42, 0, {256, 1, 1}, 2,
		       {{{1056, 1, 1}, 47000}, {{528, 1, 1}, 25000}}},
	[K_MASKED_SCALE] = {"void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::masked_scale_kernel<bool, c10::BFloat16, float>(at::Tensor&, at::Tensor const&, at::Tensor const&, float)::{lambda(c10::BFloat16, bool)#1}, at::detail::Array<char*, 3> >(int, at::native::(anonymous namespace)::masked_scale_kernel<bool, c10::BFloat16, float>(at::Tensor&, at::Tensor const&, at::Tensor const&, float)::{lambda(c10::BFloat16, bool)#1}, at::detail::Array<char*, 3>)",
			    24, 0, {128, 1, 1}, 2,
			    {{{32768, 1, 1}, 46000}, {{16384, 1, 1}, 24000}}},
	[K_REDUCE_SUM] = {"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<c10::BFloat16, at::native::func_wrapper_t<c10::BFloat16, at::native::sum_functor<c10::BFloat16, float, c10::BFloat16>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, c10::BFloat16, 4, 4> >(at::native::ReduceOp<c10::BFloat16, at::native::func_wrapper_t<c10::BFloat16, at::native::sum_functor<c10::BFloat16, float, c10::BFloat16>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, c10::BFloat16, 4, 4>)",
			  32, 16, {32, 16, 1}, 4,
			  {{{96, 16, 1}, 26000}, {{32, 16, 1}, 12000}, {{128, 16, 1}, 36000}, {{32, 64, 1}, 35000}}},
	[K_SOFTMAX_FWD] = {"void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, at::native::(anonymous namespace)::LogSoftMaxForwardEpilogue>(float*, float const*, int)",
			   38, 0, {1024, 1, 1}, 2,
			   {{{8192, 1, 1}, 702000}, {{4096, 1, 1}, 356000}}},
	[K_SOFTMAX_BWD] = {"void at::native::(anonymous namespace)::cunn_SoftMaxBackward<4, float, float, float, at::native::(anonymous namespace)::LogSoftMaxBackwardEpilogue>(float*, float const*, float const*, int)",
			   38, 0, {1024, 1, 1}, 2,
			   {{{8192, 1, 1}, 811000}, {{4096, 1, 1}, 409000}}},
	[K_NLL_FWD] = {"void at::native::(anonymous namespace)::nll_loss_forward_reduce_cuda_kernel_2d<float, float, long>(float*, float*, float const*, long const*, float const*, bool, long, long, long, long)",
		       30, 8192, {1024, 1, 1}, 1,
		       {{{1, 1, 1}, 9000}}},
	[K_NLL_BWD] = {"void at::native::(anonymous namespace)::nll_loss_backward_reduce_cuda_kernel_2d<float, long>(float*, float const*, long const*, float const*, float const*, bool, int, int, long, long)",
		       24, 0, {1024, 1, 1}, 1,
		       {{{1, 1, 1}, 11000}}},
	[K_DIV_JIT] = {"void at::native::(anonymous namespace)::jitted_elementwise_kernel<\\\"div_true_kernel\\\", float, 1, at::detail::Array<char*, 2>, TrivialOffsetCalculator<1, unsigned int> >(int, at::detail::Array<char*, 2>, float, TrivialOffsetCalculator<1, unsigned int>)",
		       16, 0, {64, 1, 1}, 1,
		       {{{1, 1, 1}, 1600}}},
	[K_FILL] = {"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)",
		    16, 0, {128, 1, 1}, 3,
		    {{{1, 1, 1}, 1400}, {{196352, 1, 1}, 412000}, {{8192, 1, 1}, 9000}}},
	[K_EMB_FWD] = {"void at::native::(anonymous namespace)::indexSelectLargeIndex<c10::BFloat16, long, unsigned int, 2, 2, -2, true>(at::cuda::detail::TensorInfo<c10::BFloat16, unsigned int>, at::cuda::detail::TensorInfo<c10::BFloat16 const, unsigned int>, at::cuda::detail::TensorInfo<long const, unsigned int>, int, int, unsigned int, unsigned int, long)",
		       32, 0, {128, 1, 1}, 2,
		       {{{32768, 1, 1}, 61000}, {{16384, 1, 1}, 31000}}},
	[K_EMB_BWD] = {"void at::native::(anonymous namespace)::embedding_backward_feature_kernel<c10::BFloat16, float, long>(long const*, c10::BFloat16 const*, c10::BFloat16*, int, long, int, int)",
		       40, 4352, {32, 32, 1}, 2,
		       {{{128, 1, 1}, 231000}, {{64, 1, 1}, 119000}}},
	[K_COPY_CAST] = {"void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#12}::operator()() const::{lambda(float)#1}, at::detail::Array<char*, 2>, TrivialOffsetCalculator<1, unsigned int>, TrivialOffsetCalculator<1, unsigned int>, at::native::memory::LoadWithCast<1>, at::native::memory::StoreWithCast<1> >(int, at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#12}::operator()() const::{lambda(float)#1}, at::detail::Array<char*, 2>, TrivialOffsetCalculator<1, unsigned int>, TrivialOffsetCalculator<1, unsigned int>, at::native::memory::LoadWithCast<1>, at::native::memory::StoreWithCast<1>)",
			 20, 0, {128, 1, 1}, 1,
			 {{{1, 1, 1}, 1500}}},
	[K_LPNORM] = {"void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::TensorListMetadata<1>, at::native::(anonymous namespace)::LpNormFunctor<float, (at::native::(anonymous namespace)::NormType)1, float, float>, float*, int>(at::native::(anonymous namespace)::TensorListMetadata<1>, at::native::(anonymous namespace)::LpNormFunctor<float, (at::native::(anonymous namespace)::NormType)1, float, float>, float*, int)",
		      32, 4096, {512, 1, 1}, 2,
		      {{{320, 1, 1}, 148000}, {{168, 1, 1}, 79000}}},
	[K_LPNORM_CLEANUP] = {"void at::native::(anonymous namespace)::lpnorm_cleanup<float, (at::native::(anonymous namespace)::NormType)1, float, float>(float const*, at::native::(anonymous namespace)::TensorListAddresses, int)",
			      18, 4096, {512, 1, 1}, 2,
			      {{{98, 1, 1}, 4200}, {{50, 1, 1}, 3100}}},
	[K_CAT] = {"void at::native::(anonymous namespace)::CatArrayBatchedCopy_aligned16_contig<at::native::(anonymous namespace)::OpaqueType<4u>, unsigned int, 1, 128, 1>(at::native::(anonymous namespace)::OpaqueType<4u>*, at::native::(anonymous namespace)::CatArrInputTensorMetadata<at::native::(anonymous namespace)::OpaqueType<4u>, unsigned int, 128, 1>, at::native::(anonymous namespace)::TensorSizeStride<unsigned int, 4u>, int, unsigned int)",
		   26, 0, {512, 1, 1}, 1,
		   {{{1, 1, 1}, 2300}}},
	[K_NORM_REDUCE] = {"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::NormTwoOps<float, float, float>, unsigned int, float, 4, 4> >(at::native::ReduceOp<float, at::native::NormTwoOps<float, float, float>, unsigned int, float, 4, 4>)",
			   32, 16, {32, 16, 1}, 1,
			   {{{1, 1, 1}, 3400}}},
	[K_FOREACH_MUL] = {"void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::TensorListMetadata<1>, at::native::(anonymous namespace)::BinaryOpScalarTensorFunctor<float, 1, 1, 0>, std::multiplies<float>, float*>(at::native::(anonymous namespace)::TensorListMetadata<1>, at::native::(anonymous namespace)::BinaryOpScalarTensorFunctor<float, 1, 1, 0>, std::multiplies<float>, float*)",
			   30, 0, {512, 1, 1}, 2,
			   {{{320, 1, 1}, 121000}, {{168, 1, 1}, 64000}}},
	[K_ADAMW] = {"void at::native::(anonymous namespace)::multi_tensor_apply_for_fused_optimizer<4, at::native::(anonymous namespace)::FusedAdamMathFunctor<float, 4, (at::native::ADAM_MODE)1, false>, double*, double, double, double, double, double, bool, float*, float*>(std::vector<std::vector<at::Tensor, std::allocator<at::Tensor> >, std::allocator<std::vector<at::Tensor, std::allocator<at::Tensor> > > >&, at::TensorList, at::native::(anonymous namespace)::FusedAdamMathFunctor<float, 4, (at::native::ADAM_MODE)1, false>, double*, double, double, double, double, double, bool, float*, float*)",
		     96, 0, {512, 1, 1}, 3,
		     {{{320, 1, 1}, 845000}, {{168, 1, 1}, 441000}, {{64, 1, 1}, 172000}}},
	[K_NCCL_LL] = {"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
		       96, 87568, {544, 1, 1}, 1,
		       {{{8, 1, 1}, 0}}},
	[K_NCCL_SIMPLE] = {"ncclDevKernel_AllReduce_Sum_f32_RING_SIMPLE(ncclDevComm*, unsigned long, ncclWork*)",
			   128, 87568, {640, 1, 1}, 1,
			   {{{16, 1, 1}, 0}}},
};
/* clang-format on */

/* ---- op templates -------------------------------------------------------- */

/* An op tree is a pre-order list; depth gives the nesting. */
enum step_kind {
	S_OP,         /* cpu_op */
	S_ANNOT,      /* user_annotation, projected onto the GPU streams */
	S_LAUNCH,     /* cudaLaunchKernel + kernel */
	S_MEMCPY_H2D, /* cudaMemcpyAsync + gpu_memcpy */
	S_MEMCPY_D2H,
	S_MEMSET,     /* cudaMemsetAsync + gpu_memset */
	S_SYNC,       /* cudaStreamSynchronize: waits for every stream */
	S_EVENT_REC,  /* cudaEventRecord */
	S_WAIT_GRADS, /* cudaStreamWaitEvent: NCCL stream waits for compute */
	S_WAIT_NCCL,  /* cudaStreamWaitEvent: compute stream waits for NCCL */
	S_NCCL,       /* cudaLaunchKernelExC + NCCL all-reduce kernel */
};

enum step_flag {
	F_SEQ = 1,      /* forward autograd op: sequence number, fwdbwd "s" */
	F_BWD_ROOT = 2, /* evaluate_function: sequence number */
	F_BWD = 4,      /* the backward node: sequence number, fwdbwd "f" */
	F_SHAPES = 8,   /* may carry record_shapes args */
	F_COLL = 16,    /* record_param_comms: collective args */
};

/* Kernel ids at or above K_CTX0 are taken from the module instance, so one
 * template serves every linear layer with its own GEMMs. */
enum { K_CTX0 = 200, K_CTX1, K_CTX2 };

struct tstep {
	uint8_t depth;
	uint8_t kind;
	uint8_t flags;
	uint8_t kernel;
	const char *name;
	const char *shapes; /* record_shapes args, printed before "Ev Idx" */
};

/* clang-format off */
#define OP(d, n) {d, S_OP, 0, 0, n, NULL}
#define FWD(d, n) {d, S_OP, F_SEQ, 0, n, NULL}
#define FWD_SH(d, n, sh) {d, S_OP, F_SEQ | F_SHAPES, 0, n, sh}
#define OP_SH(d, n, sh) {d, S_OP, F_SHAPES, 0, n, sh}
#define BWD_ROOT(d, n) {d, S_OP, F_BWD_ROOT, 0, "autograd::engine::evaluate_function: " n, NULL}
#define BWD(d, n) {d, S_OP, F_BWD, 0, n, NULL}
#define ANNOT(d, n) {d, S_ANNOT, 0, 0, n, NULL}
#define KERN(d, k) {d, S_LAUNCH, 0, k, NULL, NULL}
#define DO(d, kind) {d, kind, 0, 0, NULL, NULL}
/* clang-format on */

#define SH_LINEAR                                                                                  \
	"\"Concrete Inputs\": [\"\", \"\", \"\"], \"Input type\": [\"c10::BFloat16\", "            \
	"\"c10::BFloat16\", \"c10::BFloat16\"], \"Input Strides\": [[33554432, 4096, 1], "         \
	"[4096, 1], [1]], \"Input Dims\": [[8, 4096, 4096], [4096, 4096], [4096]], "
#define SH_ADDMM                                                                                   \
	"\"Concrete Inputs\": [\"\", \"\", \"\", \"1\", \"1\"], \"Input type\": "                  \
	"[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\", \"Scalar\"], "      \
	"\"Input Strides\": [[1], [4096, 1], [1, 4096], [], []], \"Input Dims\": [[4096], "        \
	"[32768, 4096], [4096, 4096], [], []], "
#define SH_LAYER_NORM                                                                              \
	"\"Concrete Inputs\": [\"\", \"[4096]\", \"\", \"\", \"1e-05\", \"True\"], "               \
	"\"Input type\": [\"c10::BFloat16\", \"ScalarList\", \"c10::BFloat16\", "                  \
	"\"c10::BFloat16\", \"Scalar\", \"Scalar\"], \"Input Strides\": [[33554432, 4096, 1], "    \
	"[], [1], [1], [], []], \"Input Dims\": [[8, 4096, 4096], [], [4096], [4096], [], []], "
#define SH_COPY                                                                                    \
	"\"Concrete Inputs\": [\"\", \"\", \"False\"], \"Input type\": [\"long int\", "            \
	"\"long int\", \"Scalar\"], \"Input Strides\": [[4096, 1], [4096, 1], []], "               \
	"\"Input Dims\": [[8, 4096], [8, 4096], []], "

#define ACCUMULATE_GRAD                                                                            \
	BWD_ROOT(0, "torch::autograd::AccumulateGrad"), OP(1, "torch::autograd::AccumulateGrad"),  \
	    OP(2, "aten::detach"), OP(3, "detach")

static const struct tstep linear_fwd[] = {
    FWD_SH(0, "aten::linear", SH_LINEAR),
    OP(1, "aten::t"),
    OP(2, "aten::transpose"),
    OP(3, "aten::as_strided"),
    OP_SH(1, "aten::addmm", SH_ADDMM),
    KERN(2, K_CTX0),
};
static const struct tstep linear_bwd[] = {
    BWD_ROOT(0, "AddmmBackward0"),
    BWD(1, "AddmmBackward0"),
    OP(2, "aten::t"),
    OP(3, "aten::transpose"),
    OP(4, "aten::as_strided"),
    OP(2, "aten::mm"),
    KERN(3, K_CTX1),
    OP(2, "aten::t"),
    OP(3, "aten::transpose"),
    OP(4, "aten::as_strided"),
    OP(2, "aten::mm"),
    KERN(3, K_CTX2),
    OP(2, "aten::sum"),
    KERN(3, K_REDUCE_SUM),
    ACCUMULATE_GRAD,
    ACCUMULATE_GRAD,
};
static const struct tstep layer_norm_fwd[] = {
    FWD_SH(0, "aten::layer_norm", SH_LAYER_NORM),
    OP(1, "aten::native_layer_norm"),
    OP(2, "aten::empty"),
    KERN(2, K_LN_FWD),
};
static const struct tstep layer_norm_bwd[] = {
    BWD_ROOT(0, "NativeLayerNormBackward0"),
    BWD(1, "NativeLayerNormBackward0"),
    OP(2, "aten::native_layer_norm_backward"),
    OP(3, "aten::empty_like"),
    KERN(3, K_LN_BWD),
    KERN(3, K_LN_GAMMA_BETA),
    ACCUMULATE_GRAD,
    ACCUMULATE_GRAD,
};
static const struct tstep sdpa_fwd[] = {
    FWD(0, "aten::scaled_dot_product_attention"),
    OP(1, "aten::_scaled_dot_product_flash_attention"),
    OP(2, "aten::transpose"),
    OP(3, "aten::as_strided"),
    OP(2, "aten::_flash_attention_forward"),
    OP(3, "aten::empty"),
    OP(3, "aten::empty"),
    KERN(3, K_FLASH_FWD),
};
static const struct tstep sdpa_bwd[] = {
    BWD_ROOT(0, "ScaledDotProductFlashAttentionBackward0"),
    BWD(1, "ScaledDotProductFlashAttentionBackward0"),
    OP(2, "aten::_scaled_dot_product_flash_attention_backward"),
    OP(3, "aten::_flash_attention_backward"),
    OP(4, "aten::empty_like"),
    OP(4, "aten::empty"),
    KERN(4, K_FLASH_DOT),
    KERN(4, K_FLASH_BWD),
    KERN(4, K_FLASH_CONVERT),
};
static const struct tstep dropout_fwd[] = {
    FWD(0, "aten::dropout"),
    OP(1, "aten::native_dropout"),
    OP(2, "aten::empty_like"),
    KERN(2, K_DROPOUT),
};
static const struct tstep dropout_bwd[] = {
    BWD_ROOT(0, "NativeDropoutBackward0"),
    BWD(1, "NativeDropoutBackward0"),
    OP(2, "aten::native_dropout_backward"),
    KERN(3, K_MASKED_SCALE),
};
static const struct tstep add_fwd[] = {
    FWD(0, "aten::add"),
    KERN(1, K_ADD),
};
static const struct tstep add_bwd[] = {
    BWD_ROOT(0, "AddBackward0"),
    BWD(1, "AddBackward0"),
};
static const struct tstep gelu_fwd[] = {
    FWD(0, "aten::gelu"),
    KERN(1, K_GELU_FWD),
};
static const struct tstep gelu_bwd[] = {
    BWD_ROOT(0, "GeluBackward0"),
    BWD(1, "GeluBackward0"),
    OP(2, "aten::gelu_backward"),
    KERN(3, K_GELU_BWD),
};
static const struct tstep embedding_fwd[] = {
    FWD(0, "aten::embedding"),   OP(1, "aten::reshape"), OP(2, "aten::view"),
    OP(1, "aten::index_select"), KERN(2, K_EMB_FWD),     OP(1, "aten::view"),
};
static const struct tstep embedding_bwd[] = {
    BWD_ROOT(0, "EmbeddingBackward0"),
    BWD(1, "EmbeddingBackward0"),
    OP(2, "aten::embedding_backward"),
    OP(3, "aten::embedding_dense_backward"),
    OP(4, "aten::zeros"),
    OP(5, "aten::zero_"),
    KERN(6, K_FILL),
    KERN(4, K_EMB_BWD),
    ACCUMULATE_GRAD,
};
static const struct tstep loss_fwd[] = {
    FWD(0, "aten::cross_entropy_loss"),
    OP(1, "aten::log_softmax"),
    OP(2, "aten::_log_softmax"),
    KERN(3, K_SOFTMAX_FWD),
    OP(1, "aten::nll_loss_nd"),
    OP(2, "aten::nll_loss"),
    OP(3, "aten::nll_loss_forward"),
    KERN(4, K_NLL_FWD),
    OP(0, "aten::div"),
    KERN(1, K_DIV_JIT),
};
static const struct tstep loss_bwd[] = {
    BWD_ROOT(0, "NllLossBackward0"),
    BWD(1, "NllLossBackward0"),
    OP(2, "aten::nll_loss_backward"),
    OP(3, "aten::zero_"),
    KERN(4, K_FILL),
    KERN(3, K_NLL_BWD),
    BWD_ROOT(0, "LogSoftmaxBackward0"),
    OP(1, "LogSoftmaxBackward0"),
    OP(2, "aten::_log_softmax_backward_data"),
    KERN(3, K_SOFTMAX_BWD),
};

/* The input batch: two pageable host-to-device copies and a zeroed mask. */
static const struct tstep input_steps[] = {
    OP_SH(0, "aten::to", SH_COPY),
    OP(1, "aten::_to_copy"),
    OP(2, "aten::empty_strided"),
    OP(2, "aten::copy_"),
    DO(3, S_MEMCPY_H2D),
    OP_SH(0, "aten::to", SH_COPY),
    OP(1, "aten::_to_copy"),
    OP(2, "aten::empty_strided"),
    OP(2, "aten::copy_"),
    DO(3, S_MEMCPY_H2D),
    OP(0, "aten::zeros"),
    OP(1, "aten::empty"),
    OP(1, "aten::zero_"),
    OP(2, "aten::fill_"),
    DO(3, S_MEMSET),
    ANNOT(0, "Optimizer.zero_grad#AdamW.zero_grad"),
};
/* loss.backward() on the main thread seeds the gradient, then blocks. */
static const struct tstep backward_seed[] = {
    OP(0, "aten::ones_like"), OP(1, "aten::empty_like"), OP(2, "aten::empty_strided"),
    OP(1, "aten::fill_"),     KERN(2, K_FILL),
};
/* clip_grad_norm_ then a fused AdamW step, after the last all-reduce. */
static const struct tstep optimizer_steps[] = {
    DO(0, S_WAIT_NCCL),
    OP(0, "aten::_foreach_norm"),
    KERN(1, K_LPNORM),
    KERN(1, K_LPNORM_CLEANUP),
    OP(0, "aten::stack"),
    OP(1, "aten::cat"),
    KERN(2, K_CAT),
    OP(0, "aten::linalg_vector_norm"),
    KERN(1, K_NORM_REDUCE),
    OP(0, "aten::_foreach_mul_"),
    KERN(1, K_FOREACH_MUL),
    ANNOT(0, "Optimizer.step#AdamW.step"),
    OP(1, "aten::_fused_adamw_"),
    KERN(2, K_ADAMW),
    KERN(2, K_ADAMW),
    KERN(2, K_ADAMW),
};
/* loss.item(): a device-to-host copy and a full synchronisation. */
static const struct tstep item_steps[] = {
    OP(0, "aten::item"),
    OP(1, "aten::_local_scalar_dense"),
    DO(2, S_MEMCPY_D2H),
    DO(2, S_SYNC),
};
/* DDP bucket all-reduce, issued from the autograd thread. */
static const struct tstep allreduce_steps[] = {
    {0, S_OP, F_COLL, 0, "record_param_comms", NULL},
    ANNOT(1, "nccl:all_reduce"),
    DO(2, S_EVENT_REC),
    DO(2, S_WAIT_GRADS),
    DO(2, S_NCCL),
    DO(2, S_EVENT_REC),
};
/* End-of-run metric accumulation; pads the last step to the exact count. */
static const struct tstep filler_kernel[] = {
    OP(0, "aten::add_"),
    KERN(1, K_ADD),
};
static const struct tstep filler_op[] = {
    OP(0, "aten::detach"),
};

#define STEPS(a) a, sizeof(a) / sizeof(a[0])

struct module {
	const struct tstep *fwd;
	size_t nfwd;
	const struct tstep *bwd;
	size_t nbwd;
	uint8_t k[3];  /* kernels for K_CTX0..2 */
	uint8_t shape; /* role: which launch shape */
};

/* clang-format off */
#define LINEAR(shape) {STEPS(linear_fwd), STEPS(linear_bwd), {K_GEMM_TN, K_GEMM_NN, K_GEMM_NT}, shape}
#define LAYER_NORM {STEPS(layer_norm_fwd), STEPS(layer_norm_bwd), {0, 0, 0}, 0}
#define DROPOUT {STEPS(dropout_fwd), STEPS(dropout_bwd), {0, 0, 0}, 0}
#define ADD {STEPS(add_fwd), STEPS(add_bwd), {0, 0, 0}, 0}

/* One pre-norm transformer block. */
static const struct module layer_modules[] = {
	LAYER_NORM, LINEAR(0), {STEPS(sdpa_fwd), STEPS(sdpa_bwd), {0, 0, 0}, 0}, LINEAR(1),
	DROPOUT, ADD, LAYER_NORM, LINEAR(2), {STEPS(gelu_fwd), STEPS(gelu_bwd), {0, 0, 0}, 0},
	LINEAR(3), DROPOUT, ADD,
};
/* clang-format on */
static const struct module embedding_module = {
    STEPS(embedding_fwd), STEPS(embedding_bwd), {0, 0, 0}, 0};
/* clang-format off */
static const struct module head_modules[] = {
	LAYER_NORM,
	{STEPS(linear_fwd), STEPS(linear_bwd), {K_GEMM_HEAD, K_GEMM_HEAD_BWD, K_GEMM_HEAD_BWD}, 0},
	{STEPS(loss_fwd), STEPS(loss_bwd), {0, 0, 0}, 0},
};
/* clang-format on */

/* ---- generator state ------------------------------------------------------ */

enum cpu_cat { CAT_CPU_OP, CAT_USER_ANNOTATION };
enum flow_kind { FLOW_NONE, FLOW_FWD_S, FLOW_BWD_F };

/* One CPU X event waiting for its duration. */
struct node {
	const char *name;
	int64_t name_num; /* ProfilerStep#N, else -1 */
	int64_t ts;
	int64_t dur;
	uint64_t ext_id;
	uint64_t rf_id;
	uint64_t ev_idx;
	uint64_t seq;     /* 0: no "Sequence number" */
	uint64_t flow_id; /* fwdbwd id for FLOW_FWD_S/FLOW_BWD_F */
	uint64_t coll_nelems;
	const char *shapes;
	uint8_t cat;
	uint8_t flow;
	uint8_t fwd_thread; /* "Fwd thread id" */
	int32_t annot;      /* annotation slot, -1 if none */
};

#define MAX_DEPTH 16

struct thread {
	int64_t tid;
	int64_t now; /* CPU clock of this thread, ns */
	struct node *nodes;
	size_t n;
	size_t cap;
	size_t open[MAX_DEPTH]; /* indices of the ops not yet ended */
	int depth;
};

/* A user_annotation projected onto the streams it launched work on. */
struct annot {
	const char *name;
	int64_t name_num;
	uint64_t ext_id;
	size_t span; /* index of this annotation's first/last per stream */
};

/* A forward op waiting for its backward on the autograd thread. */
struct tape_entry {
	const struct module *m;
	uint32_t stream;
	int32_t group; /* layer index; head = layers, embedding = -1 */
	uint64_t seq;
	uint64_t flow_id;
};

struct module_ctx {
	const struct module *m;
	uint32_t stream;
	uint64_t seq;
	uint64_t flow_id;
};

enum { MAIN_THREAD, AUTOGRAD_THREAD };

struct synth {
	struct rng rng;
	FILE *out_file;
	struct sbuf out; /* header, CPU nodes of this iteration, tail */
	struct sbuf gpu; /* GPU activities and runtime calls of this iteration */
	struct thread th[2];
	uint32_t nstreams; /* compute streams; index nstreams is NCCL */
	uint32_t *stream_id;
	int64_t *stream_free; /* earliest start of the next activity */
	int64_t *stream_end;  /* end of the last activity */
	struct annot *annots;
	size_t nannots, annots_cap;
	int64_t *spans; /* per annotation: first start, last end per stream */
	size_t spans_cap;
	struct tape_entry *tape;
	size_t ntape, tape_cap;
	uint64_t pid;
	uint32_t device, world;
	char *pg_ranks; /* "[0, 1, ...]" */
	int64_t t_begin;
	int64_t t_last;
	uint64_t ext_id, rf_id, ev_idx, corr, seq, fwdbwd_id;
	uint64_t events;
	uint64_t layer_events; /* events produced by layer code, for sizing */
	bool in_layer;
	uint64_t bucket_nelems;
	bool alloc_failed;
};

/* ---- allocation helpers ---------------------------------------------------- */

/* Returns the (possibly moved) array with room for need elements, or NULL
 * with p untouched and still owned by the caller. */
static void *grow_array(void *p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return p;
	size_t ncap = *cap ? *cap : 64;
	while (ncap < need)
		ncap *= 2;
	void *np = realloc(p, ncap * elem);
	if (np)
		*cap = ncap;
	return np;
}

static void count_event(struct synth *s)
{
	s->events++;
	if (s->in_layer)
		s->layer_events++;
}

/* ---- event printing --------------------------------------------------------- */

/* Every event after the very first is preceded by ",\n". The first event
 * is always the first node of the main thread (a ProfilerStep). */
static void ev_open(struct sbuf *b, bool first)
{
	if (first)
		SB_LIT(b, "\n  {\n");
	else
		SB_LIT(b, ",\n  {\n");
}

static void put_pid_tid(struct sbuf *b, uint64_t pid, int64_t tid)
{
	SB_LIT(b, "\"pid\": ");
	sb_u64(b, pid);
	SB_LIT(b, ", \"tid\": ");
	sb_u64(b, (uint64_t)tid);
}

static void put_x_head(struct sbuf *b, const char *cat, const char *name, int64_t name_num,
                       uint64_t pid, int64_t tid, int64_t ts, int64_t dur)
{
	SB_LIT(b, "    \"ph\": \"X\", \"cat\": \"");
	sb_str(b, cat);
	SB_LIT(b, "\", \"name\": \"");
	sb_str(b, name);
	if (name_num >= 0)
		sb_u64(b, (uint64_t)name_num);
	SB_LIT(b, "\", ");
	put_pid_tid(b, pid, tid);
	SB_LIT(b, ",\n    \"ts\": ");
	sb_us(b, ts);
	SB_LIT(b, ", \"dur\": ");
	sb_us(b, dur);
	SB_LIT(b, ",\n    \"args\": {\n      ");
}

static void put_flow(struct sbuf *b, bool start, uint64_t id, uint64_t pid, int64_t tid, int64_t ts,
                     const char *cat)
{
	ev_open(b, false);
	SB_LIT(b, "    \"ph\": \"");
	sb_put(b, start ? "s" : "f", 1);
	SB_LIT(b, "\", \"id\": ");
	sb_u64(b, id);
	SB_LIT(b, ", ");
	put_pid_tid(b, pid, tid);
	SB_LIT(b, ", \"ts\": ");
	sb_us(b, ts);
	SB_LIT(b, ",\n    \"cat\": \"");
	sb_str(b, cat);
	SB_LIT(b, "\", \"name\": \"");
	sb_str(b, cat);
	if (start)
		SB_LIT(b, "\"\n  }");
	else
		SB_LIT(b, "\", \"bp\": \"e\"\n  }");
}

static void put_coll_args(const struct synth *s, struct sbuf *b, uint64_t nelems)
{
	SB_LIT(b, "\"Collective name\": \"allreduce\", \"In msg nelems\": ");
	sb_u64(b, nelems);
	SB_LIT(b, ", \"Out msg nelems\": ");
	sb_u64(b, nelems);
	SB_LIT(b, ", \"Group size\": ");
	sb_u64(b, s->world);
	SB_LIT(b, ", \"dtype\": \"Float\", \"In split size\": \"[]\", \"Out split size\": \"[]\", "
	          "\"Process Group Name\": \"0\", \"Process Group Description\": \"default_pg\", "
	          "\"Process Group Ranks\": \"");
	sb_str(b, s->pg_ranks);
	SB_LIT(b, "\"");
}

static void put_node(const struct synth *s, struct sbuf *b, const struct thread *t,
                     const struct node *n, bool first)
{
	ev_open(b, first);
	put_x_head(b, n->cat == CAT_CPU_OP ? "cpu_op" : "user_annotation", n->name, n->name_num,
	           s->pid, t->tid, n->ts, n->dur);
	SB_LIT(b, "\"External id\": ");
	sb_u64(b, n->ext_id);
	SB_LIT(b, ",\"Record function id\": ");
	sb_u64(b, n->rf_id);
	if (n->seq) {
		SB_LIT(b, ", \"Sequence number\": ");
		sb_u64(b, n->seq);
		SB_LIT(b, ", \"Fwd thread id\": ");
		sb_u64(b, n->fwd_thread);
	}
	if (n->coll_nelems) {
		SB_LIT(b, ", ");
		put_coll_args(s, b, n->coll_nelems);
	}
	SB_LIT(b, ", ");
	if (n->shapes)
		sb_str(b, n->shapes);
	SB_LIT(b, "\"Ev Idx\": ");
	sb_u64(b, n->ev_idx);
	SB_LIT(b, "\n    }\n  }");
	if (n->flow != FLOW_NONE)
		put_flow(b, n->flow == FLOW_FWD_S, n->flow_id, s->pid, t->tid, n->ts, "fwdbwd");
}

static void put_runtime(struct synth *s, const struct thread *t, const char *name, int cbid,
                        int64_t ts, int64_t dur, uint64_t ext_id, uint64_t corr)
{
	struct sbuf *b = &s->gpu;
	ev_open(b, false);
	put_x_head(b, "cuda_runtime", name, -1, s->pid, t->tid, ts, dur);
	SB_LIT(b, "\"External id\": ");
	sb_u64(b, ext_id);
	SB_LIT(b, ",      \"cbid\": ");
	sb_u64(b, (uint64_t)cbid);
	SB_LIT(b, ", \"correlation\": ");
	sb_u64(b, corr);
	SB_LIT(b, "\n    }\n  }");
	count_event(s);
}

/* Blocks per SM and occupancy the way kineto derives them from CUPTI. */
static uint64_t occupancy_pct(const struct kernel_def *k, uint64_t blocks)
{
	uint64_t threads = (uint64_t)k->block[0] * k->block[1] * k->block[2];
	uint64_t warps = (threads + 31) / 32;
	uint64_t regs_per_warp = ((uint64_t)k->regs * 32 + 255) / 256 * 256;
	uint64_t active = GPU_BLOCKS_PER_SM;
	if (GPU_THREADS_PER_SM / 32 / warps < active)
		active = GPU_THREADS_PER_SM / 32 / warps;
	if (GPU_REGS_PER_SM / regs_per_warp / warps < active)
		active = GPU_REGS_PER_SM / regs_per_warp / warps;
	if (k->smem && GPU_SMEM_PER_SM / (k->smem + 1024) < active)
		active = GPU_SMEM_PER_SM / (k->smem + 1024);
	uint64_t resident = active * GPU_SMS < blocks ? active * GPU_SMS : blocks;
	uint64_t den = (uint64_t)GPU_SMS * GPU_THREADS_PER_SM;
	return (resident * threads * 100 + den / 2) / den;
}

static void put_dim3(struct sbuf *b, uint64_t x, uint64_t y, uint64_t z)
{
	SB_LIT(b, "[");
	sb_u64(b, x);
	SB_LIT(b, ", ");
	sb_u64(b, y);
	SB_LIT(b, ", ");
	sb_u64(b, z);
	SB_LIT(b, "]");
}

struct gpu_work {
	uint32_t stream; /* index */
	int64_t ts;
	int64_t dur;
	uint64_t ext_id;
	uint64_t corr;
};

static void put_kernel(struct synth *s, const struct kernel_def *k, const struct kshape *sh,
                       const struct gpu_work *w, uint64_t coll_nelems)
{
	struct sbuf *b = &s->gpu;
	uint64_t blocks = (uint64_t)sh->grid[0] * sh->grid[1] * sh->grid[2];
	uint64_t threads = (uint64_t)k->block[0] * k->block[1] * k->block[2];
	ev_open(b, false);
	put_x_head(b, "kernel", k->name, -1, s->device, s->stream_id[w->stream], w->ts, w->dur);
	SB_LIT(b, "\"External id\": ");
	sb_u64(b, w->ext_id);
	SB_LIT(b, ",      \"queued\": 0, \"device\": ");
	sb_u64(b, s->device);
	SB_LIT(b, ", \"context\": 1,      \"stream\": ");
	sb_u64(b, s->stream_id[w->stream]);
	SB_LIT(b, ", \"correlation\": ");
	sb_u64(b, w->corr);
	SB_LIT(b, ",      \"registers per thread\": ");
	sb_u64(b, k->regs);
	SB_LIT(b, ",      \"shared memory\": ");
	sb_u64(b, k->smem);
	SB_LIT(b, ",      \"blocks per SM\": ");
	sb_fixed6(b, blocks, GPU_SMS);
	SB_LIT(b, ",      \"warps per SM\": ");
	sb_fixed6(b, blocks * threads, (uint64_t)GPU_SMS * 32);
	SB_LIT(b, ",      \"grid\": ");
	put_dim3(b, sh->grid[0], sh->grid[1], sh->grid[2]);
	SB_LIT(b, ",      \"block\": ");
	put_dim3(b, k->block[0], k->block[1], k->block[2]);
	SB_LIT(b, ",      \"est. achieved occupancy %\": ");
	sb_u64(b, occupancy_pct(k, blocks));
	if (coll_nelems) {
		SB_LIT(b, ", ");
		put_coll_args(s, b, coll_nelems);
	}
	SB_LIT(b, "\n    }\n  }");
	count_event(s);
}

static void put_memop(struct synth *s, const char *cat, const char *name, const struct gpu_work *w,
                      uint64_t bytes)
{
	struct sbuf *b = &s->gpu;
	ev_open(b, false);
	put_x_head(b, cat, name, -1, s->device, s->stream_id[w->stream], w->ts, w->dur);
	SB_LIT(b, "\"External id\": ");
	sb_u64(b, w->ext_id);
	SB_LIT(b, ",      \"device\": ");
	sb_u64(b, s->device);
	SB_LIT(b, ", \"context\": 1,      \"stream\": ");
	sb_u64(b, s->stream_id[w->stream]);
	SB_LIT(b, ", \"correlation\": ");
	sb_u64(b, w->corr);
	SB_LIT(b, ",      \"bytes\": ");
	sb_u64(b, bytes);
	SB_LIT(b, ", \"memory bandwidth (GB/s)\": ");
	sb_double(b, (double)bytes / (double)w->dur);
	SB_LIT(b, "\n    }\n  }");
	count_event(s);
}

/* ---- CPU ops ------------------------------------------------------------------ */

static struct node *new_node(struct synth *s, struct thread *t)
{
	void *p = grow_array(t->nodes, &t->cap, t->n + 1, sizeof(*t->nodes));
	if (!p) {
		s->alloc_failed = true;
		return NULL;
	}
	t->nodes = p;
	struct node *n = &t->nodes[t->n];
	memset(n, 0, sizeof(*n));
	n->name_num = -1;
	n->annot = -1;
	return n;
}

/* Kineto hands out External ids to more than the ops it prints, so the ids
 * skip now and then and drift away from the Record function ids. */
static uint64_t next_ext_id(struct synth *s)
{
	s->ext_id += (rng_next(&s->rng) & 15) ? 1 : 2;
	return s->ext_id;
}

static uint64_t next_corr(struct synth *s)
{
	s->corr += (rng_next(&s->rng) & 7) ? 1 : (uint64_t)rng_span(&s->rng, 2, 5);
	return s->corr;
}

static int32_t new_annot(struct synth *s, const char *name, int64_t num, uint64_t ext_id)
{
	size_t width = 2 * (s->nstreams + 1);
	void *a_p = grow_array(s->annots, &s->annots_cap, s->nannots + 1, sizeof(*s->annots));
	if (a_p)
		s->annots = a_p;
	void *s_p =
	    grow_array(s->spans, &s->spans_cap, (s->nannots + 1) * width, sizeof(*s->spans));
	if (s_p)
		s->spans = s_p;
	if (!a_p || !s_p) {
		s->alloc_failed = true;
		return -1;
	}
	struct annot *a = &s->annots[s->nannots];
	a->name = name;
	a->name_num = num;
	a->ext_id = ext_id;
	a->span = s->nannots * width;
	for (size_t i = 0; i < width; i++)
		s->spans[a->span + i] = -1;
	return (int32_t)s->nannots++;
}

static struct node *op_begin(struct synth *s, struct thread *t, const char *name, enum cpu_cat cat)
{
	if (t->depth >= MAX_DEPTH)
		return NULL;
	struct node *n = new_node(s, t);
	if (!n)
		return NULL;
	t->now += rng_span(&s->rng, 300, 2500);
	n->name = name;
	n->cat = (uint8_t)cat;
	n->ts = t->now;
	n->ext_id = next_ext_id(s);
	n->rf_id = ++s->rf_id;
	n->ev_idx = s->ev_idx++;
	t->open[t->depth++] = t->n++;
	t->now += rng_span(&s->rng, 500, 4000);
	count_event(s);
	return n;
}

static void op_end(struct synth *s, struct thread *t)
{
	struct node *n = &t->nodes[t->open[--t->depth]];
	t->now += rng_span(&s->rng, 300, 3000);
	n->dur = t->now - n->ts;
}

/* External id of the innermost open op: what its runtime calls carry. */
static uint64_t current_ext_id(const struct thread *t)
{
	return t->depth ? t->nodes[t->open[t->depth - 1]].ext_id : 0;
}

static void annot_touch(struct synth *s, const struct thread *t, uint32_t stream, int64_t ts,
                        int64_t end)
{
	for (int d = 0; d < t->depth; d++) {
		int32_t a = t->nodes[t->open[d]].annot;
		if (a < 0)
			continue;
		int64_t *span = &s->spans[s->annots[a].span + 2 * stream];
		if (span[0] < 0)
			span[0] = ts;
		span[1] = end;
	}
}

/* ---- GPU work ------------------------------------------------------------------- */

/* A runtime call on thread t that enqueues dur_ns of work on a stream:
 * prints nothing yet, returns the placed work. */
static struct gpu_work enqueue(struct synth *s, struct thread *t, uint32_t stream, int64_t dur_ns,
                               int64_t *rt_ts, int64_t *rt_dur, int64_t call_ns)
{
	struct gpu_work w;
	t->now += rng_span(&s->rng, 300, 1500);
	*rt_ts = t->now;
	*rt_dur = rng_jitter(&s->rng, call_ns, 40);
	t->now += *rt_dur;
	int64_t earliest = *rt_ts + rng_span(&s->rng, 4000, 12000);
	w.stream = stream;
	w.ts = earliest > s->stream_free[stream] ? earliest : s->stream_free[stream];
	w.dur = dur_ns;
	w.ext_id = current_ext_id(t);
	w.corr = next_corr(s);
	s->stream_end[stream] = w.ts + w.dur;
	s->stream_free[stream] = w.ts + w.dur + rng_span(&s->rng, 1000, 3000);
	if (s->stream_end[stream] > s->t_last)
		s->t_last = s->stream_end[stream];
	annot_touch(s, t, stream, w.ts, w.ts + w.dur);
	return w;
}

/* kernel X + f, then the runtime X + s, in the order kineto prints them. */
static void finish_launch(struct synth *s, struct thread *t, const struct gpu_work *w,
                          const char *rt_name, int cbid, int64_t rt_ts, int64_t rt_dur)
{
	put_flow(&s->gpu, false, w->corr, s->device, s->stream_id[w->stream], w->ts, "ac2g");
	count_event(s);
	put_runtime(s, t, rt_name, cbid, rt_ts, rt_dur, w->ext_id, w->corr);
	put_flow(&s->gpu, true, w->corr, s->pid, t->tid, rt_ts, "ac2g");
	count_event(s);
}

static void launch_kernel(struct synth *s, struct thread *t, const struct module_ctx *c,
                          unsigned kid)
{
	if (kid >= K_CTX0)
		kid = c->m->k[kid - K_CTX0];
	const struct kernel_def *k = &kernels[kid];
	unsigned shape = c->m->shape < k->nshapes ? c->m->shape : 0;
	/* Now and then another shape: dynamic sequence lengths, odd batches. */
	if (k->nshapes > 1 && (rng_next(&s->rng) & 7) == 0)
		shape = (unsigned)(rng_next(&s->rng) % k->nshapes);
	const struct kshape *sh = &k->shape[shape];
	int64_t rt_ts, rt_dur;
	struct gpu_work w =
	    enqueue(s, t, c->stream, rng_jitter(&s->rng, sh->dur_ns, 8), &rt_ts, &rt_dur, 5000);
	put_kernel(s, k, sh, &w, 0);
	finish_launch(s, t, &w, "cudaLaunchKernel", 211, rt_ts, rt_dur);
}

static void launch_memop(struct synth *s, struct thread *t, uint32_t stream, enum step_kind kind)
{
	static const char *const names[] = {
	    [S_MEMCPY_H2D] = "Memcpy HtoD (Pageable -> Device)",
	    [S_MEMCPY_D2H] = "Memcpy DtoH (Device -> Pageable)",
	    [S_MEMSET] = "Memset (Device)",
	};
	uint64_t bytes = kind == S_MEMCPY_H2D ? 262144 : kind == S_MEMCPY_D2H ? 4 : 33554432;
	/* Pageable copies run at a few GB/s, memsets at HBM speed. */
	int64_t dur = kind == S_MEMCPY_H2D   ? rng_jitter(&s->rng, 21000, 20)
	              : kind == S_MEMCPY_D2H ? rng_jitter(&s->rng, 1900, 20)
	                                     : rng_jitter(&s->rng, 16000, 10);
	int64_t call = kind == S_MEMCPY_H2D ? 24000 : kind == S_MEMCPY_D2H ? 9000 : 6000;
	int64_t rt_ts, rt_dur;
	struct gpu_work w = enqueue(s, t, stream, dur, &rt_ts, &rt_dur, call);
	put_memop(s, kind == S_MEMSET ? "gpu_memset" : "gpu_memcpy", names[kind], &w, bytes);
	finish_launch(s, t, &w, kind == S_MEMSET ? "cudaMemsetAsync" : "cudaMemcpyAsync",
	              kind == S_MEMSET ? 51 : 41, rt_ts, rt_dur);
}

/* The NCCL kernel's time follows the ring all-reduce volume at ~180 GB/s;
 * small buckets use the LL protocol, large ones Simple. */
static void launch_nccl(struct synth *s, struct thread *t)
{
	uint32_t nccl = s->nstreams;
	uint64_t nelems = s->bucket_nelems;
	uint64_t bytes = nelems * 4 * 2 * (s->world - 1) / s->world;
	const struct kernel_def *k = &kernels[nelems < 4000000 ? K_NCCL_LL : K_NCCL_SIMPLE];
	int64_t dur = rng_jitter(&s->rng, (int64_t)(bytes / 180) + 12000, 10);
	int64_t rt_ts, rt_dur;
	struct gpu_work w = enqueue(s, t, nccl, dur, &rt_ts, &rt_dur, 11000);
	put_kernel(s, k, &k->shape[0], &w, nelems);
	finish_launch(s, t, &w, "cudaLaunchKernelExC", 430, rt_ts, rt_dur);
}

/* Runtime calls that enqueue no GPU work. Kineto still attaches a flow end
 * to cudaEventRecord and a flow start to cudaStreamWaitEvent: orphans that
 * real traces have and loaders must survive. */
static void runtime_only(struct synth *s, struct thread *t, const char *name, int cbid,
                         int64_t dur_ns, int orphan)
{
	t->now += rng_span(&s->rng, 300, 1500);
	int64_t ts = t->now;
	uint64_t corr = next_corr(s);
	t->now += dur_ns;
	put_runtime(s, t, name, cbid, ts, dur_ns, current_ext_id(t), corr);
	if (orphan) {
		put_flow(&s->gpu, orphan > 0, corr, s->pid, t->tid, ts, "ac2g");
		count_event(s);
	}
}

/* cudaStreamWaitEvent: the waiting stream starts no earlier than the
 * awaited streams' last activity. */
static void stream_wait(struct synth *s, struct thread *t, uint32_t waiter, uint32_t from,
                        uint32_t to)
{
	for (uint32_t i = from; i < to; i++)
		if (s->stream_end[i] > s->stream_free[waiter])
			s->stream_free[waiter] = s->stream_end[i];
	runtime_only(s, t, "cudaStreamWaitEvent", 147, rng_span(&s->rng, 800, 1800), 1);
}

static void stream_sync(struct synth *s, struct thread *t)
{
	int64_t done = t->now;
	for (uint32_t i = 0; i <= s->nstreams; i++)
		if (s->stream_end[i] > done)
			done = s->stream_end[i];
	int64_t dur = done + rng_span(&s->rng, 2000, 6000) - t->now;
	runtime_only(s, t, "cudaStreamSynchronize", 131, dur, 0);
}

/* ---- template interpreter -------------------------------------------------------- */

static void run_op_step(struct synth *s, struct thread *t, const struct tstep *st,
                        const struct module_ctx *c)
{
	struct node *n =
	    op_begin(s, t, st->name, st->kind == S_ANNOT ? CAT_USER_ANNOTATION : CAT_CPU_OP);
	if (!n)
		return;
	if (st->kind == S_ANNOT)
		n->annot = new_annot(s, st->name, -1, n->ext_id);
	if ((st->flags & F_SHAPES) && (rng_next(&s->rng) & 3) == 0)
		n->shapes = st->shapes;
	if (st->flags & (F_SEQ | F_BWD_ROOT | F_BWD)) {
		n->seq = c->seq;
		n->fwd_thread = (st->flags & F_SEQ) ? 0 : 1;
	}
	if (st->flags & (F_SEQ | F_BWD)) {
		n->flow = (st->flags & F_SEQ) ? FLOW_FWD_S : FLOW_BWD_F;
		n->flow_id = c->flow_id;
		count_event(s);
	}
	if (st->flags & F_COLL)
		n->coll_nelems = s->bucket_nelems;
}

static void run_step(struct synth *s, struct thread *t, const struct tstep *st,
                     const struct module_ctx *c)
{
	switch ((enum step_kind)st->kind) {
	case S_OP:
	case S_ANNOT:
		run_op_step(s, t, st, c);
		break;
	case S_LAUNCH:
		launch_kernel(s, t, c, st->kernel);
		break;
	case S_MEMCPY_H2D:
	case S_MEMCPY_D2H:
	case S_MEMSET:
		launch_memop(s, t, c->stream, (enum step_kind)st->kind);
		break;
	case S_SYNC:
		stream_sync(s, t);
		break;
	case S_EVENT_REC:
		runtime_only(s, t, "cudaEventRecord", 135, rng_span(&s->rng, 600, 1400), -1);
		break;
	case S_WAIT_GRADS:
		stream_wait(s, t, s->nstreams, 0, s->nstreams);
		break;
	case S_WAIT_NCCL:
		stream_wait(s, t, c->stream, s->nstreams, s->nstreams + 1);
		break;
	case S_NCCL:
		launch_nccl(s, t);
		break;
	}
}

static void run_steps(struct synth *s, struct thread *t, const struct tstep *steps, size_t n,
                      const struct module_ctx *c)
{
	int base = t->depth;
	for (size_t i = 0; i < n; i++) {
		while (t->depth > base + steps[i].depth)
			op_end(s, t);
		run_step(s, t, &steps[i], c);
	}
	while (t->depth > base)
		op_end(s, t);
}

static void run_plain(struct synth *s, struct thread *t, const struct tstep *steps, size_t n,
                      uint32_t stream)
{
	static const struct module none = {NULL, 0, NULL, 0, {0, 0, 0}, 0};
	struct module_ctx c = {&none, stream, 0, 0};
	run_steps(s, t, steps, n, &c);
}

/* ---- one training iteration -------------------------------------------------------- */

static void forward_module(struct synth *s, const struct module *m, uint32_t stream, int32_t group)
{
	struct module_ctx c = {m, stream, ++s->seq, ++s->fwdbwd_id};
	void *p = grow_array(s->tape, &s->tape_cap, s->ntape + 1, sizeof(*s->tape));
	if (!p) {
		s->alloc_failed = true;
		return;
	}
	s->tape = p;
	s->tape[s->ntape++] = (struct tape_entry){m, stream, group, c.seq, c.flow_id};
	run_steps(s, &s->th[MAIN_THREAD], m->fwd, m->nfwd, &c);
}

static void forward(struct synth *s, uint32_t layers)
{
	size_t nlayer = sizeof(layer_modules) / sizeof(layer_modules[0]);
	size_t nhead = sizeof(head_modules) / sizeof(head_modules[0]);
	forward_module(s, &embedding_module, 0, -1);
	for (uint32_t l = 0; l < layers; l++) {
		/* Layers alternate over the compute streams. */
		uint32_t stream = l % s->nstreams;
		s->in_layer = true;
		for (size_t i = 0; i < nlayer; i++)
			forward_module(s, &layer_modules[i], stream, (int32_t)l);
		s->in_layer = false;
	}
	for (size_t i = 0; i < nhead; i++)
		forward_module(s, &head_modules[i], 0, (int32_t)layers);
}

/* DDP buckets: an all-reduce every two layers of gradients, and one for
 * whatever is left at the end. */
static void maybe_allreduce(struct synth *s, int32_t group, int32_t top)
{
	if ((top - group) % 2 != 1 && group != -1)
		return;
	s->bucket_nelems = (uint64_t)rng_jitter(&s->rng, 6553600, 30);
	if (group == -1)
		s->bucket_nelems /= 4;
	run_plain(s, &s->th[AUTOGRAD_THREAD], STEPS(allreduce_steps), s->nstreams);
}

static void backward(struct synth *s, uint32_t layers)
{
	struct thread *a = &s->th[AUTOGRAD_THREAD];
	struct thread *m = &s->th[MAIN_THREAD];
	run_plain(s, m, STEPS(backward_seed), 0);
	if (a->now < m->now)
		a->now = m->now + rng_span(&s->rng, 2000, 8000);
	for (size_t i = s->ntape; i-- > 0;) {
		const struct tape_entry *e = &s->tape[i];
		struct module_ctx c = {e->m, e->stream, e->seq, e->flow_id};
		s->in_layer = e->group >= 0 && e->group < (int32_t)layers;
		run_steps(s, a, e->m->bwd, e->m->nbwd, &c);
		if (i == 0 || s->tape[i - 1].group != e->group)
			maybe_allreduce(s, e->group, (int32_t)layers);
		s->in_layer = false;
	}
	s->ntape = 0;
	m->now = a->now + rng_span(&s->rng, 3000, 9000);
}

static size_t pending_annot_events(const struct synth *s)
{
	size_t n = 0;
	for (size_t i = 0; i < s->nannots; i++)
		for (uint32_t st = 0; st <= s->nstreams; st++)
			n += s->spans[s->annots[i].span + 2 * st] >= 0;
	return n;
}

/* Pads the last iteration to exactly `target` events. */
static void fill_to(struct synth *s, uint64_t target)
{
	struct thread *m = &s->th[MAIN_THREAD];
	uint64_t have = s->events + pending_annot_events(s);
	while (have + 5 <= target && !s->alloc_failed) {
		run_plain(s, m, STEPS(filler_kernel), 0);
		have += 5;
	}
	while (have < target && !s->alloc_failed) {
		run_plain(s, m, STEPS(filler_op), 0);
		have += 1;
	}
}

static void put_gpu_annotations(struct synth *s)
{
	struct sbuf *b = &s->gpu;
	for (size_t i = 0; i < s->nannots; i++) {
		const struct annot *a = &s->annots[i];
		for (uint32_t st = 0; st <= s->nstreams; st++) {
			const int64_t *span = &s->spans[a->span + 2 * st];
			if (span[0] < 0)
				continue;
			/* Kineto widens the span by 1 ns on each side of its kernels. */
			ev_open(b, false);
			put_x_head(b, "gpu_user_annotation", a->name, a->name_num, s->device,
			           s->stream_id[st], span[0] - 1, span[1] - span[0] + 2);
			SB_LIT(b, "\"External id\": ");
			sb_u64(b, a->ext_id);
			SB_LIT(b, "\n    }\n  }");
			count_event(s);
		}
	}
	s->nannots = 0;
}

static enum trex_status write_buf(struct synth *s, struct sbuf *b, struct trex_error *err)
{
	if (b->failed || s->alloc_failed)
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "synthetic trace: out of memory");
	if (b->len && fwrite(b->p, 1, b->len, s->out_file) != b->len)
		return trex_error_set(err, TREX_IO, NULL, -1, "synthetic trace: write failed: %s",
		                      strerror(errno));
	b->len = 0;
	return TREX_OK;
}

/* CPU nodes (main thread, then autograd thread), then the GPU side. */
static enum trex_status flush_iteration(struct synth *s, bool *first, struct trex_error *err)
{
	put_gpu_annotations(s);
	for (int i = 0; i < 2; i++) {
		struct thread *t = &s->th[i];
		for (size_t j = 0; j < t->n; j++) {
			put_node(s, &s->out, t, &t->nodes[j], *first);
			*first = false;
		}
		t->n = 0;
	}
	enum trex_status st = write_buf(s, &s->out, err);
	return st != TREX_OK ? st : write_buf(s, &s->gpu, err);
}

static void iteration(struct synth *s, uint64_t step, uint32_t layers, uint64_t fill_target)
{
	struct thread *m = &s->th[MAIN_THREAD];
	struct node *n = op_begin(s, m, "ProfilerStep#", CAT_USER_ANNOTATION);
	if (!n)
		return;
	n->name_num = (int64_t)step;
	n->annot = new_annot(s, "ProfilerStep#", (int64_t)step, n->ext_id);
	run_plain(s, m, STEPS(input_steps), 0);
	forward(s, layers);
	backward(s, layers);
	run_plain(s, m, STEPS(optimizer_steps), 0);
	run_plain(s, m, STEPS(item_steps), 0);
	if (fill_target)
		fill_to(s, fill_target);
	op_end(s, m);
}

/* ---- header and tail ---------------------------------------------------------------- */

static void put_header(struct synth *s, const struct trex_synth_params *p)
{
	struct sbuf *b = &s->out;
	char props[sizeof(device_properties) + 16];
	snprintf(props, sizeof(props), device_properties, s->device);
	SB_LIT(b, "\n{\n  \"schemaVersion\": 1,\n");
	sb_str(b, props);
	SB_LIT(b, "  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": ");
	sb_u64(b, p->rank);
	SB_LIT(b, ", \"world_size\": ");
	sb_u64(b, s->world);
	SB_LIT(b, "},\n  \"traceEvents\": [");
}

static void put_meta(struct synth *s, const char *name, uint64_t pid, int64_t tid, const char *key,
                     const char *sval, int64_t ival)
{
	struct sbuf *b = &s->out;
	ev_open(b, false);
	SB_LIT(b, "    \"name\": \"");
	sb_str(b, name);
	SB_LIT(b, "\", \"ph\": \"M\", \"ts\": ");
	sb_us(b, s->t_begin);
	SB_LIT(b, ", ");
	put_pid_tid(b, pid, tid);
	SB_LIT(b, ",\n    \"args\": {\n      \"");
	sb_str(b, key);
	SB_LIT(b, "\": ");
	if (sval) {
		SB_LIT(b, "\"");
		sb_str(b, sval);
		SB_LIT(b, "\"");
	} else {
		sb_u64(b, (uint64_t)ival);
	}
	SB_LIT(b, "\n    }\n  }");
	count_event(s);
}

static void put_thread_meta(struct synth *s, uint64_t pid, int64_t tid, const char *label)
{
	put_meta(s, "thread_name", pid, tid, "name", label, 0);
	put_meta(s, "thread_sort_index", pid, tid, "sort_index", NULL, tid);
}

static void put_process_meta(struct synth *s)
{
	char label[64];
	put_meta(s, "process_name", s->pid, 0, "name", "python3.10", 0);
	put_meta(s, "process_labels", s->pid, 0, "labels", "CPU", 0);
	put_meta(s, "process_sort_index", s->pid, 0, "sort_index", NULL, (int64_t)s->pid);
	snprintf(label, sizeof(label), "GPU %u", s->device);
	put_meta(s, "process_name", s->device, 0, "name", "python3.10", 0);
	put_meta(s, "process_labels", s->device, 0, "labels", label, 0);
	put_meta(s, "process_sort_index", s->device, 0, "sort_index", NULL,
	         0x1000000 + (int64_t)s->device);
	for (uint32_t i = 0; i <= s->nstreams; i++) {
		snprintf(label, sizeof(label), "stream %u ", s->stream_id[i]);
		put_thread_meta(s, s->device, s->stream_id[i], label);
	}
	static const char *const names[] = {"pt_main_thread", "pt_autograd_0"};
	for (int i = 0; i < 2; i++) {
		snprintf(label, sizeof(label), "thread %" PRId64 " (%s)", s->th[i].tid, names[i]);
		put_thread_meta(s, s->pid, s->th[i].tid, label);
	}
}

/* The fixed events after the last iteration, counted for sizing. */
static uint64_t tail_events(const struct synth *s)
{
	return 6 + 2 * (uint64_t)(s->nstreams + 1) + 4 + 4;
}

static void put_tail(struct synth *s, uint64_t seed)
{
	struct sbuf *b = &s->out;
	int64_t end = s->t_last + 1000;
	put_process_meta(s);
	ev_open(b, false);
	SB_LIT(b, "    \"ph\": \"X\", \"cat\": \"Trace\", \"ts\": ");
	sb_us(b, s->t_begin);
	SB_LIT(b, ", \"dur\": ");
	sb_us(b, end - s->t_begin);
	SB_LIT(b, ",\n    \"pid\": \"Spans\", \"tid\": \"PyTorch Profiler\",\n"
	          "    \"name\": \"PyTorch Profiler (0)\",\n    \"args\": {\n"
	          "      \"Op count\": 0\n    }\n  }");
	ev_open(b, false);
	SB_LIT(b, "    \"name\": \"process_sort_index\", \"ph\": \"M\", \"ts\": ");
	sb_us(b, s->t_begin);
	SB_LIT(b, ",\n    \"pid\": \"Spans\", \"tid\": 0,\n    \"args\": {\n"
	          "      \"sort_index\": 536870912\n    }\n  }");
	ev_open(b, false);
	SB_LIT(b,
	       "    \"name\": \"Iteration Start: PyTorch Profiler\", \"ph\": \"i\", \"s\": \"g\",\n"
	       "    \"pid\": \"Traces\", \"tid\": \"Trace PyTorch Profiler\", \"ts\": ");
	sb_us(b, s->t_begin);
	SB_LIT(b, "\n  }");
	ev_open(b, false);
	SB_LIT(b, "    \"name\": \"Record Window End\", \"ph\": \"i\", \"s\": \"g\",\n"
	          "    \"pid\": \"\", \"tid\": \"\", \"ts\": ");
	sb_us(b, end);
	SB_LIT(b, "\n  }\n  ],\n  \"traceName\": \"/tmp/trex_synthetic_");
	sb_u64(b, seed);
	SB_LIT(b, ".pt.trace.json\",\n  \"displayTimeUnit\": \"ms\",\n"
	          "  \"baseTimeNanoseconds\": 1711964646000000000\n}\n");
	for (int i = 0; i < 4; i++)
		count_event(s);
}

/* ---- setup ---------------------------------------------------------------------------- */

static char *format_ranks(uint32_t world)
{
	/* Very large worlds are abbreviated: the value is a string anyway. */
	uint32_t shown = world <= 64 ? world : 3;
	size_t cap = (size_t)shown * 12 + 40;
	char *buf = malloc(cap);
	if (!buf)
		return NULL;
	size_t len = (size_t)snprintf(buf, cap, "[");
	for (uint32_t i = 0; i < shown; i++)
		len += (size_t)snprintf(buf + len, cap - len, "%s%u", i ? ", " : "", i);
	if (shown < world)
		len += (size_t)snprintf(buf + len, cap - len, ", ..., %u", world - 1);
	snprintf(buf + len, cap - len, "]");
	return buf;
}

static bool init_streams(struct synth *s, uint32_t n)
{
	s->nstreams = n;
	s->stream_id = calloc(n + 1, sizeof(*s->stream_id));
	s->stream_free = calloc(n + 1, sizeof(*s->stream_free));
	s->stream_end = calloc(n + 1, sizeof(*s->stream_end));
	if (!s->stream_id || !s->stream_free || !s->stream_end)
		return false;
	/* 7 is the legacy default stream; side streams and NCCL get the
	 * larger ids real traces show. */
	for (uint32_t i = 0; i <= n; i++) {
		s->stream_id[i] = i == 0 ? 7 : 16 + 4 * i;
		s->stream_free[i] = s->t_begin;
		s->stream_end[i] = s->t_begin;
	}
	return true;
}

static bool synth_init(struct synth *s, FILE *out, const struct trex_synth_params *p)
{
	memset(s, 0, sizeof(*s));
	rng_seed(&s->rng, p->seed);
	s->out_file = out;
	s->device = p->rank % GPUS_PER_HOST;
	s->world = (p->rank / GPUS_PER_HOST + 1) * GPUS_PER_HOST;
	s->pid = 100000 + rng_next(&s->rng) % 3900000;
	s->th[MAIN_THREAD].tid = (int64_t)s->pid;
	s->th[AUTOGRAD_THREAD].tid = (int64_t)s->pid + rng_span(&s->rng, 2000, 9000);
	/* Relative to a base a quarter back, like kineto's baseTimeNanoseconds. */
	s->t_begin = 4400000000000000 + rng_span(&s->rng, 0, 50000000000000);
	s->t_last = s->t_begin;
	for (int i = 0; i < 2; i++)
		s->th[i].now = s->t_begin + rng_span(&s->rng, 100000, 400000);
	s->ext_id = (uint64_t)rng_span(&s->rng, 1, 2000);
	s->corr = s->ext_id * 4;
	s->seq = (uint64_t)rng_span(&s->rng, 1000, 90000);
	s->pg_ranks = format_ranks(s->world);
	return s->pg_ranks && init_streams(s, p->streams);
}

static void synth_free(struct synth *s)
{
	free(s->out.p);
	free(s->gpu.p);
	for (int i = 0; i < 2; i++)
		free(s->th[i].nodes);
	free(s->stream_id);
	free(s->stream_free);
	free(s->stream_end);
	free(s->annots);
	free(s->spans);
	free(s->tape);
	free(s->pg_ranks);
}

/* ---- sizing ------------------------------------------------------------------------------ */

/* Events per layer and per iteration outside the layers; measured from
 * the previous iteration once there is one. */
struct sizing {
	uint64_t per_layer;
	uint64_t fixed;
	uint32_t layers;
};

/* EST_*: what a 24-layer iteration measures, used until one has run.
 * SLACK covers the all-reduce buckets that do not scale exactly with the
 * layer count; the last step is padded to the exact target anyway. */
enum { EST_PER_LAYER = 327, EST_FIXED = 245, SLACK = 32, MAX_LAYERS = 24, MIN_STEPS = 3 };

static uint32_t layers_for(uint64_t events, const struct sizing *z)
{
	if (events <= z->fixed + z->per_layer)
		return 1;
	return (uint32_t)((events - z->fixed) / z->per_layer);
}

static void measure(struct sizing *z, uint64_t iter_events, uint64_t layer_events, uint32_t layers)
{
	z->per_layer = (layer_events + layers - 1) / layers;
	z->fixed = iter_events - layer_events;
}

/* Full iterations while at least two fit, then one last iteration sized
 * to what is left. Targets below one minimal iteration (~600 events)
 * still get that one iteration. */
static enum trex_status generate(struct synth *s, const struct trex_synth_params *p,
                                 struct trex_error *err)
{
	struct sizing z = {EST_PER_LAYER, EST_FIXED, 0};
	uint64_t body = p->target_events > tail_events(s) ? p->target_events - tail_events(s) : 0;
	bool first = true;
	z.layers = layers_for(body / MIN_STEPS, &z);
	if (z.layers > MAX_LAYERS)
		z.layers = MAX_LAYERS;
	for (uint64_t step = 4;; step++) {
		uint64_t left = body > s->events ? body - s->events : 0;
		uint64_t before = s->events, layer_before = s->layer_events;
		bool last = left < 2 * (z.fixed + z.layers * z.per_layer);
		uint32_t layers = last ? layers_for(left > SLACK ? left - SLACK : 0, &z) : z.layers;
		iteration(s, step, layers, last ? body : 0);
		enum trex_status st = flush_iteration(s, &first, err);
		if (st != TREX_OK || last)
			return st;
		measure(&z, s->events - before, s->layer_events - layer_before, layers);
	}
}

enum trex_status trex_synth_write(FILE *out, const struct trex_synth_params *p,
                                  uint64_t *events_written, struct trex_error *err)
{
	struct synth s;
	trex_error_clear(err);
	if (p->streams < 1 || p->streams > 256)
		return trex_error_set(err, TREX_USAGE, NULL, -1,
		                      "synthetic trace: streams must be 1..256, not %u",
		                      p->streams);
	if (!synth_init(&s, out, p)) {
		synth_free(&s);
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "synthetic trace: out of memory");
	}
	put_header(&s, p);
	enum trex_status st = generate(&s, p, err);
	if (st == TREX_OK) {
		put_tail(&s, p->seed);
		st = write_buf(&s, &s.out, err);
	}
	if (st == TREX_OK && fflush(out) != 0)
		st = trex_error_set(err, TREX_IO, NULL, -1, "synthetic trace: write failed: %s",
		                    strerror(errno));
	if (events_written)
		*events_written = s.events;
	synth_free(&s);
	return st;
}

/* 3060 events: three ProfilerSteps of two layers whose last step needs
 * only a few padding ops. */
enum trex_status trex_synth_demo(char **buf, size_t *len, struct trex_error *err)
{
	static const struct trex_synth_params demo = {
	    .target_events = 3060, .streams = 2, .rank = 0, .seed = 20240522};
	*buf = NULL;
	*len = 0;
	FILE *f = open_memstream(buf, len);
	if (!f)
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "demo trace: %s", strerror(errno));
	enum trex_status st = trex_synth_write(f, &demo, NULL, err);
	if (fclose(f) != 0 && st == TREX_OK)
		st = trex_error_set(err, TREX_NOMEM, NULL, -1, "demo trace: %s", strerror(errno));
	if (st != TREX_OK) {
		free(*buf);
		*buf = NULL;
		*len = 0;
	}
	return st;
}
