#ifndef NV_PIPELINE_H
#define NV_PIPELINE_H
/*
 * pipeline: the nvopt<...> pipelines as data.  Each step is one stage
 * program with its arguments; nvcc-lite joins the steps of a pipeline with
 * pipes.  Only stages that exist are listed.
 */

enum nv_pipe_id { NV_PIPE_O0, NV_PIPE_O1, NV_PIPE_O2, NV_PIPE_O3, NV_PIPE_COUNT };

struct nv_pipe_step {
	const char *prog;     /* stage program, found beside nvcc-lite */
	unsigned stage;       /* NV_STAGE_* bit: which -Xcicc knobs it takes */
	unsigned in;          /* mask of (1 << nv_pipe_id) it runs in */
	const char *args;     /* space-separated; "%O" is the O-level digit */
	int takes_arch;       /* gets -arch=sm_XX */
};

/* The steps of every pipeline in order, terminated by a NULL prog. */
extern const struct nv_pipe_step nv_pipe_steps[];
/* "nvopt<O3>" and so on. */
const char *nv_pipe_name(enum nv_pipe_id id);

#endif
