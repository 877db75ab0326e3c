/* SPDX-License-Identifier: MIT */
/* `corral doctor` on Windows: the backend, Low integrity tokens, nested jobs, the job limits,
 * and the WSL distros (for the wsl driver). Under Wine every check that Wine runs but does not
 * enforce is "degraded" and says so. */
#include <stdio.h>
#include <string.h>
#include <windows.h>

#include "errno-map.h"
#include "win-macro.h"
#include "windows-internal.h"

static struct cr_check *add(struct cr_probe *p, const char *name, bool required)
{
	struct cr_check *c = &p->checks[p->n_checks++];

	*c = (struct cr_check){.required = required};
	(void)snprintf(c->name, sizeof(c->name), "%s", name);
	return c;
}

static void check_backend(struct cr_probe *p, const char *wine)
{
	struct cr_check *c = add(p, "backend", true);

	c->state = CR_CHECK_OK;
	(void)snprintf(c->value, sizeof(c->value), "%s", wine ? "windows (wine)" : "windows");
	(void)snprintf(c->detail, sizeof(c->detail), "Job Objects and restricted tokens%s%s",
		       wine ? ", under Wine " : "", wine ? wine : "");
}

static void check_integrity(struct cr_probe *p, const char *wine)
{
	struct cr_check *c = add(p, "integrity_level", true);
	const char *stage = NULL;
	_cleanup_handle_ HANDLE token = NULL;
	DWORD rid = 0;
	int r;

	r = cr_win_token_low(&token, &stage);
	if (r >= 0)
		r = cr_win_token_integrity(token, &rid);
	if (r < 0) {
		c->state = CR_CHECK_MISSING;
		cr_win_error_message(cr_win_last_code(), "A Low integrity token cannot be made",
				     c->detail, sizeof(c->detail));
		(void)snprintf(c->fix, sizeof(c->fix),
			       "run corral as a normal (Medium integrity) user, or allow Job-only "
			       "mode with --allow-degraded");
		return;
	}
	(void)snprintf(c->value, sizeof(c->value), "0x%04lx", (unsigned long)rid);
	c->state = rid == SECURITY_MANDATORY_LOW_RID && !wine ? CR_CHECK_OK : CR_CHECK_DEGRADED;
	(void)snprintf(
		c->detail, sizeof(c->detail), "%s",
		wine ? "a Low integrity token is made, but Wine does not enforce integrity levels"
		: rid == SECURITY_MANDATORY_LOW_RID
			? "commands run with a restricted token at Low integrity"
			: "the token's integrity level did not become Low");
}

/* Jobs nest from Windows 8 (6.2) on; before that a process already in a job (a CI runner, a
 * terminal that uses one) could not be put in corral's. */
static void check_job_nesting(struct cr_probe *p)
{
	struct cr_check *c = add(p, "job_nesting", true);
	OSVERSIONINFOW v = {.dwOSVersionInfoSize = sizeof(v)};
	BOOL in_job = FALSE;
	typedef LONG(WINAPI * rtl_get_version_fn)(OSVERSIONINFOW *);
	rtl_get_version_fn f = (rtl_get_version_fn)(void (*)(void))GetProcAddress(
		GetModuleHandleW(L"ntdll.dll"), "RtlGetVersion");
	bool nests;

	if (f)
		(void)f(&v);
	(void)IsProcessInJob(GetCurrentProcess(), NULL, &in_job);
	nests = v.dwMajorVersion > 6 || (v.dwMajorVersion == 6 && v.dwMinorVersion >= 2);
	(void)snprintf(c->value, sizeof(c->value), "%lu.%lu%s", (unsigned long)v.dwMajorVersion,
		       (unsigned long)v.dwMinorVersion, in_job ? " in a job" : "");
	c->state = nests || !in_job ? CR_CHECK_OK : CR_CHECK_MISSING;
	(void)snprintf(c->detail, sizeof(c->detail), "%s",
		       nests    ? "jobs nest: corral works inside another job"
		       : in_job ? "corral runs in a job and this Windows cannot nest jobs"
				: "corral is in no job (this Windows cannot nest jobs)");
	if (c->state == CR_CHECK_MISSING)
		(void)snprintf(c->fix, sizeof(c->fix),
			       "use Windows 8 or later, or start corral outside the job");
}

static void check_job_limits(struct cr_probe *p, const char *wine)
{
	struct cr_check *c = add(p, "job_limits", false);
	struct cr_win_job_limits l = {.memory = 1 << 30, .processes = 64};
	struct cr_win_job j;
	int r = cr_win_job_create(&l, &j);

	if (r < 0) {
		c->state = CR_CHECK_MISSING;
		cr_win_error_message(cr_win_last_code(), "A Job Object with limits cannot be made",
				     c->detail, sizeof(c->detail));
		return;
	}
	cr_win_job_close(&j);
	c->state = wine ? CR_CHECK_DEGRADED : CR_CHECK_OK;
	(void)snprintf(c->value, sizeof(c->value), "memory,processes,cpu_time");
	(void)snprintf(
		c->detail, sizeof(c->detail), "%s",
		wine ? "Wine accepts job limits but enforces neither memory nor process limits"
		     : "job memory, active process and per-process CPU time limits");
}

/* The distros registered for this user (HKCU\...\Lxss), without starting wsl.exe. */
static void check_wsl(struct cr_probe *p)
{
	struct cr_check *c = add(p, "wsl_distros", false);
	HKEY lxss;
	DWORD n = 0;
	size_t len = 0;

	c->state = CR_CHECK_MISSING;
	(void)snprintf(c->value, sizeof(c->value), "0");
	(void)snprintf(c->fix, sizeof(c->fix), "wsl --install, for the wsl driver");
	if (RegOpenKeyExW(HKEY_CURRENT_USER, L"Software\\Microsoft\\Windows\\CurrentVersion\\Lxss",
			  0, KEY_READ, &lxss) != ERROR_SUCCESS) {
		(void)snprintf(c->detail, sizeof(c->detail), "WSL has no distro for this user");
		return;
	}
	for (DWORD i = 0;; i++) {
		wchar_t sub[64], name[64];
		DWORD size = sizeof(name), sub_len = ELEMENTSOF(sub);
		char utf8[128];

		if (RegEnumKeyExW(lxss, i, sub, &sub_len, NULL, NULL, NULL, NULL) != ERROR_SUCCESS)
			break;
		if (RegGetValueW(lxss, sub, L"DistributionName", RRF_RT_REG_SZ, NULL, name,
				 &size) != ERROR_SUCCESS ||
		    WideCharToMultiByte(CP_UTF8, 0, name, -1, utf8, sizeof(utf8), NULL, NULL) <= 0)
			continue;
		len += (size_t)snprintf(c->detail + len,
					len < sizeof(c->detail) ? sizeof(c->detail) - len : 0,
					"%s%s", n ? ", " : "distros: ", utf8);
		if (len >= sizeof(c->detail))
			len = sizeof(c->detail) - 1;
		n++;
	}
	(void)RegCloseKey(lxss);
	(void)snprintf(c->value, sizeof(c->value), "%lu", (unsigned long)n);
	if (n > 0) {
		c->state = CR_CHECK_OK;
		c->fix[0] = '\0';
	} else
		(void)snprintf(c->detail, sizeof(c->detail), "WSL has no distro for this user");
}

int cr_win_probe(struct cr_probe *ret)
{
	const char *wine = cr_win_wine_version();

	*ret = (struct cr_probe){0};
	check_backend(ret, wine);
	check_integrity(ret, wine);
	check_job_nesting(ret);
	check_job_limits(ret, wine);
	check_wsl(ret);
	return 0;
}
