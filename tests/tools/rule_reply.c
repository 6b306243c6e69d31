// SPDX-License-Identifier: GPL-2.0
/* GET replies as the kernel writes them (rule_reply.h). */
#include <string.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>

#include "ddfctl.h"
#include "rule_reply.h"

static void put_counters(struct nlmsghdr *nlh, const uint64_t *c)
{
	for (int i = 0; i < NCTR; i++)
		mnl_attr_put_u64(nlh, DDF_STATS_A_PACKETS + i, c[i]);
}

/* A reply's headers: rq's (its command too, which no reply printer reads) */
struct nlmsghdr *reply_start(const struct nlmsghdr *rq, char *buf)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);

	*nlh = *rq;
	nlh->nlmsg_len = MNL_NLMSG_HDRLEN;
	memcpy(mnl_nlmsg_put_extra_header(nlh, GENL_HDRLEN),
	       mnl_nlmsg_get_payload(rq), GENL_HDRLEN);
	return nlh;
}

/* rq's attributes as nf_ddf_fill_rule() reports them (rule_reply.h) */
void reply_put_request(struct nlmsghdr *nlh, const struct nlmsghdr *rq,
		       uint8_t hash_alg, uint64_t bytes, uint32_t skip)
{
	const struct nlattr *a, *b;
	struct nlattr *n;

	mnl_attr_for_each(a, rq, GENL_HDRLEN) {
		if (skip & 1u << mnl_attr_get_type(a))
			continue;
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
		mnl_attr_put_u8(nlh, DDF_FILTER_A_HASH, hash_alg);
		mnl_attr_put_u64(nlh, DDF_FILTER_A_BYTES, bytes);
		mnl_attr_nest_end(nlh, n);
	}
}

/*
 * A GET reply for r as the kernel writes one (a dump's: NLM_F_MULTI):
 * rule add's request with the attributes only replies carry.
 */
struct nlmsghdr *rule_reply(const struct rule_reply *r, char *buf)
{
	static char req_buf[8192];
	struct ddf_cmd_req req = { .op = OP_RULE_ADD };
	char line[1024], *w[64], *save, *t;
	struct nlmsghdr *rq, *nlh;
	struct nlattr *n, *list, *e;
	int nw = 0;

	snprintf(line, sizeof(line), "x %s", r->words);
	for (t = strtok_r(line, " ", &save); t && nw < 64;
	     t = strtok_r(NULL, " ", &save))
		w[nw++] = t;
	if (parse_rule_add(nw, w, &req.rule))
		return NULL;
	rq = ddfctl_build(&req, req_buf);
	if (!rq)
		return NULL;
	nlh = reply_start(rq, buf);
	nlh->nlmsg_flags = NLM_F_MULTI;
	mnl_attr_put_strz(nlh, DDF_A_NAME, r->name);
	mnl_attr_put_u32(nlh, DDF_A_ID, 42);
	if (r->ndevs) {
		mnl_attr_put_strz(nlh, DDF_A_DEV, r->devs[0].name);
		mnl_attr_put_u32(nlh, DDF_A_DEV_IFINDEX, r->devs[0].ifindex);
		list = mnl_attr_nest_start(nlh, DDF_A_DEVS);
		for (unsigned int i = 0; i < r->ndevs; i++) {
			e = mnl_attr_nest_start(nlh, i + 1);
			mnl_attr_put_strz(nlh, DDF_DEV_A_NAME, r->devs[i].name);
			mnl_attr_put_u32(nlh, DDF_DEV_A_IFINDEX,
					 r->devs[i].ifindex);
			mnl_attr_put_strz(nlh, DDF_DEV_A_GIVEN,
					  r->devs[i].given);
			n = mnl_attr_nest_start(nlh, DDF_DEV_A_STATS);
			put_counters(nlh, r->devs[i].c);
			mnl_attr_nest_end(nlh, n);
			mnl_attr_nest_end(nlh, e);
		}
		mnl_attr_nest_end(nlh, list);
	}
	/*
	 * The name as given and the devices' names as they are now: r's;
	 * the devices before the filter, as the kernel puts them, so that a
	 * reader that takes the first "bytes" takes a device's
	 */
	reply_put_request(nlh, rq, req.rule.hash_alg, r->bytes,
			  1u << DDF_A_NAME | 1u << DDF_A_DEV |
			  1u << DDF_A_DEVS);
	n = mnl_attr_nest_start(nlh, DDF_A_STATS);
	put_counters(nlh, r->c);
	mnl_attr_put_u64(nlh, DDF_STATS_A_GENERATION, r->generation);
	mnl_attr_put_u32(nlh, DDF_STATS_A_FILL_PPM, r->fill_ppm);
	mnl_attr_nest_end(nlh, n);
	return nlh;
}

/* a byte the kernel takes in a device's name: not '/', ':' or its isspace() */
static int ifname_byte(int c)
{
	return c != '/' && c != ':' && c != ' ' && (c < '\t' || c > '\r') &&
	       c != 0xa0;
}

void odd_rules(struct rule_reply *v)
{
	/* the names, NUL-separated; "dev p0,p1,...": the words' placeholders */
	static char names[ODD_RULES - 1][32], devs[256][16];
	static char words[ODD_RULES - 1][DDF_DEVS_MAX * 4 + 64];
	static const struct rule_reply same = {
		"family netdev hook none dev p0,p1,p2,p3,p4,p5,p6,p7 window 1000",
		"same-ports", 4096, { 31, 3100, 1, 1, 0, 0 }, 0, 10,
		8, { { "eth0", "eth1", 3, { 1, 100, 0, 0, 0, 0 } },
		     { "eth0", "eth0", 0, { 2, 200, 0, 0, 0, 0 } },
		     { "eth0#2", "eth0#2", 4, { 3, 300, 0, 0, 0, 0 } },
		     { "eth0#1", "eth0#1", 5, { 4, 400, 1, 1, 0, 0 } },
		     { "a\xff", "a\xff", 6, { 5, 500, 0, 0, 0, 0 } },
		     { "a\xfe", "a\xfe", 7, { 6, 600, 0, 0, 0, 0 } },
		     { "q\"#\\x", "q\"#\\x", 8, { 7, 700, 0, 0, 0, 0 } },
		     { "\x01\x1c\x7f\xc3\xa9\xe2\x82", "\x01", 9,
		       { 3, 300, 0, 0, 0, 0 } } } };
	int c = 0x21, d = 1, ndevs = 0;

	v[0] = same;
	/* the devices' names, 15 bytes each */
	while (d < 256) {
		int n = 0;

		while (d < 256 && n < 15) {
			if (ifname_byte(d))
				devs[ndevs][n++] = (char)d;
			d++;
		}
		ndevs += n > 0;
	}
	for (int r = 0; r < ODD_RULES - 1; r++) {
		struct rule_reply *x = &v[r + 1];
		size_t len;
		int n = snprintf(names[r], sizeof(names[r]), "g%d-", r);

		/* its own beginning keeps it apart from the others in a label */
		while (c <= 0x7e && n < 31)
			names[r][n++] = (char)c++;
		memset(x, 0, sizeof(*x));
		x->name = names[r];
		x->bytes = 4096;
		x->c[0] = 1000 + r;
		len = snprintf(words[r], sizeof(words[r]),
			       "family netdev hook none window 1000 dev ");
		for (int i = r; i < ndevs; i += ODD_RULES - 1) {
			struct dev_reply *dv = &x->devs[x->ndevs];

			dv->name = dv->given = devs[i];
			dv->ifindex = 100 + i;
			dv->c[0] = 100 * r + x->ndevs;
			len += snprintf(words[r] + len, sizeof(words[r]) - len,
					"%sp%u", x->ndevs ? "," : "", x->ndevs);
			x->ndevs++;
		}
		if (!x->ndevs)
			snprintf(words[r], sizeof(words[r]), "window 1000");
		x->words = words[r];
	}
}
