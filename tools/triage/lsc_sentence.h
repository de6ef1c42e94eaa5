/*
 * A loadscope line's figures from its human sentence (lsc_sentence.c): what
 * the recogniser of this project's lines reads when the tail was cut off.
 */
#ifndef LSC_TRIAGE_LSC_SENTENCE_H
#define LSC_TRIAGE_LSC_SENTENCE_H

#include <stddef.h>

#include "format/line.h"

/* Add to @p the fields its sentence gives and its tail lacks, for the event
 * @ev (LSC__EV_*); their text goes into @buf (@cap bytes, which must outlive
 * @p's use). Fields the line has are never replaced. */
void tr_lsc_sentence(struct lsc__parsed *p, int ev, char *buf, size_t cap);

#endif
