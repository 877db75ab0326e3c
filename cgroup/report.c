/* SPDX-License-Identifier: MIT */
/* The enforced.limits object of the JSON status: each limit's value and how it is enforced. */
#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

#include "report.h"

static json_object *limit_json(const struct cr_limits_report *rep, enum cr_limit l)
{
	json_object *o = json_object_new_object(), *v;
	uint64_t value = rep ? rep->value[l] : CR_LIMIT_UNSET;
	enum cr_limit_mode mode = rep ? rep->mode[l] : CR_LIMIT_MODE_NONE;
	bool zero_swap = l == CR_LIMIT_MEMORY_SWAP && value == 0 && mode != CR_LIMIT_MODE_NONE;

	if (!o)
		return NULL;
	if (value == CR_LIMIT_INFINITY)
		v = json_object_new_string("max");
	else if (value == CR_LIMIT_UNSET && !zero_swap)
		v = NULL;
	else if (l == CR_LIMIT_CPU)
		v = json_object_new_double((double)value / 1000);
	else
		v = json_object_new_int64(value > INT64_MAX ? INT64_MAX : (int64_t)value);
	if (json_object_object_add(o, "value", v) < 0 ||
	    json_object_object_add(o, "mode",
				   json_object_new_string(cr_limit_mode_to_string(mode))) < 0 ||
	    (rep && rep->why[l][0] &&
	     json_object_object_add(o, "reason", json_object_new_string(rep->why[l])) < 0) ||
	    (l == CR_LIMIT_CPU && rep && rep->cpus &&
	     json_object_object_add(o, "affinity", json_object_new_int((int)rep->cpus)) < 0)) {
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

		if (!j || json_object_object_add(o, cr_limit_to_string(l), j) < 0) {
			json_object_put(j);
			json_object_put(o);
			return NULL;
		}
	}
	return o;
}
