/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the benchmark programs share (uc_bench.c, uc_icount.c): the exit on
 * a setup error and the JSON string field of their output. Define UC_PROG,
 * the program's name for its messages, before including it.
 */
#ifndef UC_COMMON_H
#define UC_COMMON_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

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

#endif
