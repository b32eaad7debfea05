#ifndef NV_STDPIPE_H
#define NV_STDPIPE_H
/*
 * stdpipe: the LLVM standard sub-pipelines that run between NVIDIA stages,
 * by name (cicc's "LLVM standard pipeline #N"), as new-PM pipeline text.
 */

struct nv_stdpipe {
	const char *name;
	const char *passes; /* LLVM new-PM pipeline text */
	const char *what;
};

/* The table, terminated by a NULL name. */
extern const struct nv_stdpipe nv_stdpipes[];
/* The sub-pipeline called name, or NULL. */
const struct nv_stdpipe *nv_stdpipe_find(const char *name);

#endif
