#ifndef NV_DRIVER_JOB_H
#define NV_DRIVER_JOB_H
/*
 * job: the plan as data -- the jobs of a command line, each a command (or
 * a DEVICE job's chains of them) with the files it reads and writes, and
 * the run's directory where the build's own files go.  plan.c fills a plan
 * through the builders (frontend.c, device.c, host.c, link.c); run.c runs
 * it or prints it.  Nothing here runs anything.
 */
#include <stddef.h>

#include "../base/proc.h"
#include "../base/util.h"
#include "flags.h"

/*
 * -dryrun writes a script in which the temporary directory is "$tmp" and
 * Phase II is a loop over the parts ("$p", number $i).  These markers stand
 * for them in the argument vectors; a real run puts the part's path and
 * number in their place.
 */
#define NV_DRV_TMP_MARK "@TMP@"
#define NV_DRV_PART_MARK "@PART@"
#define NV_DRV_NUM_MARK "@I@"
/* How many parts Phase II is cut into: the run's to say (and -dryrun's). */
#define NV_DRV_COUNT_MARK "@N@"

#define NV_DRV_MAX_STEPS 24

/* A chain of steps joined by pipes: argv and name of each, what it reads
 * and writes. */
struct nv_drv_chain {
	char **argv[NV_DRV_MAX_STEPS];
	const char *name[NV_DRV_MAX_STEPS];
	char *in[NV_DRV_MAX_STEPS], *out[NV_DRV_MAX_STEPS]; /* files each step reads, writes (NULL: a pipe) */
	char *remarks[NV_DRV_MAX_STEPS]; /* -save-remarks: the YAML file each step writes (NULL: none) */
	char *decisions[NV_DRV_MAX_STEPS]; /* -save-decisions: the lines each step writes (NULL: none) */
	size_t n;
	const char *label;      /* "phase I", "phase II part 3", ... for -time */
	const char *src, *arch; /* the source and the GPU, for -time */
	int timed;              /* done, its times recorded */
	int tool;               /* a tool that says why it fails (nv_job's says_why) */
	int err_fd;             /* every step's standard error goes there (nv_drv_diags_new; 0:
	                         * ours) */
	int quiet;              /* a failure is the caller's to report (a try that may be redone) */
	struct nv_chain run;
};

/* A compile the header cache may serve (a .cu file's front end, device
 * side or host side): the front end's flags its entries are keyed by and
 * built with (frontend.c), taken at run time by hcache.c. */
struct nv_fe_cache {
	char **key;   /* the flags without the command line's -include files */
	char **flags; /* with them: what the compile's command begins with */
	int host;     /* the host side's (clang's CUDA host mode) */
	int preamble; /* the source's own leading #includes may be cached too */
};

/*
 * A DEVICE job's chains (device.c): the front end, Phase I, and Phase II
 * in one of two shapes the run chooses between, once Phase I's module
 * says how many functions it defines: whole (p2), or cut into parts --
 * nv-split, a part's chain (with NV_DRV_PART_MARK and NV_DRV_NUM_MARK in
 * place of the part), nv-link's join.  The count of parts is the run's:
 * nv-split's argv[0][NV_DRV_SPLIT_COUNT] (NV_DRV_COUNT_MARK as planned),
 * and the join's parts at argv[0][NV_DRV_JOIN_PARTS] (a glob as planned,
 * as -dryrun's script has it).
 */
#define NV_DRV_SPLIT_COUNT 2
#define NV_DRV_JOIN_PARTS 2
struct nv_device {
	const char *tmp;          /* the run's directory (NV_DRV_TMP_MARK under -dryrun) */
	char *base;               /* the stem of its files there: TMP/BASE.* */
	int uses_tmp;             /* it writes files there (a .cu input, or a Phase II) */
	struct nv_drv_chain fe;   /* the front end, alone (n 0: the input is a module) */
	const struct nv_fe_cache *cache; /* the front end's header cache (NULL: none) */
	size_t fe_at;             /* an entry's flags go before fe.argv[0][fe_at] */
	char *fe_out, *fe_deps;   /* its module, its dependency file */
	char *fe_trace;           /* -fdevice-time-trace: clang's trace, put in place after */
	struct nv_drv_chain p1;   /* Phase I (and codegen, when there is no Phase II) */
	char *p1_out;             /* Phase I's module, when a Phase II follows (else NULL) */
	struct nv_drv_chain p2;   /* Phase II and codegen on the whole module */
	struct nv_drv_chain split, part, join; /* Phase II in parts */
	int deps;                 /* it writes the -MD/-MMD file, named dep */
	struct nv_deps dep;
};

/* What a job does. */
enum nv_act {
	NV_ACT_DEVICE, /* our device pipeline: one source or module to PTX, a cubin or bitcode (front
	                * end, Phase I, split, Phase II, join: dev's chains) */
	NV_ACT_TOOL,   /* one program run as is (argv): ptxas, fatbinary, nvlink, the link */
	NV_ACT_HOST,   /* clang's host compile of a .cu file: a tool whose command gets the
	                * header cache's precompiled host headers when there are some */
};

/* One thing the run does. */
struct nv_job {
	enum nv_act act;
	const char *label;   /* for -v/-time/progress/errors: "ptxas", "fatbinary", ... */
	char **argv;         /* NV_ACT_TOOL, NV_ACT_HOST: NULL-terminated, argv[0] a path (nv_spawn_find) */
	const char *input;   /* NV_ACT_DEVICE: the source or module (else: for -time, or NULL) */
	const char *arch;    /* NV_ACT_DEVICE: the GPU it compiles for (else: for -time, or NULL) */
	enum nv_out kind;    /* NV_ACT_DEVICE: what it writes */
	char *output;        /* the file the job writes */
	const char *base;    /* NV_ACT_DEVICE: the stem of its intermediates (NULL: the input's) */
	const char *deps_for; /* NV_ACT_DEVICE: -MD/-MMD write the dependency file of this output
	                       * (NULL: none from this job) */
	struct nv_device *dev; /* NV_ACT_DEVICE: its chains (nv_drv_plan_device) */
	const struct nv_fe_cache *cache; /* NV_ACT_HOST: its header cache (NULL: none) ... */
	size_t cache_at;     /* ... whose entry's flags go before argv[cache_at] */
	int says_why;        /* NV_ACT_TOOL, NV_ACT_HOST: the program explains its own failures
	                      * (ptxas, nvlink, fatbinary, the compilers): no driver line after it */
	int quiet;           /* NV_ACT_DEVICE: a later compile of a source an earlier one's
	                      * warnings covered: it shows only errors (one message per problem) */
	int temporary;       /* a file of the build, not the user's: removed at the end unless -keep,
	                      * and on failure/signal */
	size_t inst_lo, inst_hi; /* the plan's installs [lo, hi) this job's success puts in place */
	int seed;            /* the job adds to its output (ar): it starts as a copy of the user's
	                      * file, when there is one */
	int explain_ir;      /* NV_ACT_DEVICE under --explain: its output is the IR that goes to
	                      * instruction selection, with debug information (kind NV_OUT_LLVM) */
	const char *decisions; /* NV_ACT_DEVICE: the stages replay this file (else -decisions') */
	char *decisions_out; /* NV_ACT_DEVICE: its stages' decisions joined into this file (else
	                      * -save-decisions' when given) */
	int whatif;          /* NV_ACT_DEVICE: a what-if of --explain, run only when its decisions
	                      * file was written */
	size_t explain_job;  /* a what-if: the plan's index of its explain compile */
	struct nv_explain *explain; /* NV_ACT_TOOL under --explain: the explanation it prepares
	                      * (argv: the peak's analysis) or reports (argv: ptxas), explain.c */
	int explain_report;  /* ... the report (else the preparation) */
	int usage;           /* NV_ACT_TOOL: ptxas under --resource-usage, its kernels' occupancy
	                      * printed after its lines (usage) */
	enum nv_check { NV_CHECK_NONE, NV_CHECK_ELF, NV_CHECK_FATBIN } check;
	                     /* what its output must be whole as: a tool that fills a disk may
	                      * exit 0 with a truncated file (ptxas, nvlink) */
};

/* --explain's what-ifs a PTX gets at most: compiles of the source with one
 * decision a kernel changed. */
#define NV_EXPLAIN_WHATIFS 3

/* What --explain plans for one PTX (plan.c), and its jobs share as they
 * run (explain.c). */
struct nv_explain {
	const char *ptx;      /* the PTX explained */
	char *cubin;          /* ptxas's output, of each run */
	char *decisions;      /* the explain compile's decisions */
	char *variant[NV_EXPLAIN_WHATIFS];   /* the what-ifs' decisions files */
	char *whatif_ptx[NV_EXPLAIN_WHATIFS]; /* and their PTX */
	void *state;          /* the preparation's findings, for the report */
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

/* Append a job (copied). */
void nv_plan_add(struct nv_plan *p, const struct nv_job *j);
/* A file of the build no job names as its output: removed at the end unless -keep. */
void nv_plan_temp(struct nv_plan *p, char *path);
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

/* Where the programs live: beside this executable. */
char *nv_drv_self_dir(void);
/* The extension of path ("cu"), "" for none. */
const char *nv_drv_ext(const char *path);
/* "dir/k.cu" -> "k" */
char *nv_drv_stem(const char *path);

#endif
