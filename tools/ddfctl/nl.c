// SPDX-License-Identifier: GPL-2.0
/*
 * Netlink: one request per command, built from the parsed struct. With -n
 * the request is decoded and printed instead of sent, so the grammar can
 * be checked without the module.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>

#include "ddfctl.h"

/* what a reply callback does with each rule message */
enum reply_mode { R_NONE, R_SHOW, R_STATS, R_SAVE, R_FETCH };

struct reply_ctx {
	enum reply_mode mode;
	bool array; /* JSON of a dump: one array of rule objects */
	unsigned int rules;
	FILE *out;
	/* R_FETCH: each rule decoded, handed to fetch once the reply is whole */
	void (*fetch)(const struct ddf_rule_info *ri, void *arg);
	void (*restart)(void *arg); /* a dump asked again: forget the rules */
	void *arg;
	struct ddf_rule_info *got;
	size_t ngot, cap;
};

/*
 * Dumps that the rules changed under (EINTR) are asked again this often,
 * a pause of one more millisecond (at most DUMP_PAUSE_MS) after each, so
 * that the tries fall at different moments of a burst of changes: under
 * a second of pauses in all before giving up. Ten tries back to back could
 * all lose to a tool changing rules some 300 times a second.
 */
#define DUMP_TRIES 50
#define DUMP_PAUSE_MS 20

static void put_filter(struct nlmsghdr *nlh, const struct ddf_rule_spec *r)
{
	const struct ddf_params *p = &r->filter.params;
	struct nlattr *n = mnl_attr_nest_start(nlh, DDF_A_FILTER);

	mnl_attr_put_u32(nlh, DDF_FILTER_A_KIND, p->kind);
	mnl_attr_put_u64(nlh, DDF_FILTER_A_WINDOW, p->window);
	if (p->flags & DDF_PF_TIME)
		mnl_attr_put_u64(nlh, DDF_FILTER_A_WINDOW_NS, p->window_ns);
	/* only the members this kind has: zero means "not part of it" */
	if (p->k)
		mnl_attr_put_u32(nlh, DDF_FILTER_A_K, p->k);
	if (p->l)
		mnl_attr_put_u32(nlh, DDF_FILTER_A_L, p->l);
	if (p->m)
		mnl_attr_put_u64(nlh, DDF_FILTER_A_M, p->m);
	if (p->block_bits)
		mnl_attr_put_u32(nlh, DDF_FILTER_A_BLOCK_BITS, p->block_bits);
	if (p->block_hashes)
		mnl_attr_put_u32(nlh, DDF_FILTER_A_BLOCK_HASHES,
				 p->block_hashes);
	if (p->fp_bits)
		mnl_attr_put_u32(nlh, DDF_FILTER_A_FP_BITS, p->fp_bits);
	if (p->cell_bits)
		mnl_attr_put_u32(nlh, DDF_FILTER_A_CELL_BITS, p->cell_bits);
	if (p->decrements)
		mnl_attr_put_u32(nlh, DDF_FILTER_A_DECREMENTS, p->decrements);
	if (p->inner_kind)
		mnl_attr_put_u32(nlh, DDF_FILTER_A_INNER_KIND, p->inner_kind);
	if (p->subfilters)
		mnl_attr_put_u32(nlh, DDF_FILTER_A_SUBFILTERS, p->subfilters);
	if (p->p_star)
		mnl_attr_put_u32(nlh, DDF_FILTER_A_P_STAR, p->p_star);
	if (p->cpus)
		mnl_attr_put_u32(nlh, DDF_FILTER_A_CPUS, p->cpus);
	if (r->has_seed)
		mnl_attr_put(nlh, DDF_FILTER_A_SEED, DDF_SEED_LEN, r->seed);
	/* absent: the kernel's default, SipHash-1-3 */
	if (r->hash_alg != DDF_HASH_ALG_SIPHASH13)
		mnl_attr_put_u8(nlh, DDF_FILTER_A_HASH, r->hash_alg);
	mnl_attr_nest_end(nlh, n);
}

/*
 * The key: its form and that form's members. Form fields sends the ignore
 * bits only when it has link-layer ones (the others mask no field), form
 * frame always sends them (only link-layer ones), and the tunnels go with
 * every form, their ports when not the default.
 */
static void put_key(struct nlmsghdr *nlh, const struct ddf_key_spec *k)
{
	struct nlattr *n = mnl_attr_nest_start(nlh, DDF_A_KEY);

	switch (k->form) {
	case DDF_KEY_FIELDS:
		mnl_attr_put_u8(nlh, DDF_KEY_A_FORM, DDF_KEY_TYPE_FIELDS);
		mnl_attr_put_u32(nlh, DDF_KEY_A_FIELDS, k->fields);
		if (k->fields & DDF_KF_PAYLOAD) {
			mnl_attr_put_u16(nlh, DDF_KEY_A_PAYLOAD_OFF,
					 k->payload_off);
			mnl_attr_put_u16(nlh, DDF_KEY_A_PAYLOAD_LEN,
					 k->payload_len);
		}
		if (k->ignore & DDF_KI_L2)
			mnl_attr_put_u32(nlh, DDF_KEY_A_IGNORE,
					 k->ignore & DDF_KI_L2);
		break;
	case DDF_KEY_FRAME:
		mnl_attr_put_u8(nlh, DDF_KEY_A_FORM, DDF_KEY_TYPE_FRAME);
		mnl_attr_put_u32(nlh, DDF_KEY_A_IGNORE, k->ignore & DDF_KI_L2);
		break;
	default:
		mnl_attr_put_u8(nlh, DDF_KEY_A_FORM, DDF_KEY_TYPE_PACKET);
		mnl_attr_put_u32(nlh, DDF_KEY_A_IGNORE, k->ignore);
		mnl_attr_put_u32(nlh, DDF_KEY_A_MAX_BYTES, k->max_bytes);
		break;
	}
	if (k->decap) {
		mnl_attr_put_u32(nlh, DDF_KEY_A_DECAP, k->decap);
		if ((k->decap & DDF_KD_VXLAN) && k->vxlan_port)
			mnl_attr_put_u16(nlh, DDF_KEY_A_VXLAN_PORT,
					 k->vxlan_port);
		if ((k->decap & DDF_KD_GENEVE) && k->geneve_port)
			mnl_attr_put_u16(nlh, DDF_KEY_A_GENEVE_PORT,
					 k->geneve_port);
	}
	mnl_attr_nest_end(nlh, n);
}

static void put_rule(struct nlmsghdr *nlh, const struct ddf_rule_spec *r)
{
	struct nlattr *n;

	mnl_attr_put_strz(nlh, DDF_A_NAME, r->name);
	mnl_attr_put_u8(nlh, DDF_A_FAMILY, r->family);
	mnl_attr_put_u8(nlh, DDF_A_HOOK, r->hook);
	/* one device as a rule of one device always said it */
	if (r->ndevs == 1)
		mnl_attr_put_strz(nlh, DDF_A_DEV, r->devs[0]);
	if (r->ndevs > 1) {
		n = mnl_attr_nest_start(nlh, DDF_A_DEVS);
		for (unsigned int i = 0; i < r->ndevs; i++) {
			struct nlattr *d = mnl_attr_nest_start(nlh, i + 1);

			mnl_attr_put_strz(nlh, DDF_DEV_A_NAME, r->devs[i]);
			mnl_attr_nest_end(nlh, d);
		}
		mnl_attr_nest_end(nlh, n);
	}
	mnl_attr_put_u32(nlh, DDF_A_PRIORITY, (uint32_t)r->priority);
	if (r->iif[0])
		mnl_attr_put_strz(nlh, DDF_A_IIFNAME, r->iif);
	if (r->oif[0])
		mnl_attr_put_strz(nlh, DDF_A_OIFNAME, r->oif);
	if (r->l4proto)
		mnl_attr_put_u8(nlh, DDF_A_L4PROTO, r->l4proto);
	put_key(nlh, &r->key);

	put_filter(nlh, r);

	n = mnl_attr_nest_start(nlh, DDF_A_ACTION);
	mnl_attr_put_u8(nlh, DDF_ACTION_A_TYPE, r->action);
	if (r->action == DDF_ACTION_MARK) {
		mnl_attr_put_u32(nlh, DDF_ACTION_A_MARK, r->mark);
		mnl_attr_put_u32(nlh, DDF_ACTION_A_MASK, r->mask);
	}
	mnl_attr_nest_end(nlh, n);
}

static struct nlmsghdr *put_header(char *buf, uint16_t type, uint8_t cmd,
				   uint16_t flags, uint32_t seq)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *g;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = seq;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = DDF_GENL_VERSION;
	return nlh;
}

/*
 * The attributes of a message from off bytes into its payload, up to its
 * own end: libmnl's mnl_attr_for_each() walks on into the padding after
 * a length that is not a multiple of 4, past the bytes read.
 */
#define attrs_from(attr, nlh, off)                                             \
	mnl_attr_for_each_payload(                                             \
		(const void *)((const char *)mnl_nlmsg_get_payload(nlh) +     \
			       (off)),                                        \
		(nlh)->nlmsg_len - MNL_NLMSG_HDRLEN - (off))

static int family_id_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *attr;

	if (nlh->nlmsg_len < MNL_NLMSG_HDRLEN + sizeof(struct genlmsghdr))
		return MNL_CB_OK;
	attrs_from(attr, nlh, sizeof(struct genlmsghdr))
		if (mnl_attr_get_type(attr) == CTRL_ATTR_FAMILY_ID &&
		    !mnl_attr_validate(attr, MNL_TYPE_U16))
			*(uint16_t *)data = mnl_attr_get_u16(attr);
	return MNL_CB_OK;
}

/* The kernel's own sentence (extended ack), shown beside its errno. */
static char extack[256];

static int error_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *attr;
	size_t off = sizeof(*e);

	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*e))) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	if (!e->error)
		return MNL_CB_STOP;
	/*
	 * the sentence follows the request echoed (uncapped: its payload
	 * too), as long as the request says: one longer than the error's
	 * message has no sentence after it
	 */
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off = e->msg.nlmsg_len < sizeof(struct nlmsghdr) ? SIZE_MAX :
		      off + e->msg.nlmsg_len - sizeof(struct nlmsghdr);
	if ((nlh->nlmsg_flags & NLM_F_ACK_TLVS) &&
	    off <= nlh->nlmsg_len - MNL_NLMSG_HDRLEN) {
		attrs_from(attr, nlh, off)
			if (mnl_attr_get_type(attr) == NLMSGERR_ATTR_MSG &&
			    !mnl_attr_validate(attr, MNL_TYPE_NUL_STRING))
				snprintf(extack, sizeof(extack), "%s",
					 mnl_attr_get_str(attr));
	}
	/* the kernel's errors are -4095..-1; any other is no error it sends */
	errno = e->error < 0 && e->error >= -4095 ? -e->error : EBADMSG;
	return MNL_CB_ERROR;
}

/* A dump ends with NLMSG_DONE and no ack: stop there. */
static int done_cb(const struct nlmsghdr *nlh, void *data)
{
	return MNL_CB_STOP;
}

int ddfctl_replies(const void *buf, size_t n, uint32_t seq, uint32_t portid,
		   mnl_cb_t cb, void *data)
{
	static mnl_cb_t ctl[NLMSG_MIN_TYPE] = {
		[NLMSG_ERROR] = error_cb,
		[NLMSG_DONE] = done_cb,
	};
	const char *p = buf, *end = p + n;

	/*
	 * libmnl compares a message's length with the bytes left as an int:
	 * one of 2^31 or more passes, and its callbacks would read that far
	 */
	while ((size_t)(end - p) >= sizeof(struct nlmsghdr)) {
		const struct nlmsghdr *nlh = (const struct nlmsghdr *)p;

		if (nlh->nlmsg_len < sizeof(*nlh) ||
		    nlh->nlmsg_len > (size_t)(end - p)) {
			errno = EBADMSG;
			return MNL_CB_ERROR;
		}
		if (MNL_ALIGN(nlh->nlmsg_len) >= (size_t)(end - p))
			break;
		p += MNL_ALIGN(nlh->nlmsg_len);
	}
	return mnl_cb_run2(buf, n, seq, portid, cb, data, ctl, NLMSG_MIN_TYPE);
}

static int talk(struct mnl_socket *nl, struct nlmsghdr *nlh,
		mnl_cb_t cb, void *data)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	uint32_t portid = mnl_socket_get_portid(nl), seq = nlh->nlmsg_seq;
	ssize_t n;
	int ret;

	extack[0] = 0;
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	do {
		n = mnl_socket_recvfrom(nl, buf, sizeof(buf));
		if (n < 0)
			return -errno;
		ret = ddfctl_replies(buf, (size_t)n, seq, portid, cb, data);
	} while (ret > 0);
	return ret < 0 ? -errno : 0;
}

/* Whether the first line of path starts with what */
static bool file_starts(const char *path, const char *what)
{
	char line[128] = "";
	FILE *f = fopen(path, "r");

	if (!f)
		return false;
	if (!fgets(line, sizeof(line), f))
		line[0] = 0;
	fclose(f);
	return !strncmp(line, what, strlen(what));
}

/*
 * Whether this kernel loads only modules signed by a key it trusts:
 * module.sig_enforce (Debian's kernels set it under Secure Boot; it makes
 * an unsigned module fail with EKEYREJECTED) or a lockdown (EPERM). Only
 * that is asked: the kernel keeps no record of a refusal that ddfctl can
 * read, so the advice names what modprobe said.
 */
static bool sig_enforced(void)
{
	return file_starts("/sys/module/module/parameters/sig_enforce", "Y") ||
	       (!access("/sys/kernel/security/lockdown", F_OK) &&
		!file_starts("/sys/kernel/security/lockdown", "[none]"));
}

static int resolve_family(struct mnl_socket *nl, uint16_t *id)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	struct genlmsghdr *g;
	int err;

	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = GENL_ID_CTRL;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = (uint32_t)time(NULL);
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = CTRL_CMD_GETFAMILY;
	g->version = 1;
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, DDF_GENL_NAME);
	*id = 0;
	err = talk(nl, nlh, family_id_cb, id);
	if ((err == -ENOENT || (!err && !*id)) && sig_enforced())
		return ddfctl_err("generic netlink family '%s' not found: nf_ddf is not loaded and this kernel takes only modules signed by a key it trusts (Secure Boot); if modprobe nf_ddf says \"Key was rejected by service\", enroll DKMS's key (mokutil --import /var/lib/dkms/mok.pub), reboot, confirm it in the MOK manager and run modprobe nf_ddf again",
				  DDF_GENL_NAME);
	if (err == -ENOENT || (!err && !*id))
		return ddfctl_err("generic netlink family '%s' not found: the nf_ddf module is not loaded (modprobe nf_ddf)",
				  DDF_GENL_NAME);
	if (err)
		return ddfctl_err("asking the kernel for family '%s': %s",
				  DDF_GENL_NAME, strerror(-err));
	return 0;
}

static int reply_cb(const struct nlmsghdr *nlh, void *data)
{
	struct reply_ctx *c = data;

	if (c->mode == R_FETCH) {
		if (c->ngot == c->cap) {
			size_t cap = c->cap ? 2 * c->cap : 16;
			void *v = realloc(c->got, cap * sizeof(*c->got));

			if (!v) {
				errno = ENOMEM;
				return MNL_CB_ERROR;
			}
			c->got = v;
			c->cap = cap;
		}
		if (!decode_rule(nlh, &c->got[c->ngot]))
			c->ngot++;
	} else if (c->mode == R_SAVE) {
		print_rule_save(c->out, nlh);
	} else if (c->mode != R_NONE) {
		if (c->array)
			fputs(c->rules ? ", " : "[", c->out);
		print_rule_reply(c->out, nlh, c->mode == R_STATS);
	}
	c->rules++;
	return MNL_CB_OK;
}

static const char *op_word(enum ddfctl_op op)
{
	switch (op) {
	case OP_RULE_ADD: return "rule add";
	case OP_RULE_DEL: return "rule del";
	case OP_RULE_RESET: return "rule reset";
	case OP_RULE_FLUSH: return "rule flush";
	case OP_SHOW: return "show";
	case OP_STATS: return "stats";
	case OP_SAVE: return "save";
	case OP_XDP: return "xdp";
	default: return "request";
	}
}

/*
 * One round trip on a new socket: 0 or the kernel's -errno; *said when it
 * failed here and said why.
 */
static int send_once(struct nlmsghdr *nlh, struct reply_ctx *ctx, bool *said)
{
	struct mnl_socket *nl;
	uint16_t id;
	int err, one;

	*said = true;
	nl = mnl_socket_open(NETLINK_GENERIC);
	if (!nl)
		return ddfctl_err("netlink socket: %s", strerror(errno));
	/* ask for the kernel's error sentences, without our request echoed */
	one = 1;
	mnl_socket_setsockopt(nl, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(nl, NETLINK_CAP_ACK, &one, sizeof(one));
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		err = errno;
		mnl_socket_close(nl);
		return ddfctl_err("netlink bind: %s", strerror(err));
	}
	if (resolve_family(nl, &id)) {
		mnl_socket_close(nl);
		return -1;
	}
	*said = false;
	nlh->nlmsg_type = id;
	err = talk(nl, nlh, reply_cb, ctx);
	mnl_socket_close(nl);
	return err;
}

static void dump_pause(int tries)
{
	int ms = tries < DUMP_PAUSE_MS ? tries : DUMP_PAUSE_MS;
	struct timespec ts = { 0, ms * 1000000L };

	nanosleep(&ts, NULL);
}

static int send_request(char *buf, const struct ddf_cmd_req *req,
			struct reply_ctx ctx)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)buf;
	bool dump = nlh->nlmsg_flags & NLM_F_DUMP;
	char *text = NULL;
	size_t len = 0;
	int err, tries;
	bool said;

	/*
	 * A dump that rules changed under may repeat or miss rules: the
	 * kernel says so (NLM_F_DUMP_INTR, EINTR here) and it is asked
	 * again; only a whole one is printed.
	 */
	for (tries = 1;; tries++) {
		if (dump) {
			ctx.out = open_memstream(&text, &len);
			if (!ctx.out)
				return ddfctl_err("a buffer: %s", strerror(errno));
		}
		ctx.rules = 0;
		if (ctx.restart)
			ctx.restart(ctx.arg);
		ctx.ngot = 0;
		err = send_once(nlh, &ctx, &said);
		if (dump)
			fclose(ctx.out);
		if (said) {
			free(text);
			free(ctx.got);
			return err;
		}
		if (err != -EINTR || !dump || tries == DUMP_TRIES)
			break;
		free(text);
		text = NULL;
		dump_pause(tries);
	}
	if (!err && text)
		fwrite(text, 1, len, stdout);
	free(text);
	/* the rules of a whole reply only, as what is printed */
	for (size_t i = 0; !err && i < ctx.ngot; i++)
		ctx.fetch(&ctx.got[i], ctx.arg);
	free(ctx.got);
	if (!err && ctx.array)
		puts(ctx.rules ? "]" : "[]");
	if (err == -EINTR && dump)
		return ddfctl_err("%s: the rules kept changing during %d dumps",
				  op_word(req->op), DUMP_TRIES);
	if (err == -ENOENT && req->rule.name[0])
		return ddfctl_err("%s: no rule named '%s'", op_word(req->op),
				  req->rule.name);
	if (err == -EEXIST)
		return ddfctl_err("%s: a rule named '%s' exists already",
				  op_word(req->op), req->rule.name);
	if (err && extack[0])
		return ddfctl_err("%s: the kernel refused: %s (%s)",
				  op_word(req->op), extack, strerror(-err));
	if (err)
		return ddfctl_err("%s: the kernel refused: %s", op_word(req->op),
				  strerror(-err));
	return 0;
}

/* The request for req in buf (8 KiB), or NULL. */
struct nlmsghdr *ddfctl_build(const struct ddf_cmd_req *req, char *buf)
{
	uint32_t seq = (uint32_t)time(NULL);
	struct nlmsghdr *nlh;
	/* the family id is filled in once known; 0 in a dry run */
	uint16_t type = 0;

	switch (req->op) {
	case OP_RULE_ADD:
		nlh = put_header(buf, type, DDF_CMD_NEW,
				 NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL, seq);
		put_rule(nlh, &req->rule);
		break;
	case OP_RULE_DEL:
		nlh = put_header(buf, type, DDF_CMD_DEL, NLM_F_ACK, seq);
		mnl_attr_put_strz(nlh, DDF_A_NAME, req->rule.name);
		break;
	case OP_RULE_RESET:
		nlh = put_header(buf, type, DDF_CMD_RESET, NLM_F_ACK, seq);
		mnl_attr_put_strz(nlh, DDF_A_NAME, req->rule.name);
		/* absent, the kernel zeroes the counters only */
		if (req->reset_flags)
			mnl_attr_put_u32(nlh, DDF_A_RESET_FLAGS,
					 req->reset_flags);
		break;
	case OP_RULE_FLUSH:
		nlh = put_header(buf, type, DDF_CMD_FLUSH, NLM_F_ACK, seq);
		break;
	case OP_SHOW:
	case OP_STATS:
	case OP_SAVE:
	case OP_XDP:
		nlh = put_header(buf, type, DDF_CMD_GET,
				 req->has_name ? NLM_F_ACK : NLM_F_DUMP, seq);
		if (req->has_name)
			mnl_attr_put_strz(nlh, DDF_A_NAME, req->rule.name);
		break;
	default:
		return NULL;
	}
	return nlh;
}

int ddfctl_run(const struct ddf_cmd_req *req)
{
	static char buf[8192];
	struct nlmsghdr *nlh = ddfctl_build(req, buf);
	enum reply_mode mode = req->op == OP_SHOW ? R_SHOW :
			       req->op == OP_STATS ? R_STATS :
			       req->op == OP_SAVE ? R_SAVE : R_NONE;

	if (!nlh)
		return ddfctl_err("internal: no request for this command");
	if (ddfctl_dry_run) {
		print_request(stdout, nlh);
		return 0;
	}
	return send_request(buf, req, (struct reply_ctx){
		.mode = mode,
		.array = ddfctl_json && !req->has_name &&
			 (mode == R_SHOW || mode == R_STATS),
		.out = stdout,
	});
}

int ddfctl_fetch_req(const struct ddf_cmd_req *req,
		     void (*fn)(const struct ddf_rule_info *ri, void *arg),
		     void *arg)
{
	static char buf[8192];
	struct nlmsghdr *nlh = ddfctl_build(req, buf);

	if (!nlh)
		return ddfctl_err("internal: no request for this command");
	return send_request(buf, req, (struct reply_ctx){
		.mode = R_FETCH, .out = stdout, .fetch = fn, .arg = arg,
	});
}

int ddfctl_fetch(const char *name,
		 void (*fn)(const struct ddf_rule_info *ri, void *arg),
		 void *arg)
{
	struct ddf_cmd_req req = { .op = OP_XDP, .has_name = !!name };

	if (name)
		snprintf(req.rule.name, sizeof(req.rule.name), "%s", name);
	return ddfctl_fetch_req(&req, fn, arg);
}

int ddfctl_fetch_all(void (*fn)(const struct ddf_rule_info *ri, void *arg),
		     void (*restart)(void *arg), void *arg)
{
	static char buf[8192];
	/* the dump save asks for: its errors say "save" */
	struct ddf_cmd_req req = { .op = OP_SAVE };
	struct nlmsghdr *nlh = ddfctl_build(&req, buf);

	if (!nlh)
		return ddfctl_err("internal: no request for this command");
	return send_request(buf, &req, (struct reply_ctx){
		.mode = R_FETCH, .out = stdout, .fetch = fn,
		.restart = restart, .arg = arg,
	});
}
