/* SPDX-License-Identifier: MIT */
/* Unit tests for launcher/profile*.c: the INI format and its errors, the built-ins, finding
 * profiles (search order, file checks), resolving them against a workspace, and the command. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "launcher/policy/profile-builtin.h"
#include "launcher/policy/profile-find.h"
#include "launcher/policy/profile-internal.h"
#include "launcher/policy/profile-resolve.h"
#include "launcher/policy/profile.h"
#include "launcher/cmd/profile-cmd.h"

/* A scratch tree, canonical, made fresh for every test:
 *   base/ws/  base/ws/sub/  base/home/  base/home/.cache/  base/home/file  base/user/
 *   base/system/ */
struct fixture {
	char base[PATH_MAX];
	char ws[PATH_MAX];
	char home[PATH_MAX];
	char user[PATH_MAX];
	char system[PATH_MAX];
	struct cr_profile_dirs dirs;
	char *saved_cwd;
};

static char msg[1024];

static void join(char *dst, const char *a, const char *b)
{
	int n = snprintf(dst, PATH_MAX, "%s/%s", a, b);

	assert_true(n > 0 && n < PATH_MAX);
}

static void write_file(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	size_t n = strlen(text);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, n), (ssize_t)n);
	assert_int_equal(fchmod(fd, mode), 0);
	assert_int_equal(close(fd), 0);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	char tmpl[] = "/tmp/corral-unit-profile.XXXXXX";
	char p[PATH_MAX];

	if (!f || !mkdtemp(tmpl) || !realpath(tmpl, f->base))
		return -1;
	join(f->ws, f->base, "ws");
	join(f->home, f->base, "home");
	join(f->user, f->base, "user");
	join(f->system, f->base, "system");
	if (mkdir(f->ws, 0755) < 0 || mkdir(f->home, 0755) < 0 || mkdir(f->user, 0755) < 0 ||
	    mkdir(f->system, 0755) < 0)
		return -1;
	join(p, f->ws, "sub");
	if (mkdir(p, 0755) < 0)
		return -1;
	join(p, f->home, ".cache");
	if (mkdir(p, 0755) < 0)
		return -1;
	join(p, f->home, "file");
	write_file(p, "x", 0644);
	f->dirs = (struct cr_profile_dirs){ .home = f->home, .user_dir = f->user,
					    .system_dir = f->system };
	f->saved_cwd = getcwd(NULL, 0);
	if (!f->saved_cwd)
		return -1;
	*state = f;
	return 0;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	if (f->saved_cwd && chdir(f->saved_cwd) < 0)
		return -1;
	(void)nftw(f->base, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(f->saved_cwd);
	free(f);
	return 0;
}

static int parse(const struct fixture *f, const char *text, struct cr_profile *ret)
{
	msg[0] = '\0';
	return cr_profile_parse(text, strlen(text), "t", "test.ini", &f->dirs, ret, msg,
				sizeof(msg));
}

/* @text must fail with -EINVAL, "test.ini:LINE: " and @what in the message. */
static void expect_error_n(const struct fixture *f, const char *text, size_t size, unsigned line,
			   const char *what)
{
	struct cr_profile p = {};
	char prefix[64];

	msg[0] = '\0';
	assert_int_equal(cr_profile_parse(text, size, "t", "test.ini", &f->dirs, &p, msg,
					  sizeof(msg)),
			 -EINVAL);
	(void)snprintf(prefix, sizeof(prefix), "test.ini:%u: ", line);
	if (strncmp(msg, prefix, strlen(prefix)) != 0 || !strstr(msg, what))
		fail_msg("for %s: expected '%s...%s', got '%s'", text, prefix, what, msg);
	assert_null(p.name); /* untouched on failure */
}

static void expect_error(const struct fixture *f, const char *text, unsigned line,
			 const char *what)
{
	expect_error_n(f, text, strlen(text), line, what);
}

/* --- the format ----------------------------------------------------------------------------- */

static void defaults(void **state)
{
	struct fixture *f = *state;
	struct cr_profile p;

	assert_int_equal(parse(f, "# nothing but a comment\n", &p), 0);
	assert_string_equal(p.name, "t");
	assert_string_equal(p.source, "test.ini");
	assert_string_equal(p.description, "");
	assert_false(p.workspace_ro);
	assert_int_equal(p.n_read + p.n_write + p.n_hide + p.n_hosts, 0);
	assert_null(p.hosts);
	assert_int_equal(p.net, CR_NETCAP_NONE);
	assert_true(p.spawn);
	for (int l = 0; l < _CR_LIMIT_MAX; l++) {
		assert_false(p.limits.set[l]);
		assert_int_equal(p.limits.value[l], CR_LIMIT_UNSET);
	}
	assert_false(p.limits.required);
	assert_int_equal(p.timeout_ms, 0);
	assert_int_equal(p.seccomp, CR_SECCOMP_DEFAULT);
	assert_int_equal(p.landlock, CR_LANDLOCK_BEST_EFFORT);
	assert_int_equal(p.tier_rule[CR_RISK_SAFE], CR_COMMAND_ALLOW);
	assert_int_equal(p.tier_rule[CR_RISK_CAUTION], CR_COMMAND_ALLOW);
	assert_int_equal(p.tier_rule[CR_RISK_UNKNOWN], CR_COMMAND_ALLOW);
	assert_int_equal(p.tier_rule[CR_RISK_DANGEROUS], CR_COMMAND_ASK);
	assert_int_equal(p.n_allow_commands + p.n_allow_prefixes, 0);
	assert_null(p.allow_commands);
	assert_null(p.allow_prefixes);
	cr_profile_done(&p);
	assert_null(p.name);
}

static void every_key(void **state)
{
	struct fixture *f = *state;
	char text[2048], home_cache[PATH_MAX];
	struct cr_profile p;

	(void)snprintf(text, sizeof(text),
		       "; a full profile\r\n"
		       "[profile]\n"
		       "description = Everything ; an inline comment\n"
		       "[filesystem]\n"
		       "workspace = ro\n"
		       "read = /etc/ssl\n"
		       "write = ~/.cache\n"
		       "read_if_exists = ${WORKSPACE}/sub\n"
		       "write_if_exists = ${WORKSPACE}\n"
		       "hide = ~\n"
		       "read = /usr/share/a#b\n"
		       "[network]\n"
		       "mode = allow_hosts\n"
		       "allow_host = example.com\n"
		       "allow_host = *.Example.ORG\n"
		       "allow_host = example.com\n"
		       "allow_host = 10.0.0.1\n"
		       "[process]\n"
		       "spawn = false\n"
		       "[limits]\n"
		       "memory = 2G\n"
		       "memory_swap = max\n"
		       "pids = 100\n"
		       "cpu = 1.5\n"
		       "cpu_time = 60\n"
		       "file_size = 10M\n"
		       "open_files = 256\n"
		       "timeout = 1.25\n"
		       "enforce = required\n"
		       "[security]\n"
		       "seccomp = off\n"
		       "landlock = required\n"
		       "[commands]\n"
		       "safe = allow\n"
		       "caution = ask\n"
		       "unknown = deny\n"
		       "dangerous = deny ; nobody to ask\n"
		       "allow = git status\n"
		       "allow = make && make test\n"
		       "allow_prefix = git log\n"
		       "allow_prefix = ls\n");
	assert_int_equal(parse(f, text, &p), 0);
	assert_string_equal(p.description, "Everything");
	assert_true(p.workspace_ro);
	assert_int_equal(p.n_read, 3);
	assert_string_equal(p.read[0].path, "/etc/ssl");
	assert_int_equal(p.read[0].line, 6);
	assert_false(p.read[0].optional);
	assert_string_equal(p.read[1].path, "${WORKSPACE}/sub");
	assert_int_equal(p.read[1].line, 8);
	assert_true(p.read[1].optional);
	assert_string_equal(p.read[2].path, "/usr/share/a#b"); /* '#' starts no inline comment */
	assert_int_equal(p.n_write, 2);
	join(home_cache, f->home, ".cache");
	assert_string_equal(p.write[0].path, home_cache);
	assert_false(p.write[0].optional);
	assert_string_equal(p.write[1].path, "${WORKSPACE}");
	assert_true(p.write[1].optional);
	assert_int_equal(p.n_hide, 1);
	assert_string_equal(p.hide[0].path, f->home);
	assert_int_equal(p.hide[0].line, 10);
	assert_int_equal(p.net, CR_NETCAP_HOSTS);
	assert_int_equal(p.n_hosts, 3); /* lower-cased, the repeat dropped */
	assert_string_equal(p.hosts[0], "example.com");
	assert_string_equal(p.hosts[1], "*.example.org");
	assert_string_equal(p.hosts[2], "10.0.0.1");
	assert_null(p.hosts[3]);
	assert_false(p.spawn);
	assert_int_equal(p.limits.value[CR_LIMIT_MEMORY], 2ull << 30);
	assert_int_equal(p.limits.value[CR_LIMIT_MEMORY_SWAP], CR_LIMIT_INFINITY);
	assert_int_equal(p.limits.value[CR_LIMIT_PIDS], 100);
	assert_int_equal(p.limits.value[CR_LIMIT_CPU], 1500);
	assert_int_equal(p.limits.value[CR_LIMIT_CPU_TIME], 60);
	assert_int_equal(p.limits.value[CR_LIMIT_FILE_SIZE], 10ull << 20);
	assert_int_equal(p.limits.value[CR_LIMIT_OPEN_FILES], 256);
	for (int l = 0; l < _CR_LIMIT_MAX; l++)
		assert_true(p.limits.set[l]);
	assert_true(p.limits.required);
	assert_int_equal(p.timeout_ms, 1250);
	assert_int_equal(p.seccomp, CR_SECCOMP_OFF);
	assert_int_equal(p.landlock, CR_LANDLOCK_REQUIRED);
	assert_int_equal(p.tier_rule[CR_RISK_SAFE], CR_COMMAND_ALLOW);
	assert_int_equal(p.tier_rule[CR_RISK_CAUTION], CR_COMMAND_ASK);
	assert_int_equal(p.tier_rule[CR_RISK_UNKNOWN], CR_COMMAND_DENY);
	assert_int_equal(p.tier_rule[CR_RISK_DANGEROUS], CR_COMMAND_DENY);
	assert_int_equal(p.n_allow_commands, 2);
	assert_string_equal(p.allow_commands[0], "git status");
	assert_string_equal(p.allow_commands[1], "make && make test");
	assert_null(p.allow_commands[2]);
	assert_int_equal(p.n_allow_prefixes, 2);
	assert_string_equal(p.allow_prefixes[0], "git log");
	assert_string_equal(p.allow_prefixes[1], "ls");
	assert_null(p.allow_prefixes[2]);
	cr_profile_done(&p);
}

static void good_values(void **state)
{
	static const struct {
		const char *text;
	} cases[] = {
		{ "[filesystem]\nworkspace = rw\n" },
		{ "[network]\nmode = none\n" },
		{ "[network]\nmode = all\n" },
		{ "[process]\nspawn = yes\n" },
		{ "[process]\nspawn = true\n" },
		{ "[process]\nspawn = no\n" },
		{ "[limits]\nenforce = best-effort\n" },
		{ "[limits]\ntimeout = 31622400\n" },
		{ "[limits]\npids = max\n" },
		{ "[security]\nseccomp = strict\nlandlock = off\n" },
		{ "[security]\nseccomp = default\nlandlock = best-effort\n" },
		{ "\xef\xbb\xbf[profile]\ndescription = with a byte order mark\n" },
		{ "[network]   ; a comment after a section\nmode = none\n" },
		{ "[profile]\ndescription = tab\tinside\n" },
		{ "[profile]\n   \n\t; indented comment\n\n" },
	};
	struct fixture *f = *state;
	struct cr_profile p;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (parse(f, cases[i].text, &p) != 0)
			fail_msg("'%s' failed: %s", cases[i].text, msg);
		cr_profile_done(&p);
	}
}

static void bad_values(void **state)
{
	static const struct {
		const char *text;
		unsigned line;
		const char *what;
	} cases[] = {
		{ "[profile]\ndescription =\n", 2, "'description' has an empty value" },
		{ "[filesystem]\nworkspace = rx\n", 2, "expected rw or ro" },
		{ "[filesystem]\n\nread = etc\n", 3, "is relative" },
		{ "[filesystem]\nwrite = \"/tmp\"\n", 2, "is relative" },
		{ "[filesystem]\nread_if_exists = ./x\n", 2, "is relative" },
		{ "[filesystem]\nwrite_if_exists = x/y\n", 2, "is relative" },
		{ "[filesystem]\nhide = .ssh\n", 2, "is relative" },
		{ "[network]\nmode = some\n", 2, "expected none, allow_hosts or all" },
		{ "[network]\nmode = allow_hosts\nallow_host = exa mple.com\n", 3, "not a host pattern" },
		{ "[network]\nmode = allow_hosts\nallow_host = *\n", 3, "not a host pattern" },
		{ "[process]\nspawn = 1\n", 2, "expected yes or no" },
		{ "[process]\npath = caller\n", 2, "path = 'caller': expected standard or inherit" },
		{ "[filesystem]\ncache = npm=~/.npm\n", 2, "not of the form NAME:PATH" },
		{ "[filesystem]\ncache = ../../ledger:/x\n", 2, "cache name '../../ledger' is not usable" },
		{ "[filesystem]\n\ncache = npm:rel\n", 3, "not an absolute path" },
		{ "[filesystem]\ncache = npm:~/../x\n", 2, "not an absolute path" },
		{ "[filesystem]\ncache = dev:/dev/x\n", 2, "/proc and /dev" },
		{ "[limits]\nmemory = 2X\n", 2, "memory = '2X': expected bytes" },
		{ "[limits]\nmemory_swap = -1\n", 2, "memory_swap = '-1'" },
		{ "[limits]\npids = 0\n", 2, "pids = '0': out of range" },
		{ "[limits]\ncpu = fast\n", 2, "a number of CPUs" },
		{ "[limits]\ncpu_time = 1.5\n", 2, "a whole number" },
		{ "[limits]\nfile_size = 1Q\n", 2, "file_size" },
		{ "[limits]\nopen_files = lots\n", 2, "open_files" },
		{ "[limits]\ntimeout = 0\n", 2, "more than 0" },
		{ "[limits]\ntimeout = 31622401\n", 2, "at most 31622400" },
		{ "[limits]\ntimeout = 1s\n", 2, "expected seconds" },
		{ "[limits]\nenforce = strict\n", 2, "expected best-effort or required" },
		{ "[security]\nseccomp = profile\n", 2, "expected default, strict or off" },
		{ "[security]\nlandlock = on\n", 2, "expected best-effort, required or off" },
		{ "[commands]\nsafe = yes\n", 2, "safe = 'yes': expected allow, ask or deny" },
		{ "[commands]\ndangerous = Allow\n", 2, "expected allow, ask or deny" },
		{ "[commands]\ncaution = ask\ncaution = deny\n", 3, "'caution' is given twice" },
		{ "[commands]\nallow = echo \"unterminated\n", 2, "not a command line" },
		{ "[commands]\nallow = ls )\n", 2, "not a command line" },
		{ "[commands]\nallow_prefix = git $SUB\n", 2, "expected a command's first words" },
		{ "[commands]\nallow_prefix = git log | sh\n", 2, "expected a command's first words" },
		{ "[commands]\nallow_prefix = ls > out\n", 2, "expected a command's first words" },
		{ "[commands]\nallow_prefix = FOO=1 ls\n", 2, "expected a command's first words" },
		{ "[commands]\nallow_prefix = 'git' log\n", 2, "expected a command's first words" },
		{ "[commands]\nallow =\n", 2, "'allow' has an empty value" },
		{ "[commands]\nblock = rm\n", 2, "unknown key 'block' in [commands] (expected safe, caution" },
	};
	struct fixture *f = *state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		expect_error(f, cases[i].text, cases[i].line, cases[i].what);
}

static void structure_errors(void **state)
{
	struct fixture *f = *state;

	expect_error(f, "[profile]\n[netwrok]\nmode = all\n", 2, "unknown section [netwrok]");
	expect_error(f, "[empty]\n", 1, "unknown section [empty]"); /* even without keys */
	expect_error(f, "[]\n", 1, "unknown section []");
	expect_error(f, "[network] mode = all\n", 1, "unexpected text after the section's ']'");
	expect_error(f, "[network\n", 1, "needs its ']'");
	expect_error(f, "[network]\nmod = all\n", 2, "unknown key 'mod' in [network]");
	expect_error(f, "[limits]\nseccomp = off\n", 2, "unknown key 'seccomp' in [limits]");
	expect_error(f, "mode = all\n[network]\n", 1, "'mode' comes before any section");
	expect_error(f, "[network]\nmode = none\n\nmode = all\n", 4,
		     "'mode' is given twice; first on line 2");
	expect_error(f, "[limits]\npids = 1\n[limits]\npids = 2\n", 4,
		     "'pids' is given twice; first on line 2");
	expect_error(f, "[network]\nmode: all\n", 2, "expected KEY = VALUE");
	expect_error(f, "[network]\nmode = none\n  mode = all\n", 3, "indented");
	expect_error(f, "[network]\n  [process]\n", 2, "indented");
	expect_error(f, "[network]\njust words\n", 2, "syntax error");
	expect_error(f, "[network]\n= all\n", 2, "expected KEY = VALUE");
	/* The first error is the one reported. */
	expect_error(f, "[network]\nbad = 1\n[bogus]\n", 2, "unknown key 'bad'");
	expect_error(f, "[bogus]\nbad = 1\n", 1, "unknown section [bogus]");
}

static void raw_bytes(void **state)
{
	static const char nul[] = "[profile]\ndescription = a\0b\n[network]\n";
	struct fixture *f = *state;
	struct cr_profile p;
	char text[512];

	expect_error_n(f, nul, sizeof(nul) - 1, 2, "line 2 holds a NUL byte");
	expect_error(f, "[profile]\n\ndescription = a\033[31mred\n", 3,
		     "line 3 holds control character 0x1b");
	expect_error(f, "[profile]\ndescription = a\rb\n", 2, "control character 0x0d");
	expect_error(f, "[profile]\ndescription = \x7f\n", 2, "control character 0x7f");
	/* 197 bytes are fine, 198 are not (inih's buffer is 200 with "\r\n\0"). */
	(void)snprintf(text, sizeof(text), "[profile]\ndescription = %0183d\r\n", 0);
	assert_int_equal(strlen(strchr(text, '\n') + 1), 197 + 2);
	assert_int_equal(parse(f, text, &p), 0);
	cr_profile_done(&p);
	(void)snprintf(text, sizeof(text), "[profile]\ndescription = %0184d\n", 0);
	expect_error(f, text, 2, "line 2 is longer than 197 bytes");
	(void)snprintf(text, sizeof(text), "[profile]\n# %0300d\n", 0);
	expect_error(f, text, 2, "line 2 is longer than 197 bytes"); /* comments too */

	/* The text is @size bytes, not a C string: nothing past them is read (valgrind, ASan). */
	for (size_t i = 0; i < 3; i++) {
		static const char *const ends[] = { "[network]  ", "[network]\n  \t", "[network]\n;" };
		size_t n = strlen(ends[i]);
		char *exact = malloc(n);

		assert_non_null(exact);
		memcpy(exact, ends[i], n);
		assert_int_equal(cr_profile_parse(exact, n, "t", "test.ini", &f->dirs, &p, msg,
						  sizeof(msg)),
				 0);
		cr_profile_done(&p);
		free(exact);
	}
}

static void path_expansion(void **state)
{
	struct fixture *f = *state;
	struct cr_profile_dirs no_home = { .user_dir = f->user, .system_dir = f->system };
	struct cr_profile p;
	char want[PATH_MAX];

	assert_int_equal(parse(f, "[filesystem]\nread = ~\nwrite = ~/x/y\nhide = ${WORKSPACE}/.env\n",
			       &p),
			 0);
	assert_string_equal(p.read[0].path, f->home);
	join(want, f->home, "x/y");
	assert_string_equal(p.write[0].path, want);
	assert_string_equal(p.hide[0].path, "${WORKSPACE}/.env");
	cr_profile_done(&p);
	expect_error(f, "[filesystem]\nread = ~root/x\n", 2, "~USER does not expand");
	expect_error(f, "[filesystem]\nread = ~root\n", 2, "~USER does not expand");
	expect_error(f, "[filesystem]\nread = /a/~/b\n", 2, "only a leading ~ and ${WORKSPACE}");
	expect_error(f, "[filesystem]\nread = /a/b~\n", 2, "only a leading ~ and ${WORKSPACE}");
	expect_error(f, "[filesystem]\nread = /a/${WORKSPACE}\n", 2,
		     "only a leading ~ and ${WORKSPACE}");
	expect_error(f, "[filesystem]\nread = ${WORKSPACE}x\n", 2,
		     "only a leading ~ and ${WORKSPACE}");
	expect_error(f, "[filesystem]\nread = ${WORKSPACE}/${WORKSPACE}\n", 2,
		     "only a leading ~ and ${WORKSPACE}");
	expect_error(f, "[filesystem]\nread = $HOME/x\n", 2, "only a leading ~ and ${WORKSPACE}");
	expect_error(f, "[filesystem]\nread = ${HOME}\n", 2, "only a leading ~ and ${WORKSPACE}");
	expect_error(f, "[filesystem]\nread = ~/$X\n", 2, "only a leading ~ and ${WORKSPACE}");
	assert_int_equal(cr_profile_parse("[filesystem]\nread = ~/x\n", 25, "t", "test.ini",
					  &no_home, &p, msg, sizeof(msg)),
			 -EINVAL);
	assert_string_equal(msg, "test.ini:2: '~/x': ~ needs a home directory, and there is none (HOME is not set)");
}

static void network_rules(void **state)
{
	struct fixture *f = *state;

	expect_error(f, "[network]\nallow_host = github.com\n", 2,
		     "allow_host needs mode = allow_hosts in [network]");
	expect_error(f, "[network]\nmode = all\n\nallow_host = github.com\n", 4,
		     "allow_host needs mode = allow_hosts, and line 2 says mode = all");
	expect_error(f, "[network]\nallow_host = github.com\nmode = none\n", 2,
		     "line 3 says mode = none");
	expect_error(f, "[profile]\n[network]\nmode = allow_hosts\n", 3,
		     "mode = allow_hosts needs at least one allow_host");
}

/* --- the built-ins -------------------------------------------------------------------------- */

static void builtins(void **state)
{
	static const char *const system_paths[] = { "/usr", "/etc", NULL };
	struct fixture *f = *state;
	size_t n = 0;

	for (const char *const *name = cr_profile_builtin_names; *name; name++, n++) {
		struct cr_profile p;
		struct cr_profile_resolution res;

		assert_non_null(cr_profile_builtin_text(*name));
		if (cr_profile_load(*name, &f->dirs, &p, msg, sizeof(msg)) < 0)
			fail_msg("%s: %s", *name, msg);
		assert_string_equal(p.name, *name);
		assert_string_equal(p.source, "builtin");
		assert_true(strlen(p.description) > 10);
		assert_int_not_equal(p.seccomp, CR_SECCOMP_OFF);
		assert_int_not_equal(p.landlock, CR_LANDLOCK_OFF);
		if (cr_profile_resolve_full(&p, f->ws, system_paths, &res, msg, sizeof(msg)) < 0)
			fail_msg("%s: %s", *name, msg);
		assert_int_equal(res.baseline.net, p.net);
		cr_profile_resolution_done(&res);
		cr_profile_done(&p);
	}
	assert_int_equal(n, 5);
	assert_null(cr_profile_builtin_text("nope"));
	assert_non_null(cr_profile_builtin_text(CR_DEFAULT_PROFILE));
}

static void expect_rules(const struct cr_profile *p, enum cr_command_rule safe,
			 enum cr_command_rule caution, enum cr_command_rule unknown,
			 enum cr_command_rule dangerous)
{
	assert_int_equal(p->tier_rule[CR_RISK_SAFE], safe);
	assert_int_equal(p->tier_rule[CR_RISK_CAUTION], caution);
	assert_int_equal(p->tier_rule[CR_RISK_UNKNOWN], unknown);
	assert_int_equal(p->tier_rule[CR_RISK_DANGEROUS], dangerous);
}

/* cr_profile_command_rule(): the allowlist, then the tier's rule. */
static void command_rules(void **state)
{
	static const struct {
		const char *line;
		enum cr_risk_tier tier;
		enum cr_command_rule rule;
		const char *why;
	} cases[] = {
		{ "git status", CR_RISK_SAFE, CR_COMMAND_ALLOW, "git status" },
		{ "  git status\t", CR_RISK_SAFE, CR_COMMAND_ALLOW, "git status" },
		{ "git  status", CR_RISK_SAFE, CR_COMMAND_ALLOW, "git status" }, /* same words */
		{ "git status --short", CR_RISK_SAFE, CR_COMMAND_ALLOW, "safe" }, /* not exact */
		{ "make && make test", CR_RISK_UNKNOWN, CR_COMMAND_ALLOW, "make && make test" },
		{ "make", CR_RISK_UNKNOWN, CR_COMMAND_ASK, "unknown" },
		{ "git log --oneline -5", CR_RISK_SAFE, CR_COMMAND_ALLOW, "git log" },
		{ "git logx", CR_RISK_UNKNOWN, CR_COMMAND_ASK, "unknown" },
		{ "git", CR_RISK_SAFE, CR_COMMAND_ALLOW, "safe" },
		{ "cargo test --all", CR_RISK_UNKNOWN, CR_COMMAND_ALLOW, "cargo test" },
		{ "cargo test && git log", CR_RISK_UNKNOWN, CR_COMMAND_ALLOW, "cargo test" },
		{ "cargo test | git status", CR_RISK_UNKNOWN, CR_COMMAND_ALLOW, "cargo test" },
		{ "cargo test; rm -rf /", CR_RISK_DANGEROUS, CR_COMMAND_DENY, "dangerous" },
		{ "cargo test $(rm -rf /)", CR_RISK_DANGEROUS, CR_COMMAND_DENY, "dangerous" },
		{ "cargo test > /etc/passwd", CR_RISK_DANGEROUS, CR_COMMAND_DENY, "dangerous" },
		{ "cargo test 2>/dev/null", CR_RISK_UNKNOWN, CR_COMMAND_ALLOW, "cargo test" },
		{ "cargo test 2>&1", CR_RISK_UNKNOWN, CR_COMMAND_ALLOW, "cargo test" },
		{ "LD_PRELOAD=x.so cargo test", CR_RISK_DANGEROUS, CR_COMMAND_DENY, "dangerous" },
		{ "$X test", CR_RISK_UNKNOWN, CR_COMMAND_ASK, "unknown" },
		{ "rm -rf build", CR_RISK_CAUTION, CR_COMMAND_ASK, "caution" },
		{ "echo \"unbalanced", CR_RISK_UNKNOWN, CR_COMMAND_ASK, "unknown" },
		{ "", CR_RISK_SAFE, CR_COMMAND_ALLOW, "safe" },
	};
	struct fixture *f = *state;
	struct cr_profile p;

	assert_int_equal(parse(f,
			       "[commands]\ncaution = ask\nunknown = ask\ndangerous = deny\n"
			       "allow = git status\nallow = make && make test\n"
			       "allow_prefix = git log\nallow_prefix = cargo test\n",
			       &p),
			 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cr_risk risk = { .tier = cases[i].tier };
		const char *why = NULL;
		enum cr_command_rule r = cr_profile_command_rule(&p, cases[i].line, &risk, &why);

		if (r != cases[i].rule || !why || strcmp(why, cases[i].why) != 0)
			fail_msg("'%s': expected %s (%s), got %s (%s)", cases[i].line,
				 cr_command_rule_to_string(cases[i].rule), cases[i].why,
				 cr_command_rule_to_string(r), why ?: "NULL");
	}
	/* an out-of-range tier counts as unknown; ret_why may be NULL */
	assert_int_equal(cr_profile_command_rule(&p, "x", &(struct cr_risk){ .tier = 9 }, NULL),
			 CR_COMMAND_ASK);
	cr_profile_done(&p);

	for (int r = 0; r < _CR_COMMAND_RULE_MAX; r++)
		assert_int_equal(cr_command_rule_from_string(cr_command_rule_to_string(r)), r);
	assert_null(cr_command_rule_to_string(_CR_COMMAND_RULE_MAX));
	assert_int_equal(cr_command_rule_from_string("permit"), _CR_COMMAND_RULE_INVALID);
}

static void builtin_contents(void **state)
{
	struct fixture *f = *state;
	struct cr_profile p;
	char cache[PATH_MAX];

	assert_int_equal(cr_profile_load("strict", &f->dirs, &p, msg, sizeof(msg)), 0);
	expect_rules(&p, CR_COMMAND_ALLOW, CR_COMMAND_ASK, CR_COMMAND_ASK, CR_COMMAND_DENY);
	assert_true(p.workspace_ro);
	assert_false(p.spawn);
	assert_int_equal(p.net, CR_NETCAP_NONE);
	assert_int_equal(p.seccomp, CR_SECCOMP_STRICT);
	cr_profile_done(&p);

	assert_int_equal(cr_profile_load("workspace", &f->dirs, &p, msg, sizeof(msg)), 0);
	expect_rules(&p, CR_COMMAND_ALLOW, CR_COMMAND_ALLOW, CR_COMMAND_ALLOW, CR_COMMAND_ASK);
	assert_false(p.workspace_ro);
	assert_true(p.spawn);
	assert_int_equal(p.net, CR_NETCAP_NONE);
	assert_int_equal(p.n_read + p.n_write + p.n_hide, 0);
	cr_profile_done(&p);

	assert_int_equal(cr_profile_load("ci", &f->dirs, &p, msg, sizeof(msg)), 0);
	expect_rules(&p, CR_COMMAND_ALLOW, CR_COMMAND_ALLOW, CR_COMMAND_ALLOW, CR_COMMAND_DENY);
	assert_int_equal(p.net, CR_NETCAP_NONE);
	assert_int_equal(p.limits.value[CR_LIMIT_PIDS], 1024);
	assert_int_equal(p.limits.value[CR_LIMIT_MEMORY], 4ull << 30);
	assert_false(p.limits.set[CR_LIMIT_CPU]);
	assert_int_equal(p.timeout_ms, 3600000);
	assert_true(p.limits.required);
	/* Named caches, not the user's own directories; the toolchains read-only, optional. */
	assert_int_equal(p.n_write, 0);
	assert_int_equal(p.n_caches, 9);
	assert_string_equal(p.caches[0].spec, "npm:~/.npm");
	assert_string_equal(p.caches[5].spec, "go-build:~/.cache/go-build");
	join(cache, f->home, ".cargo/bin");
	assert_string_equal(p.read[2].path, cache);
	for (size_t i = 0; i < p.n_read; i++)
		assert_true(p.read[i].optional);
	cr_profile_done(&p);

	assert_int_equal(cr_profile_load("power_user", &f->dirs, &p, msg, sizeof(msg)), 0);
	expect_rules(&p, CR_COMMAND_ALLOW, CR_COMMAND_ALLOW, CR_COMMAND_ALLOW, CR_COMMAND_ASK);
	assert_int_equal(p.net, CR_NETCAP_HOSTS);
	assert_int_equal(p.n_hosts, 19);
	assert_string_equal(p.hosts[0], "github.com:443");
	assert_string_equal(p.hosts[18], "security.debian.org:443");
	assert_int_equal(p.n_write, 9);
	assert_false(p.limits.required);
	cr_profile_done(&p);

	assert_int_equal(cr_profile_load("autonomous", &f->dirs, &p, msg, sizeof(msg)), 0);
	expect_rules(&p, CR_COMMAND_ALLOW, CR_COMMAND_ALLOW, CR_COMMAND_ALLOW, CR_COMMAND_DENY);
	assert_int_equal(p.net, CR_NETCAP_ALL);
	assert_true(p.spawn);
	assert_int_equal(p.n_hosts, 0);
	assert_int_equal(p.seccomp, CR_SECCOMP_DEFAULT);
	cr_profile_done(&p);
}

/* --- finding profiles ----------------------------------------------------------------------- */

static void search_order(void **state)
{
	struct fixture *f = *state;
	char user_file[PATH_MAX], sys_file[PATH_MAX], odd[PATH_MAX];
	struct cr_profile_dirs d = f->dirs;
	struct cr_profile p;

	join(user_file, f->user, "workspace.ini");
	join(sys_file, f->system, "workspace.ini");
	write_file(user_file, "[profile]\ndescription = user\n", 0644);
	write_file(sys_file, "[profile]\ndescription = system\n", 0644);

	assert_int_equal(cr_profile_load("workspace", &f->dirs, &p, msg, sizeof(msg)), 0);
	assert_string_equal(p.description, "user");
	assert_string_equal(p.source, user_file);
	assert_string_equal(p.name, "workspace");
	cr_profile_done(&p);

	/* The source is canonical even when the directory is not. */
	join(odd, f->ws, "../user");
	d.user_dir = odd;
	assert_int_equal(cr_profile_load("workspace", &d, &p, msg, sizeof(msg)), 0);
	assert_string_equal(p.source, user_file);
	cr_profile_done(&p);

	assert_int_equal(unlink(user_file), 0);
	assert_int_equal(cr_profile_load("workspace", &f->dirs, &p, msg, sizeof(msg)), 0);
	assert_string_equal(p.description, "system");
	assert_string_equal(p.source, sys_file);
	cr_profile_done(&p);

	assert_int_equal(unlink(sys_file), 0);
	assert_int_equal(cr_profile_load("workspace", &f->dirs, &p, msg, sizeof(msg)), 0);
	assert_string_equal(p.source, "builtin");
	cr_profile_done(&p);

	/* A name only in the system directory; errors name the file. */
	join(sys_file, f->system, "mine.ini");
	write_file(sys_file, "[network]\nmode = everything\n", 0644);
	assert_int_equal(cr_profile_load("mine", &f->dirs, &p, msg, sizeof(msg)), -EINVAL);
	assert_true(strncmp(msg, sys_file, strlen(sys_file)) == 0);
	assert_non_null(strstr(msg, ".ini:2: mode = 'everything'"));

	assert_int_equal(cr_profile_load("nosuch", &f->dirs, &p, msg, sizeof(msg)), -ENOENT);
	assert_non_null(strstr(msg, "no profile named 'nosuch'"));
	assert_non_null(strstr(msg, f->user));
	assert_int_equal(cr_profile_load("bad.name", &f->dirs, &p, msg, sizeof(msg)), -EINVAL);
	assert_int_equal(cr_profile_load("", &f->dirs, &p, msg, sizeof(msg)), -EINVAL);
	assert_true(cr_profile_name_is_valid("power_user-2"));
	assert_false(cr_profile_name_is_valid("a b"));
	assert_false(cr_profile_name_is_valid(
		"a234567890123456789012345678901234567890123456789012345678901234x"));
}

static void file_paths(void **state)
{
	struct fixture *f = *state;
	char file[PATH_MAX], link[PATH_MAX];
	struct cr_profile p;

	join(file, f->base, "my.ini");
	write_file(file, "[process]\nspawn = no\n", 0600);
	assert_int_equal(chdir(f->base), 0);
	assert_int_equal(cr_profile_load("./my.ini", &f->dirs, &p, msg, sizeof(msg)), 0);
	assert_string_equal(p.source, file);
	assert_string_equal(p.name, "my");
	assert_false(p.spawn);
	cr_profile_done(&p);
	assert_int_equal(cr_profile_load("ws/../my.ini", &f->dirs, &p, msg, sizeof(msg)), 0);
	assert_string_equal(p.source, file);
	cr_profile_done(&p);

	/* A symbolic link as the last component is refused; in the directories it is fine. */
	join(link, f->base, "link.ini");
	assert_int_equal(symlink("my.ini", link), 0);
	assert_int_equal(cr_profile_load(link, &f->dirs, &p, msg, sizeof(msg)), -EPERM);
	assert_non_null(strstr(msg, "symbolic link"));
	join(link, f->user, "linked.ini");
	assert_int_equal(symlink(file, link), 0);
	assert_int_equal(cr_profile_load("linked", &f->dirs, &p, msg, sizeof(msg)), -EPERM);
	join(link, f->base, "dirlink");
	assert_int_equal(symlink(".", link), 0);
	assert_int_equal(cr_profile_load("./dirlink/my.ini", &f->dirs, &p, msg, sizeof(msg)), 0);
	assert_string_equal(p.source, file);
	cr_profile_done(&p);

	assert_int_equal(cr_profile_load("./none.ini", &f->dirs, &p, msg, sizeof(msg)), -ENOENT);
	assert_int_equal(cr_profile_load("./ws/", &f->dirs, &p, msg, sizeof(msg)), -EINVAL);
	assert_int_equal(cr_profile_load("./ws", &f->dirs, &p, msg, sizeof(msg)), -EPERM);
	assert_non_null(strstr(msg, "not a regular file"));
}

static void file_checks(void **state)
{
	struct fixture *f = *state;
	char file[PATH_MAX];
	struct cr_profile p;
	char *big;

	join(file, f->user, "open.ini");
	write_file(file, "[process]\nspawn = no\n", 0666);
	assert_int_equal(cr_profile_load("open", &f->dirs, &p, msg, sizeof(msg)), -EPERM);
	assert_non_null(strstr(msg, "writable by its group or others (mode 0666)"));
	assert_int_equal(chmod(file, 0620), 0);
	assert_int_equal(cr_profile_load(file, &f->dirs, &p, msg, sizeof(msg)), -EPERM);
	assert_int_equal(chmod(file, 0644), 0);
	assert_int_equal(cr_profile_load(file, &f->dirs, &p, msg, sizeof(msg)), 0);
	cr_profile_done(&p);
	if (getuid() == 0) {
		/* Root can hand the file to someone else: neither the caller nor root. */
		assert_int_equal(chown(file, 4242, 4242), 0);
		assert_int_equal(cr_profile_load(file, &f->dirs, &p, msg, sizeof(msg)), -EPERM);
		assert_non_null(strstr(msg, "owned by uid 4242"));
	}

	big = malloc(CR_PROFILE_MAX_SIZE + 2);
	assert_non_null(big);
	memset(big, '\n', CR_PROFILE_MAX_SIZE + 1);
	big[CR_PROFILE_MAX_SIZE + 1] = '\0';
	join(file, f->user, "big.ini");
	write_file(file, big, 0644);
	free(big);
	assert_int_equal(cr_profile_load("big", &f->dirs, &p, msg, sizeof(msg)), -EFBIG);
}

static void dirs_from_env(void **state)
{
	char *const env1[] = { "HOME=/home/u", "XDG_CONFIG_HOME=/cfg", NULL };
	char *const env2[] = { "HOME=/home/u", "XDG_CONFIG_HOME=rel/cfg", NULL };
	struct cr_profile_dirs d;

	assert_int_equal(cr_profile_dirs_from_env(env1, &d), 0);
	assert_string_equal(d.home, "/home/u");
	assert_string_equal(d.user_dir, "/cfg/corral/profiles");
	assert_string_equal(d.system_dir, CR_SYSCONF_PROFILES);
	cr_profile_dirs_done(&d);
	assert_null(d.home);
	assert_int_equal(cr_profile_dirs_from_env(env2, &d), 0);
	assert_string_equal(d.user_dir, "/home/u/.config/corral/profiles");
	cr_profile_dirs_done(&d);
}

/* Another user's configuration (HOME=/ or a HOME left by su) is left out; one the caller cannot
 * read is kept, marked, and looked past by the default profile alone. */
static void dirs_not_own(void **state)
{
	struct fixture *f = *state;
	char xdg[PATH_MAX + 32], home[PATH_MAX + 32], other[PATH_MAX], cfg[PATH_MAX];
	char *const env1[] = { home, xdg, NULL };
	struct cr_profile_dirs d;
	struct cr_profile p;

	join(other, f->base, "other");
	assert_int_equal(mkdir(other, 0755), 0);
	/* As a user, "/" is root's; as root, a directory given to another uid. */
	if (getuid() == 0)
		assert_int_equal(chown(other, 12345, 12345), 0);
	(void)snprintf(xdg, sizeof(xdg), "XDG_CONFIG_HOME=%s", getuid() == 0 ? other : "/");
	(void)snprintf(home, sizeof(home), "HOME=%s", f->home);
	assert_int_equal(cr_profile_dirs_from_env(env1, &d), 0);
	assert_null(d.user_dir);
	assert_false(d.user_unreadable);
	assert_non_null(strstr(d.skipped, "not to you"));
	cr_profile_dirs_done(&d);
	if (getuid() == 0) /* root reads every directory */
		return;
	(void)snprintf(xdg, sizeof(xdg), "XDG_CONFIG_HOME=%s", f->home);
	join(cfg, f->home, "corral");
	assert_int_equal(mkdir(cfg, 0755), 0);
	join(cfg, f->home, "corral/profiles");
	assert_int_equal(mkdir(cfg, 0), 0);
	assert_int_equal(cr_profile_dirs_from_env(env1, &d), 0);
	assert_string_equal(d.user_dir, cfg);
	assert_true(d.user_unreadable);
	assert_non_null(strstr(d.skipped, "Permission denied"));
	assert_int_equal(cr_profile_load("workspace", &d, &p, msg, sizeof(msg)), -EACCES);
	d.lenient = true;
	assert_int_equal(cr_profile_load("workspace", &d, &p, msg, sizeof(msg)), 0);
	assert_string_equal(p.source, "builtin");
	cr_profile_done(&p);
	cr_profile_dirs_done(&d);
	assert_int_equal(chmod(cfg, 0700), 0);
}

/* --- resolving ------------------------------------------------------------------------------ */

static int resolve_text(const struct fixture *f, const char *text, const char *const *sys,
			struct cr_profile_resolution *res)
{
	struct cr_profile p;
	int r;

	assert_int_equal(parse(f, text, &p), 0);
	r = cr_profile_resolve_full(&p, f->ws, sys, res, msg, sizeof(msg));
	cr_profile_done(&p);
	return r;
}

static void resolve_paths(void **state)
{
	struct fixture *f = *state;
	struct cr_profile_resolution res;
	char want[PATH_MAX], text[PATH_MAX + 64];

	/* Missing required path: -ENOENT with its line. */
	assert_int_equal(resolve_text(f, "[filesystem]\nread = /usr\n\nwrite = ~/nope\n", NULL, &res),
			 -ENOENT);
	join(want, f->home, "nope");
	(void)snprintf(text, sizeof(text), "test.ini:4: %s: no such file or directory", want);
	assert_string_equal(msg, text);
	assert_int_equal(resolve_text(f, "[filesystem]\nread = ${WORKSPACE}/gone\n", NULL, &res),
			 -ENOENT);
	(void)snprintf(text, sizeof(text), "test.ini:2: %s/gone: no such file or directory", f->ws);
	assert_string_equal(msg, text);

	/* Optional and hidden paths that are missing are skipped; the rest is canonical. */
	assert_int_equal(resolve_text(f,
				      "[filesystem]\n"
				      "read_if_exists = ~/nope\n"
				      "write_if_exists = ~/.cache/../.cache\n"
				      "hide = ${WORKSPACE}/.env\n"
				      "hide = ${WORKSPACE}/sub\n"
				      "read = ${WORKSPACE}\n"
				      "write = ${WORKSPACE}/\n"
				      "write = ~/.cache\n"
				      "read_if_exists = ~/file/x\n",
				      NULL, &res),
			 0);
	assert_int_equal(res.n_rules, 2);
	join(want, f->home, ".cache");
	assert_string_equal(res.rules[0].path, want);
	assert_int_equal(res.rules[0].access, CR_PATH_RW);
	assert_int_equal(res.lines[0], 3);
	join(want, f->ws, "sub");
	assert_string_equal(res.rules[1].path, want);
	assert_int_equal(res.rules[1].access, CR_PATH_HIDE);
	assert_int_equal(res.lines[1], 5);
	assert_int_equal(res.n_skipped, 3);
	join(want, f->home, "nope");
	assert_string_equal(res.skipped[0].path, want);
	assert_int_equal(res.skipped[0].access, CR_PATH_RO);
	assert_int_equal(res.skipped[0].line, 2);
	join(want, f->home, "file/x"); /* ENOTDIR counts as missing */
	assert_string_equal(res.skipped[1].path, want);
	join(want, f->ws, ".env");
	assert_string_equal(res.skipped[2].path, want);
	assert_int_equal(res.skipped[2].access, CR_PATH_HIDE);
	cr_profile_resolution_done(&res);
}

static void resolve_refusals(void **state)
{
	struct fixture *f = *state;
	struct cr_profile_resolution res;

	assert_int_equal(resolve_text(f, "[filesystem]\nhide = ${WORKSPACE}\n", NULL, &res), -EINVAL);
	assert_non_null(strstr(msg, "test.ini:2: hide = "));
	assert_non_null(strstr(msg, "that is the workspace"));
	assert_int_equal(resolve_text(f, "[filesystem]\n\nwrite = /\n", NULL, &res), -EINVAL);
	assert_non_null(strstr(msg, "test.ini:3: write = /: the root itself"));
	assert_int_equal(resolve_text(f, "[filesystem]\nhide = /usr/..\n", NULL, &res), -EINVAL);
	assert_non_null(strstr(msg, "test.ini:2: hide = /: the root itself"));
	assert_int_equal(resolve_text(f, "[filesystem]\nread = /\n", NULL, &res), -EINVAL);
	assert_int_equal(resolve_text(f, "[filesystem]\nworkspace = ro\nwrite = ${WORKSPACE}\n", NULL,
				      &res),
			 -EINVAL);
	assert_non_null(strstr(msg, "test.ini:3: write = "));
	assert_int_equal(resolve_text(f, "[filesystem]\nread = ~\nwrite = ~/.cache/..\n", NULL, &res),
			 -EINVAL);
	assert_non_null(strstr(msg, "test.ini:3: write = "));
	assert_non_null(strstr(msg, "line 2 gives the same path as read"));
	assert_int_equal(resolve_text(f, "[filesystem]\nworkspace = ro\nread = ${WORKSPACE}\n", NULL,
				      &res),
			 0);
	assert_int_equal(res.n_rules, 0);
	cr_profile_resolution_done(&res);
}

static bool strv_has(char **v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i], s) == 0)
			return true;
	return false;
}

static void baseline(void **state)
{
	static const char *const sys[] = { "/usr", "/etc", NULL };
	struct fixture *f = *state;
	struct cr_profile_resolution res;
	struct cr_capability *c = &res.baseline;
	char cache[PATH_MAX];

	join(cache, f->home, ".cache");
	assert_int_equal(resolve_text(f,
				      "[filesystem]\nworkspace = ro\nread = /var\nwrite = ~/.cache\n"
				      "[limits]\npids = 10\ntimeout = 5\n"
				      "[security]\nseccomp = off\n",
				      sys, &res),
			 0);
	assert_int_equal(c->n_fs_read, 5);
	assert_true(strv_has(c->fs_read, c->n_fs_read, "/usr"));
	assert_true(strv_has(c->fs_read, c->n_fs_read, "/etc"));
	assert_true(strv_has(c->fs_read, c->n_fs_read, f->ws));
	assert_true(strv_has(c->fs_read, c->n_fs_read, "/var"));
	assert_true(strv_has(c->fs_read, c->n_fs_read, cache));
	assert_int_equal(c->n_fs_write, 1); /* not the read-only workspace */
	assert_string_equal(c->fs_write[0], cache);
	assert_int_equal(c->net, CR_NETCAP_NONE);
	assert_true(c->spawn);
	assert_int_equal(c->limit[CR_LIMIT_PIDS], 10);
	assert_int_equal(c->limit[CR_LIMIT_MEMORY], CR_LIMIT_INFINITY);
	assert_int_equal(c->limit[CR_LIMIT_OPEN_FILES], CR_LIMIT_INFINITY);
	assert_int_equal(c->timeout_ms, 5000);
	assert_int_equal(c->unconfined, CR_UNCONFINED_SECCOMP);
	cr_profile_resolution_done(&res);

	assert_int_equal(resolve_text(f,
				      "[network]\nmode = allow_hosts\nallow_host = a.example\n"
				      "[process]\nspawn = no\n[security]\nlandlock = off\n",
				      NULL, &res),
			 0);
	assert_int_equal(c->n_fs_read, 1);
	assert_string_equal(c->fs_read[0], f->ws);
	assert_int_equal(c->n_fs_write, 1);
	assert_string_equal(c->fs_write[0], f->ws);
	assert_int_equal(c->net, CR_NETCAP_HOSTS);
	assert_int_equal(c->n_hosts, 1);
	assert_string_equal(c->hosts[0], "a.example");
	assert_false(c->spawn);
	assert_true(c->timeout_ms == UINT64_MAX); /* no timeout in the profile: no bound */
	assert_int_equal(c->unconfined, CR_UNCONFINED_LANDLOCK);
	for (int l = 0; l < _CR_LIMIT_MAX; l++)
		assert_int_equal(c->limit[l], CR_LIMIT_INFINITY);
	cr_profile_resolution_done(&res);

	/* ptrace = sandbox: a baseline that already holds ptrace; a bad value is refused. */
	assert_int_equal(resolve_text(f, "[security]\nptrace = sandbox\n", NULL, &res), 0);
	assert_int_equal(c->unconfined, CR_UNCONFINED_PTRACE);
	cr_profile_resolution_done(&res);
	assert_int_equal(resolve_text(f, "[security]\nptrace = no\n", NULL, &res), 0);
	assert_int_equal(c->unconfined, 0);
	cr_profile_resolution_done(&res);
	expect_error(f, "[security]\nptrace = yes\n", 2, "ptrace = 'yes': expected no or sandbox");
}

static void resolve_wrapper(void **state)
{
	struct fixture *f = *state;
	struct cr_profile p;
	struct cr_path_rule *rules = NULL;
	struct cr_capability c = {};
	size_t n = 99;

	assert_int_equal(parse(f, "[filesystem]\nread = /usr\nhide = ~/.cache\n[network]\nmode = all\n",
			       &p),
			 0);
	assert_int_equal(cr_profile_resolve(&p, f->ws, NULL, &rules, &n, &c, msg, sizeof(msg)), 0);
	assert_int_equal(n, 2);
	assert_string_equal(rules[0].path, "/usr");
	assert_int_equal(rules[0].access, CR_PATH_RO);
	assert_int_equal(rules[1].access, CR_PATH_HIDE);
	assert_int_equal(c.net, CR_NETCAP_ALL);
	for (size_t i = 0; i < n; i++)
		free(rules[i].path);
	free(rules);
	cr_capability_done(&c);
	assert_int_equal(cr_profile_resolve(&p, f->ws, NULL, NULL, NULL, NULL, msg, sizeof(msg)),
			 0);
	cr_profile_done(&p);
}

/* --- the command ---------------------------------------------------------------------------- */

/* cr_profile_main() with its standard output in @out (a file, or /dev/null). */
static int run_to(const char *out, const char *a1, const char *a2, const char *a3, const char *a4,
		  const char *a5)
{
	char *argv[] = { "profile", (char *)a1, (char *)a2, (char *)a3, (char *)a4, (char *)a5, NULL };
	int argc = 1;
	int saved = dup(STDOUT_FILENO), fd, r;

	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	while (argv[argc])
		argc++;
	assert_true(saved >= 0 && fd >= 0);
	(void)fflush(stdout);
	assert_int_equal(dup2(fd, STDOUT_FILENO), STDOUT_FILENO);
	r = cr_profile_main(argc, argv);
	(void)fflush(stdout);
	assert_int_equal(dup2(saved, STDOUT_FILENO), STDOUT_FILENO);
	(void)close(saved);
	(void)close(fd);
	return r;
}

static int run_cmd(const char *a1, const char *a2, const char *a3, const char *a4, const char *a5)
{
	return run_to("/dev/null", a1, a2, a3, a4, a5);
}

static json_object *read_json(const char *path)
{
	json_object *o = json_object_from_file(path);

	assert_non_null(o);
	return o;
}

static char *read_text(const char *path)
{
	char *text = malloc(8192);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	assert_true(text && fd >= 0);
	n = read(fd, text, 8191);
	assert_true(n > 0);
	text[n] = '\0';
	(void)close(fd);
	return text;
}

static const char *get_string(json_object *o, const char *key)
{
	json_object *v = NULL;

	assert_true(json_object_object_get_ex(o, key, &v));
	return json_object_get_string(v);
}

static void command(void **state)
{
	struct fixture *f = *state;
	char cfg[PATH_MAX], dir[PATH_MAX], dir2[PATH_MAX], dir3[PATH_MAX], file[PATH_MAX];

	join(cfg, f->base, "cfg");
	join(dir, cfg, "corral");
	join(dir2, dir, "profiles");
	join(dir3, f->ws, "sub");
	assert_int_equal(mkdir(cfg, 0755), 0);
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(mkdir(dir2, 0755), 0);
	join(file, dir2, "bad.ini");
	write_file(file, "[network]\nmode = sometimes\n", 0644);
	assert_int_equal(setenv("XDG_CONFIG_HOME", cfg, 1), 0);
	assert_int_equal(setenv("HOME", f->home, 1), 0);

	assert_int_equal(run_cmd("--help", NULL, NULL, NULL, NULL), 0);
	assert_int_equal(run_cmd(NULL, NULL, NULL, NULL, NULL), 125);
	assert_int_equal(run_cmd("frobnicate", NULL, NULL, NULL, NULL), 125);
	assert_int_equal(run_cmd("list", NULL, NULL, NULL, NULL), 0);
	assert_int_equal(run_cmd("list", "--json", NULL, NULL, NULL), 0);
	assert_int_equal(run_cmd("list", "--yaml", NULL, NULL, NULL), 125);
	assert_int_equal(run_cmd("show", "ci", "-w", f->ws, NULL), 0);
	assert_int_equal(run_cmd("show", "power_user", "--json", "--workspace", f->ws), 0);
	assert_int_equal(run_cmd("show", "strict", "--ini", NULL, NULL), 0);
	assert_int_equal(run_cmd("show", "bad", NULL, NULL, NULL), 125);
	assert_int_equal(run_cmd("show", "nosuch", NULL, NULL, NULL), 125);
	assert_int_equal(run_cmd("show", NULL, NULL, NULL, NULL), 125);
	assert_int_equal(run_cmd("show", "ci", "--json", "--ini", NULL), 125);
	assert_int_equal(run_cmd("show", "ci", "-w", file, NULL), 125); /* not a directory */
	assert_int_equal(run_cmd("show", "ci", "workspace", NULL, NULL), 125);
	assert_int_equal(run_cmd("show", "ci", "-w", NULL, NULL), 125);
	assert_int_equal(unsetenv("XDG_CONFIG_HOME"), 0);
}

/* What list and show print, through their JSON. */
static void command_output(void **state)
{
	struct fixture *f = *state;
	char cfg[PATH_MAX], dir[PATH_MAX], dir2[PATH_MAX], file[PATH_MAX], out[PATH_MAX];
	json_object *o, *a, *e, *v;
	char *text;

	join(cfg, f->base, "cfg");
	join(dir, cfg, "corral");
	join(dir2, dir, "profiles");
	assert_int_equal(mkdir(cfg, 0755), 0);
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(mkdir(dir2, 0755), 0);
	join(file, dir2, "ci.ini");
	write_file(file,
		   "[profile]\ndescription = mine\n[filesystem]\nworkspace = ro\n"
		   "read = ${WORKSPACE}/sub\nhide = ${WORKSPACE}/.env\n",
		   0644);
	join(out, f->base, "out");
	assert_int_equal(setenv("XDG_CONFIG_HOME", cfg, 1), 0);

	assert_int_equal(run_to(out, "list", "--json", NULL, NULL, NULL), 0);
	o = read_json(out);
	assert_string_equal(get_string(o, "default"), "workspace");
	assert_true(json_object_object_get_ex(o, "profiles", &a));
	assert_int_equal(json_object_array_length(a), 5);
	e = json_object_array_get_idx(a, 2);
	assert_string_equal(get_string(e, "name"), "ci");
	assert_string_equal(get_string(e, "source"), file);
	assert_string_equal(get_string(e, "description"), "mine");
	assert_true(json_object_object_get_ex(e, "shadows", &v));
	assert_int_equal(json_object_array_length(v), 1);
	assert_string_equal(json_object_get_string(json_object_array_get_idx(v, 0)), "builtin");
	json_object_put(o);

	assert_int_equal(run_to(out, "show", "ci", "--json", "-w", f->ws), 0);
	o = read_json(out);
	assert_string_equal(get_string(o, "name"), "ci");
	assert_string_equal(get_string(o, "source"), file);
	assert_true(json_object_object_get_ex(o, "workspace", &v));
	assert_string_equal(get_string(v, "path"), f->ws);
	assert_string_equal(get_string(v, "access"), "ro");
	assert_true(json_object_object_get_ex(o, "paths", &a));
	assert_int_equal(json_object_array_length(a), 1);
	assert_string_equal(get_string(json_object_array_get_idx(a, 0), "access"), "ro");
	assert_true(json_object_object_get_ex(json_object_array_get_idx(a, 0), "line", &v));
	assert_int_equal(json_object_get_int(v), 5);
	assert_true(json_object_object_get_ex(o, "skipped", &a));
	assert_int_equal(json_object_array_length(a), 1);
	assert_string_equal(get_string(json_object_array_get_idx(a, 0), "access"), "hide");
	assert_true(json_object_object_get_ex(o, "baseline", &v));
	assert_true(json_object_object_get_ex(v, "fs_write", &a));
	assert_int_equal(json_object_array_length(a), 0);
	assert_string_equal(get_string(o, "seccomp"), "default");
	assert_string_equal(get_string(o, "landlock"), "best-effort");
	assert_string_equal(get_string(o, "limits_enforce"), "best-effort");
	assert_true(json_object_object_get_ex(o, "commands", &v));
	assert_string_equal(get_string(v, "safe"), "allow");
	assert_string_equal(get_string(v, "caution"), "allow");
	assert_string_equal(get_string(v, "unknown"), "allow");
	assert_string_equal(get_string(v, "dangerous"), "ask");
	assert_true(json_object_object_get_ex(v, "allow", &a));
	assert_int_equal(json_object_array_length(a), 0);
	assert_true(json_object_object_get_ex(v, "allow_prefix", &a));
	assert_int_equal(json_object_array_length(a), 0);
	json_object_put(o);

	assert_int_equal(run_to(out, "show", "strict", "--json", "-w", f->ws), 0);
	o = read_json(out);
	assert_true(json_object_object_get_ex(o, "commands", &v));
	assert_string_equal(get_string(v, "caution"), "ask");
	assert_string_equal(get_string(v, "dangerous"), "deny");
	json_object_put(o);

	/* --ini prints the text as it is. */
	assert_int_equal(run_to(out, "show", "power_user", "--ini", NULL, NULL), 0);
	text = read_text(out);
	assert_string_equal(text, cr_profile_builtin_text("power_user"));
	free(text);
	assert_int_equal(unsetenv("XDG_CONFIG_HOME"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(defaults, setup, teardown),
		cmocka_unit_test_setup_teardown(every_key, setup, teardown),
		cmocka_unit_test_setup_teardown(good_values, setup, teardown),
		cmocka_unit_test_setup_teardown(bad_values, setup, teardown),
		cmocka_unit_test_setup_teardown(structure_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(raw_bytes, setup, teardown),
		cmocka_unit_test_setup_teardown(path_expansion, setup, teardown),
		cmocka_unit_test_setup_teardown(network_rules, setup, teardown),
		cmocka_unit_test_setup_teardown(builtins, setup, teardown),
		cmocka_unit_test_setup_teardown(builtin_contents, setup, teardown),
		cmocka_unit_test_setup_teardown(command_rules, setup, teardown),
		cmocka_unit_test_setup_teardown(search_order, setup, teardown),
		cmocka_unit_test_setup_teardown(file_paths, setup, teardown),
		cmocka_unit_test_setup_teardown(file_checks, setup, teardown),
		cmocka_unit_test_setup_teardown(dirs_from_env, setup, teardown),
		cmocka_unit_test_setup_teardown(dirs_not_own, setup, teardown),
		cmocka_unit_test_setup_teardown(resolve_paths, setup, teardown),
		cmocka_unit_test_setup_teardown(resolve_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(baseline, setup, teardown),
		cmocka_unit_test_setup_teardown(resolve_wrapper, setup, teardown),
		cmocka_unit_test_setup_teardown(command, setup, teardown),
		cmocka_unit_test_setup_teardown(command_output, setup, teardown),
	};

	return cmocka_run_group_tests_name("profile", tests, NULL, NULL);
}
