// SPDX-License-Identifier: GPL-2.0
/*
 * ddfrtnl: the two sides of robust/rtnl.sh.
 *
 *   ddfrtnl time DEV MS [GAP_US]
 *	For MS milliseconds, one RTM_NEWLINK request at a time, GAP_US
 *	microseconds (default 1000) apart, in turn: one that changes nothing
 *	(it takes RTNL, finds DEV and acknowledges: what it costs beyond the
 *	round trip is the wait for RTNL), one that changes DEV's MTU (by 100
 *	and back), one that sets DEV up or down; DEV ends as it was. Each
 *	request is timed from before its send to its acknowledgement, on
 *	CLOCK_MONOTONIC, and so is each pause beyond GAP_US (sleep: how late
 *	this process ran again, whatever held it). A line per kind (noop,
 *	mtu, updown, sleep):
 *	  KIND ops N max_us X p50_us Y p99_us Z over_10ms W
 *   ddfrtnl probe DEV KB READY
 *	Three requests from this namespace, started together (a process
 *	each, forked ahead) once MemAvailable has fallen KB kB below what it
 *	was when READY was written: an MTU change of DEV (RTNL), a dump of
 *	MPTCP's endpoints (a generic netlink family without parallel ops, so
 *	genl_mutex) and of ddf's rules (its family looked up first, as
 *	ddfctl does). A line each, times on CLOCK_REALTIME in us (bash's
 *	EPOCHREALTIME): "start US" when the fall was seen, then "NAME US"
 *	as each request ends (mtu, mptcp, ddf).
 *   ddfrtnl watch DEV KB READY GO STOP KB2
 *	Once MemAvailable has fallen KB kB below what it was when READY was
 *	written (at once with KB 0), "start US", GO is created, and DEV's MTU is changed (by one
 *	and back) one request after the other until STOP exists: a line
 *	"mtu US US" each, when it was sent and when it was acknowledged
 *	(CLOCK_REALTIME, as probe's). Between them, "second US" once
 *	MemAvailable is KB2 kB below it (a second filter being built).
 *   ddfrtnl churn RULE GO STOP
 *	In this namespace, ddf's family looked up ahead: once GO exists,
 *	delete rule RULE ("del US" when done), then add and delete a dummy
 *	device ddfc0 one request after the other until STOP exists
 *	("devs N": how many). Started ahead, so that what follows GO is
 *	the requests, not starting processes.
 *   ddfrtnl reset|get RULE GO END
 *	In this namespace, ddf's family looked up ahead: once GO exists,
 *	reset RULE's filter, or GET the rule (its reply fills the filter's
 *	stats); END is then written whole (renamed into place) with
 *	"US US", when the request was sent and when its acknowledgement
 *	came, so that what the other side compares with is the kernel's
 *	work, not a process's start and exit.
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
#include <linux/ddf.h>
#include <linux/genetlink.h>
#include <linux/mptcp.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
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

enum change { NOOP, MTU, UPDOWN };

/*
 * One RTM_NEWLINK: nothing, the MTU set to mtu, or IFF_UP set as up says.
 * Its round trip in ns.
 */
static uint64_t setlink(struct mnl_socket *nl, int ifindex, enum change what,
			int up, unsigned int mtu, unsigned int seq)
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
	if (what == MTU) {
		mnl_attr_put_u32(nlh, IFLA_MTU, mtu);
	} else if (what == UPDOWN) {
		ifi->ifi_flags = up ? IFF_UP : 0;
		ifi->ifi_change = IFF_UP;
	}
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

/* dev's flags and MTU now */
static void dev_state(const char *dev, int *up, unsigned int *mtu)
{
	struct ifreq ifr = { 0 };
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	strncpy(ifr.ifr_name, dev, IFNAMSIZ - 1);
	if (fd < 0 || ioctl(fd, SIOCGIFFLAGS, &ifr))
		die(dev);
	*up = !!(ifr.ifr_flags & IFF_UP);
	if (ioctl(fd, SIOCGIFMTU, &ifr))
		die(dev);
	*mtu = ifr.ifr_mtu;
	close(fd);
}

/* The round trips of one kind of request. */
struct times {
	const char *what;
	uint64_t *rt;
	unsigned int n;
};

static void times_print(struct times *t)
{
	uint64_t over = 0;
	unsigned int i, n = t->n;

	qsort(t->rt, n, sizeof(*t->rt), cmp_u64);
	for (i = 0; i < n; i++)
		over += t->rt[i] > 10000000;
	printf("%s ops %u max_us %llu p50_us %llu p99_us %llu over_10ms %llu\n",
	       t->what, n, (unsigned long long)t->rt[n - 1] / 1000,
	       (unsigned long long)t->rt[n / 2] / 1000,
	       (unsigned long long)t->rt[n - 1 - n / 100] / 1000,
	       (unsigned long long)over);
}

static int cmd_time(const char *dev, long ms, long gap_us)
{
	struct timespec gap = { gap_us / 1000000, gap_us % 1000000 * 1000 };
	struct times t[] = { { "noop", NULL, 0 }, { "mtu", NULL, 0 },
			     { "updown", NULL, 0 }, { "sleep", NULL, 0 } };
	struct times *late = &t[3];
	unsigned int seq = 0, mtu0, i;
	struct mnl_socket *nl;
	int ifindex, up0;
	uint64_t end;

	ifindex = if_nametoindex(dev);
	if (!ifindex)
		die(dev);
	for (i = 0; i < 4; i++) {
		t[i].rt = calloc(MAX_OPS, sizeof(uint64_t));
		if (!t[i].rt)
			die("calloc");
	}
	dev_state(dev, &up0, &mtu0);
	nl = mnl_socket_open(NETLINK_ROUTE);
	if (!nl || mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0)
		die("rtnetlink socket");
	end = now_ns() + (uint64_t)ms * 1000000;
	for (i = 0; t[UPDOWN].n < MAX_OPS && now_ns() < end; i = (i + 1) % 3) {
		unsigned int n = t[i].n;

		t[i].rt[n] = setlink(nl, ifindex, i, !up0 ^ (n & 1),
				     n & 1 ? mtu0 : mtu0 - 100, ++seq);
		t[i].n++;
		if (gap_us && late->n < MAX_OPS) {
			uint64_t t0 = now_ns(), dt;

			nanosleep(&gap, NULL);
			dt = now_ns() - t0;
			late->rt[late->n++] = dt > gap_us * 1000ull ?
					      dt - gap_us * 1000ull : 0;
		}
	}
	/* as it was */
	setlink(nl, ifindex, MTU, 0, mtu0, ++seq);
	setlink(nl, ifindex, UPDOWN, up0, 0, ++seq);
	mnl_socket_close(nl);
	if (!t[UPDOWN].n) {
		fprintf(stderr, "ddfrtnl: no request in %ld ms\n", ms);
		return 1;
	}
	for (i = 0; i < 4; i++) {
		if (t[i].n)
			times_print(&t[i]);
		free(t[i].rt);
	}
	return 0;
}

static uint64_t real_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static long mem_available_kb(void)
{
	char line[128];
	long kb = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		die("/proc/meminfo");
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %ld kB", &kb) == 1)
			break;
	fclose(f);
	if (kb < 0)
		die("MemAvailable");
	return kb;
}

/* Run one request, or a dump to its end; exits on any error. */
static void nl_talk(struct mnl_socket *nl, struct nlmsghdr *nlh,
		    mnl_cb_t cb, void *data, const char *what)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	unsigned int portid = mnl_socket_get_portid(nl);
	ssize_t n;
	int ret;

	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0)
		die(what);
	do {
		n = mnl_socket_recvfrom(nl, buf, sizeof(buf));
		if (n < 0)
			die(what);
		ret = mnl_cb_run(buf, n, nlh->nlmsg_seq, portid, cb, data);
	} while (ret > 0);
	if (ret < 0)
		die(what);
}

static struct nlmsghdr *genl_put(char *buf, uint16_t type, uint16_t flags,
				 uint8_t cmd, uint8_t version)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *g;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = 1;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = version;
	return nlh;
}

static int family_id_attr(const struct nlattr *a, void *data)
{
	if (mnl_attr_get_type(a) == CTRL_ATTR_FAMILY_ID)
		*(uint16_t *)data = mnl_attr_get_u16(a);
	return MNL_CB_OK;
}

static int family_id_cb(const struct nlmsghdr *nlh, void *data)
{
	return mnl_attr_parse(nlh, sizeof(struct genlmsghdr), family_id_attr,
			      data);
}

static int ignore_cb(const struct nlmsghdr *nlh, void *data)
{
	return MNL_CB_OK;
}

/* A dump of a generic netlink family's cmd, the family looked up first. */
static void genl_dump(const char *family, uint8_t cmd, uint8_t version)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct mnl_socket *nl = mnl_socket_open(NETLINK_GENERIC);
	struct nlmsghdr *nlh;
	uint16_t id = 0;

	if (!nl || mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0)
		die("generic netlink socket");
	nlh = genl_put(buf, GENL_ID_CTRL, NLM_F_ACK, CTRL_CMD_GETFAMILY, 1);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, family);
	nl_talk(nl, nlh, family_id_cb, &id, family);
	if (!id) {
		errno = ENOENT;
		die(family);
	}
	nlh = genl_put(buf, id, NLM_F_DUMP, cmd, version);
	nl_talk(nl, nlh, ignore_cb, NULL, family);
	mnl_socket_close(nl);
}

static void probe_one(int which, int ifindex, unsigned int mtu)
{
	static const char *const names[] = { "mtu", "mptcp", "ddf" };
	struct mnl_socket *nl;

	switch (which) {
	case 0:
		nl = mnl_socket_open(NETLINK_ROUTE);
		if (!nl || mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0)
			die("rtnetlink socket");
		setlink(nl, ifindex, MTU, 0, mtu, 1);
		mnl_socket_close(nl);
		break;
	case 1:
		genl_dump(MPTCP_PM_NAME, MPTCP_PM_CMD_GET_ADDR, MPTCP_PM_VER);
		break;
	default:
		genl_dump(DDF_GENL_NAME, DDF_CMD_GET, DDF_GENL_VERSION);
	}
	printf("%s %llu\n", names[which], (unsigned long long)real_us());
	fflush(stdout);
}

/* Wait until MemAvailable falls kb below base; 1 when 60 s pass first. */
static int mem_fall(long base, long kb)
{
	uint64_t end = now_ns() + 60 * 1000000000ull;

	if (kb <= 0)
		return 0;
	while (base - mem_available_kb() < kb)
		if (now_ns() > end) {
			fprintf(stderr, "ddfrtnl: MemAvailable did not fall by %ld kB in 60 s\n",
				kb);
			return 1;
		}
	return 0;
}

static void touch(const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f || fclose(f))
		die(path);
}

/*
 * The requests' processes are forked ahead, each waiting on the pipe, so
 * that what is timed after the fall is the requests, not starting them.
 */
static int cmd_probe(const char *dev, long kb, const char *ready)
{
	unsigned int mtu;
	int go[2], ifindex, up, i, status, bad = 0;
	long base;
	char c;

	ifindex = if_nametoindex(dev);
	if (!ifindex)
		die(dev);
	dev_state(dev, &up, &mtu);
	if (pipe(go))
		die("pipe");
	fflush(stdout);
	for (i = 0; i < 3; i++) {
		pid_t pid = fork();

		if (pid < 0)
			die("fork");
		if (!pid) {
			close(go[1]);
			if (read(go[0], &c, 1) != 1)
				_exit(1);
			probe_one(i, ifindex, mtu == 1400 ? 1401 : 1400);
			_exit(0);
		}
	}
	close(go[0]);
	base = mem_available_kb();
	touch(ready);
	if (mem_fall(base, kb)) {
		close(go[1]); /* the requests' processes end unsent */
		while (wait(&status) > 0)
			;
		return 1;
	}
	printf("start %llu\n", (unsigned long long)real_us());
	fflush(stdout);
	if (write(go[1], "go!", 3) != 3)
		die("pipe");
	close(go[1]);
	for (i = 0; i < 3; i++)
		if (wait(&status) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			bad = 1;
	return bad;
}

static int cmd_watch(const char *dev, long kb, const char *ready,
		     const char *go, const char *stop, long kb2)
{
	int status;
	pid_t pid;
	unsigned int mtu, seq = 0;
	struct mnl_socket *nl;
	int ifindex, up;
	long base;

	ifindex = if_nametoindex(dev);
	if (!ifindex)
		die(dev);
	dev_state(dev, &up, &mtu);
	nl = mnl_socket_open(NETLINK_ROUTE);
	if (!nl || mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0)
		die("rtnetlink socket");
	base = mem_available_kb();
	touch(ready);
	if (mem_fall(base, kb))
		return 1;
	printf("start %llu\n", (unsigned long long)real_us());
	fflush(stdout);
	/* memory apart: an MTU change may wait for the very build it shows */
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		const struct timespec tick = { 0, 1000000 };

		while (access(stop, F_OK)) {
			if (base - mem_available_kb() >= kb2) {
				printf("second %llu\n",
				       (unsigned long long)real_us());
				fflush(stdout);
				break;
			}
			nanosleep(&tick, NULL);
		}
		_exit(0);
	}
	touch(go);
	while (access(stop, F_OK)) {
		uint64_t t0 = real_us();

		seq++;
		setlink(nl, ifindex, MTU, 0, seq & 1 ? mtu - 1 : mtu, seq);
		printf("mtu %llu %llu\n", (unsigned long long)t0,
		       (unsigned long long)real_us());
	}
	setlink(nl, ifindex, MTU, 0, mtu, ++seq);
	mnl_socket_close(nl);
	if (fflush(stdout) || waitpid(pid, &status, 0) < 0)
		return 1;
	return 0;
}

static void await_file(const char *path)
{
	const struct timespec tick = { 0, 1000000 };

	while (access(path, F_OK))
		nanosleep(&tick, NULL);
}

/* Add (RTM_NEWLINK) or delete (RTM_DELLINK) the dummy device name. */
static void dummy(struct mnl_socket *nl, const char *name, bool add,
		  unsigned int seq)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifinfomsg *ifi;
	struct nlattr *info;

	nlh->nlmsg_type = add ? RTM_NEWLINK : RTM_DELLINK;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK |
			   (add ? NLM_F_CREATE | NLM_F_EXCL : 0);
	nlh->nlmsg_seq = seq;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	if (add) {
		info = mnl_attr_nest_start(nlh, IFLA_LINKINFO);
		mnl_attr_put_strz(nlh, IFLA_INFO_KIND, "dummy");
		mnl_attr_nest_end(nlh, info);
	}
	nl_talk(nl, nlh, NULL, NULL, add ? "RTM_NEWLINK dummy" : "RTM_DELLINK dummy");
}

/* A generic netlink socket, bound, and ddf's family id in *id. */
static struct mnl_socket *ddf_socket(uint16_t *id)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct mnl_socket *nl = mnl_socket_open(NETLINK_GENERIC);
	struct nlmsghdr *nlh;

	if (!nl || mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0)
		die("generic netlink socket");
	*id = 0;
	nlh = genl_put(buf, GENL_ID_CTRL, NLM_F_ACK, CTRL_CMD_GETFAMILY, 1);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, DDF_GENL_NAME);
	nl_talk(nl, nlh, family_id_cb, id, DDF_GENL_NAME);
	if (!*id) {
		errno = ENOENT;
		die(DDF_GENL_NAME);
	}
	return nl;
}

static int cmd_req(bool reset, const char *rule, const char *go,
		   const char *end)
{
	char buf[MNL_SOCKET_BUFFER_SIZE], tmp[4096];
	struct mnl_socket *nl;
	struct nlmsghdr *nlh;
	uint64_t t0, t1;
	uint16_t id;
	FILE *f;

	nl = ddf_socket(&id);
	await_file(go);
	nlh = genl_put(buf, id, NLM_F_ACK, reset ? DDF_CMD_RESET : DDF_CMD_GET,
		       DDF_GENL_VERSION);
	nlh->nlmsg_seq = 2;
	mnl_attr_put_strz(nlh, DDF_A_NAME, rule);
	if (reset)
		mnl_attr_put_u32(nlh, DDF_A_RESET_FLAGS, DDF_RESET_F_FILTER);
	t0 = real_us();
	nl_talk(nl, nlh, ignore_cb, NULL, reset ? "ddf rule reset" : "ddf get");
	t1 = real_us();
	mnl_socket_close(nl);
	snprintf(tmp, sizeof(tmp), "%s.tmp", end);
	f = fopen(tmp, "w");
	if (!f || fprintf(f, "%llu %llu\n", (unsigned long long)t0,
			  (unsigned long long)t1) < 0 || fclose(f) ||
	    rename(tmp, end))
		die(end);
	return 0;
}

static int cmd_churn(const char *rule, const char *go, const char *stop)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct mnl_socket *gnl, *rnl;
	struct nlmsghdr *nlh;
	unsigned int seq = 1;
	unsigned long n = 0;
	uint16_t id;

	gnl = ddf_socket(&id);
	rnl = mnl_socket_open(NETLINK_ROUTE);
	if (!rnl || mnl_socket_bind(rnl, 0, MNL_SOCKET_AUTOPID) < 0)
		die("rtnetlink socket");
	await_file(go);
	nlh = genl_put(buf, id, NLM_F_ACK, DDF_CMD_DEL, DDF_GENL_VERSION);
	nlh->nlmsg_seq = ++seq;
	mnl_attr_put_strz(nlh, DDF_A_NAME, rule);
	nl_talk(gnl, nlh, NULL, NULL, "ddf rule del");
	printf("del %llu\n", (unsigned long long)real_us());
	fflush(stdout);
	while (access(stop, F_OK)) {
		dummy(rnl, "ddfc0", true, ++seq);
		dummy(rnl, "ddfc0", false, ++seq);
		n++;
	}
	printf("devs %lu\n", n);
	mnl_socket_close(gnl);
	mnl_socket_close(rnl);
	return fflush(stdout) ? 1 : 0;
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
	if (argc == 5 && !strcmp(argv[1], "probe"))
		return cmd_probe(argv[2], atol(argv[3]), argv[4]);
	if (argc == 8 && !strcmp(argv[1], "watch"))
		return cmd_watch(argv[2], atol(argv[3]), argv[4], argv[5],
				 argv[6], atol(argv[7]));
	if (argc == 5 && (!strcmp(argv[1], "reset") || !strcmp(argv[1], "get")))
		return cmd_req(argv[1][0] == 'r', argv[2], argv[3], argv[4]);
	if (argc == 5 && !strcmp(argv[1], "churn"))
		return cmd_churn(argv[2], argv[3], argv[4]);
	if (argc >= 3 && !strcmp(argv[1], "nobody"))
		return cmd_nobody(argv + 2);
	fprintf(stderr, "usage: ddfrtnl time DEV MS [GAP_US] | ddfrtnl probe DEV KB READY |\n       ddfrtnl watch DEV KB READY GO STOP KB2 | ddfrtnl churn RULE GO STOP |\n       ddfrtnl reset|get RULE GO END | ddfrtnl nobody CMD [ARG...]\n");
	return 2;
}
