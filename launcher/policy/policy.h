/* SPDX-License-Identifier: MIT */
/* The policy a driver enforces: what the sandbox sees, where it may write, whether it reaches the
 * network, and how it is started. Built once in the launcher from the command line; every backend
 * consumes the same structure and must refuse what it cannot enforce. */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fs-op.h"
#include "limits.h"
#include "ports.h"

/* Where --secret-file values appear inside the sandbox: a private, read-only tmpfs. */
#define CR_SECRETS_DIR "/run/secrets"

enum cr_secret_kind {
	CR_SECRET_ENV,	/* --secret, --env-file: a variable of the command's environment */
	CR_SECRET_FILE, /* --secret-file: CR_SECRETS_DIR/NAME, mode 0400, the sandbox's uid's */
};

/* A value corral read for the command alone (secret.h): only its name is ever shown. */
struct cr_secret {
	char *name;
	char *value; /* NUL-terminated; NULL once the environment holds it */
	enum cr_secret_kind kind;
};

enum cr_path_access {
	CR_PATH_RO,   /* visible, read-only */
	CR_PATH_RW,   /* visible, writable */
	CR_PATH_HIDE, /* replaced by an empty directory or an empty file */
	_CR_PATH_ACCESS_MAX,
	_CR_PATH_ACCESS_INVALID = -EINVAL,
};

enum cr_net_mode {
	CR_NET_NONE, /* a private network with only loopback */
	CR_NET_HOST, /* the host's network, shared */
	CR_NET_HOSTS, /* "allow_hosts": loopback only, plus an HTTP(S) proxy that corral runs outside
		       * the sandbox and that reaches only the hosts of cr_policy.allow_hosts */
	_CR_NET_MAX,
	_CR_NET_INVALID = -EINVAL,
};

/* The syscall filter (--seccomp, --seccomp-profile). */
enum cr_seccomp_mode {
	CR_SECCOMP_DEFAULT, /* the built-in denylist */
	CR_SECCOMP_STRICT,  /* the denylist and what an agent's commands do not need either */
	CR_SECCOMP_OFF,	    /* none, by explicit choice */
	CR_SECCOMP_PROFILE, /* a user profile: --seccomp-profile FILE */
	CR_SECCOMP_BASIC,   /* what no client of a door needs (kernel keyrings, eBPF, io_uring,
			     * modules, kexec...) while mounts, namespaces and ptrace stay: the
			     * bwrap personality's hardened mode; not a --seccomp value */
	_CR_SECCOMP_MAX,
	_CR_SECCOMP_INVALID = -EINVAL,
};

/* Landlock (--landlock). */
enum cr_landlock_mode {
	CR_LANDLOCK_BEST_EFFORT, /* what the kernel has; what it lacks is reported (the default) */
	CR_LANDLOCK_REQUIRED,	 /* refuse to run when the kernel lacks a right of the policy */
	CR_LANDLOCK_OFF,	 /* none, by explicit choice */
	_CR_LANDLOCK_MODE_MAX,
	_CR_LANDLOCK_MODE_INVALID = -EINVAL,
};

/* The highest Landlock ABI this corral knows (Linux 6.15); --landlock-min-abi goes up to it. */
#define CR_LANDLOCK_ABI_MAX 7

/* A named cache (--cache NAME=PATH, [filesystem] cache = NAME:PATH): a directory corral keeps
 * for the user, persisting across runs, shown writable at @path. */
struct cr_cache {
	char *name; /* checked by cr_cache_name_check() (cache.h) */
	char *path; /* where the sandbox sees it: absolute, "~" expanded to the sandbox's HOME */
	char *dir;  /* the directory on the host, STATE/caches/NAME, canonical; NULL until
		     * cr_caches_attach() made it (launcher/session/caches.h) */
};

struct cr_path_rule {
	char *path; /* absolute and canonical (symlinks and ".." resolved) */
	enum cr_path_access access;
};

/* The namespaces an explicit policy unshares (cr_explicit.namespaces); a mount namespace always. */
enum cr_ns_bit {
	CR_NS_USER = 1 << 0,
	CR_NS_PID = 1 << 1,
	CR_NS_NET = 1 << 2,
	CR_NS_IPC = 1 << 3,
	CR_NS_UTS = 1 << 4,
	CR_NS_CGROUP = 1 << 5,
};

/* A classic BPF program for seccomp: an array of struct sock_filter, @size bytes. */
struct cr_bpf_program {
	void *insns;
	size_t size;
};

/* A policy a door describes whole (bwrap's command line, later an OCI config) rather than
 * corral's default layout: the root from cr_policy.fs_ops, and how the process is set up. With
 * @on, cr_policy's workspace, paths, pins, home and map_root are not used. */
struct cr_explicit {
	bool on;
	unsigned namespaces;  /* enum cr_ns_bit */
	bool nested_userns;   /* the command may make user namespaces (false: --disable-userns) */
	bool assert_no_userns; /* fail unless the command cannot make a user namespace */
	bool userns_limit_own; /* with !nested_userns: user.max_user_namespaces is 0 in the
				* sandbox's own user namespace, which the command stays in (its
				* maps and capabilities as given), rather than 1 there and a nested
				* namespace of one id made at once. Sound only when no process there
				* can hold CAP_SYS_RESOURCE, which writes the limit back (the
				* kernel's set_permissions()): caps lacks it (an OCI config's) */
	uint32_t uid, gid;    /* the command's ids inside its user namespace */
	char *uid_map, *gid_map; /* the maps' whole text ("INSIDE OUTSIDE COUNT" lines) when the
				  * door maps ranges (a root caller's OCI config); NULL: uid and
				  * gid to the caller's own */
	uint32_t host_uid, host_gid; /* with the maps, or idmap_root: uid's and gid's host ids */
	uint64_t caps;	      /* capabilities kept, bit N for capability N; 0: none */
	bool caps_inheritable; /* the inheritable set holds them too */
	bool caps_exact;      /* the inheritable and ambient sets are caps_inh and caps_amb (an OCI
			       * config's), not caps_inheritable's and the uid's default */
	uint64_t caps_inh, caps_amb; /* with caps_exact: within caps; caps_amb within caps_inh */
	bool late_ids;	      /* the sandbox is built as uid and gid, then the command takes
			       * late_uid, late_gid and the supplementary groups (root without a
			       * user namespace running an OCI process as another user) */
	uint32_t late_uid, late_gid;
	uint32_t groups[32];
	size_t n_groups;
	bool binds_in_order;  /* each bind's tree is cloned again as it is attached, so that the
			       * mount table lists the mounts in fs_ops' order (an OCI config's
			       * mounts[]), at the cost of a clone per bind */
	bool new_privs;	      /* no no_new_privs (an OCI config's noNewPrivileges false): execve
			       * may grant what setuid files and file capabilities give (every mount
			       * is nosuid: nothing, in practice); the syscall filters are then
			       * installed before the capabilities are dropped, the kernel's rule
			       * for a process without no_new_privs */
	bool as_pid_1;	      /* the command is the sandbox's first process: no init before it */
	bool init_dumpable;   /* the first process stays dumpable, so that the caller (same uid)
			       * can open its /proc/PID/ns/ to join the sandbox's namespaces; the
			       * command can then also reach it through /proc */
	bool new_session;     /* setsid(): the command cannot reach the caller's terminal */
	bool ctty;	      /* with new_session and redirect_stdio: stdin (a terminal the door
			       * made) becomes the command's controlling terminal */
	bool console;	      /* with new_session: a pseudo-terminal of the sandbox's own devpts
			       * (its /dev/ptmx) is made once the root is built, its master sent
			       * on console_fd, its peer the command's 0, 1, 2 and terminal */
	int console_fd;	      /* with console: a connected unix socket (the door's, closed by
			       * the child once it sent the master) */
	unsigned short console_rows, console_cols; /* with console: its size; 0: the default */
	bool idmap_root;      /* a user namespace corral added for root's container: the command's
			       * ids are host_uid and host_gid on the host (not the caller's), and the
			       * bind at / is idmapped so that its owner's files are the command's */
	bool harden_proc;     /* /proc/sys, /proc/sysrq-trigger... read-only wherever /proc shows */
	bool cwd_fallback;    /* cr_policy.cwd missing in the sandbox: $HOME, then / (no error) */
	char *argv0;	      /* the command's argv[0], when not argv[0] itself; NULL: argv[0] */
	struct cr_bpf_program *seccomp_programs; /* the caller's filters, installed in order after
						  * corral's own */
	size_t n_seccomp_programs;
	int block_fd;	      /* pid 1 waits for this to become readable (EOF) before the command */
	int ready_fd;	      /* pid 1 writes one byte to this and closes it once the sandbox is
			       * built, before it waits for block_fd (a container's create); -1 */
	int userns_block_fd;  /* the parent waits for it after the id maps, before the sync; -1 */
	int userns_fd;	      /* a user namespace to make the sandbox in (setns), or -1 */
	int pidns_fd;	      /* a pid namespace to start the sandbox in (setns), or -1 */
	int userns2_fd;	      /* a user namespace pid 1 enters once the root is built, or -1 */
	unsigned joins;	      /* enum cr_ns_bit: the network, IPC, UTS and cgroup namespaces the
			       * sandbox is made in (setns to join_fds[bit's index]) rather than
			       * made new or shared with the caller: a pod's (0: none) */
	int join_fds[6];
	bool join_mnt;	      /* once its root is built, the sandbox's first process enters the
			       * mount namespace open at mntns_fd (joined by path) and chroots to a
			       * detached clone of that root: the joined namespace's mount table and
			       * its processes' roots stay as they were */
	int mntns_fd;
	unsigned long root_propagation; /* the new root's, set once it is /: MS_SHARED, MS_SLAVE,
					 * MS_PRIVATE or MS_UNBINDABLE, MS_REC for those under
					 * it; 0: private, as every mount of the sandbox is made
					 * (stage_mount_ns()) */
	char **lock_files;    /* paths inside the sandbox its init holds a read lock on while it
			       * lives, NULL-terminated; NULL: none */
};

struct cr_policy {
	char *workspace; /* absolute, canonical, an existing directory; writable unless workspace_ro */
	bool workspace_ro; /* the workspace is shown read-only (profile strict) */
	char *cwd;	 /* working directory of the command inside the sandbox */
	char *home;	 /* $HOME inside the sandbox: an empty private directory unless bound */
	struct cr_path_rule *paths;
	size_t n_paths;
	char **pins; /* directories already writable inside the workspace or a --rw path, each bound
		      * onto itself so that the command cannot move it: the way to corral's own
		      * files (cr_policy_guard(), anchor.h); canonical */
	size_t n_pins;
	struct cr_cache *caches; /* mounted after the paths, each at its own depth among them */
	size_t n_caches;
	char **unreadable;  /* root's run: read-only paths the sandbox's uid may not read (their
			     * mode and owner), for the warning and the status; NULL or
			     * NULL-terminated */
	char **path_hidden; /* the entries of the caller's PATH left out of the sandbox's PATH
			     * (env.h), for the warning and the status; NULL-terminated or NULL */
	enum cr_net_mode net;
	char **allow_hosts; /* with CR_NET_HOSTS: host names and "*.domain" patterns, lower case
			     * (see cr_host_pattern_check()); NULL-terminated; NULL otherwise */
	size_t n_allow_hosts;
	enum cr_landlock_mode landlock;
	int landlock_min_abi;		   /* --landlock-min-abi; 0: none */
	struct cr_port_range *tcp_connect; /* --tcp-connect; NULL: connect is not restricted */
	size_t n_tcp_connect;
	struct cr_port_range *tcp_bind;	   /* --tcp-bind; NULL: bind is not restricted */
	size_t n_tcp_bind;
	bool allow_degraded; /* without user namespaces, run under Landlock without them */
	bool map_root;	/* the command sees itself as uid/gid 0 (still unprivileged on the host) */
	uint32_t uid;	/* host ids the sandbox runs as when corral itself runs as root */
	uint32_t gid;
	char *hostname;
	char **env;	/* the command's whole environment, KEY=VALUE, NULL-terminated; holds the
			 * values of environment secrets: wiped when freed */
	struct cr_secret *secrets; /* every secret's name; a file secret's value */
	size_t n_secrets;
	int stdio[3];	/* with redirect_stdio: descriptors that become the command's 0, 1, 2 */
	bool redirect_stdio; /* else the command gets corral's own 0, 1, 2 */
	int *keep_fds;	/* descriptors passed through; every other one above 2 is closed */
	size_t n_keep_fds;
	uint64_t timeout_ms;	/* 0: none */
	uint64_t kill_after_ms; /* grace between the polite stop and the forced one */
	enum cr_seccomp_mode seccomp;
	char *seccomp_profile;	/* canonical path of the profile, with CR_SECCOMP_PROFILE */
	bool no_spawn;		/* --spawn=no: the command cannot start processes (threads still) */
	bool ptrace;		/* --ptrace=sandbox: the filter leaves ptrace and process_vm_* to
				 * the pid namespace (the sandbox's own dumpable processes) */
	struct cr_limits limits; /* --memory, --pids, ...; pids defaults to CR_DEFAULT_PIDS */
	char **argv;		/* the command, NULL-terminated, argv[0] looked up in the sandbox PATH */
	struct cr_fs_op *fs_ops; /* with ex.on: the root, built in this order (fs-op.h) */
	size_t n_fs_ops;
	struct cr_explicit ex;
};

const char *cr_path_access_to_string(enum cr_path_access a);
const char *cr_net_mode_to_string(enum cr_net_mode m);
enum cr_net_mode cr_net_mode_from_string(const char *s);
const char *cr_seccomp_mode_to_string(enum cr_seccomp_mode m);
const char *cr_landlock_mode_to_string(enum cr_landlock_mode m);
enum cr_landlock_mode cr_landlock_mode_from_string(const char *s);
/* "default", "strict" or "off": the values --seccomp takes ("profile" is not one). */
enum cr_seccomp_mode cr_seccomp_mode_from_string(const char *s);

/* Wipe and free each entry's value, its name, then @s. Accepts NULL. */
void cr_secrets_free(struct cr_secret *s, size_t n);

/* Free everything the policy owns and zero it. Accepts an already-empty policy. */
void cr_policy_done(struct cr_policy *p);
