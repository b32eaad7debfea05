#ifndef NV_DRIVER_PCH_H
#define NV_DRIVER_PCH_H
/*
 * pch: the front end's header cache.  Every CUDA source begins with the
 * same headers (clang's CUDA wrappers, CUDA's runtime headers and
 * nvcc_compat.h), then its own (the C++ library, a project's helpers), and
 * parsing them is most of what clang-22 spends on a file.  Precompiled
 * headers of them are kept in a cache directory of the user's own:
 *
 *   DIR/fe-KEY.pch    the precompiled header
 *   DIR/fe-KEY.man    its manifest: "nv-pch 3", the header's identity, and
 *                     every name its build asked the file system about
 *                     (lib/base/trace.h) with the answer, a hash of each file
 *                     read; the -MD list of its build; or "off WHY": these
 *                     headers are not cached (their build printed a
 *                     diagnostic, a header names __TIME__ ...)
 *   DIR/fe-KEY.cu     its source
 *   DIR/fe-KEY.lock   held while one compile builds it (others go without)
 *   DIR/fe-KEY.seen   an entry built on second use (a preamble's, the host
 *                     side's): compiled once
 *
 * KEY hashes nvcc-lite's version, the command, the environment clang reads
 * (CPATH and its siblings, SOURCE_DATE_EPOCH ...), the working directory
 * when the command names a relative path, and a prefix's header names.
 *
 * A hit is proof: every name the build looked up gives the same answer now
 * (a header found is the same file, or one with the same bytes; a header
 * not found, in an earlier include directory or by __has_include, is still
 * not there; a listed directory is unchanged).  An entry is not stored when
 * a file it read changed during or just before its build ("too new"), when
 * the trace cannot vouch for the build, or when a header it read is not a
 * regular file.  Every file the build read is checked, under /dev, /proc
 * and /sys, and in the cache directory, too; only the cache's own files
 * (fe-KEY.*) and the program's own image and descriptors are not.
 *
 * A precompiled header freezes __BASE_FILE__, __DATE__, __TIME__ and
 * __TIMESTAMP__ at its build.  The build includes a probe first,
 * share/nvcc-lite/pch-probe.h, which marks them deprecated: clang then
 * warns wherever a header expands one, however it is spelled (spliced,
 * pasted), and a build that printed anything is not cached.  Clang warns
 * of nothing in a system header, or under -w (the build then has
 * -Wno-everything -Wdeprecated-pragma instead): there the headers' text,
 * read through line splices and trigraphs, must not name one.
 *
 * Two kinds of entry: the command's, built on first use (its source empty:
 * the headers every source of the command includes first), and a
 * preamble's, built on second use.  A source's preamble is its leading
 * `#include <...>` lines (with blank lines and comments among them), and
 * every include that ends a line outside a comment is a stop: the
 * includes up to a stop are a prefix of the preamble.  A prefix's entry is
 * keyed by the command and the prefix's header names alone, so sources
 * that begin with the same headers share it whatever their comments.  It
 * holds the command's headers too: a precompiled header chained on another
 * (-include-pch while -emit-pch) loses clang's diagnostic state where a
 * system header pushes and pops it (libstdc++'s deprecation warnings
 * vanish), so no entry is chained.  A compile takes the longest prefix's
 * entry that is fresh and skips that many bytes of its source (clang's
 * -preamble-bytes), so nothing is read twice; the bytes skipped are those
 * read here, and the compile is good only when the source is the same file
 * after it (nv_pch_same_source).
 */
#include <stddef.h>
#include <sys/stat.h>
#include <time.h>

#include "../base/util.h"

struct nv_trace;
struct nv_pch_man;

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
	size_t *line;           /* the line of each include in the source */
	struct stat st;         /* the source's identity when it was read */
};

struct nv_pch {
	char *dir, *key;
	char *pch, *man, *src, *lock;
	char *tmp_pch, *tmp_deps;       /* the build's outputs, renamed in on success */
	char *probe;                    /* the header its build includes first (the tokens it
	                                 * freezes: nv_drv_header_cache), not one of its headers */
	char *preamble;                 /* a prefix's entry: its includes, */
	size_t bytes;                   /* their length; NULL and 0 for the command's */
	size_t skip;                    /* the bytes of the compiled source it stands for, */
	struct stat src_st;             /* and that source's identity when they were read, */
	size_t *lines, nlines;          /* the line of each include they hold */
	struct nv_pch_man *m;           /* the manifest, once nv_pch_fresh has read it */
	struct timespec t0;             /* the build's start, for "too new" */
	int held;                       /* we hold the lock */
};

/* The cache directory: $NVCC_LITE_CACHE_DIR, else $XDG_CACHE_HOME/nvcc-lite,
 * else $HOME/.cache/nvcc-lite, created (mode 0700) when missing.  NULL when
 * there is none to be had (unset, not a directory, not writable), and after
 * one warning when another user could change what is in it: it or a
 * directory above it belongs to another user, or others can write to it. */
char *nv_pch_dir(void);
/* Name the cache entry of the front-end command argv (clang first, without
 * input, output or dependency flags) in dir; with pre, the entry of its
 * prefix up to stop under the command. */
void nv_pch_init(struct nv_pch *p, const char *dir, char *const *argv, const struct nv_preamble *pre,
                 size_t stop);
/* The preamble of the source at path in *pre: the number of its stops, 0
 * when it has none (then *pre holds nothing).  It ends at the first line
 * that holds anything but `#include <...>`, blank space and comments, or
 * that the lexer reads otherwise than its bytes say (a backslash, a
 * trigraph).  Quoted includes end it: they are found beside the source,
 * and the entry is built elsewhere.  A source that is not a regular file,
 * or that changed just before or while it was read, has none. */
size_t nv_pch_preamble(const char *path, struct nv_preamble *pre);
void nv_preamble_free(struct nv_preamble *pre);
/* 1 when the entry is there, whole, and every answer its build got is the
 * same now; *off set when the entry says these headers are not cached.  A
 * damaged or vanished entry is 0. */
int nv_pch_fresh(struct nv_pch *p, int *off);
/* After a compile through p: is the source at src the file whose preamble
 * p skipped, unchanged?  Else the compile may have skipped bytes of another
 * version of it, and is done again without the entry.  1 when p skips
 * nothing. */
int nv_pch_same_source(const struct nv_pch *p, const char *src);
/* 1 when the entry's flag set was compiled before (DIR/fe-KEY.seen); else
 * marks it and returns 0.  For a cache built on second use: a one-off
 * compile (each source with its own -I, as in a corpus) does not pay for
 * precompiling headers it reads once. */
int nv_pch_seen(const struct nv_pch *p);
/* Take the build lock and write the entry's source: 0 when this process
 * builds the entry (tmp_pch and tmp_deps are reserved for it), -1 when
 * another one is at it (or the directory refuses). */
int nv_pch_lock(struct nv_pch *p);
/* After the build: trace says what it asked the file system, ok whether it
 * succeeded, quiet whether it printed nothing.  Puts the entry in place, or
 * an "off" manifest (it printed, a header names __TIME__ or __BASE_FILE__),
 * or nothing (failed, too new, unsure).  0 when the entry can be used now;
 * -1 with *why set otherwise.  Releases the lock and removes the
 * temporaries either way. */
int nv_pch_commit(struct nv_pch *p, const struct nv_trace *trace, int ok, int quiet, const char **why);
/* Release the lock and remove the temporaries (a build that never ran). */
void nv_pch_abandon(struct nv_pch *p);
/* The entry, fresh (nv_pch_fresh has read it), is not to be used: its
 * manifest says "off WHY" from now on, its header is removed.  0 or -1. */
int nv_pch_turn_off(struct nv_pch *p, const char *why);
/* The entry failed a compile that succeeded without it: removed, so the
 * next compile builds it anew. */
void nv_pch_drop(struct nv_pch *p);
/* Whether a compile through the entry names one of its headers otherwise
 * than a compile without it would (by its full path, where the command
 * reached it by a relative one): then its diagnostics are not the same
 * text. */
int nv_pch_renames(const struct nv_pch *p);
/* A compile through p printed text (len bytes, NUL-ended): make it what
 * the compile without p prints, in place.  The include stack of a header a
 * prefix's entry holds goes through the entry's source (DIR/fe-KEY.cu:K,
 * K the K-th include); it is put back to the line of input (the source as
 * the command names it) that includes that header.  0, or -1 when
 * something still names the cache: then the compile is done again without
 * the entry. */
int nv_pch_fix_diags(const struct nv_pch *p, char *text, size_t *len, const char *input);
/* Rewrite the -MD/-MMD file a compile with the entry wrote into what the
 * compile without it writes: no line for the header's own source, and the
 * headers clang does not list from a precompiled header added back.
 * input: the source as the command named it; full: -MD (every header),
 * else -MMD; phony: -MP.  0, or -1 if it cannot be rewritten. */
int nv_pch_fix_deps(const struct nv_pch *p, const char *dep_file, const char *input, int full,
                    int phony);
/* The cache's size limit in bytes: $NVCC_LITE_CACHE_SIZE (a count with
 * an optional K, M or G; more than fits is all there is), else 2 GiB. */
long long nv_pch_budget(void);
/* Keep the entries within budget bytes, dropping the least recently used
 * first (never one used in the last ten minutes); remove what a killed
 * build left (temporaries, locks, headers without a manifest) after an
 * hour. */
void nv_pch_trim(const char *dir, long long budget);
void nv_pch_release(struct nv_pch *p);

#endif
