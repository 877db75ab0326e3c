/* SPDX-License-Identifier: MIT */
/* The portable parts of the wsl backend, built and unit-tested on every host:
 *  - Windows command lines: quoting an argument vector so that CommandLineToArgvW (and the
 *    Microsoft C runtime since 2008) gives it back byte for byte, and that parser itself;
 *  - Windows paths to the paths WSL shows them at (C:\Users\dev -> /mnt/c/Users/dev);
 *  - the argv of `wsl.exe -d DISTRO --cd DIR --exec corral run ... -- CMD`;
 *  - detecting that corral runs inside WSL, from /proc/version and the mount table.
 * Strings are UTF-8; an argument that is not valid UTF-8 cannot cross to Windows (UTF-16) and is
 * refused. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* Quote @argv (NULL-terminated) into one Windows command line: argv[0] by the program-name rule
 * (quoted when it has a space or tab; it may not contain '"'), the rest by the argument rules
 * (quoted when empty or holding a space, tab, newline, vertical tab or '"'; backslashes doubled
 * before a '"' and before the closing quote). 0, -EINVAL (argv[0] with '"' or not UTF-8; an
 * argument not UTF-8) or -ENOMEM. */
int cr_win_join_cmdline(char *const *argv, char **ret);

/* Split a command line as CommandLineToArgvW does (the C runtime's rules since 2008 for the
 * arguments: 2n backslashes + '"' give n backslashes and a quote toggle, 2n+1 give n and a
 * literal '"', and "" inside quotes gives a literal '"'). 0 or -ENOMEM. */
int cr_win_split_cmdline(const char *cmdline, char ***ret);

/* "C:\Users\dev\proj" (or with '/', or "\\?\C:\...") -> "@mnt_root/c/Users/dev/proj"; a path on
 * the distro itself, "\\wsl$\DISTRO\home\x" or "\\wsl.localhost\DISTRO\home\x", -> "/home/x".
 * Refused with a reason in @msg (-EINVAL): relative and drive-relative paths ("C:x"), other UNC
 * shares, "." and ".." components, control characters, reserved characters (<>"|?*), invalid
 * UTF-8. */
int cr_wsl_path_from_windows(const char *winpath, const char *mnt_root, char **ret, char *msg,
			     size_t size);

struct cr_wsl_invocation {
	const char *wsl_exe;	      /* e.g. "C:\Windows\System32\wsl.exe" */
	const char *distro;	      /* "corral" */
	const char *workspace;	      /* the Windows path of the workspace */
	const char *status_file;      /* a Linux path where the inner corral writes its status */
	char *const *corral_options;  /* more `corral run` options, passed as they are */
	char *const *argv;	      /* the command */
};

/* wsl.exe -d DISTRO --cd LINUX_WORKSPACE --exec corral run --workspace LINUX_WORKSPACE
 * --json-status STATUS [OPTIONS] -- CMD ARGS: --exec runs corral without a shell, so nothing is
 * interpreted on the way. 0 or -errno with @msg. */
int cr_wsl_build_argv(const struct cr_wsl_invocation *in, char ***ret, char *msg, size_t size);

/* Does this /proc/version text and mount table (/proc/self/mountinfo) say WSL? WSL kernels
 * name Microsoft in their version ("...-microsoft-standard-WSL2"), and WSL mounts the Windows
 * drives with drvfs or 9p (aname=drvfs) under /mnt. Either text may be NULL. */
bool cr_wsl_detect(const char *proc_version, const char *mountinfo);

/* Under WSL here? /proc/version names Microsoft, or WSL's interop handler is registered in
 * binfmt_misc. Cheap (one small read); false when /proc cannot be read. */
bool cr_wsl_running(void);

/* Is @s valid UTF-8 (no overlong form, surrogate, or code point past U+10FFFF)? */
bool cr_wsl_utf8_valid(const char *s);

/* Environment variables WSL sets that open the way back to Windows (interop); a sandbox under
 * WSL never gets them, --keep-env or not. NULL-terminated. */
extern const char *const cr_wsl_interop_env[];
