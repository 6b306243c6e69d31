// SPDX-License-Identifier: GPL-2.0
/*
 * restore: the `rule add` lines of save on stdin, applied all or nothing.
 *
 * First every line is parsed (and sized) into a list, so a bad line stops
 * the restore before a request is sent. Then the rules are added in file
 * order; when the kernel refuses one, the rules this restore added are
 * deleted again, newest first, and the refused line is named.
 */
#include <stdlib.h>
#include <string.h>

#include "ddfctl.h"

#define RESTORE_LINE_MAX 4096 /* with the newline and the NUL */
#define RESTORE_WORDS_MAX 128

void restore_free(struct restore_set *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}

static struct restore_rule *restore_push(struct restore_set *s)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 16;
		struct restore_rule *v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		s->v = v;
		s->cap = cap;
	}
	return &s->v[s->n++];
}

/* One line into s; 0 for a rule, a comment or a blank line, else -1. */
static int restore_line(char *line, unsigned int lineno, struct restore_set *s)
{
	char *words[RESTORE_WORDS_MAX + 1], *save, *w;
	struct restore_rule *rr;
	int n = 0, err;

	for (w = strtok_r(line, " \t\r\n", &save); w;
	     w = strtok_r(NULL, " \t\r\n", &save)) {
		if (n == RESTORE_WORDS_MAX)
			return ddfctl_err("restore: line %u has more than %d words",
					  lineno, RESTORE_WORDS_MAX);
		words[n++] = w;
	}
	if (!n || words[0][0] == '#')
		return 0;
	if (n < 2 || strcmp(words[0], "rule") || strcmp(words[1], "add"))
		return ddfctl_err("restore: line %u: '%s' is not a 'rule add' line",
				  lineno, n < 2 || strcmp(words[0], "rule") ?
						  words[0] : words[1]);
	rr = restore_push(s);
	if (!rr)
		return ddfctl_err("restore: line %u: out of memory", lineno);
	rr->line = lineno;
	ddfctl_err_where("restore: line %u: ", lineno);
	err = parse_rule_add(n - 2, words + 2, &rr->rule);
	ddfctl_err_where(NULL);
	if (err)
		return -1;
	for (size_t i = 0; i + 1 < s->n; i++)
		if (!strcmp(s->v[i].rule.name, rr->rule.name))
			return ddfctl_err("restore: line %u: rule '%s' is on line %u already",
					  lineno, rr->rule.name, s->v[i].line);
	return 0;
}

/* Every rule of in, or -1 after naming the first bad line (s is empty). */
int restore_read(FILE *in, struct restore_set *s)
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
			return ddfctl_err("restore: line %u is longer than %d bytes",
					  lineno, RESTORE_LINE_MAX - 2);
		}
		if (restore_line(line, lineno, s)) {
			restore_free(s);
			return -1;
		}
	}
	if (ferror(in)) {
		restore_free(s);
		return ddfctl_err("restore: reading line %u failed", lineno + 1);
	}
	return 0;
}

/*
 * Rule 'refused' was not added: delete rules 0 .. refused - 1 again,
 * newest first. A deletion that fails is named and the others still run.
 */
static int restore_undo(const struct restore_set *s, size_t refused,
			restore_send_fn send)
{
	size_t left = 0;

	for (size_t i = refused; i-- > 0;) {
		struct ddf_cmd_req req = { .op = OP_RULE_DEL };

		memcpy(req.rule.name, s->v[i].rule.name, sizeof(req.rule.name));
		ddfctl_err_where("restore: undoing line %u: ", s->v[i].line);
		if (send(&req))
			left++;
		ddfctl_err_where(NULL);
	}
	if (left)
		return ddfctl_err("restore: line %u was refused, and %zu of the %zu rules added before it could not be deleted again",
				  s->v[refused].line, left, refused);
	if (refused)
		return ddfctl_err("restore: line %u was refused; the %zu rules added before it were deleted again",
				  s->v[refused].line, refused);
	return ddfctl_err("restore: line %u was refused; no rule had been added",
			  s->v[refused].line);
}

int restore_apply(const struct restore_set *s, restore_send_fn send)
{
	for (size_t i = 0; i < s->n; i++) {
		struct ddf_cmd_req req = { .op = OP_RULE_ADD,
					   .rule = s->v[i].rule };
		int err;

		ddfctl_err_where("restore: line %u: ", s->v[i].line);
		err = send(&req);
		ddfctl_err_where(NULL);
		if (err)
			return restore_undo(s, i, send);
	}
	return 0;
}

int cmd_restore(int argc, char **argv)
{
	struct restore_set s;
	int err;

	if (argc)
		return ddfctl_err("restore: '%s' is not expected (the rules come on stdin)",
				  argv[0]);
	if (restore_read(stdin, &s))
		return ddfctl_err("restore: no rule was added");
	err = restore_apply(&s, ddfctl_run);
	restore_free(&s);
	return err;
}
