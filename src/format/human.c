/*
 * Human-readable numbers with units (see human.h), in the C locale whatever
 * the engine set (format/c_locale.h): "4.00 GiB", never "4,00 GiB".
 */
#include <math.h>
#include <stdio.h>

#include "format/c_locale.h"
#include "format/human.h"

static void fmt_bytes_c(char buf[LSC__HBUF], double b)
{
	static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
	if (!isfinite(b) || b < 0) {
		snprintf(buf, LSC__HBUF, "n/a");
		return;
	}
	unsigned u = 0;
	while (b >= 1024.0 && u < 5) {
		b /= 1024.0;
		u++;
	}
	if (u == 0)
		snprintf(buf, LSC__HBUF, "%.0f B", b);
	else
		snprintf(buf, LSC__HBUF, b < 100 && u >= 3 ? "%.2f %s" : "%.1f %s", b, unit[u]);
}

static void fmt_count_c(char buf[LSC__HBUF], double n)
{
	if (!isfinite(n)) {
		snprintf(buf, LSC__HBUF, "n/a");
		return;
	}
	/* each unit up to what would print as 1000 of it once rounded
	 * (999,999 is "1.00M", not "1000.0k") */
	double a = fabs(n);
	if (a < 9999.5)
		snprintf(buf, LSC__HBUF, "%.0f", n);
	else if (a < 999950)
		snprintf(buf, LSC__HBUF, "%.1fk", n / 1e3);
	else if (a < 999995000)
		snprintf(buf, LSC__HBUF, "%.2fM", n / 1e6);
	else
		snprintf(buf, LSC__HBUF, "%.2fG", n / 1e9);
}

static void fmt_secs_c(char buf[LSC__HBUF], double s)
{
	if (!isfinite(s) || s < 0)
		snprintf(buf, LSC__HBUF, "n/a");
	else if (s < 100)
		snprintf(buf, LSC__HBUF, "%.3f s", s);
	else
		snprintf(buf, LSC__HBUF, "%.0f s", s);
}

char *lsc__fmt_bytes(char buf[LSC__HBUF], double b)
{
	locale_t loc = lsc__c_locale_enter();
	fmt_bytes_c(buf, b);
	lsc__c_locale_leave(loc);
	return buf;
}

char *lsc__fmt_count(char buf[LSC__HBUF], double n)
{
	locale_t loc = lsc__c_locale_enter();
	fmt_count_c(buf, n);
	lsc__c_locale_leave(loc);
	return buf;
}

char *lsc__fmt_secs(char buf[LSC__HBUF], double s)
{
	locale_t loc = lsc__c_locale_enter();
	fmt_secs_c(buf, s);
	lsc__c_locale_leave(loc);
	return buf;
}
