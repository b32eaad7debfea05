#ifndef NV_STAGES_PIPELINE_H
#define NV_STAGES_PIPELINE_H
/*
 * pipeline: the nvopt<...> pipelines as data.  Each step is one stage
 * program with its arguments, the phase it belongs to, the pipelines it is
 * in (the seed's tier gates), and the knob setting that drops it.  Only
 * stages that exist are listed.
 *
 * Phase I runs on the whole module, one chain of processes.  Phase II runs
 * per function: the module is cut by nv-split, each part goes through the
 * Phase II steps as its own chain, and nv-link -split-map joins them.
 * Codegen (nv-llc) runs on the joined module.
 */

enum nv_pipe_id {
	NV_PIPE_O0, NV_PIPE_O1, NV_PIPE_O2, NV_PIPE_O3,
	NV_PIPE_OFCMAX, NV_PIPE_OFCMID, NV_PIPE_OFCMIN,
	NV_PIPE_COUNT
};

enum nv_phase { NV_PHASE_1 = 1, NV_PHASE_2 = 2, NV_PHASE_CODEGEN = 3 };

struct nv_pipe_step {
	const char *prog;     /* stage program, found beside nvcc-lite */
	unsigned stage;       /* NV_STAGE_* bit: which -Xcicc knobs it takes */
	enum nv_phase phase;
	unsigned in;          /* mask of (1 << nv_pipe_id) it runs in */
	const char *args;     /* space-separated; "%O" is the pipeline's O-level digit */
	int takes_arch;       /* gets -arch=sm_XX */
	const char *off[2];   /* "knob=value" settings (-Xcicc) that drop the step */
};

/* The steps of every pipeline in order, terminated by a NULL prog. */
extern const struct nv_pipe_step nv_pipe_steps[];
/* "nvopt<O3>" and so on. */
const char *nv_pipe_name(enum nv_pipe_id id);
/* The O-level digit "%O" stands for in pipeline id. */
int nv_pipe_olevel(enum nv_pipe_id id);
/* "max", "mid", "min" -> the fast-compile pipeline; -1 if none. */
int nv_pipe_fast_compile(const char *level);

#endif
