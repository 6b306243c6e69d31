// SPDX-License-Identifier: GPL-2.0
/*
 * apply's plan (state.c: apply_plan()) and its run with undo (restore.c:
 * restore_run()) between two sets of any bytes, read as restore reads a
 * file: the input's first byte, then what the kernel holds (now) and the
 * file to apply (want), split at SEP. The kernel is a model of rules by
 * name and programs by device, whose requests fail where the kernel's
 * would (a rule added twice, a program attached to a device that has
 * one); the first byte, when not 0, makes that request fail instead.
 *
 * - every step the plan makes is one the kernel takes in that order;
 * - run whole, it leaves the rules and programs of want, each rule as
 *   its line says;
 * - failed at any step, the steps before it are undone: the kernel is
 *   left as it was (nothing half-applied).
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "ddfctl.h"
#include "fuzz_rules.h"
#include "fuzz_tools.h"

#define SEP "\xdd\xf0\x0d\xfe" /* between now and want */
#define MODEL_MAX 512

static struct model {
	size_t n, nx;
	struct {
		char name[DDF_NAME_MAX];
		char *text;
	} r[MODEL_MAX];
	struct {
		char dev[16], rule[DDF_NAME_MAX];
	} x[MODEL_MAX];
} kernel;

static unsigned int calls, fail_at;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_quiet();
	return 0;
}

static size_t find_rule(const char *name)
{
	for (size_t i = 0; i < kernel.n; i++)
		if (!strcmp(kernel.r[i].name, name))
			return i;
	return SIZE_MAX;
}

static size_t find_dev(const char *dev)
{
	for (size_t i = 0; i < kernel.nx; i++)
		if (!strcmp(kernel.x[i].dev, dev))
			return i;
	return SIZE_MAX;
}

static bool failing(void)
{
	return ++calls == fail_at;
}

static int send(const struct ddf_cmd_req *req)
{
	size_t i = find_rule(req->rule.name);

	if (failing())
		return -1;
	if (req->op == OP_RULE_ADD) {
		fuzz_assert(i == SIZE_MAX, "rule '%s' added, which is there",
			    req->rule.name);
		fuzz_assert(kernel.n < MODEL_MAX, "too many rules");
		memcpy(kernel.r[kernel.n].name, req->rule.name, DDF_NAME_MAX);
		kernel.r[kernel.n].text = strdup(fuzz_rule_line(&req->rule));
		kernel.n++;
		return 0;
	}
	fuzz_assert(req->op == OP_RULE_DEL, "a request of op %d", req->op);
	fuzz_assert(i != SIZE_MAX, "rule '%s' deleted, which is not there",
		    req->rule.name);
	for (size_t j = 0; j < kernel.nx; j++)
		fuzz_assert(strcmp(kernel.x[j].rule, req->rule.name),
			    "rule '%s' deleted under the program on %s",
			    req->rule.name, kernel.x[j].dev);
	free(kernel.r[i].text);
	kernel.r[i] = kernel.r[--kernel.n];
	return 0;
}

static int attach(const char *dev, const char *rule, const struct xdp_how *how)
{
	if (failing())
		return -1;
	fuzz_assert(find_dev(dev) == SIZE_MAX,
		    "a program attached to %s, which has one", dev);
	fuzz_assert(find_rule(rule) != SIZE_MAX,
		    "a program of rule '%s' attached, which is not there",
		    rule);
	fuzz_assert(kernel.nx < MODEL_MAX, "too many programs");
	snprintf(kernel.x[kernel.nx].dev, 16, "%s", dev);
	snprintf(kernel.x[kernel.nx].rule, DDF_NAME_MAX, "%s", rule);
	kernel.nx++;
	return 0;
}

static int detach(const char *dev)
{
	size_t i = find_dev(dev);

	if (failing())
		return -1;
	fuzz_assert(i != SIZE_MAX, "a program detached from %s, which has none",
		    dev);
	kernel.x[i] = kernel.x[--kernel.nx];
	return 0;
}

static const struct restore_ops model_ops = { send, attach, detach };

static void model_free(void)
{
	for (size_t i = 0; i < kernel.n; i++)
		free(kernel.r[i].text);
	kernel.n = kernel.nx = 0;
}

/* the kernel holds s: its rules and programs */
static void model_is(const struct restore_set *s, const char *what)
{
	fuzz_assert(kernel.n == s->n && kernel.nx == s->nx,
		    "%s: %zu rules and %zu programs, not %zu and %zu", what,
		    kernel.n, kernel.nx, s->n, s->nx);
	for (size_t i = 0; i < s->n; i++) {
		size_t k = find_rule(s->v[i].rule.name);

		fuzz_assert(k != SIZE_MAX, "%s: rule '%s' is missing", what,
			    s->v[i].rule.name);
		fuzz_assert(!strcmp(kernel.r[k].text,
				    fuzz_rule_line(&s->v[i].rule)),
			    "%s: rule '%s' is %s", what, s->v[i].rule.name,
			    kernel.r[k].text);
	}
	for (size_t i = 0; i < s->nx; i++) {
		size_t k = find_dev(s->x[i].dev);

		fuzz_assert(k != SIZE_MAX && !strcmp(kernel.x[k].rule,
						     s->x[i].rule),
			    "%s: no program of rule '%s' on %s", what,
			    s->x[i].rule, s->x[i].dev);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct restore_set now, want;
	struct apply_plan p;
	const uint8_t *sep, *end = data + size;
	int err;

	if (size < 1)
		return 0;
	sep = memmem(data + 1, size - 1, SEP, 4);
	if (!sep ||
	    fuzz_restore_read(data + 1, (size_t)(sep - data - 1), &now))
		return 0;
	if (fuzz_restore_read(sep + 4, (size_t)(end - sep - 4), &want)) {
		restore_free(&now);
		return 0;
	}
	if (now.n > MODEL_MAX || now.nx > MODEL_MAX) {
		restore_free(&want);
		restore_free(&now);
		return 0;
	}
	/* the kernel as now says */
	for (size_t i = 0; i < now.n; i++) {
		memcpy(kernel.r[i].name, now.v[i].rule.name, DDF_NAME_MAX);
		kernel.r[i].text = strdup(fuzz_rule_line(&now.v[i].rule));
	}
	kernel.n = now.n;
	for (size_t i = 0; i < now.nx; i++) {
		snprintf(kernel.x[i].dev, 16, "%s", now.x[i].dev);
		snprintf(kernel.x[i].rule, DDF_NAME_MAX, "%s", now.x[i].rule);
	}
	kernel.nx = now.nx;

	if (!apply_plan(&now, &want, &p)) {
		calls = 0;
		fail_at = data[0];
		err = restore_run("apply", p.st, p.n, &model_ops);
		if (fail_at && fail_at <= p.n)
			fuzz_assert(err, "step %u of %zu failed, yet the run did not",
				    fail_at, p.n);
		if (err)
			model_is(&now, "after a failed apply");
		else
			model_is(&want, "after apply");
		free(p.st);
	}
	model_free();
	restore_free(&want);
	restore_free(&now);
	return 0;
}
