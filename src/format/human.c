/*
 * Human-readable numbers with units (see human.h).
 */
#include <math.h>
#include <stdio.h>

#include "format/human.h"

char *lsc__fmt_bytes(char buf[LSC__HBUF], double b)
{
	static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
	if (!isfinite(b) || b < 0) {
		snprintf(buf, LSC__HBUF, "n/a");
		return buf;
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
	return buf;
}

char *lsc__fmt_count(char buf[LSC__HBUF], double n)
{
	if (!isfinite(n)) {
		snprintf(buf, LSC__HBUF, "n/a");
		return buf;
	}
	double a = fabs(n);
	if (a < 1e4)
		snprintf(buf, LSC__HBUF, "%.0f", n);
	else if (a < 1e6)
		snprintf(buf, LSC__HBUF, "%.1fk", n / 1e3);
	else if (a < 1e9)
		snprintf(buf, LSC__HBUF, "%.2fM", n / 1e6);
	else
		snprintf(buf, LSC__HBUF, "%.2fG", n / 1e9);
	return buf;
}

char *lsc__fmt_secs(char buf[LSC__HBUF], double s)
{
	if (!isfinite(s) || s < 0)
		snprintf(buf, LSC__HBUF, "n/a");
	else if (s < 100)
		snprintf(buf, LSC__HBUF, "%.3f s", s);
	else
		snprintf(buf, LSC__HBUF, "%.0f s", s);
	return buf;
}
