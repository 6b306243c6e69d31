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

#include "ddfctl.h"

static const char xdp_help[] =
	"usage: ddfctl xdp attach dev DEV rule NAME [mode native|generic]\n"
	"                         [priority N | exclusive]\n"
	"       ddfctl xdp detach dev DEV | all\n"
	"       ddfctl xdp [show]\n"
	"  attach    load ddf's XDP program on DEV for the rule NAME, which must be\n"
	"            of family netdev, hook none and DEV among its devices (attach\n"
	"            each device of a rule over several: one filter judges them all):\n"
	"            a duplicate is dropped before any capture on DEV sees it (action\n"
	"            drop), passed with the rule's mark in 4 bytes of XDP metadata\n"
	"            (mark), or counted only\n"
	"  priority  ddf's program joins libxdp's dispatcher, which runs the XDP\n"
	"            programs of a port (xdp-loader's, xdp-filter, AF_XDP sockets)\n"
	"            by priority, lowest first: what ddf passes goes on to the next,\n"
	"            what it drops stops there; default %d, before xdp-filter (10),\n"
	"            libxdp's AF_XDP program (20) and its default (50)\n"
	"  exclusive attach it alone, without libxdp: nothing else can run there\n"
	"  mode      native: in the driver; generic: on any device, after the\n"
	"            driver; default native, else generic where the driver has none,\n"
	"            or the mode of the programs already on DEV\n"
	"  detach    remove ddf's program from DEV, or from every device (all);\n"
	"            the other programs stay\n"
	"  show      the devices with ddf's program, their rules, and the other\n"
	"            programs beside it\n";

/* The device's program of ddf: its id, mode and priority, else 0. */
static uint32_t ddf_prog_on(int ifindex, struct xdp_port *p)
{
	if (xdp_port_read(ifindex, p))
		return 0;
	return p->ddf_id;
}

static void how_of(const struct xdp_port *p, struct xdp_how *how)
{
	how->mode = p->mode;
	how->prio = p->ddf_id == p->main_id ? -1 : p->ddf_prio;
	how->exclusive = p->ddf_id == p->main_id;
}

void xdp_attached(uint32_t rule_id, char *buf, size_t size)
{
	struct if_nameindex *ifs = if_nameindex(), *i;
	size_t used = 0;

	buf[0] = 0;
	if (!ifs)
		return;
	for (i = ifs; i->if_index; i++) {
		struct xdp_port p;
		uint32_t prog = ddf_prog_on((int)i->if_index, &p);
		char how[32];
		int n;

		if (!prog || p.ddf_rule != rule_id)
			continue;
		if (prog == p.main_id)
			snprintf(how, sizeof(how), "exclusive");
		else
			snprintf(how, sizeof(how), "priority %d", p.ddf_prio);
		n = snprintf(buf + used, size - used, " %s (%s, %s)", i->if_name,
			     xdp_mode_word(p.mode), how);
		if (n < 0 || (size_t)n >= size - used)
			break;
		used += (size_t)n;
	}
	if_freenameindex(ifs);
}

const char *xdp_mode_on(int ifindex, uint32_t rule_id)
{
	struct xdp_port p;
	uint32_t prog = ddf_prog_on(ifindex, &p);

	if (prog && p.ddf_rule == rule_id)
		return xdp_mode_word(p.mode);
	/* not ddf's for this rule: is there any program? */
	return p.main_id ? "other" : NULL;
}

int xdp_each(const char *what,
	     void (*fn)(const char *dev, uint32_t rule_id,
			const struct xdp_how *how, void *arg),
	     void *arg)
{
	struct if_nameindex *ifs = if_nameindex(), *i;
	int err = 0;

	if (!ifs)
		return ddfctl_err("%s: listing the devices: %s", what,
				  strerror(errno));
	for (i = ifs; i->if_index; i++) {
		struct xdp_port p;
		uint32_t prog = ddf_prog_on((int)i->if_index, &p);
		struct xdp_how how;

		/* what cannot be told is never taken for "no ddf program" */
		if (p.unreadable) {
			err = xdp_unreadable(what, i->if_name, &p);
			continue;
		}
		if (!prog)
			continue;
		how_of(&p, &how);
		fn(i->if_name, p.ddf_rule, &how, arg);
	}
	if_freenameindex(ifs);
	return err;
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

static void print_others(FILE *out, const struct xdp_dev *d)
{
	for (size_t j = 0; j < d->nothers; j++) {
		const struct xdp_comp *c = &d->others[j];

		if (!ddfctl_json) {
			fprintf(out, "  beside: %s (id %u) priority %d\n", c->name,
				c->id, c->prio);
			continue;
		}
		fputs(j ? ", {\"name\": " : "{\"name\": ", out);
		json_str(out, c->name);
		fprintf(out, ", \"prog_id\": %u, \"priority\": %d}", c->id,
			c->prio);
	}
}

void xdp_show_print(FILE *out, const struct xdp_dev *v, size_t n)
{
	for (size_t i = 0; i < n && !ddfctl_json; i++) {
		const struct xdp_dev *d = &v[i];
		char how[24];

		if (d->prio < 0)
			snprintf(how, sizeof(how), "exclusive");
		else
			snprintf(how, sizeof(how), "priority %d", d->prio);
		if (d->rule[0])
			fprintf(out, "%s: %s rule %s (id %u) %s\n", d->dev,
				d->mode, d->rule, d->rule_id, how);
		else
			fprintf(out, "%s: %s rule id %u %s (gone: every frame passes; ddfctl xdp detach dev %s)\n",
				d->dev, d->mode, d->rule_id, how, d->dev);
		print_others(out, d);
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
		if (d->prio < 0)
			fputs(", \"priority\": null, \"exclusive\": true", out);
		else
			fprintf(out, ", \"priority\": %d, \"exclusive\": false",
				d->prio);
		fputs(", \"beside\": [", out);
		print_others(out, d);
		fputs("]}", out);
	}
	fputs("]\n", out);
}

static int xdp_show(void)
{
	struct if_nameindex *ifs = if_nameindex(), *i;
	struct xdp_dev *v = NULL, *nv;
	size_t n = 0, unread = 0;
	int err = 0;

	if (!ifs)
		return ddfctl_err("xdp show: listing the devices: %s",
				  strerror(errno));
	for (i = ifs; i->if_index; i++) {
		struct xdp_port p;
		uint32_t prog = ddf_prog_on((int)i->if_index, &p);
		struct rule_names r = { 0 };

		/* said after the list, which has the others */
		if (p.unreadable)
			unread++;
		if (!prog || p.unreadable)
			continue;
		r.id = p.ddf_rule;
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
		memset(&v[n], 0, sizeof(v[n]));
		snprintf(v[n].dev, sizeof(v[n].dev), "%s", i->if_name);
		v[n].mode = xdp_mode_word(p.mode);
		v[n].prog_id = prog;
		v[n].rule_id = r.id;
		v[n].prio = prog == p.main_id ? -1 : p.ddf_prio;
		v[n].nothers = p.nothers;
		memcpy(v[n].others, p.others, sizeof(p.others));
		memcpy(v[n].rule, r.name, sizeof(r.name));
		n++;
	}
	if (!err)
		xdp_show_print(stdout, v, n);
	free(v);
	/* each device whose programs cannot be told, after those that can */
	for (i = ifs; !err && unread && i->if_index; i++) {
		struct xdp_port p;

		if (!xdp_port_read((int)i->if_index, &p) && p.unreadable)
			xdp_unreadable("xdp show", i->if_name, &p);
	}
	if_freenameindex(ifs);
	return err ? err : unread ? -1 : 0;
}

/* xdp detach all: ddf's program off every device; the others are tried on */
static void detach_one(const char *dev, uint32_t rule_id,
		       const struct xdp_how *how, void *arg)
{
	if (xdp_detach_dev(dev))
		(*(unsigned int *)arg)++;
}

static int xdp_detach_all(void)
{
	unsigned int failed = 0;
	/* a device whose programs cannot be told is said, the others detached */
	int err = xdp_each("xdp detach all", detach_one, &failed);

	if (failed)
		return ddfctl_err("xdp detach all: %u devices kept ddf's program",
				  failed);
	return err;
}

/* priority N: libxdp's run priorities are unsigned; a dispatcher sorts them */
static int parse_prio(const char *arg, int *prio)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < 0 || v > XDP_PRIO_MAX)
		return ddfctl_err("xdp attach: priority '%s' is not a number from 0 to %d",
				  arg, XDP_PRIO_MAX);
	*prio = (int)v;
	return 0;
}

int parse_xdp_words(const char *what, int argc, char **argv, char *dev,
		    char *name, struct xdp_how *how)
{
	bool attach = !strcmp(what, "attach");

	memset(how, 0, sizeof(*how));
	how->prio = -1;
	for (int i = 0; i < argc; i += 2) {
		const char *kw = argv[i], *arg = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(what, "show"))
			return ddfctl_err("xdp show: '%s' is not expected", kw);
		if (attach && !strcmp(kw, "exclusive")) {
			how->exclusive = true;
			i--; /* a word alone */
			continue;
		}
		if (!arg)
			return ddfctl_err("xdp %s: '%s' needs a value", what,
					  kw);
		if (!strcmp(kw, "dev")) {
			if (parse_ifname("dev", arg, dev))
				return -1;
		} else if (!strcmp(kw, "rule") && attach) {
			if (parse_name(arg, name))
				return -1;
		} else if (!strcmp(kw, "mode") && attach) {
			if (!strcmp(arg, "native"))
				how->mode = 1;
			else if (!strcmp(arg, "generic"))
				how->mode = 2;
			else
				return ddfctl_err("xdp attach: mode '%s' is not native or generic",
						  arg);
		} else if (!strcmp(kw, "priority") && attach) {
			if (parse_prio(arg, &how->prio))
				return -1;
		} else {
			return ddfctl_err("xdp %s: '%s' is not expected (ddfctl xdp --help)",
					  what, kw);
		}
	}
	if (how->exclusive && how->prio >= 0)
		return ddfctl_err("xdp attach: priority orders the programs that share a port, exclusive shares none: give one or the other");
	if (strcmp(what, "show") && !dev[0])
		return ddfctl_err("xdp %s: needs dev DEV", what);
	if (attach && !name[0])
		return ddfctl_err("xdp attach: needs rule NAME");
	return 0;
}

int cmd_xdp(int argc, char **argv)
{
	const char *what = argc ? argv[0] : "show";
	char dev[16] = "", name[DDF_NAME_MAX] = "";
	struct xdp_how how;

	if (!strcmp(what, "--help") || !strcmp(what, "help")) {
		printf(xdp_help, XDP_PRIO_DEFAULT);
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
	if (argc && parse_xdp_words(what, argc - 1, argv + 1, dev, name, &how))
		return -1;
	if (!strcmp(what, "show"))
		return xdp_show();
	if (!strcmp(what, "detach"))
		return xdp_detach_dev(dev);
	return xdp_attach_rule(dev, name, &how);
}
