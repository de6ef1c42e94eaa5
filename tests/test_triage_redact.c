/*
 * Description: `loadscope triage --redact` (tools/triage/redact.c) on each
 * kind of token it replaces, and on its near misses, which stay: a path of
 * two or more components (but /proc, /sys and /dev, which say what the
 * kernel was asked), user@host, a dotted IPv4 address, a host name of three
 * or more labels; a version number, a file name, a size and a figure with
 * a dot stay as they were, because the triage reads them, and so do a
 * dotted name in code and a file's name. The expected
 * outputs are written by hand from those rules (docs/triage.md).
 */
#include <string.h>

#include <criterion/criterion.h>

#include "triage/internal.h"

static void redacts(const char *in, const char *want)
{
	char out[512];
	tr_redact(in, out, sizeof out);
	cr_expect_str_eq(out, want, "redact(\"%s\")", in);
}

Test(triage_redact, each_kind_and_its_near_miss)
{
	redacts("loading /home/alice/models/x.gguf", "loading <path>");
	redacts("cd ~/models/x", "cd <path>");
	redacts("reading /proc/sys/vm/nr_hugepages", "reading /proc/sys/vm/nr_hugepages");
	redacts("open /dev/kfd", "open /dev/kfd");
	redacts("file /x", "file /x"); /* one component: not a path anyone owns */
	redacts("ssh alice@gpu-node-7 failed", "ssh <user>@<host> failed");
	redacts("from 10.20.30.40 port 22", "from <ip> port 22");
	redacts("0.0.0.0:8000", "0.0.0.0:8000"); /* the wildcard address: no one's */
	redacts("connect node1.cluster.example.com refused", "connect <host> refused");
	redacts("vllm 0.6.3.post1 started", "vllm 0.6.3.post1 started"); /* a version */
	/* dotted names that are not hosts: a file's, and code's */
	redacts("model.safetensors.index.json", "model.safetensors.index.json");
	redacts("gpu1.example.org.json", "gpu1.example.org.json");
	redacts("loaded 39.97 GiB in 13.9 s", "loaded 39.97 GiB in 13.9 s");
	redacts("torch.cuda.OutOfMemoryError: x", "torch.cuda.OutOfMemoryError: x");
	redacts("at org.apache.Thing.run", "at org.apache.Thing.run");
	redacts("pulling from registry.ollama.ai now", "pulling from <host> now");
}

/* The output ends inside its buffer, at a whole token. */
Test(triage_redact, output_fits_and_ends)
{
	char out[16];
	tr_redact("loading /home/alice/models/x.gguf now", out, sizeof out);
	cr_expect_lt(strlen(out), sizeof out);
	cr_expect_str_eq(out, "loading <path> ");
}
