/* SPDX-License-Identifier: MIT */
/* From the policy every driver consumes to the input of the SBPL generator. */
#include <errno.h>
#include <stdlib.h>

#include "launcher/base/log.h"
#include "launcher/base/macro.h"
#include "launcher/policy/policy.h"
#include "sbpl.h"

static const char **rules_of(const struct cr_policy *p, enum cr_path_access access, size_t *ret_n)
{
	const char **v = calloc(p->n_paths + 1, sizeof(char *));
	size_t n = 0;

	for (size_t i = 0; v && i < p->n_paths; i++)
		if (p->paths[i].access == access)
			v[n++] = p->paths[i].path;
	*ret_n = n;
	return v;
}

int cr_sbpl_from_policy(const struct cr_policy *p, const char *tmpdir, bool interactive,
			struct cr_sbpl *ret, char *msg, size_t msg_size)
{
	_cleanup_free_ const char **ro = NULL, **rw = NULL, **hide = NULL;
	struct cr_sbpl_input in = {
		.workspace = p->workspace,
		.workspace_ro = p->workspace_ro,
		.tmpdir = tmpdir,
		.home = p->home,
		.spawn = !p->no_spawn,
		.interactive = interactive,
	};

	switch (p->net) {
	case CR_NET_NONE:
		in.net = CR_SBPL_NET_NONE;
		break;
	case CR_NET_HOST:
		in.net = CR_SBPL_NET_ALL;
		break;
	case CR_NET_HOSTS:
	default:
		return cr_msg(msg, msg_size, -ENOTSUP,
			      "network allow_hosts needs corral's filtering proxy, which the macos driver does not have yet: choose none or all");
	}
	/* FIXME: deny renaming each pinned directory in the profile instead, once that is tried on
	 * a Mac; until then refuse what a sandbox profile here does not hold. */
	if (p->n_pins)
		return cr_msg(msg, msg_size, -ENOTSUP,
			      "corral's own files lie inside a writable path (%s, below %s): the macos driver cannot keep the directories above them in place yet; choose a workspace that does not contain them",
			      p->pins[0], p->workspace);
	/* FIXME: show each cache's directory at its path (a symlink in the private HOME?) once that
	 * is tried on a Mac; until then the command runs without them, and is told. */
	for (size_t i = 0; i < p->n_caches; i++)
		cr_log_warning("the macos driver cannot show a directory at another path yet: the cache %s is not at %s; the command runs without it",
			       p->caches[i].name, p->caches[i].path);
	ro = rules_of(p, CR_PATH_RO, &in.n_read);
	rw = rules_of(p, CR_PATH_RW, &in.n_write);
	hide = rules_of(p, CR_PATH_HIDE, &in.n_hide);
	if (!ro || !rw || !hide)
		return cr_msg(msg, msg_size, -ENOMEM, "out of memory");
	in.read = ro;
	in.write = rw;
	in.hide = hide;
	return cr_sbpl_generate(&in, ret, msg, msg_size);
}
