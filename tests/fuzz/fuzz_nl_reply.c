// SPDX-License-Identifier: GPL-2.0
/*
 * ddfctl's decoders of the kernel's replies (nl.c, print.c, prom.c,
 * state.c) over any bytes a socket could hand it: the input is what one
 * read of the socket returns, messages of the family and errors alike.
 * Each message is decoded and printed as show, stats (text and JSON),
 * save and the Prometheus exposition print it, and as a request by -n.
 *
 * What a decoder reads stays inside the attribute it decodes: every
 * message is copied alone into memory of its own length, and then once
 * more for each of its attributes, with that attribute alone behind the
 * headers (a nest's: with each of its own alone in it), so that a read
 * past an attribute is a read past the memory ASan watches. And what save
 * writes of a rule decoded is a line restore reads back as that rule, or
 * a comment.
 */
#include <stdlib.h>
#include <string.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>

#include "ddfctl.h"
#include "ddf_registry.h"
#include "fuzz_rules.h"
#include "fuzz_tools.h"

#define HDRS (MNL_NLMSG_HDRLEN + GENL_HDRLEN)

static FILE *out;

/* no device's GRO asked, no BPF asked what runs at a device */
static int no_gro(const char *dev, unsigned int *on, unsigned int *fixed)
{
	*on = 0;
	if (fixed)
		*fixed = 0;
	return 0;
}

const char *__wrap_xdp_mode_on(int ifindex, uint32_t rule_id)
{
	return ifindex & 1 ? "native" : NULL;
}

void __wrap_xdp_attached(uint32_t rule_id, char *buf, size_t size)
{
	snprintf(buf, size, "%s", rule_id & 1 ? " eth0 (native, priority 5)" : "");
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	gro_ask = no_gro;
	out = fopen("/dev/null", "w");
	if (!out)
		abort();
	return 0;
}

/*
 * What save writes of a rule the kernel could hold reads back as it,
 * unless written as a comment. The kernel holds a key spec its checks
 * take and a filter's parameters as resolved (nf_ddf_parse.c): those of
 * the rule decoded are made so, or it is one no kernel reports.
 */
static void save_round_trip(const struct ddf_rule_info *got)
{
	static struct ddf_rule_info ri;
	struct restore_set s = { 0 }, back = { 0 };
	struct ddf_params again;
	char *text = NULL;
	const char *why;
	size_t len = 0;
	FILE *f;

	ri = *got;
	/* an aged filter's cpus: never fewer than the kernel's CPUs, >= 1 */
	if ((ri.rule.filter.params.kind == DDF_KIND_APBF ||
	     ri.rule.filter.params.kind == DDF_KIND_APBBF) &&
	    !ri.rule.filter.params.cpus)
		ri.rule.filter.params.cpus = 1;
	if (ddf_key_spec_validate(&ri.rule.key, &why) ||
	    ddf_params_resolve(&ri.rule.filter.params, &why))
		return;
	/* resolved params resolve to themselves (ddfctl_fpr() counts on it) */
	again = ri.rule.filter.params;
	fuzz_assert(!ddf_params_resolve(&again, &why) &&
		    !memcmp(&again, &ri.rule.filter.params, sizeof(again)),
		    "resolved params of kind %u resolve to others",
		    again.kind);
	f = open_memstream(&text, &len);
	if (!f || state_add_rule(&s, &ri))
		abort();
	state_print(f, &s);
	fclose(f);
	if (getenv("DDF_FUZZ_VERBOSE"))
		fprintf(stderr, "saved: %s", text);
	if (text[0] != '#') {
		FILE *in = fmemopen(text, strlen(text), "r");

		if (!in)
			abort();
		fuzz_assert(!restore_read(in, &back) && back.n == 1,
			    "save's line of a rule reads back as %zu rules: %s",
			    back.n, text);
		fclose(in);
		/* as save holds it: its devices by the names they joined with */
		fuzz_same_rule("a rule saved and restored", &s.v[0].rule,
			       &back.v[0].rule);
	}
	restore_free(&back);
	restore_free(&s);
	free(text);
}

/* every decoder over the message at nlh, nlh->nlmsg_len bytes */
static void decode_all(const struct nlmsghdr *nlh)
{
	static struct ddf_rule_info ri;

	ddfctl_json = false;
	print_request(out, nlh);
	print_rule_reply(out, nlh, false);
	print_rule_reply(out, nlh, true);
	print_rule_save(out, nlh);
	ddfctl_json = true;
	print_rule_reply(out, nlh, false);
	print_rule_reply(out, nlh, true);
	ddfctl_json = false;
	if (!decode_rule(nlh, &ri)) {
		prom_print(out, &ri, 1);
		save_round_trip(&ri);
	}
}

/* the message of the headers of nlh and the n bytes at a, alone */
static void alone(const struct nlmsghdr *nlh, const void *a, size_t n)
{
	struct nlmsghdr *m = malloc(HDRS + n);

	if (!m)
		abort();
	memcpy(m, nlh, HDRS);
	memcpy((char *)m + HDRS, a, n);
	m->nlmsg_len = (uint32_t)(HDRS + n);
	decode_all(m);
	free(m);
}

static int each_message(const struct nlmsghdr *nlh, void *data)
{
	struct nlmsghdr *m = malloc(nlh->nlmsg_len);
	const struct nlattr *attr;

	if (!m)
		abort();
	memcpy(m, nlh, nlh->nlmsg_len);
	decode_all(m);
	free(m);
	if (nlh->nlmsg_len < HDRS)
		return MNL_CB_OK;
	/* up to the message's own end: libmnl's walk goes to its padding */
	mnl_attr_for_each_payload((const void *)((const char *)nlh + HDRS),
				  nlh->nlmsg_len - HDRS) {
		const struct nlattr *in;
		uint8_t *one;

		alone(nlh, attr, attr->nla_len);
		/* a nest with each of its attributes alone in it */
		if (mnl_attr_get_payload_len(attr) < MNL_ATTR_HDRLEN)
			continue;
		mnl_attr_for_each_nested(in, attr) {
			size_t n = MNL_ATTR_HDRLEN + in->nla_len;

			one = malloc(n);
			if (!one)
				abort();
			memcpy(one, attr, MNL_ATTR_HDRLEN);
			memcpy(one + MNL_ATTR_HDRLEN, in, in->nla_len);
			((struct nlattr *)one)->nla_len = (uint16_t)n;
			alone(nlh, one, n);
			free(one);
		}
	}
	return MNL_CB_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	void *buf = malloc(size ? size : 1);

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	ddfctl_replies(buf, size, 0, 0, each_message, NULL);
	free(buf);
	return 0;
}
