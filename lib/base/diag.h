#ifndef NV_BASE_DIAG_H
#define NV_BASE_DIAG_H
/*
 * diag: one-line diagnostics naming the program, exit codes, cleanup of
 * partial outputs, LLVM diagnostic capture.  The ground of the ground: it
 * uses nothing else of libnv (util's allocator dies through nv_fatal, io
 * reports through nv_error), so it allocates for itself.  Optimization
 * remarks, which filter and write files, are remarks.h's.
 *
 * Exit codes: 0 success, 1 error, 2 usage.  A format ending in ':' gets
 * ": strerror(errno)" appended.
 */
#include <llvm-c/Types.h>
#include <stdarg.h>

enum { NV_EXIT_OK = 0, NV_EXIT_ERROR = 1, NV_EXIT_USAGE = 2 };

/* Set the program name from argv[0], make fds 0-2 safe, ignore SIGPIPE,
 * route LLVM fatal errors and SIGINT/SIGTERM/SIGHUP through cleanup. */
void nv_diag_init(const char *argv0);
/* The program name used in every message. */
const char *nv_progname(void);
/* "prog: error: ..." on stderr. */
void nv_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "prog: warning: ..." on stderr. */
void nv_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "prog: warning: in function 'F': ..." on stderr. */
void nv_warn_fn(LLVMValueRef fn, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Error, remove registered partial outputs, exit 1. */
_Noreturn void nv_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Error, exit 2 (bad usage; nv_diag_usage_status changes it). */
_Noreturn void nv_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The status of nv_usage_error: nvcc-lite exits 1 for a bad option, as nvcc. */
void nv_diag_usage_status(int status);
/* The failure at hand was reported by another program (the stage before in
 * nvcc-lite's chain): nv_exit need not say it failed. */
void nv_diag_reported_elsewhere(void);
/* Remove registered partial outputs and exit with status; a failure that
 * printed no error says so, so that no failure is silent. */
_Noreturn void nv_exit(int status);

/* Run fn (async-signal-safe code only) when a fatal signal arrives, before
 * outputs are removed and the signal is re-raised. */
void nv_diag_on_signal(void (*fn)(void));
/* Register a file to unlink if the program dies before nv_forget_output. */
void nv_register_output(const char *path);
/* The file is complete (or gone): stop tracking it. */
void nv_forget_output(const char *path);

/* Capture LLVM diagnostics of ctx: errors are kept for nv_llvm_error(),
 * warnings and remarks are printed with the program's prefix. */
void nv_diag_attach(LLVMContextRef ctx);
/* Show (1, the default) or drop (0) the remarks of LLVM's own passes, for
 * a stage whose remarks already say what the LLVM pass it drives did. */
void nv_diag_llvm_remarks(int on);
/* Whether LLVM's own remarks are wanted at all: some -pass-remarks* pattern
 * names an LLVM pass (nv_remarks_setup says so). */
void nv_diag_llvm_remarks_wanted(int on);
/* The last LLVM error message captured (NULL if none); clears it. Caller frees. */
char *nv_llvm_error(void);

/* "prog: remark: ..." on stderr, in one write(2) as every message. */
void nv_diag_remark(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
