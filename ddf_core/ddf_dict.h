/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The counted dictionary D of the window filters (the exact window filter
 * of Theorem 1 and the Short Hash Filter of Algorithm 1), which sits beside
 * a FIFO ring holding the keys of the last w insertions.
 *
 * Keys are stored in the ring only. A slot holds the ring position of the
 * newest occurrence of its key and how many times the key is in the ring,
 * as count << 32 | position; 0 is an empty slot. The newest occurrence of
 * a key leaves the ring after all the older ones, so its position stays
 * valid while the count is above 0; a probe compares the ring entry there
 * with its key (a time window also reads that entry's timestamp).
 *
 * Open addressing, linear probing, a power-of-two table of at least 2w
 * slots: at most w keys, so the load factor is at most 1/2 and every probe
 * ends at an empty slot. A deletion moves the rest of its run back (no
 * tombstones), so runs stay as short as the load allows. Every loop still
 * stops after one lap of the table, so that a broken invariant costs
 * wrong answers, not a CPU spinning under the busy bit.
 *
 * Not concurrent by itself: the filters hold a busy bit (ddf_dict_lock)
 * over a whole lookup or FIFO step.
 */
#ifndef DDF_DICT_H
#define DDF_DICT_H

#include "ddf_filter.h"
#include "ddf_hash.h"

#define DDF_DICT_ONE (1ull << 32) /* a count of one */
#define DDF_DICT_MAX_POS 0xffffffffull /* ring positions fit 32 bits */

struct ddf_dict {
	uint64_t *slot;
	uint64_t mask; /* slots - 1 */
};

/* The key at ring position pos: its 64-bit hash, and equality with key. */
typedef uint64_t (*ddf_dict_hash_fn)(const void *ctx, uint32_t pos);
typedef bool (*ddf_dict_eq_fn)(const void *ctx, uint32_t pos,
			       const void *key);

static inline uint32_t ddf_dict_pos(uint64_t s)
{
	return (uint32_t)s;
}

static inline uint64_t ddf_dict_count(uint64_t s)
{
	return s >> 32;
}

/* Slots for a ring of w keys: the smallest power of two >= 2w. */
static inline uint64_t ddf_dict_slots(uint64_t w)
{
	uint64_t n = 2;

	while (n < 2 * w)
		n <<= 1;
	return n;
}

static inline void ddf_dict_init(struct ddf_dict *d, uint64_t *slot,
				 uint64_t slots)
{
	d->slot = slot;
	d->mask = slots - 1;
	memset(slot, 0, slots * sizeof(*slot));
}

static inline uint64_t ddf_dict_home(const struct ddf_dict *d, uint64_t hash)
{
	return ddf_reduce(hash, d->mask + 1);
}

/* The slot of key, or NULL. */
static DDF_ALWAYS_INLINE uint64_t *
ddf_dict_find(const struct ddf_dict *d, uint64_t hash, const void *ctx,
	      ddf_dict_eq_fn eq, const void *key)
{
	uint64_t i = ddf_dict_home(d, hash), n;

	for (n = 0; n <= d->mask; n++, i = (i + 1) & d->mask) {
		uint64_t s = d->slot[i];

		if (!s)
			return NULL;
		if (eq(ctx, ddf_dict_pos(s), key))
			return &d->slot[i];
	}
	return NULL;
}

/* D[key]++, the newest occurrence of key now at ring position pos. */
static DDF_ALWAYS_INLINE void ddf_dict_add(struct ddf_dict *d, uint64_t hash,
					   const void *ctx, ddf_dict_eq_fn eq,
					   const void *key, uint32_t pos)
{
	uint64_t i = ddf_dict_home(d, hash), n;

	for (n = 0; n <= d->mask; n++, i = (i + 1) & d->mask) {
		uint64_t s = d->slot[i];

		if (!s) {
			d->slot[i] = DDF_DICT_ONE | pos;
			return;
		}
		if (eq(ctx, ddf_dict_pos(s), key)) {
			d->slot[i] = (s & ~DDF_DICT_MAX_POS) + DDF_DICT_ONE +
				     pos;
			return;
		}
	}
}

/*
 * D[key]--, erasing the key at 0. Returns true when the key was erased.
 * The entries after it in its run move back when their home allows, so
 * that no probe meets a hole before reaching them.
 */
static DDF_ALWAYS_INLINE bool
ddf_dict_drop(struct ddf_dict *d, uint64_t hash, const void *ctx,
	      ddf_dict_eq_fn eq, ddf_dict_hash_fn hash_at, const void *key)
{
	uint64_t *s = ddf_dict_find(d, hash, ctx, eq, key);
	uint64_t i, j, n;

	if (DDF_UNLIKELY(!s))
		return false; /* not in D: the ring and D disagree */
	if (ddf_dict_count(*s) > 1) {
		*s -= DDF_DICT_ONE;
		return false;
	}
	i = (uint64_t)(s - d->slot);
	for (j = (i + 1) & d->mask, n = 0; d->slot[j] && n < d->mask;
	     j = (j + 1) & d->mask, n++) {
		uint64_t home = ddf_dict_home(
			d, hash_at(ctx, ddf_dict_pos(d->slot[j])));

		/* the entry stays if its home lies cyclically in (i, j] */
		if (i <= j ? (home > i && home <= j) : (home > i || home <= j))
			continue;
		d->slot[i] = d->slot[j];
		i = j;
	}
	d->slot[i] = 0;
	return true;
}

/*
 * The busy bit the window filters hold over a FIFO step. A step moves one
 * ring entry and touches O(1) dictionary slots in expectation (CSHF: one
 * scan of its ring, whose length resolve caps), so waiters spin briefly.
 */
static inline void ddf_dict_lock(ddf_aword *lock)
{
	uint64_t v = 0;

	while (!ddf_aword_try_cmpxchg(lock, &v, 1)) {
		do {
			ddf_cpu_relax();
			v = ddf_aword_read(lock);
		} while (v);
	}
}

static inline void ddf_dict_unlock(ddf_aword *lock)
{
	ddf_aword_set_release(lock, 0);
}

#endif /* DDF_DICT_H */
