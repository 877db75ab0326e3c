/* SPDX-License-Identifier: MIT */
/* The monotonic clock in milliseconds: deadlines (whole ms) and durations (fractions kept). */
#pragma once

#include <stdint.h>

/* CLOCK_MONOTONIC in whole milliseconds, for deadlines and timeouts. */
int64_t cr_now_ms(void);

/* CLOCK_MONOTONIC in nanoseconds, for deadlines kept finer than a millisecond and short
 * measurements. */
int64_t cr_now_ns(void);

/* CLOCK_MONOTONIC in milliseconds with the fraction, for durations reported to the user. */
double cr_now_ms_f(void);
