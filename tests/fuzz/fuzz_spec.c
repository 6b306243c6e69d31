// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * A rule's filter over any parameters: the core's checks
 * (ddf_params_resolve(), ddf_registry.h), its sizing (ddf_size(),
 * ddf_size_*.c) and the filter built from what they accept. The input's
 * first byte says which way; the rest are the numbers, read in order
 * (zeros once it runs out).
 *
 * Shape (ddfctl's "shape", the kernel's NEW): parameters as given. What
 * the kernel's policy (nf_ddf_policy.c) lets through goes the kernel's way
 * (cpus raised to the CPUs there are, then resolved); what the core
 * accepts must be what the policy lets through, so that ddfctl, which
 * checks with the core, never sends what the kernel refuses.
 * Sizing (ddfctl's window/fpr/memory): a request of any numbers but a NaN
 * rate (ddfctl refuses those). What it sizes must resolve to itself, pass
 * the policy, and meet the request: its bytes within the budget, or its
 * rate within the target.
 *
 * Either way an accepted shape must lie within the caps (its bytes, k, l,
 * window), give an analytic rate in [0, 1], and, when small, build: the
 * filter is made in memory full of junk and run over the input's hashes.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddf_filter.h"
#include "ddf_size.h"

#define FS_BUILD_MAX (1u << 20) /* bytes of a filter worth building */
#define FS_OPS 64u

struct fs_in {
	const uint8_t *d;
	size_t n;
};

static uint64_t fs_take(struct fs_in *in, unsigned int bytes)
{
	uint64_t v = 0;

	for (unsigned int i = 0; i < bytes; i++) {
		if (in->n) {
			v |= (uint64_t)in->d[0] << (8 * i);
			in->d++;
			in->n--;
		}
	}
	return v;
}

/* A u64 of any size, small ones often: its bits shifted by a byte's say. */
static uint64_t fs_take_u64(struct fs_in *in)
{
	unsigned int sh = (unsigned int)fs_take(in, 1) % 64;

	return fs_take(in, 8) >> sh;
}

static void fs_fail(const char *why, const struct ddf_params *p,
		    const char *core_why)
{
	fprintf(stderr, "fuzz_spec: %s%s%s\n  kind %u flags %#x window %llu window_ns %llu k %u l %u m %llu block_bits %u block_hashes %u fp_bits %u cell_bits %u decrements %u inner_kind %u subfilters %u p_star %u cpus %u\n",
		why, core_why ? ": " : "", core_why ? core_why : "", p->kind,
		p->flags, (unsigned long long)p->window,
		(unsigned long long)p->window_ns, p->k, p->l,
		(unsigned long long)p->m, p->block_bits, p->block_hashes,
		p->fp_bits, p->cell_bits, p->decrements, p->inner_kind,
		p->subfilters, p->p_star, p->cpus);
	abort();
}

/* nf_ddf_filter_policy's ranges over the attributes a NEW carries. */
static bool fs_policy(const struct ddf_params *p)
{
	if (p->kind < 1 || p->kind >= __DDF_KIND_MAX ||
	    p->window > DDF_MAX_WINDOW)
		return false;
	if ((p->flags & DDF_PF_TIME) && (p->window_ns < DDF_MIN_WINDOW_NS ||
					 p->window_ns > DDF_MAX_WINDOW_NS))
		return false;
	return p->k <= DDF_MAX_K && p->l <= DDF_MAX_L &&
	       p->block_bits <= 512 && p->block_hashes <= 64 &&
	       p->fp_bits <= 64 && p->cell_bits <= 64 &&
	       p->inner_kind < __DDF_KIND_MAX && p->subfilters <= DDF_MAX_L &&
	       p->cpus <= DDF_MAX_CPUS;
}

/*
 * An accepted shape: within the caps, resolved already (resolving it
 * again changes nothing), an analytic rate, and a filter that builds and
 * runs when it is small.
 */
static void fs_accepted(const struct ddf_params *p, struct fs_in *in)
{
	struct ddf_params again = *p;
	const char *why = NULL;
	uint64_t bytes = ddf_filter_memsize(p), now = 0;
	double fpr;

	if (ddf_params_resolve(&again, &why))
		fs_fail("a resolved shape is refused when resolved again", p,
			why);
	if (memcmp(&again, p, sizeof(again)))
		fs_fail("resolving a resolved shape changed it", p, NULL);
	if (!bytes || bytes > DDF_MAX_BYTES + DDF_CACHELINE)
		fs_fail("an accepted shape has no size within the cap", p,
			NULL);
	if (p->k > DDF_MAX_K || p->l > DDF_MAX_L || p->window > DDF_MAX_WINDOW)
		fs_fail("an accepted shape beyond the caps", p, NULL);
	fpr = ddf_fpr_analytic(p);
	if (!(fpr >= 0.0 && fpr <= 1.0))
		fs_fail("an analytic rate outside [0, 1]", p, NULL);
	if (bytes <= FS_BUILD_MAX) {
		uint8_t *mem = malloc(bytes);
		struct ddf_filter *f;
		struct ddf_stats st;

		if (!mem)
			abort();
		memset(mem, 0xbe, bytes); /* the filter need not be zeroed */
		f = ddf_filter_init(mem, bytes, p, 0);
		if (!f)
			fs_fail("an accepted shape does not build", p, NULL);
		for (unsigned int i = 0; i < FS_OPS && in->n; i++) {
			struct ddf_hash h;

			h.h1 = fs_take(in, 2) * 0x9e3779b97f4a7c15ull;
			h.h2 = fs_take(in, 2) * 0xc2b2ae3d27d4eb4full;
			now += fs_take(in, 1) * 1000000ull;
			ddf_filter_advance(f, now);
			ddf_filter_test_and_insert(f, &h, now);
			ddf_filter_lookup(f, &h, now);
		}
		ddf_filter_stats(f, &st);
		if (st.bytes != bytes)
			fs_fail("the filter's stats give another size", p, NULL);
		free(mem);
	}
}

static void fs_shape(struct fs_in *in)
{
	struct ddf_params p, k;
	const char *why = NULL;
	uint32_t ncpus;
	int err;

	memset(&p, 0, sizeof(p));
	p.kind = (uint32_t)fs_take(in, 1) % (__DDF_KIND_MAX + 1);
	p.flags = (uint32_t)fs_take(in, 1) & 3;
	p.window = fs_take_u64(in);
	p.window_ns = fs_take_u64(in);
	p.k = (uint32_t)fs_take(in, 1);
	p.l = (uint32_t)fs_take(in, 2) % 320;
	p.m = fs_take_u64(in);
	p.block_bits = (uint32_t)fs_take(in, 2) % 640;
	p.block_hashes = (uint32_t)fs_take(in, 1);
	p.fp_bits = (uint32_t)fs_take(in, 1);
	p.cell_bits = (uint32_t)fs_take(in, 1);
	p.decrements = (uint32_t)fs_take(in, 4);
	p.inner_kind = (uint32_t)fs_take(in, 1) % (__DDF_KIND_MAX + 1);
	p.subfilters = (uint32_t)fs_take(in, 2) % 320;
	p.p_star = (uint32_t)fs_take(in, 4);
	p.cpus = (uint32_t)fs_take(in, 2) % 9000;
	ncpus = 1 + (uint32_t)fs_take(in, 2) % DDF_MAX_CPUS;

	/* ddfctl: the core's check alone, before it sends */
	k = p;
	err = ddf_params_resolve(&k, &why);
	if (!err && !fs_policy(&p))
		fs_fail("the core accepts what the kernel's policy refuses", &p,
			NULL);
	if (!fs_policy(&p))
		return;
	/* the kernel: the policy passed, cpus raised, then the core */
	k = p;
	if (k.kind == DDF_KIND_APBF || k.kind == DDF_KIND_APBBF)
		k.cpus = k.cpus > ncpus ? k.cpus : ncpus;
	if (!ddf_params_resolve(&k, &why))
		fs_accepted(&k, in);
}

static void fs_size(struct fs_in *in)
{
	struct ddf_size_req req;
	struct ddf_size_report rep;
	struct ddf_params out;
	const char *why = NULL;
	uint64_t raw;

	memset(&req, 0, sizeof(req));
	req.kind = (uint32_t)fs_take(in, 1) % (__DDF_KIND_MAX + 1);
	req.flags = (uint32_t)fs_take(in, 1) & 3;
	req.window = fs_take_u64(in);
	req.window_ns = fs_take_u64(in);
	switch (fs_take(in, 1) & 3) {
	case 0:
		break;
	case 1: /* a rate between 0 and 1, the usual request */
		req.fpr = (double)fs_take(in, 4) / 4294967296.0;
		break;
	case 2:
		req.fpr = pow(10.0, -(double)(fs_take(in, 1) % 40));
		break;
	default:
		raw = fs_take(in, 8);
		memcpy(&req.fpr, &raw, sizeof(raw));
		if (isnan(req.fpr))
			return; /* ddfctl's parse_fpr() refuses it */
	}
	req.bytes = fs_take_u64(in);
	req.k = (uint32_t)fs_take(in, 1);
	req.l = (uint32_t)fs_take(in, 2) % 320;
	req.block_bits = (uint32_t)fs_take(in, 2) % 640;
	req.block_hashes = (uint32_t)fs_take(in, 1);
	req.fp_bits = (uint32_t)fs_take(in, 1);
	req.cpus = (uint32_t)fs_take(in, 2) % 9000;
	req.tune = (uint32_t)fs_take(in, 1) % 3;

	memset(&out, 0, sizeof(out));
	if (ddf_size(&req, &out, &rep, &why))
		return;
	if (!fs_policy(&out))
		fs_fail("a sized shape the kernel's policy refuses", &out, NULL);
	if (rep.bytes != ddf_filter_memsize(&out))
		fs_fail("the sizing reports another size", &out, NULL);
	if (req.bytes && !req.fpr && rep.bytes > req.bytes)
		fs_fail("a sized shape over its memory budget", &out, NULL);
	if (!req.bytes && req.fpr > 0.0 && req.fpr < 1.0 &&
	    !(rep.fpr <= req.fpr * (1.0 + 1e-9)))
		fs_fail("a sized shape above its target rate", &out, NULL);
	fs_accepted(&out, in);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fs_in in = { data, size };

	if (!size)
		return 0;
	if (fs_take(&in, 1) & 1)
		fs_shape(&in);
	else
		fs_size(&in);
	return 0;
}
