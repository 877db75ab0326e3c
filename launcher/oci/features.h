/* SPDX-License-Identifier: MIT */
/* What the OCI door implements: the runtime-spec features document (`corral oci features`). */
#pragma once

struct json_object;

/* The features document (runtime-spec features.md). NULL on allocation failure. */
struct json_object *cr_oci_features_json(void);
