// Inclusive prefix sum of each 1024-int segment, one segment per block:
// work-efficient Blelloch scan in shared memory (512 threads, two elements
// each; up-sweep, clear, down-sweep), then the input is added back to make
// the exclusive scan inclusive. Integer, so results are exact.
//@ kernel scan_block
//@ grid 4096
//@ block 512
//@ arg in i32 4194304 mod:1000
//@ arg out i32 4194304
//@ arg val i32 4194304

#define SEG 1024

extern "C" __global__ void __launch_bounds__(SEG / 2)
scan_block(const int *__restrict__ in, int *__restrict__ out, int n)
{
	__shared__ int s[SEG];

	int t = threadIdx.x;
	int base = blockIdx.x * SEG;
	int i0 = base + 2 * t, i1 = i0 + 1;
	int v0 = i0 < n ? in[i0] : 0;
	int v1 = i1 < n ? in[i1] : 0;

	s[2 * t] = v0;
	s[2 * t + 1] = v1;

	/* up-sweep: build partial sums in place */
	int offset = 1;
	for (int d = SEG >> 1; d > 0; d >>= 1) {
		__syncthreads();
		if (t < d) {
			int ai = offset * (2 * t + 1) - 1;
			int bi = offset * (2 * t + 2) - 1;
			s[bi] += s[ai];
		}
		offset <<= 1;
	}

	if (t == 0)
		s[SEG - 1] = 0;

	/* down-sweep: exclusive scan */
	for (int d = 1; d < SEG; d <<= 1) {
		offset >>= 1;
		__syncthreads();
		if (t < d) {
			int ai = offset * (2 * t + 1) - 1;
			int bi = offset * (2 * t + 2) - 1;
			int tmp = s[ai];
			s[ai] = s[bi];
			s[bi] += tmp;
		}
	}
	__syncthreads();

	if (i0 < n)
		out[i0] = s[2 * t] + v0;
	if (i1 < n)
		out[i1] = s[2 * t + 1] + v1;
}
