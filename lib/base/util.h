#ifndef NV_BASE_UTIL_H
#define NV_BASE_UTIL_H
/* util: allocation that dies on failure, string helpers. */
#include <stddef.h>
#include <stdint.h>

/* malloc that exits with a message on failure; never returns NULL. */
void *xmalloc(size_t n);
/* calloc(n, sz) that never returns NULL. */
void *xcalloc(size_t n, size_t sz);
/* realloc that never returns NULL. */
void *xrealloc(void *p, size_t n);
/* strdup that never returns NULL. */
char *xstrdup(const char *s);
/* printf into a fresh malloc'd string. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Levenshtein distance between a and b, capped at cap+1. */
size_t nv_edit_distance(const char *a, const char *b, size_t cap);
/* Parse a decimal integer in [lo, hi]; 0 on success, -1 if malformed or out of range. */
int nv_parse_int(const char *s, long long lo, long long hi, long long *out);

/* A growable array of strings (argv-like, NULL-terminated). */
struct nv_strv {
	char **v;
	size_t n, cap;
};
/* Append a copy of s. */
void nv_strv_push(struct nv_strv *sv, const char *s);
/* Append a formatted string. */
void nv_strv_pushf(struct nv_strv *sv, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* True if one of the strings equals s. */
int nv_strv_has(const struct nv_strv *sv, const char *s);
/* Free the strings and the array. */
void nv_strv_free(struct nv_strv *sv);

/* A 128-bit hash of bytes fed in pieces (MurmurHash3 x64-128): what a
 * file's content is, for the header cache.  Not cryptographic. */
struct nv_hash {
	uint64_t h1, h2;
	size_t len, ntail;
	unsigned char tail[16];
};
void nv_hash_init(struct nv_hash *h);
void nv_hash_add(struct nv_hash *h, const void *p, size_t n);
void nv_hash_done(struct nv_hash *h, uint64_t out[2]);

#endif
