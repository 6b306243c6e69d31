/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ddfctl: configure the packet de-duplication rules of nf_ddf over the
 * generic netlink family "ddf" (uapi/linux/ddf.h).
 *
 * Every command is first parsed into a struct ddf_cmd_req; only then is a
 * netlink request built from it. So a command either fails with a sentence
 * naming the offending word before anything is sent, or it is sent with
 * fully resolved integer parameters (the kernel never sizes a filter).
 */
#ifndef DDFCTL_H
#define DDFCTL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ddf_filter.h"
#include "ddf_key.h"
#include "ddf_size.h"
#include <linux/ddf.h>

enum ddfctl_op {
	OP_NONE,
	OP_RULE_ADD,
	OP_RULE_DEL,
	OP_RULE_RESET,
	OP_RULE_FLUSH,
	OP_SHOW,
	OP_STATS,
	OP_SIZE,
	OP_SAVE,
	OP_RESTORE,
	OP_XDP, /* a rule fetched for an XDP command */
};

/*
 * A bare `window DURATION` holds DURATION at this rate: N = ceil(DURATION x
 * 100000 packets/s), at least 1. Long windows should give N/DURATION.
 */
#define DDFCTL_WINDOW_PPS 100000ull

/* What the user asked of the filter, and what sizing made of it. */
struct ddf_filter_req {
	uint32_t kind;
	uint64_t window; /* elements, or elements per window_ns; 0: none */
	uint64_t window_ns; /* 0: count window */
	bool window_assumed; /* bare DURATION: window from DDFCTL_WINDOW_PPS */
	double fpr; /* 0 when memory alone is given */
	uint64_t memory; /* 0 when fpr is given */
	bool shape; /* params given as a shape: resolve, do not size */
	uint32_t cpus; /* apbf, apbbf: CPUs inserting at once (ddf_age.h) */
	uint32_t tune; /* apbf, apbbf sized by fpr: enum ddf_tune */
	struct ddf_params params; /* resolved by ddfctl_size_filter() */
	struct ddf_size_report rep;
};

struct ddf_rule_spec {
	char name[DDF_NAME_MAX];
	uint8_t family; /* NFPROTO_* */
	uint8_t hook; /* NF_INET_*, NF_NETDEV_* (family netdev), DDF_HOOK_NONE */
	int32_t priority;
	/* family netdev: the devices (IFNAMSIZ), sharing the rule's filter */
	char devs[DDF_DEVS_MAX][16];
	unsigned int ndevs;
	char iif[16], oif[16]; /* IFNAMSIZ */
	uint8_t l4proto; /* 0: any */
	struct ddf_key_spec key;
	struct ddf_filter_req filter;
	bool has_seed;
	uint8_t seed[DDF_SEED_LEN];
	uint8_t hash_alg; /* enum ddf_hash_alg */
	uint8_t action; /* enum ddf_action */
	uint32_t mark, mask;
};

struct ddf_cmd_req {
	enum ddfctl_op op;
	struct ddf_rule_spec rule;
	bool has_name; /* show, stats: one rule */
	uint32_t reset_flags; /* rule reset: DDF_RESET_F_* */
};

/* a word of the grammar and the number it stands for */
struct ddf_word {
	const char *name;
	uint32_t value;
};

/* global options */
extern bool ddfctl_json;
extern bool ddfctl_dry_run;

/* parse.c: 0, or -1 after printing a sentence to stderr */
int ddfctl_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* prefix the sentences of ddfctl_err() until called with NULL */
void ddfctl_err_where(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
int parse_rule_add(int argc, char **argv, struct ddf_rule_spec *r);
/*
 * The words after a rule's NAME, for replay: key frame with any family,
 * and no dev needed by family netdev.
 */
int parse_rule_words(int argc, char **argv, struct ddf_rule_spec *r);
int parse_name(const char *word, char *name);
int parse_count(const char *what, const char *s, uint64_t *out);
int parse_duration(const char *what, const char *s, uint64_t *ns);
int parse_size(const char *what, const char *s, uint64_t *out);
int parse_window(const char *s, struct ddf_filter_req *f);

/*
 * The filter's words, checked once all are read (filter KIND may come after
 * the window): the argument of window, fpr and memory as given (NULL when
 * absent; fpr_last: fpr came after memory), and whether a shape was given.
 * name: the rule's, or NULL for size.
 */
struct filter_words {
	const char *window, *fpr, *memory, *cpus, *tune;
	bool fpr_last, shape;
};
/* parse_filter.c: cmd and name for the sentences */
int check_filter_words(const struct filter_words *w, struct ddf_filter_req *f,
		       const char *cmd, const char *name);
int parse_filter_words(const struct filter_words *w, struct ddf_filter_req *f,
		       const char *name);
int parse_fpr(const char *s, double *out);
int parse_cpus(const char *s, uint32_t *out);
int parse_kind(const char *s, uint32_t *kind);
int parse_tune(const char *s, uint32_t *tune);
int parse_shape(const char *s, struct ddf_params *p);
void print_shape(FILE *out, const struct ddf_params *p);

/*
 * parse_link.c: the words that say where a rule sits (family, hook, dev)
 * and what of the link layer and of tunnels its key sees (ignore vlan,
 * mac; decap). The words of a rule as given (NULL when absent), checked
 * together by check_link() once all are read, so their order is free.
 */
struct rule_words {
	const char *cmd; /* "rule add" or "replay" */
	bool offline; /* replay */
	const char *hook, *key, *ignore, *max_bytes, *decap;
	bool payload;
};
int parse_family(const char *s, uint8_t *family);
/* NFPROTO_NETDEV, for the files that cannot include linux/netfilter.h */
bool family_netdev(uint8_t family);
int parse_hook(const char *s);
int parse_decap(const char *s, struct ddf_key_spec *k);
int check_link(struct ddf_rule_spec *r, const struct rule_words *w);
/* the first word of list whose table value has a bit of bits, or NULL */
const char *list_word(const char *list, const struct ddf_word *t,
		      uint32_t bits, char *buf, size_t size);
/* "vxlan:8472,gre": the tunnels of k, their ports when not the default */
void print_decap(FILE *out, const struct ddf_key_spec *k);

/*
 * ifname.c: device names in words, with the escapes \\ (a backslash), \,
 * (a comma) and \xHH (any byte), which save writes for the bytes outside
 * printable ASCII; kw names the word in the sentences
 */
int parse_ifname(const char *kw, const char *s, char *out);
/* dev DEV[,DEV...]: at most DDF_DEVS_MAX, each named once */
int parse_devs(const char *s, struct ddf_rule_spec *r);
void print_ifname(FILE *out, const char *name);

/* size.c */
int ddfctl_size_filter(struct ddf_filter_req *f);
bool ddfctl_fpr(const struct ddf_params *p, double *fpr);
int cmd_size(int argc, char **argv);
void print_duration(FILE *out, uint64_t ns);

/*
 * escape.c: a string from the kernel (any bytes) in JSON and in a
 * Prometheus label value, quoted. utf8_len(): the bytes of the UTF-8
 * character at s, 0 when s holds none.
 */
int utf8_len(const char *s);
void json_str(FILE *out, const char *s);
void prom_str(FILE *out, const char *s);

/* replay.c: a rule's decisions over capture files (libpcap) */
int cmd_replay(int argc, char **argv);
/* advise.c: the rule a capture needs, by an exact comparison */
int cmd_advise(int argc, char **argv);
/*
 * replay_pcapng.c: pcapng interfaces libpcap cannot read together; cmd
 * begins the sentences
 */
int pcapng_check_ifaces(const char *cmd, const char *path);
int pcapng_read_error(const char *cmd, const char *path,
		      unsigned long long records, const char *msg);

/* nl.c: build a request for req; send it, or print it (dry run) */
struct nlmsghdr *ddfctl_build(const struct ddf_cmd_req *req, char *buf);
int ddfctl_run(const struct ddf_cmd_req *req);
/*
 * The rule name (all rules: NULL) as the kernel reports it, each handed to
 * fn: 0, or -1 after saying why.
 */
struct ddf_rule_info;
int ddfctl_fetch(const char *name,
		 void (*fn)(const struct ddf_rule_info *ri, void *arg),
		 void *arg);
/*
 * The n bytes of replies in buf, as read from the kernel's socket: each
 * message of the family to cb (libmnl's mnl_cb_t), an error's or a dump's
 * end to ddfctl's own (an error's sentence kept for the next one said);
 * mnl_cb_run2()'s result.
 */
struct nlmsghdr;
int ddfctl_replies(const void *buf, size_t n, uint32_t seq, uint32_t portid,
		   int (*cb)(const struct nlmsghdr *nlh, void *data),
		   void *data);
/* Every rule, as ddfctl_fetch; restart(arg) before each try of the dump */
int ddfctl_fetch_all(void (*fn)(const struct ddf_rule_info *ri, void *arg),
		     void (*restart)(void *arg), void *arg);
/* The same for req's GET (show, stats: its words in the sentences) */
int ddfctl_fetch_req(const struct ddf_cmd_req *req,
		     void (*fn)(const struct ddf_rule_info *ri, void *arg),
		     void *arg);

/* xdp.c: XDP programs calling nf_ddf's kfunc */
int cmd_xdp(int argc, char **argv);
/*
 * ddfctl writes this into the read-only data of each program of ddf's it
 * loads (ddf_owner), and knows its programs by it: it is in no object
 * file, so no other program carries it by accident, whatever its name.
 */
#define XDP_OWNER 0x12c562040361ce09ULL
/*
 * its run priority in libxdp's dispatcher, lowest first: before
 * xdp-filter's (10), libxdp's AF_XDP program's (20) and its default (50)
 */
#define XDP_PRIO_DEFAULT 5
#define XDP_PRIO_MAX 1000000
/* How ddf's program is (to be) attached. */
struct xdp_how {
	int mode; /* 0: native, else generic; 1: native; 2: generic */
	int prio; /* run priority in libxdp's dispatcher; -1: not given */
	bool exclusive; /* alone at the device, without libxdp */
};
/*
 * The devices whose ddf XDP program judges by rule_id, as
 * " DEV (MODE, priority N|exclusive)" words into buf; "" when none (or
 * when BPF cannot be asked).
 */
void xdp_attached(uint32_t rule_id, char *buf, size_t size);
/*
 * The mode of ddf's XDP program for rule_id on the device of ifindex
 * ("native", "generic"), "other" for another program, or NULL for none.
 */
const char *xdp_mode_on(int ifindex, uint32_t rule_id);
/*
 * Each device with ddf's XDP program: its rule's number, how it is there.
 * -1 when the devices cannot be listed, or when what runs at one cannot
 * be told (each such device said, as what, and left out; fn still has
 * the others).
 */
int xdp_each(const char *what,
	     void (*fn)(const char *dev, uint32_t rule_id,
			const struct xdp_how *how, void *arg),
	     void *arg);

/* xdp_port.c: what runs at a device's XDP hook, as the kernel tells it */
#define XDP_OTHERS_MAX 10 /* a dispatcher's most components */
struct xdp_comp { /* a program in libxdp's dispatcher, not ddf's */
	uint32_t id;
	int prio;
	bool frags; /* loaded for multi-buffer frames */
	char name[16];
};
/* why what runs at a device cannot be told (xdp_port.unreadable) */
enum {
	XDP_READ_OK,
	XDP_READ_DENIED, /* BPF will not describe the programs to us */
	XDP_READ_LAYOUT, /* a dispatcher of a layout we do not know */
	XDP_READ_EMPTY, /* dispatcher slots without programs: pins removed */
};
struct xdp_port {
	int mode; /* 1: native, 2: generic; 0: no program */
	uint32_t main_id; /* the program attached: the dispatcher, or alone */
	char main_name[16];
	bool dispatcher; /* libxdp's */
	int unreadable; /* XDP_READ_*: what the kernel cannot tell, and why */
	int err; /* XDP_READ_DENIED: BPF's errno */
	unsigned int slots, linked; /* XDP_READ_EMPTY: slots, programs */
	bool frags;
	uint32_t ddf_id; /* ddf's program; main_id when attached alone */
	uint32_t ddf_rule; /* the rule number it was loaded with */
	int ddf_prio; /* its run priority in the dispatcher */
	size_t nothers;
	struct xdp_comp others[XDP_OTHERS_MAX];
};
/* What runs at the device of ifindex into p; -1 if it cannot be asked */
int xdp_port_read(int ifindex, struct xdp_port *p);
const char *xdp_mode_word(int mode);
/* libxdp's pins: the BPF file system at /sys/fs/bpf, or why it is not here */
bool xdp_bpffs_here(void);
#define XDP_BPFFS_HINT "ip netns exec hides it: run ddfctl under nsenter --net=/run/netns/NAME; else mount -t bpf bpf /sys/fs/bpf"
/* "WHAT: DEV has ..., so whether ... cannot be told" on stderr; -1 */
int xdp_unreadable(const char *what, const char *dev, const struct xdp_port *p);

/* A device with ddf's XDP program, as xdp show lists them (text or JSON) */
struct xdp_dev {
	char dev[16];
	const char *mode; /* "native", "generic" */
	uint32_t prog_id, rule_id;
	char rule[DDF_NAME_MAX]; /* "": the rule is gone */
	int prio; /* -1: exclusive */
	size_t nothers; /* the other programs of the port's dispatcher */
	struct xdp_comp others[XDP_OTHERS_MAX];
};
void xdp_show_print(FILE *out, const struct xdp_dev *v, size_t n);
/* xdp attach|detach|show's words after the verb */
int parse_xdp_words(const char *what, int argc, char **argv, char *dev,
		    char *name, struct xdp_how *how);
/* xdp_attach.c */
int xdp_attach_rule(const char *dev, const char *name,
		    const struct xdp_how *how);
/* ddf's program loaded for ri's rule into *skel (to destroy), not attached */
struct ddf_xdp;
int xdp_load(const struct ddf_rule_info *ri, struct ddf_xdp **skel);
int xdp_detach_dev(const char *dev);
/*
 * Whether libxdp can change the programs of dev here (it keeps them
 * pinned in the BPF file system): 0, else -1 after saying why, as what.
 */
int xdp_libxdp_check(const char *what, const char *dev);

/*
 * gro.c: GRO, hardware GRO and LRO merge TCP segments before the netdev
 * ingress hook, differently for each copy. gro_state(): the GRO_* bits on
 * at a device and those fixed on by its driver, or -1 when it cannot be
 * asked; gro_sentence(): the warning for such bits; gro_warn(): that on
 * stderr when any is on (nothing otherwise); gro_warn_rule(): that for
 * each device of a netdev ingress rule; gro_json(): the "gro" member of
 * such a device's JSON object.
 */
#define GRO_SW 1u /* rx-gro, the kernel's */
#define GRO_HW 2u /* rx-gro-hw, the NIC's */
#define GRO_LRO 4u /* rx-lro */
int gro_state(const char *dev, unsigned int *on, unsigned int *fixed);
/* how gro_warn() and gro_json() ask (gro_state; tests put a stand-in) */
extern int (*gro_ask)(const char *dev, unsigned int *on,
		      unsigned int *fixed);
void gro_sentence(char *buf, size_t size, const char *dev, unsigned int on,
		  unsigned int fixed);
void gro_warn(const char *dev);
void gro_warn_rule(const struct ddf_rule_spec *r);
void gro_json(FILE *out, const struct ddf_rule_spec *r, const char *dev);

/*
 * restore.c: all or nothing. Every line (rule add, xdp attach) is parsed
 * before anything is sent; then the rules are added in order, then the
 * XDP programs attached, and if one step fails, the steps made before it
 * are undone, newest first.
 */
struct restore_rule {
	unsigned int line; /* 0: a rule of the kernel's (apply, save) */
	bool left_out; /* --wait: a device of it is not here */
	uint32_t id; /* the kernel's rule: DDF_A_ID */
	struct ddf_rule_spec rule;
	/* the kernel's: the names its devices have now, "" for a gone one */
	char dev_now[DDF_DEVS_MAX][16];
};

/* xdp attach dev DEV rule NAME [mode M] [priority N | exclusive] */
struct restore_xdp {
	unsigned int line;
	bool left_out;
	char dev[16];
	char saved[16]; /* the kernel's: dev as its rule's line names it */
	char rule[DDF_NAME_MAX]; /* the kernel's: "" when its rule is gone */
	uint32_t rule_id; /* the kernel's: the number it was loaded with */
	struct xdp_how how;
};

struct restore_set {
	struct restore_rule *v;
	size_t n, cap;
	struct restore_xdp *x;
	size_t nx, capx;
};

/* What restore and apply do to the kernel (the tests give their own). */
struct restore_ops {
	int (*send)(const struct ddf_cmd_req *req); /* rule add, rule del */
	int (*attach)(const char *dev, const char *rule,
		      const struct xdp_how *how);
	int (*detach)(const char *dev);
};
extern const struct restore_ops restore_kernel;

/* One change: a rule added or deleted, a program attached or detached. */
enum restore_step_kind { RS_ADD, RS_DEL, RS_ATTACH, RS_DETACH };
struct restore_step {
	enum restore_step_kind kind;
	unsigned int line; /* of the file; 0: undoing the kernel's state */
	const struct ddf_rule_spec *rule; /* RS_ADD; RS_DEL: to add back */
	const struct restore_xdp *xdp; /* RS_ATTACH; RS_DETACH: to put back */
};

struct restore_rule *restore_new_rule(struct restore_set *s);
struct restore_xdp *restore_new_xdp(struct restore_set *s);
int restore_read(FILE *in, struct restore_set *s);
/*
 * text (one line and its newline) into s as restore reads a line of a file;
 * -1 after saying why restore would refuse it, s then as it was
 */
int restore_add_line(const char *cmd, const char *text, unsigned int lineno,
		     struct restore_set *s);
/* the file (NULL or "-": stdin) into s, for cmd ("restore", "apply") */
int restore_read_file(const char *cmd, const char *path, struct restore_set *s);
/*
 * --wait SECONDS: wait up to secs for the devices of s's rules; a rule
 * with a device still absent is left out, with its XDP lines, and named.
 * The number left out.
 */
size_t restore_wait(const char *cmd, struct restore_set *s, unsigned int secs);
/* the steps in order, and on a failure the undoing of those made */
int restore_run(const char *cmd, const struct restore_step *st, size_t n,
		const struct restore_ops *ops);
int restore_apply(const struct restore_set *s, const struct restore_ops *ops);
/* [--wait SECONDS] [FILE], and with against [--against FILE]; wait -1: none */
int restore_args(const char *cmd, int argc, char **argv, int *wait,
		 const char **path, const char **against);
void restore_free(struct restore_set *s);
/* restore's exit status when --wait left rules out (EX_TEMPFAIL) */
#define RESTORE_LEFT_OUT 75
int cmd_restore(int argc, char **argv);

/* state.c: the rules and XDP programs of the namespace; save and apply */
int state_fetch(const char *what, struct restore_set *s);
/* a rule as the kernel reports it, and a device with ddf's XDP program */
int state_add_rule(struct restore_set *s, const struct ddf_rule_info *ri);
int state_add_xdp(struct restore_set *s, const char *dev, uint32_t rule_id,
		  const struct xdp_how *how);
/* save's lines; the number of those written as comments (restore refuses) */
int state_print(FILE *out, const struct restore_set *s);
int cmd_save(int argc, char **argv);
/* the steps that make now (the kernel's) into want (a file) */
struct apply_plan {
	struct restore_step *st;
	size_t n;
	size_t kept, changed, added, deleted, left_out;
	size_t xkept, attached, detached;
};
int apply_plan(const struct restore_set *now, const struct restore_set *want,
	       struct apply_plan *p);
int cmd_apply(int argc, char **argv);

/* print.c: decode a ddf message's attributes, as text or JSON */
struct nlmsghdr;
void print_request(FILE *out, const struct nlmsghdr *nlh);
void print_rule_reply(FILE *out, const struct nlmsghdr *nlh, bool stats);
void print_rule_save(FILE *out, const struct nlmsghdr *nlh);
void print_rule_line(FILE *out, const struct ddf_rule_spec *r);

/* a rule as the kernel reports it */
struct ddf_rule_info {
	struct ddf_rule_spec rule; /* filter.shape set: params as held */
	uint64_t bytes; /* memory the filter holds */
	bool has_stats;
	uint64_t packets, bytes_seen, duplicates, dropped, marked, unparsed;
	uint64_t generation;
	uint32_t fill_ppm;
	uint32_t id; /* DDF_A_ID */
	bool has_ifindex; /* family netdev: the device's index was reported */
	uint32_t ifindex; /* 0: no device of that name now (rule detached) */
	/* family netdev, rule.ndevs of them: each device as reported */
	struct ddf_dev_info {
		char given[16]; /* its name when it joined the rule */
		uint32_t ifindex; /* 0: gone */
		bool has_stats;
		uint64_t packets, bytes, duplicates, dropped, marked, unparsed;
	} devs[DDF_DEVS_MAX];
};

int decode_rule(const struct nlmsghdr *nlh, struct ddf_rule_info *ri);

/*
 * prom.c: rules as Prometheus' text exposition format (version 0.0.4),
 * every metric family once, its samples together: prom_print() for n
 * decoded rules, prom_run() for show or stats (-o prometheus).
 */
void prom_print(FILE *out, const struct ddf_rule_info *ri, size_t n);
int prom_run(const struct ddf_cmd_req *req);
const char *dev_state(const char *name, const char *given, uint32_t ifindex);
const char *family_name(uint8_t family);
const char *hook_name(uint8_t family, uint8_t hook);
const char *proto_name(uint8_t proto);
const char *action_name(uint8_t action);
const char *hash_name(uint8_t hash_alg);

/* the word tables, shared by the parser and the printers */
extern const struct ddf_word ddf_key_fields[];
extern const struct ddf_word ddf_key_ignores[];
extern const struct ddf_word ddf_key_decaps[];
const char *word_name(const struct ddf_word *t, uint32_t v);
int word_value(const struct ddf_word *t, const char *s, uint32_t *v);

#endif /* DDFCTL_H */
