// SPDX-License-Identifier: GPL-2.0
/*
 * ddfreq: send ddf generic netlink requests from one process, one of them
 * with its Nth fault point failed; the fast inner loop of faults.sh.
 *
 *   ddfreq [-n N] STEP...
 *
 * Steps, in order, on one socket:
 *   FILE         send the request saved in FILE (failnth -w: the bytes
 *                ddfctl sent; its family id and sequence number are set
 *                anew); "!FILE" is the target: /proc/thread-self/fail-nth
 *                is N during its sendto only
 *   get:NAME     whether rule NAME is there, and its packets
 *   del:NAME     delete rule NAME if it is there
 *   names        every byte but NUL at each place of a 3-byte rule name,
 *                in a NEW request (family inet, hook none, an exact
 *                filter of 64): a name of bytes 0x21-0x7e must be taken
 *                (and is deleted again), any other refused with EINVAL
 *                and the kernel's sentence on printable ASCII
 * One line per step:
 *   req FILE ok | req FILE error ERRNO TEXT: EXTACK (or -)
 *   failnth injected N | failnth not reached N points P   (after the target)
 *   get NAME present packets P | get NAME absent
 *   del NAME ok | del NAME absent
 *   names taken T refused R wrong W   (a line before for each wrong one)
 * Exit status 0, or 1 when the kernel answers a step in a way no step
 * should be answered (the caller judges the requests' outcomes).
 * A process start is costly under emulation: one of these per fault point
 * instead of a ddfctl per request keeps the sweeps short.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <libmnl/libmnl.h>
#include <linux/netfilter.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "linux/ddf.h"

static struct mnl_socket *nl;
static unsigned int portid, seq;
static uint16_t family;
static char buf[16384];
static char extack[512];
static uint64_t packets;
static int have_rule;

static void die(const char *fmt, const char *arg)
{
	fprintf(stderr, "ddfreq: ");
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	exit(1);
}

static int family_cb(const struct nlattr *a, void *data)
{
	if (mnl_attr_get_type(a) == CTRL_ATTR_FAMILY_ID &&
	    !mnl_attr_validate(a, MNL_TYPE_U16))
		family = mnl_attr_get_u16(a);
	return MNL_CB_OK;
}

static int stats_cb(const struct nlattr *a, void *data)
{
	if (mnl_attr_get_type(a) == DDF_STATS_A_PACKETS &&
	    !mnl_attr_validate(a, MNL_TYPE_U64))
		packets = mnl_attr_get_u64(a);
	return MNL_CB_OK;
}

static int rule_cb(const struct nlattr *a, void *data)
{
	if (mnl_attr_get_type(a) == DDF_A_STATS)
		mnl_attr_parse_nested(a, stats_cb, NULL);
	return MNL_CB_OK;
}

/* A reply: the family id (GETFAMILY) or a rule (GET). */
static int data_cb(const struct nlmsghdr *nlh, void *data)
{
	if (nlh->nlmsg_type == GENL_ID_CTRL) {
		mnl_attr_parse(nlh, sizeof(struct genlmsghdr), family_cb, NULL);
	} else {
		have_rule = 1;
		mnl_attr_parse(nlh, sizeof(struct genlmsghdr), rule_cb, NULL);
	}
	return MNL_CB_OK;
}

static int error_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	unsigned int off = sizeof(*e);
	const struct nlattr *a;

	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*e)))
		return MNL_CB_ERROR;
	if (!e->error)
		return MNL_CB_STOP;
	if (nlh->nlmsg_flags & NLM_F_ACK_TLVS) {
		if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
			off += e->msg.nlmsg_len - sizeof(struct nlmsghdr);
		mnl_attr_for_each(a, nlh, off)
			if (mnl_attr_get_type(a) == NLMSGERR_ATTR_MSG &&
			    !mnl_attr_validate(a, MNL_TYPE_NUL_STRING))
				snprintf(extack, sizeof(extack), "%s",
					 mnl_attr_get_str(a));
	}
	errno = -e->error;
	return MNL_CB_ERROR;
}

/*
 * Send nlh and read up to its ack; 0 or -errno. With failfd >= 0, the
 * sendto runs with fail-nth n, and *left is what fail-nth reads after.
 */
static int talk(struct nlmsghdr *nlh, int failfd, long n, long *left)
{
	static mnl_cb_t ctl[NLMSG_MIN_TYPE] = { [NLMSG_ERROR] = error_cb };
	char num[32];
	ssize_t len;
	int ret, err = 0;

	nlh->nlmsg_seq = ++seq;
	nlh->nlmsg_pid = 0;
	extack[0] = 0;
	if (failfd >= 0) {
		len = snprintf(num, sizeof(num), "%ld", n);
		if (pwrite(failfd, num, len, 0) != len)
			die("write fail-nth: %s", strerror(errno));
	}
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0)
		err = -errno;
	if (failfd >= 0) {
		len = pread(failfd, num, sizeof(num) - 1, 0);
		if (len <= 0)
			die("read fail-nth: %s", strerror(errno));
		num[len] = 0;
		*left = strtol(num, NULL, 10);
		if (pwrite(failfd, "0", 1, 0) != 1)
			die("write fail-nth: %s", strerror(errno));
	}
	if (err)
		return err;
	do {
		len = mnl_socket_recvfrom(nl, buf, sizeof(buf));
		if (len < 0)
			return -errno;
		ret = mnl_cb_run2(buf, len, seq, portid, data_cb, NULL, ctl,
				  NLMSG_MIN_TYPE);
	} while (ret > 0);
	return ret < 0 ? -errno : 0;
}

static struct nlmsghdr *genl_put(uint16_t type, uint8_t cmd)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *g;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = type == GENL_ID_CTRL ? 1 : DDF_GENL_VERSION;
	return nlh;
}

static int by_name(uint8_t cmd, const char *name)
{
	struct nlmsghdr *nlh = genl_put(family, cmd);

	mnl_attr_put_strz(nlh, DDF_A_NAME, name);
	have_rule = 0;
	packets = 0;
	return talk(nlh, -1, 0, NULL);
}

/*
 * The names step: 1 when any name was answered other than the kernel's
 * rule says (0x21-0x7e taken, the rest refused in a sentence).
 */
static int names(void)
{
	int taken = 0, refused = 0, wrong = 0;

	for (int b = 1; b < 256; b++) {
		for (int at = 0; at < 3; at++) {
			bool printable = b >= 0x21 && b <= 0x7e;
			char name[4] = "abc";
			struct nlmsghdr *nlh;
			struct nlattr *f;
			int err, derr = 0;

			name[at] = (char)b;
			nlh = genl_put(family, DDF_CMD_NEW);
			mnl_attr_put_strz(nlh, DDF_A_NAME, name);
			mnl_attr_put_u8(nlh, DDF_A_FAMILY, NFPROTO_INET);
			mnl_attr_put_u8(nlh, DDF_A_HOOK, DDF_HOOK_NONE);
			f = mnl_attr_nest_start(nlh, DDF_A_FILTER);
			mnl_attr_put_u32(nlh, DDF_FILTER_A_KIND, DDF_FILTER_EXACT);
			mnl_attr_put_u64(nlh, DDF_FILTER_A_WINDOW, 64);
			mnl_attr_nest_end(nlh, f);
			err = talk(nlh, -1, 0, NULL);
			if (!err)
				derr = by_name(DDF_CMD_DEL, name);
			if (printable && !err && !derr) {
				taken++;
				continue;
			}
			if (!printable && err == -EINVAL &&
			    strstr(extack, "printable ASCII without space")) {
				refused++;
				continue;
			}
			wrong++;
			printf("name byte 0x%02x at %d: %s error %d (%s), del %d\n",
			       b, at, printable ? "taken" : "refused", -err,
			       extack[0] ? extack : "-", -derr);
		}
	}
	printf("names taken %d refused %d wrong %d\n", taken, refused, wrong);
	return wrong > 0;
}

static void print_err(const char *what, const char *arg, int err)
{
	printf("%s %s error %d %s: %s\n", what, arg, -err, strerror(-err),
	       extack[0] ? extack : "-");
}

int main(int argc, char **argv)
{
	long n = 0, left = 0;
	struct nlmsghdr *nlh;
	int i, one = 1, err, fd, failfd, bad = 0;
	ssize_t len;

	if (argc > 2 && !strcmp(argv[1], "-n")) {
		n = strtol(argv[2], NULL, 0);
		argv += 2;
		argc -= 2;
	}
	if (argc < 2) {
		fputs("usage: ddfreq [-n N] [!]FILE|get:NAME|del:NAME|names...\n", stderr);
		return 2;
	}
	failfd = open("/proc/thread-self/fail-nth", O_RDWR);
	if (n > 0 && failfd < 0)
		die("/proc/thread-self/fail-nth: %s", strerror(errno));
	nl = mnl_socket_open(NETLINK_GENERIC);
	if (!nl || mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0)
		die("netlink: %s", strerror(errno));
	mnl_socket_setsockopt(nl, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(nl, NETLINK_CAP_ACK, &one, sizeof(one));
	portid = mnl_socket_get_portid(nl);
	seq = time(NULL);

	nlh = genl_put(GENL_ID_CTRL, CTRL_CMD_GETFAMILY);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, DDF_GENL_NAME);
	if (talk(nlh, -1, 0, NULL) || !family)
		die("no generic netlink family %s", DDF_GENL_NAME);

	for (i = 1; i < argc; i++) {
		const char *arg = argv[i];

		if (!strncmp(arg, "get:", 4)) {
			err = by_name(DDF_CMD_GET, arg + 4);
			if (!err && have_rule)
				printf("get %s present packets %llu\n", arg + 4,
				       (unsigned long long)packets);
			else if (err == -ENOENT)
				printf("get %s absent\n", arg + 4);
			else
				print_err("get", arg + 4, err), bad = 1;
			continue;
		}
		if (!strcmp(arg, "names")) {
			bad |= names();
			continue;
		}
		if (!strncmp(arg, "del:", 4)) {
			err = by_name(DDF_CMD_DEL, arg + 4);
			if (!err)
				printf("del %s ok\n", arg + 4);
			else if (err == -ENOENT)
				printf("del %s absent\n", arg + 4);
			else
				print_err("del", arg + 4, err), bad = 1;
			continue;
		}
		fd = open(arg + (*arg == '!'), O_RDONLY);
		if (fd < 0)
			die("%s: cannot open", arg);
		len = read(fd, buf, sizeof(buf));
		close(fd);
		nlh = (struct nlmsghdr *)buf;
		if (len < (ssize_t)(NLMSG_HDRLEN + GENL_HDRLEN) ||
		    nlh->nlmsg_len != len)
			die("%s: not one netlink message", arg);
		nlh->nlmsg_type = family;
		if (*arg == '!' && n <= 0)
			die("%s: a target needs -n N", arg);
		err = talk(nlh, *arg == '!' ? failfd : -1, n, &left);
		if (err)
			print_err("req", arg, err);
		else
			printf("req %s ok\n", arg);
		if (*arg == '!') {
			if (!left)
				printf("failnth injected %ld\n", n);
			else
				printf("failnth not reached %ld points %ld\n",
				       n, n - left);
		}
	}
	mnl_socket_close(nl);
	return bad;
}
