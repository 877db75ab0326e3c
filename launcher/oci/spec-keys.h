/* SPDX-License-Identifier: MIT */
/* The keys runtime-spec 1.2 defines in each object of config.json: a key corral does not read
 * is refused when the spec defines it (a field corral does not implement) and ignored, with a
 * warning, when it does not (the spec's extensibility rule: an unknown property is no error). */
#pragma once

#include <stdbool.h>

/* Does runtime-spec define @key in the object at @path ("", "process", "mounts[2]",
 * "linux.resources.memory"...; indexes are ignored)? Also true for an object this table does not
 * list, so that nothing there is ever ignored. */
bool cr_oci_spec_key(const char *path, const char *key);
