/* SPDX-License-Identifier: MIT */
/* Is this Linux running under WSL? Read from texts, so that the tests can feed fixtures. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launcher/base/macro.h"
#include "wsl.h"

const char *const cr_wsl_interop_env[] = {
	"WSL_INTEROP",	    /* the socket of the interop server: Windows processes on request */
	"WSL_DISTRO_NAME",  /* which distro: a hint for tools to reach Windows */
	"WSLENV",	    /* variables shared with Windows */
	NULL,
};

/* A mountinfo line whose file system type is drvfs, or 9p with aname=drvfs (WSL2): a Windows
 * drive. Fields: ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPER */
static bool line_is_drvfs(const char *line, size_t len)
{
	const char *sep = NULL;
	char fstype[32] = "";
	const char *super;

	for (const char *p = line; p + 3 <= line + len; p++)
		if (p[0] == ' ' && p[1] == '-' && p[2] == ' ') {
			sep = p + 3;
			break;
		}
	if (!sep || sscanf(sep, "%31s", fstype) != 1)
		return false;
	if (strcmp(fstype, "drvfs") == 0)
		return true;
	if (strcmp(fstype, "9p") != 0)
		return false;
	super = memmem(sep, (size_t)(line + len - sep), "aname=drvfs", 11);
	return super != NULL;
}

bool cr_wsl_detect(const char *proc_version, const char *mountinfo)
{
	if (proc_version && (strcasestr(proc_version, "microsoft") || strstr(proc_version, "WSL")))
		return true;
	for (const char *p = mountinfo; p && *p;) {
		size_t len = strcspn(p, "\n");

		if (line_is_drvfs(p, len))
			return true;
		p += len + (p[len] == '\n');
	}
	return false;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "re");
	char *text = NULL;
	size_t n = 0;

	if (!f)
		return NULL;
	if (getdelim(&text, &n, '\0', f) < 0) {
		free(text);
		text = NULL;
	}
	fclose(f);
	return text;
}

bool cr_wsl_running(void)
{
	_cleanup_free_ char *version = slurp("/proc/version");

	/* The interop handler is registered in every WSL distro that has interop at all. */
	return cr_wsl_detect(version, NULL) ||
	       access("/proc/sys/fs/binfmt_misc/WSLInterop", F_OK) == 0;
}
