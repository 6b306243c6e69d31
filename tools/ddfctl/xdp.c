// SPDX-License-Identifier: GPL-2.0
/*
 * ddfctl xdp: attach to a device the XDP program that judges its frames by
 * a rule of family netdev and hook none (tools/xdp/ddf_xdp.bpf.c, built in
 * as a skeleton), detach it, and list where it is attached. A frame the
 * program drops is gone before the device's packet taps: a capture tool on
 * the device itself sees each packet once.
 *
 * The program is told the rule's number (DDF_A_ID) before it is loaded and
 * keeps it in its read-only data, which is how `show` finds the rule of
 * an attached program again.
 */
#include <errno.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "ddfctl.h"
#include "ddf_xdp.skel.h"

#define XDP_PROG_NAME "ddf_xdp"

static const char xdp_help[] =
	"usage: ddfctl xdp attach dev DEV rule NAME [mode native|generic]\n"
	"       ddfctl xdp detach dev DEV | all\n"
	"       ddfctl xdp [show]\n"
	"  attach  load ddf's XDP program on DEV for the rule NAME, which must be\n"
	"          of family netdev, hook none and DEV among its devices (attach\n"
	"          each device of a rule over several: one filter judges them all):\n"
	"          a duplicate is dropped before any capture on DEV sees it (action\n"
	"          drop), passed with the rule's mark in 4 bytes of XDP metadata\n"
	"          (mark), or counted only\n"
	"  mode    native: in the driver; generic: on any device, after the\n"
	"          driver; default native, else generic where the driver has none\n"
	"  detach  remove ddf's program from DEV, or from every device (all);\n"
	"          another program is left alone\n"
	"  show    the devices with ddf's program and their rules\n";

/* libbpf's messages of the load under way, kept for when it fails */
static FILE *bpf_log_out;

static int bpf_log_print(enum libbpf_print_level level, const char *fmt,
			 va_list ap)
{
	if (level == LIBBPF_DEBUG || !bpf_log_out)
		return 0;
	return vfprintf(bpf_log_out, fmt, ap);
}

/* The device's XDP program if it is ddf's: its id and mode, else 0. */
static uint32_t ddf_prog_on(int ifindex, const char **mode)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	struct bpf_prog_info info;
	uint32_t len = sizeof(info), id;
	int fd;

	if (bpf_xdp_query(ifindex, 0, &q))
		return 0;
	id = q.drv_prog_id ? q.drv_prog_id : q.skb_prog_id;
	*mode = q.drv_prog_id ? "native" : "generic";
	if (!id)
		return 0;
	fd = bpf_prog_get_fd_by_id(id);
	if (fd < 0)
		return 0;
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &len) ||
	    strcmp(info.name, XDP_PROG_NAME))
		id = 0;
	close(fd);
	return id;
}

/* The rule number a ddf program was loaded with; 0 if it cannot be read. */
static uint32_t ddf_prog_rule(uint32_t prog_id)
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

void xdp_attached(uint32_t rule_id, char *buf, size_t size)
{
	struct if_nameindex *ifs = if_nameindex(), *i;
	size_t used = 0;

	buf[0] = 0;
	if (!ifs)
		return;
	libbpf_set_print(bpf_log_print);
	for (i = ifs; i->if_index; i++) {
		const char *mode;
		uint32_t prog = ddf_prog_on((int)i->if_index, &mode);
		int n;

		if (!prog || ddf_prog_rule(prog) != rule_id)
			continue;
		n = snprintf(buf + used, size - used, " %s (%s)", i->if_name,
			     mode);
		if (n < 0 || (size_t)n >= size - used)
			break;
		used += (size_t)n;
	}
	if_freenameindex(ifs);
}

const char *xdp_mode_on(int ifindex, uint32_t rule_id)
{
	const char *mode = NULL;
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	uint32_t prog;

	libbpf_set_print(bpf_log_print);
	prog = ddf_prog_on(ifindex, &mode);
	if (prog && ddf_prog_rule(prog) == rule_id)
		return mode;
	/* not ddf's for this rule: is there any program? */
	if (!bpf_xdp_query(ifindex, 0, &q) && (q.drv_prog_id || q.skb_prog_id))
		return "other";
	return NULL;
}

int xdp_each(void (*fn)(const char *dev, uint32_t rule_id, int mode,
			void *arg),
	     void *arg)
{
	struct if_nameindex *ifs = if_nameindex(), *i;

	if (!ifs)
		return ddfctl_err("xdp: listing the devices: %s", strerror(errno));
	libbpf_set_print(bpf_log_print);
	for (i = ifs; i->if_index; i++) {
		const char *mode;
		uint32_t prog = ddf_prog_on((int)i->if_index, &mode);

		if (prog)
			fn(i->if_name, ddf_prog_rule(prog), strcmp(mode, "native") ? 2 : 1,
			   arg);
	}
	if_freenameindex(ifs);
	return 0;
}

struct rule_names {
	uint32_t id;
	char name[DDF_NAME_MAX];
};

static void find_id(const struct ddf_rule_info *ri, void *arg)
{
	struct rule_names *r = arg;

	if (ri->id == r->id)
		snprintf(r->name, sizeof(r->name), "%s", ri->rule.name);
}

void xdp_show_print(FILE *out, const struct xdp_dev *v, size_t n)
{
	for (size_t i = 0; i < n && !ddfctl_json; i++) {
		const struct xdp_dev *d = &v[i];

		if (d->rule[0])
			fprintf(out, "%s: %s rule %s (id %u)\n", d->dev, d->mode,
				d->rule, d->rule_id);
		else
			fprintf(out, "%s: %s rule id %u (gone: every frame passes; ddfctl xdp detach dev %s)\n",
				d->dev, d->mode, d->rule_id, d->dev);
	}
	if (!ddfctl_json)
		return;
	fputc('[', out);
	for (size_t i = 0; i < n; i++) {
		const struct xdp_dev *d = &v[i];

		fputs(i ? ", {\"dev\": " : "{\"dev\": ", out);
		json_str(out, d->dev);
		fprintf(out, ", \"mode\": \"%s\", \"prog_id\": %u, \"rule_id\": %u, \"rule\": ",
			d->mode, d->prog_id, d->rule_id);
		if (d->rule[0])
			json_str(out, d->rule);
		else
			fputs("null", out);
		fputc('}', out);
	}
	fputs("]\n", out);
}

static int xdp_show(void)
{
	struct if_nameindex *ifs = if_nameindex(), *i;
	struct xdp_dev *v = NULL, *nv;
	size_t n = 0;
	int err = 0;

	if (!ifs)
		return ddfctl_err("xdp show: listing the devices: %s",
				  strerror(errno));
	libbpf_set_print(bpf_log_print);
	for (i = ifs; i->if_index; i++) {
		const char *mode;
		uint32_t prog = ddf_prog_on((int)i->if_index, &mode);
		struct rule_names r = { 0 };

		if (!prog)
			continue;
		r.id = ddf_prog_rule(prog);
		if (r.id && ddfctl_fetch(NULL, find_id, &r)) {
			err = -1;
			break;
		}
		nv = realloc(v, (n + 1) * sizeof(*v));
		if (!nv) {
			err = ddfctl_err("xdp show: out of memory");
			break;
		}
		v = nv;
		snprintf(v[n].dev, sizeof(v[n].dev), "%s", i->if_name);
		v[n].mode = mode;
		v[n].prog_id = prog;
		v[n].rule_id = r.id;
		memcpy(v[n].rule, r.name, sizeof(r.name));
		n++;
	}
	if_freenameindex(ifs);
	if (!err)
		xdp_show_print(stdout, v, n);
	free(v);
	return err;
}

/* The BTF that XDP programs need to call nf_ddf, or why there is none. */
static int check_btf(void)
{
	if (access("/sys/module/nf_ddf", F_OK))
		return ddfctl_err("xdp attach: nf_ddf is not loaded (modprobe nf_ddf)");
	if (access("/sys/kernel/btf/vmlinux", F_OK))
		return ddfctl_err("xdp attach: the kernel has no BTF (CONFIG_DEBUG_INFO_BTF), so XDP programs cannot call nf_ddf");
	if (access("/sys/kernel/btf/nf_ddf", F_OK))
		return ddfctl_err("xdp attach: nf_ddf was built without BTF, so XDP programs cannot call it: rebuild it with pahole (dwarves) and resolve_btfids (see ddfctl(8), XDP)");
	return 0;
}

static void copy_rule(const struct ddf_rule_info *ri, void *arg)
{
	*(struct ddf_rule_info *)arg = *ri;
}

static int attach_prog(int ifindex, const char *dev, int fd, int mode)
{
	uint32_t base = XDP_FLAGS_UPDATE_IF_NOEXIST;
	int err;

	err = bpf_xdp_attach(ifindex, fd,
			     base | (mode == 2 ? XDP_FLAGS_SKB_MODE :
						 XDP_FLAGS_DRV_MODE), NULL);
	if (err == -EOPNOTSUPP && !mode) {
		err = bpf_xdp_attach(ifindex, fd, base | XDP_FLAGS_SKB_MODE,
				     NULL);
		if (!err)
			printf("%s: no native XDP in its driver: attached in generic mode\n",
			       dev);
	}
	if (err == -EBUSY || err == -EEXIST)
		return ddfctl_err("xdp attach: %s has an XDP program already (ddfctl xdp detach dev %s, or ip link set dev %s xdp off)",
				  dev, dev, dev);
	if (err == -EOPNOTSUPP)
		return ddfctl_err("xdp attach: %s's driver has no native XDP (mode generic works on any device)",
				  dev);
	if (err)
		return ddfctl_err("xdp attach: %s: %s", dev, strerror(-err));
	return 0;
}

static bool rule_has_dev(const struct ddf_rule_spec *r, const char *dev)
{
	for (unsigned int i = 0; i < r->ndevs; i++)
		if (!strcmp(r->devs[i], dev))
			return true;
	return false;
}

/*
 * The log is this load's own, NULL when open_memstream() fails: restore
 * and apply load once per attachment, and an earlier load's log is freed.
 */
int xdp_load(const struct ddf_rule_info *ri, struct ddf_xdp **skelp)
{
	struct ddf_xdp *skel;
	char *log = NULL;
	size_t len = 0;
	int err;

	bpf_log_out = open_memstream(&log, &len);
	libbpf_set_print(bpf_log_print);
	skel = ddf_xdp__open();
	err = skel ? 0 : -errno;
	if (!err) {
		skel->rodata->ddf_rule_id = ri->id;
		skel->rodata->ddf_mark = ri->rule.mark;
		err = ddf_xdp__load(skel);
	}
	if (bpf_log_out)
		fclose(bpf_log_out);
	bpf_log_out = NULL;
	if (err)
		ddfctl_err("xdp attach: the kernel refused ddf's XDP program (%s)%s%s",
			   strerror(-err), log && log[0] ? ":\n" : "",
			   log ? log : "");
	free(log);
	if (err) {
		ddf_xdp__destroy(skel);
		return -1;
	}
	*skelp = skel;
	return 0;
}

int xdp_attach_rule(const char *dev, const char *name, int mode)
{
	struct ddf_rule_info ri;
	struct ddf_xdp *skel;
	int ifindex, err;

	if (ddfctl_dry_run) {
		printf("xdp attach dev %s rule %s mode %s: dry run, nothing loaded\n",
		       dev, name, mode == 1 ? "native" : mode == 2 ? "generic" :
				  "native, else generic");
		return 0;
	}
	ifindex = (int)if_nametoindex(dev);
	if (!ifindex)
		return ddfctl_err("xdp attach: no device '%s' here", dev);
	memset(&ri, 0, sizeof(ri));
	if (ddfctl_fetch(name, copy_rule, &ri))
		return -1;
	if (!family_netdev(ri.rule.family) || ri.rule.hook != DDF_HOOK_NONE)
		return ddfctl_err("xdp attach: rule '%s' is family %s hook %s; XDP takes a rule of family netdev hook none (a hook would judge each frame twice)",
				  name, family_name(ri.rule.family) ?: "?",
				  hook_name(ri.rule.family, ri.rule.hook) ?: "?");
	if (!rule_has_dev(&ri.rule, dev)) {
		char list[DDF_DEVS_MAX * 16 + 1] = "";

		for (unsigned int i = 0; i < ri.rule.ndevs; i++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list),
				 "%s%s", i ? "," : "", ri.rule.devs[i]);
		return ddfctl_err("xdp attach: rule '%s' is for dev %s, not %s",
				  name, list, dev);
	}
	if (!ri.id)
		return ddfctl_err("xdp attach: the kernel reports no number for rule '%s' (nf_ddf too old?)",
				  name);
	if (check_btf())
		return -1;

	if (xdp_load(&ri, &skel))
		return -1;
	/* the device holds the program once attached */
	err = attach_prog(ifindex, dev, bpf_program__fd(skel->progs.ddf_xdp),
			  mode);
	ddf_xdp__destroy(skel);
	return err;
}

int xdp_detach_dev(const char *dev)
{
	const char *mode;
	int ifindex, err;

	if (ddfctl_dry_run) {
		printf("xdp detach dev %s: dry run, nothing removed\n", dev);
		return 0;
	}
	ifindex = (int)if_nametoindex(dev);
	if (!ifindex)
		return ddfctl_err("xdp detach: no device '%s' here", dev);
	libbpf_set_print(bpf_log_print);
	if (!ddf_prog_on(ifindex, &mode))
		return ddfctl_err("xdp detach: %s has no ddf XDP program", dev);
	err = bpf_xdp_detach(ifindex, strcmp(mode, "native") ?
					      XDP_FLAGS_SKB_MODE :
					      XDP_FLAGS_DRV_MODE, NULL);
	if (err)
		return ddfctl_err("xdp detach: %s: %s", dev, strerror(-err));
	return 0;
}

/* xdp detach all: ddf's program off every device; the others are tried on */
static void detach_one(const char *dev, uint32_t rule_id, int mode, void *arg)
{
	if (xdp_detach_dev(dev))
		(*(unsigned int *)arg)++;
}

static int xdp_detach_all(void)
{
	unsigned int failed = 0;

	if (xdp_each(detach_one, &failed))
		return -1;
	if (failed)
		return ddfctl_err("xdp detach all: %u devices kept ddf's program",
				  failed);
	return 0;
}

int parse_xdp_words(const char *what, int argc, char **argv, char *dev,
		    char *name, int *mode)
{
	*mode = 0;
	for (int i = 0; i < argc; i += 2) {
		const char *kw = argv[i], *arg = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(what, "show"))
			return ddfctl_err("xdp show: '%s' is not expected", kw);
		if (!arg)
			return ddfctl_err("xdp %s: '%s' needs a value", what,
					  kw);
		if (!strcmp(kw, "dev")) {
			if (parse_ifname("dev", arg, dev))
				return -1;
		} else if (!strcmp(kw, "rule") && !strcmp(what, "attach")) {
			if (parse_name(arg, name))
				return -1;
		} else if (!strcmp(kw, "mode") && !strcmp(what, "attach")) {
			if (!strcmp(arg, "native"))
				*mode = 1;
			else if (!strcmp(arg, "generic"))
				*mode = 2;
			else
				return ddfctl_err("xdp attach: mode '%s' is not native or generic",
						  arg);
		} else {
			return ddfctl_err("xdp %s: '%s' is not expected (ddfctl xdp --help)",
					  what, kw);
		}
	}
	if (strcmp(what, "show") && !dev[0])
		return ddfctl_err("xdp %s: needs dev DEV", what);
	if (!strcmp(what, "attach") && !name[0])
		return ddfctl_err("xdp attach: needs rule NAME");
	return 0;
}

int cmd_xdp(int argc, char **argv)
{
	const char *what = argc ? argv[0] : "show";
	char dev[16] = "", name[DDF_NAME_MAX] = "";
	int mode; /* 0: native, else generic; 1: native; 2: generic */

	if (!strcmp(what, "--help") || !strcmp(what, "help")) {
		fputs(xdp_help, stdout);
		return 0;
	}
	if (strcmp(what, "attach") && strcmp(what, "detach") &&
	    strcmp(what, "show"))
		return ddfctl_err("xdp: '%s' is not attach, detach or show (ddfctl xdp --help)",
				  what);
	if (!strcmp(what, "detach") && argc == 2 && !strcmp(argv[1], "all")) {
		if (ddfctl_dry_run) {
			printf("xdp detach all: dry run, nothing removed\n");
			return 0;
		}
		return xdp_detach_all();
	}
	if (argc && parse_xdp_words(what, argc - 1, argv + 1, dev, name, &mode))
		return -1;
	if (!strcmp(what, "show"))
		return xdp_show();
	if (!strcmp(what, "detach"))
		return xdp_detach_dev(dev);
	return xdp_attach_rule(dev, name, mode);
}
