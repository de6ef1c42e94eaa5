/*
 * `loadscope ab --html F`: one self-contained page of the experiment. The
 * verdict per pair first, then each arm by its own name: the figures ab
 * measured, a strip chart of every run's wall time with the arm's median
 * marked (drawn as `triage --html` draws its A/B chart: one row per arm,
 * one point per start), the phase figures the triage read from the logs
 * per arm, each run with its exit status and log, and each arm's findings.
 *
 * As the triage's page, it is safe to open whatever CMD printed: all text
 * goes through esc() (bytes that are not printable UTF-8 become '?', then
 * & < > " ' as entities) and a Content-Security-Policy forbids every
 * script, fetch and external asset; the page ships no script.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "ab.h"
#include "format/escape.h"

#define SVG_W 1100.0

static void esc(FILE *o, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	while (*s) {
		size_t k;
		if (*s >= 0x80) {
			k = lsc__utf8_seq((const char *)s);
			if (k)
				fwrite(s, 1, k, o);
			else
				fputc('?', o);
			s += k ? k : 1;
			continue;
		}
		const char *e = *s == '&' ? "&amp;" : *s == '<' ? "&lt;" : *s == '>' ? "&gt;" : *s == '"' ? "&quot;"
			      : *s == '\'' ? "&#39;" : NULL;
		if (e)
			fputs(e, o);
		else
			fputc(*s < 0x20 || *s == 0x7f ? '?' : *s, o);
		s++;
	}
}

static void td(FILE *o, const char *fmt, double v)
{
	if (isnan(v))
		fputs("<td class=\"na\">-</td>", o);
	else {
		fputs("<td>", o);
		fprintf(o, fmt, v);
		fputs("</td>", o);
	}
}

static void verdicts(FILE *o, const struct ab *x)
{
	fputs("<section class=\"verdict\"><h2>Conclusion</h2>\n", o);
	for (unsigned i = 0; i < x->npairs; i++) {
		const struct ab_pair *p = &x->pair[i];
		fprintf(o, "<p class=\"conclusion %s\" data-metric=\"%s\" data-a=\"%s\" data-b=\"%s\" data-p=\"%.6g\">",
			ab_differ(p) ? "differ" : "same", p->ready ? "load_to_ready_s" : "wall_s",
			x->arms[p->a].name, x->arms[p->b].name,
			p->valid ? p->t.p : 1.0);
		esc(o, p->conclusion);
		fputs("</p>\n", o);
	}
	fputs("<p class=\"meta\">Mann-Whitney U test on the wall times of the runs that exited 0 (and on the "
	      "load to ready the logs gave, when each of them gave one); a pair differs when p &lt; 0.05 and its medians are at least 1% apart.</p></section>\n",
	      o);
}

static void stats_table(FILE *o, const struct ab *x)
{
	fputs("<section class=\"arms\"><h2>Arms</h2><table class=\"stats\"><tr><th>arm</th><th>spec</th><th>runs</th>"
	      "<th>exit 0</th><th>mean (s)</th><th>&#963; (s)</th><th>median (s)</th><th>min (s)</th><th>max (s)</th>"
	      "<th>user (s)</th><th>sys (s)</th><th>peak RSS (MiB)</th></tr>\n",
	      o);
	for (unsigned a = 0; a < x->narms; a++) {
		const struct ab_stats *s = &x->st[a];
		fprintf(o, "<tr data-arm=\"%s\"><th>%s</th><td><code>", x->arms[a].name, x->arms[a].name);
		esc(o, x->arms[a].spec[0] ? x->arms[a].spec : "(none)");
		fprintf(o, "</code></td><td>%u</td><td>%u</td>", x->arms[a].runs, x->arms[a].ok);
		const double v[] = {s->mean, s->sd, s->median, s->min, s->max, s->user, s->sys, s->rss_mib};
		for (unsigned i = 0; i < 8; i++)
			td(o, i == 7 ? "%.1f" : "%.3f", v[i]);
		fputs("</tr>\n", o);
	}
	fputs("</table></section>\n", o);
}

static void chart(FILE *o, const struct ab *x)
{
	double hi = 0;
	for (unsigned i = 0; i < x->done; i++)
		hi = x->run[i].wall_s > hi ? x->run[i].wall_s : hi;
	if (!(hi > 0))
		return;
	hi *= 1.04; /* the slowest point is not drawn on the frame */
	int rowh = 30, y0 = 8, h = y0 + (int)x->narms * rowh + 30;
	double lw = 200, pw = SVG_W - lw - 24;
	fprintf(o, "<section class=\"ab\"><h2>Wall time per run, by arm</h2>\n<svg class=\"abchart\" "
		   "xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %.0f %d\" width=\"100%%\" role=\"img\" "
		   "data-metric=\"wall_s\">",
		SVG_W, h);
	for (unsigned a = 0; a < x->narms; a++) {
		int y = y0 + (int)a * rowh;
		fprintf(o, "<g class=\"arm\" data-arm=\"%s\" data-n=\"%u\"><rect class=\"band\" x=\"%.0f\" y=\"%d\" "
			   "width=\"%.0f\" height=\"%d\"/><text class=\"arm\" x=\"0\" y=\"%d\">%s (n=%u)</text>",
			x->arms[a].name, x->arms[a].runs, lw, y, pw, rowh - 4, y + 18, x->arms[a].name, x->arms[a].runs);
		for (unsigned i = 0; i < x->done; i++) {
			const struct ab_run *r = &x->run[i];
			if (r->arm != a)
				continue;
			fprintf(o, "<circle class=\"pt%s\" data-run=\"%u\" data-v=\"%.6g\" cx=\"%.1f\" cy=\"%d\" r=\"5\">"
				   "<title>run %u: %.3f s</title></circle>",
				ab_run_ok(r) ? "" : " failed", i + 1, r->wall_s, lw + r->wall_s / hi * pw, y + 13, i + 1,
				r->wall_s);
		}
		double med = x->st[a].median;
		if (!isnan(med)) {
			double mx = lw + med / hi * pw;
			fprintf(o, "<line class=\"median\" data-median=\"%.6g\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>"
				   "<text class=\"med\" x=\"%.1f\" y=\"%d\">median %.3f s</text>",
				med, mx, y + 1, mx, y + rowh - 5, mx + 5 > SVG_W - 110 ? mx - 95 : mx + 5, y + 10, med);
		}
		fputs("</g>", o);
	}
	int ay = y0 + (int)x->narms * rowh + 2;
	fprintf(o, "<g class=\"axis\"><line x1=\"%.0f\" y1=\"%d\" x2=\"%.0f\" y2=\"%d\"/>", lw, ay, lw + pw, ay);
	/* each label centred on its tick, the last one ending there (the frame's edge) */
	for (int t = 0; t <= 4; t++)
		fprintf(o, "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"%s\">%.3g s</text>", lw + pw * t / 4,
			ay + 16, t == 4 ? "end" : "middle", hi * t / 4);
	fputs("</g></svg></section>\n", o);
}

static void phases(FILE *o, const struct ab *x)
{
	if (!x->any_phase)
		return;
	fputs("<section class=\"phases\"><h2>Phases per arm</h2><p class=\"meta\">The median of each arm's runs, as "
	      "the triage read them from the runs' logs.</p><table class=\"phases\"><tr><th>phase</th>",
	      o);
	for (unsigned a = 0; a < x->narms; a++)
		fprintf(o, "<th>%s</th>", x->arms[a].name);
	fputs("</tr>\n", o);
	for (unsigned p = 0; p < AB_PHASES; p++) {
		int any = 0;
		for (unsigned a = 0; a < x->narms; a++)
			any |= x->ph_n[a][p] > 0;
		if (!any)
			continue;
		fprintf(o, "<tr data-phase=\"%s\"><th>%s</th>", ab_phase_keys[p], ab_phase_names[p]);
		for (unsigned a = 0; a < x->narms; a++)
			td(o, "%.3f", x->ph_med[a][p]);
		fputs("</tr>\n", o);
	}
	fputs("</table></section>\n", o);
}

static void runs_and_findings(FILE *o, const struct ab *x)
{
	char ex[96];
	static const char *const sev[] = {"info", "warn", "fail"};
	fputs("<section class=\"runs\"><h2>Runs, in the order they ran</h2><table class=\"runs\"><tr><th>run</th>"
	      "<th>arm</th><th>wall (s)</th><th>exit</th><th>load to ready (s)</th><th>log</th></tr>\n",
	      o);
	for (unsigned i = 0; i < x->done; i++) {
		const struct ab_run *r = &x->run[i];
		ab_exit_words(r, ex, sizeof(ex));
		fprintf(o, "<tr data-run=\"%u\" data-arm=\"%s\"><td>%u</td><td>%s</td><td>%.3f</td><td>%s</td>", i + 1,
			x->arms[r->arm].name, i + 1, x->arms[r->arm].name, r->wall_s, ex);
		td(o, "%.3f", r->ready_s);
		fputs("<td><code>", o);
		esc(o, r->log);
		fputs("</code></td></tr>\n", o);
	}
	fputs("</table></section>\n", o);
	for (unsigned a = 0; a < x->narms; a++) {
		size_t n = lsc_triage_nfindings(x->arms[a].t);
		fprintf(o, "<section class=\"findings\" data-arm=\"%s\"><h2>Arm %s: findings</h2>\n", x->arms[a].name,
			x->arms[a].name);
		if (!n)
			fputs("<p class=\"miss\">No finding: no run printed lines the triage reads.</p>\n", o);
		for (size_t i = 0; i < n; i++) {
			struct lsc_triage_finding_info fi;
			if (lsc_triage_finding(x->arms[a].t, i, &fi))
				break;
			fprintf(o, "<p class=\"finding s-%s\"><span class=\"sev\">%s</span> start %u: <b>", sev[fi.severity % 3],
				sev[fi.severity % 3], fi.start + 1);
			esc(o, fi.id);
			fputs("</b>: ", o);
			esc(o, fi.summary ? fi.summary : "");
			fputs("</p>\n", o);
		}
		fputs("</section>\n", o);
	}
}

static const char style[] =
	"body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1180px;padding:12px 20px;color:#222;background:#fff}"
	"h1{font-size:20px;margin:4px 0}h2{font-size:17px;margin:0 0 6px}.meta{color:#555;margin:0 0 10px}"
	"section{border:1px solid #ddd;border-radius:6px;padding:10px 14px;margin:12px 0}"
	".conclusion{font-size:16px;font-weight:600;margin:4px 0}.conclusion.differ{color:#1b5e20}"
	"table{border-collapse:collapse;margin:6px 0;font-size:13px}td,th{padding:2px 10px;border-bottom:1px solid #eee;"
	"text-align:right}th:first-child,td:first-child{text-align:left}td.na{color:#aaa}"
	".finding{border-left:4px solid #888;padding:4px 10px;margin:6px 0;background:#fafafa}"
	".s-fail{border-color:#c62828}.s-warn{border-color:#e08e0b}.s-info{border-color:#2e7d32}"
	".sev{display:inline-block;border-radius:3px;padding:0 6px;font-size:12px;color:#fff;background:#888;"
	"text-transform:uppercase;margin-right:6px}.miss{color:#666;font-style:italic}"
	"svg text{font:12px system-ui,sans-serif;fill:#222}.axis line{stroke:#666;stroke-width:1}"
	"svg text.tick{fill:#555;font-size:11px}rect.band{fill:#f4f4f4}"
	"circle.pt{fill:#1971c2;fill-opacity:.6;stroke:#0b3d6e}circle.pt.failed{fill:#c62828}"
	"line.median{stroke:#c62828;stroke-width:3}svg text.med{fill:#c62828;font-size:11px}";

int ab_write_html(FILE *o, struct ab *x)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/>\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
	      "img-src 'none'; form-action 'none'; base-uri 'none'\"/>\n<meta name=\"referrer\" content=\"no-referrer\"/>\n"
	      "<title>loadscope ab: ",
	      o);
	for (unsigned a = 0; a < x->narms; a++)
		fprintf(o, "%s%s", a ? " vs " : "", x->arms[a].name);
	fprintf(o, "</title>\n<style>%s</style></head>\n<body>\n<header><h1>loadscope ab</h1><p class=\"meta\"><code>", style);
	esc(o, x->cmdline);
	if (x->done == x->total)
		fprintf(o, "</code>: %u arms x %u runs", x->narms, x->runs);
	else
		fprintf(o, "</code>: %u arms, %u of %u runs", x->narms, x->done, x->total);
	fprintf(o, ", %u warm-up round%s, interleaved, %.3g s apart; logs in <code>", x->warmup, x->warmup == 1 ? "" : "s",
		x->pause);
	esc(o, x->dir);
	fputs("</code>.</p></header>\n", o);
	verdicts(o, x);
	stats_table(o, x);
	chart(o, x);
	phases(o, x);
	runs_and_findings(o, x);
	fputs("</body></html>\n", o);
	return ferror(o) ? -EIO : 0;
}
