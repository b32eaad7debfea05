#ifndef NV_STAGES_SPLIT_H
#define NV_STAGES_SPLIT_H
/*
 * split: cicc's split-module, for Phase II.  A module is cut into parts
 * that each define some of its functions; every part keeps every global
 * variable (with its initializer) and every other function as a
 * declaration, in the module's order.  Internal and private symbols are
 * made external in every part so the parts can be joined by name; the map
 * records their linkage (and which had no name) for the join to restore.
 *
 * The map also lists every definition (a function with its part), so the
 * join can refuse, with one error, to drop or duplicate one.
 *
 * The join (nv-link -split-map) links the functions one at a time in the
 * order of the split module's function list, each made a strong external
 * definition outside any comdat while it links (so the linker never keeps
 * one body over another), then puts back each one's linkage, visibility
 * and comdat: the joined module, and the PTX made from it, are the same
 * bytes whatever the number of parts.  Every part declares a variable that
 * holds every named struct type, so the types keep their names too.
 */
#include <stdio.h>

#include <llvm-c/Types.h>

/* One symbol whose linkage or name the split changed. */
struct nv_split_rec {
	char *name;
	int linkage;   /* LLVMLinkage: internal or private; -1: not changed */
	int anon;      /* it had no name; the split gave it one */
};

/* One symbol of the module split: a function defined in part, a variable
 * (every part defines them all), or a function only declared. */
struct nv_split_def {
	char *name;
	unsigned part;
	char kind; /* 'f' function, 'v' variable, 'd' declaration */
};

struct nv_split_map {
	unsigned nparts;
	struct nv_split_rec *rec;
	size_t nrec;
	struct nv_split_def *def; /* the join must give each back, once */
	size_t ndef;
};

/* Defined functions of m. */
unsigned nv_split_count_defs(LLVMModuleRef m);
/* Cut m (consumed) into at most n parts, largest functions first, each to
 * the part with the least work so far; the same m and n give the same
 * parts.  A module with one defined function, or with aliases, is not cut:
 * parts[0] is m.  0 or -1 after an error. */
int nv_split_module(LLVMModuleRef m, unsigned n, LLVMModuleRef **parts, unsigned *nparts,
                    struct nv_split_map *map);
/* The part of m (consumed) that defines only function name; -1 if m does
 * not define it. */
int nv_split_function(LLVMModuleRef m, const char *name, LLVMModuleRef *part,
                      struct nv_split_map *map);
/* a with the bodies of the functions named in names[0..n) taken from b,
 * a and b two versions of one module (or of one part of a split: its
 * anchor stays): each is cut in two in place, without a copy, and the
 * halves joined in a's function order.  Both are consumed.  0, or -1 after
 * one error (a module with aliases). */
int nv_split_merge_by_names(LLVMModuleRef a, LLVMModuleRef b, char *const *names, size_t n,
                            LLVMModuleRef *out);
/* Write map as text to fp; 0 or -1. */
int nv_split_map_write(const struct nv_split_map *map, FILE *fp);
/* Read a map written by nv_split_map_write; 0, or -1 after an error. */
int nv_split_map_read(const char *path, struct nv_split_map *map);
void nv_split_map_release(struct nv_split_map *map);
/* Join the parts (consumed, in any order) into *out and restore the map's
 * linkage.  0, or -1 after an error: a part missing, a definition the
 * join would drop or duplicate. */
int nv_split_join(LLVMModuleRef *parts, unsigned n, const struct nv_split_map *map,
                  LLVMModuleRef *out);
/* Turn f into a declaration in place (its position in the module stays). */
void nv_split_strip_body(LLVMValueRef f);
/* Give declaration f of m a twin at the end of m's function list, in its
 * place: attributes, calling convention, linkage, metadata (not dso_local,
 * which LLVM-C cannot copy). */
void nv_split_decl_to_end(LLVMModuleRef m, LLVMValueRef f);

#endif
