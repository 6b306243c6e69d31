// SPDX-License-Identifier: GPL-2.0
/*
 * The state of the namespace as save writes it: the rules, and the
 * devices that have ddf's XDP program for one of them. save prints it;
 * apply compares it with a file and changes only what differs, so a rule
 * whose line did not change keeps its filter and its counters.
 */
#include <stdlib.h>
#include <string.h>

#include "ddfctl.h"

struct fetch_ctx {
	struct restore_set *s;
	bool oom;
};

/* a dump asked again: only the last whole one counts */
static void fetch_restart(void *arg)
{
	struct fetch_ctx *c = arg;

	c->s->n = 0;
	c->oom = false;
}

/*
 * The names save writes for a rule's devices: each one's name now (a gone
 * one's, the name it waits for). When two have the same name (a device
 * renamed to the name another of the rule waits for), a line naming both
 * would be refused, so each renamed device of such a clash is written by
 * the name it joined the rule with instead: the kernel took those all
 * different. That name may be another renamed device's name now, which
 * then clashes in turn; a device in no clash keeps its name now.
 */
static void saved_devs(const struct ddf_rule_info *ri, struct restore_rule *rr)
{
	const struct ddf_rule_spec *r = &ri->rule;
	char (*devs)[16] = rr->rule.devs;
	bool again = true;

	for (unsigned int i = 0; i < r->ndevs; i++)
		if (ri->devs[i].ifindex)
			memcpy(rr->dev_now[i], r->devs[i], sizeof(rr->dev_now[i]));
	while (again) {
		bool clash[DDF_DEVS_MAX] = { false };

		again = false;
		for (unsigned int i = 0; i < r->ndevs; i++)
			for (unsigned int j = 0; j < i; j++)
				if (!strcmp(devs[i], devs[j]))
					clash[i] = clash[j] = true;
		/* all of a round's at once: the result is not the order's */
		for (unsigned int i = 0; i < r->ndevs; i++) {
			if (!clash[i] || !ri->devs[i].given[0] ||
			    !strcmp(devs[i], ri->devs[i].given))
				continue;
			memcpy(devs[i], ri->devs[i].given, sizeof(devs[i]));
			again = true;
		}
	}
}

int state_add_rule(struct restore_set *s, const struct ddf_rule_info *ri)
{
	struct restore_rule *rr = restore_new_rule(s);

	if (!rr)
		return -1;
	rr->id = ri->id;
	rr->rule = ri->rule;
	saved_devs(ri, rr);
	return 0;
}

/* dev is named as its rule's line names the device: a renamed one may not be */
int state_add_xdp(struct restore_set *s, const char *dev, uint32_t rule_id,
		  const struct xdp_how *how)
{
	struct restore_xdp *x = restore_new_xdp(s);

	if (!x)
		return -1;
	snprintf(x->dev, sizeof(x->dev), "%s", dev);
	x->rule_id = rule_id;
	x->how = *how;
	for (size_t i = 0; rule_id && i < s->n; i++) {
		const struct restore_rule *rr = &s->v[i];

		if (rr->id != rule_id)
			continue;
		memcpy(x->rule, rr->rule.name, sizeof(x->rule));
		for (unsigned int j = 0; j < rr->rule.ndevs; j++)
			if (!strcmp(rr->dev_now[j], dev))
				memcpy(x->saved, rr->rule.devs[j],
				       sizeof(x->saved));
	}
	return 0;
}

static void fetch_rule(const struct ddf_rule_info *ri, void *arg)
{
	struct fetch_ctx *c = arg;

	if (state_add_rule(c->s, ri))
		c->oom = true;
}

static void fetch_xdp(const char *dev, uint32_t rule_id,
		      const struct xdp_how *how, void *arg)
{
	struct fetch_ctx *c = arg;

	if (state_add_xdp(c->s, dev, rule_id, how))
		c->oom = true;
}

int state_fetch(const char *what, struct restore_set *s)
{
	struct fetch_ctx c = { .s = s };

	memset(s, 0, sizeof(*s));
	/* a device whose programs cannot be told fails it: none is left out */
	if (ddfctl_fetch_all(fetch_rule, fetch_restart, &c) || c.oom ||
	    xdp_each(what, fetch_xdp, &c) || c.oom) {
		restore_free(s);
		return c.oom ? ddfctl_err("%s: out of memory", what) : -1;
	}
	return 0;
}

/* r's line as save writes it: two rules are the same when it is */
static char *rule_text(const struct ddf_rule_spec *r)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	print_rule_line(f, r);
	fclose(f);
	return text;
}

/* the device of x as save's xdp line names it */
static const char *line_dev(const struct restore_xdp *x)
{
	return x->saved[0] ? x->saved : x->dev;
}

/*
 * Whether restore read the line just added to check as rule name, or as
 * the program of rule name on dev: a name another client gave may begin
 * with a space, which the words of a line do not keep.
 */
static bool read_as(struct restore_set *check, const char *name,
		    const char *dev)
{
	const struct restore_xdp *x = dev ? &check->x[check->nx - 1] : NULL;

	if (x ? !strcmp(x->rule, name) && !strcmp(x->dev, dev) :
		!strcmp(check->v[check->n - 1].rule.name, name))
		return true;
	if (x)
		check->nx--;
	else
		check->n--;
	return false;
}

/*
 * A line of save (of rule name, or of its program on dev), checked as
 * restore reads it (check: the lines so far). One it would refuse or read
 * as another (a rule named by another client as ddfctl cannot, a program
 * on a device its rule's line does not name) is written as a comment,
 * its bytes outside printable ASCII as \xHH, and counted.
 */
static int put_line(FILE *out, const char *text, unsigned int lineno,
		    struct restore_set *check, const char *name,
		    const char *dev)
{
	if (!text) {
		ddfctl_err("save: out of memory");
		return 1;
	}
	if (!restore_add_line("save", text, lineno, check)) {
		if (read_as(check, name, dev)) {
			fputs(text, out);
			return 0;
		}
		ddfctl_err("save: line %u: restore would read it with another name",
			   lineno);
	}
	ddfctl_err("save: line %u is written as a comment", lineno);
	fputs("# not saved (restore refuses it): ", out);
	for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
		if (*p == '\n' && !p[1])
			break;
		if (*p < ' ' || *p >= 0x7f)
			fprintf(out, "\\x%02x", *p);
		else
			fputc(*p, out);
	}
	fputc('\n', out);
	return 1;
}

static char *xdp_text(const struct restore_xdp *x)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	fputs(x->rule[0] ? "xdp attach dev " : "# dev ", f);
	print_ifname(f, line_dev(x));
	if (x->rule[0])
		fprintf(f, " rule %s mode %s", x->rule, xdp_mode_word(x->how.mode));
	if (x->rule[0] && x->how.exclusive)
		fputs(" exclusive\n", f);
	else if (x->rule[0])
		fprintf(f, " priority %d\n", x->how.prio >= 0 ? x->how.prio :
							     XDP_PRIO_DEFAULT);
	else
		fprintf(f, " has ddf's XDP program of rule id %u, which is gone: not saved\n",
			x->rule_id);
	fclose(f);
	return text;
}

int state_print(FILE *out, const struct restore_set *s)
{
	struct restore_set check = { 0 };
	unsigned int lineno = 0;
	int refused = 0;

	for (size_t i = 0; i < s->n; i++) {
		char *text = rule_text(&s->v[i].rule);

		refused += put_line(out, text, ++lineno, &check,
				    s->v[i].rule.name, NULL);
		free(text);
	}
	for (size_t i = 0; i < s->nx; i++) {
		const struct restore_xdp *x = &s->x[i];
		char *text = xdp_text(x);

		if (text && !x->rule[0]) {
			fputs(text, out);
			lineno++;
		} else {
			refused += put_line(out, text, ++lineno, &check,
					    x->rule, line_dev(x));
		}
		free(text);
	}
	restore_free(&check);
	return refused;
}

int cmd_save(int argc, char **argv)
{
	struct ddf_cmd_req req = { .op = OP_SAVE };
	struct restore_set s;
	int refused;

	if (argc)
		return ddfctl_err("save: '%s' is not expected", argv[0]);
	if (ddfctl_dry_run)
		return ddfctl_run(&req);
	if (state_fetch("save", &s))
		return -1;
	refused = state_print(stdout, &s);
	restore_free(&s);
	if (refused)
		return ddfctl_err("save: %d line%s that restore would refuse written as comments",
				  refused, refused == 1 ? "" : "s");
	return 0;
}

static bool same_rule(const struct ddf_rule_spec *a,
		      const struct ddf_rule_spec *b)
{
	char *ta = rule_text(a), *tb = rule_text(b);
	bool same = ta && tb && !strcmp(ta, tb);

	free(ta);
	free(tb);
	return same;
}

static const struct restore_rule *find(const struct restore_set *s,
				       const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i].rule.name, name))
			return &s->v[i];
	return NULL;
}

/* what becomes of a rule of now */
enum fate { KEEP, REPLACE, DELETE };

static enum fate fate_of(const struct restore_rule *k,
			 const struct restore_set *want)
{
	const struct restore_rule *f = find(want, k->rule.name);

	if (!f)
		return DELETE;
	/* left out for a device not here: as it is */
	if (f->left_out || same_rule(&k->rule, &f->rule))
		return KEEP;
	return REPLACE;
}

/* a program of now that stays: its rule kept and a line of want for it */
static bool xdp_stays(const struct restore_xdp *x, const struct restore_set *now,
		      const struct restore_set *want)
{
	const struct restore_rule *k = x->rule[0] ? find(now, x->rule) : NULL;
	const struct restore_rule *f = k ? find(want, x->rule) : NULL;

	if (!k || fate_of(k, want) != KEEP)
		return false;
	if (f->left_out)
		return true;
	for (size_t i = 0; i < want->nx; i++) {
		const struct restore_xdp *w = &want->x[i];

		if (!strcmp(w->dev, line_dev(x)) && !strcmp(w->rule, x->rule) &&
		    (!w->how.mode || w->how.mode == x->how.mode) &&
		    w->how.exclusive == x->how.exclusive &&
		    (x->how.exclusive || w->how.prio < 0 ||
		     w->how.prio == (x->how.prio < 0 ? XDP_PRIO_DEFAULT :
						       x->how.prio)))
			return true;
	}
	return false;
}

/*
 * Detach what goes, delete the rules that went or changed (newest first),
 * add the new and changed ones in file order, then attach.
 */
int apply_plan(const struct restore_set *now, const struct restore_set *want,
	       struct apply_plan *p)
{
	size_t max = now->n + now->nx + want->n + want->nx + 1;

	memset(p, 0, sizeof(*p));
	p->st = calloc(max, sizeof(*p->st));
	if (!p->st)
		return ddfctl_err("apply: out of memory");
	for (size_t i = 0; i < now->nx; i++) {
		if (xdp_stays(&now->x[i], now, want)) {
			p->xkept++;
			continue;
		}
		p->st[p->n++] = (struct restore_step){ RS_DETACH, 0, NULL,
						       &now->x[i] };
		p->detached++;
	}
	for (size_t i = now->n; i-- > 0;) {
		enum fate f = fate_of(&now->v[i], want);

		if (f == KEEP) {
			p->kept++;
			continue;
		}
		p->st[p->n++] = (struct restore_step){ RS_DEL, 0,
						       &now->v[i].rule, NULL };
		if (f == REPLACE)
			p->changed++;
		else
			p->deleted++;
	}
	for (size_t i = 0; i < want->n; i++) {
		const struct restore_rule *f = &want->v[i];
		const struct restore_rule *k = find(now, f->rule.name);

		if (f->left_out) {
			p->left_out++;
			continue;
		}
		if (k && fate_of(k, want) == KEEP)
			continue;
		p->st[p->n++] = (struct restore_step){ RS_ADD, f->line,
						       &f->rule, NULL };
		if (!k)
			p->added++;
	}
	for (size_t i = 0; i < want->nx; i++) {
		const struct restore_xdp *w = &want->x[i];
		bool stays = false;

		for (size_t j = 0; j < now->nx && !stays; j++)
			stays = !strcmp(line_dev(&now->x[j]), w->dev) &&
				xdp_stays(&now->x[j], now, want);
		if (w->left_out || stays)
			continue;
		p->st[p->n++] = (struct restore_step){ RS_ATTACH, w->line, NULL,
						       w };
		p->attached++;
	}
	return 0;
}

/*
 * The plan's XDP changes that libxdp makes (a program that shares its
 * port, attached or detached), checked before any step: one failing half
 * way would be undone by the same means, which would fail too.
 */
static int apply_xdp_check(const struct apply_plan *p)
{
	for (size_t i = 0; i < p->n; i++) {
		const struct restore_step *st = &p->st[i];

		if ((st->kind == RS_ATTACH || st->kind == RS_DETACH) &&
		    !st->xdp->how.exclusive &&
		    xdp_libxdp_check("apply", st->xdp->dev))
			return -1;
	}
	return 0;
}

int cmd_apply(int argc, char **argv)
{
	const char *path, *against = NULL;
	struct restore_set now, want;
	struct apply_plan p;
	size_t left = 0;
	int wait, err;

	if (restore_args("apply", argc, argv, &wait, &path, &against))
		return -1;
	if (against && !ddfctl_dry_run)
		return ddfctl_err("apply: --against needs -n (it compares with a file instead of the kernel, and changes nothing)");
	if (restore_read_file("apply", path, &want))
		return ddfctl_err("apply: nothing was changed");
	if (against ? restore_read_file("apply", against, &now) :
		      state_fetch("apply", &now)) {
		restore_free(&want);
		return ddfctl_err("apply: nothing was changed");
	}
	if (wait >= 0)
		left = restore_wait("apply", &want, (unsigned int)wait);
	err = apply_plan(&now, &want, &p);
	if (!err && !against && apply_xdp_check(&p))
		err = ddfctl_err("apply: nothing was changed");
	if (!err)
		err = restore_run("apply", p.st, p.n, &restore_kernel);
	if (!err) {
		char out[32] = "";

		if (p.left_out)
			snprintf(out, sizeof(out), ", %zu left out", p.left_out);
		printf("apply%s: rules: %zu kept, %zu changed, %zu added, %zu deleted%s; xdp: %zu kept, %zu attached, %zu detached\n",
		       ddfctl_dry_run ? " (dry run)" : "", p.kept, p.changed,
		       p.added, p.deleted, out, p.xkept, p.attached,
		       p.detached);
	}
	free(p.st);
	restore_free(&now);
	restore_free(&want);
	if (err)
		return -1;
	return left ? RESTORE_LEFT_OUT : 0;
}
