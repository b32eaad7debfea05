#ifndef NV_DRIVER_FRONTEND_H
#define NV_DRIVER_FRONTEND_H
/*
 * frontend: the compilers' commands, built from the options and what each
 * is given: clang-22 as the CUDA front end (a source's device side to a
 * module) and in CUDA host mode (its host side), clang's code generation
 * of a host module, the host compiler; and the flags the header cache keys
 * a compile by.  Each returns a NULL-terminated argv, argv[0] a path.
 */
#include "../base/util.h"
#include "flags.h"
#include "job.h"

/* The front end's command: src's device side for arch to a module in out,
 * its dependency file in deps, named for dep (deps NULL: none), its time
 * trace in trace (NULL: none); quiet: no warnings (an earlier compile of
 * src said them); names: clang keeps the values' names, and line tables for
 * decisions (--explain's compile and what-ifs). */
char **nv_drv_front_end(const char *dir, const char *arch, const char *src, const char *out, const char *deps,
                        const struct nv_deps *dep, const char *trace, int quiet, int names);
/* What the header cache keys the front end's command for arch by (host: the
 * host side's, nv_drv_host_compile's); NULL when its compiles go without
 * the cache (-no-cache, debug information); names: --explain's compile's,
 * entries of their own. */
struct nv_fe_cache *nv_drv_fe_cache(const char *dir, const char *arch, int host, int names);
/* clang-22 in CUDA host mode: src's host side to the module out, the fatbin
 * embedded and its kernels registered; arch: the first target's GPU. */
char **nv_drv_host_compile(const char *dir, const char *arch, const char *src, const char *fatbin,
                           const char *out);
/* clang-22's code generation of the host module bc (nv_drv_host_compile's,
 * given nvcc's names by nv-link -cudafe=host) to the object out. */
char **nv_drv_host_codegen(const char *bc, const char *out);
/* The host compiler's own flags: -O (when given), -w, -Xcompiler's and -g. */
void nv_drv_host_flags(struct nv_strv *av);
/* -E: src's device side for arch preprocessed (__CUDA_ARCH__ defined, as nvcc -E's), to out ("-": standard output). */
char **nv_drv_preprocess(const char *dir, const char *arch, const char *src, const char *out);
/* -M: make's dependencies of src for target, to out ("-": standard output). */
char **nv_drv_deps_only(const char *dir, const char *arch, const char *src, const char *target,
                        const char *out);
/* The host compiler for C++ (c 0) or C (c 1), as -ccbin names it, else g++ or gcc; dies when missing. */
char *nv_drv_host_cc(int c);

/* Does src, or a header it includes by a quoted name beside it, name a
 * texture or surface fetch (the front end then keeps clang's texture
 * intrinsics from the start)?  A guess: either answer compiles right. */
int nv_drv_fetches_textures(const char *src);

#endif
