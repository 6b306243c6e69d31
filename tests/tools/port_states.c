// SPDX-License-Identifier: GPL-2.0
/*
 * The states test_save_states.c saves and restores (port_states.h): a
 * namespace's devices and rules driven by generated events, played as
 * nf_ddf_dev.c plays them, and the rules reported as nf_ddf_netlink.c
 * reports them to save's own code (state.c).
 */
#include <string.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/netfilter.h>

#include "ddfctl.h"
#include "port_states.h"
#include "rule_reply.h"

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


unsigned char legal_bytes[256];
unsigned int nlegal;

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
				d->xdp.mode = 1 + below(2);
				/* in libxdp's dispatcher at some priority, or alone */
				d->xdp.exclusive = !below(3);
				d->xdp.prio = d->xdp.exclusive ? -1 :
					      (int)below(3) * 10;
			}
		}
		/* of no port of the rule (a device back under another name) */
		if (!below(8)) {
			int d = dev_in(m, 0);

			if (d >= 0 && !m->d[d].xdp_rule && !rule_has_dev(r, d)) {
				m->d[d].xdp_rule = r->id;
				m->d[d].xdp = (struct xdp_how){ 1, 10, false };
			}
		}
	}
	/* of a rule deleted since: a comment */
	if (!below(8)) {
		int d = dev_in(m, 0);

		if (d >= 0 && !m->d[d].xdp_rule) {
			m->d[d].xdp_rule = 999;
			m->d[d].xdp = (struct xdp_how){ 2, -1, true };
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
	struct nlattr *list, *e;

	req.rule.ndevs = 0;
	rq = ddfctl_build(&req, req_buf);
	nlh = reply_start(rq, buf);
	reply_put_request(nlh, rq, r->spec.hash_alg, 4096, 0);
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
char *model_save(const struct model *m, int *refused, struct restore_set *s)
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
					  &m->d[i].xdp))
				return NULL;
	f = open_memstream(&text, &len);
	*refused = state_print(f, s);
	fclose(f);
	return text;
}

/*
 * The namespace once the file is restored: each rule added with the names
 * written (a device per name, shared by the rules that name it), and
 * each program attached where its line says.
 */
void model_restored(const struct restore_set *s, struct model *m)
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
				m->d[d].xdp = s->x[i].how;
				/* listed as save listed them */
				m->d[d].order = (unsigned int)i;
			}
	}
}

int model_init(void)
{
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
			return -1;
		}
		/* as the kernel reports it: the shape it holds */
		base_spec[i].filter.shape = true;
	}
	return 0;
}

void model_seed(uint64_t seed)
{
	rng = seed;
}

void model_generate(struct model *m)
{
	m->nn = 2 + below(NAMES - 2);
	for (unsigned int i = 0; i < m->nn; i++)
		random_name(m->names[i]);
	for (unsigned int i = 0, n = 1 + below(6); i < n; i++)
		new_dev(m, pick_name(m));
	for (unsigned int k = 0, n = 1 + below(RULES_MAX); k < n; k++) {
		add_rule(m);
		for (unsigned int nev = below(24); nev; nev--)
			event(m);
	}
	add_programs(m);
}
