// SPDX-License-Identifier: GPL-2.0
/*
 * restore: the lines of save (rule add, then xdp attach) applied all or
 * nothing.
 *
 * First every line is parsed (and sized) into a set, so a bad line stops
 * the restore before a request is sent. Then the rules are added in file
 * order and ddf's XDP program attached where the xdp lines say; when one
 * of these steps fails, the steps made before it are undone, newest first,
 * and the failed line is named. apply (state.c) runs its own steps, which
 * delete and detach as well, through the same undo.
 */
#include <errno.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ddfctl.h"

#define RESTORE_LINE_MAX 4096 /* with the newline and the NUL */
#define RESTORE_WORDS_MAX 128
#define RESTORE_WAIT_MAX 3600 /* seconds */

const struct restore_ops restore_kernel = {
	.send = ddfctl_run,
	.attach = xdp_attach_rule,
	.detach = xdp_detach_dev,
};

void restore_free(struct restore_set *s)
{
	free(s->v);
	free(s->x);
	memset(s, 0, sizeof(*s));
}

static void *grow(void *v, size_t *n, size_t *cap, size_t size)
{
	if (*n == *cap) {
		size_t c = *cap ? 2 * *cap : 16;
		void *nv = realloc(v, c * size);

		if (!nv)
			return NULL;
		v = nv;
		*cap = c;
	}
	return v;
}

struct restore_rule *restore_new_rule(struct restore_set *s)
{
	struct restore_rule *v = grow(s->v, &s->n, &s->cap, sizeof(*v));

	if (!v)
		return NULL;
	s->v = v;
	memset(&v[s->n], 0, sizeof(v[0]));
	return &v[s->n++];
}

struct restore_xdp *restore_new_xdp(struct restore_set *s)
{
	struct restore_xdp *x = grow(s->x, &s->nx, &s->capx, sizeof(*x));

	if (!x)
		return NULL;
	s->x = x;
	memset(&x[s->nx], 0, sizeof(x[0]));
	return &x[s->nx++];
}

static const struct restore_rule *find_rule(const struct restore_set *s,
					    const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i].rule.name, name))
			return &s->v[i];
	return NULL;
}

static bool has_dev(const struct ddf_rule_spec *r, const char *dev)
{
	for (unsigned int i = 0; i < r->ndevs; i++)
		if (!strcmp(r->devs[i], dev))
			return true;
	return false;
}

/*
 * xdp attach dev DEV rule NAME [mode M]: NAME a rule of an earlier line,
 * of family netdev, hook none and DEV among its devices; DEV named once.
 */
static int restore_xdp_line(const char *cmd, int n, char **words,
			    unsigned int lineno, struct restore_set *s)
{
	const struct restore_rule *rr;
	struct restore_xdp *x;
	int err;

	if (n < 2 || strcmp(words[1], "attach"))
		return ddfctl_err("%s: line %u: 'xdp %s' is not 'xdp attach'",
				  cmd, lineno, n < 2 ? "" : words[1]);
	x = restore_new_xdp(s);
	if (!x)
		return ddfctl_err("%s: line %u: out of memory", cmd, lineno);
	x->line = lineno;
	ddfctl_err_where("%s: line %u: ", cmd, lineno);
	err = parse_xdp_words("attach", n - 2, words + 2, x->dev, x->rule,
			      &x->how);
	ddfctl_err_where(NULL);
	if (err)
		return -1;
	rr = find_rule(s, x->rule);
	if (!rr)
		return ddfctl_err("%s: line %u: xdp attach: rule '%s' is on no line before it",
				  cmd, lineno, x->rule);
	if (!family_netdev(rr->rule.family) || rr->rule.hook != DDF_HOOK_NONE)
		return ddfctl_err("%s: line %u: xdp attach: rule '%s' (line %u) is not of family netdev hook none",
				  cmd, lineno, x->rule, rr->line);
	if (!has_dev(&rr->rule, x->dev))
		return ddfctl_err("%s: line %u: xdp attach: rule '%s' (line %u) is not for dev %s",
				  cmd, lineno, x->rule, rr->line, x->dev);
	for (size_t i = 0; i + 1 < s->nx; i++)
		if (!strcmp(s->x[i].dev, x->dev))
			return ddfctl_err("%s: line %u: dev %s has an xdp line already (line %u)",
					  cmd, lineno, x->dev, s->x[i].line);
	return 0;
}

/* One line into s; 0 for a rule, an xdp line, a comment or a blank line. */
static int restore_line(const char *cmd, char *line, unsigned int lineno,
			struct restore_set *s)
{
	char *words[RESTORE_WORDS_MAX + 1], *save, *w;
	struct restore_rule *rr;
	int n = 0, err;

	for (w = strtok_r(line, " \t\r\n", &save); w;
	     w = strtok_r(NULL, " \t\r\n", &save)) {
		if (n == RESTORE_WORDS_MAX)
			return ddfctl_err("%s: line %u has more than %d words",
					  cmd, lineno, RESTORE_WORDS_MAX);
		words[n++] = w;
	}
	if (!n || words[0][0] == '#')
		return 0;
	if (!strcmp(words[0], "xdp"))
		return restore_xdp_line(cmd, n, words, lineno, s);
	if (n < 2 || strcmp(words[0], "rule") || strcmp(words[1], "add"))
		return ddfctl_err("%s: line %u: '%s' is not a 'rule add' or 'xdp attach' line",
				  cmd, lineno, n < 2 || strcmp(words[0], "rule") ?
						       words[0] : words[1]);
	rr = restore_new_rule(s);
	if (!rr)
		return ddfctl_err("%s: line %u: out of memory", cmd, lineno);
	rr->line = lineno;
	ddfctl_err_where("%s: line %u: ", cmd, lineno);
	err = parse_rule_add(n - 2, words + 2, &rr->rule);
	ddfctl_err_where(NULL);
	if (err)
		return -1;
	for (size_t i = 0; i + 1 < s->n; i++)
		if (!strcmp(s->v[i].rule.name, rr->rule.name))
			return ddfctl_err("%s: line %u: rule '%s' is on line %u already",
					  cmd, lineno, rr->rule.name, s->v[i].line);
	return 0;
}

int restore_add_line(const char *cmd, const char *text, unsigned int lineno,
		     struct restore_set *s)
{
	size_t len = strlen(text), n = s->n, nx = s->nx;
	char line[RESTORE_LINE_MAX];

	/* as read_lines() would read it: one line, of its length */
	if (len > RESTORE_LINE_MAX - 1 ||
	    (len == RESTORE_LINE_MAX - 1 && text[len - 1] != '\n'))
		return ddfctl_err("%s: line %u is longer than %d bytes", cmd,
				  lineno, RESTORE_LINE_MAX - 2);
	if (strcspn(text, "\n") + 1 < len)
		return ddfctl_err("%s: line %u: a name in it holds a newline, which cuts it in two",
				  cmd, lineno);
	memcpy(line, text, len + 1);
	if (!restore_line(cmd, line, lineno, s))
		return 0;
	s->n = n;
	s->nx = nx;
	return -1;
}

static int read_lines(const char *cmd, FILE *in, struct restore_set *s)
{
	char line[RESTORE_LINE_MAX];
	unsigned int lineno = 0;

	memset(s, 0, sizeof(*s));
	while (fgets(line, sizeof(line), in)) {
		size_t len = strlen(line);
		int c;

		lineno++;
		if (len == sizeof(line) - 1 && line[len - 1] != '\n' &&
		    (c = getc(in)) != EOF) {
			ungetc(c, in);
			restore_free(s);
			return ddfctl_err("%s: line %u is longer than %d bytes",
					  cmd, lineno, RESTORE_LINE_MAX - 2);
		}
		if (restore_line(cmd, line, lineno, s)) {
			restore_free(s);
			return -1;
		}
	}
	if (ferror(in)) {
		restore_free(s);
		return ddfctl_err("%s: reading line %u failed", cmd, lineno + 1);
	}
	return 0;
}

/* Every rule and xdp line of in, or -1 after naming the first bad line. */
int restore_read(FILE *in, struct restore_set *s)
{
	return read_lines("restore", in, s);
}

int restore_read_file(const char *cmd, const char *path, struct restore_set *s)
{
	FILE *in = stdin;
	int err;

	if (path && strcmp(path, "-")) {
		in = fopen(path, "r");
		if (!in) {
			memset(s, 0, sizeof(*s));
			return ddfctl_err("%s: %s: %s", cmd, path, strerror(errno));
		}
	}
	err = read_lines(cmd, in, s);
	if (in != stdin)
		fclose(in);
	return err;
}

/* the first device of r that is not here, or NULL */
static const char *absent_dev(const struct ddf_rule_spec *r)
{
	for (unsigned int i = 0; i < r->ndevs; i++)
		if (!if_nametoindex(r->devs[i]))
			return r->devs[i];
	return NULL;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

size_t restore_wait(const char *cmd, struct restore_set *s, unsigned int secs)
{
	double end = now_s() + secs;
	const char *dev = NULL;
	size_t left = 0;

	/* devices appear as their drivers probe and udev names them */
	for (bool said = false;; said = true) {
		dev = NULL;
		for (size_t i = 0; i < s->n && !dev; i++)
			dev = absent_dev(&s->v[i].rule);
		if (!dev || now_s() >= end)
			break;
		if (!said)
			fprintf(stderr, "ddfctl: %s: waiting up to %u s for dev %s\n",
				cmd, secs, dev);
		nanosleep(&(struct timespec){ 0, 100000000L }, NULL);
	}
	for (size_t i = 0; dev && i < s->n; i++) {
		struct restore_rule *rr = &s->v[i];
		const char *gone = absent_dev(&rr->rule);

		if (!gone)
			continue;
		rr->left_out = true;
		left++;
		fprintf(stderr, "ddfctl: %s: line %u: rule '%s' left out: dev %s is not here after %u s (ddfctl apply adds it once it is)\n",
			cmd, rr->line, rr->rule.name, gone, secs);
		for (size_t j = 0; j < s->nx; j++)
			if (!strcmp(s->x[j].rule, rr->rule.name))
				s->x[j].left_out = true;
	}
	return left;
}

static int do_step(const struct restore_step *st, bool undo,
		   const struct restore_ops *ops)
{
	struct ddf_cmd_req req = { 0 };
	enum restore_step_kind k = st->kind;

	/* the inverse of each change */
	if (undo)
		k = k == RS_ADD ? RS_DEL : k == RS_DEL ? RS_ADD :
		    k == RS_ATTACH ? RS_DETACH : RS_ATTACH;
	switch (k) {
	case RS_ADD:
		req.op = OP_RULE_ADD;
		req.rule = *st->rule;
		return ops->send(&req);
	case RS_DEL:
		req.op = OP_RULE_DEL;
		memcpy(req.rule.name, st->rule->name, sizeof(req.rule.name));
		return ops->send(&req);
	case RS_ATTACH:
		/* a program of a rule that had gone judged nothing: not put back */
		if (!st->xdp->rule[0])
			return 0;
		return ops->attach(st->xdp->dev, st->xdp->rule, &st->xdp->how);
	default:
		return ops->detach(st->xdp->dev);
	}
}

static void where(const char *cmd, const char *how,
		  const struct restore_step *st)
{
	if (st->line)
		ddfctl_err_where("%s: %sline %u: ", cmd, how, st->line);
	else if (st->kind == RS_DEL || st->kind == RS_ADD)
		ddfctl_err_where("%s: %srule '%s': ", cmd, how, st->rule->name);
	else
		ddfctl_err_where("%s: %sdev %s: ", cmd, how, st->xdp->dev);
}

/* What failed: its line, or the change of the kernel's state. */
static void subject(char *buf, size_t size, const struct restore_step *st)
{
	if (st->line)
		snprintf(buf, size, "line %u was refused", st->line);
	else if (st->kind == RS_DEL)
		snprintf(buf, size, "deleting rule '%s' failed", st->rule->name);
	else
		snprintf(buf, size, "detaching ddf's XDP program from %s failed",
			 st->xdp->dev);
}

/* st[failed] was not made: undo st[0 .. failed - 1], newest first. */
static int restore_undo(const char *cmd, const struct restore_step *st,
			size_t failed, const struct restore_ops *ops)
{
	static const char *const done_words[] = {
		[RS_ADD] = "rules added before it were deleted again",
		[RS_DEL] = "rules deleted were added again (their filters empty)",
		[RS_ATTACH] = "XDP programs attached were detached again",
		[RS_DETACH] = "XDP programs detached were attached again",
	};
	static const enum restore_step_kind order[] = { RS_ATTACH, RS_ADD,
							RS_DEL, RS_DETACH };
	size_t done[4] = { 0 }, left = 0;
	char what[128], msg[512] = "";

	for (size_t i = failed; i-- > 0;) {
		done[st[i].kind]++;
		where(cmd, "undoing ", &st[i]);
		if (do_step(&st[i], true, ops))
			left++;
		ddfctl_err_where(NULL);
	}
	subject(what, sizeof(what), &st[failed]);
	if (!failed)
		return ddfctl_err("%s: %s; %s", cmd, what,
				  strcmp(cmd, "restore") ? "nothing had been changed" :
							   "no rule had been added");
	if (left && done[RS_ADD] == failed)
		return ddfctl_err("%s: %s, and %zu of the %zu rules added before it could not be deleted again",
				  cmd, what, left, failed);
	if (left)
		return ddfctl_err("%s: %s, and %zu of the %zu changes made before it could not be undone",
				  cmd, what, left, failed);
	for (size_t i = 0; i < 4; i++)
		if (done[order[i]])
			snprintf(msg + strlen(msg), sizeof(msg) - strlen(msg),
				 "; the %zu %s", done[order[i]],
				 done_words[order[i]]);
	return ddfctl_err("%s: %s%s", cmd, what, msg);
}

int restore_run(const char *cmd, const struct restore_step *st, size_t n,
		const struct restore_ops *ops)
{
	for (size_t i = 0; i < n; i++) {
		int err;

		where(cmd, "", &st[i]);
		err = do_step(&st[i], false, ops);
		ddfctl_err_where(NULL);
		if (err)
			return restore_undo(cmd, st, i, ops);
	}
	return 0;
}

/* The rules in file order, then the XDP programs, each unless left out. */
int restore_apply(const struct restore_set *s, const struct restore_ops *ops)
{
	struct restore_step *st = calloc(s->n + s->nx + 1, sizeof(*st));
	size_t n = 0;
	int err;

	if (!st)
		return ddfctl_err("restore: out of memory");
	for (size_t i = 0; i < s->n; i++)
		if (!s->v[i].left_out)
			st[n++] = (struct restore_step){ RS_ADD, s->v[i].line,
							 &s->v[i].rule, NULL };
	for (size_t i = 0; i < s->nx; i++)
		if (!s->x[i].left_out)
			st[n++] = (struct restore_step){ RS_ATTACH, s->x[i].line,
							 NULL, &s->x[i] };
	err = restore_run("restore", st, n, ops);
	free(st);
	return err;
}

/* --wait SECONDS and FILE, for restore and apply */
int restore_args(const char *cmd, int argc, char **argv, int *wait,
		 const char **path, const char **against)
{
	*wait = -1;
	*path = NULL;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		unsigned long v;
		char *end;

		if (!strcmp(a, "--wait") || (against && !strcmp(a, "--against"))) {
			if (i + 1 == argc)
				return ddfctl_err("%s: '%s' needs a value", cmd, a);
			if (!strcmp(a, "--against")) {
				*against = argv[++i];
				continue;
			}
			a = argv[++i];
			errno = 0;
			v = strtoul(a, &end, 10);
			if (a[0] < '0' || a[0] > '9' || *end || errno ||
			    v > RESTORE_WAIT_MAX)
				return ddfctl_err("%s: --wait: '%s' is not a number of seconds from 0 to %d",
						  cmd, a, RESTORE_WAIT_MAX);
			*wait = (int)v;
		} else if (a[0] == '-' && a[1]) {
			return ddfctl_err("%s: '%s' is not an option (ddfctl --help)",
					  cmd, a);
		} else if (*path) {
			return ddfctl_err("%s: '%s' is not expected after the FILE '%s'",
					  cmd, a, *path);
		} else {
			*path = a;
		}
	}
	return 0;
}

int cmd_restore(int argc, char **argv)
{
	struct restore_set s;
	const char *path;
	size_t left = 0;
	int wait, err;

	if (restore_args("restore", argc, argv, &wait, &path, NULL))
		return -1;
	if (restore_read_file("restore", path, &s))
		return ddfctl_err("restore: no rule was added");
	if (wait >= 0)
		left = restore_wait("restore", &s, (unsigned int)wait);
	err = restore_apply(&s, &restore_kernel);
	restore_free(&s);
	if (err)
		return -1;
	return left ? RESTORE_LEFT_OUT : 0;
}
