#ifndef NV_BASE_PTRMAP_H
#define NV_BASE_PTRMAP_H
/* ptrmap: pointer -> unsigned, open addressing; for block and value indices. */
#include <stddef.h>

#define NV_NONE ((unsigned)-1)

struct nv_ptrmap {
	const void **key;
	unsigned *val;
	size_t cap;  /* power of two, at least twice the entries */
	size_t used;
};

/* A map sized for about n entries (it grows past them). */
void nv_ptrmap_init(struct nv_ptrmap *m, size_t n);
/* Set key to val (key must not be NULL). */
void nv_ptrmap_put(struct nv_ptrmap *m, const void *key, unsigned val);
/* The value of key, or NV_NONE. */
unsigned nv_ptrmap_get(const struct nv_ptrmap *m, const void *key);
void nv_ptrmap_release(struct nv_ptrmap *m);

#endif
