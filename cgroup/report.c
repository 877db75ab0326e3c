/* SPDX-License-Identifier: MIT */
/* The enforced.limits object of the JSON status: each limit's value and how it is enforced. */
#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

#include "launcher/base/json-util.h"
#include "report.h"

static json_object *limit_json(const struct cr_limits_report *rep, enum cr_limit l)
{
	json_object *o = json_object_new_object();
	uint64_t value = rep ? rep->value[l] : CR_LIMIT_UNSET;
	enum cr_limit_mode mode = rep ? rep->mode[l] : CR_LIMIT_MODE_NONE;
	bool zero_swap = l == CR_LIMIT_MEMORY_SWAP && value == 0 && mode != CR_LIMIT_MODE_NONE;
	int r;

	if (value == CR_LIMIT_INFINITY)
		r = cr_json_add(o, "value", json_object_new_string("max"));
	else if (value == CR_LIMIT_UNSET && !zero_swap)
		r = cr_json_add_null(o, "value");
	else if (l == CR_LIMIT_CPU)
		r = cr_json_add(o, "value", json_object_new_double((double)value / 1000));
	else
		r = cr_json_add(o, "value",
				json_object_new_int64(value > INT64_MAX ? INT64_MAX : (int64_t)value));
	r = r ?: cr_json_add(o, "mode", json_object_new_string(cr_limit_mode_to_string(mode)));
	if (rep && rep->why[l][0])
		r = r ?: cr_json_add(o, "reason", json_object_new_string(rep->why[l]));
	if (l == CR_LIMIT_CPU && rep && rep->cpus)
		r = r ?: cr_json_add(o, "affinity", json_object_new_int((int)rep->cpus));
	if (r < 0) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

json_object *cr_limits_report_json(const struct cr_limits_report *rep)
{
	json_object *o = json_object_new_object();

	for (int l = 0; o && l < _CR_LIMIT_MAX; l++) {
		json_object *j = limit_json(rep, l);

		if (cr_json_add(o, cr_limit_to_string(l), j) < 0) {
			json_object_put(o);
			return NULL;
		}
	}
	return o;
}
