// SPDX-License-Identifier: GPL-2.0
/*
 * The XDP program `ddfctl xdp attach` loads (built into ddfctl as a
 * skeleton): every frame goes to nf_ddf's kfunc with the number of the
 * rule it was loaded for, and a duplicate is dropped, or passed with the
 * rule's mark in 4 bytes of XDP metadata (action mark), or passed (action
 * count). Whatever the kfunc cannot judge passes: a rule deleted under the
 * program, say. GPL: kfuncs are for GPL programs only.
 *
 * "xdp.frags": libbpf loads it with BPF_F_XDP_HAS_FRAGS, which tells the
 * driver it takes multi-buffer frames, so a device with jumbo frames (veth
 * and most drivers refuse a program without it above a page's MTU) runs
 * it natively; the kfunc keys such a frame whole. The program itself
 * touches only the linear part (the metadata in front of it).
 *
 * Two programs, as a rule's action needs: ddf_xdp writes the metadata of
 * action mark, which changes the packet's data; ddf_xdp_judge (drop and
 * count) does not. A kernel may refuse a program behind libxdp's
 * dispatcher that changes packet data where the dispatcher's slot does
 * not (6.12 does, with libxdp 1.3's dispatcher), so only rules of action
 * mark need ddf_xdp.
 *
 * ddfctl knows its programs by ddf_owner, a value it writes into their
 * read-only data before the load, not by their names: another program
 * may have any name, this one's included, and even one built from this
 * file has 0 there.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include <ddf/bpf_ddf.h>

/* set by ddfctl before the load: the rule's DDF_A_ID, its mark, its owner */
const volatile __u32 ddf_rule_id;
const volatile __u32 ddf_mark;
const volatile __u64 ddf_owner;

SEC("xdp.frags")
int ddf_xdp(struct xdp_md *ctx)
{
	int v = bpf_ddf_xdp(ctx, ddf_rule_id);
	__u32 *meta;

	if (v == DDF_XDP_DROP)
		return XDP_DROP;
	if (v == DDF_XDP_MARK &&
	    !bpf_xdp_adjust_meta(ctx, -(int)sizeof(__u32))) {
		meta = (void *)(long)ctx->data_meta;
		if ((void *)(meta + 1) <= (void *)(long)ctx->data)
			*meta = ddf_mark;
	}
	return XDP_PASS;
}

SEC("xdp.frags")
int ddf_xdp_judge(struct xdp_md *ctx)
{
	return bpf_ddf_xdp(ctx, ddf_rule_id) == DDF_XDP_DROP ? XDP_DROP :
							      XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
