/* SPDX-License-Identifier: MIT */
/* Cleanup helpers for Win32 objects, in the style of launcher/base/macro.h. */
#pragma once

#include <windows.h>

#include "launcher/base/macro.h"

static inline void handle_closep(HANDLE *h)
{
	if (*h && *h != INVALID_HANDLE_VALUE)
		(void)CloseHandle(*h);
}

static inline void local_freep(void *p)
{
	if (*(HLOCAL *)p)
		(void)LocalFree(*(HLOCAL *)p);
}

#define _cleanup_handle_ _cleanup_(handle_closep)
#define _cleanup_local_  _cleanup_(local_freep)

#define TAKE_HANDLE(h)              \
	({                          \
		HANDLE *_ph = &(h); \
		HANDLE _v = *_ph;   \
		*_ph = NULL;        \
		_v;                 \
	})
