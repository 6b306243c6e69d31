// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The XDP frame reader (nf_ddf/nf_ddf_xdp_frame.h) as the kernel module
 * compiles it, over a thin shim of the kernel's xdp_buff (tests/fuzz/shim):
 * a multi-buffer frame must key as the same frame whole in memory does.
 * The input is fuzz_key.c's: a spec and link as the kernel takes them
 * (fuzz_key_spec.h), then the frame. The header's piece lengths cut it
 * into the linear part and up to seven fragments, each in a heap block of
 * exactly its length; reader 3 makes one fragment unreadable (a net_iov:
 * the key then fails, or never reads there and answers as whole). A frame
 * of up to FX_EVERY bytes is also cut in two at every offset, a longer
 * one at eight offsets the header's bytes give.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nf_ddf_xdp_frame.h"
#include "fuzz_key_spec.h"

#define FX_EVERY 160u

struct fx_frame {
	struct xdp_buff xdp;
	struct skb_shared_info sinfo;
	uint8_t *lin;
};

/*
 * The frame of c in pieces: [0, cut[0]) linear, then [cut[i - 1], cut[i])
 * and the rest as fragments; bad: the fragment that cannot be read (or
 * none, past the last).
 */
static void fx_build(struct fx_frame *f, const struct fk_case *c,
		     const uint32_t *cut, uint32_t ncut, uint32_t bad)
{
	uint32_t at = ncut ? cut[0] : c->len;

	memset(f, 0, sizeof(*f));
	f->lin = malloc(at ? at : 1);
	if (!f->lin)
		abort();
	memcpy(f->lin, c->b, at);
	f->xdp.data = f->lin;
	f->xdp.data_end = f->lin + at;
	f->xdp.sinfo = &f->sinfo;
	if (!ncut)
		return;
	f->xdp.flags = XDP_FLAGS_HAS_FRAGS;
	for (uint32_t i = 1; i <= ncut; i++) {
		uint32_t to = i < ncut ? cut[i] : c->len;
		skb_frag_t *fr = &f->sinfo.frags[f->sinfo.nr_frags++];

		fr->len = to - at;
		fr->addr = malloc(fr->len ? fr->len : 1);
		if (!fr->addr)
			abort();
		memcpy(fr->addr, c->b + at, fr->len);
		f->sinfo.xdp_frags_size += fr->len;
		at = to;
	}
	if (bad < f->sinfo.nr_frags) {
		free(f->sinfo.frags[bad].addr);
		f->sinfo.frags[bad].addr = NULL;
	}
}

static void fx_free(struct fx_frame *f)
{
	for (uint32_t i = 0; i < f->sinfo.nr_frags; i++)
		free(f->sinfo.frags[i].addr);
	free(f->lin);
}

static void fx_check(const struct fk_case *c, const uint32_t *cut,
		     uint32_t ncut, uint32_t bad, int rw,
		     const struct ddf_hash *hw, const struct ddf_key_info *kw)
{
	struct fx_frame f;
	struct ddf_key_info kx;
	struct ddf_hash hx;
	int rx;

	fx_build(&f, c, cut, ncut, bad);
	memset(&hx, FK_POISON, sizeof(hx));
	rx = nf_ddf_xdp_hash(&c->s, c->lkp, &f.xdp, fk_secret(), c->hashfn,
			     &hx, &kx);
	if (bad < ncut ? rx != DDF_KEY_MALFORMED &&
				 !fk_same(rw, hw, kw, rx, &hx, &kx) :
			 !fk_same(rw, hw, kw, rx, &hx, &kx)) {
		fprintf(stderr, "fuzz_xdp: cut at");
		for (uint32_t i = 0; i < ncut; i++)
			fprintf(stderr, " %u", cut[i]);
		fprintf(stderr, "%s\n", bad < ncut ? ", one piece unreadable" :
						     "");
		fk_fail(c, "fuzz_xdp: the frame in pieces keys otherwise than whole",
			rw, hw, kw, rx, &hx, &kx);
	}
	fx_free(&f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t cut[FK_MAXCUTS], ncut = 0, at = 0;
	struct ddf_key_info kw;
	struct ddf_hash hw;
	struct ddf_key_flat flat;
	struct fk_case c;
	uint8_t *b;
	int rw;

	b = fk_case_of(&c, data, size);
	if (!b)
		return 0;
	flat.data = b;
	flat.len = c.len;
	memset(&hw, FK_POISON, sizeof(hw));
	rw = ddf_key_hash_link(&c.s, c.lkp, NULL, &flat, c.len, fk_secret(),
			       c.hashfn, &hw, &kw);

	/* the header's pieces: a linear part and npieces - 1 fragments */
	for (uint32_t i = 0; i + 1 < c.npieces; i++) {
		at += c.piece[i];
		cut[ncut++] = at < c.len ? at : c.len;
	}
	fx_check(&c, cut, ncut, c.reader == 3 ? c.piece[7] % (ncut + 1) :
						 FK_MAXCUTS, rw, &hw, &kw);
	/* in two, at every offset or at eight */
	if (c.len <= FX_EVERY) {
		for (uint32_t s = 0; s <= c.len; s++)
			fx_check(&c, &s, 1, FK_MAXCUTS, rw, &hw, &kw);
	} else {
		for (uint32_t i = 0; i < 8; i++) {
			uint32_t s = (uint32_t)(c.piece[i] * 257u + i * 61u) %
				     (c.len + 1);

			fx_check(&c, &s, 1, FK_MAXCUTS, rw, &hw, &kw);
		}
	}
	free(b);
	return 0;
}
