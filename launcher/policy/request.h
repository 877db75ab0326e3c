/* SPDX-License-Identifier: MIT */
/* A request for a run: what a door (the `corral run` options, a `corral serve` session) asks of
 * the policy, before cr_policy_build() resolves it. Doors fill it; the policy layer reads it. */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "policy.h"

struct cr_cli_path {
	const char *path; /* as given; resolved later by cr_policy_build() */
	enum cr_path_access access;
};

enum cr_grant_scope {
	CR_GRANT_NONE,
	CR_GRANT_ONCE,	  /* --grant once: this run only */
	CR_GRANT_SESSION, /* --grant session: this run, and later runs of the session */
	_CR_GRANT_MAX,
	_CR_GRANT_INVALID = -EINVAL,
};

/* `corral run` as the user wrote it. Strings point into argv. */
struct cr_run_options {
	const char *profile;	 /* --profile NAME|FILE; NULL: CR_DEFAULT_PROFILE */
	const char *session;	 /* --session ID */
	enum cr_grant_scope grant; /* --grant */
	const char *audit;	 /* --audit FILE */
	bool no_audit;		 /* --no-audit */
	const char **allow_hosts; /* --allow-host, every one given */
	size_t n_allow_hosts;
	const char *workspace;
	const char *cwd;
	const char *hostname;
	const char *json_status; /* FILE or fd:N */
	struct cr_cli_path *paths;
	size_t n_paths;
	const char **caches; /* --cache NAME=PATH, as given (the name checked by the parser) */
	size_t n_caches;
	const char **setenv; /* K=V */
	size_t n_setenv;
	const char **keep_env;
	size_t n_keep_env;
	const char **secrets;	   /* --secret NAME=FILE, as given (checked by the parser) */
	size_t n_secrets;
	const char **secret_files; /* --secret-file NAME=FILE */
	size_t n_secret_files;
	const char **env_files;	   /* --env-file FILE */
	size_t n_env_files;
	int *keep_fds;
	size_t n_keep_fds;
	enum cr_net_mode net;
	bool net_set;			   /* --net or --allow-host given */
	enum cr_landlock_mode landlock;	   /* --landlock */
	bool landlock_set;
	int landlock_min_abi;		   /* --landlock-min-abi; 0: none */
	struct cr_port_range *tcp_connect; /* --tcp-connect, every one given */
	size_t n_tcp_connect;
	struct cr_port_range *tcp_bind;	   /* --tcp-bind, every one given */
	size_t n_tcp_bind;
	bool allow_degraded;
	bool map_root;
	bool uid_set, gid_set;
	uint32_t uid, gid;
	uint64_t timeout_ms;	/* 0: none */
	uint64_t kill_after_ms;
	enum cr_seccomp_mode seccomp; /* --seccomp: default, strict or off */
	bool seccomp_set;
	const char *seccomp_profile;  /* --seccomp-profile FILE */
	bool ptrace;		      /* --ptrace=sandbox */
	bool ptrace_set;	      /* --ptrace given */
	bool no_spawn;		      /* --spawn=no */
	bool spawn_set;		      /* --spawn given */
	struct cr_limits limits; /* --memory ... --open-files, --limits */
	bool limits_mode_set;	 /* --limits given */
	const char *pool; /* --pool: "auto", "require" or "never"; NULL: CORRAL_POOL, else auto */
	int verbose;
	bool help;
	char **argv; /* the command; NULL-terminated; NULL when help was asked for */
};

#define CR_DEFAULT_SANDBOX_ID	     65534u
#define CR_DEFAULT_KILL_AFTER_MS     2000u
#define CR_DEFAULT_HOSTNAME	     "corral"
/* Longest --timeout / --kill-after: a year. Keeps every deadline far from integer overflow. */
#define CR_MAX_WAIT_MS		     (366ull * 24 * 3600 * 1000)

/* Free what a door allocated in @opts (not the strings, which are argv's); accepts zeroes. */
void cr_run_options_done(struct cr_run_options *opts);

/* "none", "once", "session"; NULL if out of range. */
const char *cr_grant_scope_to_string(enum cr_grant_scope g);
