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

static void fetch_rule(const struct ddf_rule_info *ri, void *arg)
{
	struct fetch_ctx *c = arg;
	struct restore_rule *rr = restore_new_rule(c->s);

	if (!rr) {
		c->oom = true;
		return;
	}
	rr->id = ri->id;
	rr->rule = ri->rule;
}

static void fetch_xdp(const char *dev, uint32_t rule_id, int mode, void *arg)
{
	struct fetch_ctx *c = arg;
	struct restore_xdp *x = restore_new_xdp(c->s);

	if (!x) {
		c->oom = true;
		return;
	}
	snprintf(x->dev, sizeof(x->dev), "%s", dev);
	x->rule_id = rule_id;
	x->mode = mode;
	for (size_t i = 0; rule_id && i < c->s->n; i++)
		if (c->s->v[i].id == rule_id)
			memcpy(x->rule, c->s->v[i].rule.name, sizeof(x->rule));
}

int state_fetch(struct restore_set *s)
{
	struct fetch_ctx c = { .s = s };

	memset(s, 0, sizeof(*s));
	if (ddfctl_fetch_all(fetch_rule, fetch_restart, &c) || c.oom ||
	    xdp_each(fetch_xdp, &c) || c.oom) {
		restore_free(s);
		return c.oom ? ddfctl_err("save: out of memory") : -1;
	}
	return 0;
}

static const char *mode_word(int mode)
{
	return mode == 2 ? "generic" : "native";
}

void state_print(FILE *out, const struct restore_set *s)
{
	for (size_t i = 0; i < s->n; i++)
		print_rule_line(out, &s->v[i].rule);
	for (size_t i = 0; i < s->nx; i++) {
		const struct restore_xdp *x = &s->x[i];

		fputs(x->rule[0] ? "xdp attach dev " : "# dev ", out);
		print_ifname(out, x->dev);
		if (x->rule[0])
			fprintf(out, " rule %s mode %s\n", x->rule,
				mode_word(x->mode));
		else
			fprintf(out, " has ddf's XDP program of rule id %u, which is gone: not saved\n",
				x->rule_id);
	}
}

int cmd_save(int argc, char **argv)
{
	struct ddf_cmd_req req = { .op = OP_SAVE };
	struct restore_set s;

	if (argc)
		return ddfctl_err("save: '%s' is not expected", argv[0]);
	if (ddfctl_dry_run)
		return ddfctl_run(&req);
	if (state_fetch(&s))
		return -1;
	state_print(stdout, &s);
	restore_free(&s);
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

		if (!strcmp(w->dev, x->dev) && !strcmp(w->rule, x->rule) &&
		    (!w->mode || w->mode == x->mode))
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
			stays = !strcmp(now->x[j].dev, w->dev) &&
				xdp_stays(&now->x[j], now, want);
		if (w->left_out || stays)
			continue;
		p->st[p->n++] = (struct restore_step){ RS_ATTACH, w->line, NULL,
						       w };
		p->attached++;
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
		      state_fetch(&now)) {
		restore_free(&want);
		return ddfctl_err("apply: nothing was changed");
	}
	if (wait >= 0)
		left = restore_wait("apply", &want, (unsigned int)wait);
	err = apply_plan(&now, &want, &p);
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
