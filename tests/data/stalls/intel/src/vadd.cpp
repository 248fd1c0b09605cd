// A SYCL kernel: the source the fixture listing's "// Line" notes quote
// (dumps/OCL_asm5f8c2a7e13b9d4aa_simd16_entry_0003.asm, main::{lambda(auto:1)#3}).
#include <sycl/sycl.hpp>

constexpr int n = 16;

int main()
{
	sycl::queue q;
	constexpr size_t size = 1 << 20;
	float *a = sycl::malloc_shared<float>(size, q), *b = sycl::malloc_shared<float>(size, q);
	float *c = sycl::malloc_shared<float>(n, q), *w = sycl::malloc_shared<float>(size, q);
	float *out = sycl::malloc_shared<float>(size, q);

	q.parallel_for(sycl::range<1>(size), [=](auto) {}).wait();
	q.parallel_for(sycl::range<1>(size), [=](auto) {}).wait();
	// the third lambda: lines 21-31
	q.parallel_for(sycl::range<1>(size), [=](auto it) {
		// x, y: the inputs; s: their product plus the loop
		// over c
		auto i = it.get_id(0);
		float x = a[i];
		float y = b[i];
		float s = x * y;
		// accumulate
		for (int k = 0; k < n; k++) {
			s += c[k] * x;
		}
		float t = s + w[i];
		out[i] = t;
	}).wait();
	return 0;
}
