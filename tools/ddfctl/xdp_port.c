// SPDX-License-Identifier: GPL-2.0
/*
 * What runs at a device's XDP hook: nothing, one program attached alone
 * (ddf's with `exclusive`, or another tool's), or libxdp's dispatcher,
 * which runs its components in the order of their run priorities.
 *
 * All of it is asked of the kernel, not of the pins libxdp keeps in the
 * BPF file system, which a process in another mount namespace (ip netns
 * exec) does not see: the dispatcher's components are the extension
 * programs whose links target it, each replacing one of its slots (the
 * functions prog0, prog1, ... of its BTF), and the slots' run priorities
 * are in its read-only configuration. Where the kernel cannot tell (a
 * dispatcher of a layout we do not know, slots left without programs once
 * the pins that held their links were removed, BPF refusing to describe
 * a program), the port is unreadable, and what would act on it says so.
 *
 * ddf's program is known by the owner mark ddfctl writes into its
 * read-only data before the load (XDP_OWNER), not by its name, which any
 * program may carry; the rule it judges by is the number beside the mark.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <linux/magic.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <xdp/prog_dispatcher.h>

#include "ddfctl.h"
#include "ddf_xdp.skel.h"

/* the program name of libxdp's dispatcher (xdp-dispatcher.o) */
#define DISPATCHER_NAME "xdp_dispatcher"
#define PROG_MAPS 8 /* the maps of a program we look at: ddf's has one */

/* libbpf's warnings of a query are not ddfctl's: what fails is said so */
static int bpf_quiet(enum libbpf_print_level level, const char *fmt,
		     va_list ap)
{
	return 0;
}

/* id's info and up to PROG_MAPS of its maps' ids; -errno (-ENOENT: gone) */
static int prog_info(uint32_t id, struct bpf_prog_info *info, uint32_t *maps)
{
	uint32_t len = sizeof(*info);
	int fd = bpf_prog_get_fd_by_id(id), err = 0;

	if (fd < 0)
		return -errno;
	memset(info, 0, sizeof(*info));
	info->nr_map_ids = PROG_MAPS;
	info->map_ids = (uint64_t)(unsigned long)maps;
	if (bpf_obj_get_info_by_fd(fd, info, &len))
		err = -errno;
	close(fd);
	if (info->nr_map_ids > PROG_MAPS)
		info->nr_map_ids = PROG_MAPS;
	return err;
}

/*
 * The value of the program's read-only data (libbpf's ".rodata" map: one
 * entry, read-only to the program) when it is size bytes: 1, else 0 (no
 * such map), or -errno.
 */
static int prog_rodata(const struct bpf_prog_info *info, const uint32_t *maps,
		       void *val, uint32_t size)
{
	for (uint32_t i = 0; i < info->nr_map_ids; i++) {
		struct bpf_map_info mi;
		uint32_t len = sizeof(mi), key = 0;
		const char *dot;
		int fd = bpf_map_get_fd_by_id(maps[i]), err = 0, found = 0;

		if (fd < 0) {
			if (errno == ENOENT)
				continue;
			return -errno;
		}
		memset(&mi, 0, sizeof(mi));
		if (bpf_obj_get_info_by_fd(fd, &mi, &len)) {
			err = -errno;
		} else {
			dot = strchr(mi.name, '.');
			found = dot && !strcmp(dot, ".rodata") &&
				mi.type == BPF_MAP_TYPE_ARRAY &&
				mi.max_entries == 1 && mi.key_size == 4 &&
				mi.value_size == size &&
				(mi.map_flags & BPF_F_RDONLY_PROG);
			if (found && bpf_map_lookup_elem(fd, &key, val))
				err = -errno;
		}
		close(fd);
		if (err)
			return err;
		if (found)
			return 1;
	}
	return 0;
}

/* 1 when the program is ddf's (its rule's number in *rule), 0 if not, -errno */
static int ddf_mark(uint32_t id, uint32_t *rule)
{
	struct ddf_xdp__rodata ro;
	struct bpf_prog_info info;
	uint32_t maps[PROG_MAPS];
	int err = prog_info(id, &info, maps);

	if (!err)
		err = prog_rodata(&info, maps, &ro, sizeof(ro));
	if (err == -ENOENT)
		return 0; /* gone since it was named */
	if (err <= 0)
		return err;
	if (ro.ddf_owner != XDP_OWNER)
		return 0;
	*rule = ro.ddf_rule_id;
	return 1;
}

/* The dispatcher's slot that the BTF function btf_id is, or -1. */
static int slot_of(const struct btf *btf, uint32_t btf_id)
{
	const struct btf_type *t = btf__type_by_id(btf, btf_id);
	const char *name = t ? btf__name_by_offset(btf, t->name_off) : NULL;
	unsigned int slot;
	char end;

	if (!name)
		return -1;
	/* a lone program may replace the dispatcher's function itself */
	if (!strcmp(name, DISPATCHER_NAME))
		return 0;
	if (sscanf(name, "prog%u%c", &slot, &end) != 1 ||
	    slot >= MAX_DISPATCHER_ACTIONS)
		return -1;
	return (int)slot;
}

/*
 * The programs in the dispatcher's slots, from the kernel's links: an
 * extension program replaces a slot through a tracing link whose target
 * is the dispatcher. 0, or -errno.
 */
static int slot_progs(uint32_t disp_id, const struct btf *btf, uint32_t *progs)
{
	uint32_t id = 0;
	int err;

	while (!(err = bpf_link_get_next_id(id, &id))) {
		struct bpf_link_info li;
		uint32_t len = sizeof(li);
		int fd = bpf_link_get_fd_by_id(id), slot;

		if (fd < 0) {
			if (errno == ENOENT)
				continue; /* gone meanwhile */
			return -errno;
		}
		memset(&li, 0, sizeof(li));
		err = bpf_obj_get_info_by_fd(fd, &li, &len) ? -errno : 0;
		close(fd);
		if (err)
			return err;
		if (li.type != BPF_LINK_TYPE_TRACING ||
		    li.tracing.target_obj_id != disp_id)
			continue;
		slot = slot_of(btf, li.tracing.target_btf_id);
		if (slot >= 0)
			progs[slot] = li.prog_id;
	}
	return err == -ENOENT ? 0 : err;
}

static void denied(struct xdp_port *p, int err)
{
	p->unreadable = XDP_READ_DENIED;
	p->err = -err;
}

/* one slot's program into p: ddf's apart, the others listed */
static void add_comp(struct xdp_port *p, uint32_t id,
		     const struct xdp_dispatcher_config *conf, unsigned int i)
{
	char name[16] = "";
	struct bpf_prog_info info;
	uint32_t maps[PROG_MAPS], rule;
	int ddf = ddf_mark(id, &rule);
	struct xdp_comp *c;

	if (ddf < 0) {
		denied(p, ddf);
		return;
	}
	if (ddf && !p->ddf_id) {
		p->ddf_id = id;
		p->ddf_rule = rule;
		p->ddf_prio = (int)conf->run_prios[i];
		return;
	}
	if (p->nothers >= XDP_OTHERS_MAX)
		return;
	if (!prog_info(id, &info, maps))
		snprintf(name, sizeof(name), "%s", info.name);
	c = &p->others[p->nothers++];
	c->id = id;
	c->prio = (int)conf->run_prios[i];
	c->frags = conf->program_flags[i] & BPF_F_XDP_HAS_FRAGS;
	memcpy(c->name, name, sizeof(c->name));
}

/* The dispatcher's components into p; info and maps: the dispatcher's. */
static void read_dispatcher(struct xdp_port *p,
			    const struct bpf_prog_info *info,
			    const uint32_t *maps)
{
	uint32_t progs[MAX_DISPATCHER_ACTIONS] = { 0 };
	struct xdp_dispatcher_config conf;
	struct btf *btf;
	int err;

	p->dispatcher = true;
	err = prog_rodata(info, maps, &conf, sizeof(conf));
	if (err < 0) {
		denied(p, err);
		return;
	}
	/* the layout libxdp's pins are read with: its version and magic */
	if (!err || conf.magic != XDP_DISPATCHER_MAGIC ||
	    conf.dispatcher_version != XDP_DISPATCHER_VERSION ||
	    conf.num_progs_enabled > MAX_DISPATCHER_ACTIONS || !info->btf_id) {
		p->unreadable = XDP_READ_LAYOUT;
		return;
	}
	btf = btf__load_from_kernel_by_id(info->btf_id);
	if (!btf) {
		denied(p, -errno);
		return;
	}
	err = slot_progs(p->main_id, btf, progs);
	btf__free(btf);
	if (err) {
		denied(p, err);
		return;
	}
	p->frags = conf.is_xdp_frags;
	p->slots = conf.num_progs_enabled;
	for (unsigned int i = 0; i < p->slots; i++)
		p->linked += progs[i] != 0;
	/* a slot without its program: the pins that held its link went */
	if (p->linked != p->slots) {
		p->unreadable = XDP_READ_EMPTY;
		return;
	}
	for (unsigned int i = 0; i < p->slots && !p->unreadable; i++)
		add_comp(p, progs[i], &conf, i);
}

static void read_main(struct xdp_port *p)
{
	struct bpf_prog_info info;
	uint32_t maps[PROG_MAPS], rule;
	int err = prog_info(p->main_id, &info, maps);

	if (err == -ENOENT)
		return; /* gone since the query */
	if (err) {
		denied(p, err);
		return;
	}
	snprintf(p->main_name, sizeof(p->main_name), "%s", info.name);
	err = ddf_mark(p->main_id, &rule);
	if (err < 0) {
		denied(p, err);
	} else if (err) {
		p->ddf_id = p->main_id; /* attached alone: exclusive */
		p->ddf_rule = rule;
	} else if (!strcmp(p->main_name, DISPATCHER_NAME)) {
		read_dispatcher(p, &info, maps);
	}
}

int xdp_port_read(int ifindex, struct xdp_port *p)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	libbpf_print_fn_t old;
	int err;

	memset(p, 0, sizeof(*p));
	p->ddf_prio = -1;
	old = libbpf_set_print(bpf_quiet);
	err = bpf_xdp_query(ifindex, 0, &q);
	if (!err && (q.drv_prog_id || q.skb_prog_id)) {
		p->mode = q.drv_prog_id ? 1 : 2;
		p->main_id = q.drv_prog_id ? q.drv_prog_id : q.skb_prog_id;
		read_main(p);
	}
	libbpf_set_print(old);
	if (err)
		errno = -err;
	return err ? -1 : 0;
}

bool xdp_bpffs_here(void)
{
	struct statfs st;

	return !statfs("/sys/fs/bpf", &st) && st.f_type == BPF_FS_MAGIC;
}

int xdp_unreadable(const char *what, const char *dev, const struct xdp_port *p)
{
	if (p->unreadable == XDP_READ_LAYOUT)
		return ddfctl_err("%s: %s has libxdp's dispatcher (id %u) in a layout this ddfctl does not know (another libxdp's), so whether ddf's XDP program is in it cannot be told",
				  what, dev, p->main_id);
	if (p->unreadable == XDP_READ_EMPTY)
		return ddfctl_err("%s: %s has libxdp's dispatcher (id %u) with %u program slots and %u programs in them (the pins that held them in /sys/fs/bpf/xdp were removed), so whether ddf's XDP program was one cannot be told: remove it (xdp-loader unload %s --all) and attach again",
				  what, dev, p->main_id, p->slots, p->linked,
				  dev);
	return ddfctl_err("%s: %s has the XDP program '%s' (id %u), which BPF will not describe here (%s), so whether it is ddf's cannot be told",
			  what, dev, p->main_name, p->main_id,
			  strerror(p->err));
}

const char *xdp_mode_word(int mode)
{
	return mode == 2 ? "generic" : "native";
}
