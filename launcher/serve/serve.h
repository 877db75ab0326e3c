/* SPDX-License-Identifier: MIT */
/* `corral serve`: a long-lived server that keeps one warm sandbox per session and runs commands
 * in it on request, speaking JSON lines over stdin/stdout (--stdio) or a unix socket (--socket
 * PATH). The protocol is in docs/protocol.md. */
#pragma once

/* argv[0] is "serve". Returns the exit status. */
int cr_serve_main(int argc, char **argv);
