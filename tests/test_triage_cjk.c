/*
 * Chinese load words (tools/triage/cjk_words.c): a line holding them is
 * read in English words, so the shared vocabulary reads a load's figure,
 * its end and its failure in a Chinese app's log; what a finding quotes
 * stays the line as pasted. The English each phrase gets is written out
 * here, apart from the table; near misses: a line with no phrase, a
 * character next to a phrase's, a line too short for the room.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/triage_run.h"
#include "triage/internal.h"

static const char *en(const char *zh)
{
	static char out[512];
	size_t n = tr_cjk_words(zh, strlen(zh), out, sizeof out - 1);
	out[n] = 0;
	return n ? out : NULL;
}

Test(cjk, phrases_in_english_longest_first)
{
	cr_expect_str_eq(en("模型加载耗时 56.30s"), "model load took 56.30s");
	cr_expect_str_eq(en("语音模型载入完成"), "语音 model loaded successfully");
	cr_expect_str_eq(en("模型加载失败：文件不存在"), "model failed to load: 文件不存在");
	cr_expect_str_eq(en("加载完毕，耗时 3.2 秒"), "loaded successfully, took 3.2 s");
	cr_expect_str_eq(en("显存不足"), "out of memory");
	cr_expect_str_eq(en("服务启动成功"), "server started successfully");
	/* a character that only shares a lead byte with a phrase's */
	cr_expect_str_eq(en("模块加载"), "模块 load");
	/* a phrase after ASCII of any length (the pass skips ASCII eight
	 * bytes at a time), after a glyph that is not Chinese */
	cr_expect_str_eq(en("INFO 2024-01-01 12:00:00 模型加载耗时 56.30s"), "INFO 2024-01-01 12:00:00 model load took 56.30s");
	cr_expect_str_eq(en("abcdefg模型加载耗时 1s"), "abcdefg model load took 1s");
	cr_expect_str_eq(en("abcdefgh模型加载耗时 1s"), "abcdefgh model load took 1s");
	cr_expect_str_eq(en("[\xe2\x96\x88\xe2\x96\x88] 模型加载耗时 1s"), "[\xe2\x96\x88\xe2\x96\x88] model load took 1s");
	/* no phrase: the line is read as it is */
	cr_expect_null(en("当前基文件夹 /home/x"));
	cr_expect_null(en("strata generate: loaded 39.97 GiB"));
	cr_expect_null(en(""));
}

/* The room given is the room used: a translation that does not fit is none */
Test(cjk, no_translation_past_the_room)
{
	char out[8];
	cr_expect_eq(tr_cjk_words("模型加载耗时 56.30s", strlen("模型加载耗时 56.30s"), out, sizeof out), 0);
	cr_expect_eq(tr_cjk_words("模型", strlen("模型"), out, 5), 5);
	cr_expect_eq(tr_cjk_words("模型", strlen("模型"), out, 4), 0);
}

/* CapsWriter's log: the load's time in Chinese is its figure (56.3 s:
 * under a minute, ok; 412.5 s: slow, the quoted line the Chinese one),
 * the load's end in Chinese ends it. The same log without the time line:
 * completed, no figure. A failure in Chinese fails the start. */
Test(cjk, a_chinese_apps_load)
{
	const char *log = "绑定的服务地址：0.0.0.0:6016\n模块加载完成\n语音模型载入完成\n标点模型载入完成\n模型加载耗时 56.30s\n";
	struct lsc_triage *t = trun_text(log);
	cr_assert(t);
	struct lsc_triage_start_info si;
	cr_assert(lsc_triage_start(t, 0, &si) == 0);
	cr_expect_str_eq(si.outcome, "completed");
	cr_expect_str_eq(si.speed, "ok");
	cr_expect(si.load_s > 56.29 && si.load_s < 56.31, "%f", si.load_s);
	lsc_triage_free(t);

	/* over 300 s: slow-start quotes the time's line, as pasted */
	t = trun_text("语音模型载入完成\n模型加载耗时 412.50s\n");
	cr_assert(lsc_triage_start(t, 0, &si) == 0);
	cr_expect_str_eq(si.speed, "slow");
	size_t on;
	char *o = trun_render(t, LSC_TRIAGE_TEXT, &on);
	cr_assert_not_null(o);
	cr_expect(strstr(o, ":2: 模型加载耗时 412.50s\n"), "the evidence quotes the Chinese line: %s", o);
	cr_expect(!strstr(o, "model load took"), "never the English it was read as: %s", o);
	free(o);
	lsc_triage_free(t);

	t = trun_text("语音模型载入完成\n");
	cr_assert(lsc_triage_start(t, 0, &si) == 0);
	cr_expect_str_eq(si.outcome, "completed");
	cr_expect_str_eq(si.speed, "-");
	lsc_triage_free(t);

	t = trun_text("正在加载模型 /models/paraformer\n模型加载失败：out of memory\n");
	cr_assert(lsc_triage_start(t, 0, &si) == 0);
	cr_expect_str_eq(si.outcome, "failed");
	lsc_triage_free(t);
}
