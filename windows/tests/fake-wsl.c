/* SPDX-License-Identifier: MIT */
/* fake-wsl.exe: what test-corral runs as wsl.exe (CORRAL_WSL_EXE). Each run appends a record to
 * $FAKE_WSL_LOG: "rec N\n" (N arguments, argv[0] included), then the raw command line
 * (GetCommandLineW) and each argument as CommandLineToArgvW splits it, UTF-8, each as
 * "LENGTH:BYTES\n". Then, as wsl.exe would:
 *   --import NAME DIR TARBALL --version 2   exit $FAKE_WSL_IMPORT_EXIT (0)
 *   --unregister NAME                       exit $FAKE_WSL_UNREGISTER_EXIT (0)
 *   -l -v                                   the table, in UTF-16LE as wsl.exe writes it, of
 *                                           $FAKE_WSL_DISTROS ("name:State:2,..."); exit 0
 *   -d NAME --exec corral --version         "corral 0.1.0" (exit 0), or with $FAKE_WSL_NO_CORRAL
 *                                           exit 127
 *   -d NAME --cd WS --exec corral run ... --json-status FILE ... -- CMD...
 *                                           writes an inner status to FILE (/mnt/c/x -> C:\x)
 *                                           as $FAKE_WSL_INNER says: good (default; exit_code
 *                                           $FAKE_WSL_EXIT, the command as received), garbage,
 *                                           none (nothing); exits $FAKE_WSL_EXIT (0). The
 *                                           good status has "fake_env": this process's PATH
 *                                           and WSLENV (null when unset), what WSL would
 *                                           carry into the distro. */
#include <windows.h> /* first: the other Win32 headers need it */
#include <json-c/json.h>
#include <shellapi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *utf8(const wchar_t *w)
{
	int n = WideCharToMultiByte(CP_UTF8, 0, w, -1, NULL, 0, NULL, NULL);
	char *s = malloc(n > 0 ? (size_t)n : 1);

	if (s && WideCharToMultiByte(CP_UTF8, 0, w, -1, s, n, NULL, NULL) <= 0)
		s[0] = '\0';
	return s;
}

static int env_int(const char *name, int def)
{
	const char *v = getenv(name);

	return v && *v ? atoi(v) : def;
}

static void record(int argc, char **argv)
{
	const char *path = getenv("FAKE_WSL_LOG");
	char *raw = utf8(GetCommandLineW());
	FILE *f = path ? fopen(path, "ab") : NULL;

	if (!f)
		return;
	fprintf(f, "rec %d\n%zu:%s\n", argc, strlen(raw), raw);
	for (int i = 0; i < argc; i++)
		fprintf(f, "%zu:%s\n", strlen(argv[i]), argv[i]);
	fclose(f);
	free(raw);
}

static void out_utf16(const wchar_t *text)
{
	DWORD done;

	(void)WriteFile(GetStdHandle(STD_OUTPUT_HANDLE), text, (DWORD)(wcslen(text) * 2), &done,
			NULL);
}

static int list(void)
{
	const char *d = getenv("FAKE_WSL_DISTROS");
	wchar_t line[256];

	if (!d || !*d) {
		out_utf16(L"Windows Subsystem for Linux has no installed distributions.\r\n");
		return -1;
	}
	out_utf16(L"  NAME      STATE           VERSION\r\n");
	for (const char *p = d; *p;) {
		char name[64] = "", state[32] = "";
		int version = 0;
		size_t n = strcspn(p, ",");

		if (sscanf(p, "%63[^:]:%31[^:]:%d", name, state, &version) == 3) {
			swprintf(line, 256, L"%ls %-9hs %-15hs %d\r\n", p == d ? L"*" : L" ", name,
				 state, version);
			out_utf16(line);
		}
		p += n + (p[n] == ',');
	}
	return 0;
}

static json_object *env_string(const char *name)
{
	const char *v = getenv(name);

	return v ? json_object_new_string(v) : NULL;
}

/* /mnt/c/users/x -> C:\users\x */
static char *from_mnt(const char *p)
{
	char *w = malloc(strlen(p) + 1);

	if (!w || strncmp(p, "/mnt/", 5) != 0 || !p[5] || (p[6] != '/' && p[6]))
		return NULL;
	(void)sprintf(w, "%c:%s", p[5] & ~0x20, p + 6);
	for (char *c = w; *c; c++)
		if (*c == '/')
			*c = '\\';
	return w;
}

static int run(int argc, char **argv)
{
	const char *status = NULL, *inner = getenv("FAKE_WSL_INNER");
	int code = env_int("FAKE_WSL_EXIT", 0), dashdash = -1;
	char *file;
	FILE *f;

	for (int i = 1; i < argc; i++) {
		if (dashdash < 0 && strcmp(argv[i], "--json-status") == 0 && i + 1 < argc)
			status = argv[i + 1];
		if (dashdash < 0 && strcmp(argv[i], "--") == 0)
			dashdash = i;
	}
	if (!status || dashdash < 0 || !(file = from_mnt(status)))
		return 99;
	if (inner && strcmp(inner, "none") == 0)
		return code;
	f = fopen(file, "wb");
	if (!f)
		return 98;
	if (inner && strcmp(inner, "garbage") == 0)
		fputs("this is not a status {", f);
	else {
		json_object *o = json_object_new_object(), *cmd = json_object_new_array();
		json_object *enforced = json_object_new_object(), *ns = json_object_new_array();
		json_object *fake_env = json_object_new_object();

		for (int i = dashdash + 1; i < argc; i++)
			json_object_array_add(cmd, json_object_new_string(argv[i]));
		json_object_array_add(ns, json_object_new_string("user"));
		json_object_array_add(ns, json_object_new_string("net"));
		json_object_object_add(enforced, "namespaces", ns);
		json_object_object_add(enforced, "network", json_object_new_string("none"));
		json_object_object_add(o, "version", json_object_new_int(1));
		json_object_object_add(o, "corral_version", json_object_new_string("0.1.0"));
		json_object_object_add(o, "driver", json_object_new_string("linux"));
		json_object_object_add(o, "command", cmd);
		json_object_object_add(o, "outcome", json_object_new_string("exited"));
		json_object_object_add(o, "exit_code", json_object_new_int(code));
		json_object_object_add(o, "signal", NULL);
		json_object_object_add(o, "timed_out", json_object_new_boolean(0));
		json_object_object_add(o, "duration_ms", json_object_new_double(12.5));
		json_object_object_add(o, "enforced", enforced);
		json_object_object_add(o, "error", NULL);
		json_object_object_add(o, "profile", json_object_new_string("workspace"));
		json_object_object_add(fake_env, "PATH", env_string("PATH"));
		json_object_object_add(fake_env, "WSLENV", env_string("WSLENV"));
		json_object_object_add(o, "fake_env", fake_env);
		fputs(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN), f);
		fputs("\n", f);
		json_object_put(o);
	}
	fclose(f);
	free(file);
	return code;
}

int main(void)
{
	int argc = 0;
	wchar_t **w = CommandLineToArgvW(GetCommandLineW(), &argc);
	char **argv = calloc((size_t)argc + 1, sizeof(char *));

	if (!w || !argv)
		return 90;
	for (int i = 0; i < argc; i++)
		argv[i] = utf8(w[i]);
	record(argc, argv);
	if (argc >= 2 && strcmp(argv[1], "--import") == 0)
		return env_int("FAKE_WSL_IMPORT_EXIT", 0);
	if (argc >= 2 && strcmp(argv[1], "--unregister") == 0)
		return env_int("FAKE_WSL_UNREGISTER_EXIT", 0);
	if (argc == 3 && strcmp(argv[1], "-l") == 0 && strcmp(argv[2], "-v") == 0)
		return list();
	if (argc == 6 && strcmp(argv[1], "-d") == 0 && strcmp(argv[3], "--exec") == 0 &&
	    strcmp(argv[5], "--version") == 0) {
		if (getenv("FAKE_WSL_NO_CORRAL")) {
			fprintf(stderr, "execvpe(corral) failed: No such file or directory\n");
			return 127;
		}
		printf("corral 0.1.0\n");
		return 0;
	}
	if (argc > 7 && strcmp(argv[1], "-d") == 0 && strcmp(argv[3], "--cd") == 0 &&
	    strcmp(argv[5], "--exec") == 0 && strcmp(argv[7], "run") == 0)
		return run(argc, argv);
	fprintf(stderr, "fake-wsl: unexpected arguments\n");
	return 91;
}
