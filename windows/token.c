/* SPDX-License-Identifier: MIT */
/* Restricted tokens, integrity levels and mandatory labels. Wine runs these calls but enforces
 * no integrity level (windows/README.md): a Low token there still writes anywhere. */
#include <windows.h> /* first: the other Win32 headers need it */
#include <aclapi.h>
#include <errno.h>
#include <sddl.h>
#include <stdlib.h>
#include <string.h>

#include "errno-map.h"
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

int cr_win_label_set_low(const char *path, struct cr_win_label *ret)
{
	_cleanup_handle_ HANDLE h = NULL;
	_cleanup_local_ PSECURITY_DESCRIPTOR previous = NULL, low = NULL;
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
	r = write_label(h, low);
	if (r < 0)
		return r;
	*ret = (struct cr_win_label){
		.handle = TAKE_HANDLE(h),
		.previous = TAKE_PTR(previous),
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
