// 3x3 median filter on an 8192x8192 8-bit image, one pixel per thread on a
// 2-D grid: nine clamped byte loads into registers, then the 19-exchange
// min/max sorting network (Paeth/Devillard opt_med9) that leaves the median
// in p4; byte stores.
//@ kernel median3x3
//@ grid 256 1024
//@ block 32 8
//@ arg out u8 67108864
//@ arg in u8 67108864 rand
//@ arg val i32 8192
//@ arg val i32 8192

#define SORT2(a, b) { int t_ = min(a, b); b = max(a, b); a = t_; }

extern "C" __global__ void __launch_bounds__(256)
median3x3(unsigned char *__restrict__ out, const unsigned char *__restrict__ in,
	  int width, int height)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;

	if (x >= width || y >= height)
		return;

	int xm = max(x - 1, 0), xp = min(x + 1, width - 1);
	const unsigned char *rm = in + max(y - 1, 0) * width;
	const unsigned char *r0 = in + y * width;
	const unsigned char *rp = in + min(y + 1, height - 1) * width;

	int p0 = rm[xm], p1 = rm[x], p2 = rm[xp];
	int p3 = r0[xm], p4 = r0[x], p5 = r0[xp];
	int p6 = rp[xm], p7 = rp[x], p8 = rp[xp];

	SORT2(p1, p2); SORT2(p4, p5); SORT2(p7, p8);
	SORT2(p0, p1); SORT2(p3, p4); SORT2(p6, p7);
	SORT2(p1, p2); SORT2(p4, p5); SORT2(p7, p8);
	SORT2(p0, p3); SORT2(p5, p8); SORT2(p4, p7);
	SORT2(p3, p6); SORT2(p1, p4); SORT2(p2, p5);
	SORT2(p4, p7); SORT2(p4, p2); SORT2(p6, p4);
	SORT2(p4, p2);

	out[y * width + x] = (unsigned char)p4;
}
