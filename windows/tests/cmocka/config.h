/* SPDX-License-Identifier: MIT */
/* What cmocka 1.1.5's CMake checks find with x86_64-w64-mingw32-gcc: cmocka.c is compiled from
 * Debian's source package (tools/windows-test.sh fetches it) with this file in place of the
 * config.h CMake would generate. */
#pragma once

#define HAVE_ASSERT_H 1
#define HAVE_INTTYPES_H 1
#define HAVE_IO_H 1
#define HAVE_MALLOC_H 1
#define HAVE_MEMORY_H 1
#define HAVE_SETJMP_H 1
#define HAVE_SIGNAL_H 1
#define HAVE_STDARG_H 1
#define HAVE_STDDEF_H 1
#define HAVE_STDINT_H 1
#define HAVE_STDIO_H 1
#define HAVE_STDLIB_H 1
#define HAVE_STRINGS_H 1
#define HAVE_STRING_H 1
#define HAVE_SYS_STAT_H 1
#define HAVE_SYS_TYPES_H 1
#define HAVE_TIME_H 1
#define HAVE_UNISTD_H 1
#define HAVE_STRUCT_TIMESPEC 1
#define HAVE_CALLOC 1
#define HAVE_EXIT 1
#define HAVE_FPRINTF 1
#define HAVE_SNPRINTF 1
#define HAVE__SNPRINTF 1
#define HAVE_VSNPRINTF 1
#define HAVE__VSNPRINTF 1
#define HAVE_FREE 1
#define HAVE_LONGJMP 1
#define HAVE_MALLOC 1
#define HAVE_MEMCPY 1
#define HAVE_MEMSET 1
#define HAVE_PRINTF 1
#define HAVE_SETJMP 1
#define HAVE_SIGNAL 1
#define HAVE_STRCMP 1
#define HAVE_STRCPY 1
#define HAVE_GCC_THREAD_LOCAL_STORAGE 1
#define WORDS_SIZEOF_VOID_P 8
