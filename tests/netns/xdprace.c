// SPDX-License-Identifier: GPL-2.0
/*
 * A race made to order (LD_PRELOAD, tests/netns/xdpshare.sh): the first
 * bpf_xdp_detach() of the process first attaches another XDP program to
 * that device in that mode, in place of whatever is there, as another
 * tool could between a look at the device and the detach. The other
 * program, xdprace_other, passes every frame. Then the detach goes on as
 * asked.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

typedef int (*detach_fn)(int ifindex, __u32 flags,
			 const struct bpf_xdp_attach_opts *opts);

/* the other program, attached to ifindex in the mode of flags */
static void other_in_place(int ifindex, __u32 flags)
{
	const struct bpf_insn pass[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0,
		  .imm = XDP_PASS },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int fd = bpf_prog_load(BPF_PROG_TYPE_XDP, "xdprace_other", "GPL",
			       pass, 2, NULL);
	int err = fd < 0 ? fd :
		  bpf_xdp_attach(ifindex, fd,
				 flags & (XDP_FLAGS_SKB_MODE |
					  XDP_FLAGS_DRV_MODE), NULL);

	fprintf(stderr, "xdprace: xdprace_other attached to ifindex %d before the detach: %s\n",
		ifindex, err ? strerror(-err) : "ok");
	if (fd >= 0)
		close(fd); /* the device holds it */
}

int bpf_xdp_detach(int ifindex, __u32 flags,
		   const struct bpf_xdp_attach_opts *opts)
{
	static bool raced;
	detach_fn real = (detach_fn)dlsym(RTLD_NEXT, "bpf_xdp_detach");

	if (!real)
		return -ENOENT;
	if (!raced) {
		raced = true;
		other_in_place(ifindex, flags);
	}
	return real(ifindex, flags, opts);
}
