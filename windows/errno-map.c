/* SPDX-License-Identifier: MIT */
/* GetLastError() codes to errno values, and to messages a person can act on. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <windows.h>

#include "errno-map.h"
#include "launcher/base/macro.h"

/* clang-format off */
static const struct {
	DWORD win;
	int err;
} errno_table[] = {
	{ ERROR_FILE_NOT_FOUND,		ENOENT },
	{ ERROR_PATH_NOT_FOUND,		ENOENT },
	{ ERROR_INVALID_DRIVE,		ENOENT },
	{ ERROR_BAD_NETPATH,		ENOENT },
	{ ERROR_MOD_NOT_FOUND,		ENOENT },
	{ ERROR_ACCESS_DENIED,		EACCES },
	{ ERROR_SHARING_VIOLATION,	EBUSY },
	{ ERROR_LOCK_VIOLATION,		EBUSY },
	{ ERROR_BUSY,			EBUSY },
	{ ERROR_PRIVILEGE_NOT_HELD,	EPERM },
	{ ERROR_NOT_ALL_ASSIGNED,	EPERM },
	{ ERROR_INVALID_OWNER,		EPERM },
	{ ERROR_BAD_TOKEN_TYPE,		EPERM },
	{ ERROR_NOT_ENOUGH_MEMORY,	ENOMEM },
	{ ERROR_OUTOFMEMORY,		ENOMEM },
	{ ERROR_NOT_ENOUGH_QUOTA,	ENOMEM },
	{ ERROR_COMMITMENT_LIMIT,	ENOMEM },
	{ ERROR_INVALID_PARAMETER,	EINVAL },
	{ ERROR_INVALID_FLAGS,		EINVAL },
	{ ERROR_INVALID_NAME,		EINVAL },
	{ ERROR_BAD_ENVIRONMENT,	EINVAL },
	{ ERROR_INVALID_SID,		EINVAL },
	{ ERROR_INVALID_ACL,		EINVAL },
	{ ERROR_INVALID_HANDLE,		EBADF },
	{ ERROR_DIRECT_ACCESS_HANDLE,	EBADF },
	{ ERROR_NOT_SUPPORTED,		ENOTSUP },
	{ ERROR_CALL_NOT_IMPLEMENTED,	ENOSYS },
	{ ERROR_PROC_NOT_FOUND,		ENOSYS },
	{ ERROR_BAD_EXE_FORMAT,		ENOEXEC },
	{ ERROR_EXE_MACHINE_TYPE_MISMATCH, ENOEXEC },
	{ ERROR_BAD_FORMAT,		ENOEXEC },
	{ ERROR_FILENAME_EXCED_RANGE,	ENAMETOOLONG },
	{ ERROR_BUFFER_OVERFLOW,	ENAMETOOLONG },
	{ ERROR_ALREADY_EXISTS,		EEXIST },
	{ ERROR_FILE_EXISTS,		EEXIST },
	{ ERROR_DIRECTORY,		ENOTDIR },
	{ ERROR_DIR_NOT_EMPTY,		ENOTEMPTY },
	{ ERROR_BROKEN_PIPE,		EPIPE },
	{ ERROR_NO_DATA,		EPIPE },
	{ ERROR_WAIT_NO_CHILDREN,	ECHILD },
	{ ERROR_TIMEOUT,		ETIMEDOUT },
	{ WAIT_TIMEOUT,			ETIMEDOUT },
	{ ERROR_DISK_FULL,		ENOSPC },
	{ ERROR_HANDLE_DISK_FULL,	ENOSPC },
	{ ERROR_TOO_MANY_OPEN_FILES,	EMFILE },
	{ ERROR_NOT_READY,		EAGAIN },
	{ ERROR_OPERATION_ABORTED,	EINTR },
};
/* clang-format on */

/* The last code cr_win_errno() mapped, for the message: by the time a caller formats it,
 * cleanup (CloseHandle, LocalFree) may have changed GetLastError(). */
static __thread DWORD last_code;

DWORD cr_win_last_code(void)
{
	return last_code;
}

int cr_win_errno(DWORD err)
{
	last_code = err;
	for (size_t i = 0; i < ELEMENTSOF(errno_table); i++)
		if (errno_table[i].win == err)
			return -errno_table[i].err;
	return -EIO;
}

int cr_win_last_errno(void)
{
	return cr_win_errno(GetLastError());
}

void cr_win_error_message(DWORD err, const char *what, char *buf, size_t size)
{
	wchar_t text[512];
	char utf8[1024] = "";
	DWORD n;

	n = FormatMessageW(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, err,
			   MAKELANGID(LANG_ENGLISH, SUBLANG_DEFAULT), text, ELEMENTSOF(text), NULL);
	if (n == 0) /* no English text installed: the user's language then */
		n = FormatMessageW(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL,
				   err, 0, text, ELEMENTSOF(text), NULL);
	while (n > 0 && (text[n - 1] == L'\n' || text[n - 1] == L'\r' || text[n - 1] == L' ' ||
			 text[n - 1] == L'.'))
		n--;
	if (n > 0 &&
	    WideCharToMultiByte(CP_UTF8, 0, text, (int)n, utf8, sizeof(utf8) - 1, NULL, NULL) <= 0)
		utf8[0] = '\0';
	if (utf8[0])
		(void)snprintf(buf, size, "%s: %s (Windows error %lu)", what, utf8,
			       (unsigned long)err);
	else
		(void)snprintf(buf, size, "%s: Windows error %lu", what, (unsigned long)err);
}
