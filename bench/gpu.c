/*
 * bench-gpu: run each benchmark kernel as compiled by nvcc and by nvcc-lite
 * (and clang-22, when its PTX is there) on a GPU, check that the outputs
 * agree, and time them.
 *
 *	bench-gpu [-r REPS] [-d DIR] [--check] KERNEL.cu...
 *
 * The launch is described by the //@ lines of KERNEL.cu (bench/README.md);
 * the PTX is read from DIR/{nvcc,lite,clang}/KERNEL.ptx, as bench/run.sh
 * writes it.  Before anything runs, each entry's .param list in the PTX is
 * checked against the spec (count and widths), so a wrong spec is an error,
 * not a wild launch.  --check does only that, and needs no GPU.
 *
 * The CUDA driver API is opened with dlopen (BENCH_LIBCUDA, else
 * libcuda.so.1), so this builds everywhere; where no driver or no device is
 * found it says so and exits 0.
 */
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The driver API, as much as we use (cuda.h's types and values). */
typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUevent_st *CUevent;
typedef struct CUstream_st *CUstream;
typedef unsigned long long CUdeviceptr;

enum { CU_JIT_ERROR_LOG_BUFFER = 5, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6 };
enum { CC_MAJOR = 75, CC_MINOR = 76 };

static struct {
	CUresult (*Init)(unsigned);
	CUresult (*DeviceGetCount)(int *);
	CUresult (*DeviceGet)(CUdevice *, int);
	CUresult (*DeviceGetName)(char *, int, CUdevice);
	CUresult (*DeviceGetAttribute)(int *, int, CUdevice);
	CUresult (*DevicePrimaryCtxRetain)(CUcontext *, CUdevice);
	CUresult (*DevicePrimaryCtxRelease)(CUdevice);
	CUresult (*CtxSetCurrent)(CUcontext);
	CUresult (*CtxSynchronize)(void);
	CUresult (*ModuleLoadDataEx)(CUmodule *, const void *, unsigned, int *, void **);
	CUresult (*ModuleUnload)(CUmodule);
	CUresult (*ModuleGetFunction)(CUfunction *, CUmodule, const char *);
	CUresult (*MemAlloc)(CUdeviceptr *, size_t);
	CUresult (*MemFree)(CUdeviceptr);
	CUresult (*MemcpyHtoD)(CUdeviceptr, const void *, size_t);
	CUresult (*MemcpyDtoH)(void *, CUdeviceptr, size_t);
	CUresult (*MemsetD8)(CUdeviceptr, unsigned char, size_t);
	CUresult (*LaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
				 unsigned, CUstream, void **, void **);
	CUresult (*EventCreate)(CUevent *, unsigned);
	CUresult (*EventDestroy)(CUevent);
	CUresult (*EventRecord)(CUevent, CUstream);
	CUresult (*EventSynchronize)(CUevent);
	CUresult (*EventElapsedTime)(float *, CUevent, CUevent);
	CUresult (*GetErrorString)(CUresult, const char **);
} cu;

static const struct {
	const char *name;
	size_t off;
} cu_syms[] = {
#define SYM(f, s) { s, offsetof(__typeof__(cu), f) }
	SYM(Init, "cuInit"),
	SYM(DeviceGetCount, "cuDeviceGetCount"),
	SYM(DeviceGet, "cuDeviceGet"),
	SYM(DeviceGetName, "cuDeviceGetName"),
	SYM(DeviceGetAttribute, "cuDeviceGetAttribute"),
	SYM(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain"),
	SYM(DevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2"),
	SYM(CtxSetCurrent, "cuCtxSetCurrent"),
	SYM(CtxSynchronize, "cuCtxSynchronize"),
	SYM(ModuleLoadDataEx, "cuModuleLoadDataEx"),
	SYM(ModuleUnload, "cuModuleUnload"),
	SYM(ModuleGetFunction, "cuModuleGetFunction"),
	SYM(MemAlloc, "cuMemAlloc_v2"),
	SYM(MemFree, "cuMemFree_v2"),
	SYM(MemcpyHtoD, "cuMemcpyHtoD_v2"),
	SYM(MemcpyDtoH, "cuMemcpyDtoH_v2"),
	SYM(MemsetD8, "cuMemsetD8_v2"),
	SYM(LaunchKernel, "cuLaunchKernel"),
	SYM(EventCreate, "cuEventCreate"),
	SYM(EventDestroy, "cuEventDestroy_v2"),
	SYM(EventRecord, "cuEventRecord"),
	SYM(EventSynchronize, "cuEventSynchronize"),
	SYM(EventElapsedTime, "cuEventElapsedTime"),
	SYM(GetErrorString, "cuGetErrorString"),
#undef SYM
};

#define MAXARGS 32
#define NVARIANTS 3

enum kind { IN, OUT, INOUT, VAL };
enum type { F32, F64, I32, U32, I64, U8 };
enum fill { RAND, POS, MOD, IOTA, CONST };

static const char *const type_names[] = { "f32", "f64", "i32", "u32", "i64", "u8" };
static const size_t type_size[] = { 4, 8, 4, 4, 8, 1 };

struct arg {
	enum kind kind;
	enum type type;
	size_t count;		/* buffers */
	enum fill fill;
	double fillv;
	double val;		/* scalars */
	long long ival;
};

struct spec {
	char path[4096], name[256], kernel[256];
	unsigned grid[3], block[3], smem;
	double tol;
	int nargs;
	struct arg args[MAXARGS];
};

/* What one launch left in the out and inout buffers. */
struct result {
	void *buf[MAXARGS];
	double ms;
	int ran;
};

static const char *const variants[NVARIANTS] = { "nvcc", "lite", "clang" };
static const char *prog = "bench-gpu";

static void
err(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static char *
slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *s = NULL;
	size_t n = 0, cap = 0, r;

	if (!f)
		return NULL;
	do {
		if (cap - n < 65536) {
			cap = cap ? cap * 2 : 65536;
			s = realloc(s, cap + 1);
			if (!s) {
				fclose(f);
				return NULL;
			}
		}
		r = fread(s + n, 1, cap - n, f);
		n += r;
	} while (r > 0);
	fclose(f);
	s[n] = 0;
	return s;
}

static int
parse_type(const char *s, enum type *t)
{
	for (int i = 0; i < (int)(sizeof(type_names) / sizeof(*type_names)); i++)
		if (!strcmp(s, type_names[i])) {
			*t = i;
			return 0;
		}
	return -1;
}

static int
parse_fill(const char *s, struct arg *a)
{
	char *end;

	a->fill = RAND;
	a->fillv = 0;
	if (!s || !strcmp(s, "rand"))
		return 0;
	if (!strcmp(s, "pos")) {
		a->fill = POS;
		return 0;
	}
	if (!strncmp(s, "mod:", 4))
		a->fill = MOD, s += 4;
	else if (!strncmp(s, "iota:", 5))
		a->fill = IOTA, s += 5;
	else if (!strncmp(s, "const:", 6))
		a->fill = CONST, s += 6;
	else
		return -1;
	errno = 0;
	a->fillv = strtod(s, &end);
	if (errno || end == s || *end || (a->fill == MOD && a->fillv < 1))
		return -1;
	return 0;
}

static int
parse_dims(char **w, int n, unsigned d[3])
{
	d[0] = d[1] = d[2] = 1;
	if (n < 2 || n > 4)
		return -1;
	for (int i = 1; i < n; i++) {
		char *end;
		long v = strtol(w[i], &end, 10);

		if (*end || v < 1 || v > 0x7fffffff)
			return -1;
		d[i - 1] = (unsigned)v;
	}
	return 0;
}

/* Reads the //@ lines of a kernel file; one message and -1 when they are wrong. */
static int
parse_spec(const char *path, struct spec *sp)
{
	char *text = slurp(path), *line, *save = NULL;
	const char *base = strrchr(path, '/');
	int lineno = 0, have_grid = 0, have_block = 0;

	memset(sp, 0, sizeof(*sp));
	sp->tol = 1e-5;
	snprintf(sp->path, sizeof(sp->path), "%s", path);
	snprintf(sp->name, sizeof(sp->name), "%s", base ? base + 1 : path);
	if (strchr(sp->name, '.'))
		*strrchr(sp->name, '.') = 0;
	if (!text) {
		err("%s: %s", path, strerror(errno));
		return -1;
	}
	for (line = text; line; line = save) {
		char *w[8], *p;
		int n = 0;

		save = strchr(line, '\n');
		if (save)
			*save++ = 0;
		lineno++;
		p = line + strspn(line, " \t");
		if (strncmp(p, "//@", 3))
			continue;
		for (char *tok = strtok(p + 3, " \t\r"); tok && n < 8; tok = strtok(NULL, " \t\r"))
			w[n++] = tok;
		if (n == 0)
			goto bad;
		if (!strcmp(w[0], "kernel") && n == 2) {
			snprintf(sp->kernel, sizeof(sp->kernel), "%s", w[1]);
		} else if (!strcmp(w[0], "grid")) {
			if (parse_dims(w, n, sp->grid))
				goto bad;
			have_grid = 1;
		} else if (!strcmp(w[0], "block")) {
			if (parse_dims(w, n, sp->block) || (unsigned long)sp->block[0] * sp->block[1] * sp->block[2] > 1024)
				goto bad;
			have_block = 1;
		} else if (!strcmp(w[0], "smem") && n == 2) {
			char *end;
			long v = strtol(w[1], &end, 10);

			if (*end || v < 0 || v > 48 * 1024)
				goto bad;
			sp->smem = (unsigned)v;
		} else if (!strcmp(w[0], "tol") && n == 2) {
			char *end;

			sp->tol = strtod(w[1], &end);
			if (*end || !(sp->tol >= 0))
				goto bad;
		} else if (!strcmp(w[0], "arg") && n >= 4 && sp->nargs < MAXARGS) {
			struct arg *a = &sp->args[sp->nargs++];
			char *end;

			if (parse_type(w[2], &a->type))
				goto bad;
			if (!strcmp(w[1], "val")) {
				if (n != 4)
					goto bad;
				a->kind = VAL;
				errno = 0;
				if (a->type == F32 || a->type == F64)
					a->val = strtod(w[3], &end);
				else
					a->ival = strtoll(w[3], &end, 0);
				if (errno || *end)
					goto bad;
				continue;
			}
			if (!strcmp(w[1], "in"))
				a->kind = IN;
			else if (!strcmp(w[1], "out"))
				a->kind = OUT;
			else if (!strcmp(w[1], "inout"))
				a->kind = INOUT;
			else
				goto bad;
			errno = 0;
			a->count = strtoull(w[3], &end, 10);
			if (errno || *end || a->count == 0 || a->count * type_size[a->type] > (64u << 20) ||
			    n > 5 || (a->kind == OUT && n == 5) || parse_fill(n == 5 ? w[4] : NULL, a))
				goto bad;
		} else {
			goto bad;
		}
		continue;
bad:
		err("%s:%d: bad //@ line (see bench/README.md)", path, lineno);
		free(text);
		return -1;
	}
	free(text);
	if (!*sp->kernel || !have_grid || !have_block) {
		err("%s: needs //@ kernel, //@ grid and //@ block lines", path);
		return -1;
	}
	return 0;
}

/*
 * The .param list of the entry in the PTX, against the spec: same count, and
 * the widths of what is passed (8 for a buffer).
 */
static int
check_params(const struct spec *sp, const char *ptx, const char *ptxpath)
{
	char want[300];
	const char *p;
	int i = 0;

	snprintf(want, sizeof(want), ".entry %s(", sp->kernel);
	p = strstr(ptx, want);
	if (!p) {
		err("%s: no .entry %s", ptxpath, sp->kernel);
		return -1;
	}
	p += strlen(want);
	for (;;) {
		const char *q = strstr(p, ".param");
		const char *close = strchr(p, ')');
		size_t width = 0, need;

		if (!q || (close && close < q))
			break;
		q += 6;
		while (*q == ' ' || *q == '\t')
			q++;
		if (!strncmp(q, ".align", 6)) {
			err("%s: %s parameter %d is an aggregate, which the spec cannot describe", ptxpath,
			    sp->kernel, i);
			return -1;
		}
		if (q[0] == '.' && q[1] && q[2])
			width = (size_t)atoi(q + 2) / 8;
		if (i >= sp->nargs) {
			err("%s: %s has more parameters than its %d //@ arg lines", ptxpath, sp->kernel, sp->nargs);
			return -1;
		}
		need = sp->args[i].kind == VAL ? type_size[sp->args[i].type] : 8;
		if (width != need && !(need == 1 && width == 2)) {
			err("%s: %s parameter %d is %zu bytes in the PTX, %zu in the spec", ptxpath, sp->kernel, i,
			    width, need);
			return -1;
		}
		i++;
		p = q;
	}
	if (i != sp->nargs) {
		err("%s: %s has %d parameters, the spec %d", ptxpath, sp->kernel, i, sp->nargs);
		return -1;
	}
	return 0;
}

static uint64_t
xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* The same bytes on every call for the same argument. */
static void
fill_host(const struct arg *a, int index, void *buf)
{
	uint64_t s = 0x9E3779B97F4A7C15ull * (uint64_t)(index + 1);

	for (size_t i = 0; i < a->count; i++) {
		uint64_t r = xorshift(&s);
		double u = (double)(r >> 11) / 9007199254740992.0; /* [0, 1) */
		double d;
		long long v;

		switch (a->fill) {
		case RAND:
			d = 2 * u - 1;
			v = a->type == U8 ? (long long)(r & 0xff) : (long long)(r >> 33);
			break;
		case POS:
			d = u + 0.5;
			v = (long long)(r >> 33);
			break;
		case MOD:
			d = u * a->fillv;
			v = (long long)(r % (uint64_t)a->fillv);
			break;
		case IOTA:
			d = (double)i * a->fillv;
			v = (long long)i * (long long)a->fillv;
			break;
		default:
			d = a->fillv;
			v = (long long)a->fillv;
			break;
		}
		switch (a->type) {
		case F32: ((float *)buf)[i] = (float)d; break;
		case F64: ((double *)buf)[i] = d; break;
		case I32: ((int32_t *)buf)[i] = (int32_t)v; break;
		case U32: ((uint32_t *)buf)[i] = (uint32_t)v; break;
		case I64: ((int64_t *)buf)[i] = v; break;
		case U8: ((uint8_t *)buf)[i] = (uint8_t)v; break;
		}
	}
}

static const char *
cuerr(CUresult r)
{
	const char *s = NULL;

	if (cu.GetErrorString && cu.GetErrorString(r, &s) == 0 && s)
		return s;
	return "unknown CUDA error";
}

#define CK(call)                                                                 \
	do {                                                                     \
		CUresult r_ = (call);                                            \
		if (r_) {                                                        \
			err("%s (%s): %s: %s", sp->name, variant, #call, cuerr(r_)); \
			goto out;                                                \
		}                                                                \
	} while (0)

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Loads one PTX, runs it once for its outputs, then REPS times for its time. */
static int
run_variant(const struct spec *sp, const char *variant, const char *ptx, int reps, struct result *res)
{
	CUmodule mod = NULL;
	CUfunction fn;
	CUdeviceptr dev[MAXARGS] = { 0 };
	void *params[MAXARGS];
	union {
		float f;
		double d;
		int32_t i;
		uint32_t u;
		int64_t l;
		uint8_t b;
	} vals[MAXARGS];
	CUevent e0 = NULL, e1 = NULL;
	double *times = calloc((size_t)reps, sizeof(double));
	char log[8192] = "";
	int opts[2] = { CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES };
	void *optv[2] = { log, (void *)(uintptr_t)sizeof(log) };
	int rc = -1;
	CUresult r;

	memset(res, 0, sizeof(*res));
	if (!times)
		return -1;
	r = cu.ModuleLoadDataEx(&mod, ptx, 2, opts, optv);
	if (r) {
		err("%s (%s): the driver rejects the PTX: %s%s%s", sp->name, variant, cuerr(r), *log ? "\n" : "",
		    log);
		goto out;
	}
	CK(cu.ModuleGetFunction(&fn, mod, sp->kernel));
	for (int i = 0; i < sp->nargs; i++) {
		const struct arg *a = &sp->args[i];
		size_t bytes = a->count * type_size[a->type];

		if (a->kind == VAL) {
			switch (a->type) {
			case F32: vals[i].f = (float)a->val; break;
			case F64: vals[i].d = a->val; break;
			case I32: vals[i].i = (int32_t)a->ival; break;
			case U32: vals[i].u = (uint32_t)a->ival; break;
			case I64: vals[i].l = a->ival; break;
			case U8: vals[i].b = (uint8_t)a->ival; break;
			}
			params[i] = &vals[i];
			continue;
		}
		CK(cu.MemAlloc(&dev[i], bytes));
		params[i] = &dev[i];
		if (a->kind == OUT) {
			CK(cu.MemsetD8(dev[i], 0, bytes));
		} else {
			void *h = malloc(bytes);

			if (!h)
				goto out;
			fill_host(a, i, h);
			r = cu.MemcpyHtoD(dev[i], h, bytes);
			free(h);
			CK(r);
		}
		if (a->kind != IN && !(res->buf[i] = malloc(bytes)))
			goto out;
	}
#define LAUNCH() cu.LaunchKernel(fn, sp->grid[0], sp->grid[1], sp->grid[2], sp->block[0], sp->block[1], \
				 sp->block[2], sp->smem, NULL, params, NULL)
	CK(LAUNCH());
	CK(cu.CtxSynchronize());
	for (int i = 0; i < sp->nargs; i++)
		if (res->buf[i])
			CK(cu.MemcpyDtoH(res->buf[i], dev[i], sp->args[i].count * type_size[sp->args[i].type]));
	CK(cu.EventCreate(&e0, 0));
	CK(cu.EventCreate(&e1, 0));
	for (int k = 0; k < reps; k++) {
		float ms;

		CK(cu.EventRecord(e0, NULL));
		CK(LAUNCH());
		CK(cu.EventRecord(e1, NULL));
		CK(cu.EventSynchronize(e1));
		CK(cu.EventElapsedTime(&ms, e0, e1));
		times[k] = ms;
	}
#undef LAUNCH
	qsort(times, (size_t)reps, sizeof(double), cmp_double);
	res->ms = times[reps / 2];
	res->ran = 1;
	rc = 0;
out:
	if (e0)
		cu.EventDestroy(e0);
	if (e1)
		cu.EventDestroy(e1);
	for (int i = 0; i < sp->nargs; i++)
		if (dev[i])
			cu.MemFree(dev[i]);
	if (mod)
		cu.ModuleUnload(mod);
	free(times);
	return rc;
}

/* Elements of the out/inout buffers of B that differ from A's; *worst is the largest relative error. */
static size_t
compare(const struct spec *sp, const struct result *a, const struct result *b, double *worst)
{
	size_t bad = 0;

	*worst = 0;
	for (int i = 0; i < sp->nargs; i++) {
		const struct arg *g = &sp->args[i];

		if (!a->buf[i] || !b->buf[i])
			continue;
		for (size_t k = 0; k < g->count; k++) {
			double x, y, scale, e;

			switch (g->type) {
			case F32:
				x = ((float *)a->buf[i])[k], y = ((float *)b->buf[i])[k];
				break;
			case F64:
				x = ((double *)a->buf[i])[k], y = ((double *)b->buf[i])[k];
				break;
			default:
				if (memcmp((char *)a->buf[i] + k * type_size[g->type],
					   (char *)b->buf[i] + k * type_size[g->type], type_size[g->type])) {
					bad++;
					*worst = INFINITY;
				}
				continue;
			}
			if (isnan(x) && isnan(y))
				continue;
			scale = fmax(1.0, fmax(fabs(x), fabs(y)));
			e = fabs(x - y) / scale;
			if (!(e <= sp->tol)) {
				bad++;
				if (!(e <= *worst))
					*worst = isnan(e) ? INFINITY : e;
			}
		}
	}
	return bad;
}

static void
free_result(struct result *r)
{
	for (int i = 0; i < MAXARGS; i++)
		free(r->buf[i]);
	memset(r, 0, sizeof(*r));
}

static char *
ptx_path(const char *dir, const char *variant, const struct spec *sp)
{
	size_t n = strlen(dir) + strlen(variant) + strlen(sp->name) + 8;
	char *p = malloc(n);

	if (p)
		snprintf(p, n, "%s/%s/%s.ptx", dir, variant, sp->name);
	return p;
}

/* Loads the driver; 1 when there is none to use (and says why), -1 on a real failure. */
static int
open_cuda(char *devname, size_t n)
{
	const char *lib = getenv("BENCH_LIBCUDA");
	void *h = dlopen(lib && *lib ? lib : "libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	int count = 0, major = 0, minor = 0;
	CUdevice dev;
	CUcontext ctx;
	CUresult r;

	if (!h) {
		err("no CUDA driver here (%s); skipped", dlerror());
		return 1;
	}
	for (size_t i = 0; i < sizeof(cu_syms) / sizeof(*cu_syms); i++) {
		void *f = dlsym(h, cu_syms[i].name);

		if (!f) {
			err("the CUDA driver lacks %s; skipped", cu_syms[i].name);
			return 1;
		}
		memcpy((char *)&cu + cu_syms[i].off, &f, sizeof(f));
	}
	if ((r = cu.Init(0)) || (r = cu.DeviceGetCount(&count)) || count == 0) {
		err("no usable GPU (%s); skipped", r ? cuerr(r) : "no device");
		return 1;
	}
	if ((r = cu.DeviceGet(&dev, 0)) || (r = cu.DeviceGetName(devname, (int)n, dev)) ||
	    (r = cu.DeviceGetAttribute(&major, CC_MAJOR, dev)) || (r = cu.DeviceGetAttribute(&minor, CC_MINOR, dev)) ||
	    (r = cu.DevicePrimaryCtxRetain(&ctx, dev)) || (r = cu.CtxSetCurrent(ctx))) {
		err("cannot open GPU 0: %s", cuerr(r));
		return -1;
	}
	if (major < 9) {
		err("%s is sm_%d%d; the benchmark's PTX is for sm_90; skipped", devname, major, minor);
		return 1;
	}
	return 0;
}

static void
usage(FILE *f)
{
	fprintf(f, "usage: %s [-r REPS] [-d DIR] [--check] KERNEL.cu...\n"
		   "  -r REPS   timed launches per kernel and compiler; the median is reported (default 20)\n"
		   "  -d DIR    where bench/run.sh wrote {nvcc,lite,clang}/KERNEL.ptx (default bench/out)\n"
		   "  --check   only check each spec against its PTX; no GPU needed\n"
		   "BENCH_LIBCUDA names the driver library (default libcuda.so.1).\n",
		prog);
}

int
main(int argc, char **argv)
{
	const char *dir = "bench/out";
	int reps = 20, check_only = 0, first, status = 0, nk = 0, nlog[NVARIANTS] = { 0 };
	double logsum[NVARIANTS] = { 0 };
	char devname[256] = "";
	FILE *csv = NULL;

	for (first = 1; first < argc && argv[first][0] == '-'; first++) {
		const char *a = argv[first];

		if (!strcmp(a, "--check")) {
			check_only = 1;
		} else if (!strcmp(a, "-r") && first + 1 < argc) {
			char *end;

			reps = (int)strtol(argv[++first], &end, 10);
			if (*end || reps < 1 || reps > 10000) {
				err("-r wants a count from 1 to 10000");
				return 2;
			}
		} else if (!strcmp(a, "-d") && first + 1 < argc) {
			dir = argv[++first];
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		} else {
			usage(stderr);
			return 2;
		}
	}
	if (first == argc) {
		usage(stderr);
		return 2;
	}
	if (!check_only) {
		int r = open_cuda(devname, sizeof(devname));

		if (r)
			return r > 0 ? 0 : 1;
		printf("GPU: %s; median of %d launches\n", devname, reps);
		printf("%-22s %10s %10s %10s %10s %10s  %s\n", "kernel", "nvcc ms", "lite ms", "clang ms",
		       "lite/nvcc", "clang/nvcc", "outputs against nvcc's");
		{
			size_t n = strlen(dir) + 16;
			char *p = malloc(n);

			if (p) {
				snprintf(p, n, "%s/gpu.csv", dir);
				csv = fopen(p, "w");
				free(p);
			}
			if (csv)
				fprintf(csv, "kernel,nvcc_ms,lite_ms,clang_ms,lite_mismatches,clang_mismatches\n");
		}
	}
	for (int k = first; k < argc; k++) {
		struct spec *sp = malloc(sizeof(*sp));
		struct result res[NVARIANTS];
		char *ptx[NVARIANTS] = { 0 };
		size_t bad[NVARIANTS] = { 0 };
		double worst[NVARIANTS] = { 0 };
		char verdict[256] = "";

		memset(res, 0, sizeof(res));
		if (!sp || parse_spec(argv[k], sp)) {
			free(sp);
			status = 1;
			continue;
		}
		for (int v = 0; v < NVARIANTS; v++) {
			char *path = ptx_path(dir, variants[v], sp);

			ptx[v] = path ? slurp(path) : NULL;
			if (!ptx[v] && v < 2) {
				err("%s: cannot read %s (run bench/run.sh first)", sp->name, path ? path : "PTX");
				status = 1;
			} else if (ptx[v] && check_params(sp, ptx[v], path)) {
				status = 1;
				free(ptx[v]);
				ptx[v] = NULL;
			}
			free(path);
		}
		if (!check_only && ptx[0] && ptx[1]) {
			for (int v = 0; v < NVARIANTS; v++)
				if (ptx[v] && run_variant(sp, variants[v], ptx[v], reps, &res[v]))
					status = 1;
			for (int v = 1; v < NVARIANTS; v++) {
				if (!res[0].ran || !res[v].ran)
					continue;
				bad[v] = compare(sp, &res[0], &res[v], &worst[v]);
				if (bad[v]) {
					status = 1;
					snprintf(verdict + strlen(verdict), sizeof(verdict) - strlen(verdict),
						 "%s%s: %zu differ (worst %.3g)", *verdict ? "; " : "", variants[v],
						 bad[v], worst[v]);
				}
				if (res[0].ms > 0 && res[v].ms > 0) {
					logsum[v] += log(res[v].ms / res[0].ms);
					nlog[v]++;
				}
			}
			if (!*verdict)
				snprintf(verdict, sizeof(verdict), res[0].ran && res[1].ran ? "agree" : "not run");
			printf("%-22s %10.4f %10.4f %10.4f %10.3f %10.3f  %s\n", sp->name, res[0].ms, res[1].ms,
			       res[2].ms, res[0].ms > 0 ? res[1].ms / res[0].ms : 0,
			       res[0].ms > 0 ? res[2].ms / res[0].ms : 0, verdict);
			fflush(stdout);
			if (csv)
				fprintf(csv, "%s,%.5f,%.5f,%.5f,%zu,%zu\n", sp->name, res[0].ms, res[1].ms, res[2].ms,
					bad[1], bad[2]);
			nk++;
		}
		for (int v = 0; v < NVARIANTS; v++) {
			free_result(&res[v]);
			free(ptx[v]);
		}
		free(sp);
	}
	if (!check_only && nk) {
		printf("%-22s %10s %10s %10s %10.3f %10.3f\n", "geomean", "", "", "",
		       nlog[1] ? exp(logsum[1] / nlog[1]) : 0, nlog[2] ? exp(logsum[2] / nlog[2]) : 0);
		printf("CSV in %s/gpu.csv\n", dir);
	}
	if (csv)
		fclose(csv);
	return status;
}
