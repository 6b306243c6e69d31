/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The few members of the kernel's skb_shared_info and skb_frag_t that
 * nf_ddf_xdp_frame.h reads, for the fuzz target that builds it in
 * userspace (fuzz_xdp.c); the accessors keep the kernel's meaning.
 */
#ifndef DDF_SHIM_LINUX_SKBUFF_H
#define DDF_SHIM_LINUX_SKBUFF_H

#include <stdbool.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint32_t u32;

#define MAX_SKB_FRAGS 17

typedef struct {
	void *addr; /* NULL: memory the CPU cannot read (a net_iov) */
	u32 len;
} skb_frag_t;

struct skb_shared_info {
	u8 nr_frags;
	u32 xdp_frags_size; /* the fragments' bytes */
	skb_frag_t frags[MAX_SKB_FRAGS];
};

static inline u32 skb_frag_size(const skb_frag_t *frag)
{
	return frag->len;
}

static inline void *skb_frag_address(const skb_frag_t *frag)
{
	return frag->addr;
}

#endif /* DDF_SHIM_LINUX_SKBUFF_H */
