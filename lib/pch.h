#ifndef NV_PCH_H
#define NV_PCH_H
/*
 * pch: the front end's header cache.  Every CUDA source begins with the
 * same headers (clang's CUDA wrappers, CUDA's runtime headers and
 * nvcc_compat.h), then its own (the C++ library, a project's helpers), and
 * parsing them is most of what clang-22 spends on a file.  Precompiled
 * headers of them are kept in a cache directory:
 *
 *   DIR/fe-KEY.pch    the precompiled header
 *   DIR/fe-KEY.list   "nv-pch 1", then "MTIME_NS SIZE PATH" for every file
 *                     it was built from, as clang checks them when it loads
 *                     the header; "nv-pch 1 off": these headers are not
 *                     cached (building them printed a diagnostic)
 *   DIR/fe-KEY.cu     its source
 *   DIR/fe-KEY.lock   held while one compile builds it (others go without)
 *   DIR/fe-KEY.seen   an entry built on second use (a preamble's, the host
 *                     side's): compiled once
 *
 * KEY hashes nvcc-lite's version, clang's identity and the command.
 *
 * Two kinds of entry: the command's, built on first use (its source empty:
 * the headers every source of the command includes first), and a
 * preamble's, built on second use.  A source's preamble is its leading
 * `#include <...>` lines (with blank lines and comments among them), and
 * every include that ends a line outside a comment is a stop: the
 * includes up to a stop are a prefix of the preamble.  A prefix's entry is
 * keyed by the command and the prefix's header names alone, so sources
 * that begin with the same headers share it whatever their comments.  It
 * is chained on the longest shorter prefix's entry there is, else on the
 * command's, and holds only what that one does not.  A compile takes the
 * longest prefix's entry that is fresh and skips that many bytes of its
 * source (clang's -preamble-bytes), so nothing is read twice.
 */
#include <stddef.h>

/* A source's preamble: its includes as "#include <NAME>" lines, and its
 * stops, at most 32. */
struct nv_preamble {
	char *text;
	struct nv_stop {
		size_t includes;        /* the includes up to the stop, */
		size_t text;            /* their bytes in text, */
		size_t bytes;           /* the source's bytes up to the stop */
	} *stop;
	size_t n;
};

struct nv_pch {
	char *dir, *key;
	char *pch, *list, *src, *lock;
	char *tmp_pch, *tmp_deps;       /* the build's outputs, renamed in on success */
	char *preamble;                 /* a prefix's entry: its includes, */
	size_t bytes;                   /* their length; NULL and 0 for the command's */
	size_t from;                    /* its source: preamble from here (its base has the rest) */
	size_t skip;                    /* the bytes of the compiled source it stands for */
	char *base_pch, *base_list, *base_src; /* a chained entry's base */
	int held;                       /* we hold the lock */
};

/* The cache directory: $NVCC_LITE_CACHE_DIR, else $XDG_CACHE_HOME/nvcc-lite,
 * else $HOME/.cache/nvcc-lite, created when missing.  NULL when there is
 * none to be had (unset, not a directory, not writable). */
char *nv_pch_dir(void);
/* Name the cache entry of the front-end command argv (clang first, without
 * input, output or dependency flags) in dir; with pre, the entry of its
 * prefix up to stop under the command. */
void nv_pch_init(struct nv_pch *p, const char *dir, char *const *argv, const struct nv_preamble *pre,
                 size_t stop);
/* Make p an entry chained on base (the command's, or a shorter prefix's):
 * built with base's header included (-include-pch), it holds only what
 * base does not, lists base's files first, and is stale when base is. */
void nv_pch_chain(struct nv_pch *p, const struct nv_pch *base);
/* The preamble of the source at path in *pre: the number of its stops, 0
 * when it has none (then *pre holds nothing).  It ends at the first line
 * that holds anything but `#include <...>`, blank space and comments, or
 * that a backslash continues.  Quoted includes end it: they are found
 * beside the source, and the entry is built elsewhere. */
size_t nv_pch_preamble(const char *path, struct nv_preamble *pre);
void nv_preamble_free(struct nv_preamble *pre);
/* 1 when the entry is there and every file it was built from is as it was;
 * *off set when the entry says these headers are not cached. */
int nv_pch_fresh(const struct nv_pch *p, int *off);
/* 1 when the entry's flag set was compiled before (DIR/fe-KEY.seen); else
 * marks it and returns 0.  For a cache built on second use: a one-off
 * compile (each source with its own -I, as in a corpus) does not pay for
 * precompiling headers it reads once. */
int nv_pch_seen(const struct nv_pch *p);
/* Take the build lock: 0 when this process builds the entry, -1 when
 * another one is at it (or the directory refuses). */
int nv_pch_lock(struct nv_pch *p);
/* After the build (clang wrote tmp_pch and its -MD list tmp_deps): put the
 * entry in place; quiet says the build printed nothing.  0 on success.
 * Releases the lock and removes the temporaries either way. */
int nv_pch_commit(struct nv_pch *p, int ok, int quiet);
/* Release the lock and remove the temporaries (a build that never ran). */
void nv_pch_abandon(struct nv_pch *p);
/* Rewrite the -MD/-MMD file a compile with the entry wrote into what the
 * compile without it writes: no line for the header's own source, and the
 * headers clang does not list from a precompiled header added back.
 * input: the source as the command named it; full: -MD (every header),
 * else -MMD; phony: -MP.  0, or -1 if it cannot be rewritten. */
int nv_pch_fix_deps(const struct nv_pch *p, const char *dep_file, const char *input, int full,
                    int phony);
/* The cache's size limit in bytes: $NVCC_LITE_CACHE_SIZE (a count with
 * an optional K, M or G), else 2 GiB. */
long long nv_pch_budget(void);
/* Keep the entries within budget bytes, dropping the least recently used
 * first (never one used in the last ten minutes). */
void nv_pch_trim(const char *dir, long long budget);
void nv_pch_release(struct nv_pch *p);

#endif
