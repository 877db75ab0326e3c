/* SPDX-License-Identifier: MIT */
/* launcher/oci/bundle.c, bundle-linux.c: config.json; launcher/oci/state.c: state.json.
 * Invariants: config.json is accepted (0) or refused (-EINVAL, with an error "PATH: what" that
 * names a field), nothing else, the same way twice, and a refused one leaves the config empty;
 * an accepted one has what `create` relies on (a root path; args and an absolute cwd when there
 * is a process; absolute mount destinations, masked and read-only paths; each namespace once,
 * id mappings only with a user namespace, within 32 bits; rlimits soft <= hard; seccomp argument
 * indexes 0 to 5, rules naming a syscall; known capabilities only; linux.devices with an
 * absolute path without '..' and a known type; a propagation mode that has flags; the id maps
 * idmaps.c writes for root never mapping host id 0, and none for a user but its own id, one line
 * per range); written back as JSON by
 * json-c and parsed again, it is accepted with the same counts and strings. state.json is
 * accepted or refused the same way, and an accepted one gives state JSON with its id and
 * status. */
#include <errno.h>
#include <json-c/json.h>

#include "fuzz-util.h"
#include "launcher/oci/bundle.h"
#include "launcher/oci/idmaps.h"
#include "launcher/oci/state.h"

/* The maps written for root (any ranges) and for a user (uid 1000): never host id 0 in a range,
 * one line per range, and a user's only its own id. */
static void check_idmaps(const struct cr_oci_config *c)
{
	char err[256], *text = NULL;
	uint32_t out;
	size_t lines = 0;

	if (cr_oci_idmap_text(c->uid_mappings, c->n_uid_mappings, c->process.uid, 0, "uidMappings",
			      &text, &out, err, sizeof(err)) == 0 && text) {
		for (const char *p = text; (p = strchr(p, '\n')); p++)
			lines++;
		FUZZ_CHECK(lines == c->n_uid_mappings, "uid_map lines");
		for (size_t i = 0; i < c->n_uid_mappings; i++)
			FUZZ_CHECK(c->uid_mappings[i].host_id > 0, "host root mapped by range %zu", i);
	}
	free(text);
	text = NULL;
	if (cr_oci_idmap_text(c->uid_mappings, c->n_uid_mappings, c->process.uid, 1000,
			      "uidMappings", &text, &out, err, sizeof(err)) == 0)
		FUZZ_CHECK(!text && out == 1000, "a user maps another id");
	free(text);
}

static void check_accepted(const struct cr_oci_config *c)
{
	unsigned seen = 0;

	FUZZ_CHECK(c->doc && c->root_path && c->root_path[0], "no root path");
	FUZZ_CHECK(c->oci_version && c->oci_version[0] == '1', "version %s", c->oci_version);
	if (c->process.present) {
		FUZZ_CHECK(c->process.args.n > 0 && c->process.args.v[0][0], "no args");
		FUZZ_CHECK(c->process.cwd && c->process.cwd[0] == '/', "cwd");
	}
	for (size_t i = 0; i < c->n_mounts; i++)
		FUZZ_CHECK(c->mounts[i].destination[0] == '/', "mount %zu", i);
	for (size_t i = 0; i < c->masked_paths.n; i++)
		FUZZ_CHECK(c->masked_paths.v[i][0] == '/', "masked path %zu", i);
	for (size_t i = 0; i < c->readonly_paths.n; i++)
		FUZZ_CHECK(c->readonly_paths.v[i][0] == '/', "read-only path %zu", i);
	for (size_t i = 0; i < c->n_namespaces; i++) {
		FUZZ_CHECK(c->namespaces[i].type < _CR_OCI_NS_MAX, "namespace type");
		FUZZ_CHECK(!(seen & (1u << c->namespaces[i].type)), "namespace twice");
		seen |= 1u << c->namespaces[i].type;
	}
	FUZZ_CHECK(!(c->n_uid_mappings + c->n_gid_mappings) || (seen & (1u << CR_OCI_NS_USER)),
		   "id mappings without a user namespace");
	for (size_t i = 0; i < c->n_uid_mappings; i++)
		FUZZ_CHECK((uint64_t)c->uid_mappings[i].host_id + c->uid_mappings[i].size <= UINT32_MAX &&
				   c->uid_mappings[i].size > 0,
			   "uid mapping %zu", i);
	for (size_t i = 0; i < c->process.n_rlimits; i++)
		FUZZ_CHECK(c->process.rlimits[i].soft <= c->process.rlimits[i].hard, "rlimit %zu", i);
	for (size_t i = 0; i < c->seccomp.n_rules; i++) {
		FUZZ_CHECK(c->seccomp.rules[i].names.n > 0, "seccomp rule %zu names none", i);
		for (size_t a = 0; a < c->seccomp.rules[i].n_args; a++)
			FUZZ_CHECK(c->seccomp.rules[i].args[a].index <= 5, "seccomp arg index");
	}
	for (int s = 0; s < _CR_OCI_CAPSET_MAX; s++)
		FUZZ_CHECK(c->process.caps[s] < (1ULL << 41), "unknown capability bit");
	for (size_t i = 0; i < c->n_devices; i++)
		FUZZ_CHECK(c->devices[i].path[0] == '/' && !strstr(c->devices[i].path, "/../") &&
				   strchr("cbup", c->devices[i].type) && c->devices[i].mode <= 07777,
			   "device %zu", i);
	FUZZ_CHECK(!c->rootfs_propagation || !c->rootfs_propagation[0] ||
			   cr_oci_propagation(c->rootfs_propagation),
		   "rootfsPropagation %s", c->rootfs_propagation);
	check_idmaps(c);
}

static void check_round_trip(const struct cr_oci_config *c)
{
	const char *text = json_object_to_json_string_ext(c->doc, JSON_C_TO_STRING_PLAIN);
	struct cr_oci_config back;
	char err[CR_OCI_ERR_MAX];
	int r;

	FUZZ_CHECK(text, "no text");
	r = cr_oci_config_parse(text, strlen(text), &back, err, sizeof(err));
	FUZZ_CHECK(r == 0, "written back, refused: %s: %s", text, err);
	FUZZ_CHECK(back.n_mounts == c->n_mounts && back.process.args.n == c->process.args.n &&
			   back.process.env.n == c->process.env.n &&
			   back.n_namespaces == c->n_namespaces && back.seccomp.n_rules == c->seccomp.n_rules &&
			   back.annotations.n == c->annotations.n && back.sysctl.n == c->sysctl.n,
		   "counts differ after a round trip");
	FUZZ_CHECK(strcmp(back.root_path, c->root_path) == 0, "root path");
	for (size_t i = 0; i < c->process.args.n; i++)
		FUZZ_CHECK(strcmp(back.process.args.v[i], c->process.args.v[i]) == 0, "arg %zu", i);
	for (size_t i = 0; i < c->n_mounts; i++)
		FUZZ_CHECK(strcmp(back.mounts[i].destination, c->mounts[i].destination) == 0, "mount");
	cr_oci_config_done(&back);
}

static void fuzz_config(const uint8_t *data, size_t size)
{
	struct cr_oci_config c, again;
	char err[CR_OCI_ERR_MAX] = "", err2[CR_OCI_ERR_MAX] = "";
	int r = cr_oci_config_parse((const char *)data, size, &c, err, sizeof(err));
	int r2 = cr_oci_config_parse((const char *)data, size, &again, err2, sizeof(err2));

	FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ENOMEM, "returned %d", r);
	FUZZ_CHECK(r == r2 && strcmp(err, err2) == 0, "not deterministic: %s / %s", err, err2);
	cr_oci_config_done(&again);
	if (r < 0) {
		FUZZ_CHECK(!c.doc && !c.mounts && c.n_mounts == 0, "a refused config is not empty");
		FUZZ_CHECK(r != -EINVAL || (err[0] && strstr(err, ": ")), "no reason: '%s'", err);
		return;
	}
	check_accepted(&c);
	check_round_trip(&c);
	cr_oci_config_done(&c);
}

static void fuzz_state(const uint8_t *data, size_t size)
{
	struct cr_oci_state s;
	char err[256] = "";
	json_object *j, *v;
	int r = cr_oci_state_parse((const char *)data, size, &s, err, sizeof(err));

	FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ENOMEM, "state returned %d", r);
	if (r < 0) {
		FUZZ_CHECK(!s.doc, "a refused state is not empty");
		return;
	}
	j = cr_oci_state_json(&s);
	FUZZ_CHECK(j, "no state JSON");
	FUZZ_CHECK(json_object_object_get_ex(j, "id", &v) && strcmp(json_object_get_string(v), s.id) == 0,
		   "id");
	FUZZ_CHECK(json_object_object_get_ex(j, "status", &v) &&
			   strcmp(json_object_get_string(v), cr_oci_status_name(s.status)) == 0,
		   "status");
	json_object_put(j);
	cr_oci_state_done(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_config(data, size);
	fuzz_state(data, size);
	return 0;
}
