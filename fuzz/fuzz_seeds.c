/*
 * fuzz_seeds: write the seed corpora of both fuzz targets from the triage
 * corpus, so that fuzz/corpus holds a script's output, not copies:
 *
 *   fuzz_seeds LOGS_DIR OUT_DIR
 *
 * OUT_DIR/triage/: every log as is and through every kind of paste damage
 * (tests/helpers/damage.c), each behind the two option bytes fuzz_triage
 * reads first; OUT_DIR/line_parse/: every distinct loadscope line (human or
 * JSON) of the logs, one per file.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "helpers/damage.h"

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *p = n >= 0 ? malloc((size_t)n + 1) : NULL;
	if (p && fread(p, 1, (size_t)n, f) != (size_t)n) {
		free(p);
		p = NULL;
	}
	fclose(f);
	if (p)
		*len = (size_t)n;
	return p;
}

static int put(const char *dir, const char *name, const char *pre, size_t plen, const char *b, size_t n)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	if (!f)
		return -errno;
	fwrite(pre, 1, plen, f);
	fwrite(b, 1, n, f);
	return fclose(f) ? -EIO : 0;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: fuzz_seeds LOGS_DIR OUT_DIR\n");
		return 2;
	}
	char tdir[4096], ldir[4096];
	snprintf(tdir, sizeof tdir, "%s/triage", argv[2]);
	snprintf(ldir, sizeof ldir, "%s/line_parse", argv[2]);
	mkdir(argv[2], 0755);
	mkdir(tdir, 0755);
	mkdir(ldir, 0755);
	DIR *d = opendir(argv[1]);
	if (!d) {
		perror(argv[1]);
		return 1;
	}
	struct dirent *e;
	unsigned nt = 0, nl = 0;
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name), len;
		if (l < 5 || strcmp(e->d_name + l - 4, ".log"))
			continue;
		char path[4096], name[512];
		snprintf(path, sizeof path, "%s/%s", argv[1], e->d_name);
		char *buf = slurp(path, &len);
		if (!buf)
			continue;
		static const char opt[2] = {0, 1};
		snprintf(name, sizeof name, "%s", e->d_name);
		nt += put(tdir, name, opt, 2, buf, len) == 0;
		for (int k = 0; k < DMG_N; k++) {
			struct dmg_buf b = {0};
			if (dmg_apply((enum dmg_kind)k, buf, len, &b) == 0) {
				char o2[2] = {(char)(k & 0xf), (char)(k * 37 + 1)};
				snprintf(name, sizeof name, "%s.%s", e->d_name, dmg_name((enum dmg_kind)k));
				nt += put(tdir, name, o2, 2, b.p, b.len) == 0;
			}
			dmg_free(&b);
		}
		/* the loadscope lines, one per file */
		unsigned i = 0;
		for (char *p = buf, *end = buf + len; p < end;) {
			char *nlp = memchr(p, '\n', (size_t)(end - p));
			size_t n = nlp ? (size_t)(nlp - p) : (size_t)(end - p);
			if (memmem(p, n, "[loadscope/", 11) || memmem(p, n, "{\"loadscope\":", 13)) {
				snprintf(name, sizeof name, "%s.%03u", e->d_name, i++);
				nl += put(ldir, name, "", 0, p, n) == 0;
			}
			p += n + 1;
		}
		free(buf);
	}
	closedir(d);
	printf("fuzz_seeds: %u triage seeds, %u line seeds\n", nt, nl);
	return 0;
}
