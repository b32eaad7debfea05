// 48 accumulators carried around a loop, under launch bounds of 128
// threads: the example of the README's "Why a kernel needs its registers".
__global__ void __launch_bounds__(128) big(float *out, const float *in, int n)
{
	float acc[48];
#pragma unroll
	for (int j = 0; j < 48; j++)
		acc[j] = in[j * 7];
	for (int i = 0; i < n; i++) {
#pragma unroll
		for (int j = 0; j < 48; j++)
			acc[j] = acc[j] * in[i] + acc[(j + 1) % 48];
	}
	float s = 0;
#pragma unroll
	for (int j = 0; j < 48; j++)
		s += acc[j];
	out[threadIdx.x] = s;
}
