/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * ddf_core filter interface.
 *
 * A filter lives in memory the caller provides: ddf_filter_memsize(params)
 * bytes, then ddf_filter_init(mem, size, params, now). Keys reach a filter as
 * a 128-bit keyed hash (struct ddf_hash, see ddf_hash.h), so that the kernel
 * and userspace take identical decisions for the same key bytes and seed.
 *
 * Times are nanoseconds on any monotonic clock; count-based filters ignore
 * them.
 *
 * Concurrency: lookup, insert and test_and_insert may run on several CPUs at
 * once on the same filter. A caller must not re-enter a filter on the CPU
 * that is already inside it (in the kernel: call with bottom halves
 * disabled), because a generation shift waits for the CPU that is clearing
 * the spare segment to finish one bounded chunk.
 */
#ifndef DDF_FILTER_H
#define DDF_FILTER_H

#include "ddf_env.h"

/*
 * Per-packet scratch that the code fills before it reads it: exempt from
 * the compiler's stack auto-initialisation (the kernel's
 * CONFIG_INIT_STACK_ALL_ZERO), which would clear it on every packet.
 */
#if defined(__has_attribute)
#if __has_attribute(__uninitialized__)
#define DDF_NOINIT __attribute__((__uninitialized__))
#endif
#endif
#ifndef DDF_NOINIT
#define DDF_NOINIT
#endif

/* Error codes: negative errno values, so the kernel can return them as is. */
#define DDF_EINVAL (-22)
#define DDF_ERANGE (-34)
#define DDF_EFBIG (-27)
#define DDF_ENOENT (-2)

enum ddf_kind {
	DDF_KIND_NONE = 0,
	DDF_KIND_APBF,
	DDF_KIND_APBBF,
	DDF_KIND_QHT,
	DDF_KIND_QHTD,
	DDF_KIND_QQHTD,
	/* the papers' other filters, kept for side-by-side reproduction */
	DDF_KIND_SQF,
	DDF_KIND_SBF,
	DDF_KIND_A2,
	DDF_KIND_BDBF,
	DDF_KIND_CUCKOO,
	DDF_KIND_RSBF,
	DDF_KIND_BSBF,
	DDF_KIND_BSBFSD,
	DDF_KIND_RLBSBF,
	DDF_KIND_SHF,
	DDF_KIND_CSHF,
	DDF_KIND_EXACT,
	DDF_KIND_QUEUE,
	__DDF_KIND_MAX
};

/* params.flags */
#define DDF_PF_TIME 0x1u /* generations are time based (window_ns) */
#define __DDF_PF_ALL DDF_PF_TIME

/* Limits: every size a user can ask for is capped here. */
#define DDF_MAX_K 64
#define DDF_MAX_L 256
#define DDF_MAX_BYTES (1ull << 36) /* 64 GiB, far above any sane rule */
#define DDF_MAX_WINDOW (1ull << 40)
#define DDF_MIN_WINDOW_NS 10000ull /* 10 us */
#define DDF_MAX_WINDOW_NS 3600000000000ull /* 1 hour */
#define DDF_MAX_CPUS 8192 /* the most a kernel can have (NR_CPUS) */
#define DDF_MAX_SLOTS 1024 /* ticket slots; further CPUs share a counter */

/*
 * One parameter block for every kind; each kind reads the fields it needs
 * and rejects the others when they are set to something it cannot honour.
 * Zero means "choose for me" where ddf_params_resolve() can.
 */
struct ddf_params {
	uint32_t kind; /* enum ddf_kind */
	uint32_t flags; /* DDF_PF_* */
	/*
	 * Count mode: the window in elements (insertions).
	 * Time mode: the most elements expected within one window_ns; the
	 * false-positive rate holds up to that rate, and degrades above it.
	 */
	uint64_t window;
	uint64_t window_ns; /* time mode only */
	uint32_t k; /* APBF/APBBF: segments per insert; QHT: fingerprints/row */
	uint32_t l; /* APBF/APBBF: window in generations */
	uint64_t m; /* APBF: bits/slice; APBBF: blocks/segment; QHT: rows */
	uint32_t block_bits; /* APBBF: B, 64 or 512 */
	uint32_t block_hashes; /* APBBF: b, 4 or 8 */
	uint32_t fp_bits; /* QHT family: s, fingerprint bits */
	uint32_t cell_bits; /* SBF: d bits per cell; b_DBF: counter bits */
	uint32_t decrements; /* SBF: P cells decremented per insert */
	uint32_t inner_kind; /* queuing construction: the subfilters' kind */
	uint32_t subfilters; /* queuing construction: L */
	uint32_t p_star; /* RSBF: insertion threshold p*, Q32 (0: 0.03) */
	/*
	 * APBF/APBBF: CPUs that may insert at once, the first DDF_MAX_SLOTS
	 * in batches of tickets (ddf_age.h); the count window holds while no
	 * more insert at once. 0 or 1: one at a time, single tickets.
	 */
	uint32_t cpus;
	uint64_t rng_seed; /* DDF_TF_RANDOM kinds: PRNG seed; others: 0 */
};

/* A key, as the 128-bit keyed hash of its bytes. */
struct ddf_hash {
	uint64_t h1, h2;
};

struct ddf_stats {
	uint64_t bytes; /* memory the filter uses (ddf_filter_memsize) */
	uint64_t window; /* guaranteed window, elements (count mode) */
	uint64_t window_ns; /* guaranteed window, ns (time mode) */
	uint64_t generation; /* generations shifted so far */
	uint64_t gen_size; /* elements per generation (APBF/APBBF) */
	uint64_t inserts; /* count mode: insertions so far */
	uint64_t slots; /* QHT family: rows * k */
	uint64_t used; /* QHT family: non-empty slots */
	uint32_t fill_ppm; /* fill of the newest segment (bits or slots) */
	uint32_t reserved;
};

struct ddf_filter;

/* ddf_filter_type.flags */
#define DDF_TF_RANDOM 0x1u /* draws random numbers: give params.rng_seed */

struct ddf_filter_type {
	const char *name;
	uint32_t kind;
	uint32_t flags; /* DDF_TF_* */
	/* Complete and check params (fill derived fields). */
	int (*resolve)(struct ddf_params *p, const char **why);
	uint64_t (*memsize)(const struct ddf_params *p);
	/* Build the filter in mem (already checked to be large enough). */
	struct ddf_filter *(*init)(void *mem, const struct ddf_params *p,
				   uint64_t now);
	bool (*lookup)(struct ddf_filter *f, const struct ddf_hash *h,
		       uint64_t now);
	void (*insert)(struct ddf_filter *f, const struct ddf_hash *h,
		       uint64_t now);
	bool (*test_and_insert)(struct ddf_filter *f, const struct ddf_hash *h,
				uint64_t now);
	/* Time mode: perform due generation shifts (e.g. from a timer). */
	void (*advance)(struct ddf_filter *f, uint64_t now);
	void (*stats)(const struct ddf_filter *f, struct ddf_stats *st);
	/* optional: set bits in logical segment i (0 = newest) */
	uint64_t (*segment_bits)(const struct ddf_filter *f, uint32_t i);
};

/* Every filter begins with this header. */
struct ddf_filter {
	const struct ddf_filter_type *type;
	struct ddf_params params; /* resolved */
	uint64_t bytes;
};

/* Helpers shared by the filter implementations. */
#define DDF_CACHELINE 64u
static inline uint64_t ddf_align_up(uint64_t x, uint64_t a)
{
	return (x + a - 1) & ~(a - 1);
}

/* (x * y) >> 32 without overflow */
static inline uint64_t ddf_mul_shr32(uint64_t x, uint64_t y)
{
	return (ddf_mulhi64(x, y) << 32) | ((x * y) >> 32);
}

static inline void *ddf_align_ptr(void *p, uint64_t a)
{
	return (void *)(uintptr_t)ddf_align_up((uint64_t)(uintptr_t)p, a);
}

#include "ddf_registry.h"

static inline bool ddf_filter_lookup(struct ddf_filter *f,
				     const struct ddf_hash *h, uint64_t now)
{
	return f->type->lookup(f, h, now);
}

static inline void ddf_filter_insert(struct ddf_filter *f,
				     const struct ddf_hash *h, uint64_t now)
{
	f->type->insert(f, h, now);
}

static inline bool ddf_filter_test_and_insert(struct ddf_filter *f,
					      const struct ddf_hash *h,
					      uint64_t now)
{
	return f->type->test_and_insert(f, h, now);
}

static inline void ddf_filter_advance(struct ddf_filter *f, uint64_t now)
{
	if (f->type->advance)
		f->type->advance(f, now);
}

static inline void ddf_filter_stats(const struct ddf_filter *f,
				    struct ddf_stats *st)
{
	memset(st, 0, sizeof(*st));
	f->type->stats(f, st);
	st->bytes = f->bytes;
}

#endif /* DDF_FILTER_H */
