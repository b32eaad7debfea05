// Structs passed and returned by value: Vec3, Mat3x3 (36 bytes), Ray
// {Vec3 o, d}, and a shading helper taking eight Vec3 arguments.  A small
// ray transform / ray-sphere closest-approach kernel whose helpers must be
// inlined and scalarized (SROA) for the aggregates to vanish; the result is
// continuous in the inputs (no hit/miss branch), so FMA contraction only
// moves the last bits.
//@ kernel struct_byval
//@ grid 2048
//@ block 256
//@ tol 1e-3
//@ arg in f32 3145728 rand
//@ arg in f32 144 rand
//@ arg in f32 64 rand
//@ arg out f32 1572864
//@ arg val i32 524288

struct Vec3 {
	float x, y, z;
};

struct Mat3x3 {
	Vec3 r0, r1, r2;
};

struct Ray {
	Vec3 o, d;
};

__device__ Vec3 vec3(float x, float y, float z)
{
	Vec3 v;
	v.x = x;
	v.y = y;
	v.z = z;
	return v;
}

__device__ Vec3 add(Vec3 a, Vec3 b) { return vec3(a.x + b.x, a.y + b.y, a.z + b.z); }
__device__ Vec3 sub(Vec3 a, Vec3 b) { return vec3(a.x - b.x, a.y - b.y, a.z - b.z); }
__device__ Vec3 scale(Vec3 a, float s) { return vec3(a.x * s, a.y * s, a.z * s); }
__device__ Vec3 mul(Vec3 a, Vec3 b) { return vec3(a.x * b.x, a.y * b.y, a.z * b.z); }
__device__ float dot(Vec3 a, Vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

__device__ Vec3 cross(Vec3 a, Vec3 b)
{
	return vec3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}

// smooth normalize: no division by zero, continuous everywhere
__device__ Vec3 normalize_eps(Vec3 a)
{
	return scale(a, 1.0f / sqrtf(dot(a, a) + 1e-2f));
}

__device__ Vec3 transform(Mat3x3 m, Vec3 v)
{
	return vec3(dot(m.r0, v), dot(m.r1, v), dot(m.r2, v));
}

__device__ Mat3x3 transpose(Mat3x3 m)
{
	Mat3x3 t;
	t.r0 = vec3(m.r0.x, m.r1.x, m.r2.x);
	t.r1 = vec3(m.r0.y, m.r1.y, m.r2.y);
	t.r2 = vec3(m.r0.z, m.r1.z, m.r2.z);
	return t;
}

__device__ Mat3x3 matmul(Mat3x3 a, Mat3x3 b)
{
	Mat3x3 bt = transpose(b);
	Mat3x3 c;
	c.r0 = transform(bt, a.r0);
	c.r1 = transform(bt, a.r1);
	c.r2 = transform(bt, a.r2);
	return c;
}

__device__ Mat3x3 load_mat(const float *p)
{
	Mat3x3 m;
	m.r0 = vec3(p[0], p[1], p[2]);
	m.r1 = vec3(p[3], p[4], p[5]);
	m.r2 = vec3(p[6], p[7], p[8]);
	return m;
}

__device__ Ray transform_ray(Mat3x3 m, Ray r, Vec3 offset)
{
	Ray t;
	t.o = add(transform(m, r.o), offset);
	t.d = normalize_eps(transform(m, r.d));
	return t;
}

// point on the ray closest to c, and the (smooth) surface normal there
__device__ Ray closest_approach(Ray r, Vec3 c, float radius)
{
	float t = dot(sub(c, r.o), r.d);
	Vec3 p = add(r.o, scale(r.d, t));
	Vec3 n = normalize_eps(sub(p, c));
	Ray h;
	h.o = add(c, scale(n, radius));
	h.d = n;
	return h;
}

// eight struct arguments
__device__ Vec3 shade(Vec3 n, Vec3 view, Vec3 l0, Vec3 l1, Vec3 c0, Vec3 c1, Vec3 albedo, Vec3 ambient)
{
	float d0 = fmaxf(dot(n, l0), 0.0f);
	float d1 = fmaxf(dot(n, l1), 0.0f);
	Vec3 h0 = normalize_eps(add(l0, view));
	float s0 = fmaxf(dot(n, h0), 0.0f);
	s0 = s0 * s0;
	s0 = s0 * s0;
	Vec3 diff = add(scale(c0, d0), scale(c1, d1));
	return add(add(mul(albedo, diff), ambient), scale(c0, s0 * 0.5f));
}

extern "C" __global__ void struct_byval(const float *__restrict__ rays, const float *__restrict__ mats,
					const float *__restrict__ spheres, float *__restrict__ out, int n)
{
	int tid = blockIdx.x * blockDim.x + threadIdx.x;
	if (tid >= n)
		return;

	Ray r;
	r.o = vec3(rays[tid], rays[tid + n], rays[tid + 2 * n]);
	r.d = vec3(rays[tid + 3 * n], rays[tid + 4 * n], rays[tid + 5 * n]);

	// matrices: 16 of them, 9 floats each; compose two
	Mat3x3 ma = load_mat(mats + 9 * (tid & 15));
	Mat3x3 mb = load_mat(mats + 9 * ((tid >> 4) & 15));
	Mat3x3 m = matmul(ma, mb);

	// spheres: 16 of them, center + radius
	const float *sp = spheres + 4 * ((tid >> 8) & 15);
	Vec3 c = vec3(sp[0], sp[1], sp[2]);
	float radius = 0.5f + 0.25f * sp[3];

	Ray rt = transform_ray(m, r, vec3(0.1f, -0.2f, 0.3f));
	Ray hit = closest_approach(rt, c, radius);

	Vec3 l0 = normalize_eps(vec3(0.6f, 0.7f, -0.4f));
	Vec3 l1 = normalize_eps(vec3(-0.5f, 0.2f, 0.8f));
	Vec3 view = scale(rt.d, -1.0f);
	Vec3 col = shade(hit.d, view, l0, l1, vec3(1.0f, 0.9f, 0.8f), vec3(0.2f, 0.3f, 0.6f),
			 vec3(0.7f, 0.5f, 0.3f), vec3(0.05f, 0.05f, 0.08f));
	col = add(col, scale(hit.o, 0.01f));

	out[tid] = col.x;
	out[tid + n] = col.y;
	out[tid + 2 * n] = col.z;
}
