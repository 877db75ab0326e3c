/* SPDX-License-Identifier: MIT */
/* config.json's hooks run as the runtime-spec says (hooks.c): prestart and createRuntime by
 * create's monitor once the container's namespaces exist (a failure fails create), poststart by
 * start once the process runs and poststop by delete (a failure there is a warning). Each gets
 * the container's state on stdin. createContainer and startContainer, which run inside the
 * container, are refused when the policy is built. */
#pragma once

#include <stddef.h>

#include "bundle.h"

struct json_object;

/* Run @c's hooks of @kind in order, each as its own process (path, args, env; the runtime's
 * environment when env is absent is not passed: an empty one), @state on its stdin, killed at
 * its timeout. 0; or the first failure (-ECHILD: it exited non-zero or was killed; -ETIME: its
 * timeout) with @err naming the hook and what it wrote on stderr, the later hooks not run. */
int oci_hooks_run(const struct cr_oci_config *c, enum cr_oci_hook_kind kind, const char *state,
		  char *err, size_t size);

/* The hooks start and delete run later (poststart, poststop), as a config.json document of
 * their own that cr_oci_config_parse() reads back: ROOT/ID/hooks.json. NULL on ENOMEM. */
struct json_object *oci_hooks_doc(const struct cr_oci_config *c);

/* Read ROOT/ID/hooks.json (opened in @dfd, the container's directory) into @ret; a container
 * with none gets an empty config. 0 or -errno. */
int oci_hooks_load(int dfd, struct cr_oci_config *ret);
