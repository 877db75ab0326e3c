/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "macro.h"
#include "read-file.h"

int cr_read_config_file(const char *path, size_t max, char **ret_text, size_t *ret_len, char *msg,
			size_t msg_size)
{
	_cleanup_free_ char *text = NULL;
	_cleanup_close_ int fd = -EBADF;
	ssize_t n;

	*ret_text = NULL;
	*ret_len = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0 && errno == ENOENT)
		return 0;
	if (fd < 0)
		return cr_msg(msg, msg_size, -errno, "%s: %s", path, strerror(errno));
	text = malloc(max + 1);
	if (!text)
		return cr_msg(msg, msg_size, -ENOMEM, "out of memory");
	n = read(fd, text, max + 1);
	if (n < 0)
		return cr_msg(msg, msg_size, -errno, "%s: %s", path, strerror(errno));
	if ((size_t)n > max)
		return cr_msg(msg, msg_size, -EFBIG, "%s: larger than %zu bytes", path, max);
	text[n] = '\0';
	*ret_len = (size_t)n;
	*ret_text = TAKE_PTR(text);
	return 0;
}
