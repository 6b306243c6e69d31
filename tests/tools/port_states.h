/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Generated states of a namespace's rules for test_save_states.c: the
 * ports of netdev rules present, renamed, or waiting after their device
 * went, names of every byte Linux takes, and ddf's XDP program on some
 * devices; what save writes of them, and the state a restore makes.
 */
#ifndef PORT_STATES_H
#define PORT_STATES_H

#include <stdint.h>
#include <linux/ddf.h>

#include "ddfctl.h"

#define DEVS_MAX 96
#define RULES_MAX 4
#define NAMES 48

/* the model: devices of the rules' namespace (ns 0), another one (1), gone */
struct mdev {
	char name[16];
	uint32_t ifindex;
	int ns; /* 0, 1, or -1: deleted */
	uint32_t xdp_rule; /* ddf's program judging by this rule id */
	struct xdp_how xdp; /* as the kernel tells: mode 1 or 2, prio or exclusive */
	unsigned int order; /* where xdp_each() lists it */
};

struct mport {
	int dev; /* -1: waiting */
	char name[16], given[16];
};

struct mrule {
	struct ddf_rule_spec spec;
	uint32_t id;
	bool bad_name; /* another client's name, which ddfctl refuses */
	unsigned int n;
	struct mport p[DDF_DEVS_MAX];
};

struct model {
	struct mdev d[DEVS_MAX];
	unsigned int nd;
	uint32_t next_ifindex;
	struct mrule r[RULES_MAX];
	unsigned int nr;
	char names[NAMES][16]; /* the case's names: few, so they meet */
	unsigned int nn;
};

/* the bytes a device's name may hold, nlegal of them */
extern unsigned char legal_bytes[256];
extern unsigned int nlegal;

/* the bytes and the rules' words parsed; -1: a rule does not parse */
int model_init(void);
/* the same cases from the same seed */
void model_seed(uint64_t seed);
/* Into m (zeroed), a case: its names, devices, rules, events, programs. */
void model_generate(struct model *m);

/*
 * What save writes of the model: its text, and how many lines it refused;
 * in s what state_fetch() would read (free it).
 */
char *model_save(const struct model *m, int *refused, struct restore_set *s);
/* into m, the namespace once s is restored */
void model_restored(const struct restore_set *s, struct model *m);

#endif /* PORT_STATES_H */
