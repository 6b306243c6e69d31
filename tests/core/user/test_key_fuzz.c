// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Packet keys under random input: packets built with random header lengths,
 * next-header chains, fragment bits, truncations and padding, then mutated
 * byte by byte, hashed under random specs (validated ones and, for the
 * "never reads outside" promise, unvalidated ones). The reader stops the
 * test at the first request outside the packet, and the packet sits in a
 * heap block of exactly its length, so a sanitizer build also catches a
 * read past it through the in-place pointer:
 *   DDF_FUZZ_SEED=S DDF_FUZZ_ITERS=N build/ddf_core_tests ddf_key_fuzz
 */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ddf_test.h"
#include "ddf_test_nh_ref.h"
#include "ddf_key.h"

/* the keys the fuzzer hashes under: SipHash keys { 1, 2 } and { 3, 4 } */
static const struct ddf_key_secret *kf_key12(void)
{
	static struct ddf_key_secret ks;

	if (!ks.nh.k[0])
		ddf_key_secret_init(&ks, &(struct ddf_sipkey){ 1, 2 });
	return &ks;
}

static const struct ddf_key_secret *kf_key34(void)
{
	static struct ddf_key_secret ks;

	if (!ks.nh.k[0])
		ddf_key_secret_init(&ks, &(struct ddf_sipkey){ 3, 4 });
	return &ks;
}

#define KF_CAP 4096u

struct kf_reader {
	const uint8_t *data;
	uint32_t len;
	bool copy;
	uint32_t calls;
	jmp_buf *out; /* where an access outside the packet goes */
	char why[128];
};

static const void *kf_read(void *ctx, uint32_t off, uint32_t len, void *buf)
{
	struct kf_reader *r = ctx;

	r->calls++;
	if (off > r->len || len > r->len - off || len > DDF_KEY_READ_MAX) {
		snprintf(r->why, sizeof(r->why),
			 "read [%u, +%u) of a %u-byte packet", off, len,
			 r->len);
		longjmp(*r->out, 1);
	}
	if (!r->copy)
		return r->data + off;
	memcpy(buf, r->data + off, len);
	return buf;
}

static uint32_t kf_below(uint64_t *rng, uint32_t n)
{
	return n ? (uint32_t)(ddf_test_rand(rng) % n) : 0;
}

static bool kf_chance(uint64_t *rng, uint32_t pct)
{
	return kf_below(rng, 100) < pct;
}

static void kf_put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static const uint8_t kf_l4s[] = { 6, 17, 136, 132, 1, 58, 50, 59, 47 };
static const uint8_t kf_exts[] = { 0, 43, 60, 44, 51 };

static uint8_t kf_proto(uint64_t *rng)
{
	if (kf_chance(rng, 5))
		return (uint8_t)kf_below(rng, 256);
	return kf_l4s[kf_below(rng, sizeof(kf_l4s))];
}

/* A random L4 header of protocol pr at b (room: left); its length. */
static uint32_t kf_l4(uint8_t *b, uint32_t left, uint8_t pr, uint64_t *rng)
{
	uint32_t hl = 8;

	for (uint32_t i = 0; i < 60 && i < left; i++)
		b[i] = (uint8_t)ddf_test_rand(rng);
	if (pr == 6) {
		uint32_t doff = kf_chance(rng, 90) ? 5 + kf_below(rng, 11) :
						     kf_below(rng, 16);

		if (left > 12)
			b[12] = (uint8_t)(doff << 4);
		hl = doff < 5 ? 20 : doff * 4;
	} else if (pr == 132) {
		hl = 12;
	} else if (pr == 1 || pr == 58) {
		static const uint8_t types[] = { 0, 8, 13, 17, 3, 128, 129, 1 };

		if (left)
			b[0] = types[kf_below(rng, sizeof(types))];
	}
	return hl < left ? hl : left;
}

/*
 * A random packet into b; its stated length (what the headers say), which
 * the caller may cut or pad.
 */
static uint32_t kf_gen(uint8_t *b, uint64_t *rng)
{
	uint32_t off, n, nexts, paylen;
	uint8_t *nh;
	bool v6 = kf_chance(rng, 50), later = false;

	memset(b, 0, KF_CAP);
	for (uint32_t i = 0; i < 64; i++)
		b[i] = (uint8_t)ddf_test_rand(rng);
	if (!v6) {
		uint32_t ihl = kf_chance(rng, 70) ? 5 : kf_below(rng, 16);

		b[0] = (uint8_t)(0x40 | ihl);
		off = ihl < 5 ? 20 : ihl * 4;
		/* mostly whole datagrams, some first and later fragments */
		n = kf_below(rng, 10);
		b[6] = n < 6 ? 0x40 : (uint8_t)ddf_test_rand(rng);
		b[7] = n < 8 ? 0 : (uint8_t)ddf_test_rand(rng);
		later = (b[6] & 0x1f) || b[7];
		nh = &b[9];
		nexts = kf_chance(rng, 10) ? 1 + kf_below(rng, 3) : 0;
	} else {
		b[0] = (uint8_t)(0x60 | (b[0] & 0x0f));
		off = 40;
		nh = &b[6];
		nexts = kf_chance(rng, 50) ? kf_below(rng, 20) : 0;
	}
	if (kf_chance(rng, 2))
		b[0] = (uint8_t)ddf_test_rand(rng); /* any version */
	for (uint32_t i = 0; i < nexts && !later && off + 8 < 2048; i++) {
		uint8_t t = v6 ? kf_exts[kf_below(rng, sizeof(kf_exts))] : 51;
		uint8_t *h = b + off;

		*nh = t;
		nh = h;
		for (uint32_t j = 0; j < 8; j++)
			h[j] = (uint8_t)ddf_test_rand(rng);
		if (t == 44) {
			/* offset 0 mostly: the walk goes on */
			if (kf_chance(rng, 70))
				h[2] = 0, h[3] &= 0x07;
			later = (h[2] << 8 | h[3]) >> 3;
			off += 8;
			continue;
		}
		h[1] = kf_chance(rng, 90) ? (uint8_t)kf_below(rng, 4) :
					    (uint8_t)ddf_test_rand(rng);
		off += t == 51 ? (h[1] + 2u) * 4 : (h[1] + 1u) * 8;
	}
	*nh = kf_proto(rng);
	if (off >= 2048)
		off = 2048;
	if (!later)
		off += kf_l4(b + off, KF_CAP - off, *nh, rng);
	paylen = kf_chance(rng, 80) ? kf_below(rng, 200) : kf_below(rng, 1700);
	if (off + paylen > KF_CAP)
		paylen = KF_CAP - off;
	for (uint32_t i = 0; i < paylen; i++)
		b[off + i] = (uint8_t)ddf_test_rand(rng);
	off += paylen;
	if (!v6)
		kf_put16(b + 2, off);
	else
		kf_put16(b + 4, off - 40);
	if (kf_chance(rng, 3)) /* a lying length */
		kf_put16(b + (v6 ? 4 : 2), (uint32_t)ddf_test_rand(rng));
	return off;
}

/* A random spec: validated unless raw. */
static void kf_spec(struct ddf_key_spec *s, uint64_t *rng, bool raw)
{
	if (raw) {
		uint8_t *p = (uint8_t *)s;

		for (size_t i = 0; i < sizeof(*s); i++)
			p[i] = (uint8_t)ddf_test_rand(rng);
		if (kf_chance(rng, 50))
			s->form = (uint8_t)kf_below(rng, 3);
		if (kf_chance(rng, 50))
			s->max_bytes = kf_below(rng, 70000);
		return;
	}
	ddf_key_spec_default(s);
	s->family =
		(uint8_t)(kf_chance(rng, 80) ? 0 : 4 + 2 * kf_below(rng, 2));
	if (kf_chance(rng, 50)) {
		s->ignore = kf_below(rng, __DDF_KI_ALL + 1) | DDF_KI_IPV4CSUM;
		s->max_bytes = kf_chance(rng, 50) ? 1500 :
						    1 + kf_below(rng, 700);
		return;
	}
	s->form = DDF_KEY_FIELDS;
	s->fields = 1 + kf_below(rng, __DDF_KF_ALL);
	if (s->fields & DDF_KF_PAYLOAD) {
		s->payload_off = (uint16_t)kf_below(rng, 300);
		s->payload_len = (uint16_t)(1 + kf_below(rng, 400));
	}
}

struct kf_stats {
	uint64_t runs, hashed, flags[16], raw, oracle;
};

/*
 * Hash p[0..len) under s with an in-place and a copying reader, and with
 * the NULL (flat, no calls) reader; all must agree, stay inside, leave the
 * packet alone and be repeatable.
 */
static bool kf_one(ddf_test_t *t, const struct ddf_key_spec *s,
		   const uint8_t *p, uint32_t len, struct kf_stats *st,
		   uint64_t seed, uint64_t iter)
{
	jmp_buf out;
	struct kf_reader r = { p, len, false, 0, &out, "" };
	struct kf_reader rc = { p, len, true, 0, &out, "" };
	struct kf_reader *volatile cur = &r; /* changes after setjmp */
	struct ddf_hash h1, h2;
	struct ddf_key_info ki, ki2;
	int r1, r2;

	if (setjmp(out)) {
		ddf_test_fail(t, __FILE__, __LINE__,
			      "seed %llu iteration %llu form %u: %s",
			      (unsigned long long)seed,
			      (unsigned long long)iter, s->form, cur->why);
		return false;
	}
	r1 = ddf_key_hash(s, kf_read, &r, len, kf_key12(),
			  DDF_HASH_SIP13, &h1, &ki);
	cur = &rc;
	r2 = ddf_key_hash(s, kf_read, &rc, len, kf_key12(),
			  DDF_HASH_SIP13, &h2, &ki2);
	st->runs++;
	if (r1 == r2 && !memcmp(&ki, &ki2, sizeof(ki))) {
		/* the NULL reader: the flat buffer read in place, no calls */
		struct ddf_key_flat f = { p, len };

		r2 = ddf_key_hash(s, NULL, &f, len, kf_key12(),
				  DDF_HASH_SIP13, &h2, &ki2);
	}
	if (r1 != r2 || memcmp(&ki, &ki2, sizeof(ki)) ||
	    (r1 == DDF_KEY_HASHED && (h1.h1 != h2.h1 || h1.h2 != h2.h2))) {
		ddf_test_fail(t, __FILE__, __LINE__,
			      "seed %llu iteration %llu: readers disagree",
			      (unsigned long long)seed,
			      (unsigned long long)iter);
		return false;
	}
	if (r1 != DDF_KEY_HASHED)
		return true;
	st->hashed++;
	for (int b = 0; b < 16; b++)
		st->flags[b] += (ki.flags >> b) & 1;
	if (ki.len > len || ((ki.flags & DDF_KEY_F_L4) && ki.l4off > ki.len) ||
	    ((ki.flags & DDF_KEY_F_PAYLOAD) &&
	     (ki.payoff > ki.len || ki.payoff < ki.l4off))) {
		ddf_test_fail(t, __FILE__, __LINE__,
			      "seed %llu iteration %llu: info out of range",
			      (unsigned long long)seed,
			      (unsigned long long)iter);
		return false;
	}
	return true;
}

/*
 * The packet form with nothing ignored and no cut is the documented
 * string, 'P', the bytes, the length: check it against the one-shot hash.
 * The result depends on the IP header only, never on the form: the field
 * form with every field must agree.
 */
static bool kf_oracle(ddf_test_t *t, const uint8_t *p, uint32_t len, uint8_t *w,
		      struct kf_stats *st)
{
	struct ddf_key_spec s, fs;
	struct ddf_key_flat f = { p, len };
	struct ddf_key_info ki;
	struct ddf_hash got, exp;
	const struct ddf_key_secret *key = kf_key34();
	uint8_t *e = w + KF_CAP + 8; /* the reference's room */
	int r;

	ddf_key_spec_default(&s);
	s.ignore = 0;
	s.max_bytes = DDF_KEY_MAX_BYTES_MAX;
	r = ddf_key_hash(&s, ddf_key_read_flat, &f, len, key, DDF_HASH_SIP24,
			 &got, &ki);
	ddf_key_spec_default(&fs);
	fs.form = DDF_KEY_FIELDS;
	fs.fields = __DDF_KF_ALL;
	fs.payload_len = DDF_KEY_PAYLOAD_MAX;
	if (ddf_key_hash(&fs, ddf_key_read_flat, &f, len, key, DDF_HASH_SIP24,
			 &exp, NULL) != r)
		return false;
	if (r != DDF_KEY_HASHED)
		return true;
	w[0] = 'P';
	memcpy(w + 1, p, ki.len);
	w[1 + ki.len] = (uint8_t)(ki.len >> 24);
	w[2 + ki.len] = (uint8_t)(ki.len >> 16);
	w[3 + ki.len] = (uint8_t)(ki.len >> 8);
	w[4 + ki.len] = (uint8_t)ki.len;
	nhref_key_hash(w, ki.len + 5, key, DDF_HASH_SIP24, e, &exp);
	st->oracle++;
	return got.h1 == exp.h1 && got.h2 == exp.h2;
}

#define KF_ITERS 500000

DDF_TEST(ddf_key_fuzz_random)
{
	uint8_t *base = malloc(KF_CAP), *w = malloc(2 * (KF_CAP + 8) + 16);
	const char *env = getenv("DDF_FUZZ_SEED");
	uint64_t seed = env ? strtoull(env, NULL, 0) : 0x6b6579;
	uint64_t rng = seed, iters = KF_ITERS;
	struct kf_stats st = { 0 };
	const char *ienv = getenv("DDF_FUZZ_ITERS");

	DDF_ASSERT(t, base && w);
	if (ienv)
		iters = strtoull(ienv, NULL, 0);
	for (uint64_t it = 0; it < iters; it++) {
		uint32_t stated = kf_gen(base, &rng), len = stated;
		uint32_t muts = kf_chance(&rng, 50) ? 0 : 1 + kf_below(&rng, 4);
		struct ddf_key_spec s;
		uint8_t *p, *keep;
		bool ok = true;

		/* cut (a snap length, a broken packet) or pad (Ethernet) */
		if (kf_chance(&rng, 30))
			len = kf_below(&rng, stated + 1);
		else if (kf_chance(&rng, 10) && stated + 64 <= KF_CAP)
			len = stated + kf_below(&rng, 64);
		for (uint32_t m = 0; m < muts && len; m++) {
			uint32_t at =
				kf_chance(&rng, 80) ?
					kf_below(&rng, len < 160 ? len : 160) :
					kf_below(&rng, len);

			base[at] ^= (uint8_t)(1 + kf_below(&rng, 255));
		}
		/* exactly len bytes, so that a sanitizer sees an overread */
		p = malloc(len ? len : 1);
		keep = malloc(len ? len : 1);
		DDF_ASSERT(t, p && keep);
		memcpy(p, base, len);
		memcpy(keep, base, len);
		for (int k = 0; k < 3 && ok; k++) {
			bool raw = k == 2 && kf_chance(&rng, 30);

			kf_spec(&s, &rng, raw);
			st.raw += raw;
			if (!raw && ddf_key_spec_validate(&s, NULL)) {
				ddf_test_fail(t, __FILE__, __LINE__,
					      "generated spec is invalid");
				ok = false;
				break;
			}
			ok = kf_one(t, &s, p, len, &st, seed, it);
		}
		if (ok && kf_chance(&rng, 25) &&
		    !kf_oracle(t, p, len, w, &st)) {
			ddf_test_fail(
				t, __FILE__, __LINE__,
				"seed %llu iteration %llu: packet form is not 'P' bytes length, or the forms disagree on the result",
				(unsigned long long)seed,
				(unsigned long long)it);
			ok = false;
		}
		if (ok && memcmp(p, keep, len)) {
			ddf_test_fail(
				t, __FILE__, __LINE__,
				"seed %llu iteration %llu: packet written",
				(unsigned long long)seed,
				(unsigned long long)it);
			ok = false;
		}
		free(p);
		free(keep);
		if (!ok)
			break;
	}
	DDF_LOG(t,
		"%llu runs (%llu unvalidated specs), %llu hashed, %llu oracle checks; l4 %llu l4hdr %llu later %llu trunc %llu badhdr %llu extlimit %llu cut %llu",
		(unsigned long long)st.runs, (unsigned long long)st.raw,
		(unsigned long long)st.hashed, (unsigned long long)st.oracle,
		(unsigned long long)st.flags[0],
		(unsigned long long)st.flags[1],
		(unsigned long long)st.flags[4],
		(unsigned long long)st.flags[6],
		(unsigned long long)st.flags[7],
		(unsigned long long)st.flags[8],
		(unsigned long long)st.flags[9]);
	/* the generator must reach the interesting states */
	DDF_EXPECT(t, st.hashed > iters);
	DDF_EXPECT(t, st.flags[1] > iters / 10); /* L4 header found */
	DDF_EXPECT(t, st.flags[4] > iters / 100); /* later fragments */
	DDF_EXPECT(t, st.flags[6] > iters / 10); /* truncated */
	DDF_EXPECT(t, st.flags[7] > 0 && st.flags[8] > 0 && st.flags[9] > 0);
	free(base);
	free(w);
}

/* clang-format off */
static ddf_case_t ddf_key_fuzz_cases[] = {
	DDF_CASE(ddf_key_fuzz_random),
	DDF_CASES_END
};
/* clang-format on */

DDF_SUITE(ddf_key_fuzz, ddf_key_fuzz_cases);
