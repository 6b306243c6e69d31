// SPDX-License-Identifier: GPL-2.0
/*
 * ddfxsk: an AF_XDP capture, for the tests of a port that ddf's XDP
 * program shares with one (tests/netns/xsk.sh).
 *
 *   ddfxsk DEV OUT.pcap [queues N] [mode native|generic] [count N]
 *          [idle MS] [timeout MS]
 *
 * It opens its sockets as an AF_XDP capture tool (Suricata's af-xdp) does,
 * through libxdp's xsk API: one UMEM and one socket per RX queue 0..N-1
 * (default 1), bound in copy or zero-copy mode as the driver allows, and
 * libxdp's own AF_XDP program (xsk_def_xdp_prog) loaded by libxdp into
 * its dispatcher, in native (driver) or generic (skb) XDP mode (default
 * native). A program that runs before it in the dispatcher and drops a
 * frame hides that frame from the capture; one that passes it does not.
 *
 * Once every socket is bound it prints "ddfxsk: ready" on stdout. Then it
 * writes every frame it receives into OUT.pcap (classic pcap, Ethernet,
 * the bytes as received; frames of several queues in the order they are
 * read) until IDLE ms (1000) passed without a frame after the first (with
 * COUNT: after the COUNT-th, so that a frame too many is seen, not cut
 * off), or TIMEOUT ms (60000, 0: none) passed since it was ready, or
 * SIGTERM or SIGINT came; what the rings hold then is written too. It
 * closes the sockets (libxdp takes its program out of the dispatcher when
 * its last socket goes) and prints
 *
 *   ddfxsk: N frames, D dropped (queue 0: N0, queue 1: N1, ...)
 *
 * where D counts what the sockets could not take (no free buffer, a full
 * RX ring, a frame longer than a buffer). Exit status 0; a setup error is
 * one sentence on stderr and status 1. libxdp keeps its state in bpffs
 * (/sys/fs/bpf): in a network namespace, enter it with nsenter --net, as
 * ip netns exec mounts a sysfs without bpffs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/if_link.h>
#include <linux/if_xdp.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <xdp/libxdp.h>
#include <xdp/xsk.h>

#define MAX_QUEUES	64
#define FRAME_SIZE	XSK_UMEM__DEFAULT_FRAME_SIZE	/* one frame a buffer */
#define NUM_FRAMES	2048		/* per queue: the fill ring holds them all */
#define BATCH		64
#define SNAPLEN		65535
#define LINKTYPE_ETHERNET 1

static const char usage[] =
	"usage: ddfxsk DEV OUT.pcap [queues N] [mode native|generic] [count N]\n"
	"              [idle MS] [timeout MS]\n"
	"  AF_XDP sockets on RX queues 0..N-1 of DEV (1) through libxdp, its\n"
	"  program in native (driver) or generic (skb) XDP mode (native);\n"
	"  prints \"ddfxsk: ready\" once bound, then writes each frame into\n"
	"  OUT.pcap until IDLE ms (1000) without one after the first (with\n"
	"  COUNT: after the COUNT-th), TIMEOUT ms (60000; 0: none) in all, or\n"
	"  SIGTERM/SIGINT; then prints\n"
	"  \"ddfxsk: N frames, D dropped (queue 0: N0, ...)\".\n";

struct queue {
	void *area;
	struct xsk_umem *umem;
	struct xsk_socket *xsk;
	struct xsk_ring_prod fill;
	struct xsk_ring_cons comp;
	struct xsk_ring_cons rx;
	unsigned long frames;
};

static struct queue queues[MAX_QUEUES];
static unsigned int nqueues = 1;
static char last_warning[256];

static void close_queues(void)
{
	unsigned int q;

	for (q = 0; q < nqueues; q++) {
		xsk_socket__delete(queues[q].xsk);
		xsk_umem__delete(queues[q].umem);
		if (queues[q].area)
			munmap(queues[q].area, (size_t)NUM_FRAMES * FRAME_SIZE);
		queues[q].xsk = NULL;
		queues[q].umem = NULL;
		queues[q].area = NULL;
	}
}

static void __attribute__((noreturn, format(printf, 1, 2)))
die(const char *fmt, ...)
{
	va_list ap;

	/* sockets already bound go, so libxdp takes its program away */
	close_queues();
	fputs("ddfxsk: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/*
 * libxdp explains a refusal in warnings of its own; the last one joins
 * our one sentence instead of lines of its own on stderr.
 */
static int keep_warning(enum libxdp_print_level level, const char *fmt,
			va_list ap)
{
	size_t n;

	if (level != LIBXDP_WARN)
		return 0;
	vsnprintf(last_warning, sizeof(last_warning), fmt, ap);
	n = strlen(last_warning);
	while (n && (last_warning[n - 1] == '\n' || last_warning[n - 1] == '.'))
		last_warning[--n] = '\0';
	return 0;
}

/* libbpf's warnings (libxdp loads through libbpf) go the same way */
static int keep_libbpf_warning(enum libbpf_print_level level, const char *fmt,
			       va_list ap)
{
	return level == LIBBPF_WARN ?
		keep_warning(LIBXDP_WARN, fmt, ap) : 0;
}

static unsigned long parse_num(const char *word, const char *s,
			       unsigned long min, unsigned long max)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || v < min || v > max)
		die("%s '%s' is not a number from %lu to %lu", word, s, min, max);
	return v;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void put_u32(FILE *f, uint32_t v)
{
	fwrite(&v, sizeof(v), 1, f);	/* host order: the magic says which */
}

static void pcap_header(FILE *f)
{
	put_u32(f, 0xa1b2c3d4);
	put_u32(f, 2 | 4u << 16);	/* version 2.4 */
	put_u32(f, 0);			/* thiszone */
	put_u32(f, 0);			/* sigfigs */
	put_u32(f, SNAPLEN);
	put_u32(f, LINKTYPE_ETHERNET);
}

static void pcap_record(FILE *f, const void *data, uint32_t len)
{
	struct timespec ts;
	uint32_t cap = len < SNAPLEN ? len : SNAPLEN;

	clock_gettime(CLOCK_REALTIME, &ts);
	put_u32(f, (uint32_t)ts.tv_sec);
	put_u32(f, (uint32_t)(ts.tv_nsec / 1000));
	put_u32(f, cap);
	put_u32(f, len);
	fwrite(data, 1, cap, f);
}

/* UMEM, fill ring full of its frames, and a socket bound to queue @q */
static void open_queue(const char *dev, unsigned int q, uint32_t xdp_flags,
		       const char *mode)
{
	struct xsk_umem_config ucfg = {
		.fill_size = NUM_FRAMES,
		.comp_size = XSK_RING_CONS__DEFAULT_NUM_DESCS,
		.frame_size = FRAME_SIZE,
		.frame_headroom = XSK_UMEM__DEFAULT_FRAME_HEADROOM,
		.flags = XSK_UMEM__DEFAULT_FLAGS,
	};
	struct xsk_socket_config scfg = {
		.rx_size = NUM_FRAMES,
		.libxdp_flags = 0,	/* libxdp loads its program */
		.xdp_flags = xdp_flags,
		/* no copy or zero-copy asked: the driver's best */
		.bind_flags = XDP_USE_NEED_WAKEUP,
	};
	struct queue *x = &queues[q];
	uint32_t idx, i;
	int err;

	x->area = mmap(NULL, (size_t)NUM_FRAMES * FRAME_SIZE,
		       PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (x->area == MAP_FAILED) {
		x->area = NULL;
		die("no memory for the UMEM of queue %u: %s", q, strerror(errno));
	}
	err = xsk_umem__create(&x->umem, x->area, (uint64_t)NUM_FRAMES * FRAME_SIZE,
			       &x->fill, &x->comp, &ucfg);
	if (err) {
		x->umem = NULL;
		die("cannot register a UMEM for queue %u of %s (kernel without AF_XDP, CONFIG_XDP_SOCKETS?): %s",
		    q, dev, strerror(-err));
	}
	if (xsk_ring_prod__reserve(&x->fill, NUM_FRAMES, &idx) != NUM_FRAMES)
		die("the fill ring of queue %u takes fewer than %u frames", q,
		    NUM_FRAMES);
	for (i = 0; i < NUM_FRAMES; i++)
		*xsk_ring_prod__fill_addr(&x->fill, idx + i) = (uint64_t)i * FRAME_SIZE;
	xsk_ring_prod__submit(&x->fill, NUM_FRAMES);

	last_warning[0] = '\0';
	err = xsk_socket__create(&x->xsk, dev, q, x->umem, &x->rx, NULL, &scfg);
	if (err) {
		x->xsk = NULL;
		die("cannot bind an AF_XDP socket to queue %u of %s with libxdp's program in %s mode: %s%s%s%s",
		    q, dev, mode, strerror(-err),
		    last_warning[0] ? " (libxdp: " : "", last_warning,
		    last_warning[0] ? ")" : "");
	}
}

/* everything queue @q has: into @out, the frames back into the fill ring */
static unsigned int drain(struct queue *x, FILE *out)
{
	uint32_t rx_idx, fill_idx, n, i;

	n = xsk_ring_cons__peek(&x->rx, BATCH, &rx_idx);
	if (!n)
		return 0;
	/*
	 * Every frame of the UMEM is in the fill ring, the RX ring or our
	 * hands, so the n frames taken from the fill ring left room there.
	 */
	if (xsk_ring_prod__reserve(&x->fill, n, &fill_idx) != n)
		die("the fill ring has no room for %u frames back", n);
	for (i = 0; i < n; i++) {
		const struct xdp_desc *d = xsk_ring_cons__rx_desc(&x->rx, rx_idx + i);

		pcap_record(out, xsk_umem__get_data(x->area, d->addr), d->len);
		*xsk_ring_prod__fill_addr(&x->fill, fill_idx + i) =
			d->addr & ~(uint64_t)(FRAME_SIZE - 1);
	}
	xsk_ring_cons__release(&x->rx, n);
	xsk_ring_prod__submit(&x->fill, n);
	x->frames += n;
	return n;
}

/* what the socket of queue @q could not take */
static unsigned long long dropped(const struct queue *x)
{
	struct xdp_statistics st;
	socklen_t len = sizeof(st);

	memset(&st, 0, sizeof(st));
	if (getsockopt(xsk_socket__fd(x->xsk), SOL_XDP, XDP_STATISTICS, &st, &len))
		return 0;
	return st.rx_dropped + st.rx_ring_full + st.rx_invalid_descs;
}

static void on_signal(int sig)
{
	(void)sig;	/* ppoll returns EINTR: that is the whole point */
}

int main(int argc, char **argv)
{
	unsigned long count = 0, idle = 1000, timeout = 60000, total = 0;
	uint32_t xdp_flags = XDP_FLAGS_DRV_MODE;
	const char *mode = "native", *dev, *path;
	struct pollfd pfd[MAX_QUEUES];
	struct rlimit unlimited = { RLIM_INFINITY, RLIM_INFINITY };
	struct sigaction sa;
	sigset_t block, waitmask;
	uint64_t start, last = 0;
	unsigned long long lost = 0;
	bool stop = false;
	unsigned int q;
	FILE *out;
	int i;

	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
			  !strcmp(argv[1], "help"))) {
		fputs(usage, stdout);
		return 0;
	}
	if (argc < 3 || argc % 2 == 0) {
		fputs(usage, stderr);
		return 1;
	}
	dev = argv[1];
	path = argv[2];
	for (i = 3; i + 1 < argc; i += 2) {
		const char *w = argv[i], *v = argv[i + 1];

		if (!strcmp(w, "queues")) {
			nqueues = parse_num(w, v, 1, MAX_QUEUES);
		} else if (!strcmp(w, "mode") && !strcmp(v, "native")) {
			xdp_flags = XDP_FLAGS_DRV_MODE;
			mode = "native";
		} else if (!strcmp(w, "mode") && !strcmp(v, "generic")) {
			xdp_flags = XDP_FLAGS_SKB_MODE;
			mode = "generic";
		} else if (!strcmp(w, "mode")) {
			die("mode '%s' is not native or generic", v);
		} else if (!strcmp(w, "count")) {
			count = parse_num(w, v, 1, ULONG_MAX);
		} else if (!strcmp(w, "idle")) {
			idle = parse_num(w, v, 1, 86400000);
		} else if (!strcmp(w, "timeout")) {
			timeout = parse_num(w, v, 0, 86400000);
		} else {
			die("'%s' is not queues, mode, count, idle or timeout (ddfxsk --help)", w);
		}
	}
	if (!if_nametoindex(dev))
		die("no device '%s' here", dev);

	/*
	 * The signals stay blocked but inside ppoll, so one that comes
	 * between two waits is not lost.
	 */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigprocmask(SIG_BLOCK, &block, &waitmask);
	sigdelset(&waitmask, SIGTERM);
	sigdelset(&waitmask, SIGINT);

	out = fopen(path, "w");
	if (!out)
		die("cannot write '%s': %s", path, strerror(errno));
	pcap_header(out);

	/* kernels that charge BPF maps and UMEM pages to RLIMIT_MEMLOCK */
	setrlimit(RLIMIT_MEMLOCK, &unlimited);
	libxdp_set_print(keep_warning);
	libbpf_set_print(keep_libbpf_warning);
	for (q = 0; q < nqueues; q++) {
		open_queue(dev, q, xdp_flags, mode);
		pfd[q].fd = xsk_socket__fd(queues[q].xsk);
		pfd[q].events = POLLIN;
	}
	printf("ddfxsk: ready\n");
	fflush(stdout);

	start = now_ms();
	while (!stop) {
		uint64_t now = now_ms(), wait_ms = UINT64_MAX;
		struct timespec ts;
		int r;

		if (timeout)
			wait_ms = start + timeout > now ? start + timeout - now : 0;
		if (total >= (count ? count : 1) && last + idle < now + wait_ms)
			wait_ms = last + idle > now ? last + idle - now : 0;
		if (wait_ms == 0)
			break;
		if (wait_ms != UINT64_MAX) {
			ts.tv_sec = (time_t)(wait_ms / 1000);
			ts.tv_nsec = (long)(wait_ms % 1000) * 1000000;
		}
		r = ppoll(pfd, nqueues, wait_ms == UINT64_MAX ? NULL : &ts, &waitmask);
		if (r < 0 && errno == EINTR)
			stop = true;
		else if (r < 0)
			die("poll: %s", strerror(errno));
		/* after a signal too: what the rings hold was received */
		for (q = 0; q < nqueues; q++) {
			unsigned int n;

			while ((n = drain(&queues[q], out))) {
				total += n;
				last = now_ms();
			}
			/* copy mode takes new buffers when woken, as in poll */
			if (xsk_ring_prod__needs_wakeup(&queues[q].fill))
				recvfrom(pfd[q].fd, NULL, 0, MSG_DONTWAIT, NULL, NULL);
		}
		if (fflush(out))
			die("cannot write '%s': %s", path, strerror(errno));
	}

	for (q = 0; q < nqueues; q++)
		lost += dropped(&queues[q]);
	close_queues();
	if (fclose(out))
		die("cannot write '%s': %s", path, strerror(errno));
	printf("ddfxsk: %lu frames, %llu dropped (", total, lost);
	for (q = 0; q < nqueues; q++)
		printf("%squeue %u: %lu", q ? ", " : "", q, queues[q].frames);
	printf(")\n");
	return 0;
}
