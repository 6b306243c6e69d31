// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The window's far edge under concurrent inserts (ddf_age.h, "The order of
 * a window"), driven step by step. Threads stand for CPUs; each insert can
 * be paused at ddf_age.h's pause points (compiled into test builds only),
 * so that exactly one thread runs at a time, in an order chosen to hurt:
 *
 *  - (a) while the original has its ticket but has not read the
 *    generation, every other CPU takes a ticket of the next generation and
 *    reads the generation first (one of them under the busy bit, about to
 *    shift); they shift after the original is placed;
 *  - (b) when the copy comes, every other CPU has taken a fresh ticket (a
 *    fresh batch, with a slot) and not read the generation yet.
 *
 * The copy takes the first ticket l generations past the original's, so
 * it shifts the original's generation out of the window if the tickets
 * those inserts hold (not counted between original and copy) suffice.
 * Fillers between them move the copy's position p (the inserts read after
 * the original's read, up to and including the copy's, in the order of
 * the reads). A copy at p <= the stated window must be found; the first
 * miss must lie past it, and inside the window that the old slack
 * (S = slots * B, none without batching) stated: that is the failure this
 * test was written for. Positions in the order of the reads that place an
 * insert (an insert that shifts: its read under the busy bit) are logged
 * beside them. Time windows: the copy is found while no timestamp past
 * the original's + window was passed before its read, and missed once one
 * a generation past it was (a stalled copy's cost).
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdlib.h>
#include "ddf_age.h"
#include "ddf_test_user.h"

#define IL_MAX_CPUS 8
#define IL_NO_PAUSE (-1)

/* One insert: when it read the generation, and the read that placed it. */
struct il_rec {
	uint64_t read, fix;
};

struct il_cpu {
	pthread_t th;
	sem_t go, paused, resume, done;
	struct ddf_filter *f;
	uint32_t slot;
	int pause_at;
	struct ddf_hash key;
	uint64_t now;
	bool dup, quit;
	struct il_rec *rec;
};

/*
 * Written by whichever thread runs, one at a time; the semaphores order
 * them. Threads of other suites reach the hook with no record and return.
 */
static struct il_rec *il_log;
static uint64_t il_nlog, il_cap, il_seq;
static const struct ddf_age *il_age;
static _Thread_local struct il_rec *il_cur;
static _Thread_local struct il_cpu *il_self;

void ddf_age_pause(const struct ddf_age *a, int where)
{
	struct il_rec *r = il_cur;

	if (!r)
		return;
	il_age = a;
	if (where == DDF_AGE_AT_READ)
		r->read = r->fix = ++il_seq;
	else if (where == DDF_AGE_AT_LOCKED_READ)
		r->fix = ++il_seq;
	if (il_self && il_self->pause_at == where) {
		il_self->pause_at = IL_NO_PAUSE;
		sem_post(&il_self->paused);
		sem_wait(&il_self->resume);
	}
}

static struct il_rec *il_new_rec(void)
{
	if (il_nlog == il_cap)
		return NULL;
	il_log[il_nlog] = (struct il_rec){ 0, 0 };
	return &il_log[il_nlog++];
}

static void *il_cpu_main(void *arg)
{
	struct il_cpu *c = arg;

	il_self = c;
	for (;;) {
		sem_wait(&c->go);
		if (c->quit)
			break;
		ddf_test_set_slot(c->slot);
		il_cur = c->rec;
		c->dup = ddf_filter_test_and_insert(c->f, &c->key, c->now);
		il_cur = NULL;
		sem_post(&c->done);
	}
	return NULL;
}

/* Start an insert on c; return once it is paused at pause_at, or done. */
static void il_start(struct il_cpu *c, struct ddf_hash key, uint64_t now,
		     int pause_at)
{
	c->key = key;
	c->now = now;
	c->pause_at = pause_at;
	c->rec = il_new_rec();
	sem_post(&c->go);
	sem_wait(pause_at == IL_NO_PAUSE ? &c->done : &c->paused);
}

static bool il_finish(struct il_cpu *c)
{
	sem_post(&c->resume);
	sem_wait(&c->done);
	return c->dup;
}

static bool il_run(struct il_cpu *c, struct ddf_hash key, uint64_t now)
{
	il_start(c, key, now, IL_NO_PAUSE);
	return c->dup;
}

static uint64_t il_ctr;

static struct ddf_hash il_fresh(void)
{
	return ddf_test_key_at(0x5eed0000ull + ++il_ctr);
}

/* An insert on the main thread, as a CPU none of the paused ones is. */
static void il_main_insert(struct ddf_filter *f, uint64_t now)
{
	struct ddf_hash h = il_fresh();

	ddf_test_set_slot(UINT32_MAX);
	il_cur = il_new_rec();
	ddf_filter_test_and_insert(f, &h, now);
	il_cur = NULL;
}

/* Inserts placed after a's read, up to and including b's. */
static uint64_t il_pos(const struct il_rec *a, const struct il_rec *b,
		       bool fix)
{
	uint64_t lo = fix ? a->fix : a->read, hi = fix ? b->fix : b->read;
	uint64_t n = 0;

	for (uint64_t i = 0; i < il_nlog; i++) {
		uint64_t v = fix ? il_log[i].fix : il_log[i].read;

		n += v > lo && v <= hi;
	}
	return n;
}

struct il_cfg {
	const char *name;
	uint32_t cpus; /* params.cpus */
	uint32_t ncpu; /* CPUs driven, at most cpus */
	uint32_t slotted; /* of those, how many have a slot (the first) */
	uint32_t batch; /* B wanted: 1, no batching */
};

struct il_run {
	uint64_t g, l, S, W, S_old, B;
	uint32_t nslots;
	bool found;
	uint64_t pos_read, pos_fix;
};

static struct il_cpu il_cpus[IL_MAX_CPUS];

static struct ddf_filter *il_make(const struct ddf_params *p, void **mem)
{
	uint64_t sz = ddf_filter_memsize(p);

	*mem = aligned_alloc(64, (sz + 63) & ~63ull);
	if (!*mem)
		return NULL;
	return ddf_filter_init(*mem, sz, p, 0);
}

static uint64_t il_window(const struct ddf_params *p)
{
	struct ddf_params p1 = *p;
	struct ddf_stats st = { 0 };
	struct ddf_filter *f;
	void *mem;

	f = il_make(&p1, &mem);
	if (f)
		ddf_filter_stats(f, &st);
	free(mem);
	return st.window;
}

/* A count window whose filter batches B tickets a slot (1: none). */
static bool il_params(struct ddf_params *p, uint32_t kind,
		      const struct il_cfg *cfg)
{
	for (uint64_t j = 0; j < 64; j++) {
		uint64_t cap;

		*p = (struct ddf_params){ .kind = kind, .k = 16, .l = 4,
					  .cpus = cfg->cpus };
		p->window = p->l * (64ull * cfg->cpus * cfg->batch +
				    4 * cfg->cpus * j);
		if (ddf_params_resolve(p, NULL))
			return false;
		cap = ddf_apbf_gen_size(p);
		if (ddf_age_batch(p, cap) == cfg->batch)
			return true;
	}
	return false;
}

/*
 * One run of the schedule at the top, the copy at position p (1: the
 * first insert after the original). False: p cannot be reached.
 */
static bool il_edge_count(ddf_test_t *t, const struct ddf_params *p0,
			  const struct il_cfg *cfg, uint64_t p,
			  struct il_run *out)
{
	struct ddf_params p1 = *p0;
	struct ddf_hash x = il_fresh();
	struct il_rec *orig, *copy;
	uint64_t drains = 0, fill, bi[IL_MAX_CPUS];
	const struct ddf_age *a;
	struct ddf_filter *f;
	struct ddf_stats st;
	uint32_t n = cfg->ncpu;
	void *mem;

	f = il_make(&p1, &mem);
	if (!f) {
		DDF_EXPECT_MSG(t, false, "no filter");
		free(mem);
		return false;
	}
	il_nlog = 0;
	il_seq = 0;
	il_age = NULL;
	ddf_filter_stats(f, &st);
	il_main_insert(f, 0); /* learns the filter's ddf_age */
	a = il_age;
	if (!a) {
		DDF_EXPECT_MSG(t, false, "the pause points are not compiled in");
		free(mem);
		return false;
	}
	for (uint32_t i = 0; i < n; i++) {
		il_cpus[i].f = f;
		il_cpus[i].slot = i < cfg->slotted ? i : DDF_MAX_SLOTS + i;
		bi[i] = il_cpus[i].slot < a->nslots ? a->batch : 1;
	}
	out->g = a->g;
	out->l = a->l;
	out->S = a->slack;
	out->W = st.window;
	out->B = a->batch;
	out->nslots = a->nslots;
	out->S_old = (uint64_t)a->nslots * a->batch;
	/* inserts placed between original and copy, but for the fillers */
	for (uint32_t i = 1; i < n; i++)
		drains += bi[i] - 1;
	if (p < drains + 1) {
		free(mem);
		return false;
	}
	fill = p - 1 - drains;

	/* CPU 0's batch, if any, ends with the original's ticket, g - 1 */
	while (ddf_aword_read(&a->count) < a->g - bi[0])
		il_main_insert(f, 0);
	for (uint64_t i = 0; i + 1 < bi[0]; i++)
		il_run(&il_cpus[0], il_fresh(), 0);
	il_start(&il_cpus[0], x, 0, DDF_AGE_AT_TICKET);
	orig = il_cpus[0].rec;
	DDF_EXPECT_EQ(t, ddf_aword_read(&a->count), a->g);
	/* (a): the others read first; the last about to shift, busy bit held */
	if (n > 1)
		il_start(&il_cpus[n - 1], il_fresh(), 0,
			 DDF_AGE_AT_LOCKED_READ);
	for (uint32_t i = 1; i + 1 < n; i++)
		il_start(&il_cpus[i], il_fresh(), 0, DDF_AGE_AT_READ);
	DDF_EXPECT(t, !il_finish(&il_cpus[0]));
	if (n > 1)
		il_finish(&il_cpus[n - 1]);
	for (uint32_t i = 1; i + 1 < n; i++)
		il_finish(&il_cpus[i]);
	/* their slots' other tickets spent, so that (b) takes fresh ones */
	for (uint32_t i = 1; i < n; i++)
		while (il_cpus[i].slot < a->nslots &&
		       ddf_aword_read(&a->slots[i].next) !=
			       ddf_aword_read(&a->slots[i].end))
			il_run(&il_cpus[i], il_fresh(), 0);
	for (uint64_t i = 0; i < fill; i++)
		il_main_insert(f, 0);
	/* (b): the others take tickets and wait before reading */
	for (uint32_t i = 1; i < n; i++)
		il_start(&il_cpus[i], il_fresh(), 0, DDF_AGE_AT_TICKET);
	out->found = il_run(&il_cpus[0], x, 0);
	copy = il_cpus[0].rec;
	for (uint32_t i = 1; i < n; i++)
		il_finish(&il_cpus[i]);
	if (!orig || !copy) {
		DDF_EXPECT_MSG(t, false, "the insert log is full");
		free(mem);
		return false;
	}
	out->pos_read = il_pos(orig, copy, false);
	out->pos_fix = il_pos(orig, copy, true);
	DDF_EXPECT_MSG(t, out->pos_read == p, "the copy at %llu, not %llu",
		       (unsigned long long)out->pos_read,
		       (unsigned long long)p);
	free(mem);
	return true;
}

static void il_sweep_count(ddf_test_t *t, uint32_t kind,
			   const struct il_cfg *cfg)
{
	struct ddf_params p;
	struct il_run r = { 0 };
	uint64_t first_miss = 0, W;

	DDF_ASSERT_MSG(t, il_params(&p, kind, cfg), "%s %s: no such filter",
		       ddf_kind_name(kind), cfg->name);
	W = il_window(&p);
	DDF_ASSERT(t, W > 2);
	/* the window's last positions, then on until the adversary wins */
	for (uint64_t pos = W - 2; pos <= W + r.S + 2 && !first_miss; pos++) {
		DDF_ASSERT(t, il_edge_count(t, &p, cfg, pos, &r));
		if (!r.found)
			first_miss = pos;
		DDF_EXPECT_MSG(t, r.found || r.pos_read > r.W,
			       "%s %s: copy at %llu missed, inside the window %llu",
			       ddf_kind_name(kind), cfg->name,
			       (unsigned long long)r.pos_read,
			       (unsigned long long)r.W);
		if (pos == W)
			DDF_LOG(t, "%s %s: g %llu, l %llu, B %llu, %u slots: slack %llu (old %llu), window %llu; the copy at its last position (%llu after the original in the order of reads, %llu in the order of placing reads): %s",
				ddf_kind_name(kind), cfg->name,
				(unsigned long long)r.g,
				(unsigned long long)r.l,
				(unsigned long long)r.B, r.nslots,
				(unsigned long long)r.S,
				(unsigned long long)r.S_old,
				(unsigned long long)r.W,
				(unsigned long long)r.pos_read,
				(unsigned long long)r.pos_fix,
				r.found ? "found" : "MISSED");
	}
	DDF_EXPECT_MSG(t, first_miss, "%s %s: the adversary never won",
		       ddf_kind_name(kind), cfg->name);
	DDF_LOG(t, "%s %s: first miss at %llu = window + %llu; the old slack stated a window of %llu: %s",
		ddf_kind_name(kind), cfg->name, (unsigned long long)first_miss,
		(unsigned long long)(first_miss - W),
		(unsigned long long)(r.g * r.l - r.S_old),
		first_miss <= r.g * r.l - r.S_old ? "missed inside it" :
						    "held");
	/* the schedule defeats the old slack: this test fails on it */
	DDF_EXPECT(t, first_miss && first_miss <= r.g * r.l - r.S_old);
}

static const struct il_cfg il_count_cfgs[] = {
	{ "2 CPUs, single tickets", 2, 2, 2, 1 },
	{ "4 CPUs, single tickets", 4, 4, 4, 1 },
	{ "4 CPUs, B 2", 4, 4, 4, 2 },
	{ "6 CPUs, B 2", 6, 6, 6, 2 },
	{ "8 CPUs, B 4", 8, 8, 8, 4 },
	{ "6 CPUs, B 2, 2 past the slot table", 6, 6, 4, 2 },
	{ "6 CPUs of 8, single tickets", 8, 6, 0, 1 },
};

static void il_threads(bool up)
{
	for (int i = 0; i < IL_MAX_CPUS; i++) {
		struct il_cpu *c = &il_cpus[i];

		if (up) {
			*c = (struct il_cpu){ .pause_at = IL_NO_PAUSE };
			sem_init(&c->go, 0, 0);
			sem_init(&c->paused, 0, 0);
			sem_init(&c->resume, 0, 0);
			sem_init(&c->done, 0, 0);
			pthread_create(&c->th, NULL, il_cpu_main, c);
		} else {
			c->quit = true;
			sem_post(&c->go);
			pthread_join(c->th, NULL);
			sem_destroy(&c->go);
			sem_destroy(&c->paused);
			sem_destroy(&c->resume);
			sem_destroy(&c->done);
		}
	}
}

static bool il_setup(ddf_test_t *t)
{
	il_cap = 1u << 20;
	il_log = ddf_test_alloc(t, il_cap * sizeof(*il_log));
	if (!il_log)
		return false;
	ddf_test_use_slots();
	il_threads(true);
	return true;
}

DDF_TEST(interleave_count_window_edge)
{
	static const uint32_t kinds[] = { DDF_KIND_APBF, DDF_KIND_APBBF };

	DDF_ASSERT(t, il_setup(t));
	for (unsigned int k = 0; k < DDF_ARRAY_SIZE(kinds); k++)
		for (unsigned int c = 0; c < DDF_ARRAY_SIZE(il_count_cfgs);
		     c++)
			il_sweep_count(t, kinds[k], &il_count_cfgs[c]);
	il_threads(false);
	ddf_test_set_slot(UINT32_MAX);
}

/*
 * Time: the original at t, the copy with a timestamp inside the window,
 * paused before it reads the generation while the other CPUs insert with
 * the newest timestamp `newest`; it must be found while newest <= t +
 * window, and is missed once newest is a generation past that.
 */
static bool il_edge_time(ddf_test_t *t, uint32_t kind, uint32_t cpus,
			 uint32_t n, uint64_t past, uint64_t *window_ns)
{
	struct ddf_params p = { .kind = kind, .k = 3, .l = 4, .cpus = cpus,
				.window = 4000, .window_ns = 4000000,
				.flags = DDF_PF_TIME };
	struct ddf_hash x = il_fresh();
	struct ddf_filter *f;
	struct ddf_stats st;
	uint64_t gen_ns, at, newest;
	bool found;
	void *mem;

	if (ddf_params_resolve(&p, NULL) || !(f = il_make(&p, &mem))) {
		DDF_EXPECT_MSG(t, false, "%s: no filter", ddf_kind_name(kind));
		return false;
	}
	ddf_filter_stats(f, &st);
	*window_ns = st.window_ns;
	gen_ns = st.window_ns / p.l;
	at = 2 * gen_ns + gen_ns / 2;
	newest = at + st.window_ns + past;
	il_nlog = 0;
	for (uint32_t i = 0; i < n; i++) {
		il_cpus[i].f = f;
		il_cpus[i].slot = i;
	}
	for (uint64_t i = 0; i < 100; i++)
		il_run(&il_cpus[i % n], il_fresh(), i * at / 100);
	DDF_EXPECT(t, !il_run(&il_cpus[0], x, at));
	for (uint64_t i = 0; i < 300; i++)
		il_run(&il_cpus[i % n], il_fresh(), at + i * st.window_ns / 300);
	il_start(&il_cpus[0], x, at + st.window_ns - gen_ns / 4,
		 DDF_AGE_AT_TICKET);
	for (uint32_t i = 1; i < n; i++)
		il_run(&il_cpus[i], il_fresh(), newest);
	found = il_finish(&il_cpus[0]);
	free(mem);
	return found;
}

DDF_TEST(interleave_time_window_edge)
{
	static const uint32_t kinds[] = { DDF_KIND_APBF, DDF_KIND_APBBF };
	static const uint32_t cpus[] = { 1, 4 };

	DDF_ASSERT(t, il_setup(t));
	for (unsigned int k = 0; k < DDF_ARRAY_SIZE(kinds); k++)
		for (unsigned int c = 0; c < DDF_ARRAY_SIZE(cpus); c++) {
			uint64_t w = 0;
			bool in = il_edge_time(t, kinds[k], cpus[c], 4, 0, &w);
			bool out = il_edge_time(t, kinds[k], cpus[c], 4,
						w / 4 + 1, &w);

			DDF_LOG(t, "%s cpus %u, 4 CPUs, window %llu ns: the newest timestamp at the window's last ns: %s; a generation past it: %s",
				ddf_kind_name(kinds[k]), cpus[c],
				(unsigned long long)w,
				in ? "found" : "MISSED",
				out ? "found" : "missed");
			DDF_EXPECT(t, in);
			DDF_EXPECT(t, !out);
		}
	il_threads(false);
	ddf_test_set_slot(UINT32_MAX);
}

static ddf_case_t cases[] = {
	DDF_CASE(interleave_count_window_edge),
	DDF_CASE(interleave_time_window_edge),
	DDF_CASES_END
};

DDF_SUITE(ddf_interleave, cases);
