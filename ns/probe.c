/* SPDX-License-Identifier: MIT */
/* `corral doctor` for Linux: what this host lets corral enforce, and how to fix what it does not. */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launcher/base/log.h"
#include "cgroup/probe.h"
#include "landlock/landlock.h"
#include "launcher/base/macro.h"
#include "ns.h"
#include "seccomp/seccomp.h"

static struct cr_check *add(struct cr_probe *p, const char *name, enum cr_check_state state,
			    bool required, const char *value)
{
	struct cr_check *c = &p->checks[p->n_checks++];

	*c = (struct cr_check){ .state = state, .required = required };
	(void)strlcpy(c->name, name, sizeof(c->name));
	(void)strlcpy(c->value, value, sizeof(c->value));
	return c;
}

static int read_int(const char *path)
{
	char buf[32] = "";
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		(void)close(fd);
	return n > 0 ? atoi(buf) : -1;
}

/* try_namespaces()'s child exits with this when it cannot make its mounts private: above every
 * status the /proc step exits with (an errno, masked to 7 bits), so the two cannot be confused. */
#define PRIVATE_FAILED 200

/* Try what `corral run` does first: all the namespaces in one clone, then a fresh /proc. Returns
 * 0, or the positive errno of the step that failed, with @ret_step naming it. */
static int try_namespaces(const char **ret_step)
{
	unsigned long flags = cr_ns_clone_flags(CR_NET_NONE);
	int status;
	pid_t pid;

	pid = (pid_t)syscall(SYS_clone, flags | SIGCHLD, NULL, NULL, NULL, 0);
	if (pid < 0) {
		*ret_step = "clone";
		return errno;
	}
	if (pid == 0) {
		if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
			_exit(PRIVATE_FAILED);
		if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
			_exit(errno & 0x7f);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status)) {
		*ret_step = "clone";
		return ECHILD;
	}
	*ret_step = "proc";
	return WEXITSTATUS(status) == PRIVATE_FAILED ? EPERM : WEXITSTATUS(status);
}

static void check_userns(struct cr_probe *p)
{
	const char *step = "clone";
	int err = try_namespaces(&step);
	struct cr_check *c;

	if (err == 0) {
		c = add(p, "user_namespaces", CR_CHECK_OK, true, "yes");
		cr_say(c->detail, sizeof(c->detail),
		       "user, mount, pid, net, ipc, uts and cgroup namespaces can be created, and a fresh /proc mounted");
		return;
	}
	c = add(p, "user_namespaces", CR_CHECK_MISSING, true, "no");
	if (strcmp(step, "proc") == 0) {
		cr_say(c->detail, sizeof(c->detail),
		       "namespaces work, but a fresh /proc cannot be mounted (%s): /proc is partly covered, as in most containers",
		       strerror(err));
		cr_say(c->fix, sizeof(c->fix),
		       "run corral on the host or in a container started with an unmasked /proc (e.g. docker --security-opt systempaths=unconfined)");
		return;
	}
	cr_say(c->detail, sizeof(c->detail), "clone(CLONE_NEWUSER|...) failed: %s%s", strerror(err),
	       cr_landlock_abi() > 0
		       ? "; until that is fixed, corral run --allow-degraded runs commands under Landlock without namespaces, with less isolation (corral(1), DEGRADED MODE)"
		       : "");
	cr_ns_userns_fix(c->fix, sizeof(c->fix));
}

void cr_ns_userns_fix(char *buf, size_t size)
{
	if (read_int("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") == 1)
		cr_say(buf, size,
		       "AppArmor restricts unprivileged user namespaces (Ubuntu 23.10+): add an AppArmor profile for corral with 'userns,' or set sysctl kernel.apparmor_restrict_unprivileged_userns=0");
	else if (read_int("/proc/sys/kernel/unprivileged_userns_clone") == 0)
		cr_say(buf, size, "set sysctl kernel.unprivileged_userns_clone=1");
	else if (read_int("/proc/sys/user/max_user_namespaces") == 0)
		cr_say(buf, size, "set sysctl user.max_user_namespaces=15000 (it is 0)");
	else
		cr_say(buf, size,
		       "the kernel or a container runtime (its seccomp profile) forbids namespaces: run on the host, or allow clone/unshare in the container");
}

static void check_mount_api(struct cr_probe *p)
{
	struct utsname u;
	struct cr_check *c;
	bool ok;

	/* An invalid descriptor gets EBADF where the call exists, ENOSYS where it does not. */
	ok = !(mount_setattr(-1, "", 0, NULL, 0) < 0 && errno == ENOSYS);
	(void)uname(&u);
	c = add(p, "mount_api", ok ? CR_CHECK_OK : CR_CHECK_MISSING, true, u.release);
	cr_say(c->detail, sizeof(c->detail), ok ? "open_tree/mount_setattr/move_mount available"
					       : "kernel %s lacks mount_setattr (Linux 5.12+)",
	       u.release);
	if (!ok)
		cr_say(c->fix, sizeof(c->fix), "upgrade to Linux 5.12 or newer");
}

static void check_landlock(struct cr_probe *p)
{
	int abi = cr_landlock_abi();
	char v[16], lacking[384];
	struct cr_check *c;

	(void)snprintf(v, sizeof(v), "%d", abi);
	cr_landlock_lacking_text(abi, CR_LANDLOCK_ABI_MAX, lacking, sizeof(lacking));
	/* Below ABI 6 what is lacking is access control; at 6, only the logging of denials. */
	c = add(p, "landlock", abi >= 6 ? CR_CHECK_OK : abi > 0 ? CR_CHECK_DEGRADED : CR_CHECK_MISSING,
		false, v);
	if (abi >= CR_LANDLOCK_ABI_MAX) {
		cr_say(c->detail, sizeof(c->detail),
		       "Landlock ABI %d: corral run enforces its whole ruleset (filesystem, TCP ports, abstract unix socket and signal scopes, logging of denials); --allow-degraded can run commands under it where namespaces are unavailable",
		       abi);
		return;
	}
	if (abi > 0) {
		cr_say(c->detail, sizeof(c->detail),
		       "Landlock ABI %d: corral run enforces a ruleset, but this kernel lacks %s; these are dropped and listed in enforced.landlock.dropped (--landlock=required refuses to run without them)",
		       abi, lacking);
		cr_say(c->fix, sizeof(c->fix), "upgrade to Linux 6.15 or newer for Landlock ABI %d",
		       CR_LANDLOCK_ABI_MAX);
		return;
	}
	cr_say(c->detail, sizeof(c->detail),
	       "Landlock is not available in this kernel: corral run goes without it (--landlock=required and --allow-degraded refuse to run)");
	cr_say(c->fix, sizeof(c->fix),
	       "use a kernel built with CONFIG_SECURITY_LANDLOCK=y and add landlock to the lsm= boot parameter");
}

static void check_seccomp(struct cr_probe *p)
{
	bool ok = cr_seccomp_available();
	size_t n = cr_seccomp_builtin_syscalls("default");
	struct cr_check *c;

	c = add(p, "seccomp", !ok ? CR_CHECK_MISSING : n ? CR_CHECK_OK : CR_CHECK_DEGRADED, false,
		!ok ? "no" : n ? "default" : "profile only");
	if (!ok) {
		cr_say(c->detail, sizeof(c->detail),
		       "the kernel cannot install seccomp filters: corral run fails unless given --seccomp=off");
		cr_say(c->fix, sizeof(c->fix),
		       "use a kernel built with CONFIG_SECCOMP_FILTER=y, or run with --seccomp=off");
	} else if (n) {
		cr_say(c->detail, sizeof(c->detail),
		       "corral run installs the default seccomp profile: %zu syscalls refused (EPERM) on this architecture, and every syscall of another ABI (i386, x32, arm32)",
		       n);
	} else {
		cr_say(c->detail, sizeof(c->detail),
		       "seccomp filters can be installed, but corral has no built-in program for this architecture: corral run needs --seccomp-profile FILE or --seccomp=off");
		cr_say(c->fix, sizeof(c->fix), "write a profile and pass --seccomp-profile FILE");
	}
}

static void check_cgroup(struct cr_probe *p)
{
	struct cr_cgroup_info info;
	struct cr_check *c;

	cr_cgroup_probe(&info);
	c = add(p, "cgroup", info.layout == CR_CGROUP_V2 && info.v2_writable ? CR_CHECK_OK
			     : info.layout == CR_CGROUP_NONE			  ? CR_CHECK_MISSING
										  : CR_CHECK_DEGRADED,
		false, cr_cgroup_layout_to_string(info.layout));
	cr_say(c->detail, sizeof(c->detail),
	       "cgroup layout %s; cgroup2 controllers: [%s]; own cgroup2 directory %s; v1 memory %s, v1 pids %s; the limit_* lines say how each limit is enforced",
	       cr_cgroup_layout_to_string(info.layout), info.v2_controllers,
	       info.v2_writable ? "writable" : "not writable", info.v1_memory ? "yes" : "no",
	       info.v1_pids ? "yes" : "no");
	if (info.layout != CR_CGROUP_V2)
		cr_say(c->fix, sizeof(c->fix),
		       "boot with systemd.unified_cgroup_hierarchy=1 for a pure cgroup v2 host");
	else if (!info.v2_writable)
		cr_say(c->fix, sizeof(c->fix),
		       "run inside a delegated cgroup, e.g. systemd-run --user --scope -p Delegate=yes corral ...");
}

/* One line per resource limit: the mode `corral run` would enforce it with here. */
static void check_limits(struct cr_probe *p)
{
	enum cr_limit_mode modes[_CR_LIMIT_MAX];
	char detail[512], name[32];

	cr_cgroup_probe_modes(modes, detail, sizeof(detail));
	for (int l = 0; l < _CR_LIMIT_MAX && p->n_checks < CR_PROBE_MAX_CHECKS - 1; l++) {
		bool cg = modes[l] == CR_LIMIT_MODE_CGROUP2 || modes[l] == CR_LIMIT_MODE_CGROUP1;
		struct cr_check *c;

		(void)snprintf(name, sizeof(name), "limit_%s", cr_limit_to_string(l));
		c = add(p, name, cg || l >= CR_LIMIT_CPU_TIME ? CR_CHECK_OK
				 : modes[l] == CR_LIMIT_MODE_RLIMIT ? CR_CHECK_DEGRADED
								     : CR_CHECK_MISSING,
			false, cr_limit_mode_to_string(modes[l]));
		cr_say(c->detail, sizeof(c->detail), "%s is enforced with %s here; %s",
		       cr_limit_option(l), cr_limit_mode_to_string(modes[l]), detail);
		if (!cg && l < CR_LIMIT_CPU_TIME)
			cr_say(c->fix, sizeof(c->fix),
			       "run corral as root, or inside a delegated cgroup2 subtree with this controller (systemd-run --user --scope -p Delegate=yes corral ...)");
	}
}

/* How a user with no usable delegated cgroup gets one: for an interactive shell, for what runs
 * without a login (services, cron, CI runners), and in a CI container. */
static void delegation_fix(char *buf, size_t size)
{
	const struct passwd *pw = getpwuid(geteuid());

	cr_say(buf, size,
	       "run corral in a delegated cgroup of its own: systemd-run --user --scope -p Delegate=yes corral ...; without a login session (a service, cron, a CI runner): loginctl enable-linger %s first, or Delegate=yes in the unit that starts corral; in a CI container: run the job as root, or give it a delegated cgroup",
	       pw ? pw->pw_name : "USER");
}

/* Whether the calling user's --memory, --pids and --cpu can use a delegated cgroup2 subtree,
 * and how to get one when they cannot. */
static void check_delegation(struct cr_probe *p)
{
	struct cr_cgroup_delegation_info d;
	struct cr_check *c;

	cr_cgroup_probe_delegation(&d);
	c = add(p, "cgroup_delegation",
		d.state == CR_DELEGATION_ROOT || d.state == CR_DELEGATION_OK ? CR_CHECK_OK
		: d.state == CR_DELEGATION_NONE				      ? CR_CHECK_MISSING
									      : CR_CHECK_DEGRADED,
		false, cr_cgroup_delegation_to_string(d.state));
	switch (d.state) {
	case CR_DELEGATION_ROOT:
		cr_say(c->detail, sizeof(c->detail),
		       "corral runs as root: its runs' cgroups go in %s, no delegation is needed",
		       d.base[0] ? d.base : "the cgroup v1 hierarchies");
		return;
	case CR_DELEGATION_OK:
		cr_say(c->detail, sizeof(c->detail),
		       "uid %u has a delegated cgroup2 subtree: --memory, --pids and --cpu are enforced by cgroup v2 in %s",
		       geteuid(), d.base);
		return;
	case CR_DELEGATION_PARTIAL:
		cr_say(c->detail, sizeof(c->detail),
		       "uid %u has a delegated cgroup2 subtree, %s, but it cannot hand out [%s]; it can: [%s]",
		       geteuid(), d.base, d.missing, d.controllers);
		cr_say(c->fix, sizeof(c->fix),
		       "the delegating unit must hand them out: Delegate=yes on it, or for user@%u.service a drop-in (systemctl edit user@%u.service, as root) with [Service] Delegate=cpu memory pids, then log in again",
		       geteuid(), geteuid());
		return;
	case CR_DELEGATION_SHARED:
		cr_say(c->detail, sizeof(c->detail),
		       "uid %u's cgroup2 directory %s is delegated, but other processes are in it and its parent cannot take corral's runs",
		       geteuid(), d.base);
		break;
	case CR_DELEGATION_NONE:
	default:
		cr_say(c->detail, sizeof(c->detail),
		       "uid %u has no delegated cgroup2 subtree (%s%s): --memory and --pids fall back to cgroup v1 where it is writable, else to rlimits, and --cpu to a CPU affinity alone, without a quota",
		       geteuid(), d.base[0] ? d.base : "no cgroup2 mounted",
		       d.base[0] ? " is not writable" : "");
		break;
	}
	delegation_fix(c->fix, sizeof(c->fix));
}

static void check_backends(struct cr_probe *p)
{
	struct cr_check *c = add(p, "backend", CR_CHECK_OK, true, "linux");

	cr_say(c->detail, sizeof(c->detail),
	       "native driver: linux; the macos, windows and wsl drivers are built only on their hosts");
}

int cr_ns_probe(struct cr_probe *ret)
{
	struct cr_probe p = {};

	check_backends(&p);
	check_userns(&p);
	check_mount_api(&p);
	check_landlock(&p);
	check_seccomp(&p);
	check_cgroup(&p);
	check_limits(&p);
	check_delegation(&p);
	*ret = p;
	return 0;
}
