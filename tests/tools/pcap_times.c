// SPDX-License-Identifier: GPL-2.0
/*
 * ddfctl_pcap_times: the times replay's reader (pcap_merge.c) gives the
 * records of captures, for tests/tools/pcapng_times.py to compare with its
 * own:
 *
 *   ddfctl_pcap_times [-c K] FILE...
 *
 * Each FILE is read alone. It prints "== FILE", then one line per record:
 * its time in ns, and the seconds and nanoseconds of the header replay
 * writes it with (-w); or the sentence that stopped the file. With -c K,
 * each FILE comes as standard input, K bytes per read (a packet socket
 * hands out one write per read), so that every block and field of the
 * file is split across reads somewhere.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ddfctl.h"
#include "pcap_merge.h"

bool ddfctl_json;
bool ddfctl_dry_run;

/* FILE's bytes on standard input, k per read, from a child; its pid */
static pid_t feed(const char *path, size_t k)
{
	int sv[2];
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv)) {
		perror("ddfctl_pcap_times");
		exit(1);
	}
	pid = fork();
	if (pid < 0) {
		perror("ddfctl_pcap_times");
		exit(1);
	}
	if (!pid) {
		FILE *f = fopen(path, "rb");
		char buf[4096];
		size_t n;

		close(sv[0]);
		if (!f)
			_exit(1);
		while ((n = fread(buf, 1, k, f)) > 0)
			if (write(sv[1], buf, n) != (ssize_t)n)
				_exit(1);
		_exit(0);
	}
	close(sv[1]);
	if (sv[0] != STDIN_FILENO) {
		if (dup2(sv[0], STDIN_FILENO) < 0) {
			perror("ddfctl_pcap_times");
			exit(1);
		}
		close(sv[0]);
	}
	return pid;
}

int main(int argc, char **argv)
{
	size_t k = 0;
	int i = 1;

	if (argc > 2 && !strcmp(argv[1], "-c")) {
		k = strtoul(argv[2], NULL, 10);
		i = 3;
		if (!k || k > 4096)
			return 2;
	}
	/* the sentences (stderr) in order among the lines */
	setvbuf(stdout, NULL, _IONBF, 0);
	if (dup2(STDOUT_FILENO, STDERR_FILENO) < 0)
		return 1;
	for (; i < argc; i++) {
		const char *path = k ? "-" : argv[i];
		pid_t pid = k ? feed(argv[i], k) : 0;
		struct pcap_merge *m;
		struct pcap_merge_rec rec;

		printf("== %s\n", argv[i]);
		m = pcap_merge_open("replay", 1, &path);
		while (m && pcap_merge_next(m, &rec) == 1)
			printf("%llu %lld %ld\n", (unsigned long long)rec.ns,
			       (long long)rec.h->ts.tv_sec,
			       (long)rec.h->ts.tv_usec);
		pcap_merge_close(m);
		if (pid) {
			/* the rest unread after a refusal: the child may wait */
			close(STDIN_FILENO);
			waitpid(pid, NULL, 0);
		}
	}
	return 0;
}
