// SPDX-License-Identifier: GPL-2.0
/*
 * ddfrtnl: the two sides of robust/rtnl.sh.
 *
 *   ddfrtnl time DEV MS [GAP_US]
 *	Set DEV up and down in turn (it ends as it was), one RTM_NEWLINK
 *	request at a time for MS milliseconds, GAP_US microseconds (default
 *	1000) apart. Each
 *	request is timed from before its send to its acknowledgement, on
 *	CLOCK_MONOTONIC. One line:
 *	  ops N max_us X p50_us Y p99_us Z over_10ms W
 *   ddfrtnl nobody CMD [ARG...]
 *	Run CMD as uid and gid 65534, root of a new user namespace with a
 *	new network namespace: CAP_NET_ADMIN there and over nothing else,
 *	what any local user gets from `unshare -U -r -n`.
 *
 * The requests are timed inside one process: starting `ip` costs far more
 * than the request itself under emulation.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <libmnl/libmnl.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define NOBODY 65534
#define MAX_OPS (1 << 20)

static void die(const char *what)
{
	fprintf(stderr, "ddfrtnl: %s: %s\n", what, strerror(errno));
	exit(1);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* One RTM_NEWLINK setting IFF_UP as up says; its round trip in ns. */
static uint64_t set_up(struct mnl_socket *nl, int ifindex, int up,
		       unsigned int seq)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifinfomsg *ifi;
	uint64_t t0;
	ssize_t n;

	nlh->nlmsg_type = RTM_NEWLINK;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = seq;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = ifindex;
	ifi->ifi_flags = up ? IFF_UP : 0;
	ifi->ifi_change = IFF_UP;
	t0 = now_ns();
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0)
		die("sendto");
	n = mnl_socket_recvfrom(nl, buf, sizeof(buf));
	if (n < 0)
		die("recvfrom");
	if (mnl_cb_run(buf, n, seq, mnl_socket_get_portid(nl), NULL, NULL) < 0)
		die("RTM_NEWLINK");
	return now_ns() - t0;
}

/* Is dev up now? */
static int dev_up(const char *dev)
{
	struct ifreq ifr = { 0 };
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	strncpy(ifr.ifr_name, dev, IFNAMSIZ - 1);
	if (fd < 0 || ioctl(fd, SIOCGIFFLAGS, &ifr))
		die(dev);
	close(fd);
	return !!(ifr.ifr_flags & IFF_UP);
}

static int cmd_time(const char *dev, long ms, long gap_us)
{
	struct timespec gap = { gap_us / 1000000, gap_us % 1000000 * 1000 };
	uint64_t *rt = calloc(MAX_OPS, sizeof(*rt));
	uint64_t end, max = 0, over = 0;
	struct mnl_socket *nl;
	unsigned int n = 0;
	int ifindex, was_up;

	ifindex = if_nametoindex(dev);
	if (!ifindex)
		die(dev);
	if (!rt)
		die("calloc");
	was_up = dev_up(dev);
	nl = mnl_socket_open(NETLINK_ROUTE);
	if (!nl || mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0)
		die("rtnetlink socket");
	end = now_ns() + (uint64_t)ms * 1000000;
	while (n < MAX_OPS && now_ns() < end) {
		rt[n] = set_up(nl, ifindex, !was_up ^ (n & 1), n + 1);
		if (rt[n] > max)
			max = rt[n];
		over += rt[n] > 10000000;
		n++;
		if (gap_us)
			nanosleep(&gap, NULL);
	}
	if (n & 1)
		set_up(nl, ifindex, was_up, n + 1);
	mnl_socket_close(nl);
	if (!n) {
		fprintf(stderr, "ddfrtnl: no request in %ld ms\n", ms);
		return 1;
	}
	qsort(rt, n, sizeof(*rt), cmp_u64);
	printf("ops %u max_us %llu p50_us %llu p99_us %llu over_10ms %llu\n", n,
	       (unsigned long long)max / 1000,
	       (unsigned long long)rt[n / 2] / 1000,
	       (unsigned long long)rt[n - 1 - n / 100] / 1000,
	       (unsigned long long)over);
	free(rt);
	return 0;
}

static void write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0 || write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		die(path);
	close(fd);
}

static int cmd_nobody(char **argv)
{
	char map[32];

	if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
		die("becoming nobody");
	/* a changed uid makes /proc/self root's: the maps must be ours */
	if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0))
		die("PR_SET_DUMPABLE");
	if (unshare(CLONE_NEWUSER | CLONE_NEWNET))
		die("unshare");
	write_file("/proc/self/setgroups", "deny");
	snprintf(map, sizeof(map), "0 %d 1", NOBODY);
	write_file("/proc/self/uid_map", map);
	write_file("/proc/self/gid_map", map);
	execvp(argv[0], argv);
	die(argv[0]);
	return 1;
}

int main(int argc, char **argv)
{
	if (argc >= 4 && !strcmp(argv[1], "time"))
		return cmd_time(argv[2], atol(argv[3]),
				argc > 4 ? atol(argv[4]) : 1000);
	if (argc >= 3 && !strcmp(argv[1], "nobody"))
		return cmd_nobody(argv + 2);
	fprintf(stderr, "usage: ddfrtnl time DEV MS [GAP_US] | ddfrtnl nobody CMD [ARG...]\n");
	return 2;
}
