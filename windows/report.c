/* SPDX-License-Identifier: MIT */
/* The `enforced` object of the JSON status for a windows run: the mode (and, in Job-only mode,
 * why), the job's restrictions and limits, the workspace's label, the handles and TEMP. What
 * Windows cannot enforce is named as such; under Wine, what Wine does not enforce as well. */
#include <json-c/json.h>
#include <stdio.h>
#include <windows.h>

#include "windows-internal.h"

static void add_limit(json_object *limits, const char *name, uint64_t v, const char *mode,
		      bool enforced)
{
	json_object *o = json_object_new_object();
	bool finite = cr_limit_is_finite(v);

	json_object_object_add(o, "value", finite ? json_object_new_uint64(v) : NULL);
	json_object_object_add(o, "mode", json_object_new_string(finite ? mode : "none"));
	if (finite && !enforced)
		json_object_object_add(o, "enforced", json_object_new_boolean(false));
	json_object_object_add(limits, name, o);
}

static json_object *job_object(const struct cr_run *run)
{
	static const char *const ui[] = {"desktop",           "display_settings", "exit_windows",
					 "global_atoms",      "handles",          "read_clipboard",
					 "system_parameters", "write_clipboard"};
	json_object *job = json_object_new_object(), *a = json_object_new_array();

	for (size_t i = 0; i < sizeof(ui) / sizeof(ui[0]); i++)
		json_object_array_add(a, json_object_new_string(ui[i]));
	json_object_object_add(job, "kill_on_close", json_object_new_boolean(true));
	json_object_object_add(job, "die_on_unhandled_exception", json_object_new_boolean(true));
	json_object_object_add(job, "started_suspended", json_object_new_boolean(true));
	json_object_object_add(job, "ui_restrictions", a);
	json_object_object_add(job, "limit_messages",
			       json_object_new_boolean(run->job.port != NULL));
	return job;
}

static json_object *limits_object(const struct cr_run *run, bool wine)
{
	const struct cr_policy *p = run->policy;
	json_object *limits = json_object_new_object();

	add_limit(limits, "memory", run->limits.memory ? run->limits.memory : CR_LIMIT_UNSET,
		  "job_memory", !wine);
	add_limit(limits, "pids", run->limits.processes ? run->limits.processes : CR_LIMIT_UNSET,
		  "job_active_processes", !wine);
	add_limit(limits, "cpu_time",
		  run->limits.cpu_time_s ? run->limits.cpu_time_s : CR_LIMIT_UNSET,
		  "job_process_time", !wine);
	add_limit(limits, "memory_swap", p->limits.value[CR_LIMIT_MEMORY_SWAP], "unenforceable",
		  false);
	add_limit(limits, "cpu", p->limits.value[CR_LIMIT_CPU], "unenforceable", false);
	add_limit(limits, "file_size", p->limits.value[CR_LIMIT_FILE_SIZE], "unenforceable", false);
	add_limit(limits, "open_files", p->limits.value[CR_LIMIT_OPEN_FILES], "unenforceable",
		  false);
	return limits;
}

int cr_win_report(const struct cr_run *run, json_object *o)
{
	const char *wine = cr_win_wine_version();
	bool low = run->mode == CR_WIN_MODE_LOW_INTEGRITY;

	json_object_object_add(o, "sandbox", json_object_new_string("job_object"));
	json_object_object_add(o, "mode",
			       json_object_new_string(low ? "low_integrity" : "job_only"));
	if (!low)
		json_object_object_add(o, "mode_reason", json_object_new_string(run->mode_reason));
	json_object_object_add(o, "integrity_level",
			       json_object_new_string(low ? "low" : "unchanged"));
	json_object_object_add(o, "privileges",
			       json_object_new_string(low ? "removed" : "unchanged"));
	json_object_object_add(o, "network", json_object_new_string("host"));
	json_object_object_add(o, "workspace_access",
			       json_object_new_string(run->policy->workspace_ro ? "ro" : "rw"));
	json_object_object_add(o, "workspace_label",
			       json_object_new_string(!low                        ? "unchanged"
						      : run->policy->workspace_ro ? "unchanged"
										  : "low_for_run"));
	json_object_object_add(o, "tmpdir",
			       run->tmpdir_utf8 ? json_object_new_string(run->tmpdir_utf8) : NULL);
	json_object_object_add(o, "inherited_handles", json_object_new_string("stdio"));
	json_object_object_add(o, "job", job_object(run));
	json_object_object_add(o, "limits", limits_object(run, wine != NULL));
	if (run->ended && run->exit_code > 255)
		json_object_object_add(o, "exit_code_raw", json_object_new_uint64(run->exit_code));
	if (wine)
		json_object_object_add(o, "wine", json_object_new_string(wine));
	return 0;
}
