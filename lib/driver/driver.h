#ifndef NV_DRIVER_DRIVER_H
#define NV_DRIVER_DRIVER_H
/*
 * driver: nvcc-lite's parts, a file a concern, for cmd/nvcc-lite.c's main.
 *   flags.c     the command line: the flag table, parsing, --help, the
 *                   options' defaults that depend on others
 *   frontend.c  the CUDA front end's command, the header cache
 *   device.c    the device pipeline of one input as chains of stages
 *   run.c       running chains: the jobserver, -v, -time, progress,
 *                   failures and signals
 *   plan.c      the plan: the jobs of the command line, as data, then
 *                   run or printed as one script
 *
 * clang's driver in small: the command line is parsed whole, then planned
 * (nv_drv_plan: a job per thing to run), then the plan is run or printed.
 * A new output kind is new jobs in the plan, not a branch in main.
 */
#include <stdio.h>
#include <time.h>

#include "../base/jobserver.h"
#include "../base/proc.h"
#include "../base/util.h"
#include "../stages/pipeline.h"
#include "cuda.h"
#include "gencode.h"
#include "pch.h"

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
	NV_OUT_PREPROC,                        /* -E: the host side, preprocessed */
};

/* The CUDA runtime a program links (-cudart). */
enum nv_cudart { NV_CUDART_STATIC, NV_CUDART_SHARED, NV_CUDART_NONE };

/* What a job does. */
enum nv_act {
	NV_ACT_DEVICE, /* our device pipeline: one source or module to PTX, a cubin or bitcode (front
	                * end, Phase I, split, Phase II, join: device.c's chains) */
	NV_ACT_TOOL,   /* one program run as is (argv): ptxas, fatbinary, nvlink, the link */
	NV_ACT_HOST,   /* clang's host compile of a .cu file: a tool whose command gets the
	                * header cache's precompiled host headers when there are some */
};

/* One thing the run does. */
struct nv_job {
	enum nv_act act;
	const char *label;   /* for -v/-time/progress/errors: "ptxas", "fatbinary", ... */
	char **argv;         /* NV_ACT_TOOL: NULL-terminated, argv[0] a path (nv_spawn_find) */
	const char *input;   /* NV_ACT_DEVICE: the source or module (NV_ACT_TOOL: for -time, or NULL) */
	const char *arch;    /* NV_ACT_DEVICE: the GPU it compiles for (NV_ACT_TOOL: for -time, or NULL) */
	enum nv_out kind;    /* NV_ACT_DEVICE: what it writes */
	char *output;        /* the file the job writes */
	const char *base;    /* NV_ACT_DEVICE: the stem of its intermediates (NULL: the input's) */
	const char *deps_for; /* NV_ACT_DEVICE: -MD/-MMD write the dependency file of this output
	                       * (NULL: none from this job) */
	int says_why;        /* NV_ACT_TOOL, NV_ACT_HOST: the program explains its own failures
	                      * (ptxas, nvlink, fatbinary, the compilers): no driver line after it */
	int temporary;       /* a file of the build, not the user's: removed at the end unless -keep,
	                      * and on failure/signal */
	size_t inst_lo, inst_hi; /* the plan's installs [lo, hi) this job's success puts in place */
	int seed;            /* the job adds to its output (ar): it starts as a copy of the user's
	                      * file, when there is one */
	enum nv_check { NV_CHECK_NONE, NV_CHECK_ELF, NV_CHECK_FATBIN } check;
	                     /* what its output must be whole as: a tool that fills a disk may
	                      * exit 0 with a truncated file (ptxas, nvlink) */
};

/* The jobs of a command line, in the order they run. */
struct nv_plan {
	struct nv_job *jobs;
	size_t n, cap;
	char *dir;           /* where the programs live: beside nvcc-lite */
	char *tmp;           /* the run's directory for intermediates, every job's: -keep's (-keep-dir,
	                      * else "."), NV_DRV_TMP_MARK under -dryrun ("$tmp"), else made by the
	                      * first nv_plan_tmp_dir (NULL until then) */
	int made_tmp;        /* tmp was made (mkdtemp): removed when the run ends */
	struct nv_strv temps; /* files of the build that no job names as its output (nvlink's
	                       * registration list): removed at the end unless -keep */
	struct nv_strv installs; /* pairs: a file a job writes in tmp, the user's file it becomes */
	size_t attached;      /* the installs given to a job so far (pairs) */
};

/* The options of the command line. */
struct nv_drv_opts {
	const char *output, *arch, *keep_dir, *save_remarks;
	const char *std, *ccbin;  /* -std=c++17; -ccbin (its include dir reaches the front end) */
	int lang_cu, device_debug, no_warnings, res_usage, rdc;
	const char *dep_file, *dep_target; /* -MF, -MT */
	enum nv_out out;
	const char *time_file;
	int olevel, fc, verbose, dryrun, keep, lineinfo, help, version, list_knobs, print_pipeline;
	int deps, dep_phony, dep_quote; /* -MD (1) or -MMD (2); -MP; no -MT */
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
};

/* The run's options: nv_drv_parse fills them, nv_drv_finish completes them,
 * every part reads them.  The one global of the driver's options; only
 * dep_file and dep_target change after nv_drv_finish: set to an output's
 * defaults while it is checked or compiled, then put back. */
extern struct nv_drv_opts nv_drv;
/* The CUDA installation, found once by nv_drv_finish (nv_drv_have_cuda 0:
 * none, the shim instead). */
extern struct nv_cuda nv_drv_cuda;
extern int nv_drv_have_cuda;
/* make's jobserver, when MAKEFLAGS names one: set up by main, before
 * anything runs. */
extern struct nv_js nv_drv_js;

/*
 * -dryrun writes a script in which the temporary directory is "$tmp" and
 * Phase II is a loop over the parts ("$p", number $i).  These markers stand
 * for them in the argument vectors.
 */
#define NV_DRV_TMP_MARK "@TMP@"
#define NV_DRV_PART_MARK "@PART@"
#define NV_DRV_NUM_MARK "@I@"

#define NV_DRV_MAX_STEPS 24

/* A chain of steps joined by pipes: argv and name of each, what it reads
 * and writes. */
struct nv_drv_chain {
	char **argv[NV_DRV_MAX_STEPS];
	const char *name[NV_DRV_MAX_STEPS];
	char *in[NV_DRV_MAX_STEPS], *out[NV_DRV_MAX_STEPS]; /* files each step reads, writes (NULL: a pipe) */
	size_t n;
	const char *label;      /* "phase I", "phase II part 3", ... for -time */
	const char *src, *arch; /* the source and the GPU, for -time */
	int timed;              /* done, its times recorded */
	int tool;               /* a tool that says why it fails (nv_job's says_why) */
	const char *err_file;   /* every step's standard error goes there (NULL: ours) */
	int quiet;              /* a failure is the caller's to report (a try that may be redone) */
	struct nv_chain run;
};

/* flags.c */
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

/* macros.c */
/* The compiles nvcc defines its macros for: the device pass, the host pass
 * of a .cu file (clang's CUDA host mode), a host-only source (the host
 * compiler). */
enum nv_drv_pass { NV_PASS_DEVICE = 1, NV_PASS_HOST = 2, NV_PASS_HOST_ONLY = 4 };
/* nvcc's predefined macros for pass, as the -D (and -U) arguments of its
 * compiler, appended to av: nvcc's values, from the CUDA installation. */
void nv_drv_macros(struct nv_strv *av, enum nv_drv_pass pass);

/* frontend.c */
/* The front end's command for DEVICE job j: its source to a module in out,
 * its dependency file in deps (-MD), through the header cache's entry pch
 * when not NULL. */
char **nv_drv_front_end(const struct nv_job *j, const char *dir, const char *out, const char *deps,
                        const struct nv_pch *pch);
/* The flags that compile through the header cache's entry pch. */
void nv_drv_use_pch(struct nv_strv *av, const struct nv_pch *pch);
/* clang-22 in CUDA host mode: src's host side to the module out, the fatbin
 * embedded and its kernels registered; arch: the first target's GPU. */
char **nv_drv_host_compile(const char *dir, const char *arch, const char *src, const char *fatbin,
                           const char *out);
/* clang-22's code generation of the host module bc (nv_drv_host_compile's,
 * given nvcc's names by nv-link -cudafe=host) to the object out. */
char **nv_drv_host_codegen(const char *bc, const char *out);
/* The host compiler's own flags: -O (when given), -w, -Xcompiler's and -g. */
void nv_drv_host_flags(struct nv_strv *av);
/* -E: src's host side preprocessed, as clang's CUDA host mode sees it, to out ("-": standard output). */
char **nv_drv_preprocess(const char *dir, const char *arch, const char *src, const char *out);
/* -M: make's dependencies of src for target, to out ("-": standard output). */
char **nv_drv_deps_only(const char *dir, const char *arch, const char *src, const char *target,
                        const char *out);
/* The header cache's entry for j's command line, or for j's source's
 * preamble under it (from its second compile): its precompiled header when
 * fresh, else built now (its diagnostics in err, the files it writes added
 * to paths) unless another compile builds it; NULL when there is none.
 * The entry is in *pch (nv_drv_use_pch).  host: the entry of the host
 * side's command (clang's CUDA host mode). */
const char *nv_drv_header_cache(const struct nv_job *j, const char *dir, struct nv_pch *pch,
                                const char *err, struct nv_strv *paths, int host);

/* device.c */
/* Where the programs live: beside this executable. */
char *nv_drv_self_dir(void);
/* The extension of path ("cu"), "" for none. */
const char *nv_drv_ext(const char *path);
/* "dir/k.cu" -> "k" */
char *nv_drv_stem(const char *path);
/* The pipeline the options select: nvopt<ON>, or nvopt<Ofc...>. */
enum nv_pipe_id nv_drv_pipe(void);
/* -MF defaults to the output with .d for its extension, -MT to the output. */
void nv_drv_dep_defaults(const char *out);
/* -list-knobs: every knob, a line each. */
void nv_drv_list_knobs(void);
/* -print-pipeline: the steps the options select, with their arguments. */
void nv_drv_print_pipeline(void);
/* Does DEVICE job j write intermediates in the plan's tmp? */
int nv_drv_device_uses_tmp(const struct nv_job *j);
/* DEVICE job j as -dryrun prints it, after the script's preamble. */
void nv_drv_device_dryrun(const struct nv_plan *pl, const struct nv_job *j);
/* Run DEVICE job j: its input to its output, for its arch, through the
 * plan's tmp; 0, or -1 after a failure reported. */
int nv_drv_device_run(struct nv_plan *pl, const struct nv_job *j);

/* run.c */
/* Quote av as one shell command on fp (-dryrun's markers as "$tmp", "$p"). */
void nv_drv_print_cmd(FILE *fp, char **av);
/* Print the chain's commands: "#$ " lines under -v, a script's under -dryrun. */
void nv_drv_show_chain(FILE *fp, const struct nv_drv_chain *c, const char *indent);
/* Copy what a try printed (the file path) to our standard error; 0 or -1. */
int nv_drv_copy_to_stderr(const char *path);
/* Remove a failed build's output, if a regular file ("-", devices and fifos stay). */
void nv_drv_remove_output(const char *path);
/* The progress line of a compile of input starts (a terminal, no -v) ... */
void nv_drv_progress_start(const char *input);
/* ... and is wiped. */
void nv_drv_progress_clear(void);
/* On a signal, remove the job's paths (NULL: none; the array is read at the signal) ... */
void nv_drv_sig_paths(const struct nv_strv *paths);
/* ... the plan's temporaries so far (NULL: none) ... */
void nv_drv_sig_temps(const struct nv_strv *paths);
/* ... and the directory dir, once empty (NULL: none). */
void nv_drv_sig_dir(const char *dir);
/* The signal hook (nv_proc_on_signal): tokens back, the stages reaped, the files removed. */
void nv_drv_on_signal(void);
/* -time's rows for the steps of c, once done. */
void nv_drv_record_times(const struct nv_drv_chain *c);
/* Open the -time file (its header when new). */
void nv_drv_time_open(void);
/* The driver's own -time rows, and the file closed (an error when rc is 0). */
void nv_drv_time_close(const struct timespec *t0, int rc);
/* Run cs[0..n), at most max at once or as make's tokens allow; 0, or -1
 * when one failed (reported, the others stopped). */
int nv_drv_run_chains(struct nv_drv_chain *cs, size_t n, size_t max);
/* Run one chain (-keep: a step at a time); 0 or -1. */
int nv_drv_run_one(struct nv_drv_chain *c);
/* Run TOOL job j as a chain of one step (-v, -time, the jobserver and
 * signals as for a stage); 0, or -1 after its failure reported. */
int nv_drv_run_tool(const struct nv_job *j);
/* The same as a try: its standard error into err_file, a failure not
 * reported; 0 or -1. */
int nv_drv_try_tool(const struct nv_job *j, const char *err_file);

/* host.c */
/* CUDA's program name (ptxas, fatbinary, nvlink) as a path; one line and
 * exit 1 when there is no CUDA or it lacks the program (why: "-c", ...). */
char *nv_drv_cuda_tool(const char *name, const char *why);
/* The host compiler for C++ (c 0) or C (c 1), as -ccbin names it, else g++ or gcc; dies when missing. */
char *nv_drv_host_cc(int c);
/* The jobs of -fatbin: src's PTX for each target, a cubin for each GPU, the fatbin in out. */
void nv_drv_plan_fatbin(struct nv_plan *p, const char *src, char *out);
/* The jobs of a .cu file's host object obj: the fatbin, then clang's host
 * compile with it embedded; temporary: obj is a file of the build. */
void nv_drv_plan_object(struct nv_plan *p, const char *src, char *obj, int temporary);
/* Run HOST job j: its command with the host side's header cache; 0 or -1. */
int nv_drv_host_run(struct nv_plan *p, const struct nv_job *j);
/* The job of a host-only source (.cpp, .c): the host compiler to obj. */
void nv_drv_plan_host_only(struct nv_plan *p, const char *src, char *obj, int temporary);

/* link.c */
/* CUDA's libraries: lib64, or the targets directory of a toolkit without it. */
char *nv_drv_cuda_lib_dir(void);
/* The device link of objs (nvlink, fatbinary -link, link.stub) into the host object out. */
void nv_drv_plan_dlink(struct nv_plan *p, const struct nv_strv *objs, char *out, int temporary);
/* The device link (unless -cudart none), then the host link of objs into out. */
void nv_drv_plan_link(struct nv_plan *p, const struct nv_strv *objs, char *out);
/* -lib: objs into the static library out. */
void nv_drv_plan_lib(struct nv_plan *p, const struct nv_strv *objs, char *out);

/* plan.c */
/* A file of the build no job names as its output: removed at the end unless -keep. */
void nv_plan_temp(struct nv_plan *p, char *path);
/* Append a job (copied). */
void nv_plan_add(struct nv_plan *p, const struct nv_job *j);
/* The run's directory for intermediates (made now if it is not yet). */
const char *nv_plan_tmp_dir(struct nv_plan *p);
/* A path in it: tmp/name (caller frees). */
char *nv_plan_tmp(struct nv_plan *p, const char *name);
/* The file the next job added writes for the user's file path: one in the
 * run's directory, put in place when the job succeeds (renamed, or copied
 * beside path and renamed), so that path is never half written and an
 * interrupted build leaves none; path itself when it is "-" or a device,
 * a fifo or anything else not a regular file. */
char *nv_plan_out(struct nv_plan *p, char *path);
/* The user's file of a job's output: what it is installed as, or itself. */
const char *nv_job_final(const struct nv_plan *p, const struct nv_job *j);
/* Every input is one nvcc-lite can compile and can read, before any is. */
void nv_drv_check_inputs(void);
/* The jobs of this command line: today one NV_ACT_DEVICE job per input, in order. */
void nv_drv_plan(struct nv_plan *p);
/* No output of the plan is one of its inputs (the same file: -o k.cu, -MF
 * k.cu, -lib a.o b.o -o a.o); exits if one is, before anything runs. */
void nv_drv_check_clobber(const struct nv_plan *p);
/* Every output of the plan that is the user's can be written, the
 * dependency file's too, before anything runs; exits if not. */
void nv_drv_check_outputs(const struct nv_plan *p);
/* Run the jobs in order, stop at the first failure, remove temporaries and
 * the failed job's output; 0 or -1. */
int nv_drv_run(struct nv_plan *p);
/* Print the whole plan as one shell script; 0, or -1 when stdout fails. */
int nv_drv_dryrun(struct nv_plan *p);

#endif
