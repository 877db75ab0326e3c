/* SPDX-License-Identifier: MIT */
/* Restricted tokens, integrity levels and mandatory labels. Wine runs these calls but enforces
 * no integrity level (windows/README.md): a Low token there still writes anywhere. */
#include <windows.h> /* first: the other Win32 headers need it */
#include <aclapi.h>
#include <errno.h>
#include <sddl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errno-map.h"
#include "launcher/base/macro.h"
#include "token.h"
#include "win-macro.h"
#include "wstr.h"

/* Low, with no-write-up, inherited by files (OI) and directories (CI). */
#define LOW_LABEL_SDDL L"S:(ML;OICI;NW;;;LW)"

static int set_low_integrity(HANDLE token)
{
	SID_IDENTIFIER_AUTHORITY mandatory = {SECURITY_MANDATORY_LABEL_AUTHORITY};
	TOKEN_MANDATORY_LABEL tml = {0};
	PSID low = NULL;
	int r = 0;

	if (!AllocateAndInitializeSid(&mandatory, 1, SECURITY_MANDATORY_LOW_RID, 0, 0, 0, 0, 0, 0,
				      0, &low))
		return cr_win_last_errno();
	tml.Label.Attributes = SE_GROUP_INTEGRITY;
	tml.Label.Sid = low;
	if (!SetTokenInformation(token, TokenIntegrityLevel, &tml, sizeof(tml) + GetLengthSid(low)))
		r = cr_win_last_errno();
	FreeSid(low);
	return r;
}

int cr_win_token_low(HANDLE *ret, const char **failed_stage)
{
	_cleanup_handle_ HANDLE self = NULL, restricted = NULL;
	int r;

	*failed_stage = "restricted_token";
	if (!OpenProcessToken(GetCurrentProcess(),
			      TOKEN_DUPLICATE | TOKEN_QUERY | TOKEN_ASSIGN_PRIMARY |
				      TOKEN_ADJUST_DEFAULT,
			      &self))
		return cr_win_last_errno();
	if (!CreateRestrictedToken(self, DISABLE_MAX_PRIVILEGE, 0, NULL, 0, NULL, 0, NULL,
				   &restricted))
		return cr_win_last_errno();
	*failed_stage = "integrity_level";
	r = set_low_integrity(restricted);
	if (r < 0)
		return r;
	*ret = TAKE_HANDLE(restricted);
	return 0;
}

int cr_win_token_integrity(HANDLE token, DWORD *ret_rid)
{
	_cleanup_handle_ HANDLE own = NULL;
	_cleanup_free_ TOKEN_MANDATORY_LABEL *tml = NULL;
	DWORD size = 0;
	PSID sid;

	if (!token) {
		if (!OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &own))
			return cr_win_last_errno();
		token = own;
	}
	(void)GetTokenInformation(token, TokenIntegrityLevel, NULL, 0, &size);
	if (size == 0)
		return cr_win_last_errno();
	tml = malloc(size);
	if (!tml)
		return -ENOMEM;
	if (!GetTokenInformation(token, TokenIntegrityLevel, tml, size, &size))
		return cr_win_last_errno();
	sid = tml->Label.Sid;
	if (!IsValidSid(sid) || *GetSidSubAuthorityCount(sid) < 1)
		return -EPROTO;
	*ret_rid = *GetSidSubAuthority(sid, *GetSidSubAuthorityCount(sid) - 1);
	return 0;
}

/* @path opened to read and change its label: READ_CONTROL reads it, WRITE_OWNER writes it (a
 * label is not a SACL: no SeSecurityPrivilege needed). The handle pins the directory, so the
 * label is restored on the same one even if the path is renamed meanwhile. */
static int open_for_label(const char *path, HANDLE *ret)
{
	_cleanup_free_ wchar_t *wpath = NULL;
	HANDLE h;
	int r;

	r = cr_win_utf16(path, &wpath);
	if (r < 0)
		return r;
	h = CreateFileW(wpath, READ_CONTROL | WRITE_OWNER,
			FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL, OPEN_EXISTING,
			FILE_FLAG_BACKUP_SEMANTICS, NULL);
	if (h == INVALID_HANDLE_VALUE)
		return cr_win_last_errno();
	*ret = h;
	return 0;
}

/* The label part of @h's security descriptor, owned by the caller (LocalFree()). */
static int read_label(HANDLE h, PSECURITY_DESCRIPTOR *ret)
{
	PSECURITY_DESCRIPTOR sd = NULL;
	PACL sacl = NULL;
	DWORD err;

	err = GetSecurityInfo(h, SE_FILE_OBJECT, LABEL_SECURITY_INFORMATION, NULL, NULL, NULL,
			      &sacl, &sd);
	if (err != ERROR_SUCCESS)
		return cr_win_errno(err);
	*ret = sd;
	return 0;
}

/* Apply the label of @sd (its SACL; none: remove the label) to @h. Inheritable entries
 * propagate to what lies below, as icacls does. */
static int write_label(HANDLE h, PSECURITY_DESCRIPTOR sd)
{
	BOOL present = FALSE, defaulted = FALSE;
	PACL sacl = NULL;
	ACL empty;
	DWORD err;

	if (sd && !GetSecurityDescriptorSacl(sd, &present, &sacl, &defaulted))
		return cr_win_last_errno();
	if (!present || !sacl) {
		if (!InitializeAcl(&empty, sizeof(empty), ACL_REVISION))
			return cr_win_last_errno();
		sacl = &empty;
	}
	err = SetSecurityInfo(h, SE_FILE_OBJECT, LABEL_SECURITY_INFORMATION, NULL, NULL, NULL,
			      sacl);
	if (err != ERROR_SUCCESS)
		return cr_win_errno(err);
	return 0;
}

/* --- the journal: a label set for a run is recorded before it is set ----------------------- */

/* The journal's directory, %LOCALAPPDATA%\corral\labels (%TEMP% without LOCALAPPDATA), created
 * if missing. @buf has MAX_PATH characters. 0 or -errno. */
static int journal_dir(wchar_t *buf)
{
	DWORD n = GetEnvironmentVariableW(L"LOCALAPPDATA", buf, MAX_PATH);

	if (n == 0 || n >= MAX_PATH - 20) {
		n = GetTempPathW(MAX_PATH, buf);
		if (n == 0 || n >= MAX_PATH - 20)
			return -ENAMETOOLONG;
	}
	if (buf[wcslen(buf) - 1] == L'\\')
		buf[wcslen(buf) - 1] = L'\0';
	wcscat(buf, L"\\corral");
	if (!CreateDirectoryW(buf, NULL) && GetLastError() != ERROR_ALREADY_EXISTS)
		return cr_win_last_errno();
	wcscat(buf, L"\\labels");
	if (!CreateDirectoryW(buf, NULL) && GetLastError() != ERROR_ALREADY_EXISTS)
		return cr_win_last_errno();
	return 0;
}

/* This process as the journal names it: its pid and its creation time, which a later process
 * with the same pid does not share. */
static uint64_t creation_time(HANDLE process)
{
	FILETIME created, exited, kernel, user;

	if (!GetProcessTimes(process, &created, &exited, &kernel, &user))
		return 0;
	return (uint64_t)created.dwHighDateTime << 32 | created.dwLowDateTime;
}

/* Is the corral of record @pid/@created still running (then its label is its own to restore)? */
static bool journal_owner_alive(DWORD pid, uint64_t created)
{
	_cleanup_handle_ HANDLE p = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, pid);
	DWORD code;

	if (!p)
		return GetLastError() == ERROR_ACCESS_DENIED; /* there, whoever it is: leave it */
	return GetExitCodeProcess(p, &code) && code == STILL_ACTIVE && creation_time(p) == created;
}

/* Record "PATH\nSDDL\n" (the label @path had, "" for none) in a new file of the journal; its
 * name in *@ret (free()). 0 or -errno. */
static int journal_add(const char *path, PSECURITY_DESCRIPTOR previous, wchar_t **ret)
{
	_cleanup_local_ wchar_t *wsddl = NULL;
	_cleanup_free_ char *sddl = NULL, *text = NULL;
	_cleanup_handle_ HANDLE f = NULL;
	_cleanup_free_ wchar_t *name = NULL;
	wchar_t dir[MAX_PATH];
	static LONG counter;
	DWORD done;
	size_t len;
	int r;

	r = journal_dir(dir);
	if (r < 0)
		return r;
	if (!ConvertSecurityDescriptorToStringSecurityDescriptorW(
		    previous, SDDL_REVISION_1, LABEL_SECURITY_INFORMATION, &wsddl, NULL))
		return cr_win_last_errno();
	r = cr_win_utf8(wsddl, &sddl);
	if (r < 0)
		return r;
	len = strlen(path) + strlen(sddl) + 3;
	text = malloc(len);
	name = malloc((MAX_PATH + 64) * sizeof(wchar_t));
	if (!text || !name)
		return -ENOMEM;
	(void)snprintf(text, len, "%s\n%s\n", path, sddl);
	(void)_snwprintf(name, MAX_PATH + 64, L"%ls\\%lu-%016llx-%ld.label", dir,
			 (unsigned long)GetCurrentProcessId(),
			 (unsigned long long)creation_time(GetCurrentProcess()),
			 (long)InterlockedIncrement(&counter));
	f = CreateFileW(name, GENERIC_WRITE, 0, NULL, CREATE_NEW, FILE_ATTRIBUTE_NORMAL, NULL);
	if (f == INVALID_HANDLE_VALUE) {
		f = NULL;
		return cr_win_last_errno();
	}
	if (!WriteFile(f, text, (DWORD)strlen(text), &done, NULL) || done != strlen(text) ||
	    !FlushFileBuffers(f)) {
		r = cr_win_last_errno();
		handle_closep(&f);
		(void)DeleteFileW(name);
		return r;
	}
	*ret = TAKE_PTR(name);
	return 0;
}

/* Is @sd's mandatory label below Medium (Low, Untrusted)? No label means Medium. */
static bool label_below_medium(PSECURITY_DESCRIPTOR sd)
{
	BOOL present = FALSE, defaulted = FALSE;
	PACL sacl = NULL;
	void *ace;

	if (!sd || !GetSecurityDescriptorSacl(sd, &present, &sacl, &defaulted) || !present || !sacl)
		return false;
	for (DWORD i = 0; i < sacl->AceCount; i++) {
		PSID sid;

		if (!GetAce(sacl, i, &ace) ||
		    ((ACE_HEADER *)ace)->AceType != SYSTEM_MANDATORY_LABEL_ACE_TYPE)
			continue;
		sid = &((SYSTEM_MANDATORY_LABEL_ACE *)ace)->SidStart;
		if (IsValidSid(sid) && *GetSidSubAuthorityCount(sid) >= 1 &&
		    *GetSidSubAuthority(sid, *GetSidSubAuthorityCount(sid) - 1) <
			    SECURITY_MANDATORY_MEDIUM_RID)
			return true;
	}
	return false;
}

/* Put back the label one record kept. 0 or -errno (the record then stays, for the next try);
 * -EPERM for a record that would lower a label below Medium, which corral never needs to do
 * (the directory is Low already when the label it had was Low), and which a record forged by
 * a Low process would ask for: such a record is dropped, unapplied. */
static int journal_restore(const wchar_t *record, char *path, size_t size)
{
	_cleanup_handle_ HANDLE f = NULL, h = NULL;
	_cleanup_local_ PSECURITY_DESCRIPTOR sd = NULL;
	_cleanup_free_ wchar_t *wsddl = NULL;
	char text[8192], *nl, *sddl;
	DWORD n = 0;
	int r;

	f = CreateFileW(record, GENERIC_READ, FILE_SHARE_READ, NULL, OPEN_EXISTING, 0, NULL);
	if (f == INVALID_HANDLE_VALUE) {
		f = NULL;
		return cr_win_last_errno();
	}
	if (!ReadFile(f, text, sizeof(text) - 1, &n, NULL))
		return cr_win_last_errno();
	text[n] = '\0';
	nl = strchr(text, '\n');
	if (!nl || !strchr(nl + 1, '\n'))
		return -EPROTO; /* torn: the label was never set after it (journal_add() comes first) */
	*nl = '\0';
	sddl = nl + 1;
	*strchr(sddl, '\n') = '\0';
	(void)snprintf(path, size, "%s", text);
	if (*sddl) {
		r = cr_win_utf16(sddl, &wsddl);
		if (r < 0)
			return r;
		if (!ConvertStringSecurityDescriptorToSecurityDescriptorW(wsddl, SDDL_REVISION_1, &sd,
									  NULL))
			return cr_win_last_errno();
		if (label_below_medium(sd))
			return -EPERM;
	}
	r = open_for_label(text, &h);
	if (r == -ENOENT)
		return 0; /* the directory is gone, and its label with it */
	if (r < 0)
		return r;
	return write_label(h, sd);
}

int cr_win_label_recover(char *first, size_t size, unsigned *ret_failed, unsigned *ret_refused)
{
	wchar_t dir[MAX_PATH], pattern[MAX_PATH + 16], record[MAX_PATH + 300];
	WIN32_FIND_DATAW fd;
	HANDLE find;
	int restored = 0, r;

	*ret_failed = *ret_refused = 0;
	if (first && size)
		first[0] = '\0';
	if (journal_dir(dir) < 0)
		return 0;
	(void)_snwprintf(pattern, ELEMENTSOF(pattern), L"%ls\\*.label", dir);
	find = FindFirstFileW(pattern, &fd);
	if (find == INVALID_HANDLE_VALUE)
		return 0;
	do {
		unsigned long pid;
		unsigned long long created;
		char path[MAX_PATH * 3];

		if (swscanf(fd.cFileName, L"%lu-%llx-", &pid, &created) != 2 ||
		    journal_owner_alive((DWORD)pid, (uint64_t)created))
			continue;
		(void)_snwprintf(record, ELEMENTSOF(record), L"%ls\\%ls", dir, fd.cFileName);
		path[0] = '\0';
		r = journal_restore(record, path, sizeof(path));
		if (r < 0 && r != -EPROTO && r != -EPERM) {
			(*ret_failed)++;
			continue;
		}
		(void)DeleteFileW(record); /* restored, torn (nothing was labelled) or refused */
		if (r == -EPERM)
			(*ret_refused)++;
		if (r == 0 && restored++ == 0 && first && size)
			(void)snprintf(first, size, "%s", path);
	} while (FindNextFileW(find, &fd));
	(void)FindClose(find);
	return restored;
}

int cr_win_label_set_low(const char *path, struct cr_win_label *ret)
{
	_cleanup_handle_ HANDLE h = NULL;
	_cleanup_local_ PSECURITY_DESCRIPTOR previous = NULL, low = NULL;
	_cleanup_free_ wchar_t *record = NULL;
	int r;

	r = open_for_label(path, &h);
	if (r < 0)
		return r;
	r = read_label(h, &previous);
	if (r < 0)
		return r;
	if (!ConvertStringSecurityDescriptorToSecurityDescriptorW(LOW_LABEL_SDDL, SDDL_REVISION_1,
								  &low, NULL))
		return cr_win_last_errno();
	/* Recorded first: if corral is killed while the label is on, the next corral restores it
	 * (cr_win_label_recover()). */
	r = journal_add(path, previous, &record);
	if (r < 0)
		return r;
	r = write_label(h, low);
	if (r < 0) {
		(void)DeleteFileW(record);
		return r;
	}
	*ret = (struct cr_win_label){
		.handle = TAKE_HANDLE(h),
		.previous = TAKE_PTR(previous),
		.record = TAKE_PTR(record),
		.applied = true,
	};
	return 0;
}

int cr_win_label_restore(struct cr_win_label *l)
{
	int r = 0;

	if (l->applied)
		r = write_label(l->handle, l->previous);
	if (r < 0)
		return r; /* kept: the caller may try again */
	if (l->record)
		(void)DeleteFileW(l->record);
	free(l->record);
	handle_closep(&l->handle);
	if (l->previous)
		(void)LocalFree(l->previous);
	*l = (struct cr_win_label){0};
	return 0;
}

int cr_win_label_sddl(const char *path, char **ret)
{
	_cleanup_handle_ HANDLE h = NULL;
	_cleanup_local_ PSECURITY_DESCRIPTOR sd = NULL;
	_cleanup_local_ wchar_t *sddl = NULL;
	int r;

	r = open_for_label(path, &h);
	if (r < 0)
		return r;
	r = read_label(h, &sd);
	if (r < 0)
		return r;
	if (!ConvertSecurityDescriptorToStringSecurityDescriptorW(
		    sd, SDDL_REVISION_1, LABEL_SECURITY_INFORMATION, &sddl, NULL))
		return cr_win_last_errno();
	return cr_win_utf8(sddl, ret);
}
