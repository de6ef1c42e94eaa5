/*
 * Numbers in the C locale whatever the engine's setlocale(): an engine that
 * runs setlocale(LC_ALL, "") in de_DE must still get "wall_s=0.259" and
 * "ts":346.520, or its JSON lines stop parsing and the triage misreads them.
 *
 * The writer and the parser switch the calling thread to a C locale made
 * once (newlocale) for the span of their printf and strtod calls, and back
 * to whatever the thread had; other threads of the engine never see their
 * locale change. A thread whose radix character is already '.' (any
 * program that never called setlocale) is not switched at all, so the span
 * path pays one nl_langinfo() lookup per formatting call.
 */
#ifndef LSC_FORMAT_C_LOCALE_H
#define LSC_FORMAT_C_LOCALE_H

#include <locale.h>

/*
 * Switch this thread to the C locale unless its radix is already '.'.
 * Return: what to hand to lsc__c_locale_leave (the thread's locale before),
 * or (locale_t)0 when nothing was switched (no switch needed, or no C locale
 * could be made: then numbers follow the engine's locale).
 */
locale_t lsc__c_locale_enter(void);
void lsc__c_locale_leave(locale_t before);

/*
 * lsc__ascii_casecmp - strcasecmp in the C locale: only A-Z fold to a-z,
 * whatever the thread's locale. strcasecmp folds by the locale, and under
 * tr_TR 'I' is not the capital of 'i' (the dotless i), so a setting word
 * compared with it stopped matching in an engine that had set a Turkish
 * locale (issue 22). Return: <0, 0 or >0, as strcmp of the folded strings.
 * Thread-safe.
 */
int lsc__ascii_casecmp(const char *a, const char *b);

#endif
