#ifndef NV_DRIVER_H
#define NV_DRIVER_H
/*
 * driver: nvcc-lite's parts, a file a concern, for cmd/nvcc-lite.c's main.
 *   drv-flags.c     the command line: the flag table, parsing, --help, the
 *                   options' defaults that depend on others
 */
#include "cuda.h"
#include "util.h"

/* What a device compile writes. */
enum nv_out { NV_OUT_PTX, NV_OUT_CUBIN, NV_OUT_LLVM };

/* The options of the command line. */
struct nv_drv_opts {
	const char *input, *output, *arch, *keep_dir, *save_remarks;
	const char *std, *ccbin;  /* -std=c++17; -ccbin (its include dir reaches the front end) */
	int lang_cu, device_debug, no_warnings, res_usage, rdc;
	const char *dep_file, *dep_target; /* -MF, -MT */
	enum nv_out out;
	const char *time_file;
	int olevel, fc, verbose, dryrun, keep, lineinfo, help, version, list_knobs, print_pipeline;
	int deps, dep_phony, dep_quote; /* -MD (1) or -MMD (2); -MP; no -MT */
	int ftz, prec_div, prec_sqrt, fmad, fast_math; /* -1: not given */
	int jobserver, no_cache;
	long long maxreg, split_compile; /* split_compile -1: not given, 0: CPUs */
	struct nv_strv cpp;     /* -I -D -U for the front end */
	struct nv_strv xcicc;   /* -Xcicc arguments */
	struct nv_strv xptxas;  /* -Xptxas arguments */
	struct nv_strv inputs;  /* every input file, compiled one after another */
	struct nv_strv fe;      /* -Xclang and -Werror=: more front-end arguments */
	struct nv_strv host;    /* -Xcompiler, -g: kept for the host compiler */
	struct nv_strv linker;  /* -Xlinker: kept for the host link */
};

/* The run's options: nv_drv_parse fills them, nv_drv_finish completes them,
 * every part reads them.  The one global of the driver's options. */
extern struct nv_drv_opts nv_drv;
/* The CUDA installation, found once by nv_drv_finish (nv_drv_have_cuda 0:
 * none, the shim instead). */
extern struct nv_cuda nv_drv_cuda;
extern int nv_drv_have_cuda;

/* drv-flags.c */
/* Parse argv into nv_drv (-optf files where they stand); a bad flag is a usage error. */
void nv_drv_parse(int argc, char **argv);
/* Print --help: the flag table. */
void nv_drv_help(void);
/* After parsing: -arch=native and the like resolved, -use_fast_math's and
 * -G's defaults, -res-usage, the -Xcicc knobs checked, CUDA found. */
void nv_drv_finish(void);
/* Is a an -Xcicc -pass-remarks*= flag (every stage takes it)? */
int nv_drv_remark_flag(const char *a);
/* Flush stdout: 0, or -1 after saying it cannot be written (closed, full). */
int nv_drv_flush_stdout(void);

#endif
