// 256-bin byte histogram: each block zeroes a private shared-memory
// histogram, a grid-stride loop reads four bytes per 32-bit load and bumps
// the shared bins with atomicAdd, then the block merges its bins into the
// global histogram with one global atomicAdd per non-empty bin.
//@ kernel histogram_shared
//@ grid 1024
//@ block 256
//@ arg in u8 33554432 rand
//@ arg out u32 256
//@ arg val i32 33554432

#define BINS 256

extern "C" __global__ void __launch_bounds__(256)
histogram_shared(const unsigned char *__restrict__ data,
		 unsigned *__restrict__ hist, int n)
{
	__shared__ unsigned sh[BINS];

	for (int b = threadIdx.x; b < BINS; b += blockDim.x)
		sh[b] = 0;
	__syncthreads();

	const unsigned *words = reinterpret_cast<const unsigned *>(data);
	int nwords = n >> 2;
	int stride = gridDim.x * blockDim.x;

	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < nwords; i += stride) {
		unsigned w = words[i];
		atomicAdd(&sh[w & 0xffu], 1u);
		atomicAdd(&sh[(w >> 8) & 0xffu], 1u);
		atomicAdd(&sh[(w >> 16) & 0xffu], 1u);
		atomicAdd(&sh[w >> 24], 1u);
	}

	/* the 0-3 trailing bytes */
	int tail = (nwords << 2) + blockIdx.x * blockDim.x + threadIdx.x;
	if (tail < n)
		atomicAdd(&sh[data[tail]], 1u);
	__syncthreads();

	for (int b = threadIdx.x; b < BINS; b += blockDim.x) {
		unsigned c = sh[b];
		if (c)
			atomicAdd(&hist[b], c);
	}
}
