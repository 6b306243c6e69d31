// SPDX-License-Identifier: GPL-2.0
/*
 * save, then restore, over generated states of a namespace's rules: the
 * ports of netdev rules present, renamed (also onto the name another port
 * waits for), waiting after their device was deleted or moved to another
 * namespace (and moved back under another name); device names of every
 * byte Linux takes, in dev, iif and oif; ddf's XDP program on some
 * devices; now and then a rule another client named as ddfctl cannot.
 * The devices' events are played as nf_ddf_dev.c plays them and the rules
 * reported as nf_ddf_netlink.c reports them (port_states.c); save's own
 * code (state.c) writes the text. restore's parser must take it whole and
 * read what save means to write: each port by its name now, a rule with a
 * name twice by its given names, each program's device as its rule's line
 * names it, and a comment for what restore would refuse. apply of the text
 * to the state it was saved from changes nothing else, and once restored
 * (each port present under the name written) the rules save the same text
 * again.
 *
 *   ddfctl_save_tests [SEED [CASES]]   (the seed is printed; rerun with it)
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ddfctl.h"
#include "port_states.h"

bool ddfctl_json;
bool ddfctl_dry_run;

static bool seen[256]; /* bytes in the names of saved rules */

/*
 * The names save means to write: each port's name now; where names meet,
 * those of renamed ports their given ones, all of a round together, until
 * none meet.
 */
static void expected_devs(const struct mrule *r, char devs[][16])
{
	bool changed = true;

	for (unsigned int i = 0; i < r->n; i++)
		memcpy(devs[i], r->p[i].name, 16);
	while (changed) {
		bool meets[DDF_DEVS_MAX] = { false };

		changed = false;
		for (unsigned int i = 0; i < r->n; i++)
			for (unsigned int j = 0; j < r->n; j++)
				meets[i] |= j != i && !strcmp(devs[i], devs[j]);
		for (unsigned int i = 0; i < r->n; i++)
			if (meets[i] && strcmp(devs[i], r->p[i].given)) {
				memcpy(devs[i], r->p[i].given, 16);
				changed = true;
			}
	}
}

/*
 * The device of the xdp line save means for device i's program of rule r:
 * its port's saved name; else its own, which restore takes only when the
 * rule's line names it (a device of no port of the rule); NULL: refused.
 */
static const char *xdp_dev(const struct model *m, unsigned int i,
			   const struct mrule *r, char *buf)
{
	char devs[DDF_DEVS_MAX][16];
	const char *dev = NULL;

	if (r->bad_name)
		return NULL; /* its rule's line is a comment */
	expected_devs(r, devs);
	for (unsigned int j = 0; j < r->n; j++)
		if (r->p[j].dev == (int)i)
			dev = devs[j];
	for (unsigned int j = 0; !dev && j < r->n; j++)
		if (!strcmp(devs[j], m->d[i].name))
			dev = m->d[i].name;
	if (!dev)
		return NULL;
	memcpy(buf, dev, 16);
	return buf;
}

/* the rule of the program on device d of this namespace, or NULL */
static const struct mrule *xdp_rule(const struct model *m,
				    const struct mdev *d)
{
	const struct mrule *r = NULL;

	if (d->ns || !d->xdp_rule)
		return NULL;
	for (unsigned int k = 0; k < m->nr; k++)
		if (m->r[k].id == d->xdp_rule)
			r = &m->r[k];
	return r;
}

static int fail_count, cases;
static unsigned long long nports, npresent, nrenamed, nwaiting, nmoved,
	nrenamed_gone, nshared, ntwice_rules, nxdp, nrefused, ngone_rule,
	nrules, nbad;
static char *errors; /* stderr of the case */
static FILE *err_file;

static void print_name(FILE *out, const char *name)
{
	fputc('\'', out);
	print_ifname(out, name);
	fputc('\'', out);
}

static void report(const struct model *m, const char *text, const char *why)
{
	long n;

	if (++fail_count > 5)
		return;
	printf("FAIL case %d: %s\n", cases, why);
	for (unsigned int k = 0; k < m->nr; k++) {
		const struct mrule *r = &m->r[k];

		printf("  rule %s id %u:", r->spec.name, r->id);
		for (unsigned int i = 0; i < r->n; i++) {
			const struct mport *p = &r->p[i];

			printf(" [");
			print_name(stdout, p->name);
			printf(" given ");
			print_name(stdout, p->given);
			printf(" ifindex %u]",
			       p->dev >= 0 ? m->d[p->dev].ifindex : 0);
		}
		printf("\n");
	}
	printf("  devices:");
	for (unsigned int i = 0; i < m->nd; i++) {
		printf(" [");
		print_name(stdout, m->d[i].name);
		printf(" ifindex %u ns %d xdp %u]", m->d[i].ifindex,
		       m->d[i].ns, m->d[i].xdp_rule);
	}
	printf("\n  saved:\n%s", text ? text : "(nothing)\n");
	fflush(err_file);
	n = ftell(err_file);
	if (n > 0) {
		errors = realloc(errors, n + 1);
		rewind(err_file);
		if (errors && fread(errors, 1, n, err_file) == (size_t)n) {
			errors[n] = '\0';
			printf("  stderr:\n%s", errors);
		}
	}
}

static void count_ports(const struct model *m)
{
	for (unsigned int k = 0; k < m->nr; k++) {
		const struct mrule *r = &m->r[k];
		char devs[DDF_DEVS_MAX][16];

		nrules++;
		expected_devs(r, devs);
		for (unsigned int i = 0; i < r->n; i++) {
			const struct mport *p = &r->p[i];
			bool renamed = strcmp(p->name, p->given);

			nports++;
			for (unsigned int j = 0; j < r->n; j++)
				if (j != i && !strcmp(r->p[j].name, p->name)) {
					nshared++;
					break;
				}
			if (p->dev >= 0) {
				npresent++;
				nrenamed += renamed;
				continue;
			}
			nwaiting++;
			nrenamed_gone += renamed;
			/* the device that had its name: moved, or deleted */
			for (unsigned int j = 0; j < m->nd; j++)
				if (m->d[j].ns == 1 &&
				    (!strcmp(m->d[j].name, p->name) ||
				     !strcmp(m->d[j].name, p->given))) {
					nmoved++;
					break;
				}
		}
		for (unsigned int i = 0; i < r->n; i++)
			if (strcmp(devs[i], r->p[i].name)) {
				ntwice_rules++;
				break;
			}
	}
}

/* the rule's line with its devices as save means them, for comparing */
static char *line_of(const struct ddf_rule_spec *r)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	print_rule_line(f, r);
	fclose(f);
	return text;
}

/* Test that the set read back says what save means to write of m. */
static bool same_rules(const struct model *m, const struct restore_set *s,
		       int refused, int want_refused, const char *text)
{
	char seen_dev[DEVS_MAX][16];
	unsigned int nseen = 0, nx = 0, k2v[RULES_MAX], good = 0;
	char msg[256];

	if (refused != want_refused) {
		snprintf(msg, sizeof(msg), "save refused %d lines, not %d",
			 refused, want_refused);
		report(m, text, msg);
		return false;
	}
	for (unsigned int k = 0, v = 0; k < m->nr; k++) {
		const struct mrule *r = &m->r[k];
		struct ddf_rule_spec want = r->spec;
		char *a, *b;
		bool same;

		if (r->bad_name)
			continue;
		if (v == s->n) {
			report(m, text, "a rule is not read back");
			return false;
		}
		k2v[k] = v++;

		expected_devs(r, want.devs);
		want.ndevs = r->n;
		a = line_of(&want);
		b = line_of(&s->v[k2v[k]].rule);
		same = s->v[k2v[k]].rule.ndevs == want.ndevs &&
		       !strcmp(s->v[k2v[k]].rule.iif, want.iif) &&
		       !strcmp(s->v[k2v[k]].rule.oif, want.oif) &&
		       !strcmp(a, b);
		for (unsigned int i = 0; same && i < want.ndevs; i++)
			same = !strcmp(s->v[k2v[k]].rule.devs[i],
				       want.devs[i]);
		if (!same) {
			snprintf(msg, sizeof(msg),
				 "rule %u read back is not the one meant: %.100s",
				 k, a);
			report(m, text, msg);
		}
		free(a);
		free(b);
		if (!same)
			return false;
	}
	for (unsigned int k = 0; k < m->nr; k++)
		good += !m->r[k].bad_name;
	if (s->n != good) {
		snprintf(msg, sizeof(msg), "%zu rules read back of %u", s->n,
			 good);
		report(m, text, msg);
		return false;
	}
	/* the programs: each on its port's saved name, once per device */
	for (unsigned int i = 0; i < m->nd; i++) {
		const struct mdev *d = &m->d[i];
		const char *dev = NULL;
		const struct mrule *r;
		bool taken = false;

		r = xdp_rule(m, d);
		if (!r)
			continue; /* none here, or a comment */
		dev = xdp_dev(m, i, r, seen_dev[nseen]);
		for (unsigned int j = 0; dev && j < nseen; j++)
			taken |= !strcmp(seen_dev[j], dev);
		if (!dev || taken)
			continue; /* refused, counted */
		nseen++;
		if (nx >= s->nx || strcmp(s->x[nx].dev, dev) ||
		    strcmp(s->x[nx].rule, r->spec.name) ||
		    s->x[nx].how.mode != d->xdp.mode ||
		    s->x[nx].how.exclusive != d->xdp.exclusive ||
		    s->x[nx].how.prio != d->xdp.prio) {
			snprintf(msg, sizeof(msg),
				 "xdp line %u read back is not for the program of device %u",
				 nx, d->ifindex);
			report(m, text, msg);
			return false;
		}
		nx++;
	}
	if (nx != s->nx) {
		snprintf(msg, sizeof(msg), "%zu xdp lines read back, %u meant",
			 s->nx, nx);
		report(m, text, msg);
		return false;
	}
	nxdp += nx;
	return true;
}

/* Lines save refuses: programs of no port of theirs, or on a name taken. */
static int refusals(const struct model *m)
{
	char names[DEVS_MAX][16];
	unsigned int n = 0;
	int refused = 0;

	for (unsigned int k = 0; k < m->nr; k++)
		refused += m->r[k].bad_name;
	for (unsigned int i = 0; i < m->nd; i++) {
		const struct mdev *d = &m->d[i];
		const struct mrule *r;

		r = xdp_rule(m, d);
		if (!r)
			continue;
		if (!xdp_dev(m, i, r, names[n])) {
			refused++;
			continue;
		}
		for (unsigned int j = 0; j < n; j++)
			if (!strcmp(names[j], names[n])) {
				refused++;
				n--;
				break;
			}
		n++;
	}
	return refused;
}


/* text without its comment lines */
static void drop_comments(char *text)
{
	char *w = text;

	for (char *p = text; *p;) {
		size_t n = strcspn(p, "\n") + (p[strcspn(p, "\n")] != 0);

		if (*p != '#') {
			memmove(w, p, n);
			w += n;
		}
		p += n;
	}
	*w = '\0';
}

static void see(const char *name)
{
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		seen[*p] = true;
}

static void one_case(void)
{
	struct model m = { .nn = 0 };
	struct restore_set s, now;
	struct apply_plan plan;
	int refused, ret;
	char *text;
	FILE *in;

	model_generate(&m);
	count_ports(&m);
	for (unsigned int i = 0; i < m.nd; i++)
		ngone_rule += m.d[i].ns == 0 && m.d[i].xdp_rule == 999;

	rewind(err_file);
	if (ftruncate(fileno(err_file), 0))
		return;
	memset(&now, 0, sizeof(now));
	text = model_save(&m, &refused, &now);
	if (!text) {
		report(&m, NULL, "save wrote nothing");
		restore_free(&now);
		return;
	}
	in = fmemopen(text, strlen(text), "r");
	ret = restore_read(in, &s);
	fclose(in);
	if (ret) {
		report(&m, text, "restore refuses what save wrote");
		restore_free(&now);
		free(text);
		return;
	}
	/* apply of the file to the state it was saved from: nothing changes */
	if (!apply_plan(&now, &s, &plan)) {
		char msg[160];

		snprintf(msg, sizeof(msg),
			 "apply of the saved file to the state it was saved from: rules %zu kept, %zu changed, %zu added, %zu deleted; xdp %zu kept, %zu attached, %zu detached",
			 plan.kept, plan.changed, plan.added, plan.deleted,
			 plan.xkept, plan.attached, plan.detached);
		/* a program whose line is a comment is detached, no other */
		if (plan.kept != s.n || plan.changed || plan.added ||
		    plan.deleted != m.nr - s.n || plan.attached ||
		    plan.xkept + plan.detached != now.nx ||
		    plan.detached > now.nx - s.nx)
			report(&m, text, msg);
		free(plan.st);
	}
	restore_free(&now);
	nrefused += refused > 0 ? (unsigned int)refused : 0;
	for (unsigned int k = 0; k < m.nr; k++)
		nbad += m.r[k].bad_name;
	if (same_rules(&m, &s, refused, refusals(&m), text)) {
		struct restore_set now2 = { 0 };
		struct model again;
		char *text2;
		int refused2;

		for (size_t k = 0; k < s.n; k++) {
			const struct ddf_rule_spec *r = &s.v[k].rule;

			for (unsigned int i = 0; i < r->ndevs; i++)
				see(r->devs[i]);
			see(r->iif);
			see(r->oif);
		}
		model_restored(&s, &again);
		text2 = model_save(&again, &refused2, &now2);
		restore_free(&now2);
		drop_comments(text);
		if (!text2 || refused2 || strcmp(text, text2))
			report(&m, text,
			       "restored, the rules do not save the same text again");
		free(text2);
	}
	restore_free(&s);
	free(text);
}

/*
 * A rule's ports by (name now, given name); want: the names save writes.
 * Test that only the ports of a clash are written by their given names:
 * a renamed port that meets no other keeps its name now.
 */
static void clash_case(const char *what, unsigned int n,
		       const char *const ports[][2], const char *const want[])
{
	struct ddf_rule_info ri;
	struct restore_set s = { 0 };
	bool ok;

	memset(&ri, 0, sizeof(ri));
	snprintf(ri.rule.name, sizeof(ri.rule.name), "clash");
	ri.rule.ndevs = n;
	for (unsigned int i = 0; i < n; i++) {
		snprintf(ri.rule.devs[i], 16, "%s", ports[i][0]);
		snprintf(ri.devs[i].given, 16, "%s", ports[i][1]);
		ri.devs[i].ifindex = i + 1;
	}
	ok = !state_add_rule(&s, &ri) && s.n == 1;
	for (unsigned int i = 0; ok && i < n; i++)
		ok = !strcmp(s.v[0].rule.devs[i], want[i]) &&
		     !strcmp(s.v[0].dev_now[i], ports[i][0]);
	if (!ok) {
		fail_count++;
		printf("FAIL %s: saved as", what);
		for (unsigned int i = 0; s.n && i < n; i++)
			printf(" %s", s.v[0].rule.devs[i]);
		printf(", not");
		for (unsigned int i = 0; i < n; i++)
			printf(" %s", want[i]);
		printf("\n");
	}
	restore_free(&s);
}

static void clash_cases(void)
{
	/* a1 renamed onto a2, which a2's port waits for; b renamed to c */
	static const char *const two[][2] = {
		{ "a0", "a0" }, { "a2", "a1" }, { "a2", "a2" }, { "c", "b" },
	};
	static const char *const two_want[] = { "a0", "a1", "a2", "c" };
	/*
	 * x twice; its ports' given names: a, b; then a is the name now of
	 * a port given c, which so clashes in the second round; e no part
	 */
	static const char *const chain[][2] = {
		{ "x", "a" }, { "x", "b" }, { "a", "c" }, { "e", "d" },
	};
	static const char *const chain_want[] = { "a", "b", "c", "e" };

	clash_case("a name twice, a renamed port apart", 4, two, two_want);
	clash_case("a clash whose given name clashes again", 4, chain,
		   chain_want);
}

int main(int argc, char **argv)
{
	uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 0) :
				   (uint64_t)time(NULL) ^ (uint64_t)getpid();
	int n = argc > 2 ? atoi(argv[2]) : 4000, saved_stderr;
	unsigned int missing = 0;

	if (model_init())
		return 1;
	clash_cases();
	printf("test_save_states: seed %llu (rerun: %s %llu %d)\n",
	       (unsigned long long)seed, argv[0], (unsigned long long)seed, n);
	model_seed(seed);
	/* save says on stderr which lines it refused: kept per case */
	err_file = tmpfile();
	fflush(stderr);
	saved_stderr = dup(2);
	dup2(fileno(err_file), 2);
	for (cases = 0; cases < n; cases++)
		one_case();
	fflush(stderr);
	dup2(saved_stderr, 2);
	for (unsigned int c = 0; c < nlegal; c++)
		missing += !seen[legal_bytes[c]];
	printf("test_save_states: %d cases, %llu rules, %llu ports: %llu present (%llu renamed), %llu waiting (%llu renamed first, %llu for a device in another namespace), %llu with the name of another port of their rule; %llu rules with ports saved by their given names; %llu xdp lines; as comments: %llu lines restore would refuse (%llu rules another client named, programs on a device their rule's line does not name or on a name an earlier line has), %llu programs of a deleted rule; %u of the %u bytes Linux takes in a name seen in saved names\n",
	       cases, nrules, nports, npresent, nrenamed, nwaiting,
	       nrenamed_gone, nmoved, nshared, ntwice_rules, nxdp, nrefused,
	       nbad, ngone_rule, nlegal - missing, nlegal);
	if (missing) {
		printf("FAIL: %u bytes never in a saved name\n", missing);
		fail_count++;
	}
	printf("test_save_states: %s (%d failed)\n", fail_count ? "FAIL" : "ok",
	       fail_count);
	free(errors);
	return fail_count ? 1 : 0;
}
