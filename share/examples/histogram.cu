// 256-bin byte histogram: per-block bins in shared memory, merged with atomics.
__device__ static unsigned bin_of(unsigned char c) { return c; }

__global__ void histogram256(const unsigned char *data, int n, unsigned *bins)
{
	__shared__ unsigned local[256];
	for (int i = threadIdx.x; i < 256; i += blockDim.x)
		local[i] = 0;
	__syncthreads();
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
		atomicAdd(&local[bin_of(data[i])], 1u);
	__syncthreads();
	for (int i = threadIdx.x; i < 256; i += blockDim.x)
		atomicAdd(&bins[i], local[i]);
}
