/* SPDX-License-Identifier: MIT */
/* The `enforced` object of the JSON status for a windows run: the mode (and, in Job-only mode,
 * why), the job's restrictions and limits, the workspace's label, the handles and TEMP. What
 * Windows cannot enforce is named as such; under Wine, what Wine does not enforce as well. */
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <windows.h>

#include "launcher/base/json-util.h"
#include "windows-internal.h"

static int add_limit(json_object *limits, const char *name, uint64_t v, const char *mode,
		     bool enforced)
{
	json_object *o = json_object_new_object();
	bool finite = cr_limit_is_finite(v);
	int r;

	r = finite ? cr_json_add(o, "value", json_object_new_uint64(v)) : cr_json_add_null(o, "value");
	r = r ?: cr_json_add(o, "mode", json_object_new_string(finite ? mode : "none"));
	if (finite && !enforced)
		r = r ?: cr_json_add(o, "enforced", json_object_new_boolean(false));
	return cr_json_add(limits, name, cr_json_whole(o, r));
}

/* The job's UI restrictions, by name. NULL on allocation failure. */
static json_object *ui_restrictions(void)
{
	static const char *const ui[] = {"desktop",           "display_settings", "exit_windows",
					 "global_atoms",      "handles",          "read_clipboard",
					 "system_parameters", "write_clipboard"};
	json_object *a = json_object_new_array();
	int r = a ? 0 : -ENOMEM;

	for (size_t i = 0; r == 0 && i < sizeof(ui) / sizeof(ui[0]); i++)
		r = cr_json_append(a, json_object_new_string(ui[i]));
	return cr_json_whole(a, r);
}

static json_object *job_object(const struct cr_run *run)
{
	json_object *job = json_object_new_object();
	int r;

	r = cr_json_add(job, "kill_on_close", json_object_new_boolean(true));
	r = r ?: cr_json_add(job, "die_on_unhandled_exception", json_object_new_boolean(true));
	r = r ?: cr_json_add(job, "started_suspended", json_object_new_boolean(true));
	r = r ?: cr_json_add(job, "ui_restrictions", ui_restrictions());
	r = r ?: cr_json_add(job, "limit_messages",
			     json_object_new_boolean(run->job.port != NULL));
	return cr_json_whole(job, r);
}

static json_object *limits_object(const struct cr_run *run, bool wine)
{
	const struct cr_policy *p = run->policy;
	json_object *limits = json_object_new_object();
	int r;

	r = add_limit(limits, "memory", run->limits.memory ? run->limits.memory : CR_LIMIT_UNSET,
		      "job_memory", !wine);
	r = r ?: add_limit(limits, "pids",
			   run->limits.processes ? run->limits.processes : CR_LIMIT_UNSET,
			   "job_active_processes", !wine);
	r = r ?: add_limit(limits, "cpu_time",
			   run->limits.cpu_time_s ? run->limits.cpu_time_s : CR_LIMIT_UNSET,
			   "job_process_time", !wine);
	r = r ?: add_limit(limits, "memory_swap", p->limits.value[CR_LIMIT_MEMORY_SWAP],
			   "unenforceable", false);
	r = r ?: add_limit(limits, "cpu", p->limits.value[CR_LIMIT_CPU], "unenforceable", false);
	r = r ?: add_limit(limits, "file_size", p->limits.value[CR_LIMIT_FILE_SIZE],
			   "unenforceable", false);
	r = r ?: add_limit(limits, "open_files", p->limits.value[CR_LIMIT_OPEN_FILES],
			   "unenforceable", false);
	return cr_json_whole(limits, r);
}

int cr_win_report(const struct cr_run *run, json_object *o)
{
	const char *wine = cr_win_wine_version();
	bool low = run->mode == CR_WIN_MODE_LOW_INTEGRITY;
	int r;

	r = cr_json_add(o, "sandbox", json_object_new_string("job_object"));
	r = r ?: cr_json_add(o, "mode", json_object_new_string(low ? "low_integrity" : "job_only"));
	if (!low)
		r = r ?: cr_json_add(o, "mode_reason", json_object_new_string(run->mode_reason));
	r = r ?: cr_json_add(o, "integrity_level", json_object_new_string(low ? "low" : "unchanged"));
	r = r ?: cr_json_add(o, "privileges", json_object_new_string(low ? "removed" : "unchanged"));
	r = r ?: cr_json_add(o, "network", json_object_new_string("host"));
	r = r ?: cr_json_add(o, "workspace_access",
			     json_object_new_string(run->policy->workspace_ro ? "ro" : "rw"));
	r = r ?: cr_json_add(o, "workspace_label",
			     json_object_new_string(!low                        ? "unchanged"
						    : run->policy->workspace_ro ? "unchanged"
										: "low_for_run"));
	r = r ?: cr_json_add_str(o, "tmpdir", run->tmpdir_utf8);
	r = r ?: cr_json_add(o, "inherited_handles", json_object_new_string("stdio"));
	r = r ?: cr_json_add(o, "job", job_object(run));
	r = r ?: cr_json_add(o, "limits", limits_object(run, wine != NULL));
	if (run->ended && run->exit_code > 255)
		r = r ?: cr_json_add(o, "exit_code_raw", json_object_new_uint64(run->exit_code));
	if (wine)
		r = r ?: cr_json_add(o, "wine", json_object_new_string(wine));
	return r;
}
