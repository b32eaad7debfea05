#include "diag.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <llvm-c/Core.h>
#include <llvm-c/ErrorHandling.h>

static const char *progname = "nv";
static int said; /* an error was printed, or another program reports it */
static int usage_status = NV_EXIT_USAGE;
/* the partial outputs, in place: the signal handler reads them, and
 * registering one allocates nothing ("" is a free slot) */
static char outputs[8][PATH_MAX];
static char *llvm_err;
static int llvm_quiet;  /* LLVM's own remarks are not shown */
static int llvm_wanted; /* some -pass-remarks* pattern names an LLVM pass */

/* Every message is one write(2) of a whole line: a stage stopped by a
 * signal, or stages sharing a terminal, never leave half a line. */
static void
emit(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void
emit(const char *fmt, ...)
{
	char buf[4096];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(buf)) {
		n = sizeof(buf) - 1;
		buf[n - 1] = '\n';
	}
	for (char *p = buf; n > 0;) {
		ssize_t w = write(2, p, (size_t)n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		p += w;
		n -= (int)w;
	}
}

static void
vmsg(const char *sev, const char *fmt, va_list ap)
{
	size_t n = strlen(fmt);
	int err = errno;
	char msg[3072];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	said |= !strcmp(sev, "error");
	emit("%s: %s: %s%s%s\n", progname, sev, msg, n && fmt[n - 1] == ':' ? " " : "",
	     n && fmt[n - 1] == ':' ? strerror(err) : "");
}

const char *
nv_progname(void)
{
	return progname;
}

void
nv_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("error", fmt, ap);
	va_end(ap);
}

void
nv_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("warning", fmt, ap);
	va_end(ap);
}

void
nv_warn_fn(LLVMValueRef fn, const char *fmt, ...)
{
	va_list ap;
	size_t len;
	char msg[3072];

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	emit("%s: warning: in function '%s': %s\n", progname, LLVMGetValueName2(fn, &len), msg);
}

static void
remove_outputs(void)
{
	for (size_t i = 0; i < sizeof(outputs) / sizeof(*outputs); i++)
		if (outputs[i][0])
			unlink(outputs[i]);
}

void
nv_diag_reported_elsewhere(void)
{
	said = 1;
}

void
nv_exit(int status)
{
	/* nvcc-lite trusts exit 1 and 2 to come with a reason: never silent */
	if (status && !said)
		emit("%s: error: failed with exit status %d and no other message\n", progname, status);
	remove_outputs();
	if (fflush(stderr))
		status = status ? status : NV_EXIT_ERROR;
	exit(status);
}

void
nv_fatal(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("error", fmt, ap);
	va_end(ap);
	nv_exit(NV_EXIT_ERROR);
}

void
nv_usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("error", fmt, ap);
	va_end(ap);
	nv_exit(usage_status);
}

void
nv_diag_usage_status(int status)
{
	usage_status = status;
}

void
nv_register_output(const char *path)
{
	if (strlen(path) >= sizeof(*outputs))
		nv_fatal("output name too long: '%s'", path);
	for (size_t i = 0; i < sizeof(outputs) / sizeof(*outputs); i++)
		if (!outputs[i][0]) {
			strcpy(outputs[i], path);
			return;
		}
	nv_fatal("too many outputs in flight");
}

void
nv_forget_output(const char *path)
{
	for (size_t i = 0; i < sizeof(outputs) / sizeof(*outputs); i++)
		if (!strcmp(outputs[i], path))
			outputs[i][0] = '\0';
}

static void (*signal_hook)(void);

void
nv_diag_on_signal(void (*fn)(void))
{
	signal_hook = fn;
}

static void
on_signal(int sig)
{
	/* Only async-signal-safe calls: kill (in the hook), unlink, signal, raise. */
	if (signal_hook)
		signal_hook();
	for (size_t i = 0; i < sizeof(outputs) / sizeof(*outputs); i++)
		if (outputs[i][0])
			unlink(outputs[i]);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* LLVM's reason can be a DAG dump: keep its first line and the function. */
static void
on_llvm_fatal(const char *reason)
{
	const char *fn = strstr(reason, "\nIn function: ");
	int n = (int)strcspn(reason, "\n");

	if (fn)
		emit("%s: error: LLVM: %.*s (in function '%.*s')\n", progname, n, reason,
		        (int)strcspn(fn + 14, "\n"), fn + 14);
	else
		emit("%s: error: LLVM: %.*s\n", progname, n, reason);
	remove_outputs();
	_exit(NV_EXIT_ERROR);
}

void
nv_diag_init(const char *argv0)
{
	const char *slash = strrchr(argv0, '/');
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };

	progname = slash ? slash + 1 : argv0;
	/* A closed standard fd must stay unusable, or the next open() would
	 * take its number and output could land in an input file. */
	for (int fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) == -1 && errno == EBADF) {
			int nfd = open("/dev/null", fd == 0 ? O_WRONLY : O_RDONLY);

			if (nfd >= 0 && nfd != fd) {
				dup2(nfd, fd);
				close(nfd);
			}
		}
	signal(SIGPIPE, SIG_IGN);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(*sigs); i++)
		if (signal(sigs[i], SIG_IGN) != SIG_IGN)
			signal(sigs[i], on_signal);
	LLVMInstallFatalErrorHandler(on_llvm_fatal);
}

void
nv_diag_remark(const char *fmt, ...)
{
	char msg[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	emit("%s: remark: %s\n", progname, msg);
}

void
nv_diag_llvm_remarks(int on)
{
	llvm_quiet = !on;
}

void
nv_diag_llvm_remarks_wanted(int on)
{
	llvm_wanted = on;
}

static void
on_llvm_diag(LLVMDiagnosticInfoRef di, void *ctx)
{
	char *desc = LLVMGetDiagInfoDescription(di);

	(void)ctx;
	switch (LLVMGetDiagInfoSeverity(di)) {
	case LLVMDSError:
		free(llvm_err);
		llvm_err = strdup(desc);
		if (!llvm_err)
			nv_fatal("strdup:");
		break;
	case LLVMDSWarning:
		emit("%s: warning: %s\n", progname, desc);
		break;
	case LLVMDSRemark:
		/* The C API hands us every remark, unfiltered and without its
		 * pass name: shown when some pattern names an LLVM pass. */
		if (llvm_wanted && !llvm_quiet)
			emit("%s: remark: %s\n", progname,
			        strncmp(desc, "<unknown>:0:0: ", 15) ? desc : desc + 15);
		break;
	case LLVMDSNote:
		break;
	}
	LLVMDisposeMessage(desc);
}

void
nv_diag_attach(LLVMContextRef ctx)
{
	LLVMContextSetDiagnosticHandler(ctx, on_llvm_diag, NULL);
}

char *
nv_llvm_error(void)
{
	char *e = llvm_err;

	llvm_err = NULL;
	return e;
}
