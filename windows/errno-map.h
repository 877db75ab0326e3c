/* SPDX-License-Identifier: MIT */
/* The windows driver's adapter for GetLastError(): every Win32 failure is turned into a negative
 * errno here, the raw code kept for the message (STYLE.md §4, "adapter rule"). */
#pragma once

#include <stddef.h>
#include <windows.h>

/* The negative errno closest to Win32 error @err (ERROR_ACCESS_DENIED -> -EACCES,
 * ERROR_FILE_NOT_FOUND -> -ENOENT, ...); -EIO for codes without a counterpart. Never 0. */
int cr_win_errno(DWORD err);

/* The Win32 code behind the last cr_win_errno() of this thread: what the message should name. */
DWORD cr_win_last_code(void);

/* cr_win_errno(GetLastError()). */
int cr_win_last_errno(void);

/* "@what: <the system's text for @err> (Windows error N)" into @buf, in UTF-8, without the
 * trailing newline FormatMessage adds. Always terminates @buf; falls back to the number alone when
 * the system has no text. */
void cr_win_error_message(DWORD err, const char *what, char *buf, size_t size);
