/* SPDX-License-Identifier: MIT */
/* Unit tests for launcher/base/fd-util.c: every descriptor but the kept ones is closed, and a
 * close_range(2) that fails is an error, never a silent success. Each case runs in a child so
 * that the test process keeps its own descriptors. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launcher/base/fd-util.h"
#include "launcher/base/macro.h"

static bool is_open(int fd)
{
	return fcntl(fd, F_GETFD) >= 0;
}

/* Run @fn in a child; its exit status is what the test checks. */
static int in_child(int (*fn)(void))
{
	pid_t pid = fork();
	int status;

	assert_true(pid >= 0);
	if (pid == 0)
		_exit(fn());
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

/* Descriptors 10, 11, 12 and 20 open on /dev/null. */
static bool open_some(void)
{
	static const int fds[] = { 10, 11, 12, 20 };
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	for (size_t i = 0; i < ELEMENTSOF(fds); i++)
		if (dup2(fd, fds[i]) < 0)
			return false;
	return fd == 10 || fd == 11 || fd == 12 || fd == 20 || close(fd) == 0;
}

static int keeps_listed(void)
{
	int keep[] = { 20, 11, -1, 11, 1 }; /* unsorted, a repeat, one negative, one below 3 */

	if (!open_some() || cr_close_all_except(3, keep, ELEMENTSOF(keep)) < 0)
		return 1;
	if (!is_open(0) || !is_open(1) || !is_open(2) || !is_open(11) || !is_open(20))
		return 2;
	if (is_open(3) || is_open(10) || is_open(12) || is_open(21))
		return 3;
	return 0;
}

static void test_keeps_listed(void **state)
{
	(void)state;
	assert_int_equal(in_child(keeps_listed), 0);
}

static int from_zero(void)
{
	int keep[] = { 12, 10 };

	if (!open_some() || cr_close_all_except(0, keep, ELEMENTSOF(keep)) < 0)
		return 1;
	if (!is_open(10) || !is_open(12))
		return 2;
	if (is_open(0) || is_open(1) || is_open(2) || is_open(11) || is_open(20))
		return 3;
	return 0;
}

static void test_from_zero(void **state)
{
	(void)state;
	assert_int_equal(in_child(from_zero), 0);
}

static int none_kept(void)
{
	if (!open_some() || cr_close_all_except(3, NULL, 0) < 0)
		return 1;
	if (!is_open(2) || is_open(10) || is_open(20))
		return 2;
	return 0;
}

static void test_none_kept(void **state)
{
	(void)state;
	assert_int_equal(in_child(none_kept), 0);
}

/* close_range(2) refused with EPERM by a seccomp filter: the error comes back, and it is not
 * taken for success. */
static int refused(void)
{
	struct sock_filter insns[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_close_range, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = ELEMENTSOF(insns), .filter = insns };
	int keep[] = { 11 };

	if (!open_some() || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0)
		return 1;
	if (cr_close_all_except(3, keep, ELEMENTSOF(keep)) != -EPERM)
		return 2;
	return 0;
}

static void test_refused_is_an_error(void **state)
{
	(void)state;
	assert_int_equal(in_child(refused), 0);
}

static void test_negative_from(void **state)
{
	(void)state;
	assert_int_equal(cr_close_all_except(-1, NULL, 0), -EINVAL);
}

/* A descriptor closed early with closep() and then left to _cleanup_close_ at the scope's end:
 * meanwhile its number went to another descriptor (in the pool, another thread's), which must
 * survive the scope. */
static void scope_closing_early(int *ret_other)
{
	_cleanup_close_ int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	closep(&fd);
	assert_int_equal(fd, -EBADF);
	*ret_other = open("/dev/null", O_RDONLY | O_CLOEXEC); /* the lowest number: fd's */
}

static void test_closep_once(void **state)
{
	int other;

	(void)state;
	scope_closing_early(&other);
	assert_true(other >= 0);
	assert_int_equal(fcntl(other, F_GETFD), FD_CLOEXEC); /* still open */
	assert_int_equal(close(other), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keeps_listed),
		cmocka_unit_test(test_from_zero),
		cmocka_unit_test(test_none_kept),
		cmocka_unit_test(test_refused_is_an_error),
		cmocka_unit_test(test_negative_from),
		cmocka_unit_test(test_closep_once),
	};

	return cmocka_run_group_tests_name("fd-util", tests, NULL, NULL);
}
