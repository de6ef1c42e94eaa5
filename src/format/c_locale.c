/*
 * The C locale the line writer, the parser and the trace switch to (see
 * c_locale.h). Made once per process and never freed: it is glibc's static
 * C locale object in practice, and a locale_t freed while another thread
 * formats a line would be a use after free. Also the one case-insensitive
 * comparison of setting words, in ASCII.
 */
#include <langinfo.h>
#include <pthread.h>

#include "format/c_locale.h"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static locale_t c_loc;

static void make(void)
{
	c_loc = newlocale(LC_ALL_MASK, "C", (locale_t)0);
}

locale_t lsc__c_locale_enter(void)
{
	/* printf's %f and strtod differ from the C locale's only in the radix
	 * character (the writer never asks for grouping), so a thread whose
	 * radix is already "." needs no switch: the usual case costs one
	 * lookup in the thread's locale, not two uselocale() calls. */
	const char *radix = nl_langinfo(RADIXCHAR);
	if (radix[0] == '.' && radix[1] == '\0')
		return (locale_t)0;
	pthread_once(&once, make);
	return c_loc ? uselocale(c_loc) : (locale_t)0;
}

void lsc__c_locale_leave(locale_t before)
{
	if (before)
		uselocale(before);
}

static int ascii_lower(unsigned char c)
{
	return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
}

int lsc__ascii_casecmp(const char *a, const char *b)
{
	const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;
	for (;; x++, y++) {
		int d = ascii_lower(*x) - ascii_lower(*y);
		if (d || !*x)
			return d;
	}
}
