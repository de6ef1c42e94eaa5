/*
 * Numbers in the C locale whatever the engine's setlocale(): an engine that
 * runs setlocale(LC_ALL, "") in de_DE must still get "wall_s=0.259" and
 * "ts":346.520, or its JSON lines stop parsing and the triage misreads them.
 *
 * The writer and the parser switch the calling thread to a C locale made
 * once (newlocale) for the span of their printf and strtod calls, and back
 * to whatever the thread had. uselocale() is a thread-local pointer swap, so
 * the span path pays a few nanoseconds, and other threads of the engine
 * never see their locale change.
 */
#ifndef LSC_FORMAT_C_LOCALE_H
#define LSC_FORMAT_C_LOCALE_H

#include <locale.h>

/*
 * Switch this thread to the C locale. Return: what to hand to
 * lsc__c_locale_leave (the thread's locale before), or (locale_t)0 when no C
 * locale could be made; then numbers follow the engine's locale, which is
 * still C unless it called setlocale.
 */
locale_t lsc__c_locale_enter(void);
void lsc__c_locale_leave(locale_t before);

#endif
