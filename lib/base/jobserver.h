#ifndef NV_BASE_JOBSERVER_H
#define NV_BASE_JOBSERVER_H
/*
 * jobserver: a GNU make jobserver client (../shared/jobserver.md).  make
 * 4.3's pipe (--jobserver-auth=R,W) and make 4.4's fifo (fifo:PATH).  The
 * process owns one implicit slot; every further job needs a token, a byte
 * read from the jobserver, and every byte read is written back: when a job
 * ends, on error, and from the signal hook (nv_js_release_all).
 */
#include <stddef.h>

struct nv_js {
	int active;      /* a usable jobserver was found */
	int rfd;         /* private read end (its own file description) */
	int wfd;         /* where tokens go back */
	int hint;        /* -jN in MAKEFLAGS, 0 if none */
	int dry;         /* make -n */
};

/* Read MAKEFLAGS and set up js.  Call before opening any file: the fds it
 * names are checked first.  Closed fds (no '+' on make's recipe line) leave
 * js inactive without a word; other problems are warnings and leave it
 * inactive too (run serially); with required (nvcc's -jobserver) they are
 * errors and -1 is returned. */
int nv_js_init(struct nv_js *js, const char *makeflags, int required);
/* Take one token without blocking: 1 taken, 0 none now, -1 the jobserver
 * is gone (make exited: go on without it). */
int nv_js_try_acquire(struct nv_js *js);
/* Tokens held now. */
size_t nv_js_held(void);
/* Give back one token. */
void nv_js_release(struct nv_js *js);
/* Give back every token; async-signal-safe (for the signal hook). */
void nv_js_release_all(void);

#endif
