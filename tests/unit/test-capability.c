/* SPDX-License-Identifier: MIT */
/* The capability lattice: is_within over a table of cases, join, excess and the JSON form. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "launcher/policy/capability.h"
#include "launcher/policy/host-pattern.h"
#include "launcher/base/macro.h"
#include "launcher/base/path-util.h"

/* A capability written compactly: "r:/a w:/b h:*.x.com net:all spawn pids:10 t:5 u:seccomp". */
static void build(struct cr_capability *c, const char *spec)
{
	char *copy = strdup(spec), *save = NULL;

	*c = (struct cr_capability){};
	for (char *tok = strtok_r(copy, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		if (strncmp(tok, "r:", 2) == 0)
			assert_int_equal(cr_capability_add_path(c, false, tok + 2), 0);
		else if (strncmp(tok, "w:", 2) == 0)
			assert_int_equal(cr_capability_add_path(c, true, tok + 2), 0);
		else if (strncmp(tok, "h:", 2) == 0)
			assert_int_equal(cr_capability_add_host(c, tok + 2), 0);
		else if (strcmp(tok, "net:all") == 0)
			c->net = CR_NETCAP_ALL;
		else if (strcmp(tok, "spawn") == 0)
			c->spawn = true;
		else if (strncmp(tok, "pids:", 5) == 0)
			c->limit[CR_LIMIT_PIDS] = strcmp(tok + 5, "max") == 0
							  ? CR_LIMIT_INFINITY
							  : strtoull(tok + 5, NULL, 10);
		else if (strncmp(tok, "mem:", 4) == 0)
			c->limit[CR_LIMIT_MEMORY] = strcmp(tok + 4, "max") == 0
							    ? CR_LIMIT_INFINITY
							    : strtoull(tok + 4, NULL, 10);
		else if (strncmp(tok, "t:", 2) == 0)
			c->timeout_ms = strcmp(tok + 2, "max") == 0 ? UINT64_MAX
								    : strtoull(tok + 2, NULL, 10);
		else if (strcmp(tok, "u:seccomp") == 0)
			c->unconfined |= CR_UNCONFINED_SECCOMP;
		else if (strcmp(tok, "u:landlock") == 0)
			c->unconfined |= CR_UNCONFINED_LANDLOCK;
		else
			fail_msg("bad token %s", tok);
	}
	free(copy);
}

static const struct {
	const char *req, *base;
	bool within;
} cases[] = {
	{ "", "", true },
	/* paths, by component */
	{ "r:/srv/a", "r:/srv/a", true },
	{ "r:/srv/a/b/c", "r:/srv/a", true },
	{ "r:/srv/ab", "r:/srv/a", false },
	{ "r:/srv", "r:/srv/a", false },
	{ "r:/srv/a", "w:/srv/a", true }, /* writing implies reading */
	{ "w:/srv/a", "r:/srv/a", false },
	{ "w:/srv/a/x", "w:/srv/a", true },
	{ "w:/srv/ab", "w:/srv/a", false },
	{ "r:/anything", "r:/", true },
	{ "w:/", "w:/srv", false },
	{ "r:/a r:/b", "r:/a", false },
	{ "r:/a r:/b", "r:/b r:/a", true },
	/* network */
	{ "net:all", "", false },
	{ "net:all", "h:github.com", false },
	{ "h:github.com", "", false },
	{ "h:github.com", "h:github.com", true },
	{ "h:GitHub.com", "h:github.com", true },
	{ "h:api.github.com", "h:*.github.com", true },
	{ "h:github.com", "h:*.github.com", false },
	{ "h:*.github.com", "h:*.github.com", true },
	{ "h:*.a.github.com", "h:*.github.com", true },
	{ "h:*.github.com", "h:api.github.com", false },
	{ "h:evilgithub.com", "h:*.github.com", false },
	{ "h:github.com h:pypi.org", "h:github.com", false },
	{ "h:github.com", "net:all", true },
	{ "h:1.2.3.4", "h:1.2.3.4", true },
	/* spawn */
	{ "spawn", "", false },
	{ "spawn", "spawn", true },
	{ "", "spawn", true },
	/* limits and timeout: numbers, 0 = not asked, max the largest */
	{ "pids:10", "pids:100", true },
	{ "pids:100", "pids:100", true },
	{ "pids:101", "pids:100", false },
	{ "pids:max", "pids:100", false },
	{ "pids:max", "pids:max", true },
	{ "pids:5", "", false }, /* a baseline silent on a limit allows no request of it */
	{ "mem:1", "pids:max", false },
	{ "t:1000", "t:max", true },
	{ "t:1000", "t:999", false },
	/* layers */
	{ "u:seccomp", "", false },
	{ "u:seccomp", "u:seccomp u:landlock", true },
	{ "u:seccomp u:landlock", "u:seccomp", false },
};

static void test_is_within_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		struct cr_capability req, base, ex;

		build(&req, cases[i].req);
		build(&base, cases[i].base);
		if (cr_capability_is_within(&req, &base) != cases[i].within)
			fail_msg("case %zu: '%s' within '%s' should be %s", i, cases[i].req,
				 cases[i].base, cases[i].within ? "true" : "false");
		/* the excess is empty exactly when the request is within, and is itself never
		 * within the baseline when not empty */
		assert_int_equal(cr_capability_excess(&req, &base, &ex), 0);
		{
			struct cr_capability none = {};
			bool empty = cr_capability_is_within(&ex, &none);

			if (empty != cases[i].within)
				fail_msg("case %zu: excess of '%s' over '%s' is %sempty", i,
					 cases[i].req, cases[i].base, empty ? "" : "not ");
		}
		/* monotone: the join of request and baseline contains both */
		{
			struct cr_capability j;

			assert_int_equal(cr_capability_join(&req, &base, &j), 0);
			assert_true(cr_capability_is_within(&req, &j));
			assert_true(cr_capability_is_within(&base, &j));
			cr_capability_done(&j);
		}
		cr_capability_done(&ex);
		cr_capability_done(&req);
		cr_capability_done(&base);
	}
}

/* Canonicalization happens before comparison: ".." and symlinks in a request cannot reach
 * outside a baseline path, and a trailing slash changes nothing. */
static void test_canonical_paths(void **state)
{
	char tmpl[] = "/tmp/cr-cap-XXXXXX", p[512];
	struct cr_capability base = {}, req = {};
	_cleanup_free_ char *a = NULL, *up = NULL, *link = NULL, *slash = NULL, *ab = NULL;

	(void)state;
	assert_non_null(mkdtemp(tmpl));
	(void)snprintf(p, sizeof(p), "%s/a", tmpl);
	assert_int_equal(mkdir(p, 0700), 0);
	(void)snprintf(p, sizeof(p), "%s/ab", tmpl);
	assert_int_equal(mkdir(p, 0700), 0);
	(void)snprintf(p, sizeof(p), "%s/a/l", tmpl);
	assert_int_equal(symlink("../ab", p), 0);

	(void)snprintf(p, sizeof(p), "%s/a", tmpl);
	assert_int_equal(cr_path_canonicalize(p, &a), 0);
	assert_int_equal(cr_capability_add_path(&base, true, a), 0);

	(void)snprintf(p, sizeof(p), "%s/a/../ab", tmpl);
	assert_int_equal(cr_path_canonicalize(p, &up), 0);
	(void)snprintf(p, sizeof(p), "%s/a/l", tmpl);
	assert_int_equal(cr_path_canonicalize(p, &link), 0);
	(void)snprintf(p, sizeof(p), "%s/a/", tmpl);
	assert_int_equal(cr_path_canonicalize(p, &slash), 0);
	(void)snprintf(p, sizeof(p), "%s/ab", tmpl);
	assert_int_equal(cr_path_canonicalize(p, &ab), 0);

	assert_string_equal(up, ab);
	assert_string_equal(link, ab); /* a symlink inside /a pointing out of it */
	assert_string_equal(slash, a);

	assert_int_equal(cr_capability_add_path(&req, true, up), 0);
	assert_false(cr_capability_is_within(&req, &base));
	cr_capability_done(&req);
	assert_int_equal(cr_capability_add_path(&req, false, link), 0);
	assert_false(cr_capability_is_within(&req, &base));
	cr_capability_done(&req);
	assert_int_equal(cr_capability_add_path(&req, true, slash), 0);
	assert_true(cr_capability_is_within(&req, &base));
	cr_capability_done(&req);
	cr_capability_done(&base);

	(void)snprintf(p, sizeof(p), "%s/a/l", tmpl);
	assert_int_equal(unlink(p), 0);
	(void)snprintf(p, sizeof(p), "%s/a", tmpl);
	assert_int_equal(rmdir(p), 0);
	(void)snprintf(p, sizeof(p), "%s/ab", tmpl);
	assert_int_equal(rmdir(p), 0);
	assert_int_equal(rmdir(tmpl), 0);
}

static void test_lists_stay_minimal(void **state)
{
	struct cr_capability c = {};

	(void)state;
	assert_int_equal(cr_capability_add_path(&c, false, "/srv/a/b"), 0);
	assert_int_equal(cr_capability_add_path(&c, false, "/srv/ab"), 0);
	assert_int_equal(cr_capability_add_path(&c, false, "/srv/a"), 0);
	assert_int_equal(cr_capability_add_path(&c, false, "/srv/a/c"), 0);
	assert_int_equal(c.n_fs_read, 2);
	assert_string_equal(c.fs_read[0], "/srv/ab");
	assert_string_equal(c.fs_read[1], "/srv/a");
	assert_null(c.fs_read[2]);
	assert_int_equal(cr_capability_add_host(&c, "a.example.com"), 0);
	assert_int_equal(cr_capability_add_host(&c, "*.EXAMPLE.com"), 0);
	assert_int_equal(cr_capability_add_host(&c, "b.example.com"), 0);
	assert_int_equal(c.n_hosts, 1);
	assert_string_equal(c.hosts[0], "*.example.com");
	assert_int_equal(c.net, CR_NETCAP_HOSTS);
	cr_capability_done(&c);
}

static void test_host_patterns(void **state)
{
	static const char *const good[] = {
		"github.com", "*.github.com", "a-b.c0.io", "localhost", "1.2.3.4", "255.255.255.255",
		"GitHub.COM", "x1.2y", "xn--bcher-kva.example", "github.com:443", "*.github.com:1",
		"1.2.3.4:65535",
	};
	static const char *const bad[] = {
		"", "*", "*.", "*.*.com", "a..b", ".a", "a.", "-a.com", "a-.com", "a_b.com", "a b",
		"127.1", "1.2.3", "1.2.3.4.5", "256.1.1.1", "*.1.2.3.4", "a.123", "héllo.com",
		"http://github.com", "a/b", "github.com:", "github.com:0", "github.com:65536",
		"github.com:0443", "github.com:443:1", "github.com:https", "github.com:-1", ":443",
		"*:443", "github.com: 443", "[::1]:443",
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.com", /* 64 */
	};

	(void)state;
	for (size_t i = 0; i < ELEMENTSOF(good); i++)
		if (cr_host_pattern_check(good[i]) != 0)
			fail_msg("'%s' should be a host pattern", good[i]);
	for (size_t i = 0; i < ELEMENTSOF(bad); i++)
		if (cr_host_pattern_check(bad[i]) != -EINVAL)
			fail_msg("'%s' should not be a host pattern", bad[i]);
	assert_true(cr_host_matches("*.example.com", "a.b.example.com"));
	assert_false(cr_host_matches("*.example.com", "example.com"));
	assert_false(cr_host_matches("*.example.com", "xexample.com"));
	assert_false(cr_host_matches("example.com", "*.example.com"));
	assert_true(cr_host_matches("example.com", "EXAMPLE.com"));
	/* Ports: a pattern without one covers every port; one with a port, that port only; a
	 * request without one (every port) only a pattern without one. */
	assert_true(cr_host_matches("example.com", "example.com:443"));
	assert_true(cr_host_matches("example.com:443", "example.com:443"));
	assert_false(cr_host_matches("example.com:443", "example.com:80"));
	assert_false(cr_host_matches("example.com:443", "example.com"));
	assert_true(cr_host_matches("*.example.com:443", "a.example.com:443"));
	assert_false(cr_host_matches("*.example.com:443", "a.example.com:8443"));
	assert_true(cr_host_matches("*.example.com", "*.a.example.com:22"));
	assert_false(cr_host_matches("*.example.com:22", "*.a.example.com"));
	assert_true(cr_host_matches("10.0.0.5:8080", "10.0.0.5:8080"));
	assert_false(cr_host_matches("10.0.0.5:8080", "10.0.0.50:8080"));
	assert_false(cr_host_matches("example.com:443", "example.com:0443"));
}

/* Host lists stay minimal across ports too: a port-less entry takes in the same name's ports. */
static void test_host_ports_minimal(void **state)
{
	struct cr_capability c = {}, req = {};

	(void)state;
	assert_int_equal(cr_capability_add_host(&c, "example.com:443"), 0);
	assert_int_equal(cr_capability_add_host(&c, "example.com:80"), 0);
	assert_int_equal(cr_capability_add_host(&c, "example.com:443"), 0);
	assert_int_equal(c.n_hosts, 2);
	assert_int_equal(cr_capability_add_host(&req, "example.com:8080"), 0);
	assert_false(cr_capability_is_within(&req, &c));
	assert_int_equal(cr_capability_add_host(&c, "EXAMPLE.com"), 0);
	assert_int_equal(c.n_hosts, 1);
	assert_string_equal(c.hosts[0], "example.com");
	assert_true(cr_capability_is_within(&req, &c));
	cr_capability_done(&req);
	cr_capability_done(&c);
}

static void test_join(void **state)
{
	struct cr_capability a, b, j;

	(void)state;
	build(&a, "r:/a w:/w h:x.com pids:10 t:100");
	build(&b, "r:/b h:y.com mem:5 spawn u:landlock t:max");
	assert_int_equal(cr_capability_join(&a, &b, &j), 0);
	assert_int_equal(j.n_fs_read, 2);
	assert_int_equal(j.n_fs_write, 1);
	assert_int_equal(j.net, CR_NETCAP_HOSTS);
	assert_int_equal(j.n_hosts, 2);
	assert_true(j.spawn);
	assert_int_equal(j.limit[CR_LIMIT_PIDS], 10);
	assert_int_equal(j.limit[CR_LIMIT_MEMORY], 5);
	assert_true(j.timeout_ms == UINT64_MAX);
	assert_int_equal(j.unconfined, CR_UNCONFINED_LANDLOCK);
	cr_capability_done(&j);
	cr_capability_done(&b);
	build(&b, "net:all");
	assert_int_equal(cr_capability_join(&a, &b, &j), 0);
	assert_int_equal(j.net, CR_NETCAP_ALL);
	assert_int_equal(j.n_hosts, 0); /* the whole network makes the list meaningless */
	cr_capability_done(&j);
	cr_capability_done(&b);
	cr_capability_done(&a);
}

static void test_excess(void **state)
{
	struct cr_capability req, base, ex;
	json_object *o;

	(void)state;
	build(&req, "r:/srv/data r:/usr/share w:/home/u/ws/out h:github.com h:evil.com pids:max "
		    "spawn u:seccomp");
	build(&base, "r:/usr w:/home/u/ws h:*.github.com h:github.com pids:4096 spawn");
	assert_int_equal(cr_capability_excess(&req, &base, &ex), 0);
	o = cr_capability_to_json(&ex, true);
	assert_non_null(o);
	assert_string_equal(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
								   JSON_C_TO_STRING_NOSLASHESCAPE),
			    "{\"fs_read\":[\"/srv/data\"],\"network\":\"allow_hosts\","
			    "\"allow_hosts\":[\"evil.com\"],\"limits\":{\"pids\":\"max\"},"
			    "\"unconfined\":[\"seccomp\"]}");
	json_object_put(o);
	cr_capability_done(&ex);
	cr_capability_done(&req);
	cr_capability_done(&base);
}

static void test_json_round_trip(void **state)
{
	struct cr_capability c, back;
	json_object *o, *o2;
	char msg[256] = "";

	(void)state;
	build(&c, "r:/a w:/b/c h:*.x.org spawn pids:7 mem:max t:1500 u:seccomp u:landlock");
	c.limit[CR_LIMIT_CPU] = 500;
	for (int as_request = 0; as_request < 2; as_request++) {
		o = cr_capability_to_json(&c, as_request);
		assert_non_null(o);
		assert_int_equal(cr_capability_from_json(o, &back, msg, sizeof(msg)), 0);
		o2 = cr_capability_to_json(&back, as_request);
		assert_string_equal(json_object_to_json_string(o), json_object_to_json_string(o2));
		assert_true(cr_capability_is_within(&c, &back));
		assert_true(cr_capability_is_within(&back, &c));
		assert_int_equal(back.limit[CR_LIMIT_CPU], 500);
		json_object_put(o);
		json_object_put(o2);
		cr_capability_done(&back);
	}
	cr_capability_done(&c);
}

static void test_json_refusals(void **state)
{
	static const char *const bad[] = {
		"[]",
		"{\"fs_read\":\"/a\"}",
		"{\"fs_read\":[\"a\"]}",
		"{\"fs_read\":[\"/a/../b\"]}",
		"{\"fs_write\":[\"/a/\"]}",
		"{\"fs_write\":[\"/a//b\"]}",
		"{\"fs_write\":[\"/a\\nb\"]}",
		"{\"network\":\"some\"}",
		"{\"network\":\"allow_hosts\"}",
		"{\"network\":\"all\",\"allow_hosts\":[\"a.com\"]}",
		"{\"network\":\"allow_hosts\",\"allow_hosts\":[\"a..com\"]}",
		"{\"spawn\":\"yes\"}",
		"{\"limits\":{\"memroy\":1}}",
		"{\"limits\":{\"pids\":0}}",
		"{\"limits\":{\"pids\":-1}}",
		"{\"limits\":{\"pids\":\"lots\"}}",
		"{\"timeout_ms\":-5}",
		"{\"unconfined\":[\"apparmor\"]}",
		"{\"extra\":1}",
	};
	char msg[256];

	(void)state;
	for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
		json_object *o = json_tokener_parse(bad[i]);
		struct cr_capability c = { .spawn = true };

		assert_non_null(o);
		msg[0] = '\0';
		if (cr_capability_from_json(o, &c, msg, sizeof(msg)) != -EINVAL || !msg[0])
			fail_msg("'%s' should be refused with a reason", bad[i]);
		assert_true(c.spawn); /* untouched on failure */
		json_object_put(o);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_is_within_table), cmocka_unit_test(test_canonical_paths),
		cmocka_unit_test(test_lists_stay_minimal), cmocka_unit_test(test_host_patterns),
		cmocka_unit_test(test_host_ports_minimal),
		cmocka_unit_test(test_join),		  cmocka_unit_test(test_excess),
		cmocka_unit_test(test_json_round_trip),	  cmocka_unit_test(test_json_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
