// SPDX-License-Identifier: GPL-2.0
/*
 * failnth: fail the Nth memory allocation of one system call of a command.
 *
 *   failnth -n N -s SYSCALL[:K] [-o FILE] [-w FILE] -- COMMAND [ARG...]
 *
 * Runs COMMAND traced; at the entry of its Kth call (default the first) of
 * SYSCALL, writes N to the command's /proc/PID/fail-nth, so that the Nth
 * fault point (failslab, fail_page_alloc) that call reaches fails; at the
 * call's exit reads it back and writes 0, so nothing after that call is
 * failed. Exec, the dynamic loader and the command's other system calls
 * run unharmed: only the request under test sees the fault.
 *
 * One line goes to FILE (default stderr):
 *   failnth: injected N                  the Nth fault point was failed
 *   failnth: not reached N points P      the call passed P < N points
 *   failnth: no call                     COMMAND never made that call
 * -w FILE saves the buffer of that sendto or write (the bytes of a
 * netlink request, for ddfreq). The exit status is COMMAND's (128 + signal when a signal killed it).
 * With N larger than any call needs, "points P" counts the call's fault
 * points. The kernel needs CONFIG_FAULT_INJECTION; which allocations
 * count follows /sys/kernel/debug/{failslab,fail_page_alloc}/ignore-*.
 *
 * Stopping at every system call is slow under emulation (a dynamically
 * linked command makes most of its calls in the loader), and kernels
 * without seccomp cannot pick calls: the command runs untraced up to its
 * entry point (a breakpoint), and system call by system call from there.
 * x86-64 only.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

static const struct {
	const char *name;
	long nr;
} calls[] = {
	{ "sendto", SYS_sendto },
	{ "sendmsg", SYS_sendmsg },
	{ "finit_module", SYS_finit_module },
	{ "init_module", SYS_init_module },
	{ "delete_module", SYS_delete_module },
	{ "unshare", SYS_unshare },
	{ "setns", SYS_setns },
	{ "umount2", SYS_umount2 },
	{ "unlink", SYS_unlink },
	{ "write", SYS_write },
};

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("failnth: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(125);
}

static void usage(void)
{
	fputs("usage: failnth -n N -s SYSCALL[:K] [-o FILE] [-w FILE] -- COMMAND [ARG...]\n",
	      stderr);
	exit(125);
}

/* /proc/PID/fail-nth: set it to n, or read it (n < 0). */
static long fail_nth(pid_t pid, long n)
{
	char path[64], buf[32];
	ssize_t len;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/fail-nth", (int)pid);
	fd = open(path, n < 0 ? O_RDONLY : O_WRONLY);
	if (fd < 0)
		die("%s: %s (a kernel without CONFIG_FAULT_INJECTION?)", path,
		    strerror(errno));
	if (n >= 0) {
		len = snprintf(buf, sizeof(buf), "%ld", n);
		if (write(fd, buf, len) != len)
			die("write %s: %s", path, strerror(errno));
	} else {
		len = read(fd, buf, sizeof(buf) - 1);
		if (len <= 0)
			die("read %s: %s", path, strerror(errno));
		buf[len] = 0;
		n = strtol(buf, NULL, 10);
	}
	close(fd);
	return n;
}

/* The entry point of the image pid just exec'ed (AT_ENTRY). */
static unsigned long entry_of(pid_t pid)
{
	Elf64_auxv_t av;
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/auxv", (int)pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		die("%s: %s", path, strerror(errno));
	while (read(fd, &av, sizeof(av)) == sizeof(av) && av.a_type != AT_NULL)
		if (av.a_type == AT_ENTRY) {
			close(fd);
			return av.a_un.a_val;
		}
	die("%s: no AT_ENTRY", path);
	return 0;
}

/* Save len bytes at addr in pid to path. */
static void save_buffer(pid_t pid, unsigned long addr, size_t len,
			const char *path)
{
	static char data[1 << 16];
	char mem[64];
	FILE *f;
	int fd;

	snprintf(mem, sizeof(mem), "/proc/%d/mem", (int)pid);
	fd = open(mem, O_RDONLY);
	if (fd < 0 || len > sizeof(data) ||
	    pread(fd, data, len, (off_t)addr) != (ssize_t)len)
		die("reading the call's buffer: %s", strerror(errno));
	close(fd);
	f = fopen(path, "w");
	if (!f || fwrite(data, 1, len, f) != len || fclose(f))
		die("%s: %s", path, strerror(errno));
}

static void wait_for(pid_t pid, int *status)
{
	if (waitpid(pid, status, 0) != pid)
		die("waitpid: %s", strerror(errno));
}

int main(int argc, char **argv)
{
	long n = -1, nr = -1, k = 1, seen = 0, left = -1, word = 0;
	int opt, status, sig = 0, armed = 0, stepping = 0;
	enum __ptrace_request how = PTRACE_CONT;
	unsigned long entry = 0;
	const char *outpath = NULL, *savepath = NULL;
	unsigned int i;
	FILE *out;
	char *colon;
	pid_t pid;

	while ((opt = getopt(argc, argv, "+n:s:o:w:")) != -1) {
		switch (opt) {
		case 'n':
			n = strtol(optarg, NULL, 0);
			break;
		case 's':
			colon = strchr(optarg, ':');
			if (colon) {
				*colon = 0;
				k = strtol(colon + 1, NULL, 0);
			}
			for (i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
				if (!strcmp(calls[i].name, optarg))
					nr = calls[i].nr;
			if (nr < 0)
				die("unknown system call %s", optarg);
			break;
		case 'o':
			outpath = optarg;
			break;
		case 'w':
			savepath = optarg;
			break;
		default:
			usage();
		}
	}
	if (n < 1 || nr < 0 || k < 1 || optind >= argc)
		usage();
	out = stderr;
	if (outpath) {
		out = fopen(outpath, "w");
		if (!out)
			die("%s: %s", outpath, strerror(errno));
	}

	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (!pid) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
			_exit(126);
		raise(SIGSTOP);
		execvp(argv[optind], argv + optind);
		fprintf(stderr, "failnth: %s: %s\n", argv[optind],
			strerror(errno));
		_exit(127);
	}
	wait_for(pid, &status);
	if (!WIFSTOPPED(status))
		die("the command did not stop");
	if (ptrace(PTRACE_SETOPTIONS, pid, NULL,
		   (void *)(long)(PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEEXEC |
				  PTRACE_O_EXITKILL)))
		die("PTRACE_SETOPTIONS: %s", strerror(errno));

	for (;;) {
		struct __ptrace_syscall_info si;
		struct user_regs_struct regs;

		if (ptrace(how, pid, NULL, (void *)(long)sig))
			die("ptrace: %s", strerror(errno));
		sig = 0;
		wait_for(pid, &status);
		if (WIFEXITED(status) || WIFSIGNALED(status))
			break;
		if (!WIFSTOPPED(status))
			continue;
		if (status >> 8 == (SIGTRAP | PTRACE_EVENT_EXEC << 8)) {
			/* a new image: run it untraced to its entry point */
			entry = entry_of(pid);
			errno = 0;
			word = ptrace(PTRACE_PEEKTEXT, pid, (void *)entry, NULL);
			if (errno)
				die("PEEKTEXT: %s", strerror(errno));
			if (ptrace(PTRACE_POKETEXT, pid, (void *)entry,
				   (void *)((word & ~0xffL) | 0xcc)))
				die("POKETEXT: %s", strerror(errno));
			seen = 0;
			stepping = 0;
			how = PTRACE_CONT;
			continue;
		}
		if (status >> 16)
			continue;
		if (WSTOPSIG(status) == SIGTRAP && !stepping && entry) {
			/* the breakpoint: put the word back, step call by call */
			if (ptrace(PTRACE_GETREGS, pid, NULL, &regs))
				die("GETREGS: %s", strerror(errno));
			if (regs.rip != entry + 1)
				die("a trap at %#llx, not at the entry point %#lx",
				    regs.rip, entry);
			regs.rip = entry;
			if (ptrace(PTRACE_POKETEXT, pid, (void *)entry,
				   (void *)word) ||
			    ptrace(PTRACE_SETREGS, pid, NULL, &regs))
				die("restoring the entry point: %s",
				    strerror(errno));
			stepping = 1;
			how = PTRACE_SYSCALL;
			continue;
		}
		if (WSTOPSIG(status) != (SIGTRAP | 0x80)) {
			/* a signal for the command: deliver it */
			sig = WSTOPSIG(status);
			continue;
		}
		if (ptrace(PTRACE_GET_SYSCALL_INFO, pid, (void *)sizeof(si),
			   &si) <= 0)
			die("PTRACE_GET_SYSCALL_INFO: %s", strerror(errno));
		if (si.op == PTRACE_SYSCALL_INFO_ENTRY && !armed &&
		    (long)si.entry.nr == nr && ++seen == k) {
			if (savepath)
				save_buffer(pid, si.entry.args[1],
					    si.entry.args[2], savepath);
			fail_nth(pid, n);
			armed = 1;
		} else if (si.op == PTRACE_SYSCALL_INFO_EXIT && armed) {
			left = fail_nth(pid, -1);
			fail_nth(pid, 0);
			armed = 0;
			/* nothing more to do: the command runs on untraced */
			if (ptrace(PTRACE_DETACH, pid, NULL, NULL))
				die("PTRACE_DETACH: %s", strerror(errno));
			wait_for(pid, &status);
			break;
		}
	}

	if (armed)
		fprintf(out, "failnth: ended inside the call\n");
	else if (left < 0)
		fprintf(out, "failnth: no call\n");
	else if (left == 0)
		fprintf(out, "failnth: injected %ld\n", n);
	else
		fprintf(out, "failnth: not reached %ld points %ld\n", n,
			n - left);
	fclose(out);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
