// SPDX-License-Identifier: GPL-2.0
/*
 * ddfchurn: change and read ddf rules as fast as a test asks, for the
 * load-and-churn suite (tests/robust/churn.sh).
 *
 *   ddfchurn churn -t SECONDS [-i USEC] [-n SLOTS] [-s SEED] -g FILE
 *	Learns the rules of its namespace as templates (a dump: their
 *	attributes, less the counters and the memory size), then issues one
 *	change per USEC (1000) for SECONDS over one netlink socket: add a
 *	rule cNN from a template, delete one, reset one's counters, reset
 *	its filter, flush all (the templates come back right after). One
 *	process forking ddfctl per change would measure fork and exec, not
 *	the module. Prints the operations per kind and the errors by errno;
 *	any error fails it (it is the only writer, so none is expected).
 *
 *   ddfchurn read -t SECONDS -g FILE [-c DDFCTL] [-d DUMPS]
 *	Runs "ddfctl -j stats", "-j show", and both for one template, in
 *	turn, for SECONDS, and after each run DUMPS (20) dumps of its own
 *	over netlink: a forked ddfctl costs a large part of a second under
 *	TCG. Each ddfctl output must parse as JSON; every rule must have a
 *	name and six counters, each below 2^40. A rule that no change
 *	touched from one read to the next (FILE holds a generation per rule
 *	that churn bumps around each change) must show counters that did not
 *	go down. ddfctl may give up on a dump of all the rules when every
 *	try was interrupted by a change (it says so): that is counted, not
 *	failed, but at least one whole dump must have been checked.
 *
 *   ddfchurn race -t SECONDS -r RULE
 *	A child resets RULE's counters and this process dumps the rules,
 *	each as fast as it goes: no counter may come out of range.
 *
 *   ddfchurn cycle -k MODULE.ko -w RULE:COUNTER [-w ...] [-c CYCLES]
 *	Learns the rules as churn does, then CYCLES (50) times: unloads the
 *	module (delete_module, as rmmod; /sys/module/NAME must go), loads it
 *	(finit_module, as insmod), adds the rules again and waits until each
 *	RULE's COUNTER is above zero. Prints the time of each step.
 *
 * FILE is shared (mmap): the rule names and their generations, odd while
 * a change of the rule is in flight.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/ddf.h>

#define MAX_TMPL	16
#define MAX_SLOTS	48
#define TMPL_BYTES	2048
#define SHM_MAGIC	0x64646663u	/* "ddfc" */
#define COUNTER_LIMIT	(1ull << 40)	/* no test sends this many packets */

static const char *cmd = "ddfchurn";

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- the shared generations ---- */

struct shm_slot {
	char name[DDF_NAME_MAX];
	uint64_t gen;
};

struct shm {
	uint32_t magic;
	uint32_t nslots;
	uint32_t ntmpl; /* slots 0 .. ntmpl-1 are the templates */
	uint32_t pad;
	struct shm_slot slot[MAX_SLOTS];
};

static struct shm *shm_map(const char *path, bool create)
{
	struct shm *s;
	int fd;

	fd = open(path, create ? O_RDWR | O_CREAT | O_TRUNC : O_RDWR, 0600);
	if (fd < 0)
		die("%s: %s", path, strerror(errno));
	if (create && ftruncate(fd, sizeof(*s)))
		die("%s: %s", path, strerror(errno));
	s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (s == MAP_FAILED)
		die("mmap %s: %s", path, strerror(errno));
	close(fd);
	return s;
}

static uint64_t gen_get(struct shm *s, unsigned int i)
{
	return __atomic_load_n(&s->slot[i].gen, __ATOMIC_SEQ_CST);
}

static void gen_bump(struct shm *s, unsigned int i)
{
	__atomic_add_fetch(&s->slot[i].gen, 1, __ATOMIC_SEQ_CST);
}

/* ---- netlink ---- */

struct nl {
	struct mnl_socket *sock;
	uint16_t family;
	uint32_t seq;
	char extack[256];
};

/* The socket whose request is in flight: its ack's sentence goes there. */
static struct nl *nl_cur;

static int nl_error_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	struct nl *nl = nl_cur;
	const struct nlattr *a;
	size_t off = sizeof(*e);

	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*e))) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	if (!e->error)
		return MNL_CB_STOP;
	if (nlh->nlmsg_flags & NLM_F_ACK_TLVS) {
		if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
			off += e->msg.nlmsg_len - sizeof(struct nlmsghdr);
		mnl_attr_for_each(a, nlh, off)
			if (mnl_attr_get_type(a) == NLMSGERR_ATTR_MSG &&
			    !mnl_attr_validate(a, MNL_TYPE_NUL_STRING))
				snprintf(nl->extack, sizeof(nl->extack), "%s",
					 mnl_attr_get_str(a));
	}
	errno = -e->error;
	return MNL_CB_ERROR;
}

static int nl_done_cb(const struct nlmsghdr *nlh, void *data)
{
	return MNL_CB_STOP;
}

/* Send nlh and read to its ack or the dump's end: 0 or -errno. */
static int nl_talk(struct nl *nl, struct nlmsghdr *nlh, mnl_cb_t cb,
		   void *data)
{
	mnl_cb_t ctl[NLMSG_MIN_TYPE] = {
		[NLMSG_ERROR] = nl_error_cb,
		[NLMSG_DONE] = nl_done_cb,
	};
	static char buf[32768]; /* a dump's round */
	uint32_t portid = mnl_socket_get_portid(nl->sock);
	ssize_t n;
	int ret;

	nl_cur = nl;
	nl->extack[0] = 0;
	nlh->nlmsg_seq = ++nl->seq;
	if (mnl_socket_sendto(nl->sock, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	do {
		n = mnl_socket_recvfrom(nl->sock, buf, sizeof(buf));
		if (n < 0)
			return -errno;
		ret = mnl_cb_run2(buf, n, nl->seq, portid, cb, data, ctl,
				  NLMSG_MIN_TYPE);
	} while (ret > 0);
	return ret < 0 ? -errno : 0;
}

static int family_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *a;

	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr))
		if (mnl_attr_get_type(a) == CTRL_ATTR_FAMILY_ID)
			*(uint16_t *)data = mnl_attr_get_u16(a);
	return MNL_CB_OK;
}

static struct nlmsghdr *nl_header(char *buf, uint16_t type, uint8_t gcmd,
				  uint16_t flags, uint8_t version)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *g;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = gcmd;
	g->version = version;
	return nlh;
}

static void nl_open(struct nl *nl)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	int one = 1, err;

	nl->sock = mnl_socket_open(NETLINK_GENERIC);
	if (!nl->sock)
		die("netlink socket: %s", strerror(errno));
	mnl_socket_setsockopt(nl->sock, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(nl->sock, NETLINK_CAP_ACK, &one, sizeof(one));
	if (mnl_socket_bind(nl->sock, 0, MNL_SOCKET_AUTOPID) < 0)
		die("netlink bind: %s", strerror(errno));
	nlh = nl_header(buf, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, NLM_F_ACK, 1);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, DDF_GENL_NAME);
	nl->family = 0;
	err = nl_talk(nl, nlh, family_cb, &nl->family);
	if (err || !nl->family)
		die("no generic netlink family %s: %s", DDF_GENL_NAME,
		    strerror(err ? -err : ENOENT));
}

/* ---- churn ---- */

/*
 * A rule's request attributes, as a dump reported them: every top-level
 * attribute but the name and the counters, the filter without its size.
 */
struct tmpl {
	char name[DDF_NAME_MAX];
	size_t len;
	char attrs[TMPL_BYTES];
};

struct learn {
	struct tmpl t[MAX_TMPL];
	unsigned int n;
};

static void put_copy(struct nlmsghdr *nlh, const struct nlattr *a)
{
	size_t len = mnl_attr_get_payload_len(a);

	if (nlh->nlmsg_len + MNL_ALIGN(MNL_ATTR_HDRLEN + len) > TMPL_BYTES)
		die("a template rule is too large");
	mnl_attr_put(nlh, a->nla_type, len, mnl_attr_get_payload(a));
}

static int learn_cb(const struct nlmsghdr *nlh, void *data)
{
	struct learn *l = data;
	char buf[TMPL_BYTES + 256];
	struct nlmsghdr *out;
	const struct nlattr *a, *f;
	struct tmpl *t;
	size_t hdr;

	if (l->n == MAX_TMPL)
		die("more than %d rules to learn", MAX_TMPL);
	t = &l->t[l->n++];
	out = nl_header(buf, 0, DDF_CMD_NEW, 0, DDF_GENL_VERSION);
	hdr = out->nlmsg_len;
	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		switch (mnl_attr_get_type(a)) {
		case DDF_A_NAME:
			snprintf(t->name, sizeof(t->name), "%s",
				 mnl_attr_get_str(a));
			break;
		case DDF_A_STATS: /* reply only */
		case DDF_A_ID:
		case DDF_A_DEV_IFINDEX:
			break;
		case DDF_A_FILTER: {
			struct nlattr *n = mnl_attr_nest_start(out, DDF_A_FILTER);

			mnl_attr_for_each_nested(f, a)
				if (mnl_attr_get_type(f) != DDF_FILTER_A_BYTES)
					put_copy(out, f);
			mnl_attr_nest_end(out, n);
			break;
		}
		default:
			put_copy(out, a);
		}
	}
	t->len = out->nlmsg_len - hdr;
	memcpy(t->attrs, (char *)out + hdr, t->len);
	return MNL_CB_OK;
}

enum op { OP_ADD, OP_DEL, OP_RESET, OP_RESET_FILTER, OP_FLUSH, OP_N };

static const char *const op_name[OP_N] = {
	"add", "del", "reset", "reset-filter", "flush",
};

struct churn {
	struct nl nl;
	struct shm *shm;
	struct learn l;
	unsigned int nslots; /* templates first, then the churn rules */
	bool present[MAX_SLOTS];
	unsigned int of[MAX_SLOTS]; /* the template of a churn rule */
	unsigned long ops[OP_N];
	unsigned long errs[OP_N];
	unsigned long by_errno[256];
	unsigned int shown;
	uint64_t rng;
};

static uint32_t rnd(struct churn *c, uint32_t n)
{
	/* xorshift64*: repeatable from -s */
	c->rng ^= c->rng >> 12;
	c->rng ^= c->rng << 25;
	c->rng ^= c->rng >> 27;
	return (uint32_t)((c->rng * 0x2545f4914f6cdd1dull) >> 32) % n;
}

static void count_err(struct churn *c, enum op op, const char *what, int err)
{
	c->errs[op]++;
	c->by_errno[-err < 256 ? -err : 255]++;
	if (c->shown++ < 10)
		fprintf(stderr, "%s: %s %s: %s%s%s%s\n", cmd, op_name[op], what,
			strerror(-err), c->nl.extack[0] ? " (" : "",
			c->nl.extack, c->nl.extack[0] ? ")" : "");
}

/*
 * One request about slot (every rule for flush). bump: the slot's
 * generation goes odd before and even after (flush bumps its own).
 */
static void churn_op(struct churn *c, enum op op, unsigned int slot, bool bump)
{
	char buf[TMPL_BYTES + 512];
	const char *name = c->shm->slot[slot].name;
	struct nlmsghdr *nlh;
	int err;

	switch (op) {
	case OP_ADD: {
		const struct tmpl *t = &c->l.t[c->of[slot]];

		nlh = nl_header(buf, c->nl.family, DDF_CMD_NEW,
				NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL,
				DDF_GENL_VERSION);
		mnl_attr_put_strz(nlh, DDF_A_NAME, name);
		memcpy(mnl_nlmsg_get_payload_tail(nlh), t->attrs, t->len);
		nlh->nlmsg_len += t->len;
		break;
	}
	case OP_DEL:
		nlh = nl_header(buf, c->nl.family, DDF_CMD_DEL, NLM_F_ACK,
				DDF_GENL_VERSION);
		mnl_attr_put_strz(nlh, DDF_A_NAME, name);
		break;
	case OP_RESET:
	case OP_RESET_FILTER:
		nlh = nl_header(buf, c->nl.family, DDF_CMD_RESET, NLM_F_ACK,
				DDF_GENL_VERSION);
		mnl_attr_put_strz(nlh, DDF_A_NAME, name);
		if (op == OP_RESET_FILTER)
			mnl_attr_put_u32(nlh, DDF_A_RESET_FLAGS,
					 DDF_RESET_F_FILTER);
		break;
	default:
		nlh = nl_header(buf, c->nl.family, DDF_CMD_FLUSH, NLM_F_ACK,
				DDF_GENL_VERSION);
		name = "(all)";
	}
	if (bump)
		gen_bump(c->shm, slot);
	err = nl_talk(&c->nl, nlh, NULL, NULL);
	if (bump)
		gen_bump(c->shm, slot);
	c->ops[op]++;
	if (err) {
		count_err(c, op, name, err);
		return;
	}
	if (op == OP_ADD)
		c->present[slot] = true;
	if (op == OP_DEL)
		c->present[slot] = false;
	if (op == OP_FLUSH)
		memset(c->present, 0, sizeof(c->present));
}

/* Flush, and the templates back: for readers, one change of every rule. */
static void churn_flush(struct churn *c)
{
	unsigned int i;

	for (i = 0; i < c->nslots; i++)
		gen_bump(c->shm, i);
	churn_op(c, OP_FLUSH, 0, false);
	for (i = 0; i < c->l.n; i++)
		churn_op(c, OP_ADD, i, false);
	for (i = 0; i < c->nslots; i++)
		gen_bump(c->shm, i);
}

/* A random slot of the churn rules (from) or of all, present or not. */
static int pick(struct churn *c, unsigned int from, bool present)
{
	unsigned int n = c->nslots - from, i, start = rnd(c, n);

	for (i = 0; i < n; i++) {
		unsigned int s = from + (start + i) % n;

		if (c->present[s] == present)
			return (int)s;
	}
	return -1;
}

static void churn_step(struct churn *c)
{
	unsigned int ntmpl = c->l.n, r = rnd(c, 1000), i;
	int s;

	if (r < 5) { /* 0.5 %: flush, then the templates come back */
		churn_flush(c);
		return;
	}
	if (r < 330) {
		s = pick(c, ntmpl, false);
		if (s >= 0) {
			c->of[s] = rnd(c, ntmpl);
			churn_op(c, OP_ADD, s, true);
			return;
		}
	}
	if (r < 600) {
		s = pick(c, ntmpl, true);
		if (s >= 0) {
			churn_op(c, OP_DEL, s, true);
			return;
		}
	}
	s = pick(c, 0, true);
	if (s < 0) { /* nothing to reset: a template is missing */
		for (i = 0; i < ntmpl; i++)
			if (!c->present[i])
				churn_op(c, OP_ADD, i, true);
		return;
	}
	churn_op(c, r < 800 ? OP_RESET : OP_RESET_FILTER, s, true);
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

static int cmd_churn(double secs, long usec, unsigned int nchurn,
		     uint64_t seed, const char *file)
{
	static struct churn c;
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	unsigned long total = 0, late = 0;
	double t0, t, next;
	unsigned int i;
	int err;

	c.rng = seed ? seed : 1;
	nl_open(&c.nl);
	nlh = nl_header(buf, c.nl.family, DDF_CMD_GET, NLM_F_DUMP,
			DDF_GENL_VERSION);
	err = nl_talk(&c.nl, nlh, learn_cb, &c.l);
	if (err)
		die("dumping the rules: %s", strerror(-err));
	if (!c.l.n)
		die("no rules in this namespace to learn from");
	c.nslots = c.l.n + nchurn;
	if (c.nslots > MAX_SLOTS)
		die("-n: at most %u churn rules with %u templates",
		    MAX_SLOTS - c.l.n, c.l.n);
	c.shm = shm_map(file, true);
	c.shm->nslots = c.nslots;
	c.shm->ntmpl = c.l.n;
	for (i = 0; i < c.nslots; i++) {
		if (i < c.l.n) {
			memcpy(c.shm->slot[i].name, c.l.t[i].name, DDF_NAME_MAX);
			c.present[i] = true;
			c.of[i] = i;
		} else {
			snprintf(c.shm->slot[i].name, DDF_NAME_MAX, "c%02u",
				 i - c.l.n);
		}
	}
	__atomic_store_n(&c.shm->magic, SHM_MAGIC, __ATOMIC_SEQ_CST);
	printf("%s: %u templates:", cmd, c.l.n);
	for (i = 0; i < c.l.n; i++)
		printf(" %s", c.l.t[i].name);
	printf("; %u churn rules; one change per %ld us for %.0f s\n", nchurn,
	       usec, secs);
	fflush(stdout);

	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	t0 = now_s();
	next = t0;
	while (!stop && (t = now_s()) - t0 < secs) {
		if (t < next) {
			struct timespec ts = {
				.tv_sec = 0,
				.tv_nsec = (long)((next - t) * 1e9),
			};

			nanosleep(&ts, NULL);
		} else if (t - next > 0.1) {
			/* far behind: no burst to catch up */
			late++;
			next = t;
		}
		churn_step(&c);
		next += usec / 1e6;
	}
	t = now_s() - t0;
	for (i = 0; i < OP_N; i++)
		total += c.ops[i];
	printf("%s: %.1f s, %lu operations (%.0f/s, %lu times over 100 ms behind):",
	       cmd, t, total, total / t, late);
	for (i = 0; i < OP_N; i++)
		printf(" %s %lu", op_name[i], c.ops[i]);
	printf("\n");
	total = 0;
	for (i = 0; i < OP_N; i++)
		total += c.errs[i];
	printf("%s: errors %lu", cmd, total);
	for (i = 0; i < 256; i++)
		if (c.by_errno[i])
			printf(" %s %lu", i < 255 ? strerrorname_np(i) : "other",
			       c.by_errno[i]);
	printf("\n");
	mnl_socket_close(c.nl.sock);
	return total ? 1 : 0;
}

/* ---- read ---- */

/* A JSON text: validated, with the name and counters of each rule. */
struct jrule {
	char name[DDF_NAME_MAX];
	bool has_name;
	unsigned int nctr;
	uint64_t ctr[6];
};

static const char *const ctr_name[6] = {
	"packets", "bytes", "duplicates", "dropped", "marked", "unparsed",
};

struct jp {
	const char *p, *end;
	const char *err;
	struct jrule *rules;
	unsigned int nrules, max;
};

static void jws(struct jp *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' ||
				 *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

static bool jfail(struct jp *j, const char *why)
{
	if (!j->err)
		j->err = why;
	return false;
}

/* A string into out (size n, cut), escapes checked. */
static bool jstring(struct jp *j, char *out, size_t n)
{
	size_t len = 0;

	if (j->p >= j->end || *j->p != '"')
		return jfail(j, "a string expected");
	j->p++;
	while (j->p < j->end && *j->p != '"') {
		unsigned char ch = (unsigned char)*j->p++;

		if (ch < 0x20)
			return jfail(j, "a control character in a string");
		if (ch == '\\') {
			if (j->p >= j->end)
				break;
			ch = (unsigned char)*j->p++;
			if (ch == 'u') {
				for (int i = 0; i < 4; i++, j->p++)
					if (j->p >= j->end ||
					    !strchr("0123456789abcdefABCDEF",
						    *j->p))
						return jfail(j, "a bad \\u escape");
				ch = '?';
			} else if (!strchr("\"\\/bfnrt", ch)) {
				return jfail(j, "a bad escape");
			}
		}
		if (out && len + 1 < n)
			out[len++] = (char)ch;
	}
	if (j->p >= j->end)
		return jfail(j, "an unterminated string");
	j->p++;
	if (out)
		out[len] = 0;
	return true;
}

/* A number; *u its value when it is an unsigned integer (else *isint false). */
static bool jnumber(struct jp *j, uint64_t *u, bool *isint)
{
	const char *s = j->p;
	bool frac = false;

	if (j->p < j->end && *j->p == '-')
		j->p++;
	if (j->p >= j->end || *j->p < '0' || *j->p > '9')
		return jfail(j, "a number expected");
	if (*j->p == '0')
		j->p++;
	else
		while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
			j->p++;
	if (j->p < j->end && *j->p == '.') {
		frac = true;
		j->p++;
		if (j->p >= j->end || *j->p < '0' || *j->p > '9')
			return jfail(j, "digits expected after '.'");
		while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
			j->p++;
	}
	if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
		frac = true;
		j->p++;
		if (j->p < j->end && (*j->p == '+' || *j->p == '-'))
			j->p++;
		if (j->p >= j->end || *j->p < '0' || *j->p > '9')
			return jfail(j, "digits expected in an exponent");
		while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
			j->p++;
	}
	*isint = !frac && *s != '-';
	if (*isint) {
		char tmp[32];
		size_t n = (size_t)(j->p - s);

		if (n >= sizeof(tmp)) {
			*isint = false;
		} else {
			memcpy(tmp, s, n);
			tmp[n] = 0;
			errno = 0;
			*u = strtoull(tmp, NULL, 10);
			if (errno)
				*isint = false;
		}
	}
	return true;
}

static bool jvalue(struct jp *j, int depth, struct jrule *r, int where);

/*
 * where: 0 anywhere, 1 a rule object, 2 a rule's stats. In a rule, "name"
 * is kept; in its stats, the counters.
 */
static bool jobject(struct jp *j, int depth, struct jrule *r, int where)
{
	char key[64];

	j->p++; /* { */
	jws(j);
	if (j->p < j->end && *j->p == '}') {
		j->p++;
		return true;
	}
	for (;;) {
		int sub = 0;

		jws(j);
		if (!jstring(j, key, sizeof(key)))
			return false;
		jws(j);
		if (j->p >= j->end || *j->p != ':')
			return jfail(j, "':' expected");
		j->p++;
		jws(j);
		if (where == 1 && !strcmp(key, "name")) {
			if (!jstring(j, r->name, sizeof(r->name)))
				return false;
			r->has_name = true;
		} else if (where == 2) {
			uint64_t u = 0;
			bool isint = false;
			int i;

			for (i = 0; i < 6; i++)
				if (!strcmp(key, ctr_name[i]))
					break;
			if (i < 6) {
				if (!jnumber(j, &u, &isint))
					return false;
				if (!isint)
					return jfail(j, "a counter is not an unsigned integer");
				r->ctr[i] = u;
				r->nctr |= 1u << i;
			} else if (!jvalue(j, depth + 1, r, 0)) {
				return false;
			}
		} else {
			if (where == 1 && !strcmp(key, "stats"))
				sub = 2;
			if (!jvalue(j, depth + 1, r, sub))
				return false;
		}
		jws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		if (j->p < j->end && *j->p == '}') {
			j->p++;
			return true;
		}
		return jfail(j, "',' or '}' expected");
	}
}

static struct jrule *jnew_rule(struct jp *j)
{
	struct jrule *r;

	if (j->nrules == j->max) {
		j->max = j->max ? 2 * j->max : 32;
		j->rules = realloc(j->rules, j->max * sizeof(*j->rules));
		if (!j->rules)
			die("out of memory");
	}
	r = &j->rules[j->nrules++];
	memset(r, 0, sizeof(*r));
	return r;
}

static bool jvalue(struct jp *j, int depth, struct jrule *r, int where)
{
	uint64_t u;
	bool isint;

	if (depth > 32)
		return jfail(j, "nested too deep");
	jws(j);
	if (j->p >= j->end)
		return jfail(j, "a value expected");
	switch (*j->p) {
	case '{':
		if (where == 1 && !r)
			r = jnew_rule(j);
		return jobject(j, depth, r, where);
	case '[':
		j->p++;
		jws(j);
		if (j->p < j->end && *j->p == ']') {
			j->p++;
			return true;
		}
		for (;;) {
			/* the top-level array: one rule per element */
			if (!jvalue(j, depth + 1, NULL, depth == 0 ? 1 : 0))
				return false;
			jws(j);
			if (j->p < j->end && *j->p == ',') {
				j->p++;
				continue;
			}
			if (j->p < j->end && *j->p == ']') {
				j->p++;
				return true;
			}
			return jfail(j, "',' or ']' expected");
		}
	case '"':
		return jstring(j, NULL, 0);
	case 't':
	case 'f':
	case 'n': {
		static const char *const lit[] = { "true", "false", "null" };

		for (int i = 0; i < 3; i++) {
			size_t n = strlen(lit[i]);

			if ((size_t)(j->end - j->p) >= n &&
			    !memcmp(j->p, lit[i], n)) {
				j->p += n;
				return true;
			}
		}
		return jfail(j, "an unknown literal");
	}
	default:
		return jnumber(j, &u, &isint);
	}
}

/* Parse text as one JSON value (an array of rules, or one rule). */
static bool jparse(struct jp *j, const char *text, size_t len)
{
	j->p = text;
	j->end = text + len;
	j->err = NULL;
	j->nrules = 0;
	jws(j);
	if (j->p < j->end && *j->p == '{') {
		if (!jvalue(j, 0, NULL, 1))
			return false;
	} else if (!jvalue(j, 0, NULL, 0)) {
		return false;
	}
	jws(j);
	if (j->p != j->end)
		return jfail(j, "text after the value");
	return true;
}

/*
 * Run argv, its stdout into *out (grown), its exit status returned; its
 * stderr goes to errfd.
 */
static int run_capture(char *const argv[], char **out, size_t *cap,
		       size_t *len, int errfd)
{
	int fd[2], status;
	pid_t pid;
	ssize_t n;

	if (pipe(fd))
		die("pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (!pid) {
		dup2(fd[1], 1);
		dup2(errfd, 2);
		close(fd[0]);
		close(fd[1]);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(fd[1]);
	*len = 0;
	for (;;) {
		if (*len + 4096 > *cap) {
			*cap = *cap ? 2 * *cap : 65536;
			*out = realloc(*out, *cap);
			if (!*out)
				die("out of memory");
		}
		n = read(fd[0], *out + *len, *cap - *len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		*len += (size_t)n;
	}
	close(fd[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			die("waitpid: %s", strerror(errno));
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* What a dump over netlink says: the name and the counters of each rule. */
static int dump_cb(const struct nlmsghdr *nlh, void *data)
{
	struct jp *j = data;
	const struct nlattr *a, *c;
	struct jrule *r = jnew_rule(j);

	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		if (mnl_attr_get_type(a) == DDF_A_NAME) {
			snprintf(r->name, sizeof(r->name), "%s",
				 mnl_attr_get_str(a));
			r->has_name = true;
		}
		if (mnl_attr_get_type(a) != DDF_A_STATS)
			continue;
		mnl_attr_for_each_nested(c, a) {
			unsigned int t = mnl_attr_get_type(c);

			if (t >= DDF_STATS_A_PACKETS && t <= DDF_STATS_A_UNPARSED &&
			    mnl_attr_get_payload_len(c) == 8) {
				r->ctr[t - DDF_STATS_A_PACKETS] =
					mnl_attr_get_u64(c);
				r->nctr |= 1u << (t - DDF_STATS_A_PACKETS);
			}
		}
	}
	return MNL_CB_OK;
}

/*
 * Dump the rules into j: 0 or -errno. A dump that rules changed under is
 * marked interrupted (EINTR); the rest of it is still queued on the
 * socket, so the socket is opened again.
 */
static int nl_dump(struct nl *nl, struct jp *j)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	int err;

	nlh = nl_header(buf, nl->family, DDF_CMD_GET, NLM_F_DUMP,
			DDF_GENL_VERSION);
	j->nrules = 0;
	err = nl_talk(nl, nlh, dump_cb, j);
	if (err == -EINTR) {
		mnl_socket_close(nl->sock);
		nl_open(nl);
	}
	return err;
}

/* The last counters seen of a rule, and the generation they belong to. */
struct prev {
	bool valid;
	uint64_t gen;
	uint64_t ctr[6];
};

struct reader {
	struct shm *s;
	unsigned int n;
	struct prev prev[MAX_SLOTS];
	uint64_t g0[MAX_SLOTS], g1[MAX_SLOTS];
	unsigned long rules, checked, dupnames, failures;
};

static void gens(struct reader *k, uint64_t *g)
{
	for (unsigned int i = 0; i < k->n; i++)
		g[i] = gen_get(k->s, i);
}

/* Judge the rules of one read, taken between generations g0 and g1. */
static void check_rules(struct reader *k, const struct jp *j, const char *src)
{
	for (unsigned int m = 0; m < j->nrules; m++) {
		const struct jrule *r = &j->rules[m];
		struct prev *p;
		unsigned int slot, i;

		k->rules++;
		if (!r->has_name || r->nctr != 0x3f) {
			fprintf(stderr, "%s: %s: a rule without %s\n", cmd, src,
				r->has_name ? "its six counters" : "a name");
			k->failures++;
			continue;
		}
		for (i = 0; i < 6; i++)
			if (r->ctr[i] >= COUNTER_LIMIT) {
				fprintf(stderr, "%s: %s: %s: %s %llu is out of range\n",
					cmd, src, r->name, ctr_name[i],
					(unsigned long long)r->ctr[i]);
				k->failures++;
			}
		for (i = 0; i < m; i++)
			if (!strcmp(j->rules[i].name, r->name)) {
				if (k->dupnames++ < 5)
					fprintf(stderr, "%s: %s: %s twice\n",
						cmd, src, r->name);
			}
		for (slot = 0; slot < k->n; slot++)
			if (!strcmp(k->s->slot[slot].name, r->name))
				break;
		if (slot == k->n) {
			fprintf(stderr, "%s: %s: a rule nobody added: %s\n", cmd,
				src, r->name);
			k->failures++;
			continue;
		}
		p = &k->prev[slot];
		if (k->g0[slot] != k->g1[slot] || (k->g0[slot] & 1)) {
			p->valid = false; /* changed while read */
			continue;
		}
		if (p->valid && p->gen == k->g0[slot]) {
			k->checked++;
			for (i = 0; i < 6; i++)
				if (r->ctr[i] < p->ctr[i]) {
					fprintf(stderr, "%s: %s: %s: %s went down from %llu to %llu with no change of the rule\n",
						cmd, src, r->name, ctr_name[i],
						(unsigned long long)p->ctr[i],
						(unsigned long long)r->ctr[i]);
					k->failures++;
				}
		}
		p->valid = true;
		p->gen = k->g0[slot];
		memcpy(p->ctr, r->ctr, sizeof(r->ctr));
	}
}

static int cmd_read(double secs, const char *file, const char *ddfctl,
		    unsigned int per_ddfctl)
{
	static struct reader k;
	unsigned long reads = 0, nlreads = 0, busy = 0, intr = 0, gaveup = 0;
	unsigned long whole = 0;
	struct jp j = { 0 };
	char *out = NULL;
	size_t cap = 0, len;
	struct nl nl;
	FILE *ef;
	int errfd;
	double t0;

	t0 = now_s();
	while (access(file, F_OK)) {
		if (now_s() - t0 > 60)
			die("%s never appeared", file);
		usleep(20000);
	}
	k.s = shm_map(file, false);
	while (__atomic_load_n(&k.s->magic, __ATOMIC_SEQ_CST) != SHM_MAGIC) {
		if (now_s() - t0 > 60)
			die("%s never got its rule names", file);
		usleep(20000);
	}
	k.n = k.s->nslots;
	ef = tmpfile();
	if (!ef)
		die("a temporary file: %s", strerror(errno));
	errfd = fileno(ef);
	nl_open(&nl);
	t0 = now_s();
	while (now_s() - t0 < secs && k.failures < 10) {
		unsigned int tmpl = (unsigned int)(reads / 4) % k.s->ntmpl;
		const char *what = (reads & 1) ? "show" : "stats";
		char *argv[5] = { (char *)ddfctl, "-j", (char *)what, NULL, NULL };
		bool named = reads & 2;
		char src[64];
		int rc;

		/* ddfctl, forked: its JSON */
		if (named)
			argv[3] = k.s->slot[tmpl].name;
		snprintf(src, sizeof(src), "ddfctl -j %s%s%s", what,
			 named ? " " : "", named ? argv[3] : "");
		gens(&k, k.g0);
		if (ftruncate(errfd, 0) || lseek(errfd, 0, SEEK_SET))
			die("a temporary file: %s", strerror(errno));
		rc = run_capture(argv, &out, &cap, &len, errfd);
		gens(&k, k.g1);
		reads++;
		if (rc && named && k.g0[tmpl] != k.g1[tmpl]) {
			busy++; /* the rule was in a flush */
		} else if (rc) {
			char msg[512];
			ssize_t m = pread(errfd, msg, sizeof(msg) - 1, 0);

			msg[m > 0 ? m : 0] = 0;
			/*
			 * ddfctl prints only a whole dump, and gives up, saying
			 * so, when every try was interrupted: churn never
			 * pauses, so that is allowed when rules did change.
			 */
			if (!named && strstr(msg, "kept changing") &&
			    memcmp(k.g0, k.g1, k.n * sizeof(k.g0[0]))) {
				gaveup++;
			} else {
				fprintf(stderr, "%s: %s: exit status %d: %s\n",
					cmd, src, rc, msg);
				k.failures++;
			}
		} else if (!jparse(&j, out, len)) {
			fprintf(stderr, "%s: %s: not JSON: %s at byte %zu: %.*s\n",
				cmd, src, j.err, (size_t)(j.p - out),
				(int)(len < 400 ? len : 400), out);
			k.failures++;
		} else {
			check_rules(&k, &j, src);
			if (!named)
				whole++;
		}

		/* dumps over netlink, many more in the same time */
		for (unsigned int i = 0; i < per_ddfctl; i++) {
			int err;

			gens(&k, k.g0);
			err = nl_dump(&nl, &j);
			gens(&k, k.g1);
			nlreads++;
			if (err == -EINTR) {
				intr++; /* it is asked again */
				continue;
			}
			if (err) {
				fprintf(stderr, "%s: a dump: %s\n", cmd,
					strerror(-err));
				k.failures++;
				continue;
			}
			check_rules(&k, &j, "dump");
		}
	}
	/* the JSON of whole dumps must have been checked at least once */
	if (reads > 1 && !whole) {
		fprintf(stderr, "%s: ddfctl printed no whole dump of the rules\n",
			cmd);
		k.failures++;
	}
	printf("%s: %.1f s, %lu ddfctl reads (%lu of a rule in a flush; %lu whole dumps, %lu given up as the rules kept changing) and %lu dumps (%lu interrupted by a change), %lu rules parsed, %lu monotonic checks, %lu names twice in a read, %lu failures\n",
	       cmd, now_s() - t0, reads, busy, whole, gaveup, nlreads, intr,
	       k.rules, k.checked, k.dupnames, k.failures);
	mnl_socket_close(nl.sock);
	free(out);
	free(j.rules);
	return k.failures || k.dupnames ? 1 : 0;
}

/* ---- race ---- */

/*
 * Reset a rule's counters in a child as fast as it goes, and dump the rules
 * here as fast as it goes: a dump (no lock but RCU) must never see a
 * counter computed from a reset newer than its own sums.
 */
static int cmd_race(double secs, const char *rule)
{
	unsigned long dumps = 0, bad = 0, resets = 0, seen = 0;
	struct jp j = { 0 };
	int fd[2], status;
	struct nl nl;
	double t0;
	pid_t pid;

	if (pipe(fd))
		die("pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (!pid) {
		char buf[MNL_SOCKET_BUFFER_SIZE];
		struct nlmsghdr *nlh;
		unsigned long n = 0;
		int err;

		close(fd[0]);
		nl_open(&nl);
		t0 = now_s();
		while (now_s() - t0 < secs) {
			nlh = nl_header(buf, nl.family, DDF_CMD_RESET, NLM_F_ACK,
					DDF_GENL_VERSION);
			mnl_attr_put_strz(nlh, DDF_A_NAME, rule);
			err = nl_talk(&nl, nlh, NULL, NULL);
			if (err)
				die("resetting %s: %s", rule, strerror(-err));
			n++;
		}
		if (write(fd[1], &n, sizeof(n)) != sizeof(n))
			_exit(1);
		_exit(0);
	}
	close(fd[1]);
	nl_open(&nl);
	t0 = now_s();
	while (now_s() - t0 < secs) {
		int err = nl_dump(&nl, &j);

		if (err && err != -EINTR)
			die("a dump: %s", strerror(-err));
		dumps++;
		for (unsigned int m = 0; m < j.nrules; m++) {
			if (strcmp(j.rules[m].name, rule))
				continue;
			seen++;
			for (unsigned int i = 0; i < 6; i++)
				if (j.rules[m].ctr[i] >= COUNTER_LIMIT) {
					if (bad++ < 5)
						fprintf(stderr, "%s: %s: %s %llu after a reset\n",
							cmd, rule, ctr_name[i],
							(unsigned long long)j.rules[m].ctr[i]);
				}
		}
	}
	if (read(fd[0], &resets, sizeof(resets)) != sizeof(resets))
		resets = 0;
	waitpid(pid, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		bad++;
	printf("%s: %.1f s, %lu resets of %s, %lu dumps (the rule in %lu), %lu counters out of range\n",
	       cmd, now_s() - t0, resets, rule, dumps, seen, bad);
	mnl_socket_close(nl.sock);
	free(j.rules);
	return bad || !seen || !resets ? 1 : 0;
}

/* ---- cycle ---- */

struct watch {
	char name[DDF_NAME_MAX];
	unsigned int ctr;
};

static bool module_present(const char *mod)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/module/%s", mod);
	return !access(path, F_OK);
}

/*
 * The watched counters of the rules, all above zero within limit s? The
 * time it took, or a negative number.
 */
static double wait_counting(struct nl *nl, const struct watch *w,
			    unsigned int nw, double limit, struct jp *j)
{
	double t0 = now_s(), t;
	unsigned int i, m, ok;
	int err;

	while ((t = now_s() - t0) < limit) {
		err = nl_dump(nl, j);
		if (err == -EINTR)
			continue; /* no change is expected here, but ask again */
		if (err)
			return -1;
		for (ok = 0, i = 0; i < nw; i++)
			for (m = 0; m < j->nrules; m++)
				if (!strcmp(j->rules[m].name, w[i].name) &&
				    j->rules[m].ctr[w[i].ctr])
					ok++;
		if (ok == nw)
			return now_s() - t0;
		usleep(10000);
	}
	return -1;
}

/*
 * A watchdog beside cycle: when an unload has taken more than 5 s, print
 * where the unloading thread waits (/proc/self/task/TID/stack), once.
 */
static struct {
	pid_t tid;
	uint64_t since_us; /* monotonic; 0: not unloading */
	bool told;
} unload_watch;

static void *unload_watchdog(void *arg)
{
	char path[64], text[4096];

	for (;;) {
		double since = __atomic_load_n(&unload_watch.since_us,
					       __ATOMIC_SEQ_CST) / 1e6;
		ssize_t n;
		int fd;

		sleep(1);
		if (!since || unload_watch.told || now_s() - since < 5)
			continue;
		unload_watch.told = true;
		snprintf(path, sizeof(path), "/proc/self/task/%d/stack",
			 unload_watch.tid);
		fd = open(path, O_RDONLY);
		n = fd < 0 ? -1 : read(fd, text, sizeof(text) - 1);
		if (fd >= 0)
			close(fd);
		text[n > 0 ? n : 0] = 0;
		printf("%s: the unload has taken %.0f s so far, waiting in:\n%s",
		       cmd, now_s() - since, text);
	}
	return arg;
}

static int cmd_cycle(unsigned int cycles, const char *ko, const char *mod,
		     const struct watch *w, unsigned int nw)
{
	double t0, t, t_unload = 0, t_load = 0, t_add = 0, t_count = 0;
	double max_count = 0, max_unload = 0;
	unsigned int max_unload_at = 0;
	static struct learn l;
	struct jp j = { 0 };
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	unsigned int c, i;
	pthread_t watchdog;
	struct nl nl;
	int fd, err;

	t0 = now_s();
	nl_open(&nl);
	nlh = nl_header(buf, nl.family, DDF_CMD_GET, NLM_F_DUMP, DDF_GENL_VERSION);
	err = nl_talk(&nl, nlh, learn_cb, &l);
	if (err || !l.n)
		die("learning the rules: %s", err ? strerror(-err) : "none");
	mnl_socket_close(nl.sock);
	printf("%s: %u cycles of unload and load with %u rules (learned in %.0f ms), counting",
	       cmd, cycles, l.n, 1e3 * (now_s() - t0));
	for (i = 0; i < nw; i++)
		printf(" %s:%s", w[i].name, ctr_name[w[i].ctr]);
	printf("\n");

	unload_watch.tid = gettid();
	if (pthread_create(&watchdog, NULL, unload_watchdog, NULL))
		die("a thread: %s", strerror(errno));
	t0 = now_s();
	for (c = 1; c <= cycles; c++) {
		double ta = now_s(), tb, tc, td;

		__atomic_store_n(&unload_watch.since_us, (uint64_t)(ta * 1e6),
				 __ATOMIC_SEQ_CST);
		err = syscall(__NR_delete_module, mod, O_NONBLOCK);
		__atomic_store_n(&unload_watch.since_us, 0, __ATOMIC_SEQ_CST);
		if (err)
			die("cycle %u: unloading %s: %s", c, mod, strerror(errno));
		if (module_present(mod))
			die("cycle %u: /sys/module/%s remains after the unload", c, mod);
		tb = now_s();
		fd = open(ko, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			die("%s: %s", ko, strerror(errno));
		if (syscall(__NR_finit_module, fd, "", 0))
			die("cycle %u: loading %s: %s", c, ko, strerror(errno));
		close(fd);
		tc = now_s();
		nl_open(&nl);
		for (i = 0; i < l.n; i++) {
			char msg[TMPL_BYTES + 512];

			nlh = nl_header(msg, nl.family, DDF_CMD_NEW,
					NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL,
					DDF_GENL_VERSION);
			mnl_attr_put_strz(nlh, DDF_A_NAME, l.t[i].name);
			memcpy(mnl_nlmsg_get_payload_tail(nlh), l.t[i].attrs,
			       l.t[i].len);
			nlh->nlmsg_len += l.t[i].len;
			err = nl_talk(&nl, nlh, NULL, NULL);
			if (err)
				die("cycle %u: adding %s: %s (%s)", c, l.t[i].name,
				    strerror(-err), nl.extack);
		}
		td = now_s();
		t = wait_counting(&nl, w, nw, 30, &j);
		if (t < 0)
			die("cycle %u: the rules did not count the traffic within 30 s", c);
		mnl_socket_close(nl.sock);
		t_unload += tb - ta;
		if (tb - ta > max_unload) {
			max_unload = tb - ta;
			max_unload_at = c;
		}
		t_load += tc - tb;
		t_add += td - tc;
		t_count += t;
		if (t > max_count)
			max_count = t;
		if (c % 10 == 0 || c == cycles)
			printf("%s: %u cycles, %.1f s\n", cmd, c, now_s() - t0);
	}
	t = now_s() - t0;
	printf("%s: %u cycles in %.1f s (%.0f ms each): unload %.0f ms (the longest %.0f ms, cycle %u), load %.0f ms, %u rules added in %.0f ms, counting after %.0f ms (the longest %.0f ms), on average\n",
	       cmd, cycles, t, 1e3 * t / cycles, 1e3 * t_unload / cycles,
	       1e3 * max_unload, max_unload_at, 1e3 * t_load / cycles, l.n,
	       1e3 * t_add / cycles, 1e3 * t_count / cycles, 1e3 * max_count);
	free(j.rules);
	return 0;
}

static const char usage[] =
	"usage: ddfchurn churn -t SECONDS -g FILE [-i USEC] [-n RULES] [-s SEED]\n"
	"       ddfchurn read -t SECONDS -g FILE [-c DDFCTL] [-d DUMPS]\n"
	"       ddfchurn cycle -k MODULE.ko -w RULE:COUNTER [-w ...] [-c CYCLES]\n"
	"       ddfchurn race -t SECONDS -r RULE\n";

int main(int argc, char **argv)
{
	const char *file = NULL, *ddfctl = "ddfctl", *ko = NULL, *rule = NULL;
	const char *mode;
	unsigned long nchurn = 8, cycles = 50, dumps = 20;
	static struct watch w[MAX_TMPL];
	unsigned int nw = 0;
	uint64_t seed = 1;
	double secs = 0;
	long usec = 1000;
	char mod[64];
	int opt;

	mode = argc > 1 ? argv[1] : "";
	if (strcmp(mode, "churn") && strcmp(mode, "read") &&
	    strcmp(mode, "cycle") && strcmp(mode, "race")) {
		fputs(usage, stderr);
		return 2;
	}
	argv++;
	argc--;
	while ((opt = getopt(argc, argv, "t:g:i:n:s:c:d:k:w:r:h")) != -1) {
		switch (opt) {
		case 't': secs = strtod(optarg, NULL); break;
		case 'g': file = optarg; break;
		case 'i': usec = strtol(optarg, NULL, 10); break;
		case 'n': nchurn = strtoul(optarg, NULL, 10); break;
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'c':
			ddfctl = optarg;
			cycles = strtoul(optarg, NULL, 10);
			break;
		case 'd': dumps = strtoul(optarg, NULL, 10); break;
		case 'k': ko = optarg; break;
		case 'r': rule = optarg; break;
		case 'w': {
			char *colon = strchr(optarg, ':');
			unsigned int i;

			if (nw == MAX_TMPL || !colon)
				die("-w wants RULE:COUNTER (at most %d)", MAX_TMPL);
			*colon = 0;
			snprintf(w[nw].name, sizeof(w[nw].name), "%s", optarg);
			for (i = 0; i < 6 && strcmp(colon + 1, ctr_name[i]); i++)
				;
			if (i == 6)
				die("-w: no counter '%s'", colon + 1);
			w[nw++].ctr = i;
			break;
		}
		case 'h': fputs(usage, stdout); return 0;
		default: fputs(usage, stderr); return 2;
		}
	}
	if (optind != argc) {
		fputs(usage, stderr);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(mode, "cycle")) {
		const char *base;
		size_t i;

		if (!ko || !nw || !cycles) {
			fputs(usage, stderr);
			return 2;
		}
		/* the module's name: the file's, less .ko, with '_' for '-' */
		base = strrchr(ko, '/') ? strrchr(ko, '/') + 1 : ko;
		snprintf(mod, sizeof(mod), "%s", base);
		if (strlen(mod) > 3 && !strcmp(mod + strlen(mod) - 3, ".ko"))
			mod[strlen(mod) - 3] = 0;
		for (i = 0; mod[i]; i++)
			if (mod[i] == '-')
				mod[i] = '_';
		cmd = "ddfchurn cycle";
		return cmd_cycle((unsigned int)cycles, ko, mod, w, nw);
	}
	if (!strcmp(mode, "race")) {
		if (secs <= 0 || !rule) {
			fputs(usage, stderr);
			return 2;
		}
		cmd = "ddfchurn race";
		return cmd_race(secs, rule);
	}
	if (secs <= 0 || !file || usec < 0) {
		fputs(usage, stderr);
		return 2;
	}
	if (!strcmp(mode, "churn")) {
		cmd = "ddfchurn churn";
		return cmd_churn(secs, usec, (unsigned int)nchurn, seed, file);
	}
	cmd = "ddfchurn read";
	return cmd_read(secs, file, ddfctl, (unsigned int)dumps);
}
