// SPDX-License-Identifier: GPL-2.0
/*
 * An XDP program of one's own that asks a ddf rule about some of a port's
 * frames only: UDP datagrams to port 4789 (VXLAN) over IPv4 or IPv6,
 * behind at most one VLAN tag. A copy the rule says to drop is dropped;
 * every other frame passes untouched (to the next program, behind libxdp's
 * dispatcher), and so does every frame the rule cannot judge: no rule of
 * that number (not set yet, deleted) or a rule of another kind.
 *
 * The rule's number ("id" of ddfctl -j show) is read from the array map
 * vxlan_rule, pinned by name: xdp-loader load --pin-path DIR puts it at
 * DIR/vxlan_rule, where bpftool map update writes it. vxlan_last holds
 * what the kfunc last returned (a verdict, or -ENOENT, -EINVAL), for
 * bpftool map dump. See README and ddf-xdp(7).
 *
 * GPL: kfuncs are for GPL programs only.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include <ddf/bpf_ddf.h>

#define VXLAN_PORT 4789

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} vxlan_rule SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __s32);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} vxlan_last SEC(".maps");

struct vlan_tag {
	__be16 tci;
	__be16 proto;
};

/* Is the frame a UDP datagram to VXLAN_PORT? */
static __always_inline int is_vxlan(struct xdp_md *ctx)
{
	void *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = (void *)(long)ctx->data;
	struct udphdr *udp;
	__be16 proto;
	void *l3;

	if ((void *)(eth + 1) > end)
		return 0;
	proto = eth->h_proto;
	l3 = eth + 1;
	if (proto == bpf_htons(ETH_P_8021Q) ||
	    proto == bpf_htons(ETH_P_8021AD)) {
		struct vlan_tag *tag = l3;

		if ((void *)(tag + 1) > end)
			return 0;
		proto = tag->proto;
		l3 = tag + 1;
	}
	if (proto == bpf_htons(ETH_P_IP)) {
		struct iphdr *ip = l3;

		if ((void *)(ip + 1) > end || ip->ihl < 5 ||
		    ip->protocol != IPPROTO_UDP)
			return 0;
		/* a fragment but the first has no UDP header */
		if (ip->frag_off & bpf_htons(0x1fff))
			return 0;
		udp = l3 + ip->ihl * 4;
	} else if (proto == bpf_htons(ETH_P_IPV6)) {
		struct ipv6hdr *ip6 = l3;

		/* extension headers are not walked: such a frame passes */
		if ((void *)(ip6 + 1) > end || ip6->nexthdr != IPPROTO_UDP)
			return 0;
		udp = (void *)(ip6 + 1);
	} else {
		return 0;
	}
	if ((void *)(udp + 1) > end)
		return 0;
	return udp->dest == bpf_htons(VXLAN_PORT);
}

/*
 * "xdp.frags": the program takes multi-buffer frames (jumbo frames); it
 * reads only the headers, in the frame's first buffer, and the kfunc keys
 * the whole frame.
 */
SEC("xdp.frags")
int ddf_vxlan(struct xdp_md *ctx)
{
	__u32 zero = 0, *rule;
	__s32 *last;
	int v;

	if (!is_vxlan(ctx))
		return XDP_PASS;
	rule = bpf_map_lookup_elem(&vxlan_rule, &zero);
	if (!rule)
		return XDP_PASS;
	v = bpf_ddf_xdp(ctx, *rule);
	/* written when it changes: a shared line stays in every CPU's cache */
	last = bpf_map_lookup_elem(&vxlan_last, &zero);
	if (last && *last != v)
		*last = v;
	return v == DDF_XDP_DROP ? XDP_DROP : XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
