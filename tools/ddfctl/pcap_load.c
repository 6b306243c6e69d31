// SPDX-License-Identifier: GPL-2.0
/*
 * libpcap, loaded when a command first reads or writes a capture (replay,
 * advise). Linked, it would load with every ddfctl, the rule commands that
 * ddf.service runs at boot too, and with it what it needs (D-Bus, systemd,
 * gcrypt: ten libraries, 1,800 symbols bound before main). These are the
 * libpcap calls ddfctl makes, under their own names, each passing on to
 * the library's; ddfctl exports no symbol, so libpcap still calls its own.
 */
#include <dlfcn.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>

#define DDF_PCAP_SONAME "libpcap.so.0.8"

/* The library's function name; exits with a sentence when there is none. */
static void *pcap_sym(const char *name)
{
	static void *lib;
	void *fn;

	if (!lib) {
		lib = dlopen(DDF_PCAP_SONAME, RTLD_NOW | RTLD_LOCAL);
		if (!lib) {
			fprintf(stderr, "ddfctl: captures need libpcap: %s\n",
				dlerror());
			exit(1);
		}
	}
	fn = dlsym(lib, name);
	if (!fn) {
		fprintf(stderr, "ddfctl: %s has no %s\n", DDF_PCAP_SONAME, name);
		exit(1);
	}
	return fn;
}

/* fn, this function's own pointer to the library's NAME, set once */
#define PCAP_FN(name)                                                    \
	static __typeof__(&name) fn;                                     \
	if (!fn)                                                         \
		fn = (__typeof__(&name))pcap_sym(#name)

pcap_t *pcap_fopen_offline_with_tstamp_precision(FILE *fp, u_int prec,
						 char *errbuf)
{
	PCAP_FN(pcap_fopen_offline_with_tstamp_precision);
	return fn(fp, prec, errbuf);
}

pcap_t *pcap_open_dead_with_tstamp_precision(int linktype, int snaplen,
					     u_int prec)
{
	PCAP_FN(pcap_open_dead_with_tstamp_precision);
	return fn(linktype, snaplen, prec);
}

int pcap_next_ex(pcap_t *p, struct pcap_pkthdr **h, const u_char **data)
{
	PCAP_FN(pcap_next_ex);
	return fn(p, h, data);
}

int pcap_datalink(pcap_t *p)
{
	PCAP_FN(pcap_datalink);
	return fn(p);
}

const char *pcap_datalink_val_to_name(int dlt)
{
	PCAP_FN(pcap_datalink_val_to_name);
	return fn(dlt);
}

int pcap_snapshot(pcap_t *p)
{
	PCAP_FN(pcap_snapshot);
	return fn(p);
}

char *pcap_geterr(pcap_t *p)
{
	PCAP_FN(pcap_geterr);
	return fn(p);
}

void pcap_close(pcap_t *p)
{
	PCAP_FN(pcap_close);
	fn(p);
}

pcap_dumper_t *pcap_dump_open(pcap_t *p, const char *fname)
{
	PCAP_FN(pcap_dump_open);
	return fn(p, fname);
}

void pcap_dump(u_char *user, const struct pcap_pkthdr *h, const u_char *sp)
{
	PCAP_FN(pcap_dump);
	fn(user, h, sp);
}

int pcap_dump_flush(pcap_dumper_t *d)
{
	PCAP_FN(pcap_dump_flush);
	return fn(d);
}

void pcap_dump_close(pcap_dumper_t *d)
{
	PCAP_FN(pcap_dump_close);
	fn(d);
}
