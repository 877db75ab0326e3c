/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fd-util.h"
#include "macro.h"

/* An insertion sort: qsort may allocate, and the list is a handful of descriptors. */
static void sort_fds(int *v, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		int x = v[i];
		size_t j = i;

		for (; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

int cr_close_all_except(int from, int *keep, size_t n)
{
	unsigned lo;

	if (from < 0)
		return -EINVAL;
	lo = (unsigned)from;
	sort_fds(keep, n);
	for (size_t i = 0; i < n; i++) {
		if (keep[i] < from)
			continue;
		if ((unsigned)keep[i] > lo && syscall(SYS_close_range, lo, keep[i] - 1, 0) < 0)
			return negative_errno();
		lo = (unsigned)keep[i] + 1;
	}
	if (syscall(SYS_close_range, lo, ~0u, 0) < 0)
		return negative_errno();
	return 0;
}
