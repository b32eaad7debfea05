// 5-point 2-D Jacobi step with a constant-trip inner loop over weights.
__global__ void jacobi5(const float *in, float *out, int nx, int ny)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	const int dx[5] = { 0, -1, 1, 0, 0 }, dy[5] = { 0, 0, 0, -1, 1 };
	const float w[5] = { 0.5f, 0.125f, 0.125f, 0.125f, 0.125f };
	if (x < 1 || y < 1 || x >= nx - 1 || y >= ny - 1)
		return;
	float acc = 0.0f;
	for (int k = 0; k < 5; k++)
		acc += w[k] * in[(y + dy[k]) * nx + x + dx[k]];
	out[y * nx + x] = acc;
}
