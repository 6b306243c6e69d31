/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The xdp_buff of the kernel as nf_ddf_xdp_frame.h reads it, for
 * fuzz_xdp.c: the linear part, the frags flag, and the shared info,
 * which the kernel keeps at the end of the buffer and the shim beside it.
 */
#ifndef DDF_SHIM_NET_XDP_H
#define DDF_SHIM_NET_XDP_H

#include <linux/skbuff.h>

#define XDP_FLAGS_HAS_FRAGS (1u << 0)

struct xdp_buff {
	void *data, *data_end;
	u32 flags;
	struct skb_shared_info *sinfo;
};

static inline bool xdp_buff_has_frags(const struct xdp_buff *xdp)
{
	return xdp->flags & XDP_FLAGS_HAS_FRAGS;
}

static inline struct skb_shared_info *
xdp_get_shared_info_from_buff(const struct xdp_buff *xdp)
{
	return xdp->sinfo;
}

/* as the kernel's: the linear part, and the fragments' bytes if any */
static inline u32 xdp_get_buff_len(const struct xdp_buff *xdp)
{
	u32 len = (u32)((const u8 *)xdp->data_end - (const u8 *)xdp->data);

	if (xdp_buff_has_frags(xdp))
		len += xdp->sinfo->xdp_frags_size;
	return len;
}

#endif /* DDF_SHIM_NET_XDP_H */
