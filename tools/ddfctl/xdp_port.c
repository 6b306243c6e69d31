// SPDX-License-Identifier: GPL-2.0
/*
 * What runs at a device's XDP hook: nothing, one program attached alone
 * (ddf's with `exclusive`, or another tool's), or libxdp's dispatcher,
 * which runs its components in the order of their run priorities. ddf's
 * program is found by its name, in either place; the rule it judges by is
 * the number in its read-only data.
 */
#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <linux/magic.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>

#include "ddfctl.h"
#include "ddf_xdp.skel.h"

/* the program name of libxdp's dispatcher (xdp-dispatcher.o) */
#define DISPATCHER_NAME "xdp_dispatcher"

/* the libraries' warnings of a query are not ddfctl's: what fails is said so */
static int quiet(enum libxdp_print_level level, const char *fmt, va_list ap)
{
	return 0;
}

static int bpf_quiet(enum libbpf_print_level level, const char *fmt,
		     va_list ap)
{
	return 0;
}

static int prog_name(uint32_t id, char *name, size_t size)
{
	struct bpf_prog_info info;
	uint32_t len = sizeof(info);
	int fd = bpf_prog_get_fd_by_id(id), err;

	if (fd < 0)
		return -1;
	memset(&info, 0, sizeof(info));
	err = bpf_obj_get_info_by_fd(fd, &info, &len);
	close(fd);
	if (err)
		return -1;
	snprintf(name, size, "%s", info.name);
	return 0;
}

uint32_t xdp_prog_rule(uint32_t prog_id)
{
	struct bpf_prog_info info;
	uint32_t len = sizeof(info), maps[4], n, rule = 0;
	int fd = bpf_prog_get_fd_by_id(prog_id);

	if (fd < 0)
		return 0;
	memset(&info, 0, sizeof(info));
	info.nr_map_ids = 4;
	info.map_ids = (uint64_t)(unsigned long)maps;
	n = bpf_obj_get_info_by_fd(fd, &info, &len) ? 0 : info.nr_map_ids;
	close(fd);
	for (uint32_t i = 0; i < n && i < 4 && !rule; i++) {
		struct bpf_map_info mi;
		uint32_t mlen = sizeof(mi), key = 0;
		struct ddf_xdp__rodata ro;
		int mfd = bpf_map_get_fd_by_id(maps[i]);

		if (mfd < 0)
			continue;
		memset(&mi, 0, sizeof(mi));
		if (!bpf_obj_get_info_by_fd(mfd, &mi, &mlen) &&
		    strstr(mi.name, ".rodata") && mi.value_size >= sizeof(ro) &&
		    mi.value_size <= 64) {
			char v[64];

			if (!bpf_map_lookup_elem(mfd, &key, v)) {
				memcpy(&ro, v, sizeof(ro));
				rule = ro.ddf_rule_id;
			}
		}
		close(mfd);
	}
	return rule;
}

/* the dispatcher's components into p: ddf's apart, the others listed */
static void read_dispatcher(int ifindex, struct xdp_port *p)
{
	struct xdp_multiprog *mp;
	struct xdp_program *prog = NULL;
	libxdp_print_fn_t old;

	p->dispatcher = true;
	/* its programs are found by their pins: none without the file system */
	if (!xdp_bpffs_here()) {
		p->unreadable = true;
		return;
	}
	old = libxdp_set_print(quiet);
	mp = xdp_multiprog__get_from_ifindex(ifindex);
	libxdp_set_print(old);
	/* a dispatcher libxdp takes for a lone program: its pins are gone */
	if (libxdp_get_error(mp) || !mp || xdp_multiprog__is_legacy(mp)) {
		if (!libxdp_get_error(mp))
			xdp_multiprog__close(mp);
		p->unreadable = true;
		return;
	}
	p->frags = xdp_multiprog__xdp_frags_support(mp);
	while ((prog = xdp_multiprog__next_prog(prog, mp))) {
		struct xdp_comp *c;

		if (xdp_is_ddf(xdp_program__name(prog)) && !p->ddf_id) {
			p->ddf_id = xdp_program__id(prog);
			p->ddf_prio = (int)xdp_program__run_prio(prog);
			continue;
		}
		if (p->nothers >= XDP_OTHERS_MAX)
			continue;
		c = &p->others[p->nothers++];
		c->id = xdp_program__id(prog);
		c->prio = (int)xdp_program__run_prio(prog);
		c->frags = xdp_program__xdp_frags_support(prog);
		snprintf(c->name, sizeof(c->name), "%s", xdp_program__name(prog));
	}
	xdp_multiprog__close(mp);
}

int xdp_port_read(int ifindex, struct xdp_port *p)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	libbpf_print_fn_t old;
	uint32_t id;
	int err;

	memset(p, 0, sizeof(*p));
	p->ddf_prio = -1;
	/* quiet for the query alone: later messages (a load's) are heard */
	old = libbpf_set_print(bpf_quiet);
	err = bpf_xdp_query(ifindex, 0, &q);
	libbpf_set_print(old);
	if (err)
		return -1;
	id = q.drv_prog_id ? q.drv_prog_id : q.skb_prog_id;
	if (!id)
		return 0;
	p->mode = q.drv_prog_id ? 1 : 2;
	p->main_id = id;
	if (prog_name(id, p->main_name, sizeof(p->main_name)))
		return 0; /* gone since the query */
	if (xdp_is_ddf(p->main_name))
		p->ddf_id = id; /* attached alone: exclusive */
	else if (!strcmp(p->main_name, DISPATCHER_NAME))
		read_dispatcher(ifindex, p);
	return 0;
}

bool xdp_bpffs_here(void)
{
	struct statfs st;

	return !statfs("/sys/fs/bpf", &st) && st.f_type == BPF_FS_MAGIC;
}

int xdp_unreadable(const char *what, const char *dev, const struct xdp_port *p)
{
	if (!xdp_bpffs_here())
		return ddfctl_err("%s: %s has libxdp's dispatcher (id %u), whose programs are pinned in the BPF file system, and none is mounted at /sys/fs/bpf here (%s)",
				  what, dev, p->main_id, XDP_BPFFS_HINT);
	return ddfctl_err("%s: %s has libxdp's dispatcher (id %u), which this libxdp cannot read (another version's, or its pins in /sys/fs/bpf/xdp removed)",
			  what, dev, p->main_id);
}

bool xdp_is_ddf(const char *name)
{
	size_t n = strlen(XDP_PROG_NAME);

	return !strncmp(name, XDP_PROG_NAME, n) &&
	       (!name[n] || name[n] == '_');
}

const char *xdp_mode_word(int mode)
{
	return mode == 2 ? "generic" : "native";
}
