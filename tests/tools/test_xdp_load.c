// SPDX-License-Identifier: GPL-2.0
/*
 * ddfctl's XDP loads as restore makes them, one per attachment in one
 * process, without a kernel: libbpf's load of the skeleton is a stand-in
 * that writes a line to libbpf's log and succeeds or is refused, and
 * open_memstream() fails for the attachments a test names. Built with
 * ASan (make check-tools), which stops at a log freed twice or read after
 * it was freed. And libbpf's and libxdp's print functions: those ddfctl
 * sets for a while are put back, so later messages are heard.
 *
 * Linked with -Wl,--wrap=open_memstream,--wrap=bpf_object__load_skeleton.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>

#include "check.h"
#include "ddfctl.h"
#include "ddf_xdp.skel.h"

bool ddfctl_json;
bool ddfctl_dry_run;

#define NATTACH 40

/* the attachment being loaded (1 first); bits: those that fail */
static unsigned int attaching, attached, detached;
static uint64_t no_memstream, refused;

FILE *__real_open_memstream(char **ptr, size_t *size);

FILE *__wrap_open_memstream(char **ptr, size_t *size)
{
	if (no_memstream >> attaching & 1) {
		errno = ENOMEM;
		return NULL;
	}
	return __real_open_memstream(ptr, size);
}

/* a line as libbpf writes one, to the print function ddfctl set */
static void libbpf_says(const char *fmt, ...)
{
	libbpf_print_fn_t fn = libbpf_set_print(NULL);
	va_list ap;

	libbpf_set_print(fn);
	va_start(ap, fmt);
	if (fn)
		fn(LIBBPF_WARN, fmt, ap);
	va_end(ap);
}

int __wrap_bpf_object__load_skeleton(struct bpf_object_skeleton *s)
{
	libbpf_says("libbpf: load %u: verifier says\n", attaching);
	return refused >> attaching & 1 ? -EACCES : 0;
}

static int fake_send(const struct ddf_cmd_req *req)
{
	return 0;
}

/* xdp attach as xdp_attach_rule() loads, the kernel's checks left out */
static int load_attach(const char *dev, const char *rule,
		       const struct xdp_how *how)
{
	struct ddf_rule_info ri;
	struct ddf_xdp *skel;

	memset(&ri, 0, sizeof(ri));
	ri.id = ++attaching;
	if (xdp_load(&ri, &skel))
		return -1;
	ddf_xdp__destroy(skel);
	attached++;
	return 0;
}

static int fake_detach(const char *dev)
{
	detached++;
	return 0;
}

static const struct restore_ops ops = { fake_send, load_attach, fake_detach };

/*
 * restore of NATTACH netdev rules, each attached on its device; what it
 * says into *err (free it). stderr is swapped, not its descriptor, which
 * keeps the sanitizers' reports on the terminal.
 */
static int restore_many(char **err)
{
	static char text[NATTACH * 128];
	struct restore_set s;
	size_t len = 0;
	FILE *in, *cap = tmpfile(), *saved = stderr;
	long n;
	int ret;

	for (int i = 0; i < NATTACH; i++)
		len += snprintf(text + len, sizeof(text) - len,
				"rule add r%d family netdev hook none dev xd%d window 1000\n",
				i, i);
	for (int i = 0; i < NATTACH; i++)
		len += snprintf(text + len, sizeof(text) - len,
				"xdp attach dev xd%d rule r%d\n", i, i);
	attaching = attached = detached = 0;
	stderr = cap;
	in = fmemopen(text, len, "r");
	ret = restore_read(in, &s);
	fclose(in);
	if (!ret)
		ret = restore_apply(&s, &ops);
	restore_free(&s);
	stderr = saved;
	n = ftell(cap);
	*err = calloc(1, n + 1);
	rewind(cap);
	if (fread(*err, 1, n, cap) != (size_t)n)
		(*err)[0] = 0;
	fclose(cap);
	return ret;
}

/* Test that every attachment loads when some have no log */
static void test_no_log(void)
{
	char *err;
	int ret;

	no_memstream = 1ull << 2 | 1ull << 3 | 1ull << 7 | 1ull << NATTACH;
	refused = 0;
	ret = restore_many(&err);
	CHECK(!ret && attached == NATTACH && !detached && !err[0],
	      "restore without some logs: %d, %u attached, %u detached: %s",
	      ret, attached, detached, err);
	free(err);
}

/* Test that a refused load says its own log, after loads that had one */
static void test_refused(void)
{
	char *err;
	int ret;

	no_memstream = 0;
	refused = 1ull << 5;
	ret = restore_many(&err);
	CHECK(ret && attached == 4 && detached == 4,
	      "restore refused at 5: %d, %u attached, %u detached", ret,
	      attached, detached);
	CHECK(strstr(err, "the kernel refused ddf's XDP program (Permission denied):\nlibbpf: load 5: verifier says\n") &&
		      !strstr(err, "load 4:"),
	      "refused at 5: %s", err);
	free(err);
}

/* Test that a refused load without a log says none, an earlier one freed */
static void test_refused_no_log(void)
{
	char *err;
	int ret;

	no_memstream = 1ull << 5;
	refused = 1ull << 5;
	ret = restore_many(&err);
	CHECK(ret && attached == 4 && detached == 4,
	      "restore refused at 5: %d, %u attached, %u detached", ret,
	      attached, detached);
	CHECK(strstr(err, "the kernel refused ddf's XDP program (Permission denied)\n") &&
		      !strstr(err, "libbpf:"),
	      "refused at 5 without a log: %s", err);
	free(err);
}

/* stand-ins for the libraries' own print functions (stderr) */
static int heard_bpf;
static bool xdp_ours;

static int bpf_listener(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	heard_bpf++;
	return 0;
}

static int xdp_listener(enum libxdp_print_level level, const char *fmt,
			va_list ap)
{
	return 0;
}

/* whether a message of each library now reaches the stand-ins */
static bool heard(void)
{
	libxdp_print_fn_t xfn = libxdp_set_print(NULL);

	libxdp_set_print(xfn);
	xdp_ours = xfn == xdp_listener;
	heard_bpf = 0;
	libbpf_says("libbpf: a later load: verifier says no\n");
	return heard_bpf == 1 && xdp_ours;
}

/*
 * Test that after xdp_port_read() (a device asked, whatever the answer)
 * and after a load, a later message of libbpf (a load refused) and of
 * libxdp is heard as it was before, not swallowed.
 */
static void test_print_put_back(void)
{
	libbpf_print_fn_t bpf_before = libbpf_set_print(bpf_listener);
	libxdp_print_fn_t xdp_before = libxdp_set_print(xdp_listener);
	struct ddf_rule_info ri;
	struct ddf_xdp *skel;
	struct xdp_port p;

	xdp_port_read(1, &p);
	CHECK(heard(), "after xdp_port_read: libbpf's message heard %d times, libxdp's print function %s",
	      heard_bpf, xdp_ours ? "ours" : "another");
	memset(&ri, 0, sizeof(ri));
	ri.id = 1;
	no_memstream = refused = 0;
	attaching = 0;
	if (!xdp_load(&ri, &skel))
		ddf_xdp__destroy(skel);
	CHECK(heard(), "after a load: libbpf's message heard %d times, libxdp's print function %s",
	      heard_bpf, xdp_ours ? "ours" : "another");
	libbpf_set_print(bpf_before);
	libxdp_set_print(xdp_before);
}

int main(void)
{
	test_no_log();
	test_refused();
	test_refused_no_log();
	test_print_put_back();
	printf("test_xdp_load: %d passed, %d failed\n", pass, fail);
	return fail ? 1 : 0;
}
