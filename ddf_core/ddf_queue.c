// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The queuing construction (section 5 of "Approaching Optimal Duplicate
 * Detection in a Sliding Window", Geraud-Stewart, Lombard-Platet,
 * Naccache): L subfilters of any registered kind (params.inner_kind), each
 * receiving c = ceil(window / L) insertions. An insertion goes to the
 * newest subfilter; once that one has received c, the oldest is dropped
 * and an empty one becomes the newest (Algorithm 2). A lookup asks all L
 * and answers DUPLICATE if any does. Right after a rotation the queue
 * remembers the last (L - 1) c insertions, just before one the last L c:
 * stats report (L - 1) c as the guaranteed window.
 *
 * The subfilters' params are the queue's, with kind = inner_kind and
 * window = c; resolve copies what the inner kind derives (rows, shape)
 * back into the queue's params. A core file cannot look the inner type up
 * (it would name every filter), so ddf_registry.h does and hands it to
 * ddf_queue_resolve/memsize/init; the queue keeps the pointer.
 *
 * Generations. Insertion tickets (a counter) fix which generation an
 * insertion belongs to: g = L - 1 + ticket / c, so each subfilter gets
 * exactly c. Generation g lives in subfilter g mod L; one published word
 * holds the newest generation G and G mod L. The CPU whose ticket starts
 * a generation rotates (under a busy bit), re-initialising the subfilter
 * of the generation that leaves the view G - L + 1 .. G.
 *
 * A subfilter must not be re-initialised while another CPU is inside it
 * (an inner filter keeps pointers into its own memory). Each subfilter has
 * a state word: the generation it holds, a CLOSED bit and a count of CPUs
 * inside. A CPU enters only if the generation is the one it expects and
 * the subfilter is open; the rotating CPU closes it, waits for the count
 * to fall to 0 (one inner operation each: bounded, callers do not re-enter,
 * see ddf_filter.h), re-initialises it and opens it for the new generation.
 * A CPU that finds a subfilter closed or newer skips it: that generation
 * has left its window. The inner filters' own operations are concurrent-safe.
 *
 * Two copies of one key racing across a rotation may both be told UNSEEN
 * (each checks the other's subfilter before the other's insertion lands);
 * within one generation the inner filter's test_and_insert decides.
 */
#include "ddf_filter.h"

/* the published word: G << QUEUE_BASE_BITS | G mod L, L <= 256 */
#define QUEUE_BASE_BITS 9
#define QUEUE_BASE_MASK ((1u << QUEUE_BASE_BITS) - 1)

/* a subfilter's state: generation << 21 | CLOSED | CPUs inside */
#define QUEUE_USERS_MASK ((1ull << 20) - 1)
#define QUEUE_CLOSED (1ull << 20)
#define QUEUE_GEN_SHIFT 21

/* subfilter i: its state word on a cache line, then the inner filter */
#define QUEUE_STATE_BYTES DDF_CACHELINE

struct ddf_queue {
	struct ddf_filter hdr;
	const struct ddf_filter_type *inner;
	struct ddf_params ip; /* the subfilters' resolved params */
	uint64_t c; /* insertions per subfilter */
	uint64_t inner_bytes; /* inner->memsize(&ip) */
	uint64_t sub_bytes; /* state line + inner filter, whole lines */
	uint32_t L;
	char *subs;
	/* hot words, each on its own cache line */
	DDF_CACHE_ALIGNED ddf_aword gen; /* G << BASE_BITS | G mod L */
	DDF_CACHE_ALIGNED ddf_aword count; /* insertion tickets */
	DDF_CACHE_ALIGNED ddf_aword busy; /* held while rotating */
};

#define QUEUE_HDR_BYTES ddf_align_up(sizeof(struct ddf_queue), DDF_CACHELINE)

static inline struct ddf_queue *to_queue(const struct ddf_filter *f)
{
	return (struct ddf_queue *)f;
}

static inline ddf_aword *queue_state(const struct ddf_queue *q, uint32_t i)
{
	return (ddf_aword *)(q->subs + (uint64_t)i * q->sub_bytes);
}

static inline struct ddf_filter *queue_sub(const struct ddf_queue *q,
					   uint32_t i)
{
	return (struct ddf_filter *)(q->subs + (uint64_t)i * q->sub_bytes +
				     QUEUE_STATE_BYTES);
}

static inline uint64_t queue_tag(uint64_t g)
{
	return g << QUEUE_GEN_SHIFT; /* the top bits of g wrap: equality only */
}

/* Enter subfilter i if it holds generation g and is open. */
static bool queue_enter(const struct ddf_queue *q, uint32_t i, uint64_t g)
{
	ddf_aword *st = queue_state(q, i);
	uint64_t s = ddf_aword_read(st);

	for (;;) {
		if ((s & ~QUEUE_USERS_MASK) != queue_tag(g))
			return false; /* closed, or another generation */
		if (ddf_aword_try_cmpxchg(st, &s, s + 1))
			return true;
	}
}

/* Leave; a release, so the rotating CPU sees our accesses done. */
static void queue_leave(const struct ddf_queue *q, uint32_t i)
{
	ddf_aword *st = queue_state(q, i);
	uint64_t s = ddf_aword_read(st);

	while (!ddf_aword_try_cmpxchg(st, &s, s - 1))
		;
}

/* (Re)build subfilter i as an empty filter of generation g. */
static bool queue_build(struct ddf_queue *q, uint32_t i, uint64_t g,
			uint64_t now)
{
	struct ddf_filter *f = queue_sub(q, i);

	if (q->inner->init(f, &q->ip, now) != f)
		return false;
	f->type = q->inner;
	f->params = q->ip;
	f->bytes = q->inner_bytes;
	ddf_aword_set_release(queue_state(q, i), queue_tag(g));
	return true;
}

/* Close subfilter i and wait until no CPU is inside. */
static void queue_close(struct ddf_queue *q, uint32_t i)
{
	ddf_aword *st = queue_state(q, i);
	uint64_t s = ddf_aword_read(st);

	while (!ddf_aword_try_cmpxchg(st, &s, s | QUEUE_CLOSED))
		;
	while (ddf_aword_read_acquire(st) & QUEUE_USERS_MASK)
		ddf_cpu_relax();
}

/* Rotate until the newest generation is at least target; returns it. */
static uint64_t queue_rotate(struct ddf_queue *q, uint64_t target,
			     uint64_t now)
{
	uint64_t newest, v = 0;
	uint32_t base;

	while (!ddf_aword_try_cmpxchg(&q->busy, &v, 1)) {
		ddf_cpu_relax();
		v = 0;
	}
	v = ddf_aword_read(&q->gen);
	newest = v >> QUEUE_BASE_BITS;
	base = (uint32_t)(v & QUEUE_BASE_MASK);
	/* past L rotations every subfilter is rebuilt once: skip the rest */
	if (target > newest + q->L) {
		newest = target - q->L;
		base = (uint32_t)ddf_mod64(newest, q->L);
	}
	while (newest < target) {
		base = base + 1 == q->L ? 0 : base + 1;
		newest++;
		queue_close(q, base);
		queue_build(q, base, newest, now);
		ddf_aword_set_release(&q->gen, newest << QUEUE_BASE_BITS | base);
	}
	ddf_aword_set_release(&q->busy, 0);
	return newest;
}

/* Generation of ticket t, given the newest G: nearly always G itself. */
static inline uint64_t queue_gen_of(const struct ddf_queue *q, uint64_t t,
				    uint64_t newest)
{
	uint64_t lo = (newest - (q->L - 1)) * q->c;

	if (DDF_LIKELY(t >= lo && t - lo < q->c))
		return newest;
	return q->L - 1 + ddf_div64(t, q->c);
}

/*
 * Ask the subfilters of generations G, G - 1, .., G - L + 1 (newest
 * first), except generation skip.
 */
static bool queue_ask(const struct ddf_queue *q, uint64_t v, uint64_t skip,
		      const struct ddf_hash *h, uint64_t now)
{
	uint64_t newest = v >> QUEUE_BASE_BITS;
	uint32_t i = (uint32_t)(v & QUEUE_BASE_MASK), n;

	for (n = 0; n < q->L; n++, newest--, i = i ? i - 1 : q->L - 1) {
		struct ddf_filter *f = queue_sub(q, i);
		bool dup;

		if (newest == skip || !queue_enter(q, i, newest))
			continue;
		dup = q->inner->lookup(f, h, now);
		queue_leave(q, i);
		if (dup)
			return true;
	}
	return false;
}

static bool queue_lookup(struct ddf_filter *f, const struct ddf_hash *h,
			 uint64_t now)
{
	const struct ddf_queue *q = to_queue(f);

	return queue_ask(q, ddf_aword_read_acquire(&q->gen), ~0ull, h, now);
}

/*
 * Take a ticket, rotate if it starts a generation, then insert into the
 * subfilter of its generation (nothing if that one has left the window).
 * test: also ask the other subfilters.
 */
static bool queue_step(struct ddf_queue *q, const struct ddf_hash *h,
		       uint64_t now, bool test)
{
	uint64_t t = ddf_aword_fetch_add(&q->count, 1);
	uint64_t v = ddf_aword_read_acquire(&q->gen);
	uint64_t newest = v >> QUEUE_BASE_BITS, g = queue_gen_of(q, t, newest);
	bool dup = false;
	uint32_t i;

	if (DDF_UNLIKELY(g > newest)) {
		queue_rotate(q, g, now);
		v = ddf_aword_read_acquire(&q->gen);
		newest = v >> QUEUE_BASE_BITS;
	}
	if (test && queue_ask(q, v, g, h, now))
		dup = true;
	if (g + q->L <= newest)
		return dup; /* a late ticket: its generation is gone */
	/* generation g lives in subfilter g mod L, G - g places back */
	i = (uint32_t)(v & QUEUE_BASE_MASK);
	i = i >= newest - g ? i - (uint32_t)(newest - g) : i + q->L - (uint32_t)(newest - g);
	if (!queue_enter(q, i, g))
		return dup;
	if (test)
		dup |= q->inner->test_and_insert(queue_sub(q, i), h, now);
	else
		q->inner->insert(queue_sub(q, i), h, now);
	queue_leave(q, i);
	return dup;
}

static bool queue_test_and_insert(struct ddf_filter *f,
				  const struct ddf_hash *h, uint64_t now)
{
	return queue_step(to_queue(f), h, now, true);
}

static void queue_insert(struct ddf_filter *f, const struct ddf_hash *h,
			 uint64_t now)
{
	queue_step(to_queue(f), h, now, false);
}

/* The subfilters' params: the queue's, as the inner kind sees them. */
static void queue_inner_params(const struct ddf_params *p,
			       struct ddf_params *ip)
{
	*ip = *p;
	ip->kind = p->inner_kind;
	ip->window = ddf_div64(p->window + p->subfilters - 1, p->subfilters);
	ip->inner_kind = 0;
	ip->subfilters = 0;
}

static uint64_t queue_bytes(uint64_t inner_bytes, uint32_t L)
{
	uint64_t sub = ddf_align_up(QUEUE_STATE_BYTES + inner_bytes,
				    DDF_CACHELINE);

	/* inner_bytes <= DDF_MAX_BYTES and L <= 256: no overflow */
	return QUEUE_HDR_BYTES + sub * L;
}

int ddf_queue_resolve(const struct ddf_filter_type *inner,
		      struct ddf_params *p, const char **why)
{
	struct ddf_params ip;
	uint64_t bytes;
	int err;

	if (!p->inner_kind) {
		*why = "the queue needs inner_kind, the kind of its subfilters";
		return DDF_EINVAL;
	}
	if (!inner || inner->kind != p->inner_kind) {
		*why = "inner_kind is not a registered filter kind";
		return DDF_EINVAL;
	}
	if (inner->kind == DDF_KIND_QUEUE) {
		*why = "a queue of queues is not supported";
		return DDF_EINVAL;
	}
	if (p->flags & DDF_PF_TIME) {
		*why = "the queue rotates every c insertions: use count mode";
		return DDF_EINVAL;
	}
	if (!p->subfilters || p->subfilters > DDF_MAX_L) {
		*why = "subfilters (L) must be 1..256";
		return DDF_ERANGE;
	}
	if (p->window < p->subfilters) {
		*why = "the queue's window must be at least its subfilters (L)";
		return DDF_EINVAL;
	}
	queue_inner_params(p, &ip);
	err = ddf_params_check_common(&ip, why);
	if (!err)
		err = inner->resolve(&ip, why);
	if (err)
		return err;
	bytes = inner->memsize(&ip);
	if (!bytes || bytes > DDF_MAX_BYTES ||
	    queue_bytes(bytes, p->subfilters) > DDF_MAX_BYTES) {
		*why = "the queue's subfilters would exceed the memory limit";
		return DDF_EFBIG;
	}
	/* keep what the inner kind derived, so resolving again is a no-op */
	ip.kind = DDF_KIND_QUEUE;
	ip.window = p->window;
	ip.inner_kind = p->inner_kind;
	ip.subfilters = p->subfilters;
	*p = ip;
	return 0;
}

uint64_t ddf_queue_memsize(const struct ddf_filter_type *inner,
			   const struct ddf_params *p)
{
	struct ddf_params ip;
	const char *why;
	uint64_t bytes, total;

	if (!inner || inner->kind != p->inner_kind ||
	    inner->kind == DDF_KIND_QUEUE || !p->subfilters ||
	    p->subfilters > DDF_MAX_L || p->window < p->subfilters)
		return 0;
	queue_inner_params(p, &ip);
	if (inner->resolve(&ip, &why))
		return 0;
	bytes = inner->memsize(&ip);
	if (!bytes || bytes > DDF_MAX_BYTES)
		return 0;
	total = queue_bytes(bytes, p->subfilters);
	return total <= DDF_MAX_BYTES ? total : 0;
}

/* mem: ddf_queue_memsize() bytes, cache-line aligned */
struct ddf_filter *ddf_queue_init(const struct ddf_filter_type *inner,
				  void *mem, const struct ddf_params *p,
				  uint64_t now)
{
	struct ddf_queue *q = mem;
	const char *why;
	uint32_t i;

	if (!ddf_queue_memsize(inner, p))
		return NULL;
	memset(q, 0, QUEUE_HDR_BYTES);
	q->inner = inner;
	q->L = p->subfilters;
	queue_inner_params(p, &q->ip);
	inner->resolve(&q->ip, &why);
	/* the inner kind may round its window: c is the queue's share */
	q->c = ddf_div64(p->window + q->L - 1, q->L);
	q->inner_bytes = inner->memsize(&q->ip);
	q->sub_bytes = ddf_align_up(QUEUE_STATE_BYTES + q->inner_bytes,
				    DDF_CACHELINE);
	q->subs = (char *)mem + QUEUE_HDR_BYTES;
	/* generations 0 .. L - 1 in subfilters 0 .. L - 1; L - 1 is newest */
	for (i = 0; i < q->L; i++) {
		memset(queue_state(q, i), 0, QUEUE_STATE_BYTES);
		/* the padding after the inner filter: no byte left unwritten */
		memset((char *)queue_sub(q, i) + q->inner_bytes, 0,
		       q->sub_bytes - QUEUE_STATE_BYTES - q->inner_bytes);
		if (!queue_build(q, i, i, now))
			return NULL;
	}
	ddf_aword_set(&q->gen,
		      (uint64_t)(q->L - 1) << QUEUE_BASE_BITS | (q->L - 1));
	return &q->hdr;
}

/* Only through ddf_registry.h, which finds the inner type. */
static int queue_resolve_alone(struct ddf_params *p, const char **why)
{
	*why = "resolve a queue with ddf_params_resolve(): it finds the inner type";
	return DDF_EINVAL;
}

static uint64_t queue_memsize_alone(const struct ddf_params *p)
{
	return 0;
}

static struct ddf_filter *queue_init_alone(void *mem,
					   const struct ddf_params *p,
					   uint64_t now)
{
	return NULL;
}

static void queue_stats(const struct ddf_filter *f, struct ddf_stats *st)
{
	const struct ddf_queue *q = to_queue(f);
	uint64_t v = ddf_aword_read_acquire(&q->gen);
	uint64_t newest = v >> QUEUE_BASE_BITS;
	uint32_t i = (uint32_t)(v & QUEUE_BASE_MASK), n;

	st->window = (q->L - 1) * q->c;
	st->generation = newest - (q->L - 1);
	st->gen_size = q->c;
	st->inserts = ddf_aword_read(&q->count);
	for (n = 0; n < q->L; n++, newest--, i = i ? i - 1 : q->L - 1) {
		struct ddf_stats in;

		if (!queue_enter(q, i, newest))
			continue;
		memset(&in, 0, sizeof(in));
		q->inner->stats(queue_sub(q, i), &in);
		queue_leave(q, i);
		st->slots += in.slots;
		st->used += in.used;
		if (!n)
			st->fill_ppm = in.fill_ppm; /* the newest */
	}
}

const struct ddf_filter_type ddf_queue_type = {
	.name = "queue",
	.kind = DDF_KIND_QUEUE,
	.resolve = queue_resolve_alone,
	.memsize = queue_memsize_alone,
	.init = queue_init_alone,
	.lookup = queue_lookup,
	.insert = queue_insert,
	.test_and_insert = queue_test_and_insert,
	.advance = NULL,
	.stats = queue_stats,
};
