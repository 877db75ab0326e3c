/* SPDX-License-Identifier: MIT */
/* Shared by profile.c and its tests. */
#pragma once

#include "profile.h"

/* "allow", "ask", "deny" to a rule; _CR_COMMAND_RULE_INVALID for anything else. */
enum cr_command_rule cr_command_rule_from_string(const char *s);
