// SPDX-License-Identifier: GPL-2.0
/*
 * save, then restore, over generated states of a namespace's rules: the
 * ports of netdev rules present, renamed (also onto the name another port
 * waits for), waiting after their device was deleted or moved to another
 * namespace (and moved back under another name); device names of every
 * byte Linux takes, in dev, iif and oif; ddf's XDP program on some
 * devices; now and then a rule another client named as ddfctl cannot.
 * The devices' events are played as nf_ddf_dev.c plays them and the rules
 * reported as nf_ddf_netlink.c reports them; save's own code (state.c)
 * writes the text. restore's parser must take it whole and read what save
 * means to write: each port by its name now, a rule with a name twice by
 * its given names, each program's device as its rule's line names it, and
 * a comment for what restore would refuse. apply of the text to the state
 * it was saved from changes nothing else, and once restored (each port
 * present under the name written) the rules save the same text again.
 *
 *   ddfctl_save_tests [SEED [CASES]]   (the seed is printed; rerun with it)
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/netfilter.h>

#include "ddfctl.h"

bool ddfctl_json;
bool ddfctl_dry_run;

#define DEVS_MAX 96
#define RULES_MAX 4
#define NAMES 48

static uint64_t rng;

/* splitmix64: the same cases from the same seed on any libc */
static uint64_t rnd(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static unsigned int below(unsigned int n)
{
	return (unsigned int)(rnd() % n);
}

/* the bytes dev_valid_name() takes: not '/', ':' or the kernel's spaces */
static bool legal(unsigned int c)
{
	return c && c != '/' && c != ':' && c != ' ' &&
	       !(c >= '\t' && c <= '\r') && c != 0xa0;
}

static unsigned char legal_bytes[256];
static unsigned int nlegal;
static bool seen[256]; /* bytes in the names of saved rules */

/* names that have broken save and restore, or would */
static const char *const edge_names[] = {
	",", "a,b", ",,", "\\", "\\,", "a\\x2c", "\\x41", "#", "#x", "\"'",
	"'\"\\", "\x01", "\x1f\x7f", "\x80\xff", "-", "-x", "x\\",
	"eth0", "eth1", "123456789012345", ",,,,,,,,,,,,,,,", "\\\\\\\\\\\\\\",
	"\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8\xf7\xf6\xf5\xf4\xf3\xf2\xf1",
	"none", "dev", "rule", "...", ".a",
};

static void random_name(char *name)
{
	unsigned int r = below(8), n;

	if (r == 0) {
		snprintf(name, 16, "%s",
			 edge_names[below(sizeof(edge_names) /
					  sizeof(edge_names[0]))]);
		return;
	}
	n = r == 1 ? 15 : r == 2 ? 1 : 1 + below(15);
	do {
		for (unsigned int i = 0; i < n; i++)
			name[i] = (char)legal_bytes[below(nlegal)];
		name[n] = '\0';
	} while (!strcmp(name, ".") || !strcmp(name, ".."));
}

/* the model: devices of the rules' namespace (ns 0), another one (1), gone */
struct mdev {
	char name[16];
	uint32_t ifindex;
	int ns; /* 0, 1, or -1: deleted */
	uint32_t xdp_rule; /* ddf's program judging by this rule id */
	int xdp_mode;
	unsigned int order; /* where xdp_each() lists it */
};

struct mport {
	int dev; /* -1: waiting */
	char name[16], given[16];
};

struct mrule {
	struct ddf_rule_spec spec;
	uint32_t id;
	bool bad_name; /* another client's name, which ddfctl refuses */
	unsigned int n;
	struct mport p[DDF_DEVS_MAX];
};

struct model {
	struct mdev d[DEVS_MAX];
	unsigned int nd;
	uint32_t next_ifindex;
	struct mrule r[RULES_MAX];
	unsigned int nr;
	char names[NAMES][16]; /* the case's names: few, so they meet */
	unsigned int nn;
};

static int find_dev(const struct model *m, int ns, const char *name)
{
	for (unsigned int i = 0; i < m->nd; i++)
		if (m->d[i].ns == ns && !strcmp(m->d[i].name, name))
			return (int)i;
	return -1;
}

static bool rule_has_dev(const struct mrule *r, int dev)
{
	for (unsigned int i = 0; i < r->n; i++)
		if (r->p[i].dev == dev)
			return true;
	return false;
}

enum ev { EV_REGISTER, EV_UNREGISTER, EV_CHANGENAME };

/* nf_ddf_dev_event_port() for each port of each rule, in order */
static void notify(struct model *m, int dev, enum ev ev)
{
	const char *name = m->d[dev].name;

	for (unsigned int k = 0; k < m->nr; k++) {
		struct mrule *r = &m->r[k];

		if (!family_netdev(r->spec.family))
			continue;
		for (unsigned int i = 0; i < r->n; i++) {
			struct mport *p = &r->p[i];

			if (ev == EV_UNREGISTER) {
				if (p->dev == dev)
					p->dev = -1;
				continue;
			}
			if (ev == EV_CHANGENAME && p->dev == dev) {
				memcpy(p->name, name, 16);
				continue;
			}
			if (p->dev >= 0 || strcmp(p->name, name) ||
			    rule_has_dev(r, dev))
				continue;
			p->dev = dev;
			memcpy(p->name, name, 16);
		}
	}
}

static const char *pick_name(struct model *m)
{
	return m->names[below(m->nn)];
}

static int new_dev(struct model *m, const char *name)
{
	struct mdev *d;

	if (m->nd == DEVS_MAX || find_dev(m, 0, name) >= 0)
		return -1;
	d = &m->d[m->nd];
	memset(d, 0, sizeof(*d));
	memcpy(d->name, name, 16);
	d->ifindex = ++m->next_ifindex;
	d->order = d->ifindex;
	notify(m, (int)m->nd++, EV_REGISTER);
	return (int)m->nd - 1;
}

static int dev_in(const struct model *m, int ns)
{
	unsigned int n = 0, k;

	for (unsigned int i = 0; i < m->nd; i++)
		n += m->d[i].ns == ns;
	if (!n)
		return -1;
	k = below(n);
	for (unsigned int i = 0; i < m->nd; i++)
		if (m->d[i].ns == ns && !k--)
			return (int)i;
	return -1;
}

/* one thing done to the devices: the states the ports are driven into */
static void event(struct model *m)
{
	const char *name = pick_name(m);
	int d;

	switch (below(6)) {
	case 0: /* ip link add */
		new_dev(m, name);
		break;
	case 1: /* ip link del */
		d = dev_in(m, 0);
		if (d >= 0) {
			m->d[d].ns = -1;
			m->d[d].xdp_rule = 0;
			notify(m, d, EV_UNREGISTER);
		}
		break;
	case 2: /* ip link set netns: out, maybe renamed there */
		d = dev_in(m, 0);
		if (d >= 0) {
			m->d[d].ns = 1;
			notify(m, d, EV_UNREGISTER);
			if (below(2) && find_dev(m, 1, name) < 0)
				memcpy(m->d[d].name, name, 16);
		}
		break;
	case 3: /* and back, when its name is free here */
		d = dev_in(m, 1);
		if (d >= 0 && find_dev(m, 0, m->d[d].name) < 0) {
			m->d[d].ns = 0;
			notify(m, d, EV_REGISTER);
		}
		break;
	default: /* ip link set name */
		d = dev_in(m, 0);
		if (d >= 0 && find_dev(m, 0, name) < 0) {
			memcpy(m->d[d].name, name, 16);
			notify(m, d, EV_CHANGENAME);
		}
		break;
	}
}

/* the rules' words but their devices, parsed once */
static const char *const bases[] = {
	"family netdev dev x window 100k",
	"family netdev hook none dev x key frame ignore vlan,mac window 10k action mark 0x10/0xf0",
	"family netdev hook egress dev x filter exact window 1000 seed 000102030405060708090a0b0c0d0e0f",
	"family netdev hook none dev x key saddr,daddr decap vxlan:8472 filter qqhtd window 10k hash siphash24 action count",
	"family ip hook forward filter exact window 1000",
	"family ip6 hook prerouting key saddr window 20k/100ms memory 256K",
	"family inet hook postrouting proto udp filter sbf memory 64K",
};
#define NBASES (sizeof(bases) / sizeof(bases[0]))
static struct ddf_rule_spec base_spec[NBASES];

static const char *const rule_names[] = { "r", "span", "a,b", "x\\y", "#1",
					  "\"q\"", "r.2" };

/* A rule made as rule add makes it: every device it names here now. */
static void add_rule(struct model *m)
{
	unsigned int b = below(NBASES), want;
	struct mrule *r = &m->r[m->nr];

	memset(r, 0, sizeof(*r));
	r->spec = base_spec[b];
	snprintf(r->spec.name, sizeof(r->spec.name), "%s%u",
		 rule_names[below(sizeof(rule_names) / sizeof(rule_names[0]))],
		 m->nr);
	r->id = 100 + m->nr;
	if (!below(40)) {
		r->spec.name[0] = " \n\t\x01\xff"[below(5)];
		r->bad_name = true;
	}
	if (!family_netdev(r->spec.family)) {
		r->spec.ndevs = 0;
		if (r->spec.hook != NF_INET_PRE_ROUTING)
			random_name(r->spec.oif);
		if (r->spec.hook != NF_INET_POST_ROUTING)
			random_name(r->spec.iif);
		m->nr++;
		return;
	}
	want = below(4) ? 1 + below(6) : 1 + below(DDF_DEVS_MAX);
	while (r->n < want) {
		int d = dev_in(m, 0);

		if (d < 0 && (d = new_dev(m, pick_name(m))) < 0)
			break;
		if (rule_has_dev(r, d)) {
			d = new_dev(m, pick_name(m));
			if (d < 0)
				break;
		}
		r->p[r->n].dev = d;
		memcpy(r->p[r->n].name, m->d[d].name, 16);
		memcpy(r->p[r->n].given, m->d[d].name, 16);
		r->n++;
	}
	if (r->n)
		m->nr++;
}

/* ddf's program on devices of rules of hook none, and on one that is not */
static void add_programs(struct model *m)
{
	for (unsigned int k = 0; k < m->nr; k++) {
		const struct mrule *r = &m->r[k];

		if (!family_netdev(r->spec.family) ||
		    r->spec.hook != DDF_HOOK_NONE)
			continue;
		for (unsigned int i = 0; i < r->n; i++) {
			struct mdev *d = r->p[i].dev >= 0 ?
						 &m->d[r->p[i].dev] : NULL;

			if (d && !d->xdp_rule && below(2)) {
				d->xdp_rule = r->id;
				d->xdp_mode = 1 + below(2);
			}
		}
		/* of no port of the rule (a device back under another name) */
		if (!below(8)) {
			int d = dev_in(m, 0);

			if (d >= 0 && !m->d[d].xdp_rule && !rule_has_dev(r, d)) {
				m->d[d].xdp_rule = r->id;
				m->d[d].xdp_mode = 1;
			}
		}
	}
	/* of a rule deleted since: a comment */
	if (!below(8)) {
		int d = dev_in(m, 0);

		if (d >= 0 && !m->d[d].xdp_rule) {
			m->d[d].xdp_rule = 999;
			m->d[d].xdp_mode = 2;
		}
	}
}

/* A GET reply for rule r, as nf_ddf_fill_rule() writes one. */
static struct nlmsghdr *reply(const struct model *m, const struct mrule *r,
			      char *buf)
{
	static char req_buf[8192];
	struct ddf_cmd_req req = { .op = OP_RULE_ADD, .rule = r->spec };
	struct nlmsghdr *rq, *nlh;
	const struct nlattr *a, *b;
	struct nlattr *n, *list, *e;

	req.rule.ndevs = 0;
	rq = ddfctl_build(&req, req_buf);
	nlh = mnl_nlmsg_put_header(buf);
	*nlh = *rq;
	nlh->nlmsg_len = MNL_NLMSG_HDRLEN;
	memcpy(mnl_nlmsg_put_extra_header(nlh, GENL_HDRLEN),
	       mnl_nlmsg_get_payload(rq), GENL_HDRLEN);
	mnl_attr_for_each(a, rq, GENL_HDRLEN) {
		if (mnl_attr_get_type(a) != DDF_A_FILTER) {
			mnl_attr_put(nlh, mnl_attr_get_type(a),
				     mnl_attr_get_payload_len(a),
				     mnl_attr_get_payload(a));
			continue;
		}
		n = mnl_attr_nest_start(nlh, DDF_A_FILTER);
		mnl_attr_for_each_nested(b, a)
			if (mnl_attr_get_type(b) != DDF_FILTER_A_HASH)
				mnl_attr_put(nlh, mnl_attr_get_type(b),
					     mnl_attr_get_payload_len(b),
					     mnl_attr_get_payload(b));
		mnl_attr_put_u8(nlh, DDF_FILTER_A_HASH, r->spec.hash_alg);
		mnl_attr_put_u64(nlh, DDF_FILTER_A_BYTES, 4096);
		mnl_attr_nest_end(nlh, n);
	}
	mnl_attr_put_u32(nlh, DDF_A_ID, r->id);
	if (!r->n)
		return nlh;
	mnl_attr_put_strz(nlh, DDF_A_DEV, r->p[0].name);
	mnl_attr_put_u32(nlh, DDF_A_DEV_IFINDEX,
			 r->p[0].dev >= 0 ? m->d[r->p[0].dev].ifindex : 0);
	list = mnl_attr_nest_start(nlh, DDF_A_DEVS);
	for (unsigned int i = 0; i < r->n; i++) {
		const struct mport *p = &r->p[i];

		e = mnl_attr_nest_start(nlh, i + 1);
		mnl_attr_put_strz(nlh, DDF_DEV_A_NAME, p->name);
		mnl_attr_put_u32(nlh, DDF_DEV_A_IFINDEX,
				 p->dev >= 0 ? m->d[p->dev].ifindex : 0);
		mnl_attr_put_strz(nlh, DDF_DEV_A_GIVEN, p->given);
		mnl_attr_nest_end(nlh, e);
	}
	mnl_attr_nest_end(nlh, list);
	return nlh;
}

/*
 * What save writes of the model: its text, and how many lines it refused;
 * in s what state_fetch() would read (free it).
 */
static char *save(const struct model *m, int *refused, struct restore_set *s)
{
	static char buf[16384];
	struct ddf_rule_info ri;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	for (unsigned int k = 0; k < m->nr; k++)
		if (decode_rule(reply(m, &m->r[k], buf), &ri) ||
		    state_add_rule(s, &ri))
			return NULL;
	/* xdp_each() goes by the namespace's devices, in its order */
	for (unsigned int o = 0, i; o <= m->next_ifindex; o++)
		for (i = 0; i < m->nd; i++)
			if (m->d[i].order == o && m->d[i].ns == 0 &&
			    m->d[i].xdp_rule &&
			    state_add_xdp(s, m->d[i].name, m->d[i].xdp_rule,
					  m->d[i].xdp_mode))
				return NULL;
	f = open_memstream(&text, &len);
	*refused = state_print(f, s);
	fclose(f);
	return text;
}

/* The names save means to write: now, or given when one is there twice. */
static void expected_devs(const struct mrule *r, char devs[][16])
{
	bool twice = false;

	for (unsigned int i = 0; i < r->n; i++)
		for (unsigned int j = 0; j < i; j++)
			twice |= !strcmp(r->p[i].name, r->p[j].name);
	for (unsigned int i = 0; i < r->n; i++)
		memcpy(devs[i], twice ? r->p[i].given : r->p[i].name, 16);
}

/*
 * The device of the xdp line save means for device i's program of rule r:
 * its port's saved name; else its own, which restore takes only when the
 * rule's line names it (a device of no port of the rule); NULL: refused.
 */
static const char *xdp_dev(const struct model *m, unsigned int i,
			   const struct mrule *r, char *buf)
{
	char devs[DDF_DEVS_MAX][16];
	const char *dev = NULL;

	if (r->bad_name)
		return NULL; /* its rule's line is a comment */
	expected_devs(r, devs);
	for (unsigned int j = 0; j < r->n; j++)
		if (r->p[j].dev == (int)i)
			dev = devs[j];
	for (unsigned int j = 0; !dev && j < r->n; j++)
		if (!strcmp(devs[j], m->d[i].name))
			dev = m->d[i].name;
	if (!dev)
		return NULL;
	memcpy(buf, dev, 16);
	return buf;
}

static int fail_count, cases;
static unsigned long long nports, npresent, nrenamed, nwaiting, nmoved,
	nrenamed_gone, nshared, ntwice_rules, nxdp, nrefused, ngone_rule,
	nrules, nbad;
static char *errors; /* stderr of the case */
static FILE *err_file;

static void print_name(FILE *out, const char *name)
{
	fputc('\'', out);
	print_ifname(out, name);
	fputc('\'', out);
}

static void report(const struct model *m, const char *text, const char *why)
{
	long n;

	if (++fail_count > 5)
		return;
	printf("FAIL case %d: %s\n", cases, why);
	for (unsigned int k = 0; k < m->nr; k++) {
		const struct mrule *r = &m->r[k];

		printf("  rule %s id %u:", r->spec.name, r->id);
		for (unsigned int i = 0; i < r->n; i++) {
			const struct mport *p = &r->p[i];

			printf(" [");
			print_name(stdout, p->name);
			printf(" given ");
			print_name(stdout, p->given);
			printf(" ifindex %u]",
			       p->dev >= 0 ? m->d[p->dev].ifindex : 0);
		}
		printf("\n");
	}
	printf("  devices:");
	for (unsigned int i = 0; i < m->nd; i++) {
		printf(" [");
		print_name(stdout, m->d[i].name);
		printf(" ifindex %u ns %d xdp %u]", m->d[i].ifindex,
		       m->d[i].ns, m->d[i].xdp_rule);
	}
	printf("\n  saved:\n%s", text ? text : "(nothing)\n");
	fflush(err_file);
	n = ftell(err_file);
	if (n > 0) {
		errors = realloc(errors, n + 1);
		rewind(err_file);
		if (errors && fread(errors, 1, n, err_file) == (size_t)n) {
			errors[n] = '\0';
			printf("  stderr:\n%s", errors);
		}
	}
}

static void count_ports(const struct model *m)
{
	for (unsigned int k = 0; k < m->nr; k++) {
		const struct mrule *r = &m->r[k];
		char devs[DDF_DEVS_MAX][16];

		nrules++;
		expected_devs(r, devs);
		for (unsigned int i = 0; i < r->n; i++) {
			const struct mport *p = &r->p[i];
			bool renamed = strcmp(p->name, p->given);

			nports++;
			for (unsigned int j = 0; j < r->n; j++)
				if (j != i && !strcmp(r->p[j].name, p->name)) {
					nshared++;
					break;
				}
			if (p->dev >= 0) {
				npresent++;
				nrenamed += renamed;
				continue;
			}
			nwaiting++;
			nrenamed_gone += renamed;
			/* the device that had its name: moved, or deleted */
			for (unsigned int j = 0; j < m->nd; j++)
				if (m->d[j].ns == 1 &&
				    (!strcmp(m->d[j].name, p->name) ||
				     !strcmp(m->d[j].name, p->given))) {
					nmoved++;
					break;
				}
		}
		for (unsigned int i = 0; i < r->n; i++)
			if (strcmp(devs[i], r->p[i].name)) {
				ntwice_rules++;
				break;
			}
	}
}

/* the rule's line with its devices as save means them, for comparing */
static char *line_of(const struct ddf_rule_spec *r)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	print_rule_line(f, r);
	fclose(f);
	return text;
}

/* Test that the set read back says what save means to write of m. */
static bool same_rules(const struct model *m, const struct restore_set *s,
		       int refused, int want_refused, const char *text)
{
	char seen_dev[DEVS_MAX][16];
	unsigned int nseen = 0, nx = 0, k2v[RULES_MAX], good = 0;
	char msg[256];

	if (refused != want_refused) {
		snprintf(msg, sizeof(msg), "save refused %d lines, not %d",
			 refused, want_refused);
		report(m, text, msg);
		return false;
	}
	for (unsigned int k = 0, v = 0; k < m->nr; k++) {
		const struct mrule *r = &m->r[k];
		struct ddf_rule_spec want = r->spec;
		char *a, *b;
		bool same;

		if (r->bad_name)
			continue;
		if (v == s->n) {
			report(m, text, "a rule is not read back");
			return false;
		}
		k2v[k] = v++;

		expected_devs(r, want.devs);
		want.ndevs = r->n;
		a = line_of(&want);
		b = line_of(&s->v[k2v[k]].rule);
		same = s->v[k2v[k]].rule.ndevs == want.ndevs &&
		       !strcmp(s->v[k2v[k]].rule.iif, want.iif) &&
		       !strcmp(s->v[k2v[k]].rule.oif, want.oif) &&
		       !strcmp(a, b);
		for (unsigned int i = 0; same && i < want.ndevs; i++)
			same = !strcmp(s->v[k2v[k]].rule.devs[i],
				       want.devs[i]);
		if (!same) {
			snprintf(msg, sizeof(msg),
				 "rule %u read back is not the one meant: %.100s",
				 k, a);
			report(m, text, msg);
		}
		free(a);
		free(b);
		if (!same)
			return false;
	}
	for (unsigned int k = 0; k < m->nr; k++)
		good += !m->r[k].bad_name;
	if (s->n != good) {
		snprintf(msg, sizeof(msg), "%zu rules read back of %u", s->n,
			 good);
		report(m, text, msg);
		return false;
	}
	/* the programs: each on its port's saved name, once per device */
	for (unsigned int i = 0; i < m->nd; i++) {
		const struct mdev *d = &m->d[i];
		const char *dev = NULL;
		const struct mrule *r = NULL;
		bool taken = false;

		if (d->ns || !d->xdp_rule)
			continue;
		for (unsigned int k = 0; k < m->nr; k++)
			if (m->r[k].id == d->xdp_rule)
				r = &m->r[k];
		if (!r)
			continue; /* a comment */
		dev = xdp_dev(m, i, r, seen_dev[nseen]);
		for (unsigned int j = 0; dev && j < nseen; j++)
			taken |= !strcmp(seen_dev[j], dev);
		if (!dev || taken)
			continue; /* refused, counted */
		nseen++;
		if (nx >= s->nx || strcmp(s->x[nx].dev, dev) ||
		    strcmp(s->x[nx].rule, r->spec.name) ||
		    s->x[nx].mode != d->xdp_mode) {
			snprintf(msg, sizeof(msg),
				 "xdp line %u read back is not for the program of device %u",
				 nx, d->ifindex);
			report(m, text, msg);
			return false;
		}
		nx++;
	}
	if (nx != s->nx) {
		snprintf(msg, sizeof(msg), "%zu xdp lines read back, %u meant",
			 s->nx, nx);
		report(m, text, msg);
		return false;
	}
	nxdp += nx;
	return true;
}

/* Lines save refuses: programs of no port of theirs, or on a name taken. */
static int refusals(const struct model *m)
{
	char names[DEVS_MAX][16];
	unsigned int n = 0;
	int refused = 0;

	for (unsigned int k = 0; k < m->nr; k++)
		refused += m->r[k].bad_name;
	for (unsigned int i = 0; i < m->nd; i++) {
		const struct mdev *d = &m->d[i];
		const struct mrule *r = NULL;

		if (d->ns || !d->xdp_rule)
			continue;
		for (unsigned int k = 0; k < m->nr; k++)
			if (m->r[k].id == d->xdp_rule)
				r = &m->r[k];
		if (!r)
			continue;
		if (!xdp_dev(m, i, r, names[n])) {
			refused++;
			continue;
		}
		for (unsigned int j = 0; j < n; j++)
			if (!strcmp(names[j], names[n])) {
				refused++;
				n--;
				break;
			}
		n++;
	}
	return refused;
}

/*
 * The namespace once the file is restored: each rule added with the names
 * written (a device per name, shared by the rules that name it), and
 * each program attached where its line says.
 */
static void restored(const struct restore_set *s, struct model *m)
{
	memset(m, 0, sizeof(*m));
	for (size_t k = 0; k < s->n; k++) {
		struct mrule *r = &m->r[m->nr++];

		r->spec = s->v[k].rule;
		r->id = 100 + (uint32_t)k;
		for (unsigned int i = 0; i < r->spec.ndevs; i++) {
			int d = find_dev(m, 0, r->spec.devs[i]);

			if (d < 0)
				d = new_dev(m, r->spec.devs[i]);
			r->p[r->n].dev = d;
			memcpy(r->p[r->n].name, r->spec.devs[i], 16);
			memcpy(r->p[r->n].given, r->spec.devs[i], 16);
			r->n++;
		}
	}
	for (size_t i = 0; i < s->nx; i++) {
		int d = find_dev(m, 0, s->x[i].dev);

		for (unsigned int k = 0; d >= 0 && k < m->nr; k++)
			if (!strcmp(m->r[k].spec.name, s->x[i].rule)) {
				m->d[d].xdp_rule = m->r[k].id;
				m->d[d].xdp_mode = s->x[i].mode;
				/* listed as save listed them */
				m->d[d].order = (unsigned int)i;
			}
	}
}

/* text without its comment lines */
static void drop_comments(char *text)
{
	char *w = text;

	for (char *p = text; *p;) {
		size_t n = strcspn(p, "\n") + (p[strcspn(p, "\n")] != 0);

		if (*p != '#') {
			memmove(w, p, n);
			w += n;
		}
		p += n;
	}
	*w = '\0';
}

static void see(const char *name)
{
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		seen[*p] = true;
}

static void one_case(void)
{
	struct model m = { .nn = 0 };
	struct restore_set s, now;
	struct apply_plan plan;
	unsigned int nev;
	int refused, ret;
	char *text;
	FILE *in;

	m.nn = 2 + below(NAMES - 2);
	for (unsigned int i = 0; i < m.nn; i++)
		random_name(m.names[i]);
	for (unsigned int i = 0, n = 1 + below(6); i < n; i++)
		new_dev(&m, pick_name(&m));
	for (unsigned int k = 0, n = 1 + below(RULES_MAX); k < n; k++) {
		add_rule(&m);
		for (nev = below(24); nev; nev--)
			event(&m);
	}
	add_programs(&m);
	count_ports(&m);
	for (unsigned int i = 0; i < m.nd; i++)
		ngone_rule += m.d[i].ns == 0 && m.d[i].xdp_rule == 999;

	rewind(err_file);
	if (ftruncate(fileno(err_file), 0))
		return;
	memset(&now, 0, sizeof(now));
	text = save(&m, &refused, &now);
	if (!text) {
		report(&m, NULL, "save wrote nothing");
		restore_free(&now);
		return;
	}
	in = fmemopen(text, strlen(text), "r");
	ret = restore_read(in, &s);
	fclose(in);
	if (ret) {
		report(&m, text, "restore refuses what save wrote");
		restore_free(&now);
		free(text);
		return;
	}
	/* apply of the file to the state it was saved from: nothing changes */
	if (!apply_plan(&now, &s, &plan)) {
		char msg[160];

		snprintf(msg, sizeof(msg),
			 "apply of the saved file to the state it was saved from: rules %zu kept, %zu changed, %zu added, %zu deleted; xdp %zu kept, %zu attached, %zu detached",
			 plan.kept, plan.changed, plan.added, plan.deleted,
			 plan.xkept, plan.attached, plan.detached);
		/* a program whose line is a comment is detached, no other */
		if (plan.kept != s.n || plan.changed || plan.added ||
		    plan.deleted != m.nr - s.n || plan.attached ||
		    plan.xkept + plan.detached != now.nx ||
		    plan.detached > now.nx - s.nx)
			report(&m, text, msg);
		free(plan.st);
	}
	restore_free(&now);
	nrefused += refused > 0 ? (unsigned int)refused : 0;
	for (unsigned int k = 0; k < m.nr; k++)
		nbad += m.r[k].bad_name;
	if (same_rules(&m, &s, refused, refusals(&m), text)) {
		struct restore_set now2 = { 0 };
		struct model again;
		char *text2;
		int refused2;

		for (size_t k = 0; k < s.n; k++) {
			const struct ddf_rule_spec *r = &s.v[k].rule;

			for (unsigned int i = 0; i < r->ndevs; i++)
				see(r->devs[i]);
			see(r->iif);
			see(r->oif);
		}
		restored(&s, &again);
		text2 = save(&again, &refused2, &now2);
		restore_free(&now2);
		drop_comments(text);
		if (!text2 || refused2 || strcmp(text, text2))
			report(&m, text,
			       "restored, the rules do not save the same text again");
		free(text2);
	}
	restore_free(&s);
	free(text);
}

int main(int argc, char **argv)
{
	uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 0) :
				   (uint64_t)time(NULL) ^ (uint64_t)getpid();
	int n = argc > 2 ? atoi(argv[2]) : 4000, saved_stderr;
	unsigned int missing = 0;

	for (unsigned int c = 1; c < 256; c++)
		if (legal(c))
			legal_bytes[nlegal++] = (unsigned char)c;
	for (unsigned int i = 0; i < NBASES; i++) {
		char line[256], *w[32], *save_ptr, *t;
		int nw = 0;

		snprintf(line, sizeof(line), "r %s", bases[i]);
		for (t = strtok_r(line, " ", &save_ptr); t && nw < 32;
		     t = strtok_r(NULL, " ", &save_ptr))
			w[nw++] = t;
		if (parse_rule_add(nw, w, &base_spec[i])) {
			printf("FAIL: '%s' does not parse\n", bases[i]);
			return 1;
		}
		/* as the kernel reports it: the shape it holds */
		base_spec[i].filter.shape = true;
	}
	printf("test_save_states: seed %llu (rerun: %s %llu %d)\n",
	       (unsigned long long)seed, argv[0], (unsigned long long)seed, n);
	rng = seed;
	/* save says on stderr which lines it refused: kept per case */
	err_file = tmpfile();
	fflush(stderr);
	saved_stderr = dup(2);
	dup2(fileno(err_file), 2);
	for (cases = 0; cases < n; cases++)
		one_case();
	fflush(stderr);
	dup2(saved_stderr, 2);
	for (unsigned int c = 0; c < nlegal; c++)
		missing += !seen[legal_bytes[c]];
	printf("test_save_states: %d cases, %llu rules, %llu ports: %llu present (%llu renamed), %llu waiting (%llu renamed first, %llu for a device in another namespace), %llu with the name of another port of their rule; %llu rules saved by their given names; %llu xdp lines; as comments: %llu lines restore would refuse (%llu rules another client named, programs on a device their rule's line does not name or on a name an earlier line has), %llu programs of a deleted rule; %u of the %u bytes Linux takes in a name seen in saved names\n",
	       cases, nrules, nports, npresent, nrenamed, nwaiting,
	       nrenamed_gone, nmoved, nshared, ntwice_rules, nxdp, nrefused,
	       nbad, ngone_rule, nlegal - missing, nlegal);
	if (missing) {
		printf("FAIL: %u bytes never in a saved name\n", missing);
		fail_count++;
	}
	printf("test_save_states: %s (%d failed)\n", fail_count ? "FAIL" : "ok",
	       fail_count);
	free(errors);
	return fail_count ? 1 : 0;
}
