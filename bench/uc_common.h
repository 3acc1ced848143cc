/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the benchmark programs share (uc_bench.c, uc_icount.c): the exit on
 * a setup error and the JSON string field of their output. Define UC_PROG,
 * the program's name for its messages, before including it.
 */
#ifndef UC_COMMON_H
#define UC_COMMON_H

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
	va_list ap;

	fputs(UC_PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* "key": "value", with " and \ escaped */
static void json_str(const char *key, const char *v)
{
	const char *s;

	printf("\"%s\": \"", key);
	for (s = v ? v : ""; *s; s++) {
		if (*s == '"' || *s == '\\')
			putchar('\\');
		putchar(*s);
	}
	printf("\", ");
}

/*
 * The guest's idle time, precisely: the nohz idle accounting of every CPU
 * (/proc/timer_list, in ns; /proc/stat rounds it to 10 ms ticks and
 * samples user and system time a tick at a time). @now is the file's own
 * "now at" (CLOCK_MONOTONIC), so that busy time between two readings is
 * (now1 - now0) x cpus - (idle1 - idle0), everything the guest executed,
 * interrupts and kernel threads included.
 *
 * A CPU's idle_sleeptime grows only when an idle period ends; the period a
 * CPU is in while the file is read is added (now - idle_entrytime) when
 * its tick is stopped, which under NO_HZ_IDLE means idle. An idle CPU
 * whose tick still runs has an open period of at most one tick, which this
 * misses at either end alike. (uc_icount reads it on its one CPU while
 * running, when no period is open and the correction adds nothing.)
 */
struct uc_idle {
	uint64_t now;		/* ns, CLOCK_MONOTONIC */
	uint64_t idle;		/* ns, idle and iowait of every CPU */
	unsigned int cpus;	/* CPUs with a tick_sched entry */
};

static inline void uc_idle_read(struct uc_idle *s)
{
	static char line[512];
	unsigned long long v, now = 0, entry = 0;
	FILE *f = fopen("/proc/timer_list", "r");
	int stopped = 0, d;

	if (!f)
		die("/proc/timer_list: %s", strerror(errno));
	memset(s, 0, sizeof(*s));
	while (fgets(line, sizeof(line), f)) {
		const char *p = line;

		while (*p == ' ')
			p++;
		if (sscanf(p, "now at %llu nsecs", &v) == 1) {
			now = v;
		} else if (sscanf(p, ".tick_stopped : %d", &d) == 1) {
			stopped = d;
		} else if (sscanf(p, ".idle_entrytime : %llu nsecs", &v) == 1) {
			entry = v;
		} else if (sscanf(p, ".idle_sleeptime : %llu nsecs", &v) == 1) {
			s->idle += v;
		} else if (sscanf(p, ".iowait_sleeptime: %llu nsecs", &v) == 1) {
			/* the last of a CPU's idle figures */
			s->idle += v;
			if (stopped && now > entry)
				s->idle += now - entry;
			s->cpus++;
			stopped = 0;
			entry = 0;
		}
	}
	fclose(f);
	if (!s->cpus || !now)
		die("/proc/timer_list: no idle_sleeptime (a kernel without NO_HZ?)");
	s->now = now;
}

#endif
