/*
 * The cause of an engine error (tools/triage/shapes.c's tr_cause_of and
 * tr_cause_name) and what load-failed does with it (rule_load_failed.c):
 * each class from one of its words, in either case, and the order in which
 * the classes are tried when a line holds the words of two (a timeout
 * before a kill before a driver mismatch ...; an out-of-memory line's kind:
 * pinned before device before host before none). Then, end to end, an
 * engine error line of each class gives load-failed the class's name in
 * its summary and the class's own remedy in the text (a remedy dropped or
 * swapped between classes is what a reader would act on). The expected
 * names and remedies are the ones docs/triage.md and the rule's table give,
 * written out here, not read from the code.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/triage_run.h"
#include "triage/internal.h"

static enum tr_cause cause(const char *s)
{
	return tr_cause_of(s, strlen(s));
}

/* One word of each class, alone on an otherwise neutral line. */
Test(causes, each_class_by_one_word)
{
	static const struct {
		const char *line;
		enum tr_cause want;
	} c[] = {
		{"the load timed out after 600 s", TR_C_TIMEOUT},
		{"connect: ETIMEDOUT", TR_C_TIMEOUT},
		{"the worker took too long to answer", TR_C_TIMEOUT},
		{"worker exited: SIGKILL", TR_C_KILLED},
		{"process exited with status=9", TR_C_KILLED},
		{"CUDA driver version is insufficient for CUDA runtime version", TR_C_DRIVER},
		{"no kernel image is available for execution", TR_C_DRIVER},
		{"no CUDA-capable device is detected", TR_C_NODEV},
		{"open /dev/kfd: ENODEV", TR_C_NODEV},
		{"mmap with MAP_HUGETLB refused", TR_C_HUGETLB},
		{"out of memory", TR_C_OOM},
		{"Cannot allocate memory", TR_C_OOM},
		{"CUDA out of memory. Tried to allocate 2.00 GiB", TR_C_OOM_DEVICE},
		{"failed to allocate CUDA0 buffer of size 4096", TR_C_OOM_DEVICE},
		{"failed to allocate CPU buffer of size 4096", TR_C_OOM_HOST},
		{"failed to allocate pinned buffer of size 4096", TR_C_OOM_PINNED},
		{"read: Invalid argument", TR_C_INVAL},
		{"O_DIRECT not supported on this file system", TR_C_NOTSUP},
		{"pread: Input/output error", TR_C_READ},
		{"short read of tensor data", TR_C_READ},
		{"open /m/x.gguf: No such file or directory", TR_C_NOENT},
		{"mlock: Operation not permitted", TR_C_PERM},
		{"open: Permission denied", TR_C_PERM},
		{"something went wrong", TR_C_UNKNOWN},
		{"", TR_C_UNKNOWN},
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		cr_expect_eq(cause(c[i].line), c[i].want, "\"%s\": %d (%s), wanted %d (%s)", c[i].line,
			     cause(c[i].line), tr_cause_name(cause(c[i].line)), c[i].want, tr_cause_name(c[i].want));
}

/* The words are matched without regard to case, in either direction. */
Test(causes, case_does_not_matter)
{
	cr_expect_eq(cause("OUT OF MEMORY"), TR_C_OOM);
	cr_expect_eq(cause("Timed Out"), TR_C_TIMEOUT);
	cr_expect_eq(cause("no such file"), TR_C_NOENT);
	cr_expect_eq(cause("PERMISSION DENIED"), TR_C_PERM);
	cr_expect_eq(cause("einval"), TR_C_INVAL);
}

/*
 * Two classes on one line: the earlier in the order wins. Each pair below
 * is a neighbour of the order (timeout, killed, driver, no device, hugetlb,
 * out of memory, invalid argument, not supported, read, no entry,
 * permission), both ways round in the line's words, so a test swapped or
 * dropped moves one of them.
 */
Test(causes, order_between_two_classes)
{
	static const struct {
		const char *line;
		enum tr_cause want;
	} c[] = {
		{"killed after the load timed out", TR_C_TIMEOUT},
		{"timed out, then killed", TR_C_TIMEOUT},
		{"killed: CUDA driver version is insufficient", TR_C_KILLED},
		{"no CUDA-capable device: driver/library version mismatch", TR_C_DRIVER},
		{"hugetlb mapping on no device", TR_C_NODEV},
		{"out of memory in the hugetlb pool", TR_C_HUGETLB},
		{"out of memory: Invalid argument", TR_C_OOM},
		{"EINVAL: not supported", TR_C_INVAL},
		{"not supported: read error", TR_C_NOTSUP},
		{"read error: No such file", TR_C_READ},
		{"No such file: Permission denied", TR_C_NOENT},
		/* an out-of-memory line's kind: pinned, then device, then host */
		{"out of memory in cudaMallocHost (pinned) on the GPU", TR_C_OOM_PINNED},
		{"out of memory on the GPU for a CPU copy", TR_C_OOM_DEVICE},
		{"out of memory on the host", TR_C_OOM_HOST},
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		cr_expect_eq(cause(c[i].line), c[i].want, "\"%s\": %s, wanted %s", c[i].line,
			     tr_cause_name(cause(c[i].line)), tr_cause_name(c[i].want));
}

/* Only @n bytes are read: a word past them is not seen. */
Test(causes, length_bounds_the_words)
{
	const char *s = "xxxx out of memory";
	cr_expect_eq(tr_cause_of(s, strlen(s)), TR_C_OOM);
	cr_expect_eq(tr_cause_of(s, strlen(s) - 1), TR_C_UNKNOWN, "\"out of memor\" is no word");
	cr_expect_eq(tr_cause_of(s, 4), TR_C_UNKNOWN);
}

Test(causes, names)
{
	cr_expect_str_eq(tr_cause_name(TR_C_UNKNOWN), "unclassified");
	cr_expect_str_eq(tr_cause_name(TR_C_OOM_HOST), "out of host memory");
	cr_expect_str_eq(tr_cause_name(TR_C_OOM_DEVICE), "out of device memory");
	cr_expect_str_eq(tr_cause_name(TR_C_NODEV), "no device");
	cr_expect_str_eq(tr_cause_name(TR_C_GDS), "GPUDirect Storage (cuFile) refused");
	/* out of range: the unclassified name, never a read past the table */
	cr_expect_str_eq(tr_cause_name(TR_C_N), "unclassified");
	cr_expect_str_eq(tr_cause_name((enum tr_cause)-1), "unclassified");
}

/* ---- load-failed, end to end ------------------------------------------------------- */

static const char *summary_of(struct lsc_triage *t, const char *id)
{
	for (size_t i = 0; i < lsc_triage_nfindings(t); i++) {
		struct lsc_triage_finding_info f;
		if (lsc_triage_finding(t, i, &f) == 0 && !strcmp(f.id, id))
			return f.summary;
	}
	return NULL;
}

/*
 * llama.cpp's two error lines with the reason in the first: load-failed
 * names the class and gives its remedy, and only that class's first remedy
 * (a remedy of the neighbouring class must not be there).
 */
Test(causes, load_failed_names_the_class_and_its_remedy)
{
	static const struct {
		const char *why;
		const char *name;
		const char *remedy;    /* a phrase of the class's remedy */
		const char *not_there; /* a phrase of another class's remedy */
	} c[] = {
		{"unable to allocate CUDA0 buffer", "out of device memory", "the GPU ran out of memory",
		 "pinned (page-locked) host memory could not be had"},
		{"failed to allocate pinned buffer", "out of memory in a pinned (page-locked) host allocation",
		 "pinned (page-locked) host memory could not be had", "the GPU ran out of memory"},
		{"failed to allocate CPU buffer", "out of host memory", "the allocation did not fit in memory",
		 "the line does not say whether host"},
		{"out of memory", "out of memory in an allocation", "the line does not say whether host",
		 "the GPU ran out of memory"},
		{"no CUDA-capable device is detected", "no device", "no GPU was visible to the process",
		 "the driver and the runtime"},
		{"CUDA driver version is insufficient", "driver and runtime mismatch", "the driver and the runtime",
		 "no GPU was visible"},
		{"read: Invalid argument", "invalid argument", "an argument was refused (EINVAL)",
		 "the engine reads with direct I/O"},
		{"O_DIRECT not supported", "operation not supported", "the operation is not supported here",
		 "an argument was refused"},
		{"pread: Input/output error", "read error", "reading the model failed", "a file was not found"},
		{"timed out waiting for the weights", "timed out waiting", "the engine gave up waiting", "was killed"},
		{"the worker was killed", "killed", "the process was killed", "gave up waiting"},
		{"open /m/x.gguf: No such file or directory", "file not found", "a file was not found",
		 "permission was refused"},
		{"open /m/x.gguf: Permission denied", "permission denied", "permission was refused",
		 "a file was not found"},
		{"MAP_HUGETLB mapping refused", "hugetlb pool too small", "reserve them (sysctl vm.nr_hugepages",
		 "permission was refused"},
		{"something went wrong", "unclassified", "the error line does not say why", "the GPU ran out"},
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		char log[512];
		snprintf(log, sizeof(log),
			 "llama_model_load: loading model from /m/x.gguf\n"
			 "llama_model_load: error loading model: %s\n",
			 c[i].why);
		struct lsc_triage *t = trun_text(log);
		cr_assert(t);
		const char *s = summary_of(t, "load-failed");
		cr_assert(s, "no load-failed for \"%s\"", c[i].why);
		char want[256];
		snprintf(want, sizeof(want), "the start ended in an engine error before it was ready: %s", c[i].name);
		cr_expect_str_eq(s, want, "\"%s\"", c[i].why);
		cr_expect_eq(trun_sev_of(t, "load-failed"), LSC_TRIAGE_FAIL);
		char *txt = trun_render(t, LSC_TRIAGE_TEXT, NULL);
		cr_assert_not_null(txt, "the text rendering failed");
		cr_expect(strstr(txt, c[i].remedy), "\"%s\": no \"%s\" in:\n%s", c[i].why, c[i].remedy, txt);
		cr_expect(!strstr(txt, c[i].not_there), "\"%s\": \"%s\" in:\n%s", c[i].why, c[i].not_there, txt);
		/* every class ends with the pointer to its section */
		cr_expect(strstr(txt, "loadscope explain load-failed"), "\"%s\"", c[i].why);
		free(txt);
		lsc_triage_free(t);
	}
}

/*
 * The second error line is the fallback: llama.cpp's "failed to load model"
 * says nothing, so the first line's class stands whichever line comes
 * first; an error that only says "out of memory" takes the kind the other
 * line names (the more specific class).
 */
Test(causes, load_failed_takes_the_more_specific_line)
{
	struct lsc_triage *t = trun_text("llama_model_load: loading model from /m/x.gguf\n"
					 "llama_model_load: error loading model: unable to allocate CUDA0 buffer\n"
					 "llama_load_model_from_file: failed to load model\n");
	cr_assert(t);
	const char *s = summary_of(t, "load-failed");
	cr_assert(s);
	cr_expect(strstr(s, ": out of device memory"), "%s", s);
	lsc_triage_free(t);
}
