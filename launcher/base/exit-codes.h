/* SPDX-License-Identifier: MIT */
/* corral's exit status. A command that ran reports its own status; corral adds these. */
#pragma once

enum cr_exit_code {
	CR_EXIT_TIMEOUT = 124,	 /* --timeout expired; the whole sandbox was stopped */
	CR_EXIT_SETUP = 125,	 /* bad input, or the sandbox could not be built */
	CR_EXIT_NOEXEC = 126,	 /* the command was found but could not be executed */
	CR_EXIT_DENIED = 126,	 /* the run asks for more than its profile allows, without a grant
				  * (the JSON status says which of the two: outcome "denied") */
	CR_EXIT_NOTFOUND = 127,	 /* the command was not found */
	CR_EXIT_SIGNAL_BASE = 128, /* 128 + n: the command was killed by signal n */
	CR_EXIT_OOM = 137,	 /* the OOM killer killed a process of the sandbox (128 + SIGKILL) */
};
