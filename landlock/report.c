/* SPDX-License-Identifier: MIT */
/* enforced.landlock of the JSON status. */
#include <json-c/json.h>

#include "launcher/base/json-util.h"
#include "landlock-internal.h"

/* The names of the rights of the kinds in @kinds (a bit per enum cr_ll_kind) set in @mask[]. */
static json_object *names(const uint64_t mask[_CR_LL_KIND_MAX], unsigned kinds)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < cr_ll_n_rights; i++) {
		const struct cr_ll_right *r = &cr_ll_rights[i];

		if (!(kinds & (1u << r->kind)) || !(mask[r->kind] & r->bit))
			continue;
		if (cr_json_append(a, json_object_new_string(r->name)) < 0) {
			json_object_put(a);
			return NULL;
		}
	}
	return a;
}

/* The ports TCP @right is allowed on (an empty array: none), or JSON null when Landlock does
 * not restrict @right. Returns -1 on allocation failure. */
static int add_ports(json_object *o, const char *key, const struct cr_landlock_plan *plan,
		     uint64_t right, const struct cr_port_range *ranges, size_t n)
{
	json_object *a;
	char buf[16];

	if (!(plan->handled[CR_LL_NET] & right))
		return cr_json_add_null(o, key);
	a = json_object_new_array();
	for (size_t i = 0; a && i < n; i++) {
		cr_port_range_format(&ranges[i], buf, sizeof(buf));
		if (cr_json_append(a, json_object_new_string(buf)) < 0) {
			json_object_put(a);
			return -1;
		}
	}
	return cr_json_add(o, key, a);
}

json_object *cr_landlock_report(const struct cr_landlock_plan *plan)
{
	json_object *o = json_object_new_object();
	uint64_t dropped[_CR_LL_KIND_MAX];
	const unsigned access = 1u << CR_LL_FS | 1u << CR_LL_NET;
	int r = 0;

	if (!o)
		return NULL;
	for (int k = 0; k < _CR_LL_KIND_MAX; k++)
		dropped[k] = plan->wanted[k] & ~plan->handled[k];
	r |= cr_json_add(o, "mode", json_object_new_string(cr_landlock_mode_to_string(plan->mode)));
	r |= cr_json_add(o, "abi", json_object_new_int(plan->abi));
	r |= cr_json_add(o, "applied", json_object_new_boolean(plan->enabled));
	r |= cr_json_add(o, "handled", names(plan->handled, access));
	r |= cr_json_add(o, "scoped", names(plan->handled, 1u << CR_LL_SCOPE));
	r |= cr_json_add(o, "log_flags", names(plan->handled, 1u << CR_LL_LOG));
	r |= cr_json_add(o, "dropped", names(dropped, ~0u));
	r |= add_ports(o, "tcp_connect", plan, LANDLOCK_ACCESS_NET_CONNECT_TCP, plan->tcp_connect,
		       plan->n_tcp_connect);
	r |= add_ports(o, "tcp_bind", plan, LANDLOCK_ACCESS_NET_BIND_TCP, plan->tcp_bind,
		       plan->n_tcp_bind);
	if (r != 0) {
		json_object_put(o);
		return NULL;
	}
	return o;
}
