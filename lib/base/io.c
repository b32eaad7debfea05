#include "io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/BitWriter.h>
#include <llvm-c/Core.h>
#include <llvm-c/IRReader.h>

#include "diag.h"
#include "util.h"

static const char *
input_name(const char *path)
{
	return !path || !strcmp(path, "-") ? "<stdin>" : path;
}

int
nv_io_slurp(const char *path, char **data, size_t *len)
{
	int fd = 0;
	size_t n = 0, cap = 1 << 16;
	char *buf;

	if (path && strcmp(path, "-")) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			nv_error("cannot open '%s':", path);
			return -1;
		}
	}
	buf = xmalloc(cap);
	for (;;) {
		ssize_t r;

		if (n == cap)
			buf = xrealloc(buf, cap *= 2);
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			nv_error("cannot read '%s':", input_name(path));
			free(buf);
			if (fd)
				close(fd);
			return -1;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	if (fd)
		close(fd);
	*data = buf;
	*len = n;
	return 0;
}

static int
is_bitcode(const unsigned char *p, size_t n)
{
	if (n < 4)
		return 0;
	return (p[0] == 'B' && p[1] == 'C' && p[2] == 0xC0 && p[3] == 0xDE) ||
	       (p[0] == 0xDE && p[1] == 0xC0 && p[2] == 0x17 && p[3] == 0x0B);
}

/* LLVM messages can span lines (source line, caret): keep the first. */
static void
first_line(char *s)
{
	char *nl = s ? strchr(s, '\n') : NULL;

	if (nl)
		*nl = '\0';
}

/* What LLVM's verifier lets through but its text parser forbids, found by
 * fuzzing the bitcode reader: globals whose type holds no value. */
static int
check_globals(LLVMModuleRef m, const char *what)
{
	for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g)) {
		LLVMTypeKind k = LLVMGetTypeKind(LLVMGlobalGetValueType(g));
		size_t len;

		if (k == LLVMVoidTypeKind || k == LLVMLabelTypeKind || k == LLVMMetadataTypeKind ||
		    k == LLVMTokenTypeKind || k == LLVMFunctionTypeKind) {
			nv_error("%s is invalid: global '@%s' has a type that holds no value", what,
			         LLVMGetValueName2(g, &len));
			return -1;
		}
	}
	return 0;
}

int
nv_io_verify(LLVMModuleRef m, const char *what)
{
	char *msg = NULL;

	if (!LLVMVerifyModule(m, LLVMReturnStatusAction, &msg)) {
		LLVMDisposeMessage(msg);
		return check_globals(m, what);
	}
	first_line(msg);
	nv_error("%s is invalid: %s", what, msg && *msg ? msg : "verifier failed");
	LLVMDisposeMessage(msg);
	return -1;
}

#if defined(__SANITIZE_ADDRESS__)
#define NV_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NV_ASAN 1
#endif
#endif

/*
 * LLVM's readers trust their input more than they should: flipped bits make
 * the bitcode reader crash, trap or ask for tens of gigabytes, and the text
 * parser reads past a malformed inline-asm constraint (found by fuzzing).
 * So a child process parses first, with stderr closed and its address space
 * capped; only if it survives does this process parse the same bytes.
 * Returns 0 when the parse is safe to repeat here, -1 after an error.
 */
static int
probe(LLVMContextRef ctx, const char *name, const char *data, size_t len, int text)
{
	pid_t pid;
	int status;

	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return 0; /* no probe: parse unguarded rather than not at all */
	if (pid == 0) {
		LLVMModuleRef m;
		LLVMMemoryBufferRef mb;
		int fd = open("/dev/null", O_WRONLY);

#ifndef NV_ASAN
		rlim_t cap = (rlim_t)len * 256 + ((rlim_t)4 << 30);
		struct rlimit rl = { cap, cap };

		setrlimit(RLIMIT_AS, &rl);
#endif
		if (fd >= 0)
			dup2(fd, 2);
		if (text) {
			char *msg = NULL;

			mb = LLVMCreateMemoryBufferWithMemoryRangeCopy(data, len, name);
			_exit(LLVMParseIRInContext(ctx, mb, &m, &msg) ? 1 : 0);
		}
		mb = LLVMCreateMemoryBufferWithMemoryRange(data, len, name, 0);
		_exit(LLVMParseBitcodeInContext2(ctx, mb, &m) ? 1 : 0);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 0;
	if (WIFEXITED(status) && WEXITSTATUS(status) <= 1)
		return 0;
	if (WIFSIGNALED(status))
		nv_error("cannot read %s from '%s': malformed (LLVM's %s died of signal %d)",
		         text ? "IR" : "bitcode", name, text ? "parser" : "reader", WTERMSIG(status));
	else
		nv_error("cannot read %s from '%s': malformed (LLVM's %s failed with status %d)",
		         text ? "IR" : "bitcode", name, text ? "parser" : "reader", WEXITSTATUS(status));
	return -1;
}

static int
parse_bitcode(LLVMContextRef ctx, const char *name, const char *data, size_t len,
              LLVMModuleRef *out)
{
	LLVMMemoryBufferRef mb;
	int bad;
	char *err;

	if (probe(ctx, name, data, len, 0))
		return -1;
	mb = LLVMCreateMemoryBufferWithMemoryRange(data, len, name, 0);
	bad = LLVMParseBitcodeInContext2(ctx, mb, out);
	err = nv_llvm_error();
	LLVMDisposeMemoryBuffer(mb);
	if (bad) {
		first_line(err);
		nv_error("cannot read bitcode from '%s': %s", name, err ? err : "malformed");
	}
	free(err);
	return bad ? -1 : 0;
}

static int
parse_text(LLVMContextRef ctx, const char *name, const char *data, size_t len,
           LLVMModuleRef *out)
{
	/* LLVMParseIRInContext takes the buffer; a copy keeps ours ours. */
	LLVMMemoryBufferRef mb = LLVMCreateMemoryBufferWithMemoryRangeCopy(data, len, name);
	char *msg = NULL;

	if (memchr(data, '\0', len)) {
		LLVMDisposeMemoryBuffer(mb);
		nv_error("'%s' is neither LLVM bitcode nor textual IR", name);
		return -1;
	}
	if (probe(ctx, name, data, len, 1)) {
		LLVMDisposeMemoryBuffer(mb);
		return -1;
	}
	if (LLVMParseIRInContext(ctx, mb, out, &msg)) {
		char *sev = msg ? strstr(msg, ": error: ") : NULL;

		first_line(msg);
		if (sev)
			memmove(sev + 2, sev + 9, strlen(sev + 9) + 1);
		nv_error("cannot parse IR: %s", msg ? msg : name);
		LLVMDisposeMessage(msg);
		return -1;
	}
	return 0;
}

/* Is path standard input, a pipe, in a chain nvcc-lite runs (NVCC_LITE_CHAIN)? */
static int
stdin_from_chain(const char *path)
{
	struct stat st;
	const char *env = getenv("NVCC_LITE_CHAIN");

	return !strcmp(path, "-") && env && !strcmp(env, "1") && !fstat(0, &st) && S_ISFIFO(st.st_mode);
}

/* Is standard output a pipe, in a chain nvcc-lite runs? */
static int
stdout_to_chain(void)
{
	struct stat st;
	const char *env = getenv("NVCC_LITE_CHAIN");

	return env && !strcmp(env, "1") && !fstat(1, &st) && S_ISFIFO(st.st_mode);
}

int
nv_io_read_module(LLVMContextRef ctx, const char *path, LLVMModuleRef *out)
{
	const char *name = input_name(path);
	char *data, *what;
	size_t len;
	int rc;

	nv_diag_attach(ctx);
	if (nv_io_slurp(path, &data, &len))
		return -1;
	if (len == 0) {
		/* in nvcc-lite's chains an empty pipe means the stage before
		 * failed, and said why: one error, not one from every stage */
		if (stdin_from_chain(path))
			nv_diag_reported_elsewhere();
		else
			nv_error("'%s' is empty: expected LLVM bitcode or textual IR", name);
		free(data);
		return -1;
	}
	if (is_bitcode((unsigned char *)data, len))
		rc = parse_bitcode(ctx, name, data, len, out);
	else
		rc = parse_text(ctx, name, data, len, out);
	free(data);
	if (rc)
		return -1;
	what = xasprintf("input module '%s'", name);
	rc = nv_io_verify(*out, what);
	free(what);
	if (rc) {
		LLVMDisposeModule(*out);
		*out = NULL;
	}
	return rc;
}

static int
write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Why path cannot take the output (an errno), or 0: its directory must be
 * one, and an existing file must be writable -- with some write permission
 * bit, even for root, as a read-only file is a promise not to replace it. */
static int
output_errno(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir;
	struct stat st;
	int err = 0;

	if (stat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return EISDIR;
		if (S_ISREG(st.st_mode) && (!(st.st_mode & 0222) || access(path, W_OK)))
			return EACCES;
		return 0;
	}
	if (errno != ENOENT)
		return errno;
	dir = slash ? xasprintf("%.*s", (int)(slash - path) + (slash == path), path) : xstrdup(".");
	if (stat(dir, &st))
		err = errno;
	else if (!S_ISDIR(st.st_mode))
		err = ENOTDIR;
	else if (access(dir, W_OK | X_OK))
		err = errno;
	free(dir);
	return err;
}

int
nv_io_check_output(const char *path)
{
	int err = path && strcmp(path, "-") ? output_errno(path) : 0;

	if (err)
		nv_error("cannot open output '%s': %s", path, strerror(err));
	return err ? -1 : 0;
}

/*
 * Put a file at path: one made beside it under a name no one can guess,
 * filled by fill(arg, fd), given mode and renamed into place; nothing is
 * left behind on failure.  0 or -1 (reported).
 */
static int
put_beside(const char *path, mode_t mode, int (*fill)(const void *, int), const void *arg)
{
	const char *slash = strrchr(path, '/');
	char *tmp;
	int fd, ok;

	if (slash)
		tmp = xasprintf("%.*s/.%s.XXXXXX", (int)(slash - path), path, slash + 1);
	else
		tmp = xasprintf(".%s.XXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0) {
		nv_error("cannot open output '%s':", path);
		free(tmp);
		return -1;
	}
	nv_register_output(tmp);
	ok = fill(arg, fd) == 0 && fchmod(fd, mode) == 0;
	ok = (close(fd) == 0) && ok;
	if (!ok || rename(tmp, path)) {
		nv_error("cannot write output '%s':", path);
		unlink(tmp);
		ok = 0;
	}
	nv_forget_output(tmp);
	free(tmp);
	return ok ? 0 : -1;
}

struct bytes {
	const void *data;
	size_t len;
};

static int
fill_bytes(const void *arg, int fd)
{
	const struct bytes *b = arg;

	return write_all(fd, b->data, b->len);
}

static int
write_atomic(const char *path, const void *data, size_t len)
{
	struct bytes b = { data, len };
	mode_t um = umask(0);

	umask(um);
	return put_beside(path, 0666 & ~um, fill_bytes, &b);
}

int
nv_io_in_place(const char *path, struct stat *st)
{
	if (!strncmp(path, "/dev/", 5) || !strncmp(path, "/proc/self/fd/", 14))
		return stat(path, st) == 0 && !S_ISREG(st->st_mode) && !S_ISDIR(st->st_mode);
	return lstat(path, st) == 0 && !S_ISREG(st->st_mode) && !S_ISDIR(st->st_mode) && !S_ISLNK(st->st_mode);
}

int
nv_io_write(const char *path, const void *data, size_t len, int binary, int force)
{
	struct stat st;

	if (path && strcmp(path, "-")) {
		/* Devices and fifos (/dev/null, a pipe) are written in place;
		 * a link elsewhere is replaced, never written through */
		if (nv_io_in_place(path, &st)) {
			int fd = open(path, O_WRONLY | O_CLOEXEC), rc;

			if (fd < 0) {
				nv_error("cannot open output '%s':", path);
				return -1;
			}
			rc = write_all(fd, data, len);
			if (close(fd) || rc) {
				nv_error("cannot write output '%s':", path);
				return -1;
			}
			return 0;
		}
		if (nv_io_check_output(path))
			return -1;
		return write_atomic(path, data, len);
	}
	if (binary && !force && isatty(1)) {
		nv_error("refusing to write bitcode to a terminal (use -o FILE, -S, or -f to force)");
		return -1;
	}
	if (write_all(1, data, len)) {
		/* in nvcc-lite's chains a closed pipe means the stage after
		 * failed, and said why */
		if (!(errno == EPIPE && stdout_to_chain()))
			nv_error("cannot write to standard output:");
		return -1;
	}
	return 0;
}

int
nv_io_write_module(LLVMModuleRef m, const char *path, int text, int force)
{
	int rc;

	if (text) {
		char *s = LLVMPrintModuleToString(m);

		rc = nv_io_write(path, s, strlen(s), 0, force);
		LLVMDisposeMessage(s);
	} else {
		LLVMMemoryBufferRef mb = LLVMWriteBitcodeToMemoryBuffer(m);

		rc = nv_io_write(path, LLVMGetBufferStart(mb), LLVMGetBufferSize(mb), 1, force);
		LLVMDisposeMemoryBuffer(mb);
	}
	return rc;
}

int
nv_io_read_lazy(LLVMContextRef ctx, const char *path, int untrusted, LLVMModuleRef *out)
{
	const char *name = input_name(path);
	LLVMMemoryBufferRef mb;
	char *data, *err;
	size_t len;

	nv_diag_attach(ctx);
	if (nv_io_slurp(path, &data, &len))
		return -1;
	if (!is_bitcode((unsigned char *)data, len)) {
		nv_error("'%s' is not LLVM bitcode", name);
		free(data);
		return -1;
	}
	if (untrusted && probe(ctx, name, data, len, 0)) {
		free(data);
		return -1;
	}
	mb = LLVMCreateMemoryBufferWithMemoryRangeCopy(data, len, name);
	free(data);
	if (!LLVMGetBitcodeModuleInContext2(ctx, mb, out))
		return 0; /* the module owns mb now */
	LLVMDisposeMemoryBuffer(mb);
	err = nv_llvm_error();
	first_line(err);
	nv_error("cannot read bitcode from '%s': %s", name, err ? err : "malformed");
	free(err);
	return -1;
}

/* Copy the file at from into fd, already open for writing: 0 or -1. */
static int
copy_into(const char *from, int fd)
{
	char *buf = xmalloc(1 << 16);
	int in = open(from, O_RDONLY | O_CLOEXEC), rc = in < 0 ? -1 : 0;
	ssize_t n = 0;

	while (!rc && (n = read(in, buf, 1 << 16)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		rc = n < 0 ? -1 : write_all(fd, buf, (size_t)n);
	}
	if (in >= 0)
		close(in);
	free(buf);
	return rc;
}

int
nv_io_copy(const char *from, const char *to)
{
	int fd = open(to, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600), rc;

	if (fd < 0) {
		nv_error("cannot create '%s':", to);
		return -1;
	}
	rc = copy_into(from, fd);
	if (close(fd) || rc) {
		nv_error("cannot copy '%s' to '%s':", from, to);
		unlink(to);
		return -1;
	}
	return 0;
}

static int
fill_copy(const void *arg, int fd)
{
	return copy_into(arg, fd);
}

int
nv_io_install(const char *from, const char *to)
{
	struct stat st;

	if (rename(from, to) == 0)
		return 0;
	if (errno != EXDEV || stat(from, &st)) {
		nv_error("cannot write output '%s':", to);
		return -1;
	}
	/* another file system: a copy with from's mode, put beside to */
	if (put_beside(to, st.st_mode & 07777, fill_copy, from))
		return -1;
	unlink(from);
	return 0;
}

/* Up to len bytes of path from offset off into buf: the count, or -1. */
static ssize_t
read_at(int fd, void *buf, size_t len, off_t off)
{
	ssize_t n;

	do
		n = pread(fd, buf, len, off);
	while (n < 0 && errno == EINTR);
	return n;
}

static uint64_t
le(const unsigned char *p, int bytes)
{
	uint64_t v = 0;

	while (bytes--)
		v = (v << 8) | p[bytes];
	return v;
}

int
nv_io_check_elf(const char *path)
{
	unsigned char h[64], sh[64];
	int fd = open(path, O_RDONLY | O_CLOEXEC), ok;
	uint64_t size, phoff, shoff, phent, phnum, shent, shnum;
	struct stat st;

	if (fd < 0)
		return -1;
	ok = fstat(fd, &st) == 0 && read_at(fd, h, sizeof(h), 0) == (ssize_t)sizeof(h) &&
	     !memcmp(h, "\177ELF", 4) && h[4] == 2 && h[5] == 1;
	if (ok) {
		size = (uint64_t)st.st_size;
		phoff = le(h + 0x20, 8), shoff = le(h + 0x28, 8);
		phent = le(h + 0x36, 2), phnum = le(h + 0x38, 2);
		shent = le(h + 0x3a, 2), shnum = le(h + 0x3c, 2);
		ok = phoff + phnum * phent <= size && shoff + shnum * shent <= size && (!shnum || shent >= 64);
		/* every section of a standard type that has bytes has them in
		 * the file; a processor's own types may have none there (ptxas's
		 * .nv_debug.shared, 0x7000000a, in a relocatable cubin) */
		for (uint64_t i = 0; ok && i < shnum; i++) {
			uint64_t type;

			ok = read_at(fd, sh, 64, (off_t)(shoff + i * shent)) == 64;
			type = ok ? le(sh + 4, 4) : 0;
			if (ok && type != 0 /* SHT_NULL */ && type != 8 /* SHT_NOBITS */ && type < 0x70000000)
				ok = le(sh + 0x18, 8) + le(sh + 0x20, 8) <= size;
		}
	}
	close(fd);
	return ok ? 0 : -1;
}

int
nv_io_check_fatbin(const char *path)
{
	unsigned char h[16];
	int fd = open(path, O_RDONLY | O_CLOEXEC), ok;
	struct stat st;

	if (fd < 0)
		return -1;
	/* CUDA's fatbin header: magic, version, header size, the rest's size */
	ok = fstat(fd, &st) == 0 && read_at(fd, h, sizeof(h), 0) == (ssize_t)sizeof(h) &&
	     le(h, 4) == 0xba55ed50u && le(h + 6, 2) + le(h + 8, 8) == (uint64_t)st.st_size;
	close(fd);
	return ok ? 0 : -1;
}

/* getdents64's records. */
struct dirent64_rec {
	uint64_t ino;
	int64_t off;
	unsigned short reclen;
	unsigned char type;
	char name[];
};

/* Remove what is in the directory fd names (and its directories, a few
 * levels down), with calls a signal handler may make. */
static void
rm_below(int fd, int depth)
{
	char buf[4096];
	int again = 1;

	while (again) {
		long n;

		again = 0;
		lseek(fd, 0, SEEK_SET);
		while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
			for (long off = 0; off < n;) {
				struct dirent64_rec *d = (struct dirent64_rec *)(buf + off);
				int sub;

				off += d->reclen;
				if (!strcmp(d->name, ".") || !strcmp(d->name, ".."))
					continue;
				if (!unlinkat(fd, d->name, 0)) {
					again = 1;
				} else if (errno == EISDIR && depth < 8 &&
				           (sub = openat(fd, d->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) >= 0) {
					rm_below(sub, depth + 1);
					close(sub);
					again |= unlinkat(fd, d->name, AT_REMOVEDIR) == 0;
				}
			}
		}
	}
}

void
nv_io_rm_tree(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return;
	rm_below(fd, 0);
	close(fd);
	rmdir(dir);
}
