/*
 * A quoted evidence line is bounded (TR_EVTEXT): a log line longer than
 * that is cut. A cut at a fixed byte turns `bytes=1073741824` into
 * `bytes=10737418`, a number the line never said; so the quote ends at the
 * last space that still fits, the part token after it goes, and " …" says
 * that something was cut. Only a quote that is one token (a path, a hash,
 * no space in it) is cut inside it, at a character boundary.
 */
#include <string.h>

#include "evid_cut.h"

#define ELLIPSIS " \xe2\x80\xa6" /* " …" */

size_t tr_evid_cut(char *text, size_t len, size_t cap)
{
	const size_t el = sizeof(ELLIPSIS) - 1;
	if (cap < el + 2)
		return len;
	size_t n = len + el + 1 <= cap ? len : cap - el - 1;
	/* the cut falls inside a token unless a space follows it */
	if (n < len && text[n] != ' ') {
		size_t sp = n;
		while (sp > 0 && text[sp - 1] != ' ')
			sp--;
		if (sp > 0)
			n = sp;
		else
			while (n > 0 && ((unsigned char)text[n] & 0xc0) == 0x80)
				n--; /* a character boundary, at least */
	} else if (n == len && n > 0 && text[n - 1] != ' ') {
		/* the line itself went on past @len: its last token is cut */
		size_t sp = n;
		while (sp > 0 && text[sp - 1] != ' ')
			sp--;
		if (sp > 0)
			n = sp;
	}
	/* no separator or space left dangling before the mark */
	while (n > 0 && (text[n - 1] == ' ' || text[n - 1] == '|'))
		n--;
	memcpy(text + n, ELLIPSIS, el);
	n += el;
	text[n] = '\0';
	return n;
}
