/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The core's packet reader over an XDP buffer. A multi-buffer frame (XDP
 * frags: a jumbo frame on most drivers) is its linear part followed by
 * the page fragments in its skb_shared_info; it is read through
 * ddf_key_segs.h, piece by piece, so the key sees the whole frame, as the
 * skb of the same frame at netdev ingress shows it (nf_ddf_skb.h), and
 * never a byte past xdp_get_buff_len(). A linear frame is read in place.
 */
#ifndef NF_DDF_XDP_FRAME_H
#define NF_DDF_XDP_FRAME_H

#include <linux/skbuff.h>
#include <net/xdp.h>

#include "ddf_key.h"
#include "ddf_key_segs.h"

/* Piece i of an XDP buffer: 0 the linear part, then its fragments. */
static inline const u8 *nf_ddf_xdp_seg(void *pkt, u32 i, u32 *len)
{
	struct xdp_buff *xdp = pkt;
	const struct skb_shared_info *sinfo;
	const skb_frag_t *frag;

	if (!i) {
		*len = xdp->data_end - xdp->data;
		return xdp->data;
	}
	sinfo = xdp_get_shared_info_from_buff(xdp);
	if (i > sinfo->nr_frags)
		return NULL;
	frag = &sinfo->frags[i - 1];
	*len = skb_frag_size(frag);
	/* NULL for memory the CPU cannot read (6.12: net_iov) */
	return skb_frag_address(frag);
}

/*
 * Hash the frame in xdp under spec, as ddf_key_hash_link() over lk (what
 * the device says is in front of the packet), with the whole frame's
 * length.
 */
static inline int nf_ddf_xdp_hash(const struct ddf_key_spec *spec,
				  const struct ddf_key_link *lk,
				  struct xdp_buff *xdp,
				  const struct ddf_key_secret *key, u32 hashfn,
				  struct ddf_hash *out,
				  struct ddf_key_info *info)
{
	u32 len = xdp_get_buff_len(xdp);
	struct ddf_key_segs segs;
	struct ddf_key_flat flat;

	if (!xdp_buff_has_frags(xdp)) {
		flat.data = xdp->data;
		flat.len = len;
		return ddf_key_hash_link(spec, lk, NULL, &flat, len, key,
					 hashfn, out, info);
	}
	ddf_key_segs_init(&segs, nf_ddf_xdp_seg, xdp, len);
	return ddf_key_hash_link(spec, lk, ddf_key_read_segs, &segs, len, key,
				 hashfn, out, info);
}

#endif /* NF_DDF_XDP_FRAME_H */
