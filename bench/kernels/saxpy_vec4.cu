// saxpy over float4: the simplest memory-bound kernel, and the one where
// v4 loads and stores must survive every stage.
//@ kernel saxpy_vec4
//@ grid 1024
//@ block 256
//@ arg inout f32 1048576
//@ arg in f32 1048576
//@ arg val f32 2.5
//@ arg val i32 262144

extern "C" __global__ void saxpy_vec4(float4 *y, const float4 *x, float a, int n4)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n4) {
		float4 xv = x[i], yv = y[i];
		yv.x = a * xv.x + yv.x;
		yv.y = a * xv.y + yv.y;
		yv.z = a * xv.z + yv.z;
		yv.w = a * xv.w + yv.w;
		y[i] = yv;
	}
}
