#include "ptrmap.h"

#include <stdint.h>
#include <stdlib.h>

#include "util.h"

static size_t
slot(const struct nv_ptrmap *m, const void *key)
{
	uintptr_t h = (uintptr_t)key;

	h ^= h >> 17;
	h *= UINT64_C(0x9E3779B97F4A7C15);
	return (size_t)(h >> 7) & (m->cap - 1);
}

void
nv_ptrmap_init(struct nv_ptrmap *m, size_t n)
{
	m->cap = 16;
	while (m->cap < 2 * n + 2)
		m->cap *= 2;
	m->used = 0;
	m->key = xcalloc(m->cap, sizeof(*m->key));
	m->val = xcalloc(m->cap, sizeof(*m->val));
}

static void
grow(struct nv_ptrmap *m)
{
	struct nv_ptrmap old = *m;

	m->cap *= 2;
	m->used = 0;
	m->key = xcalloc(m->cap, sizeof(*m->key));
	m->val = xcalloc(m->cap, sizeof(*m->val));
	for (size_t i = 0; i < old.cap; i++)
		if (old.key[i])
			nv_ptrmap_put(m, old.key[i], old.val[i]);
	nv_ptrmap_release(&old);
}

void
nv_ptrmap_put(struct nv_ptrmap *m, const void *key, unsigned val)
{
	size_t i;

	if (2 * (m->used + 1) > m->cap)
		grow(m);
	i = slot(m, key);
	while (m->key[i] && m->key[i] != key)
		i = (i + 1) & (m->cap - 1);
	m->used += !m->key[i];
	m->key[i] = key;
	m->val[i] = val;
}

unsigned
nv_ptrmap_get(const struct nv_ptrmap *m, const void *key)
{
	size_t i = slot(m, key);

	while (m->key[i]) {
		if (m->key[i] == key)
			return m->val[i];
		i = (i + 1) & (m->cap - 1);
	}
	return NV_NONE;
}

void
nv_ptrmap_release(struct nv_ptrmap *m)
{
	free(m->key);
	free(m->val);
	m->key = NULL;
	m->val = NULL;
}
