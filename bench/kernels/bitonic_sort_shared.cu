// Bitonic sort of 1024-int chunks in shared memory, one block per chunk:
// 55 compare-exchange stages, each followed by __syncthreads, with
// data-dependent swaps and the i = 2*t - (t & (j-1)) pair index math.
//@ kernel bitonic_sort_shared
//@ grid 4096
//@ block 512
//@ arg in i32 4194304 rand
//@ arg out i32 4194304

#define CHUNK 1024

extern "C" __global__ void __launch_bounds__(512)
bitonic_sort_shared(const int *__restrict__ in, int *__restrict__ out)
{
	__shared__ int s[CHUNK];
	const int t = threadIdx.x;
	const int base = blockIdx.x * CHUNK;

	s[t] = in[base + t];
	s[t + CHUNK / 2] = in[base + t + CHUNK / 2];
	__syncthreads();

	for (int k = 2; k <= CHUNK; k <<= 1) {
		for (int j = k >> 1; j > 0; j >>= 1) {
			int i = 2 * t - (t & (j - 1));
			int l = i + j;
			bool up = (i & k) == 0;
			int a = s[i], b = s[l];
			if ((a > b) == up) {
				s[i] = b;
				s[l] = a;
			}
			__syncthreads();
		}
	}

	out[base + t] = s[t];
	out[base + t + CHUNK / 2] = s[t + CHUNK / 2];
}
