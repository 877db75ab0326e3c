/* SPDX-License-Identifier: MIT */
/* The built-in profiles, as INI text parsed by the same parser as a user's file (profile.c), so
 * that `corral profile show NAME --ini` prints exactly what is in force and a user can start a
 * profile of their own from it. Every built-in keeps seccomp on and never shows the host root. */
#include <string.h>

#include "profile-builtin.h"

/* Package and build caches, shown writable when they exist: a build reuses what it downloaded
 * or compiled before instead of failing (no network) or starting over. */
#define CACHES                                                                                     \
	"write_if_exists = ~/.cache\n"                                                             \
	"write_if_exists = ~/.cargo/registry\n"                                                    \
	"write_if_exists = ~/.cargo/git\n"                                                         \
	"write_if_exists = ~/.npm\n"                                                               \
	"write_if_exists = ~/.m2/repository\n"                                                     \
	"write_if_exists = ~/.gradle/caches\n"                                                     \
	"write_if_exists = ~/go/pkg/mod\n"                                                         \
	"write_if_exists = ~/.ccache\n"

/* ci's build caches: directories corral keeps for the user (STATE/caches/NAME) rather than the
 * user's own, which as root are root's and closed to the sandbox's uid; made when missing, so a
 * second run always finds the first one's downloads and objects. */
#define CI_CACHES                                                                                  \
	"cache = npm:~/.npm\n"                                                                     \
	"cache = pip:~/.cache/pip\n"                                                               \
	"cache = cargo-registry:~/.cargo/registry\n"                                               \
	"cache = cargo-git:~/.cargo/git\n"                                                         \
	"cache = go-mod:~/go/pkg/mod\n"                                                            \
	"cache = go-build:~/.cache/go-build\n"                                                     \
	"cache = ccache:~/.cache/ccache\n"                                                         \
	"cache = maven:~/.m2/repository\n"                                                         \
	"cache = gradle:~/.gradle/caches\n"

/* ci's toolchains and configuration in HOME, read-only, without the credentials kept beside
 * them: cargo's bin (not ~/.cargo, which holds credentials.toml, nor its config.toml, which may
 * hold a registry token), rustup's toolchains, pyenv, nvm, git's configuration (not its
 * credential store). ~/.npmrc stays out: it holds tokens. */
#define CI_HOME_TOOLS                                                                              \
	"read_if_exists = ~/.gitconfig\n"                                                          \
	"read_if_exists = ~/.config/git\n"                                                         \
	"hide = ~/.config/git/credentials\n"                                                       \
	"read_if_exists = ~/.cargo/bin\n"                                                          \
	"read_if_exists = ~/.rustup\n"                                                             \
	"read_if_exists = ~/.pyenv\n"                                                              \
	"read_if_exists = ~/.nvm\n"                                                                \
	"read_if_exists = ~/.local/bin\n"

static const char strict_text[] =
	"# corral built-in profile: strict\n"
	"[profile]\n"
	"description = The command runs alone: workspace read-only, no network, no child processes, strict seccomp\n"
	"\n"
	"[filesystem]\n"
	"workspace = ro\n"
	"\n"
	"[network]\n"
	"mode = none\n"
	"\n"
	"[process]\n"
	"spawn = no\n"
	"\n"
	"[security]\n"
	"seccomp = strict\n"
	"landlock = best-effort\n"
	"\n"
	"[commands]\n"
	"safe = allow\n"
	"caution = ask\n"
	"unknown = ask\n"
	"dangerous = deny\n";

static const char workspace_text[] =
	"# corral built-in profile: workspace (the default)\n"
	"[profile]\n"
	"description = The default: workspace read-write, the system read-only, no network\n"
	"\n"
	"[filesystem]\n"
	"workspace = rw\n"
	"\n"
	"[network]\n"
	"mode = none\n"
	"\n"
	"[process]\n"
	"spawn = yes\n"
	"\n"
	"[security]\n"
	"seccomp = default\n"
	"landlock = best-effort\n"
	"\n"
	"[commands]\n"
	"safe = allow\n"
	"caution = allow\n"
	"unknown = allow\n"
	"dangerous = ask\n";

static const char ci_text[] =
	"# corral built-in profile: ci\n"
	"[profile]\n"
	"description = Builds and tests: workspace and build caches writable, no network, limits that must be enforced\n"
	"\n"
	"[filesystem]\n"
	"workspace = rw\n"
	"# Build caches corral keeps across runs (STATE/caches/NAME), writable as root and as a user\n"
	CI_CACHES
	"# Toolchains and configuration in HOME, read-only; their PATH entries are kept\n"
	CI_HOME_TOOLS
	"# The package managers' databases, read-only, for dpkg -l, apt-cache policy, rpm -q:\n"
	"# nothing secret is there (no keys, no logs)\n"
	"read_if_exists = /var/lib/dpkg\n"
	"read_if_exists = /var/lib/apt/lists\n"
	"read_if_exists = /var/cache/apt/pkgcache.bin\n"
	"read_if_exists = /var/cache/apt/srcpkgcache.bin\n"
	"read_if_exists = /var/lib/rpm\n"
	"\n"
	"[network]\n"
	"mode = none\n"
	"\n"
	"[process]\n"
	"spawn = yes\n"
	"# The caller's PATH, less the directories the sandbox does not show (each one named)\n"
	"path = inherit\n"
	"\n"
	"[limits]\n"
	"pids = 1024\n"
	"memory = 4G\n"
	"timeout = 3600\n"
	"enforce = required\n"
	"\n"
	"[security]\n"
	"seccomp = default\n"
	"landlock = best-effort\n"
	"# gdb, strace and LeakSanitizer (every ASan test's exit) trace the sandbox's own\n"
	"# processes; pid 1 and the host stay out of reach.\n"
	"ptrace = sandbox\n"
	"\n"
	"[commands]\n"
	"safe = allow\n"
	"caution = allow\n"
	"unknown = allow\n"
	"dangerous = deny\n";

static const char power_user_text[] =
	"# corral built-in profile: power_user\n"
	"[profile]\n"
	"description = Development: workspace and package caches writable, network only to code hosts and package registries\n"
	"\n"
	"[filesystem]\n"
	"workspace = rw\n" CACHES
	"write_if_exists = ~/.local/share/pnpm\n"
	"\n"
	"[network]\n"
	"mode = allow_hosts\n"
	"# HTTPS, and ssh (through the proxy's CONNECT) to the two git hosts; Debian's mirrors\n"
	"# serve plain HTTP too.\n"
	"allow_host = github.com:443\n"
	"allow_host = github.com:22\n"
	"allow_host = *.github.com:443\n"
	"allow_host = *.githubusercontent.com:443\n"
	"allow_host = gitlab.com:443\n"
	"allow_host = gitlab.com:22\n"
	"allow_host = pypi.org:443\n"
	"allow_host = files.pythonhosted.org:443\n"
	"allow_host = registry.npmjs.org:443\n"
	"allow_host = registry.yarnpkg.com:443\n"
	"allow_host = crates.io:443\n"
	"allow_host = index.crates.io:443\n"
	"allow_host = static.crates.io:443\n"
	"allow_host = proxy.golang.org:443\n"
	"allow_host = sum.golang.org:443\n"
	"allow_host = deb.debian.org:80\n"
	"allow_host = deb.debian.org:443\n"
	"allow_host = security.debian.org:80\n"
	"allow_host = security.debian.org:443\n"
	"\n"
	"[process]\n"
	"spawn = yes\n"
	"\n"
	"[security]\n"
	"seccomp = default\n"
	"landlock = best-effort\n"
	"\n"
	"[commands]\n"
	"safe = allow\n"
	"caution = allow\n"
	"unknown = allow\n"
	"dangerous = ask\n";

static const char autonomous_text[] =
	"# corral built-in profile: autonomous\n"
	"[profile]\n"
	"description = Unattended agents: workspace and caches writable, the whole network; never the host root, seccomp on\n"
	"\n"
	"[filesystem]\n"
	"workspace = rw\n" CACHES
	"\n"
	"[network]\n"
	"mode = all\n"
	"\n"
	"[process]\n"
	"spawn = yes\n"
	"\n"
	"[security]\n"
	"seccomp = default\n"
	"landlock = best-effort\n"
	"\n"
	"[commands]\n"
	"safe = allow\n"
	"caution = allow\n"
	"unknown = allow\n"
	"dangerous = deny\n";

const char *const cr_profile_builtin_names[] = {
	"strict", "workspace", "ci", "power_user", "autonomous", NULL,
};

/* In the order of cr_profile_builtin_names. */
static const char *const builtin_texts[] = {
	strict_text, workspace_text, ci_text, power_user_text, autonomous_text,
};

const char *cr_profile_builtin_text(const char *name)
{
	for (size_t i = 0; name && cr_profile_builtin_names[i]; i++)
		if (strcmp(name, cr_profile_builtin_names[i]) == 0)
			return builtin_texts[i];
	return NULL;
}
