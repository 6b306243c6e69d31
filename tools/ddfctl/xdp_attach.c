// SPDX-License-Identifier: GPL-2.0
/*
 * ddfctl xdp attach and detach. ddf's program joins libxdp's dispatcher
 * as one of its components (the convention by which XDP programs share a
 * port: xdp-loader, xdp-filter, AF_XDP sockets opened through libxdp),
 * at a run priority before the others' defaults (libxdp's 50, its AF_XDP
 * program's 20), so it judges first; a frame it passes goes on to the next
 * program, a frame it drops stops there. `exclusive` attaches it alone,
 * as a port without other XDP programs may want.
 *
 * Whatever cannot work is refused before anything changes, in one
 * sentence that names what is on the port.
 */
#include <errno.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>

#include "ddfctl.h"
#include "ddf_xdp.skel.h"

/* libbpf's and libxdp's messages of the load under way, kept for a failure */
static FILE *log_out;
/* their print functions before it, put back after it: later errors are said */
static libbpf_print_fn_t bpf_print_before;
static libxdp_print_fn_t xdp_print_before;

static int bpf_log_print(enum libbpf_print_level level, const char *fmt,
			 va_list ap)
{
	if (level == LIBBPF_DEBUG || !log_out)
		return 0;
	return vfprintf(log_out, fmt, ap);
}

static int xdp_log_print(enum libxdp_print_level level, const char *fmt,
			 va_list ap)
{
	if (level == LIBXDP_DEBUG || !log_out)
		return 0;
	return vfprintf(log_out, fmt, ap);
}

/*
 * The log is this load's own, NULL when open_memstream() fails: restore
 * and apply load once per attachment, and an earlier load's log is freed.
 */
static void log_begin(char **log, size_t *len)
{
	*log = NULL;
	log_out = open_memstream(log, len);
	bpf_print_before = libbpf_set_print(bpf_log_print);
	xdp_print_before = libxdp_set_print(xdp_log_print);
}

static void log_end(void)
{
	if (log_out)
		fclose(log_out);
	log_out = NULL;
	libbpf_set_print(bpf_print_before);
	libxdp_set_print(xdp_print_before);
}

static const char *log_sep(const char *log)
{
	return log && log[0] ? ":\n" : "";
}

/* the program of ri's action: only mark writes metadata (ddf_xdp.bpf.c) */
static struct bpf_program *xdp_chosen(struct ddf_xdp *skel,
				      const struct ddf_rule_info *ri)
{
	return ri->rule.action == DDF_ACTION_MARK ? skel->progs.ddf_xdp :
						    skel->progs.ddf_xdp_judge;
}

/* ddf's program opened for ri's rule, its rule and mark set, not loaded */
static struct ddf_xdp *xdp_open(const struct ddf_rule_info *ri)
{
	struct ddf_xdp *skel = ddf_xdp__open();

	if (skel) {
		skel->rodata->ddf_rule_id = ri->id;
		skel->rodata->ddf_mark = ri->rule.mark;
		skel->rodata->ddf_owner = XDP_OWNER;
		bpf_program__set_autoload(skel->progs.ddf_xdp,
					  xdp_chosen(skel, ri) ==
						  skel->progs.ddf_xdp);
		bpf_program__set_autoload(skel->progs.ddf_xdp_judge,
					  xdp_chosen(skel, ri) ==
						  skel->progs.ddf_xdp_judge);
	}
	return skel;
}

int xdp_load(const struct ddf_rule_info *ri, struct ddf_xdp **skelp)
{
	struct ddf_xdp *skel;
	char *log;
	size_t len = 0;
	int err;

	log_begin(&log, &len);
	skel = xdp_open(ri);
	err = skel ? ddf_xdp__load(skel) : -errno;
	log_end();
	if (err)
		ddfctl_err("xdp attach: the kernel refused ddf's XDP program (%s)%s%s",
			   strerror(-err), log_sep(log), log ? log : "");
	free(log);
	if (err) {
		ddf_xdp__destroy(skel);
		return -1;
	}
	*skelp = skel;
	return 0;
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

static bool rule_has_dev(const struct ddf_rule_spec *r, const char *dev)
{
	for (unsigned int i = 0; i < r->ndevs; i++)
		if (!strcmp(r->devs[i], dev))
			return true;
	return false;
}

static int attach_exclusive(const struct ddf_rule_info *ri, int ifindex,
			    const char *dev, int mode)
{
	uint32_t base = XDP_FLAGS_UPDATE_IF_NOEXIST;
	struct ddf_xdp *skel;
	int fd, err;

	if (xdp_load(ri, &skel))
		return -1;
	/* the device holds the program once attached */
	fd = bpf_program__fd(xdp_chosen(skel, ri));
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
	ddf_xdp__destroy(skel);
	if (err == -EBUSY || err == -EEXIST)
		return ddfctl_err("xdp attach: %s has an XDP program already (ddfctl xdp show)",
				  dev);
	if (err == -EOPNOTSUPP)
		return ddfctl_err("xdp attach: %s's driver has no native XDP (mode generic works on any device)",
				  dev);
	if (err)
		return ddfctl_err("xdp attach: %s: %s", dev, strerror(-err));
	return 0;
}

/* by ioctl: sysfs may be another namespace's (nsenter --net) */
static unsigned int dev_mtu(const char *dev)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), err;

	if (fd < 0)
		return 0;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", dev);
	err = ioctl(fd, SIOCGIFMTU, &ifr);
	close(fd);
	return err ? 0 : (unsigned int)ifr.ifr_mtu;
}

/* the first component loaded without multi-buffer support, or NULL */
static const struct xdp_comp *no_frags(const struct xdp_port *p)
{
	for (size_t i = 0; i < p->nothers; i++)
		if (!p->others[i].frags)
			return &p->others[i];
	return NULL;
}

/* Why ddf cannot join what p says is on dev, in one sentence; 0 if it can. */
static int refuse_shared(const char *dev, const struct xdp_port *p,
			 const struct xdp_how *how)
{
	if (p->unreadable)
		return xdp_unreadable("xdp attach", dev, p);
	if (p->ddf_id)
		return ddfctl_err("xdp attach: %s has ddf's XDP program already (rule id %u; ddfctl xdp detach dev %s first)",
				  dev, p->ddf_rule, dev);
	if (!p->main_id)
		return how->exclusive ? 0 : xdp_libxdp_check("xdp attach", dev);
	if (how->exclusive)
		return ddfctl_err("xdp attach: exclusive takes %s alone, and it has the XDP program '%s' (id %u): remove it, or attach without exclusive to run beside it",
				  dev, p->main_name, p->main_id);
	if (p->dispatcher && xdp_libxdp_check("xdp attach", dev))
		return -1;
	if (!p->dispatcher)
		return ddfctl_err("xdp attach: %s has the XDP program '%s' (id %u), attached without libxdp's dispatcher, so nothing can run beside it: load it through libxdp (xdp-loader) or remove it (ip link set dev %s xdp off), then attach again",
				  dev, p->main_name, p->main_id, dev);
	if (how->mode && how->mode != p->mode)
		return ddfctl_err("xdp attach: %s's programs run in %s mode (libxdp's dispatcher), so ddf's can join them only in that mode (mode %s, or no mode)",
				  dev, xdp_mode_word(p->mode),
				  xdp_mode_word(p->mode));
	return 0;
}

/* libxdp's attach of prog at dev in mode (1, 2), its log kept on failure */
static int libxdp_attach(struct xdp_program *prog, int ifindex, int mode,
			 char **log)
{
	size_t len = 0;
	int err;

	log_begin(log, &len);
	err = xdp_program__attach(prog, ifindex,
				  mode == 2 ? XDP_MODE_SKB : XDP_MODE_NATIVE, 0);
	log_end();
	return err;
}

/* What a failed shared attach means, said once; log is libxdp's and libbpf's. */
static int attach_failed(const struct ddf_rule_info *ri, const char *dev,
			 const struct xdp_port *p, int mode, int err,
			 const char *log)
{
	const struct xdp_comp *nf = no_frags(p);
	unsigned int mtu = dev_mtu(dev);

	/* the verifier's words when a component may not change packet data */
	if (log && strstr(log, "changes packet data"))
		return ddfctl_err("xdp attach: rule '%s' marks its duplicates in XDP metadata, and this kernel lets no program behind libxdp's dispatcher change a frame's data (its verifier: \"extension program changes packet data, while original does not\"): attach with exclusive, or give the rule action drop or count",
				  ri->rule.name);
	if (nf && mode == 1 && mtu > 3000)
		return ddfctl_err("xdp attach: %s's MTU %u needs multi-buffer XDP (frags) in native mode, and its program '%s' (priority %d) was loaded without it, so libxdp's dispatcher cannot have it: reload '%s' with frags, lower the MTU, or use mode generic",
				  dev, mtu, nf->name, nf->prio, nf->name);
	/* (where the kernel cannot share, libxdp attaches alone: said after) */
	if (err == -EOPNOTSUPP && mode == 1)
		return ddfctl_err("xdp attach: %s's driver has no native XDP (mode generic works on any device)",
				  dev);
	return ddfctl_err("xdp attach: %s: libxdp could not add ddf's program (%s)%s%s",
			  dev, strerror(-err), log_sep(log), log ? log : "");
}

/*
 * Where the kernel cannot run programs behind a dispatcher, libxdp
 * attaches a lone program directly: ddf's is taken off again, and only it
 * (XDP_FLAGS_REPLACE with its fd), so that a program another tool put in
 * its place meanwhile stays. 0 if it was not there alone.
 */
static int undo_lone(struct xdp_program *prog, int ifindex, const char *dev)
{
	LIBBPF_OPTS(bpf_xdp_attach_opts, o, .old_prog_fd = xdp_program__fd(prog));
	struct xdp_port now;
	int err;

	if (xdp_port_read(ifindex, &now) || !now.ddf_id || now.dispatcher)
		return 0;
	err = bpf_xdp_detach(ifindex, XDP_FLAGS_REPLACE |
			     (now.mode == 2 ? XDP_FLAGS_SKB_MODE :
					      XDP_FLAGS_DRV_MODE), &o);
	/* -EEXIST: another program replaced it, which is not ours to remove */
	if (err && err != -EEXIST)
		return ddfctl_err("xdp attach: the kernel cannot run programs behind libxdp's dispatcher at %s (no freplace), and ddf's program, which libxdp attached alone there, could not be taken off again (%s): ddfctl xdp detach dev %s",
				  dev, strerror(-err), dev);
	return ddfctl_err("xdp attach: the kernel cannot run programs behind libxdp's dispatcher at %s (no freplace), so it cannot be shared: attach with exclusive to have it alone",
			  dev);
}

static int attach_shared(const struct ddf_rule_info *ri, int ifindex,
			 const char *dev, const struct xdp_how *how)
{
	int mode = how->mode, err = 0;
	DECLARE_LIBXDP_OPTS(xdp_program_opts, opts);
	struct xdp_program *prog;
	struct xdp_port p;
	struct ddf_xdp *skel;
	char *log = NULL;

	if (xdp_port_read(ifindex, &p))
		return ddfctl_err("xdp attach: %s: cannot ask its XDP program: %s",
				  dev, strerror(errno));
	if (refuse_shared(dev, &p, how))
		return -1;
	if (!mode)
		mode = p.main_id ? p.mode : 1;
	skel = xdp_open(ri);
	if (skel) {
		opts.obj = skel->obj;
		opts.prog_name = bpf_program__name(xdp_chosen(skel, ri));
		prog = xdp_program__create(&opts);
	} else {
		prog = NULL;
	}
	if (!prog || libxdp_get_error(prog)) {
		ddf_xdp__destroy(skel);
		return ddfctl_err("xdp attach: cannot open ddf's XDP program: %s",
				  strerror(errno));
	}
	xdp_program__set_run_prio(prog, (unsigned int)(how->prio >= 0 ?
			how->prio : XDP_PRIO_DEFAULT));
	/* multi-buffer frames: the dispatcher takes them if every program does */
	xdp_program__set_xdp_frags_support(prog, true);
	/* on to the next program only what ddf passes */
	for (unsigned int a = XDP_ABORTED; a <= XDP_REDIRECT; a++)
		xdp_program__set_chain_call_enabled(prog, a, a == XDP_PASS);
	err = libxdp_attach(prog, ifindex, mode, &log);
	if (err == -EOPNOTSUPP && !how->mode && !p.main_id) {
		free(log);
		err = libxdp_attach(prog, ifindex, mode = 2, &log);
		if (!err)
			printf("%s: no native XDP in its driver: attached in generic mode\n",
			       dev);
	}
	if (err)
		attach_failed(ri, dev, &p, mode, err, log);
	else
		err = undo_lone(prog, ifindex, dev);
	free(log);
	xdp_program__close(prog);
	ddf_xdp__destroy(skel);
	return err ? -1 : 0;
}

int xdp_attach_rule(const char *dev, const char *name,
		    const struct xdp_how *how)
{
	struct ddf_rule_info ri;
	int ifindex;

	if (ddfctl_dry_run) {
		printf("xdp attach dev %s rule %s mode %s", dev, name,
		       how->mode ? xdp_mode_word(how->mode) :
				   "native, else generic");
		if (how->exclusive)
			printf(" exclusive");
		else
			printf(" priority %d", how->prio >= 0 ? how->prio :
								 XDP_PRIO_DEFAULT);
		printf(": dry run, nothing loaded\n");
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
	if (how->exclusive) {
		struct xdp_port p;

		if (!xdp_port_read(ifindex, &p) && refuse_shared(dev, &p, how))
			return -1;
		return attach_exclusive(&ri, ifindex, dev, how->mode);
	}
	return attach_shared(&ri, ifindex, dev, how);
}

int xdp_detach_dev(const char *dev)
{
	struct xdp_program *prog;
	struct xdp_port p;
	int ifindex, err;
	char *log = NULL;
	size_t len = 0;

	if (ddfctl_dry_run) {
		printf("xdp detach dev %s: dry run, nothing removed\n", dev);
		return 0;
	}
	ifindex = (int)if_nametoindex(dev);
	if (!ifindex)
		return ddfctl_err("xdp detach: no device '%s' here", dev);
	if (xdp_port_read(ifindex, &p))
		return ddfctl_err("xdp detach: %s: cannot ask its XDP program: %s",
				  dev, strerror(errno));
	if (p.unreadable)
		return xdp_unreadable("xdp detach", dev, &p);
	if (!p.ddf_id)
		return ddfctl_err("xdp detach: %s has no ddf XDP program", dev);
	if (p.ddf_id == p.main_id) {
		err = bpf_xdp_detach(ifindex, p.mode == 2 ? XDP_FLAGS_SKB_MODE :
							    XDP_FLAGS_DRV_MODE,
				     NULL);
		if (err)
			return ddfctl_err("xdp detach: %s: %s", dev,
					  strerror(-err));
		return 0;
	}
	/* the dispatcher is made again without ddf's program; the rest stay */
	if (xdp_libxdp_check("xdp detach", dev))
		return -1;
	log_begin(&log, &len);
	prog = xdp_program__from_id(p.ddf_id);
	err = libxdp_get_error(prog);
	if (!err) {
		err = xdp_program__detach(prog, ifindex, p.mode == 2 ?
					  XDP_MODE_SKB : XDP_MODE_NATIVE, 0);
		xdp_program__close(prog);
	}
	log_end();
	if (err)
		ddfctl_err("xdp detach: %s: libxdp could not remove ddf's program (%s)%s%s",
			   dev, strerror(-err), log_sep(log), log ? log : "");
	free(log);
	return err ? -1 : 0;
}

/* libxdp's quiet: what it cannot read is said here, in one sentence */
static int xdp_quiet(enum libxdp_print_level level, const char *fmt,
		     va_list ap)
{
	return 0;
}

int xdp_libxdp_check(const char *what, const char *dev)
{
	int ifindex = (int)if_nametoindex(dev);
	struct xdp_multiprog *mp;
	libxdp_print_fn_t old;
	struct xdp_port p;
	bool legacy;
	long err;

	/* not libxdp's: the change says what it finds */
	if (!ifindex || xdp_port_read(ifindex, &p) ||
	    (p.main_id && !p.dispatcher))
		return 0;
	if (!xdp_bpffs_here() && !p.main_id)
		return ddfctl_err("%s: libxdp keeps the programs that share a port pinned in the BPF file system, and none is mounted at /sys/fs/bpf here (%s), or attach with exclusive",
				  what, XDP_BPFFS_HINT);
	if (!xdp_bpffs_here())
		return ddfctl_err("%s: %s has libxdp's dispatcher (id %u), whose programs are pinned in the BPF file system, and none is mounted at /sys/fs/bpf here (%s)",
				  what, dev, p.main_id, XDP_BPFFS_HINT);
	if (!p.main_id)
		return 0;
	old = libxdp_set_print(xdp_quiet);
	mp = xdp_multiprog__get_from_ifindex(ifindex);
	libxdp_set_print(old);
	err = libxdp_get_error(mp);
	legacy = !err && mp && xdp_multiprog__is_legacy(mp);
	if (!err && mp)
		xdp_multiprog__close(mp);
	if (err || !mp || legacy)
		return ddfctl_err("%s: %s has libxdp's dispatcher (id %u), which this libxdp cannot change (another version's, or its pins in /sys/fs/bpf/xdp removed)",
				  what, dev, p.main_id);
	return 0;
}
