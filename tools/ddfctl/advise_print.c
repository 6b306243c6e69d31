// SPDX-License-Identifier: GPL-2.0
/* ddfctl advise: its report, as text or as one JSON object (advise.c). */
#include <stdio.h>

#include "advise.h"

static void print_dur(FILE *out, uint64_t ns)
{
	if (ns < 1000)
		fprintf(out, "%lluns", (unsigned long long)ns);
	else if (ns < 1000000)
		fprintf(out, "%.3gus", ns / 1e3);
	else if (ns < 1000000000)
		fprintf(out, "%.3gms", ns / 1e6);
	else
		fprintf(out, "%.4gs", ns / 1e9);
}

static const char *const pnames[5] = { "p50", "p90", "p99", "p99.9", "max" };

void advise_print_json(const struct advise *a)
{
	fputs("{\"files\": [", stdout);
	for (unsigned int i = 0; i < a->nin; i++) {
		fputs(i ? ", " : "", stdout);
		json_str(stdout, a->in[i]);
	}
	printf("], \"family\": \"%s\", \"records\": %llu, \"packets\": %llu, \"distinct\": %llu, \"copies\": %llu, \"share\": %.6f",
	       a->netdev ? "netdev" : "inet", (unsigned long long)a->records,
	       (unsigned long long)a->npts, (unsigned long long)a->rdistinct,
	       (unsigned long long)a->copies,
	       a->npts ? (double)a->copies / a->npts : 0.0);
	printf(", \"candidates\": %llu, \"identical_frames\": %llu, \"match_strict\": %llu",
	       (unsigned long long)a->cand, (unsigned long long)a->frame_match,
	       (unsigned long long)a->strict_match);
	for (int d = 0; d < 2; d++) {
		printf(", \"%s\": {", d ? "delay_ns" : "delay_packets");
		for (int i = 0; i < 5; i++)
			printf("%s\"%s\": %llu", i ? ", " : "", pnames[i],
			       a->copies ? (unsigned long long)(d ? a->tns[i] :
								    a->pk[i]) :
					   0ull);
		fputc('}', stdout);
	}
	fputs(", \"differs\": {", stdout);
	for (unsigned int i = 0; i < NDIMS; i++)
		printf("%s\"%s\": %llu", i ? ", " : "", adv_dims[i].name,
		       (unsigned long long)(i == DIM_MAC ? a->mac_bytes :
							   a->differs[i]));
	fputs("}, \"match_once_ignored\": {", stdout);
	for (unsigned int i = 0; i < NDIMS; i++)
		printf("%s\"%s\": %llu", i ? ", " : "", adv_dims[i].name,
		       (unsigned long long)a->once[i]);
	fputs("}, \"rule\": ", stdout);
	if (!a->copies) {
		fputs("null}\n", stdout);
		return;
	}
	printf("{\"words\": ");
	json_str(stdout, a->words);
	printf(", \"ignore\": ");
	json_str(stdout, a->ignore_w);
	printf(", \"decap\": ");
	json_str(stdout, a->decap_w[0] ? a->decap_w : "none");
	printf(", \"window\": %llu, \"window_ns\": %llu, \"window_count\": %llu, \"cover_ns\": %llu, \"peak_packets\": %llu, \"beyond_window\": %llu, \"count_window\": %s, \"loosest\": %s, \"filter\": \"%s\", \"bytes\": %llu, \"fpr\": %.3g}}\n",
	       (unsigned long long)a->win_n, (unsigned long long)a->win_ns,
	       (unsigned long long)a->win_count,
	       (unsigned long long)a->cover_ns, (unsigned long long)a->peak,
	       (unsigned long long)a->beyond, a->by_count ? "true" : "false",
	       a->fell_back ? "true" : "false",
	       ddf_kind_name(a->rule.filter.params.kind),
	       (unsigned long long)a->rule.filter.rep.bytes,
	       a->rule.filter.rep.fpr);
}

void advise_print_text(const struct advise *a)
{
	printf("%u capture%s, %llu records, %llu packets keyed as family %s\n",
	       a->nin, a->nin > 1 ? "s merged by time" : "",
	       (unsigned long long)a->records, (unsigned long long)a->npts,
	       a->netdev ? "netdev" : "inet");
	printf("copies: %llu of %llu packets (%.2f%%), %llu distinct\n",
	       (unsigned long long)a->copies, (unsigned long long)a->npts,
	       a->npts ? 100.0 * a->copies / a->npts : 0.0,
	       (unsigned long long)a->rdistinct);
	if (!a->copies) {
		puts("no packet has a copy: there is nothing for a rule to drop");
		return;
	}
	printf("delay      ");
	for (int i = 0; i < 5; i++)
		printf("%10s", pnames[i]);
	printf("\n  packets  ");
	for (int i = 0; i < 5; i++)
		printf("%10llu", (unsigned long long)a->pk[i]);
	printf("\n  time     ");
	for (int i = 0; i < 5; i++) {
		char b[32];
		FILE *f = fmemopen(b, sizeof(b), "w");

		if (f) {
			print_dur(f, a->tns[i]);
			fclose(f);
			printf("%10s", b);
		}
	}
	printf("\nwhat differs between a copy and its packet, and copies that match once it is ignored:\n");
	printf("  %-10s %-28s %10s %10s\n", "", "", "differs", "matches");
	printf("  %-10s %-28s %10s %10llu\n", "none", "nothing ignored", "",
	       (unsigned long long)a->strict_match);
	for (unsigned int i = 0; i < NDIMS; i++) {
		if (adv_dims[i].l2 && !a->netdev)
			continue;
		printf("  %-10s %-28s %10llu %10llu\n", adv_dims[i].name,
		       adv_dims[i].what,
		       (unsigned long long)(i == DIM_MAC ? a->mac_bytes :
							   a->differs[i]),
		       (unsigned long long)a->once[i]);
	}
	printf("  identical frames (every byte): %llu\n",
	       (unsigned long long)a->frame_match);
	if (a->mac_bytes)
		puts("  (the key of an IP packet leaves its MAC addresses out: ignore mac counts for frames with no IP only)");
	if (a->fell_back)
		puts("note: the differences show only together: the rule ignores every one of them");
	printf("window: ");
	print_dur(stdout, a->win_ns);
	printf(" (the copies' delays covered: ");
	print_dur(stdout, a->cover_ns);
	printf(", twice that, at least 1ms), sized for %llu packets (twice the most seen within it, %llu); a count window: %llu\n",
	       (unsigned long long)a->win_n, (unsigned long long)a->peak,
	       (unsigned long long)a->win_count);
	if (a->by_count)
		puts("note: the time window would miss more copies than a count window (timestamps out of step with the packets): the rule counts packets");
	if (a->beyond)
		printf("note: %llu copies arrive later than the window (up to %s): repeats rather than copies, or give a longer window\n",
		       (unsigned long long)a->beyond, "the max above");
	printf("ddfctl rule add NAME %s  # %s, %llu bytes\n", a->words,
	       ddf_kind_name(a->rule.filter.params.kind),
	       (unsigned long long)a->rule.filter.rep.bytes);
}
