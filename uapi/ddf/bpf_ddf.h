/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * For BPF programs that ask a ddf rule about a frame: the kfunc nf_ddf
 * gives XDP programs. Its contract (arguments, verdicts, errors, program
 * types) is in ddf-xdp(7); the verdicts are enum ddf_xdp_verdict of
 * <linux/ddf.h>.
 *
 * Include it after <linux/bpf.h> and <bpf/bpf_helpers.h> and build with
 * clang -target bpf -g: libbpf finds the kfunc in nf_ddf's BTF by the
 * name and the type this declaration leaves in the object's BTF.
 */
#ifndef _DDF_BPF_DDF_H
#define _DDF_BPF_DDF_H

#include <linux/types.h>
#include <linux/ddf.h>

/* as libbpf's bpf_helpers.h spells it, for programs built without it */
#ifndef __ksym
#define __ksym __attribute__((section(".ksyms")))
#endif

struct xdp_md;

/*
 * Judge the frame of ctx by the rule numbered rule_id (DDF_A_ID) and
 * count it there: an enum ddf_xdp_verdict, or -ENOENT (no such rule in
 * the namespace of the frame's device), or -EINVAL (not a rule of family
 * netdev and hook none).
 */
extern int bpf_ddf_xdp(struct xdp_md *ctx, __u32 rule_id) __ksym;

#endif /* _DDF_BPF_DDF_H */
