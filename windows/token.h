/* SPDX-License-Identifier: MIT */
/* The token a windows run starts with, and the workspace's mandatory label for the run. */
#pragma once

#include <stdbool.h>
#include <windows.h>

/* A primary token for the command made from corral's own, in corral itself (no helper program,
 * nothing written to a file): every privilege removed but SeChangeNotifyPrivilege
 * (DISABLE_MAX_PRIVILEGE), and the integrity level lowered to Low (S-1-16-4096), so the command
 * cannot write anything labelled Medium, which is nearly everything the user owns. 0 or -errno,
 * and then *@failed_stage names the step that failed ("restricted_token", "integrity_level"). */
int cr_win_token_low(HANDLE *ret, const char **failed_stage);

/* The integrity level of @token as its RID (0x1000 Low, 0x2000 Medium, 0x3000 High, ...). A
 * NULL @token is the calling process's own. 0 or -errno. */
int cr_win_token_integrity(HANDLE token, DWORD *ret_rid);

/* The mandatory label of a path for the duration of a run. */
struct cr_win_label {
	HANDLE handle;                 /* the directory, held open for the run */
	PSECURITY_DESCRIPTOR previous; /* what it carried before, as a self-relative descriptor */
	wchar_t *record;               /* its record in the journal, removed by restore() */
	bool applied;                  /* the Low label is on: restore() must run */
};

/* Label @path (UTF-8, a directory) Low with no-write-up, inherited by everything below it, so a
 * Low integrity command can write there, after recording the label it had: in memory, and in a
 * journal file (%LOCALAPPDATA%\corral\labels\PID-CREATED-N.label) that restore() removes.
 * 0 or -errno. */
int cr_win_label_set_low(const char *path, struct cr_win_label *ret);

/* Restore the labels that corrals killed during their runs left on (the journal's records
 * whose process is gone), and remove their records. Returns how many were restored, the first
 * path in @first; *@ret_failed counts records that could not be (they stay, for the next try),
 * *@ret_refused records dropped unapplied because they would lower a label below Medium. */
int cr_win_label_recover(char *first, size_t size, unsigned *ret_failed, unsigned *ret_refused);

/* Put the recorded label back (an empty label when there was none, which means the default:
 * Medium) and release @l. Safe to call twice and on a label never applied. 0 or -errno. */
int cr_win_label_restore(struct cr_win_label *l);

/* The mandatory label of @path (UTF-8) in SDDL, "S:(ML;OICI;NW;;;LW)" or "" when it has none.
 * Newly allocated (free()). For tests and reports. 0 or -errno. */
int cr_win_label_sddl(const char *path, char **ret);
