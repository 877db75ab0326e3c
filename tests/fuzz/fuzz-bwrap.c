/* SPDX-License-Identifier: MIT */
/* launcher/bwrap/args.c: bwrap's command line. Invariants: it parses (0, with a command) or is
 * refused (< 0, with bwrap's one-line message); every filesystem operation has a destination and
 * a mode that is a mode or unset; the same input parses the same way twice. The input is the
 * arguments, separated by NUL. Options that read a descriptor (--args, --file, the data binds,
 * the seccomp programs) are left out: they would read the fuzzer's own input. */
#include <errno.h>

#include "fuzz-util.h"
#include "launcher/bwrap/args.h"

#define MAX_ARGS 64

static bool reads_fd(const char *a)
{
	static const char *const opts[] = { "--args", "--file", "--bind-data", "--ro-bind-data",
					    "--seccomp", "--add-seccomp-fd" };

	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
		if (strcmp(a, opts[i]) == 0)
			return true;
	return false;
}

static int parse(int argc, char **argv, struct cr_bwrap *b, char *msg, size_t size)
{
	return cr_bwrap_parse(argc, argv, 1000, 1000, 0, CR_BWRAP_HARDENED, b, msg, size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf, **v, *argv[MAX_ARGS + 1] = { (char *)"bwrap" };
	struct cr_bwrap a, b;
	char msg[512], msg2[512];
	int argc = 1, r, r2;
	size_t n;

	v = fuzz_split(data, size, MAX_ARGS - 1, &buf, &n);
	for (size_t i = 0; v[i]; i++) {
		if (reads_fd(v[i]))
			goto out;
		argv[argc++] = v[i];
	}
	r = parse(argc, argv, &a, msg, sizeof(msg));
	r2 = parse(argc, argv, &b, msg2, sizeof(msg2));
	FUZZ_CHECK(r == r2, "%d then %d", r, r2);
	if (r < 0) {
		FUZZ_CHECK(r == -EINVAL || r == -EOPNOTSUPP || r == -ELOOP || r == -ENOMEM, "%d", r);
		FUZZ_CHECK((a.help || a.version) || msg[0], "no message for %d", r);
		FUZZ_CHECK(strcmp(msg, msg2) == 0, "%s / %s", msg, msg2);
	} else if (!a.help && !a.version) {
		FUZZ_CHECK(a.policy.argv && a.policy.argv[0], "no command");
		FUZZ_CHECK(a.policy.n_fs_ops == b.policy.n_fs_ops, "operations differ");
		for (size_t i = 0; i < a.policy.n_fs_ops; i++) {
			const struct cr_fs_op *op = &a.policy.fs_ops[i];

			FUZZ_CHECK(op->dst, "operation %zu has no destination", i);
			FUZZ_CHECK(op->mode == CR_FS_MODE_UNSET || op->mode <= 07777, "mode %o",
				   op->mode);
		}
	}
	cr_bwrap_done(&a);
	cr_bwrap_done(&b);
out:
	free(v);
	free(buf);
	return 0;
}
