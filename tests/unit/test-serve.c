/* SPDX-License-Identifier: MIT */
/* Unit tests for `corral serve`'s protocol (launcher/serve/serve-proto.c): every request type's good
 * form, and refusals of malformed, truncated and non-UTF-8 messages, wrong types, unknown and
 * missing fields; then the server itself over pipes (cr_serve_main in a child, --stdio, no
 * sandbox needed): a bad message and an oversized one are answered with an error and the
 * server keeps serving. Also the peer check's cgroup test (launcher/base/peer.c) and which of a
 * policy's paths would show the server's socket to a sandbox. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launcher/base/macro.h"
#include "launcher/base/peer.h"
#include "launcher/serve/serve-internal.h"
#include "launcher/serve/serve.h"

static int parse(const char *line, struct cr_serve_request *r, struct cr_serve_error *e)
{
	return cr_serve_parse(line, strlen(line), r, e);
}

/* @line is refused with error @code. */
static void refused(const char *line, const char *code)
{
	struct cr_serve_request r = {};
	struct cr_serve_error e = {};
	int k = parse(line, &r, &e);

	if (k != -EINVAL || !e.code || strcmp(e.code, code) != 0)
		fail_msg("%s: got %d %s (%s), want %s", line, k, e.code ?: "-", e.message, code);
	assert_non_null(e.message[0] ? e.message : NULL);
	cr_serve_error_done(&e);
}

static void test_good_forms(void **state)
{
	struct cr_serve_request r = {};
	struct cr_serve_error e = {};

	assert_int_equal(parse("{\"type\":\"open_session\",\"id\":\"s1\"}", &r, &e), 0);
	assert_int_equal(r.type, CR_SERVE_OPEN_SESSION);
	assert_string_equal(r.session, "s1");
	assert_null(r.profile);
	cr_serve_request_done(&r);

	assert_int_equal(parse("{\"type\":\"open_session\",\"id\":7,\"session\":\"a "
			       "b\",\"profile\":\"strict\",\"workspace\":\"/w\"}",
			       &r, &e),
			 0);
	assert_string_equal(r.session, "a b");
	assert_string_equal(r.profile, "strict");
	assert_string_equal(r.workspace, "/w");
	assert_int_equal(json_object_get_int(r.id), 7);
	cr_serve_request_done(&r);

	assert_int_equal(parse("{\"type\":\"exec\",\"id\":\"x\",\"session\":\"s1\",\"argv\":["
			       "\"echo\",\"hi\"],"
			       "\"cwd\":\"/tmp\",\"env\":{\"A\":\"1\",\"B\":\"\"},\"stdin\":\"in\","
			       "\"timeout_ms\":500,\"max_output_bytes\":10}",
			       &r, &e),
			 0);
	assert_int_equal(r.type, CR_SERVE_EXEC);
	assert_string_equal(r.argv[0], "echo");
	assert_string_equal(r.argv[1], "hi");
	assert_null(r.argv[2]);
	assert_null(r.shell);
	assert_string_equal(r.cwd, "/tmp");
	assert_string_equal(r.env[0], "A=1");
	assert_string_equal(r.env[1], "B=");
	assert_int_equal(r.stdin_len, 2);
	assert_memory_equal(r.stdin_data, "in", 2);
	assert_int_equal(r.timeout_ms, 500);
	assert_int_equal(r.max_output, 10);
	assert_false(r.has_caps);
	cr_serve_request_done(&r);

	assert_int_equal(parse("{\"type\":\"exec\",\"session\":\"s1\",\"shell\":\"ls | wc "
			       "-l\",\"stdin_base64\":\"AP8=\","
			       "\"request\":{\"network\":\"all\"}}",
			       &r, &e),
			 0);
	assert_string_equal(r.shell, "ls | wc -l");
	assert_null(r.argv);
	assert_int_equal(r.stdin_len, 2);
	assert_memory_equal(r.stdin_data, "\0\xff", 2);
	assert_int_equal(r.max_output, CR_SERVE_DEFAULT_OUTPUT);
	assert_true(r.has_caps);
	assert_int_equal(r.caps.net, CR_NETCAP_ALL);
	cr_serve_request_done(&r);

	assert_int_equal(
		parse("{\"type\":\"approve\",\"request_id\":\"r-1\",\"scope\":\"permanent\"}", &r,
		      &e),
		0);
	assert_int_equal(r.type, CR_SERVE_APPROVE);
	assert_int_equal(r.scope, CR_SERVE_SCOPE_PERMANENT);
	cr_serve_request_done(&r);
	assert_int_equal(parse("{\"type\":\"deny\",\"request_id\":\"r-1\",\"id\":1.5}", &r, &e), 0);
	assert_int_equal(r.type, CR_SERVE_DENY);
	cr_serve_request_done(&r);
	assert_int_equal(parse("{\"type\":\"close_session\",\"session\":\"s1\"}", &r, &e), 0);
	assert_int_equal(r.type, CR_SERVE_CLOSE_SESSION);
	cr_serve_request_done(&r);
	assert_int_equal(parse(" {\"type\":\"stats\"} \r", &r, &e), 0);
	assert_int_equal(r.type, CR_SERVE_STATS);
	assert_null(r.id);
	cr_serve_request_done(&r);
	/* Non-ASCII but valid UTF-8 passes. */
	assert_int_equal(parse("{\"type\":\"exec\",\"session\":\"s\xc3\xa9\",\"shell\":\"echo "
			       "\xe2\x82\xac \xf0\x9f\x98\x80\"}",
			       &r, &e),
			 0);
	cr_serve_request_done(&r);
}

static void test_malformed(void **state)
{
	refused("", "bad_json");
	refused("not json", "bad_json");
	refused("{\"type\":\"stats\"", "bad_json");             /* truncated */
	refused("{\"type\":\"stats\",\"id\":\"ab", "bad_json"); /* truncated in a string */
	refused("{\"type\":\"stats\"} x", "bad_json");          /* trailing text */
	refused("{\"type\":\"stats\"}{}", "bad_json");
	refused("[1,2]", "bad_json");
	refused("\"stats\"", "bad_json");
	refused("{'type':'stats'}", "bad_json");
	refused("{\"type\":\"stats\",}", "bad_json"); /* strict: no trailing comma */
	refused("[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]"
		"]]]]]]]]]]]]]]]]]]]]]]]]]]",
		"bad_json"); /* too deep */
}

static void test_bad_utf8(void **state)
{
	refused("{\"type\":\"stats\",\"id\":\"\xff\"}", "bad_utf8");
	refused("{\"type\":\"stats\",\"id\":\"\x80\"}", "bad_utf8");         /* lone continuation */
	refused("{\"type\":\"stats\",\"id\":\"\xc0\xaf\"}", "bad_utf8");     /* overlong '/' */
	refused("{\"type\":\"stats\",\"id\":\"\xe0\x80\xaf\"}", "bad_utf8"); /* overlong */
	refused("{\"type\":\"stats\",\"id\":\"\xed\xa0\x80\"}", "bad_utf8"); /* surrogate */
	refused("{\"type\":\"stats\",\"id\":\"\xf4\x90\x80\x80\"}", "bad_utf8"); /* > U+10FFFF */
	refused("{\"type\":\"stats\",\"id\":\"\xe2\x82\"}", "bad_utf8");         /* cut short */
	assert_true(cr_serve_utf8_valid("\xf4\x8f\xbf\xbf", 4));
	assert_false(cr_serve_utf8_valid("\xe2\x82", 2));
	/* A NUL byte inside the line is not JSON. */
	{
		struct cr_serve_request r = {};
		struct cr_serve_error e = {};

		assert_int_equal(cr_serve_parse("{\"type\":\0\"stats\"}", 18, &r, &e), -EINVAL);
		assert_string_equal(e.code, "bad_json");
	}
}

static void test_fields(void **state)
{
	refused("{\"id\":1}", "bad_field"); /* no type */
	refused("{\"type\":5}", "bad_field");
	refused("{\"type\":\"launch\"}", "unknown_type");
	refused("{\"type\":\"stats\",\"id\":true}", "bad_field");
	refused("{\"type\":\"stats\",\"id\":[1]}", "bad_field");
	refused("{\"type\":\"stats\",\"extra\":1}", "bad_field"); /* unknown field */
	refused("{\"type\":\"open_session\"}", "bad_field");      /* no session id */
	refused("{\"type\":\"open_session\",\"id\":3}", "bad_field");
	refused("{\"type\":\"open_session\",\"id\":\"\"}", "bad_field");
	refused("{\"type\":\"open_session\",\"id\":\"a\\nb\"}", "bad_field"); /* control char */
	refused("{\"type\":\"open_session\",\"id\":\"s\",\"workspace\":\"rel\"}", "bad_field");
	refused("{\"type\":\"open_session\",\"id\":\"s\",\"profile\":1}", "bad_field");
	refused("{\"type\":\"open_session\",\"id\":\"s\",\"argv\":[\"x\"]}", "bad_field");
	refused("{\"type\":\"exec\",\"argv\":[\"x\"]}", "bad_field");  /* no session */
	refused("{\"type\":\"exec\",\"session\":\"s\"}", "bad_field"); /* neither argv nor shell */
	refused("{\"type\":\"exec\",\"session\":\"s\",\"argv\":[\"x\"],\"shell\":\"x\"}",
		"bad_field");
	refused("{\"type\":\"exec\",\"session\":\"s\",\"argv\":[]}", "bad_field");
	refused("{\"type\":\"exec\",\"session\":\"s\",\"argv\":\"ls\"}", "bad_field");
	refused("{\"type\":\"exec\",\"session\":\"s\",\"argv\":[\"ls\",1]}", "bad_field");
	refused("{\"type\":\"exec\",\"session\":\"s\",\"argv\":[\"l\\u0000s\"]}", "bad_field");
	refused("{\"type\":\"exec\",\"session\":\"s\",\"argv\":[\"\"]}", "bad_field");
	refused("{\"type\":\"exec\",\"session\":\"s\",\"shell\":\"\"}", "bad_field");
	refused("{\"type\":\"exec\",\"session\":\"s\",\"shell\":\"ls\",\"cwd\":\"tmp\"}",
		"bad_field");
	refused("{\"type\":\"exec\",\"session\":\"s\",\"shell\":\"ls\",\"env\":[\"A=1\"]}",
		"bad_field");
	refused("{\"type\":\"exec\",\"session\":\"s\",\"shell\":\"ls\",\"env\":{\"A\":1}}",
		"bad_field");
	refused("{\"type\":\"exec\",\"session\":\"s\",\"shell\":\"ls\",\"env\":{\"A=B\":\"1\"}}",
		"bad_field");
	refused("{\"type\":\"exec\",\"session\":\"s\",\"shell\":\"ls\",\"env\":{\"\":\"1\"}}",
		"bad_field");
	refused("{\"type\":\"exec\",\"session\":\"s\",\"shell\":\"ls\",\"timeout_ms\":0}",
		"bad_field");
	refused("{\"type\":\"exec\",\"session\":\"s\",\"shell\":\"ls\",\"timeout_ms\":-5}",
		"bad_field");
	refused("{\"type\":\"exec\",\"session\":\"s\",\"shell\":\"ls\",\"timeout_ms\":1.5}",
		"bad_field");
	refused("{\"type\":\"exec\",\"session\":\"s\",\"shell\":\"ls\",\"timeout_ms\":\"5\"}",
		"bad_field");
	refused("{\"type\":\"exec\",\"session\":\"s\",\"shell\":\"ls\",\"timeout_ms\":"
		"99999999999999999999}",
		"bad_field");
	refused("{\"type\":\"exec\",\"session\":\"s\",\"shell\":\"ls\",\"max_output_bytes\":"
		"67108865}",
		"bad_field");
	refused("{\"type\":\"exec\",\"session\":\"s\",\"shell\":\"ls\",\"stdin\":\"a\",\"stdin_"
		"base64\":\"YQ==\"}",
		"bad_field");
	refused("{\"type\":\"exec\",\"session\":\"s\",\"shell\":\"ls\",\"stdin\":5}", "bad_field");
	refused("{\"type\":\"exec\",\"session\":\"s\",\"shell\":\"ls\",\"stdin_base64\":\"YQ=\"}",
		"bad_field");
	refused("{\"type\":\"exec\",\"session\":\"s\",\"shell\":\"ls\",\"stdin_base64\":\"Y*==\"}",
		"bad_field");
	refused("{\"type\":\"exec\",\"session\":\"s\",\"shell\":\"ls\",\"request\":[]}",
		"bad_field");
	refused("{\"type\":\"exec\",\"session\":\"s\",\"shell\":\"ls\",\"request\":{\"network\":"
		"\"some\"}}",
		"bad_field");
	refused("{\"type\":\"exec\",\"session\":\"s\",\"shell\":\"ls\",\"request\":{\"fs_read\":["
		"\"rel\"]}}",
		"bad_field");
	refused("{\"type\":\"approve\",\"request_id\":\"r-1\"}", "bad_field"); /* no scope */
	refused("{\"type\":\"approve\",\"request_id\":\"r-1\",\"scope\":\"forever\"}", "bad_field");
	refused("{\"type\":\"approve\",\"scope\":\"once\"}", "bad_field");
	refused("{\"type\":\"deny\",\"request_id\":\"r-1\",\"scope\":\"once\"}", "bad_field");
	refused("{\"type\":\"close_session\"}", "bad_field");
}

static void test_error_echoes_id(void **state)
{
	struct cr_serve_request r = {};
	struct cr_serve_error e = {};
	json_object *o;

	assert_int_equal(parse("{\"type\":\"exec\",\"id\":\"q7\",\"session\":\"s\"}", &r, &e),
			 -EINVAL);
	assert_string_equal(json_object_get_string(e.id), "q7");
	o = cr_serve_error_json(e.id, e.code, e.message);
	assert_string_equal(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
			    "{\"type\":\"error\",\"id\":\"q7\",\"error\":\"bad_field\",\"message\":"
			    "\"give \\\"argv\\\" or \\\"shell\\\" (exactly one)\"}");
	json_object_put(o);
	cr_serve_error_done(&e);
}

static void test_base64(void **state)
{
	const char *in[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
	const char *out[] = {"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};

	for (size_t i = 0; i < ELEMENTSOF(in); i++) {
		_cleanup_free_ char *enc = cr_serve_base64_encode(in[i], strlen(in[i]));
		_cleanup_free_ char *dec = NULL;
		size_t n;

		assert_string_equal(enc, out[i]);
		assert_int_equal(cr_serve_base64_decode(enc, strlen(enc), &dec, &n), 0);
		assert_int_equal(n, strlen(in[i]));
		assert_memory_equal(dec, in[i], n);
	}
}

/* --- the server over pipes ---------------------------------------------------------------- */

struct server {
	pid_t pid;
	int to, from;
	FILE *in;
};

static void server_start(struct server *s, const char *max_message)
{
	int a[2], b[2];

	assert_int_equal(pipe2(a, O_CLOEXEC), 0);
	assert_int_equal(pipe2(b, O_CLOEXEC), 0);
	s->pid = fork();
	assert_true(s->pid >= 0);
	if (s->pid == 0) {
		char *argv[] = {"serve",         "--stdio",           "--no-audit",
				"--max-message", (char *)max_message, NULL};

		(void)dup2(a[0], 0);
		(void)dup2(b[1], 1);
		close(a[1]); /* else the server never sees the end of its input */
		close(b[0]);
		_exit(cr_serve_main(5, argv));
	}
	close(a[0]);
	close(b[1]);
	s->to = a[1];
	s->from = b[0];
	s->in = fdopen(b[0], "r");
}

static void send_raw(struct server *s, const char *data, size_t len)
{
	assert_int_equal(write(s->to, data, len), (ssize_t)len);
}

static void send_str(struct server *s, const char *str)
{
	send_raw(s, str, strlen(str));
}

static json_object *recv_line(struct server *s)
{
	char *line = NULL;
	size_t size = 0;
	json_object *o;

	assert_true(getline(&line, &size, s->in) > 0);
	o = json_tokener_parse(line);
	free(line);
	assert_non_null(o);
	return o;
}

static void expect(struct server *s, const char *type, const char *error)
{
	json_object *o = recv_line(s), *v;

	assert_true(json_object_object_get_ex(o, "type", &v));
	assert_string_equal(json_object_get_string(v), type);
	if (error) {
		assert_true(json_object_object_get_ex(o, "error", &v));
		assert_string_equal(json_object_get_string(v), error);
	}
	json_object_put(o);
}

static void test_server_keeps_serving(void **state)
{
	struct server s;
	_cleanup_free_ char *big = malloc(5000);
	int status;

	setenv("XDG_STATE_HOME", "/nonexistent-cr-test", 1);
	server_start(&s, "1024");
	send_str(&s, "{\"type\":\"stats\",\"id\":1}\n");
	expect(&s, "stats_result", NULL);
	send_str(&s, "garbage\n");
	expect(&s, "error", "bad_json");
	send_str(&s, "{\"type\":\"stats\",\"id\":\"\xff\"}\n");
	expect(&s, "error", "bad_utf8");
	/* Oversized, in pieces: refused once, skipped to its newline. */
	memset(big, 'x', 5000);
	send_raw(&s, big, 3000);
	expect(&s, "error", "too_large");
	send_raw(&s, big, 2000);
	send_str(&s, "\n{\"type\":\"stats\",\"id\":2}\n");
	expect(&s, "stats_result", NULL);
	/* Oversized, whole. */
	send_raw(&s, big, 1500);
	send_str(&s, "\n");
	expect(&s, "error", "too_large");
	send_str(&s, "{\"type\":\"exec\",\"session\":\"nope\",\"shell\":\"true\"}\n");
	expect(&s, "error", "no_such_session");
	send_str(&s, "{\"type\":\"approve\",\"request_id\":\"r-9\",\"scope\":\"once\"}\n");
	expect(&s, "error", "no_such_request");
	send_str(&s, "{\"type\":\"close_session\",\"session\":\"nope\"}\n");
	expect(&s, "error", "no_such_session");
	send_str(&s, "{\"type\":\"stats\",\"id\":3}\n");
	expect(&s, "stats_result", NULL);
	/* A last line without its newline, then end of input: the server stops with 0. */
	send_str(&s, "{\"type\":");
	close(s.to);
	assert_int_equal(waitpid(s.pid, &status, 0), s.pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	fclose(s.in);
}

static void test_peer_cgroup(void **state)
{
	(void)state;
	/* A run's cgroup as root (v1 and v2), a user's delegated one, a warm session's. */
	assert_true(cr_peer_cgroup_is_sandbox("8:pids:/corral/run-4242-1\n0::/\n"));
	assert_true(cr_peer_cgroup_is_sandbox("0::/corral/run-4242-17\n"));
	assert_true(cr_peer_cgroup_is_sandbox("0::/user.slice/user-1000.slice/user@1000.service/"
					      "app.slice/x.scope/run-9-2/sub\n"));
	assert_true(cr_peer_cgroup_is_sandbox("12:cpu,cpuacct:/a/run-1-1"));
	/* Not sandboxes: corral's own leaf, lookalikes, other fields. */
	assert_false(cr_peer_cgroup_is_sandbox("0::/user.slice/corral-launcher\n"));
	assert_false(cr_peer_cgroup_is_sandbox("0::/run-x-1\n0::/run-1\n0::/run-1-\n0::/run--1\n"));
	assert_false(cr_peer_cgroup_is_sandbox("0::/run-1-2-3\n0::/xrun-1-2\n0::/run-1-2x\n"));
	assert_false(cr_peer_cgroup_is_sandbox("run-1-2:run-1-2:/ok\n"));
	assert_false(cr_peer_cgroup_is_sandbox(""));
	assert_false(cr_peer_cgroup_is_sandbox("0::/\n9:name=systemd:/user.slice\n"));
}

static void test_policy_shows(void **state)
{
	static const char *const sys[] = {"/usr", "/etc", NULL};
	struct cr_path_rule rules[] = {
		{"/srv/data", CR_PATH_RO},
		{"/home/u/proj/secret", CR_PATH_HIDE},
		{"/home/u/proj/secret/open", CR_PATH_RW},
	};
	struct cr_policy p = {.workspace = "/home/u/proj", .paths = rules, .n_paths = 3};

	(void)state;
	assert_string_equal(cr_serve_policy_shows(&p, sys, "/home/u/proj/s.sock"), "/home/u/proj");
	assert_string_equal(cr_serve_policy_shows(&p, sys, "/srv/data/a/s"), "/srv/data");
	assert_string_equal(cr_serve_policy_shows(&p, sys, "/etc/corral.sock"), "/etc");
	assert_null(cr_serve_policy_shows(&p, sys, "/home/u/proj/secret/s.sock"));
	assert_string_equal(cr_serve_policy_shows(&p, sys, "/home/u/proj/secret/open/s"),
			    "/home/u/proj/secret/open");
	assert_null(cr_serve_policy_shows(&p, sys, "/home/u/projx/s.sock"));
	assert_null(cr_serve_policy_shows(&p, sys, "/run/user/1000/corral.sock"));
	assert_null(cr_serve_policy_shows(&p, sys, "/srv/database"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_forms),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_bad_utf8),
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_error_echoes_id),
		cmocka_unit_test(test_base64),
		cmocka_unit_test(test_server_keeps_serving),
		cmocka_unit_test(test_peer_cgroup),
		cmocka_unit_test(test_policy_shows),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests_name("serve", tests, NULL, NULL);
}
