#ifndef NV_DRIVER_FLAGS_H
#define NV_DRIVER_FLAGS_H
/*
 * flags: nvcc-lite's command line, parsed whole into one set of options
 * (nv_drv) before anything is planned, and what follows from the options
 * alone: the pipeline, the dependency file's name.  Every other part of the
 * driver reads nv_drv; none writes it after nv_drv_finish.
 */
#include "../base/util.h"
#include "../stages/pipeline.h"
#include "cuda.h"
#include "gencode.h"

/* What a command line writes: the rows of plan.c's output table.  The
 * first three are a device compile's (a DEVICE job's kind). */
enum nv_out {
	NV_OUT_PTX, NV_OUT_CUBIN, NV_OUT_LLVM, /* -ptx, -cubin, -emit-llvm */
	NV_OUT_FATBIN,                         /* -fatbin */
	NV_OUT_OBJ,                            /* -c, -dc: a host object */
	NV_OUT_DLINK,                          /* -dlink: the device link as a host object */
	NV_OUT_LIB,                            /* -lib: a static library */
	NV_OUT_EXE,                            /* a program: nvcc's default */
	NV_OUT_DEPS,                           /* -M: make's dependencies only */
	NV_OUT_PREPROC,                        /* -E: preprocessed, as nvcc's */
};

/* The CUDA runtime a program links (-cudart). */
enum nv_cudart { NV_CUDART_STATIC, NV_CUDART_SHARED, NV_CUDART_NONE };

/* The options of the command line. */
struct nv_drv_opts {
	const char *output, *arch, *keep_dir, *save_remarks;
	const char *std, *ccbin;  /* -std=c++17; -ccbin (its include dir reaches the front end) */
	int device_debug, no_warnings, res_usage, rdc;
	int explain;            /* --explain: 1 text, 2 JSON lines (--explain-format=json) */
	const char *save_decisions, *decisions; /* -save-decisions FILE, -decisions FILE */
	int template_stub_weak; /* -static-global-template-stub=false */
	const char *dep_file, *dep_target; /* -MF, -MT (NULL: not given) */
	const char *lang;                  /* -x: "cu", "c++" or "c" (NULL: by extension) */
	enum nv_out out;
	const char *time_file;
	int olevel, fc, verbose, dryrun, keep, lineinfo, help, version, list_knobs, print_pipeline;
	int deps, dep_phony; /* -MD (1) or -MMD (2); -MP */
	int deps_nonsys;     /* -MM: -M without system headers */
	int ftz, prec_div, prec_sqrt, fmad, fast_math; /* -1: not given */
	int jobserver, no_cache;
	int forward_unknown;    /* -forward-unknown-to-host-compiler: unknown flags go to the host side */
	long long maxreg, split_compile; /* split_compile -1: not given, 0: CPUs */
	struct nv_strv cpp;     /* -I -D -U for the front end */
	struct nv_strv xcicc;   /* -Xcicc arguments */
	struct nv_strv xptxas;  /* -Xptxas arguments */
	struct nv_strv inputs;  /* every input file, compiled one after another */
	struct nv_strv fe;      /* -Xclang and -Werror=: more front-end arguments */
	struct nv_strv host;    /* -Xcompiler, -g: kept for the host compiler */
	struct nv_strv linker;  /* -Xlinker: kept for the host link */
	struct nv_strv libs;    /* -L and -l, in order, for the link (and nvlink) */
	struct nv_strv xnvlink; /* -Xnvlink: for the device link */
	struct nv_gencodes targets; /* -arch, -code, -gencode: the build's targets (nv_drv_finish) */
	struct nv_strv gencode; /* -gencode values, in order, read by nv_drv_finish */
	const char *code;       /* -code's value, NULL if not given */
	enum nv_cudart cudart;
	int host_olevel;        /* -O given: the host compiler's level too (-1: not given) */
	int shared;             /* -shared: the link writes a shared library */
	int out_given;          /* an output kind flag was given (else nvcc's default, a program) */
	int run;                /* -run: the program runs once linked */
	int extended_lambda, relaxed_constexpr; /* --extended-lambda, --expt-relaxed-constexpr */
	int per_thread_stream;  /* -default-stream per-thread */
	int no_host_check;      /* -allow-unsupported-compiler */
	struct nv_strv run_args; /* -run-args: its arguments */
	const char *odir;       /* -odir: where an output -o does not name goes */
	const char *arbin;      /* -arbin: the archiver of -lib (default ar) */
	const char *ldir;       /* -ldir: libdevice's directory */
	const char *compress;   /* -no-compress, -compress-mode: fatbinary's option (NULL: its default) */
	struct nv_strv xarchive; /* -Xarchive: for ar */
	struct nv_strv xfatbin; /* -Xfatbin: for fatbinary */
	struct nv_strv link_extra; /* unknown flags forwarded to the host link */
	int no_cudadevrt;       /* -cudadevrt none */
	int no_dlink;           /* -nodlink: a program is linked without the device link */
	int profile;            /* -pg: gprof code in the host compiles and the link */
	int keep_device_functions; /* -keep-device-functions: no whole-program internalizing */
	int forward_linker;     /* -forward-unknown-to-host-linker (or -opts): unknown flags reach the link */
	int list_codes;         /* -arch-ls (1), -code-ls (2): print the list and exit */
	int clean;              /* -clean: delete what the command would write */
	int dopt_on;            /* -dopt on: -G keeps the optimizer */
	const char *time_trace; /* -fdevice-time-trace: the device front end's time trace */
	struct nv_strv optf;    /* the options files read (-optf): inputs too */
};

/* The run's options: nv_drv_parse fills them, nv_drv_finish completes them,
 * every part reads them.  The one global of the driver's options. */
extern struct nv_drv_opts nv_drv;
/* The CUDA installation, found once by nv_drv_finish (nv_drv_have_cuda 0:
 * none, the shim instead; nv_drv_cuda.root is NULL then). */
extern struct nv_cuda nv_drv_cuda;
extern int nv_drv_have_cuda;

/* Parse argv into nv_drv (-optf files where they stand); a bad flag is a usage error. */
void nv_drv_parse(int argc, char **argv);
/* Print --help: the flag table. */
void nv_drv_help(void);
/* -arch-ls, -code-ls: the virtual architectures or the GPUs, a line each. */
void nv_drv_list_codes(void);
void nv_drv_print_version(const char *own);
/* -list-knobs: every knob, a line each. */
void nv_drv_list_knobs(void);
/* After parsing: -arch=native and the like resolved, -use_fast_math's and
 * -G's defaults, -res-usage, the -Xcicc knobs checked, CUDA found. */
void nv_drv_finish(void);
/* Does -Xcompiler ask the host compiler a question that needs no input
 * (--version, -dumpversion, -dumpfullversion, -dumpmachine, -print-...)?
 * nvcc hands it to the host compiler, whose answer build systems read. */
int nv_drv_host_query(void);
/* Is a an -Xcicc -pass-remarks*= flag (every stage takes it)? */
int nv_drv_remark_flag(const char *a);
/* The pipeline the options select: nvopt<ON>, or nvopt<Ofc...>. */
enum nv_pipe_id nv_drv_pipe(void);
/* Flush stdout: 0, or -1 after saying it cannot be written (closed, full). */
int nv_drv_flush_stdout(void);

/* The dependency file (-MD, -MMD) of one output, as the compiler that
 * writes it is told. */
struct nv_deps {
	const char *file;   /* -MF, else the output with .d for its extension */
	const char *target; /* -MT, else the output */
	int quote;          /* no -MT: the target is quoted for make (-MQ) */
};
/* The dependency file of the output out. */
void nv_drv_deps(const char *out, struct nv_deps *d);

#endif
