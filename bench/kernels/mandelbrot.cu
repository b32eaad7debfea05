// Escape-time Mandelbrot on a 2048x2048 grid (2-D launch) with a runtime
// iteration limit and a data-dependent loop exit: heavy warp divergence.
// The arithmetic is 64-bit fixed point (Q35.28 in long long: mul.lo.s64 and
// arithmetic shifts) so that results are exact on every compiler; no FMA
// contraction can change an iteration count.
//@ kernel mandelbrot
//@ grid 128 128
//@ block 16 16
//@ arg out i32 4194304
//@ arg val i32 2048
//@ arg val i32 2048
//@ arg val i32 256

#define FRAC 28
#define FIX(x) ((long long)((x) * (double)(1LL << FRAC)))

extern "C" __global__ void __launch_bounds__(256)
mandelbrot(int *__restrict__ iters, int width, int height, int max_iter)
{
	int px = blockIdx.x * blockDim.x + threadIdx.x;
	int py = blockIdx.y * blockDim.y + threadIdx.y;
	if (px >= width || py >= height)
		return;

	// view [-2.0, 1.0] x [-1.5, 1.5]
	const long long span = FIX(3.0);
	long long cx = FIX(-2.0) + span * px / width;
	long long cy = FIX(-1.5) + span * py / height;
	const long long four = FIX(4.0);

	long long x = 0, y = 0;
	int it = 0;
	while (it < max_iter) {
		long long x2 = (x * x) >> FRAC;
		long long y2 = (y * y) >> FRAC;
		if (x2 + y2 > four)
			break;
		long long xy = (x * y) >> (FRAC - 1);
		x = x2 - y2 + cx;
		y = xy + cy;
		it++;
	}

	iters[py * width + px] = it;
}
