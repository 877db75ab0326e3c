/* SPDX-License-Identifier: MIT */
/* Resource limits of a run (--memory, --pids, --cpu, ...): their names, their values as the user
 * writes them, and the modes that can enforce them. Pure and portable: built on every host. */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum cr_limit {
	CR_LIMIT_MEMORY,      /* bytes */
	CR_LIMIT_MEMORY_SWAP, /* bytes of swap on top of --memory */
	CR_LIMIT_PIDS,	      /* processes and threads */
	CR_LIMIT_CPU,	      /* thousandths of a CPU (cpu.max quota) */
	CR_LIMIT_CPU_TIME,    /* seconds of CPU time per process */
	CR_LIMIT_FILE_SIZE,   /* bytes */
	CR_LIMIT_OPEN_FILES,  /* descriptors per process */
	_CR_LIMIT_MAX,
	_CR_LIMIT_INVALID = -EINVAL,
};

/* How a limit was enforced, best first. */
enum cr_limit_mode {
	CR_LIMIT_MODE_NONE,
	CR_LIMIT_MODE_CGROUP2,
	CR_LIMIT_MODE_CGROUP1,
	CR_LIMIT_MODE_RLIMIT,
	_CR_LIMIT_MODE_MAX,
};

#define CR_LIMIT_UNSET 0	     /* not asked for: no limit */
#define CR_LIMIT_INFINITY UINT64_MAX /* "max": explicitly no limit */
#define CR_DEFAULT_PIDS 4096	     /* applies with no option: a fork bomb stops here */
#define CR_DEFAULT_MEMORY_MIN (2ull << 30) /* a make -j2, a node or Go build fit in this */

/* One file of the caller's cgroup that the OCI door's linux.resources writes beyond the limits
 * below (cgroup/place.h): in cgroup2 when its directory has the controller @v2_ctl, else in the
 * cgroup v1 hierarchy of @v1_ctl. An empty controller: that version has no such file, and
 * @v2_why / @v1_why say why. Fixed sizes: the list is made once and read in the monitor. */
struct cr_cgroup_file {
	char field[64]; /* "linux.resources.memory.reservation": named in every error */
	char v1_ctl[16], v1_file[48], v1_value[64], v1_why[64];
	char v2_ctl[16], v2_file[48], v2_value[64], v2_why[64];
	bool check;    /* read the value back: a kernel that takes a write and ignores it fails */
	bool optional; /* enforced another way where neither version has the file (devices) */
};

struct cr_limits {
	uint64_t value[_CR_LIMIT_MAX]; /* CR_LIMIT_UNSET, a value, or CR_LIMIT_INFINITY */
	bool set[_CR_LIMIT_MAX];       /* given on the command line (not a default) */
	bool required;		       /* --limits=required: a limit that cannot be enforced is fatal */
	/* The OCI door's linux.cgroupsPath (cgroup/place.h): the run goes into the caller's own
	 * cgroup, not one of corral's; "" for none. */
	char cgroup_path[512];
	/* The OCI door's linux.resources.cpu.shares (2 to 262144; 0: not set), written into the
	 * caller's cgroup only: cpu.shares on v1, cpu.weight on v2. */
	uint64_t cpu_shares;
	/* The OCI door's other linux.resources (memory.reservation, cpu.cpus, blockIO, devices...),
	 * written into the caller's cgroup only; borrowed from the door's config. */
	const struct cr_cgroup_file *files;
	size_t n_files;
};

/* "memory", "memory_swap", ...: the key in the JSON status. NULL if out of range. */
const char *cr_limit_to_string(enum cr_limit l);
/* "--memory", ...: the option that sets it. */
const char *cr_limit_option(enum cr_limit l);
/* "none", "cgroup2", "cgroup1", "rlimit". */
const char *cr_limit_mode_to_string(enum cr_limit_mode m);

/* Parse the argument of @l's option: bytes with an optional K/M/G/T suffix (powers of 1024) for
 * the sizes, a decimal number of CPUs for cpu ("0.5"), whole numbers otherwise; "max" is
 * CR_LIMIT_INFINITY. Zero is refused. 0, -EINVAL (malformed, bad unit) or -ERANGE. */
int cr_limit_parse(enum cr_limit l, const char *s, uint64_t *ret);

/* Format a value as the JSON status shows it: "max", or the number. */
void cr_limit_format(enum cr_limit l, uint64_t v, char *buf, unsigned size);

/* The memory limit of a run whose profile and options set none, on a host with @ram bytes of
 * physical memory: half of it, so that the host keeps the other half whatever the sandbox does,
 * but at least CR_DEFAULT_MEMORY_MIN, or three quarters of @ram where that is less (a small
 * host); whole MiB. CR_DEFAULT_MEMORY_MIN when @ram is 0 (unknown). Never 0. */
uint64_t cr_limit_default_memory(uint64_t ram);

/* Whether @v asks the kernel to cap something. */
static inline bool cr_limit_is_finite(uint64_t v)
{
	return v != CR_LIMIT_UNSET && v != CR_LIMIT_INFINITY;
}
