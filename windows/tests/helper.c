/* SPDX-License-Identifier: MIT */
/* cr-win-helper.exe: what test-windows starts in the sandbox. One action per run, the result in
 * the exit code (and, for argv, on standard output):
 *   exit N            exit with N
 *   sleep MS          sleep
 *   mark PATH MS      create PATH (so the test knows the command runs), then sleep MS
 *   spawn-sleep MS    start "cr-win-helper sleep MS" (a grandchild), then sleep
 *   spawn-exit MS     start "cr-win-helper sleep MS", then exit 0 at once
 *   handle HEX        10 if HEX is a handle to a signaled event here (inherited), else 0
 *   injob             0 if this process is in a job, 11 if not
 *   integrity         the integrity level's RID >> 12 (1 Low, 2 Medium, 3 High, 4 System)
 *   write PATH        0 if PATH could be created, 5 if access was denied, 1 otherwise
 *   env WS            0 if TEMP and TMP lie in WS, SYSTEMROOT is set, CR_POLICY_VAR=yes and
 *                     CR_HOST_ONLY is unset; 21-25 for the first check that failed
 *   spawn             0 if a child process could be started, 30 if not
 *   alloc MB          0 if MB MiB could be committed and touched, 40 if not
 *   argv ...          print each argument (as CommandLineToArgvW splits it) on a line
 *   getenv NAME       print "NAME=VALUE" (UTF-8) on a line; 0, or 26 if NAME is unset */
#include <windows.h> /* first: the other Win32 headers need it */
#include <shellapi.h>
#include <winternl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

static int run_self(const wchar_t *args, DWORD wait_ms)
{
	wchar_t self[MAX_PATH], cmd[MAX_PATH + 64];
	STARTUPINFOW si = {.cb = sizeof(si)};
	PROCESS_INFORMATION pi;

	if (!GetModuleFileNameW(NULL, self, MAX_PATH))
		return -1;
	(void)swprintf(cmd, MAX_PATH + 64, L"\"%ls\" %ls", self, args);
	if (!CreateProcessW(self, cmd, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi))
		return -1;
	if (wait_ms)
		(void)WaitForSingleObject(pi.hProcess, wait_ms);
	(void)CloseHandle(pi.hThread);
	(void)CloseHandle(pi.hProcess);
	return 0;
}

/* Is @h an event that is set? The parent made it so; an unrelated handle that happens to have
 * the same value here (a file, a key) is not taken for it. */
static bool is_set_event(HANDLE h)
{
	typedef NTSTATUS(NTAPI * query_fn)(HANDLE, OBJECT_INFORMATION_CLASS, void *, ULONG,
					   ULONG *);
	query_fn query = (query_fn)(void (*)(void))GetProcAddress(GetModuleHandleW(L"ntdll.dll"),
								  "NtQueryObject");
	union {
		PUBLIC_OBJECT_TYPE_INFORMATION info;
		char buf[512];
	} u;
	DWORD flags;

	if (!GetHandleInformation(h, &flags) || !query ||
	    query(h, ObjectTypeInformation, &u, sizeof(u), NULL) != 0)
		return false;
	return u.info.TypeName.Length == 10 && wcsncmp(u.info.TypeName.Buffer, L"Event", 5) == 0 &&
	       WaitForSingleObject(h, 0) == WAIT_OBJECT_0;
}

static int integrity(void)
{
	HANDLE token;
	char buf[128];
	TOKEN_MANDATORY_LABEL *tml = (TOKEN_MANDATORY_LABEL *)buf;
	DWORD size;
	PSID sid;

	if (!OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &token) ||
	    !GetTokenInformation(token, TokenIntegrityLevel, buf, sizeof(buf), &size))
		return 99;
	sid = tml->Label.Sid;
	return (int)(*GetSidSubAuthority(sid, *GetSidSubAuthorityCount(sid) - 1) >> 12);
}

static int check_env(const wchar_t *ws)
{
	wchar_t v[1024];
	size_t n = wcslen(ws);

	if (!GetEnvironmentVariableW(L"TEMP", v, 1024) || _wcsnicmp(v, ws, n) != 0)
		return 21;
	if (!GetEnvironmentVariableW(L"TMP", v, 1024) || _wcsnicmp(v, ws, n) != 0)
		return 22;
	if (!GetEnvironmentVariableW(L"SYSTEMROOT", v, 1024))
		return 23;
	if (!GetEnvironmentVariableW(L"CR_POLICY_VAR", v, 1024) || wcscmp(v, L"yes") != 0)
		return 24;
	if (GetEnvironmentVariableW(L"CR_HOST_ONLY", v, 1024) ||
	    GetLastError() != ERROR_ENVVAR_NOT_FOUND)
		return 25;
	return 0;
}

static int alloc(unsigned long mb)
{
	SIZE_T size = (SIZE_T)mb << 20;
	char *p = VirtualAlloc(NULL, size, MEM_COMMIT | MEM_RESERVE, PAGE_READWRITE);

	if (!p)
		return 40;
	for (SIZE_T i = 0; i < size; i += 4096)
		p[i] = 1;
	return 0;
}

static int write_file(const wchar_t *path)
{
	HANDLE h = CreateFileW(path, GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, 0, NULL);

	if (h == INVALID_HANDLE_VALUE)
		return GetLastError() == ERROR_ACCESS_DENIED ? 5 : 1;
	(void)CloseHandle(h);
	return 0;
}

static int print_argv(int argc, wchar_t **argv)
{
	for (int i = 2; i < argc; i++) {
		char buf[1024];

		if (WideCharToMultiByte(CP_UTF8, 0, argv[i], -1, buf, sizeof(buf), NULL, NULL) <= 0)
			return 2;
		printf("%s\n", buf);
	}
	return fflush(stdout) == 0 ? 0 : 3;
}

static int print_env(const wchar_t *name)
{
	wchar_t v[8192];
	char buf[8192 * 3];
	DWORD n = GetEnvironmentVariableW(name, v, 8192);

	if (n == 0 || n >= 8192)
		return 26;
	if (WideCharToMultiByte(CP_UTF8, 0, v, -1, buf, sizeof(buf), NULL, NULL) <= 0)
		return 2;
	printf("%ls=%s\n", name, buf);
	return fflush(stdout) == 0 ? 0 : 3;
}

int main(void)
{
	int argc;
	wchar_t **argv = CommandLineToArgvW(GetCommandLineW(), &argc);
	const wchar_t *a = argc > 2 ? argv[2] : L"";
	wchar_t cmd[64];

	if (argc < 2)
		return 2;
	if (wcscmp(argv[1], L"exit") == 0)
		return _wtoi(a);
	if (wcscmp(argv[1], L"sleep") == 0) {
		Sleep((DWORD)_wtoi(a));
		return 0;
	}
	if (wcscmp(argv[1], L"mark") == 0 && argc > 3) {
		HANDLE f = CreateFileW(a, GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, 0, NULL);

		if (f == INVALID_HANDLE_VALUE)
			return 1;
		(void)CloseHandle(f);
		Sleep((DWORD)_wtoi(argv[3]));
		return 0;
	}
	if (wcscmp(argv[1], L"spawn-sleep") == 0) {
		(void)swprintf(cmd, 64, L"sleep %ls", a);
		if (run_self(cmd, 0) < 0)
			return 30;
		Sleep((DWORD)_wtoi(a));
		return 0;
	}
	if (wcscmp(argv[1], L"spawn-exit") == 0) {
		(void)swprintf(cmd, 64, L"sleep %ls", a);
		return run_self(cmd, 0) < 0 ? 30 : 0;
	}
	if (wcscmp(argv[1], L"handle") == 0)
		return is_set_event((HANDLE)(uintptr_t)wcstoull(a, NULL, 16)) ? 10 : 0;
	if (wcscmp(argv[1], L"injob") == 0) {
		BOOL in = FALSE;

		return IsProcessInJob(GetCurrentProcess(), NULL, &in) && in ? 0 : 11;
	}
	if (wcscmp(argv[1], L"integrity") == 0)
		return integrity();
	if (wcscmp(argv[1], L"write") == 0)
		return write_file(a);
	if (wcscmp(argv[1], L"env") == 0)
		return check_env(a);
	if (wcscmp(argv[1], L"spawn") == 0)
		return run_self(L"exit 0", 5000) < 0 ? 30 : 0;
	if (wcscmp(argv[1], L"alloc") == 0)
		return alloc(wcstoul(a, NULL, 10));
	if (wcscmp(argv[1], L"argv") == 0)
		return print_argv(argc, argv);
	if (wcscmp(argv[1], L"getenv") == 0)
		return print_env(a);
	return 2;
}
