#ifndef NV_BASE_IO_H
#define NV_BASE_IO_H
/*
 * io: modules in and out.  Input is bitcode or textual IR, told apart by
 * magic; every module read is verified before anyone may touch it.  Output
 * goes to stdout or atomically to a file (temp file + rename), so a failed
 * run never leaves a partial file behind.
 */
#include <stddef.h>

#include <llvm-c/Types.h>

/* Read all of path ("-" or NULL = stdin).  0, or -1 after an error message. */
int nv_io_slurp(const char *path, char **data, size_t *len);
/* Read, parse and verify a module from path into ctx.  0, or -1 after an
 * error message naming the input. */
int nv_io_read_module(LLVMContextRef ctx, const char *path, LLVMModuleRef *out);
/* Open bitcode at path lazily: function bodies are read only when something
 * (the linker) needs them.  When untrusted, the whole file is first parsed in a
 * child process, as for any untrusted input.  Not verified here: verify the
 * module it ends up in.  0, or -1 after an error. */
int nv_io_read_lazy(LLVMContextRef ctx, const char *path, int untrusted, LLVMModuleRef *out);
/* Verify m; on failure print "<what> is invalid: <first line>" and return -1. */
int nv_io_verify(LLVMModuleRef m, const char *what);
/* Can path ("-" or NULL = stdout) take an output: its directory exists,
 * and an existing file there is writable (a read-only one is refused, as
 * clang refuses it)?  0, or -1 after an error naming path.  Checked before
 * work starts, and again when writing. */
int nv_io_check_output(const char *path);
/* Is path written in place rather than replaced: a device or a FIFO
 * (/dev/null, a named pipe, /dev/stdout), not through a symbolic link but
 * one of /dev's own?  st: what it is. */
struct stat;
int nv_io_in_place(const char *path, struct stat *st);
/* Write len bytes to path ("-" or NULL = stdout), atomically for regular
 * files.  binary data is refused on a terminal unless force.  0 or -1. */
int nv_io_write(const char *path, const void *data, size_t len, int binary, int force);
/* Write m as bitcode (or text IR if text) with nv_io_write.  0 or -1. */
int nv_io_write_module(LLVMModuleRef m, const char *path, int text, int force);

/* Put the finished file from in place as to: renamed, or on another file
 * system copied beside to (a name no one can guess, from's mode) and
 * renamed; from is gone after.  0, or -1 after an error naming to. */
int nv_io_install(const char *from, const char *to);
/* Copy from into the new file to (made with O_EXCL): 0, or -1 after an error. */
int nv_io_copy(const char *from, const char *to);
/* 0 when path is a whole 64-bit ELF file: its headers and every section's
 * bytes within it (a tool on a full disk may exit 0 with part of one). */
int nv_io_check_elf(const char *path);
/* 0 when path is a whole CUDA fatbin (its header's sizes add up to it). */
int nv_io_check_fatbin(const char *path);
/* Remove the directory dir and what is in it; safe in a signal handler. */
void nv_io_rm_tree(const char *dir);

#endif
