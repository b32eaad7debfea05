// Batched small matrix products C_i = A_i * B_i, one 6x6 product per
// thread: both operands are loaded into local float[6][6] arrays, the
// triple loop is fully unrolled, and the result goes back row by row.
// Exercises promotion of large local arrays (108 live floats) to registers.
//@ kernel batched_matmul4
//@ grid 1024
//@ block 256
//@ tol 1e-5
//@ arg in f32 9437184 rand
//@ arg in f32 9437184 rand
//@ arg out f32 9437184
//@ arg val i32 262144

#define D 6

extern "C" __global__ void __launch_bounds__(256)
batched_matmul4(const float *__restrict__ A, const float *__restrict__ B,
		float *__restrict__ C, int batch)
{
	int b = blockIdx.x * blockDim.x + threadIdx.x;

	if (b >= batch)
		return;

	const float *pa = A + (size_t)b * (D * D);
	const float *pb = B + (size_t)b * (D * D);
	float *pc = C + (size_t)b * (D * D);
	float a[D][D], m[D][D], c[D][D];

#pragma unroll
	for (int i = 0; i < D; i++)
#pragma unroll
		for (int j = 0; j < D; j++) {
			a[i][j] = pa[i * D + j];
			m[i][j] = pb[i * D + j];
		}

#pragma unroll
	for (int i = 0; i < D; i++)
#pragma unroll
		for (int j = 0; j < D; j++) {
			float s = 0.0f;
#pragma unroll
			for (int k = 0; k < D; k++)
				s += a[i][k] * m[k][j];
			c[i][j] = s;
		}

#pragma unroll
	for (int i = 0; i < D; i++)
#pragma unroll
		for (int j = 0; j < D; j++)
			pc[i * D + j] = c[i][j];
}
