#include "util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"

void *
xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		nv_fatal("malloc:");
	return p;
}

void *
xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n ? n : 1, sz ? sz : 1);

	if (!p)
		nv_fatal("calloc:");
	return p;
}

void *
xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		nv_fatal("realloc:");
	return p;
}

char *
xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(xmalloc(n), s, n);
}

char *
xasprintf(const char *fmt, ...)
{
	va_list ap;
	int n;
	char *s;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	s = xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return s;
}

size_t
nv_edit_distance(const char *a, const char *b, size_t cap)
{
	size_t la = strlen(a), lb = strlen(b), i, j, best;
	size_t *row;

	if ((la > lb ? la - lb : lb - la) > cap)
		return cap + 1;
	row = xmalloc((lb + 1) * sizeof(*row));
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		size_t diag = row[0];

		row[0] = i;
		best = row[0];
		for (j = 1; j <= lb; j++) {
			size_t up = row[j], v = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < v)
				v = up + 1;
			if (row[j - 1] + 1 < v)
				v = row[j - 1] + 1;
			diag = up;
			row[j] = v;
			if (v < best)
				best = v;
		}
		if (best > cap) {
			free(row);
			return cap + 1;
		}
	}
	best = row[lb];
	free(row);
	return best > cap ? cap + 1 : best;
}

int
nv_parse_int(const char *s, long long lo, long long hi, long long *out)
{
	char *end;
	long long v;

	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

void
nv_strv_push(struct nv_strv *sv, const char *s)
{
	if (sv->n + 2 > sv->cap) {
		sv->cap = sv->cap ? sv->cap * 2 : 16;
		sv->v = xrealloc(sv->v, sv->cap * sizeof(*sv->v));
	}
	sv->v[sv->n++] = xstrdup(s);
	sv->v[sv->n] = NULL;
}

void
nv_strv_pushf(struct nv_strv *sv, const char *fmt, ...)
{
	va_list ap;
	char buf[4096];

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	nv_strv_push(sv, buf);
}

int
nv_strv_has(const struct nv_strv *sv, const char *s)
{
	for (size_t i = 0; i < sv->n; i++)
		if (!strcmp(sv->v[i], s))
			return 1;
	return 0;
}

void
nv_strv_free(struct nv_strv *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = sv->cap = 0;
}

/* MurmurHash3 x64-128 (Austin Appleby, public domain), fed in pieces. */
static uint64_t
rotl64(uint64_t x, int r)
{
	return (x << r) | (x >> (64 - r));
}

static uint64_t
fmix64(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ull;
	k ^= k >> 33;
	return k;
}

static const uint64_t murmur_c1 = 0x87c37b91114253d5ull, murmur_c2 = 0x4cf5ad432745937full;

static void
hash_block(struct nv_hash *h, const unsigned char *b)
{
	uint64_t k1, k2;

	memcpy(&k1, b, 8);
	memcpy(&k2, b + 8, 8);
	k1 *= murmur_c1, k1 = rotl64(k1, 31), k1 *= murmur_c2, h->h1 ^= k1;
	h->h1 = rotl64(h->h1, 27), h->h1 += h->h2, h->h1 = h->h1 * 5 + 0x52dce729;
	k2 *= murmur_c2, k2 = rotl64(k2, 33), k2 *= murmur_c1, h->h2 ^= k2;
	h->h2 = rotl64(h->h2, 31), h->h2 += h->h1, h->h2 = h->h2 * 5 + 0x38495ab5;
}

void
nv_hash_init(struct nv_hash *h)
{
	memset(h, 0, sizeof(*h));
	h->h1 = h->h2 = 0x6e76706368; /* "nvpch" */
}

void
nv_hash_add(struct nv_hash *h, const void *p, size_t n)
{
	const unsigned char *s = p;

	h->len += n;
	if (h->ntail) {
		size_t take = 16 - h->ntail < n ? 16 - h->ntail : n;

		memcpy(h->tail + h->ntail, s, take);
		h->ntail += take, s += take, n -= take;
		if (h->ntail < 16)
			return;
		hash_block(h, h->tail);
		h->ntail = 0;
	}
	for (; n >= 16; s += 16, n -= 16)
		hash_block(h, s);
	memcpy(h->tail, s, n);
	h->ntail = n;
}

void
nv_hash_done(struct nv_hash *h, uint64_t out[2])
{
	uint64_t k1 = 0, k2 = 0;

	for (size_t i = h->ntail; i-- > 8;)
		k2 = (k2 << 8) | h->tail[i];
	for (size_t i = h->ntail < 8 ? h->ntail : 8; i-- > 0;)
		k1 = (k1 << 8) | h->tail[i];
	if (h->ntail > 8)
		k2 *= murmur_c2, k2 = rotl64(k2, 33), k2 *= murmur_c1, h->h2 ^= k2;
	if (h->ntail)
		k1 *= murmur_c1, k1 = rotl64(k1, 31), k1 *= murmur_c2, h->h1 ^= k1;
	h->h1 ^= h->len, h->h2 ^= h->len;
	h->h1 += h->h2, h->h2 += h->h1;
	h->h1 = fmix64(h->h1), h->h2 = fmix64(h->h2);
	h->h1 += h->h2, h->h2 += h->h1;
	out[0] = h->h1;
	out[1] = h->h2;
}
