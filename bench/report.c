/* SPDX-License-Identifier: MIT */
/* corral-bench's reports: the terminal table, CSV, JSON (json-c) and an SVG box plot. */
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "launcher/base/json-util.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of a sorted array. */
static double pct(const double *sorted, size_t n, double p)
{
	return sorted[(size_t)(p * (double)(n - 1) + 0.5)];
}

struct stats cr_bench_stats(double *x, size_t n)
{
	qsort(x, n, sizeof(double), cmp_double);
	return (struct stats){
		.min = x[0],
		.p25 = pct(x, n, 0.25),
		.median = pct(x, n, 0.5),
		.p75 = pct(x, n, 0.75),
		.p90 = pct(x, n, 0.9),
		.p99 = pct(x, n, 0.99),
		.max = x[n - 1],
	};
}

/* Right-aligned in 12 columns: "µ" is two bytes but one column, so pad by hand. */
const char *cr_bench_fmt_time(char *buf, size_t size, double us)
{
	char t[24];

	if (us >= 10000)
		snprintf(t, sizeof(t), "%.2f ms", us / 1000);
	else
		snprintf(t, sizeof(t), "%.0f µs", us);
	snprintf(buf, size, "%*s%s", (int)(12 - strlen(t) + (strstr(t, "µ") ? 1 : 0)), "", t);
	return buf;
}

static double median_of(const struct subject *v, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!v[i].note && v[i].n && !strcmp(v[i].name, name))
			return pct(v[i].samples, v[i].n, 0.5);
	return 0;
}

void cr_bench_print_table(const struct subject *v, size_t n, const struct stats *st)
{
	double floor = median_of(v, n, "fork+exec"), base = median_of(v, n, "corral");
	char a[32], b[32], c[32], d[32];

	printf("%-12s %6s %12s %12s %12s %12s %11s %8s\n", "subject", "n", "min", "median", "p90",
	       "p99", "/fork+exec", "/corral");
	for (size_t i = 0; i < n; i++) {
		if (v[i].note)
			continue;
		printf("%-12s %6zu %s %s %s %s %10.1fx %7.2fx\n", v[i].name, v[i].n,
		       cr_bench_fmt_time(a, sizeof(a), st[i].min),
		       cr_bench_fmt_time(b, sizeof(b), st[i].median),
		       cr_bench_fmt_time(c, sizeof(c), st[i].p90),
		       cr_bench_fmt_time(d, sizeof(d), st[i].p99),
		       floor > 0 ? st[i].median / floor : 0, base > 0 ? st[i].median / base : 0);
	}
	for (size_t i = 0; i < n; i++)
		if (v[i].note)
			printf("%-12s skipped: %s\n", v[i].name, v[i].note);
}

void cr_bench_print_csv(const struct subject *v, size_t n, const struct stats *st)
{
	double floor = median_of(v, n, "fork+exec"), base = median_of(v, n, "corral");

	printf("subject,n,min_us,median_us,p90_us,p99_us,ratio_fork_exec,ratio_corral,note\n");
	for (size_t i = 0; i < n; i++) {
		if (v[i].note) {
			printf("%s,0,,,,,,,\"%s\"\n", v[i].name, v[i].note);
			continue;
		}
		printf("%s,%zu,%.1f,%.1f,%.1f,%.1f,%.3f,%.3f,\n", v[i].name, v[i].n, st[i].min,
		       st[i].median, st[i].p90, st[i].p99, floor > 0 ? st[i].median / floor : 0,
		       base > 0 ? st[i].median / base : 0);
	}
}

static json_object *subject_json(const struct subject *s, const struct stats *st, double floor,
				 double base)
{
	json_object *o = json_object_new_object(), *argv;
	int r;

	r = cr_json_add(o, "name", json_object_new_string(s->name));
	if (s->note)
		return cr_json_whole(o, r ?: cr_json_add(o, "skipped",
							 json_object_new_string(s->note)));
	argv = json_object_new_array();
	r = r ?: argv ? 0 : -ENOMEM;
	for (size_t i = 0; r == 0 && s->argv[i]; i++)
		r = cr_json_append(argv, json_object_new_string(s->argv[i]));
	if (r < 0)
		json_object_put(argv);
	r = r ?: cr_json_add(o, "argv", argv);
	r = r ?: cr_json_add(o, "n", json_object_new_uint64(s->n));
	r = r ?: cr_json_add(o, "min_us", json_object_new_double(st->min));
	r = r ?: cr_json_add(o, "median_us", json_object_new_double(st->median));
	r = r ?: cr_json_add(o, "p90_us", json_object_new_double(st->p90));
	r = r ?: cr_json_add(o, "p99_us", json_object_new_double(st->p99));
	r = r ?: cr_json_add(o, "ratio_fork_exec",
			     json_object_new_double(floor > 0 ? st->median / floor : 0));
	r = r ?: cr_json_add(o, "ratio_corral",
			     json_object_new_double(base > 0 ? st->median / base : 0));
	return cr_json_whole(o, r);
}

int cr_bench_print_json(const struct subject *v, size_t n, const struct stats *st,
			const struct opts *o)
{
	double floor = median_of(v, n, "fork+exec"), base = median_of(v, n, "corral");
	json_object *root = json_object_new_object(), *arr = json_object_new_array();
	int r = arr ? 0 : -ENOMEM;

	for (size_t i = 0; r == 0 && i < n; i++)
		r = cr_json_append(arr, subject_json(&v[i], &st[i], floor, base));
	arr = cr_json_whole(arr, r);
	r = cr_json_add(root, "workload", json_object_new_string(o->workload));
	r = r ?: cr_json_add(root, "runs", json_object_new_uint64(o->runs));
	r = r ?: cr_json_add(root, "warmup", json_object_new_uint64(o->warmup));
	r = r ?: cr_json_add(root, "seed", json_object_new_uint64(o->seed));
	r = r ?: cr_json_add(root, "corral", json_object_new_string(o->corral));
	if (r < 0)
		json_object_put(arr);
	r = r ?: cr_json_add(root, "subjects", arr);
	if (r == 0)
		puts(json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
								  JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(root);
	return r;
}

/* clang-format off */
enum { PLOT_W = 760, ROW_H = 28, LEFT = 110, RIGHT = 30, TOP = 40, AXIS_H = 40 };
/* clang-format on */

/* x of a time on the log axis [lo, hi). */
static double plot_x(double us, double lo, double hi)
{
	return LEFT + (PLOT_W - LEFT - RIGHT) * (log10(us) - log10(lo)) / (log10(hi) - log10(lo));
}

static void plot_axis(FILE *f, double lo, double hi, int y)
{
	fprintf(f, "<line x1='%d' y1='%d' x2='%d' y2='%d' stroke='black'/>\n", LEFT, y,
		PLOT_W - RIGHT, y);
	for (double t = pow(10, floor(log10(lo))); t <= hi; t *= 10)
		for (int m = 1; m < 10; m++) {
			double x = plot_x(t * m, lo, hi);

			if (t * m < lo || t * m > hi)
				continue;
			fprintf(f, "<line x1='%.1f' y1='%d' x2='%.1f' y2='%d' stroke='%s'/>\n", x,
				TOP, x, y + (m == 1 ? 6 : 3), m == 1 ? "#bbb" : "#eee");
			if (m == 1 || m == 2 || m == 5)
				fprintf(f,
					"<text x='%.1f' y='%d' text-anchor='middle'>%g %s</text>\n",
					x, y + 20, t * m >= 1000 ? t * m / 1000 : t * m,
					t * m >= 1000 ? "ms" : "µs");
		}
}

/* One row: whiskers p1..p99 (here min..p99), box p25..p75, median bar. */
static void plot_row(FILE *f, const char *name, const struct stats *s, int y, double lo, double hi)
{
	double x0 = plot_x(s->min, lo, hi), x1 = plot_x(s->p99, lo, hi);
	double b0 = plot_x(s->p25, lo, hi), b1 = plot_x(s->p75, lo, hi);
	double xm = plot_x(s->median, lo, hi);
	int mid = y + ROW_H / 2;

	fprintf(f, "<text x='%d' y='%d' text-anchor='end'>%s</text>\n", LEFT - 8, mid + 4, name);
	fprintf(f, "<line x1='%.1f' y1='%d' x2='%.1f' y2='%d' stroke='#555'/>\n", x0, mid, x1, mid);
	fprintf(f, "<rect x='%.1f' y='%d' width='%.1f' height='%d' fill='#9cf' stroke='#036'/>\n",
		b0, y + 5, b1 - b0 > 1 ? b1 - b0 : 1, ROW_H - 10);
	fprintf(f, "<line x1='%.1f' y1='%d' x2='%.1f' y2='%d' stroke='#c00' stroke-width='2'/>\n",
		xm, y + 3, xm, y + ROW_H - 3);
}

int cr_bench_plot_svg(const char *path, const struct subject *v, size_t n, const struct stats *st,
		      const char *title)
{
	double lo = 1e300, hi = 0;
	size_t rows = 0;
	int h, y = TOP;
	FILE *f;

	for (size_t i = 0; i < n; i++)
		if (!v[i].note) {
			lo = fmin(lo, st[i].min), hi = fmax(hi, st[i].p99), rows++;
		}
	if (!rows)
		return -EINVAL;
	lo = pow(10, floor(log10(lo > 1 ? lo : 1))),
	hi = pow(10, ceil(log10(hi > lo ? hi : lo * 10)));
	h = TOP + (int)rows * ROW_H + AXIS_H;
	f = fopen(path, "we");
	if (!f)
		return -errno;
	fprintf(f,
		"<svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%d' "
		"font-family='sans-serif' font-size='12'>\n<rect width='100%%' height='100%%' "
		"fill='white'/>\n",
		PLOT_W, h);
	fprintf(f, "<text x='%d' y='20' font-weight='bold'>", LEFT);
	for (const char *c = title; *c; c++) /* the title holds no markup but may hold '<' */
		fputs(*c == '<' ? "&lt;" : *c == '&' ? "&amp;" : (char[2]){*c, 0}, f);
	fputs(" (box p25-p75, red median, whiskers min-p99)</text>\n", f);
	plot_axis(f, lo, hi, TOP + (int)rows * ROW_H);
	for (size_t i = 0; i < n; i++)
		if (!v[i].note) {
			plot_row(f, v[i].name, &st[i], y, lo, hi);
			y += ROW_H;
		}
	fputs("</svg>\n", f);
	return fclose(f) == 0 ? 0 : -errno;
}
