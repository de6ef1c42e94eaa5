/*
 * The shared vocabulary in Chinese: engines and apps written in China log
 * their load in their own words (`模型加载耗时 56.30s`, `语音模型载入完成`,
 * `模型加载失败`), which no English word of the recognisers matches. A
 * line holding one of the phrases below is read as its English words
 * (`model load took 56.30s`, `语音 model loaded successfully`, `model
 * failed to load`), so the whole vocabulary (figures, ready and failure
 * words, their subjects and negations) reads it; what a finding quotes
 * stays the line as pasted (tr_line.quote).
 *
 * Longest phrase first at each place, so that `加载完成` (load finished)
 * is `loaded successfully`, not `load done`; each English word gets a
 * space on either side, and a full-width colon or comma its ASCII form,
 * so a figure after it reads as one does after `took:`.
 */
#include <stdint.h>
#include <string.h>

#include "internal.h"

static const struct {
	const char *zh, *en;
} words[] = {
	/* four characters: the load's end, its failure, a memory shortfall */
	{"加载完成", "loaded successfully"}, {"载入完成", "loaded successfully"},
	{"加载完毕", "loaded successfully"}, {"载入完毕", "loaded successfully"},
	{"加载成功", "loaded successfully"}, {"载入成功", "loaded successfully"},
	{"加载失败", "failed to load"},     {"载入失败", "failed to load"},
	{"正在加载", "loading"},            {"开始加载", "loading"},
	{"内存不足", "out of memory"},      {"显存不足", "out of memory"},
	{"启动成功", "started successfully"}, {"启动完成", "startup complete"},
	{"启动失败", "failed to start"},
	/* two characters */
	{"加载", "load"}, {"载入", "load"}, {"装载", "load"}, {"模型", "model"}, {"权重", "weights"},
	{"耗时", "took"}, {"用时", "took"}, {"失败", "failed"}, {"错误", "error"}, {"报错", "error"},
	{"成功", "successfully"}, {"完成", "done"}, {"完毕", "done"}, {"就绪", "ready"}, {"服务", "server"},
	{"启动", "start"}, {"下载", "download"},
	/* one: seconds after a figure, full-width punctuation */
	{"秒", "s"}, {"：", ":"}, {"，", ","}, {"。", "."},
};

/* Appends @w to out[*o..cap), a space before it unless the output ends in
 * one (or is empty) and @spaced; 0 when it does not fit. */
static int put(char *out, size_t *o, size_t cap, const char *w, int spaced)
{
	size_t wl = strlen(w);
	if (spaced && *o && out[*o - 1] != ' ') {
		if (*o + 1 > cap)
			return 0;
		out[(*o)++] = ' ';
	}
	if (*o + wl > cap)
		return 0;
	memcpy(out + *o, w, wl);
	*o += wl;
	return 1;
}

size_t tr_cjk_words(const char *s, size_t n, char *out, size_t cap)
{
	/* the phrases all open with a lead byte of U+4E00-U+9FFF or U+FF00's
	 * block: most lines hold none */
	size_t i = 0;
	/* eight bytes at a time past ASCII, which has no high bit */
	for (uint64_t w; i + 8 <= n; i += 8) {
		memcpy(&w, s + i, 8);
		if (w & 0x8080808080808080ull)
			break;
	}
	while (i < n && !((unsigned char)s[i] >= 0xe4 && (unsigned char)s[i] <= 0xef))
		i++;
	if (i == n)
		return 0;
	size_t o = 0;
	int any = 0;
	for (i = 0; i < n;) {
		size_t best = 0, bl = 0;
		if ((unsigned char)s[i] >= 0xe4)
			for (size_t k = 0; k < sizeof(words) / sizeof(words[0]); k++) {
				size_t zl = strlen(words[k].zh);
				if (zl > bl && zl <= n - i && !memcmp(s + i, words[k].zh, zl))
					best = k, bl = zl;
			}
		if (!bl) {
			if (o + 1 > cap)
				return 0;
			out[o++] = s[i++];
			continue;
		}
		/* a word gets a space on either side, punctuation after it,
		 * where the line has none there */
		int word = (unsigned char)words[best].en[0] >= 'a';
		if (!word && o && out[o - 1] == ' ')
			o--;
		if (!put(out, &o, cap, words[best].en, word))
			return 0;
		i += bl;
		if (i < n && s[i] != ' ') {
			if (o + 1 > cap)
				return 0;
			out[o++] = ' ';
		}
		any = 1;
	}
	return any ? o : 0;
}
