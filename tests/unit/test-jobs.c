/* SPDX-License-Identifier: MIT */
/* Unit tests for ns/jobs.c: reading a process's state from its /proc/PID/stat, as the sandbox's
 * pid 1 does to follow a SIGSTOP of corral. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "ns/linux-internal.h"

static bool stopped(const char *stat)
{
	return cr_jobs_stat_stopped(stat, strlen(stat));
}

static void test_states(void **state)
{
	assert_true(stopped("4242 (corral) T 1 4242 4242 34816 4242 4194304 1"));
	assert_false(stopped("4242 (corral) S 1 4242 4242 34816 4242 4194304 1"));
	assert_false(stopped("4242 (corral) R 1 4242"));
	/* Stopped by a debugger (tracing stop) is not job control. */
	assert_false(stopped("4242 (corral) t 1 4242"));
	assert_false(stopped("4242 (corral) Z 1 4242"));
}

static void test_comm_with_parentheses(void **state)
{
	/* A process names itself as it likes; only the last ')' ends the name. */
	assert_false(stopped("4242 (a) T (b) S 1 4242"));
	assert_true(stopped("4242 (a) S (b) T 1 4242"));
	assert_true(stopped("4242 () T) T 1"));
	assert_false(stopped("4242 ( ) T ) R 1"));
}

static void test_short_or_malformed(void **state)
{
	assert_true(stopped("1 (x) T"));
	assert_false(stopped("1 (x) "));
	assert_false(stopped("1 (x)"));
	assert_false(stopped("1 (x"));
	assert_false(stopped(""));
	assert_false(stopped("1 (x)T"));
	/* Cut short by the reader: the state is within the bytes read or it is not known. */
	assert_false(cr_jobs_stat_stopped("4242 (corral) T 1", 14));
	assert_true(cr_jobs_stat_stopped("4242 (corral) T 1", 15));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_states),
		cmocka_unit_test(test_comm_with_parentheses),
		cmocka_unit_test(test_short_or_malformed),
	};

	return cmocka_run_group_tests_name("jobs", tests, NULL, NULL);
}
