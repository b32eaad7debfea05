#ifndef NV_DRIVER_CUDA_H
#define NV_DRIVER_CUDA_H
/*
 * cuda: the CUDA installation the front end compiles against, found and
 * read the way nvcc finds and reads it: the root, its version (cuda.h's
 * CUDA_VERSION) and the include directories that bin/nvcc.profile gives.
 */
#include "../base/util.h"

struct nv_cuda {
	char *root;            /* "/usr/local/cuda" */
	int major, minor;      /* 13, 0; 0, 0 when cuda.h names no version */
	int nvcc[3];           /* nvcc's own release, 13, 0, 88 (nv_cuda_nvcc_version) */
	struct nv_strv incs;   /* front-end arguments: "-I" DIR, "-isystem" DIR ... */
};

/* Find CUDA: $CUDA_PATH when set (even when it holds no CUDA, so a machine
 * without CUDA can be simulated), else /usr/local/cuda, else the directory
 * above the nvcc on PATH.  0 when found, -1 when not. */
int nv_cuda_find(struct nv_cuda *c);
/* Read nvcc.profile's INCLUDES and SYSTEM_INCLUDES into c->incs as
 * front-end arguments; -1 (and a warning) when the profile cannot be read. */
int nv_cuda_read_profile(struct nv_cuda *c);
/* Expand $(NAME) in s from vars (NAME=VALUE strings); unknown names
 * expand to nothing, as in make.  Caller frees. */
char *nv_cuda_expand(const char *s, char **vars, size_t nvars);
/* Split s into words as a shell would: blanks separate, "..." and '...'
 * group, backslash escapes.  Appends to out. */
void nv_cuda_split_words(const char *s, struct nv_strv *out);
/* The release of the installation's nvcc, major, minor and build, into
 * c->nvcc: from version.json's cuda_nvcc entry, else the name of a
 * nvidia_cuda_nvcc-X.Y.Z.dist-info directory (a pip installation), else
 * the "release X.Y, VX.Y.Z" nvcc itself prints; else cuda.h's version
 * with build 0.  0 when one of the three was found, -1 when not. */
int nv_cuda_nvcc_version(struct nv_cuda *c);
/* The newest PTX ISA version (times ten) the release's ptxas reads, as nvcc
 * writes it: 90 for CUDA 13.0; 0 when older than 12.0 or unknown. */
int nv_cuda_ptx_isa(const struct nv_cuda *c);
/* CUDA's libraries: lib64, or the targets directory of a toolkit without it. */
char *nv_cuda_lib_dir(const struct nv_cuda *c);
/* CUDA's program name (ptxas, fatbinary, nvlink) as a path; one line and
 * exit 1 when there is no CUDA (c->root NULL) or it lacks the program
 * (why: what needs it, "a cubin", ...). */
char *nv_cuda_tool(const struct nv_cuda *c, const char *name, const char *why);
void nv_cuda_release(struct nv_cuda *c);

#endif
