/* SPDX-License-Identifier: MIT */
/* corral-bench: the subjects it measures and the reports it prints (report.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MAX_ARGV 24

enum kind {
	KIND_FORK,
	KIND_SPAWN,
	KIND_SERVE /* one exec round trip through a `corral serve --stdio` started once */
};

struct subject {
	const char *name;
	enum kind kind;
	const char *argv[MAX_ARGV];
	const char *note; /* set: skipped, with this reason */
	double *samples;  /* microseconds */
	size_t n;
};

struct stats {
	double min, p25, median, p75, p90, p99, max;
};

struct opts {
	const char *corral;
	const char *floor; /* corral-floor, or NULL */
	const char *workload;
	const char *series_subject;
	const char *plot;
	const char *only; /* --only: the subjects to measure, or NULL for all */
	unsigned long runs, warmup, series;
	unsigned long burst_k, stock; /* --burst: K commands at once; the pool's --size */
	uint64_t seed;
	bool vs_peers, json, csv, burst, stages;
	bool pool_on; /* the bench's pool runs */
};

/* Sorts x[0..n) in place (n > 0) and returns its summary. */
struct stats cr_bench_stats(double *x, size_t n);
/* "1234 µs" or "12.34 ms", right-aligned in 12 columns, into buf; returns buf. */
const char *cr_bench_fmt_time(char *buf, size_t size, double us);
/* The latency results of v[0..n), summarised in st[0..n), on stdout. */
void cr_bench_print_table(const struct subject *v, size_t n, const struct stats *st);
void cr_bench_print_csv(const struct subject *v, size_t n, const struct stats *st);
/* 0, or -ENOMEM: nothing is printed unless the whole document could be built. */
int cr_bench_print_json(const struct subject *v, size_t n, const struct stats *st,
			const struct opts *o);
/* Box plots of the measured subjects side by side, on a log time axis, as SVG into path.
 * Returns 0 or -errno. */
int cr_bench_plot_svg(const char *path, const struct subject *v, size_t n, const struct stats *st,
		      const char *title);

/* --stages: `argv` (corral run) warmup + runs times in a row, each with a fresh CORRAL_STAMP_FD;
 * prints the median and p90 of each stage, µs, on stdout (bench/stages.c). 0 or -errno. */
int cr_bench_stages(const char *const *argv, unsigned long runs, unsigned long warmup,
		    int devnull);
/* bench/pool.c: a `corral pool` for the pool subject, its socket in @rundir (a mkdtemp
 * template, made here and set as XDG_RUNTIME_DIR), taught the default policy. 0 or -errno. */
int cr_bench_pool_start(const char *corral, char *rundir, unsigned long stock);
/* What the pool says now: ready sandboxes (all policies), commands served and missed. */
struct cr_bench_pool_counts {
	unsigned long ready, served, missed;
};
int cr_bench_pool_counts(const char *corral, struct cr_bench_pool_counts *ret);
/* Wait (up to @timeout_ms) until the pool has @stock sandboxes ready; the counts then. */
int cr_bench_pool_wait(const char *corral, unsigned long stock, int timeout_ms,
		       struct cr_bench_pool_counts *ret);
/* Its status on stderr, then stop it and remove @rundir. */
void cr_bench_pool_stop(const char *corral, const char *rundir);
