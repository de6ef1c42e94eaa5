/*
 * One self-contained HTML page of a triage (`loadscope triage --html`,
 * `loadscope load --html`): per start, a timeline of its phases drawn to
 * scale in inline SVG, the counters beside each phase, and the findings with
 * their evidence lines; for several starts, each start as a point per A/B
 * arm with the arm's median marked.
 *
 * The page is safe to open on any pasted log: every byte of log text goes
 * through one escaper (esc: made printable UTF-8 by tr_sanitize, then &, <,
 * >, " and ' as entities, cut only at a character boundary), and a
 * Content-Security-Policy meta tag forbids every script, every fetch and
 * every external asset; the page ships no script. Its size is bounded: the
 * first TR_HTML_STARTS starts are drawn, the rest only counted, and the A/B
 * chart draws at most TR_HTML_POINTS points.
 *
 * The triage knows each phase's duration, not when it began: phases are
 * laid end to end in the order the loader runs them (allocate, pin, read),
 * nested under the complement that contains them, overlapped work (copy,
 * verify) on its own row beside the read it overlaps, and the unattributed
 * time as a hatched gap at the end.
 */
#include <string.h>

#include "format/escape.h"
#include "render.h"

#define TR_HTML_STARTS 50   /* starts drawn; the rest are counted */
#define TR_HTML_POINTS 2000 /* points of the A/B chart; the rest are counted */
#define TR_HTML_FINDINGS 32 /* findings shown per start */

/* ---- the one escaper -------------------------------------------------------- */

/*
 * Write at most @max bytes of @s (@n bytes) as HTML text or an attribute
 * value: printable UTF-8 (invalid bytes become U+FFFD, controls a space),
 * with &, <, >, " and ' as entities. A cut falls between two characters and
 * is marked with an ellipsis.
 */
static void esc_n(FILE *o, const char *s, size_t n, size_t max)
{
	char buf[1024];
	int cut = 0;
	if (n > max) {
		n = max;
		cut = 1;
	}
	/* tr_sanitize works on bounded pieces; a piece ends before a lead byte
	 * so that no character is split between two of them */
	for (size_t r = 0; r < n;) {
		size_t take = n - r < 256 ? n - r : 256;
		if (r + take < n)
			while (take > 1 && ((unsigned char)s[r + take] & 0xc0) == 0x80)
				take--;
		size_t w = tr_sanitize(s + r, take, buf, sizeof(buf));
		r += take;
		const unsigned char *p = (const unsigned char *)buf;
		for (size_t i = 0; i < w;) {
			size_t l = lsc__utf8_len(p + i, w - i);
			if (!l) {
				fputs("\xef\xbf\xbd", o);
				i++;
				continue;
			}
			switch (p[i]) {
			case '&': fputs("&amp;", o); break;
			case '<': fputs("&lt;", o); break;
			case '>': fputs("&gt;", o); break;
			case '"': fputs("&quot;", o); break;
			case '\'': fputs("&#39;", o); break;
			default: fwrite(p + i, 1, l, o);
			}
			i += l;
		}
	}
	if (cut)
		fputs("\xe2\x80\xa6", o); /* U+2026 */
}

static void esc(FILE *o, const char *s)
{
	esc_n(o, s, strlen(s), 4096);
}

/* ---- a start's timeline --------------------------------------------------- */

enum { ROW_START, ROW_PHASES, ROW_NESTED, ROW_OVERLAP, ROWS };
static const char *const row_name[ROWS] = {"start", "phases", "nested", "overlapped"};

struct bar {
	const char *label; /* as the phase table names it */
	const char *kind;  /* colour class: allocate, pin, read, copy, verify, complement, start, gap */
	double x0, dur;
	int row, depth, leaf;
};

#define BARS_MAX 16

static void add(struct bar *b, unsigned *n, const char *label, const char *kind, double x0, double dur, int row,
		int depth, int leaf)
{
	if (*n < BARS_MAX && !isnan(dur) && dur >= 0)
		b[(*n)++] = (struct bar){label, kind, x0, dur, row, depth, leaf};
}

/* An engine's start with its own spans: every span where it ran (t_s
 * less its wall time), the engine's on the phases row, what is nested in
 * them (the loader's phases inside "weights") below. Return the end of the
 * last one. */
static double layout_spans(const struct tr_startsum *m, struct bar *b, unsigned *n)
{
	double end = 0;
	for (unsigned i = 0; i < m->nspans; i++) {
		const struct tr_span *sp = &m->spans[i];
		int row = sp->depth == 0 ? ROW_PHASES : ROW_NESTED;
		add(b, n, sp->label, sp->custom ? "complement" : sp->kind, sp->t0, sp->dur, row, sp->depth + 1,
		    sp->depth > 0 || i + 1 == m->nspans || m->spans[i + 1].depth == 0);
		if (sp->t0 + sp->dur > end)
			end = sp->t0 + sp->dur;
	}
	return end;
}

/* Lay out @m's phases; return the start's length (0: nothing to draw). */
static double layout(const struct tr_startsum *m, struct bar *b, unsigned *n)
{
	double rd = isnan(m->ph[TR_K_READ]) ? m->read_s : m->ph[TR_K_READ];
	int phases = !isnan(m->ph[TR_K_ALLOC]) || !isnan(m->ph[TR_K_PIN]) || !isnan(rd);
	int comp = !isnan(m->comp_total_s);
	int inner = comp && phases ? ROW_NESTED : ROW_PHASES;
	double x = 0, covered = 0;
	*n = 0;
	int engine = 0;
	for (unsigned i = 0; i < m->nspans; i++)
		engine |= m->spans[i].custom && m->spans[i].depth == 0;
	if (engine) {
		covered = layout_spans(m, b, n);
		/* the overlapped verify runs alongside the read */
		double rx = 0;
		for (unsigned i = 0; i < *n; i++)
			if (!strcmp(b[i].label, "read (s)"))
				rx = b[i].x0;
		add(b, n, "verify", "verify", rx, m->ph[TR_K_VERIFY], ROW_OVERLAP, 3, 1);
	} else if (comp) {
		add(b, n, "complement total", "complement", 0, m->comp_total_s, ROW_PHASES, 1, !phases &&
		    isnan(m->comp_alloc_s) && isnan(m->comp_copy_s));
		covered = m->comp_total_s;
	}
	if (engine) {
		/* laid out above, where each span ran */
	} else if (phases) {
		add(b, n, "allocate", "allocate", x, m->ph[TR_K_ALLOC], inner, inner, 1);
		x += isnan(m->ph[TR_K_ALLOC]) ? 0 : m->ph[TR_K_ALLOC];
		add(b, n, "pin", "pin", x, m->ph[TR_K_PIN], inner, inner, 1);
		x += isnan(m->ph[TR_K_PIN]) ? 0 : m->ph[TR_K_PIN];
		double rx = x;
		add(b, n, "read", "read", x, rd, inner, inner, 1);
		x += isnan(rd) ? 0 : rd;
		/* overlapped work runs alongside the read */
		add(b, n, "copy", "copy", rx, m->ph[TR_K_COPY], ROW_OVERLAP, inner + 1, 1);
		add(b, n, "verify", "verify", rx, m->ph[TR_K_VERIFY], ROW_OVERLAP, inner + 1, 1);
		if (x > covered)
			covered = x;
	} else if (comp) {
		double a = m->comp_alloc_s, c = m->comp_copy_s;
		add(b, n, "complement alloc", "allocate", 0, a, ROW_NESTED, 2, 1);
		add(b, n, "complement copy", "copy", isnan(a) ? 0 : a, c, ROW_NESTED, 2, 1);
	} else {
		/* an engine's load summary ("loaded X GiB at Y GiB/s") measures the load */
		double ld = m->loaded_gib / m->loaded_rate;
		if (ld > 0 && !isinf(ld)) {
			add(b, n, "load", "read", 0, ld, ROW_PHASES, 1, 1);
			covered = ld;
		}
		add(b, n, "copy", "copy", covered, m->ph[TR_K_COPY], ROW_PHASES, 1, 1);
		add(b, n, "verify", "verify", 0, m->ph[TR_K_VERIFY], ROW_OVERLAP, 2, 1);
		if (!isnan(m->ph[TR_K_COPY]))
			covered += m->ph[TR_K_COPY];
	}
	double total = !isnan(m->ready_s) ? m->ready_s : covered + (isnan(m->unattributed_s) ? 0 : m->unattributed_s);
	for (unsigned i = 0; i < *n; i++)
		if (b[i].x0 + b[i].dur > total)
			total = b[i].x0 + b[i].dur;
	if (!(total > 0))
		return 0;
	if (!isnan(m->unattributed_s) && m->unattributed_s > 0) {
		double u = m->unattributed_s;
		double at = covered + u <= total * 1.0001 ? covered : total - u;
		add(b, n, "unattributed", "gap", at < 0 ? 0 : at, u, ROW_PHASES, 1, 1);
	}
	if (!isnan(m->ready_s))
		add(b, n, "load to ready", "start", 0, m->ready_s, ROW_START, 0, 0);
	else
		add(b, n, "start (no ready line)", "start", 0, total, ROW_START, 0, 0);
	return total;
}

/* A tick step of 1, 2 or 5 times a power of ten giving about 8 ticks. */
static double tick_step(double span)
{
	double raw = span / 8, mag = pow(10, floor(log10(raw))), k = raw / mag;
	return (k <= 1 ? 1 : k <= 2 ? 2 : k <= 5 ? 5 : 10) * mag;
}

#define SVG_W 1100.0
#define LBL_W 96.0
#define PLOT_W (SVG_W - LBL_W - 24)

/* A time axis from 0 to @span seconds drawn over @w px from @x0, at @y. */
static void axis(FILE *o, double span, double x0, double w, double y)
{
	double st = tick_step(span);
	fprintf(o, "<g class=\"axis\" data-unit=\"s\"><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", x0,
		y, x0 + w, y);
	for (int i = 0; i <= 20 && i * st <= span * 1.0001; i++) {
		double x = x0 + i * st / span * w;
		fprintf(o, "<line class=\"tick\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			   "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%g s</text>",
			x, y, x, y + 5, x, y + 18, i * st);
	}
	fprintf(o, "</g>");
}

/* The longest bar of work (a leaf: no bar of its own parts drawn), the
 * one the page's lead sentence names and the timeline marks; -1 none. */
static int longest_leaf(const struct bar *b, unsigned n)
{
	int longest = -1;
	for (unsigned i = 0; i < n; i++)
		if (b[i].leaf && (longest < 0 || b[i].dur > b[longest].dur))
			longest = (int)i;
	return longest;
}

static void timeline(FILE *o, const struct tr_startsum *m, const struct bar *b, unsigned n, double total)
{
	int used[ROWS] = {0}, y_of[ROWS];
	for (unsigned i = 0; i < n; i++)
		used[b[i].row] = 1;
	int y = 8;
	for (int r = 0; r < ROWS; r++) {
		y_of[r] = y;
		if (used[r])
			y += 34;
	}
	int longest = longest_leaf(b, n);
	fprintf(o, "<svg class=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %.0f %d\" "
		   "width=\"100%%\" role=\"img\" data-start=\"%u\" data-total-s=\"%.6g\">",
		SVG_W, y + 28, m->idx, total);
	fprintf(o, "<defs><pattern id=\"hatch%u\" width=\"8\" height=\"8\" patternUnits=\"userSpaceOnUse\" "
		   "patternTransform=\"rotate(45)\"><rect width=\"8\" height=\"8\" fill=\"#fff\"/>"
		   "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"8\" stroke=\"#888\" stroke-width=\"3\"/></pattern></defs>",
		m->idx);
	for (int r = 0; r < ROWS; r++)
		if (used[r])
			fprintf(o, "<text class=\"row\" x=\"0\" y=\"%d\">%s</text>", y_of[r] + 19, row_name[r]);
	for (unsigned i = 0; i < n; i++) {
		double x = LBL_W + b[i].x0 / total * PLOT_W, w = b[i].dur / total * PLOT_W;
		if (!strcmp(b[i].kind, "gap") && w < 3 && b[i].dur > 0) {
			x -= 3 - w; /* a gap is always visible */
			w = 3;
		}
		double share = 100 * b[i].dur / total;
		int top = (int)i == longest;
		fprintf(o, "<g class=\"bar%s\"><rect class=\"phase k-%s%s\" data-phase=\"%s\" data-kind=\"%s\" "
			   "data-row=\"%s\" data-depth=\"%d\" data-start-s=\"%.6g\" data-dur-s=\"%.6g\" "
			   "data-share=\"%.1f\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"26\" rx=\"3\">",
			top ? " top" : "", b[i].kind, top ? " longest" : "", b[i].label, b[i].kind,
			row_name[b[i].row], b[i].depth, b[i].x0, b[i].dur, share, x, y_of[b[i].row], w < 1 ? 1 : w);
		fprintf(o, "<title>%s: %.3f s, %.1f%% of the start</title></rect>", b[i].label, b[i].dur, share);
		if (!strcmp(b[i].kind, "gap"))
			fprintf(o, "<rect class=\"hatch\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"26\" "
				   "fill=\"url(#hatch%u)\"/>",
				x, y_of[b[i].row], w < 1 ? 1 : w, m->idx);
		/* the share is written on the bar when it fits; a sliver keeps
		 * its figures in its tooltip and the table, so that no label
		 * lands on its neighbour's */
		char txt[96];
		if (w >= 150)
			snprintf(txt, sizeof(txt), "%s %.3g s \xc2\xb7 %.0f%%", b[i].label, b[i].dur, share);
		else if (w >= 70)
			snprintf(txt, sizeof(txt), "%s %.0f%%", b[i].label, share);
		else if (w >= 34)
			snprintf(txt, sizeof(txt), "%.0f%%", share);
		else
			txt[0] = 0;
		if (txt[0])
			fprintf(o, "<text class=\"lbl in\" x=\"%.1f\" y=\"%d\">%s</text>", x + 6, y_of[b[i].row] + 18,
				txt);
		fprintf(o, "</g>");
	}
	axis(o, total, LBL_W, PLOT_W, y + 2);
	fprintf(o, "</svg>\n");
}

/* ---- a start's counters and findings ------------------------------------------ */

static void num_td(FILE *o, double v, const char *fmt)
{
	if (isnan(v))
		fprintf(o, "<td class=\"na\">-</td>");
	else {
		fprintf(o, "<td>");
		fprintf(o, fmt, v);
		fprintf(o, "</td>");
	}
}

static void counters(FILE *o, const struct tr_startsum *m, const struct bar *b, unsigned n, double total)
{
	unsigned rows = 0;
	for (unsigned i = 0; i < n; i++) {
		if (!strcmp(b[i].kind, "start"))
			continue;
		if (!rows++)
			fprintf(o, "<table class=\"phases\"><thead><tr><th>phase</th><th>time (s)</th><th>share</th>"
				   "<th>GiB</th><th>rate (GiB/s)</th></tr></thead><tbody>");
		int k = -1;
		for (int j = 0; j < TR_K_N; j++)
			if (!strcmp(b[i].label, tr_kind_name((enum tr_kind)j)))
				k = j;
		double gib = k >= 0 && m->ph_gib[k] > 0 ? m->ph_gib[k] : !strcmp(b[i].label, "load") ? m->loaded_gib : NAN;
		fprintf(o, "<tr data-phase=\"%s\"><th><span class=\"sw k-%s\"></span>%s</th>", b[i].label, b[i].kind,
			b[i].label);
		num_td(o, b[i].dur, "%.3f");
		num_td(o, 100 * b[i].dur / total, "%.1f%%");
		num_td(o, gib, "%.2f");
		num_td(o, !isnan(gib) && b[i].dur > 0 ? gib / b[i].dur : NAN, "%.2f");
		fprintf(o, "</tr>");
	}
	if (rows)
		fprintf(o, "</tbody></table>\n");
	fprintf(o, "<dl class=\"counters\">");
	fprintf(o, "<dt>load</dt><dd>");
	if (!isnan(m->loaded_gib))
		fprintf(o, "%.2f GiB", m->loaded_gib);
	if (!isnan(m->loaded_rate))
		fprintf(o, " at %.2f GiB/s", m->loaded_rate);
	if (isnan(m->loaded_gib) && isnan(m->loaded_rate))
		fprintf(o, "not in the log");
	fprintf(o, "</dd><dt>faults</dt><dd>");
	int any = 0;
	if (!isnan(m->vm[TR_VM_PGFAULT]))
		any = fprintf(o, "%.0f page faults", m->vm[TR_VM_PGFAULT]);
	if (!isnan(m->vm[TR_VM_PGMAJFAULT]))
		any = fprintf(o, "%s%.0f major", any ? ", " : "", m->vm[TR_VM_PGMAJFAULT]);
	if (!isnan(m->faults_per_s) && m->faults_per_s > 0)
		any = fprintf(o, "%s%.0f faults/s while filling", any ? ", " : "", m->faults_per_s);
	if (!isnan(m->fill_rate))
		any = fprintf(o, "%sfilled at %.2f GiB/s", any ? ", " : "", m->fill_rate);
	if (!any)
		fprintf(o, "not in the log");
	fprintf(o, "</dd><dt>compaction</dt><dd>");
	if (!isnan(m->vm[TR_VM_COMPACT_STALL]) || !isnan(m->vm[TR_VM_COMPACT_FAIL]))
		fprintf(o, "%.0f stalls, %.0f failed, %.0f succeeded",
			isnan(m->vm[TR_VM_COMPACT_STALL]) ? 0 : m->vm[TR_VM_COMPACT_STALL],
			isnan(m->vm[TR_VM_COMPACT_FAIL]) ? 0 : m->vm[TR_VM_COMPACT_FAIL],
			isnan(m->vm[TR_VM_COMPACT_SUCCESS]) ? 0 : m->vm[TR_VM_COMPACT_SUCCESS]);
	else
		fprintf(o, "no vmstat compaction counters in the log");
	if (!isnan(m->vm[TR_VM_ALLOCSTALL]))
		fprintf(o, "; %.0f allocation stalls", m->vm[TR_VM_ALLOCSTALL]);
	fprintf(o, "</dd><dt>THP backing</dt><dd>");
	if (m->thp_process[0])
		fprintf(o, "THP off for the process");
	else
		fprintf(o, "%s", m->thp_req == 1 ? "huge pages requested" : m->thp_req == 0 ? "huge pages not requested"
							      : m->hugetlb_used ? "hugetlb pages" : "request unknown");
	if (m->thp_defrag[0]) {
		fprintf(o, ", defrag=");
		esc(o, m->thp_defrag);
	}
	if (!isnan(m->vm[TR_VM_THP_FAULT_ALLOC]) || !isnan(m->vm[TR_VM_THP_FAULT_FALLBACK]))
		fprintf(o, "; %.0f huge-page faults (%.3g GiB), %.0f fell back to 4 KiB",
			isnan(m->vm[TR_VM_THP_FAULT_ALLOC]) ? 0 : m->vm[TR_VM_THP_FAULT_ALLOC],
			isnan(m->vm[TR_VM_THP_FAULT_ALLOC]) ? 0 : m->vm[TR_VM_THP_FAULT_ALLOC] / 512,
			isnan(m->vm[TR_VM_THP_FAULT_FALLBACK]) ? 0 : m->vm[TR_VM_THP_FAULT_FALLBACK]);
	fprintf(o, "</dd></dl>\n");
}

/* A finding's @n texts as one list: @open, an escaped <li> each, @close. */
static void items(FILE *o, const char *open, const char *close, const char (*a)[TR_F_TXT], unsigned n)
{
	fprintf(o, "%s", open);
	for (unsigned i = 0; i < n; i++) {
		fprintf(o, "<li>");
		esc(o, a[i]);
		fprintf(o, "</li>");
	}
	fprintf(o, "%s", close);
}

static void finding(const struct lsc_triage *t, FILE *o, const struct tr_finding *f)
{
	char tmp[TR_EVTEXT_REDACTED];
	const char *sv = tr_sev_name(f->sev);
	fprintf(o, "<div class=\"finding s-%s\" data-id=\"", sv);
	esc(o, f->id);
	fprintf(o, "\" data-severity=\"%s\"><h3><span class=\"sev s-%s\">%s</span> ", sv, sv, sv);
	esc(o, f->id);
	fprintf(o, "</h3><p>");
	esc(o, f->summary);
	fprintf(o, "</p>");
	if (f->nev) {
		fprintf(o, "<ol class=\"evidence\">");
		for (unsigned i = 0; i < f->nev; i++) {
			fprintf(o, "<li data-line=\"%lu\"><span class=\"ln\">", f->ev[i].line);
			esc(o, tr_src_name(t, f->ev[i].src));
			fprintf(o, ":%lu</span><code>", f->ev[i].line);
			esc(o, tr_ev_text(t, &f->ev[i], tmp, sizeof(tmp)));
			fprintf(o, "</code></li>");
		}
		fprintf(o, "</ol>");
	}
	if (f->nmath)
		items(o, "<ul class=\"math\">", "</ul>", f->math, f->nmath);
	if (f->nrem)
		items(o, "<p class=\"h\">What to do</p><ol class=\"remedies\">", "</ol>", f->rem, f->nrem);
	for (unsigned i = 0; i < f->nmiss; i++) {
		fprintf(o, "<p class=\"miss\">Not evaluated: missing ");
		esc(o, f->miss[i]);
		fprintf(o, "</p>");
	}
	fprintf(o, "</div>\n");
}

static int worst_of(const struct lsc_triage *t, unsigned idx)
{
	int w = -1;
	for (size_t i = 0; i < t->nlite; i++)
		if (t->lite[i].start == idx && (int)t->lite[i].sev > w)
			w = (int)t->lite[i].sev;
	return w;
}

static void start_section(const struct lsc_triage *t, FILE *o, const struct tr_startsum *m)
{
	struct bar b[BARS_MAX];
	unsigned n;
	double total = layout(m, b, &n);
	int w = worst_of(t, m->idx);
	const char *sv = w < 0 ? "none" : tr_sev_name((enum lsc_triage_sev)w);
	fprintf(o, "<section class=\"start\" id=\"start-%u\" data-start=\"%u\" data-severity=\"%s\"><h2>start %u "
		   "<span class=\"sev s-%s\">%s</span> <span class=\"sub\">",
		m->idx, m->idx, sv, m->idx, sv, w < 0 ? "no findings" : sv);
	esc(o, m->family);
	fprintf(o, ", ");
	esc(o, tr_src_name(t, m->src));
	fprintf(o, " lines %lu-%lu", m->first_line, m->last_line);
	if (m->run[0]) {
		fprintf(o, ", run ");
		esc(o, m->run);
	}
	fprintf(o, "</span></h2>\n");
	if (total > 0) {
		int longest = longest_leaf(b, n);
		if (longest < 0)
			fprintf(o, "<p class=\"lead\">Only the start's total is known: %.3g s%s; no phase of it was "
				   "measured.</p>\n",
				total, isnan(m->ready_s) ? "" : " to ready");
		else
			fprintf(o, "<p class=\"lead\"><b>%s</b> took %.3g s, <b>%.0f%%</b> of the start (%.3g s%s).</p>\n",
				b[longest].label, b[longest].dur, 100 * b[longest].dur / total, total,
				isnan(m->ready_s) ? ", no ready line: the sum of what was measured" : " to ready");
		timeline(o, m, b, n, total);
		counters(o, m, b, n, total);
	} else {
		fprintf(o, "<p class=\"lead\">The log gives no phase durations for this start.</p>\n");
	}
	for (unsigned k = 0; k < m->nnoteval; k++) {
		fprintf(o, "<p class=\"miss\">Not evaluated: ");
		esc(o, m->noteval[k].id);
		fprintf(o, ": missing ");
		esc(o, m->noteval[k].text);
		fprintf(o, "</p>\n");
	}
	unsigned shown = 0, more = 0;
	for (size_t i = 0; i < t->nlite; i++) {
		const struct tr_lite *x = &t->lite[i];
		if (x->start != m->idx)
			continue;
		if (x->full >= 0 && shown < TR_HTML_FINDINGS) {
			finding(t, o, &t->full[x->full]);
			shown++;
		} else {
			more++;
		}
	}
	if (more)
		fprintf(o, "<p class=\"more\">%u more findings of this start not shown (--format json lists them).</p>\n",
			more);
	fprintf(o, "</section>\n");
}

/* ---- the A/B chart ------------------------------------------------------------------ */

static void ab_chart(const struct lsc_triage *t, FILE *o)
{
	struct tr_table tb;
	if (t->nrows < 2 || tr_table_build(t, &tb) < 0)
		return;
	int m = tb.basis;
	for (int k = TR_TABLE_METRICS - 1; m < 0 && k >= 0; k--)
		if (k != 1 && k != 2) /* a start's whole time: load to ready, else the complement */
			for (size_t i = 0; i < t->nrows && m < 0; i++)
				if (!isnan(tr_table_metric(&t->rows[i], k)))
					m = k;
	double hi = 0;
	unsigned npts = 0;
	for (size_t i = 0; m >= 0 && i < t->nrows; i++) {
		double v = tr_table_metric(&t->rows[i], m);
		if (!isnan(v)) {
			npts++;
			if (v > hi)
				hi = v;
		}
	}
	hi *= 1.04; /* the slowest point is not drawn on the frame */
	if (m < 0 || npts < 2 || !(hi > 0)) {
		tr_table_free(&tb);
		return;
	}
	fprintf(o, "<section class=\"ab\"><h2>A/B: %s per start, by arm</h2>\n", tr_table_mnames[m]);
	int rowh = 30, y0 = 8;
	int h = y0 + (int)tb.narms * rowh + 30;
	fprintf(o, "<svg class=\"abchart\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %.0f %d\" width=\"100%%\" "
		   "role=\"img\" data-metric=\"%s\">",
		SVG_W, h, tr_table_mkeys[m]);
	/* the arm label column is wider here: arms are named by their settings */
	double lw = 300, pw = SVG_W - lw - 24;
	unsigned drawn = 0, left = 0;
	for (unsigned a = 0; a < tb.narms; a++) {
		int y = y0 + (int)a * rowh;
		fprintf(o, "<g class=\"arm\" data-arm=\"");
		esc_n(o, tb.arms[a].label, strlen(tb.arms[a].label), 160);
		fprintf(o, "\" data-n=\"%u\"><rect class=\"band\" x=\"%.0f\" y=\"%d\" width=\"%.0f\" height=\"%d\"/>"
			   "<text class=\"arm\" x=\"0\" y=\"%d\">",
			tb.arms[a].n, lw, y, pw, rowh - 4, y + 18);
		esc_n(o, tb.arms[a].label, strlen(tb.arms[a].label), 40);
		fprintf(o, " (n=%u)</text>", tb.arms[a].n);
		for (size_t i = 0; i < t->nrows; i++) {
			double v = tr_table_metric(&t->rows[i], m);
			if (tb.armof[i] != a || isnan(v))
				continue;
			if (drawn >= TR_HTML_POINTS) {
				left++;
				continue;
			}
			drawn++;
			fprintf(o, "<circle class=\"pt\" data-start=\"%u\" data-v=\"%.6g\" cx=\"%.1f\" cy=\"%d\" r=\"5\">"
				   "<title>start %u: %.3g s</title></circle>",
				t->rows[i].start, v, lw + v / hi * pw, y + 13, t->rows[i].start, v);
		}
		double med = tb.arms[a].med[m];
		if (!isnan(med)) {
			double x = lw + med / hi * pw;
			fprintf(o, "<line class=\"median\" data-median=\"%.6g\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>"
				   "<text class=\"med\" x=\"%.1f\" y=\"%d\">median %.3g s</text>",
				med, x, y + 1, x, y + rowh - 5, x + 5 > SVG_W - 110 ? x - 95 : x + 5, y + 10, med);
		}
		fprintf(o, "</g>");
	}
	axis(o, hi, lw, pw, y0 + tb.narms * rowh + 2);
	fprintf(o, "</svg>\n");
	if (left)
		fprintf(o, "<p class=\"more\">%u more starts not drawn (the medians are over all of them).</p>\n", left);
	for (unsigned a = 0; a < tb.narms; a++)
		if (tb.arms[a].n < 3) {
			fprintf(o, "<p class=\"miss\">Arm &#8220;");
			esc(o, tb.arms[a].label);
			fprintf(o, "&#8221; has %u start%s: fewer than 3, only large differences mean anything.</p>\n",
				tb.arms[a].n, tb.arms[a].n == 1 ? "" : "s");
		}
	fprintf(o, "</section>\n");
	tr_table_free(&tb);
}

/* ---- the page ---------------------------------------------------------------------- */

static const char style[] =
	"body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1180px;padding:12px 20px;color:#222;background:#fff}"
	"h1{font-size:20px;margin:4px 0}h2{font-size:17px;margin:0 0 6px}h3{font-size:14px;margin:0 0 4px}"
	".meta{color:#555;margin:0 0 10px}.sub{font-weight:normal;color:#555;font-size:13px}"
	"section{border:1px solid #ddd;border-radius:6px;padding:10px 14px;margin:12px 0}"
	".lead{font-size:15px;margin:2px 0 6px}"
	".sev{display:inline-block;border-radius:3px;padding:0 6px;font-size:12px;color:#fff;background:#888;"
	"text-transform:uppercase;vertical-align:2px}.s-fail{background:#c62828}.s-warn{background:#e08e0b}"
	".s-info{background:#2e7d32}.s-none{background:#888}"
	"svg text{font:12px system-ui,sans-serif;fill:#222}svg text.row{fill:#666}"
	"svg text.lbl.in{fill:#fff;font-weight:600}g.top text.lbl{font-weight:700;font-size:13px}"
	".axis line{stroke:#666;stroke-width:1}svg text.tick{fill:#555;font-size:11px}"
	"rect.phase{opacity:.55;stroke:#fff;stroke-width:1}rect.longest{opacity:1;stroke:#000;stroke-width:2}"
	".k-allocate{fill:#d9480f;background:#d9480f}.k-pin{fill:#7048e8;background:#7048e8}"
	".k-read{fill:#1971c2;background:#1971c2}.k-copy{fill:#c2255c;background:#c2255c}"
	".k-verify{fill:#2b8a3e;background:#2b8a3e}.k-complement{fill:#adb5bd;background:#adb5bd}"
	".k-start{fill:#dee2e6;background:#dee2e6}.k-gap{fill:#fff;background:#bbb}"
	/* containers and the gap are pale: their labels are dark */
	"rect.k-start{opacity:1}rect.hatch{pointer-events:none}"
	"g.bar rect.k-start~text.lbl.in,g.bar rect.k-gap~text.lbl.in,g.bar rect.k-complement~text.lbl.in{fill:#222}"
	".sw{display:inline-block;width:10px;height:10px;margin-right:6px;border-radius:2px}"
	"table.phases{border-collapse:collapse;margin:6px 0;font-size:13px}"
	"table.phases td,table.phases th{padding:2px 10px;border-bottom:1px solid #eee;text-align:right}"
	"table.phases th:first-child{text-align:left}td.na{color:#aaa}"
	"dl.counters{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:6px 0;font-size:13px}"
	"dl.counters dt{color:#555}dl.counters dd{margin:0}"
	".finding{border-left:4px solid #888;padding:4px 10px;margin:8px 0;background:#fafafa}"
	".finding.s-fail{border-color:#c62828}.finding.s-warn{border-color:#e08e0b}.finding.s-info{border-color:#2e7d32}"
	".finding .sev{color:#fff}"
	"ol.evidence{list-style:none;padding:0;margin:4px 0}ol.evidence li{font:12px/1.4 ui-monospace,monospace;margin:2px 0;"
	"white-space:pre-wrap;overflow-wrap:anywhere}"
	".ln{color:#1971c2;margin-right:8px}code{font:inherit}"
	".h{font-weight:600;margin:4px 0 0}.miss,.more{color:#666;font-style:italic;margin:4px 0}"
	"rect.band{fill:#f4f4f4}circle.pt{fill:#1971c2;fill-opacity:.6;stroke:#0b3d6e}"
	"line.median{stroke:#c62828;stroke-width:3}svg text.med{fill:#c62828;font-size:11px}"
	"svg text.arm{font-size:12px}";

int tr_render_html(struct lsc_triage *t, FILE *o)
{
	fprintf(o, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/>\n"
		   "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src "
		   "'unsafe-inline'; img-src 'none'; form-action 'none'; base-uri 'none'\"/>\n"
		   "<meta name=\"referrer\" content=\"no-referrer\"/>\n"
		   "<title>loadscope triage: %u start%s</title>\n<style>%s</style></head>\n<body>\n",
		t->nstarts, t->nstarts == 1 ? "" : "s", style);
	fprintf(o, "<header><h1>loadscope triage</h1><p class=\"meta\">");
	for (unsigned i = 0; i < t->nsrc && i < 16; i++) {
		esc_n(o, t->srcname[i], strlen(t->srcname[i]), 120);
		fprintf(o, i + 1 < t->nsrc ? ", " : ": ");
	}
	if (t->nsrc > 16)
		fprintf(o, "and %u more inputs: ", t->nsrc - 16);
	tr_print_counts(t, o);
	static const char *const verdict[] = {"healthy", "warnings", "failures", "no verdict"};
	int code = lsc_triage_exit_code(t);
	fprintf(o, ". Verdict: <b>%s</b>.</p></header>\n", code >= 0 && code <= 3 ? verdict[code] : "?");
	if (t->nrecog == 0)
		fprintf(o, "<p class=\"lead\">Nothing recognisable: no loadscope, engine, strace or vmstat lines found.</p>\n");
	ab_chart(t, o);
	size_t drawn = 0;
	for (size_t i = 0; i < t->nsums && drawn < TR_HTML_STARTS; i++, drawn++)
		start_section(t, o, &t->sums[i]);
	if (t->nstarts > drawn) {
		unsigned long sev[3] = {0};
		unsigned last = drawn ? t->sums[drawn - 1].idx : 0;
		for (size_t i = 0; i < t->nlite; i++)
			if (!drawn || t->lite[i].start > last)
				sev[t->lite[i].sev]++;
		fprintf(o, "<p class=\"more\" id=\"not-drawn\" data-starts=\"%lu\">%lu more start%s not drawn (the page "
			   "draws the first %d): %lu fail, %lu warn, %lu info findings among them; --format text or "
			   "json lists them all.</p>\n",
			(unsigned long)(t->nstarts - drawn), (unsigned long)(t->nstarts - drawn),
			t->nstarts - drawn == 1 ? "" : "s", TR_HTML_STARTS, sev[2], sev[1], sev[0]);
	}
	if (t->dropped_findings)
		fprintf(o, "<p class=\"more\">%lu more findings past the first %u were only counted.</p>\n",
			t->dropped_findings, TR_LITE_MAX);
	if (t->lines_oom)
		fprintf(o, "<p class=\"more\">" TR_OUT_OF_MEMORY_SAID "</p>\n", t->lines_oom, t->lines_oom == 1 ? "" : "s");
	fprintf(o, "</body></html>\n");
	return 0;
}
